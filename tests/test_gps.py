"""The two trajectory generators: shapes, seeding, and the properties the chapter relies on."""

import numpy as np
import pytest

from course_lib.geo import haversine, to_local
from course_lib.gps import FLORENCE, MODES, CityConfig, city_trajectories, lecture_trajectories


def test_lecture_shapes_times_and_ranges():
    seen, ahead = lecture_trajectories(200, rng=np.random.default_rng(0))
    assert seen.shape == (200, 5, 3) and ahead.shape == (200, 3, 3)
    times = np.concatenate([seen[..., 2], ahead[..., 2]], axis=1)
    np.testing.assert_array_equal(np.diff(times, axis=1), 900.0)  # 15 minutes
    assert np.all(times[:, 0] == 1704096000.0)  # 2024-01-01 08:00:00 UTC for every trajectory
    assert np.all(np.abs(seen[..., :2] - FLORENCE) <= 0.01)
    steps = np.diff(np.concatenate([seen[:, -1:], ahead], axis=1)[..., :2], axis=1)
    assert np.all(np.abs(steps) <= 0.001)


def test_lecture_future_is_a_random_walk_from_the_last_observed_fix_only():
    seen, ahead = lecture_trajectories(20000, rng=np.random.default_rng(1))
    move = ahead[:, 0, :2] - seen[:, -1, :2]
    earlier = seen[:, -2, :2] - seen[:, -1, :2]
    # the first observed fixes do not predict the move: correlation ~ 0
    assert abs(np.corrcoef(move[:, 0], earlier[:, 0])[0, 1]) < 0.03


def test_generators_are_seeded_and_leave_global_state_alone():
    np.random.seed(5)
    before = np.random.get_state()[1].copy()
    for make in (lecture_trajectories, city_trajectories):
        a = make(10, rng=np.random.default_rng(3))
        b = make(10, rng=np.random.default_rng(3))
        np.testing.assert_array_equal(a[0], b[0])
        np.testing.assert_array_equal(a[1], b[1])
    np.testing.assert_array_equal(np.random.get_state()[1], before)


def test_city_shapes_modes_and_regular_sampling():
    seen, ahead, modes = city_trajectories(300, rng=np.random.default_rng(0), return_modes=True)
    assert seen.shape == (300, 5, 3) and ahead.shape == (300, 3, 3) and modes.shape == (300,)
    assert set(np.unique(modes)) == {0, 1, 2} and len(MODES) == 3
    times = np.concatenate([seen[..., 2], ahead[..., 2]], axis=1)
    np.testing.assert_array_equal(np.diff(times, axis=1), CityConfig().interval_s)
    assert len(np.unique(times[:, 0])) > 290  # start times spread over the year


def test_city_speeds_match_the_modes_and_stay_in_the_city():
    seen, ahead, modes = city_trajectories(3000, rng=np.random.default_rng(4), return_modes=True)
    track = np.concatenate([seen, ahead], axis=1)[..., :2]
    dist = haversine(track[:, 1:], track[:, :-1])  # (N, 7) metres per interval
    speed = np.median(dist, axis=1) / CityConfig().interval_s
    medians = [np.median(speed[modes == k]) for k in range(3)]
    assert medians[0] < 2.0 < medians[1] < 6.5 < medians[2] < 12  # walk < bike < car
    assert np.all(haversine(track, FLORENCE) < 4000)  # the centre, not the countryside


def test_city_turns_persist():
    """The learnable structure: the heading change of one interval predicts the next one."""
    seen, _ = city_trajectories(
        5000, rng=np.random.default_rng(5), config=CityConfig(gps_noise_m=0.0)
    )
    en = to_local(seen[..., :2], seen[:, -1:, :2])
    steps = np.diff(en, axis=1)
    heading = np.unwrap(np.arctan2(steps[..., 0], steps[..., 1]), axis=1)
    turns = np.diff(heading, axis=1)  # (N, 3)
    moving = np.all(np.linalg.norm(steps, axis=-1) > 5, axis=1)
    r = np.corrcoef(turns[moving, 0], turns[moving, 1])[0, 1]
    assert r > 0.4


@pytest.mark.parametrize("make", [lecture_trajectories, city_trajectories])
def test_bad_arguments_are_explained(make):
    with pytest.raises(TypeError, match="default_rng"):
        make(5, rng=0)
    with pytest.raises(ValueError, match="observed must be an integer >= 2"):
        make(5, rng=np.random.default_rng(0), observed=1)
    with pytest.raises(ValueError, match="n must be"):
        make(0, rng=np.random.default_rng(0))


def test_city_interval_must_be_whole_seconds():
    with pytest.raises(ValueError, match="whole number of seconds"):
        city_trajectories(5, rng=np.random.default_rng(0), config=CityConfig(interval_s=2.5))
