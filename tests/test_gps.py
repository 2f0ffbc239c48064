"""The two trajectory generators: shapes, seeding, and the properties the chapter relies on."""

from datetime import datetime

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


# -- the slips a notebook makes, each with an error that names it ------------------------


def test_a_start_that_is_not_the_format_is_explained():
    with pytest.raises(ValueError, match="start must be 'YYYY-mm-dd HH:MM:SS'"):
        lecture_trajectories(3, rng=np.random.default_rng(0), start="2024-01-01")
    with pytest.raises(ValueError, match="start must be 'YYYY-mm-dd HH:MM:SS'"):
        CityConfig(start="01/01/2024")


def test_a_start_that_is_not_a_str_is_explained():
    with pytest.raises(TypeError, match="start must be a str 'YYYY-mm-dd HH:MM:SS'"):
        lecture_trajectories(3, rng=np.random.default_rng(0), start=datetime(2024, 1, 1))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"max_offset": -0.01}, "max_offset must be >= 0"),
        ({"max_step": float("nan")}, "max_step must be >= 0"),
        ({"interval_min": 0}, "interval_min must be > 0"),
        ({"interval_min": "15"}, "interval_min must be a number"),
    ],
)
def test_lecture_sizes_must_be_numbers_that_make_sense(kwargs, message):
    with pytest.raises((ValueError, TypeError), match=message):
        lecture_trajectories(3, rng=np.random.default_rng(0), **kwargs)


def test_the_generator_function_itself_is_not_a_generator():
    with pytest.raises(TypeError, match="rng must be a np.random.Generator.*default_rng\\(0\\)"):
        city_trajectories(3, rng=np.random.default_rng)


@pytest.mark.parametrize("config", [{"interval_s": 10.0}, CityConfig])
def test_config_must_be_a_city_config_instance(config):
    with pytest.raises(TypeError, match="config must be a CityConfig instance"):
        city_trajectories(3, rng=np.random.default_rng(0), config=config)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"mode_probs": (0.5, 0.5)}, r"mode_probs must hold one value per mode \('walk'"),
        ({"mode_probs": (0.0, 0.0, 0.0)}, "mode_probs must not all be 0"),
        ({"cruise_sd": (0.25, -0.8, 2.0)}, "cruise_sd must not be negative"),
        ({"cruise_sd": (0.25, float("nan"), 2.0)}, "cruise_sd must be >= 0, got nan"),
        ({"gps_noise_m": -4.0}, "gps_noise_m must be >= 0"),
        ({"stop_s": (40.0, 10.0)}, r"stop_s must be \(shortest, longest\)"),
        ({"turn_memory_s": 0.0}, "turn_memory_s must be > 0"),
    ],
)
def test_city_config_refuses_values_the_simulation_cannot_use(changes, message):
    with pytest.raises(ValueError, match=message):
        CityConfig(**changes)


def test_all_zero_mode_probs_say_one_must_be_positive():
    with pytest.raises(ValueError) as info:
        CityConfig(mode_probs=(0, 0, 0))
    message = str(info.value)
    assert "mode_probs must not all be 0, got (0, 0, 0)" in message
    assert "at least one must be positive" in message
    assert "mode_probs=(0.4, 0.3, 0.3)" in message


def test_a_negative_per_mode_value_names_the_mode_and_the_default():
    with pytest.raises(ValueError) as info:
        CityConfig(cruise_mean=(1.4, -4.5, 8.5))
    message = str(info.value)
    assert "cruise_mean must not be negative" in message
    assert "its bike value is -4.5" in message
    assert "cruise_mean=(1.4, 4.5, 8.5)" in message


def test_a_positional_generator_is_named_rng():
    with pytest.raises(TypeError, match=r"keyword-only.*rng="):
        lecture_trajectories(20, np.random.default_rng(0))
    with pytest.raises(TypeError, match=r"CityConfig\(\).*'interval'.*did you mean interval_s="):
        CityConfig(interval=20.0)


def test_cruising_speeds_in_km_per_hour_warn():
    with pytest.warns(UserWarning, match=r"cruise_mean=\(5.0, 15.0, 30.0\).*m/s.*divide by 3.6"):
        CityConfig(cruise_mean=(5.0, 15.0, 30.0))
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        CityConfig(cruise_mean=(2.5, 8.0, 14.0))  # runners, fast cyclists, cars at 50 km/h
