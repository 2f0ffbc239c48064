"""Haversine distances and the local metric map."""

import warnings

import numpy as np
import pytest
import torch

from course_lib.geo import EARTH_RADIUS_M, from_local, haversine, to_local

FLORENCE = np.array([43.7696, 11.2558])


def test_one_degree_of_latitude_and_of_longitude_in_florence():
    north = haversine(FLORENCE, FLORENCE + [1.0, 0.0])
    assert north == pytest.approx(EARTH_RADIUS_M * np.pi / 180, rel=1e-12)  # 111,195 m
    east = haversine(FLORENCE, FLORENCE + [0.0, 0.001])
    assert east == pytest.approx(80.30, abs=0.01)  # shorter: cos(43.77 deg) = 0.722


def test_haversine_is_a_distance():
    rng = np.random.default_rng(0)
    a, b, c = (FLORENCE + rng.uniform(-0.05, 0.05, (100, 2)) for _ in range(3))
    assert np.all(haversine(a, a) == 0)
    np.testing.assert_allclose(haversine(a, b), haversine(b, a), rtol=1e-12)
    assert np.all(haversine(a, c) <= haversine(a, b) + haversine(b, c) + 1e-6)


def test_antipodes_are_half_a_circumference_apart():
    assert haversine([0.0, 0.0], [0.0, 180.0]) == pytest.approx(np.pi * EARTH_RADIUS_M)


def test_local_map_round_trips_and_keeps_distances_within_a_city():
    rng = np.random.default_rng(1)
    points = FLORENCE + rng.uniform(-0.03, 0.03, (500, 2))  # about 3 km around the centre
    en = to_local(points, FLORENCE)
    np.testing.assert_allclose(from_local(en, FLORENCE), points, rtol=0, atol=1e-12)
    flat = np.linalg.norm(en, axis=-1)
    np.testing.assert_allclose(flat, haversine(points, FLORENCE), rtol=1e-3)  # < 1 m per km


def test_local_axes_point_east_and_north():
    en = to_local(FLORENCE + [[0.001, 0.0], [0.0, 0.001]], FLORENCE)
    assert en[0, 0] == pytest.approx(0) and en[0, 1] > 0  # north
    assert en[1, 0] > 0 and en[1, 1] == pytest.approx(0)  # east


def test_one_origin_per_trajectory_broadcasts():
    tracks = FLORENCE + np.random.default_rng(2).uniform(-0.01, 0.01, (4, 6, 2))
    en = to_local(tracks, tracks[:, -1:])
    assert en.shape == (4, 6, 2)
    np.testing.assert_allclose(en[:, -1], 0, atol=1e-9)
    np.testing.assert_allclose(from_local(en, tracks[:, -1:]), tracks, atol=1e-12)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (np.zeros((3, 3)) + [43.0, 11.0, 1.7e9], "last dimension"),
        ([143.0, 11.0], "latitudes outside"),
        ([np.nan, 11.0], "NaN"),
    ],
)
def test_bad_positions_are_explained(value, message):
    with pytest.raises(ValueError, match=message):
        haversine(value, FLORENCE)


def test_from_local_wants_east_north_pairs():
    with pytest.raises(ValueError, match=r"\(\.\.\., 2\) metres"):
        from_local(np.zeros((2, 3)), FLORENCE)


# -- the slips a notebook makes, each with an error (or warning) that names it ------------


def test_a_tensor_that_requires_grad_is_accepted():
    a = torch.tensor(FLORENCE, requires_grad=True)
    assert haversine(a, FLORENCE + [0.001, 0.0]) == pytest.approx(111.2, abs=0.1)


def test_trajectories_of_different_lengths_are_named_ragged():
    tracks = [FLORENCE + np.zeros((5, 2)), FLORENCE + np.zeros((3, 2))]
    with pytest.raises(ValueError, match="latlon is a ragged list.*different lengths"):
        to_local(tracks, FLORENCE)


def test_something_that_is_not_numbers_is_named():
    with pytest.raises(TypeError, match="a must hold numbers, got str"):
        haversine("Florence", FLORENCE)


def test_longitudes_beyond_360_degrees_look_like_metres():
    with pytest.raises(ValueError, match="longitudes beyond 360.*metres"):
        haversine([10.0, 1500.0], FLORENCE)


def test_an_origin_per_trajectory_without_its_length_axis_is_explained():
    tracks = FLORENCE + np.zeros((4, 6, 2))
    with pytest.raises(ValueError, match=r"origin\[:, None\] is \(4, 1, 2\)"):
        to_local(tracks, tracks[:, -1])
    with pytest.raises(ValueError, match=r"origin\[:, None\]"):
        from_local(np.zeros((4, 6, 2)), tracks[:, -1])


def test_an_origin_per_trajectory_that_happens_to_broadcast_is_warned_about():
    tracks = FLORENCE + np.random.default_rng(0).uniform(-0.01, 0.01, (3, 3, 2))
    with pytest.warns(UserWarning, match=r"origin \(3, 2\) is matched to the axis of length 3"):
        to_local(tracks, tracks[:, -1])


def test_time_major_against_batch_first_is_named():
    a = FLORENCE + np.zeros((4, 3, 2))
    with pytest.raises(ValueError, match=r"\(N, T, 2\), the other \(T, N, 2\).*swapaxes"):
        haversine(a, a.transpose(1, 0, 2))


def test_nan_metres_are_refused():
    with pytest.raises(ValueError, match="east_north contains NaN"):
        from_local([[np.nan, 0.0]], FLORENCE)


def test_radians_warn_and_degrees_do_not():
    a, b = np.radians(FLORENCE), np.radians(FLORENCE + [0.01, 0.01])
    with pytest.warns(UserWarning, match=r"degrees.*within \+-pi.*radians\?"):
        haversine(a, b)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        haversine([0, 0], [0, 1])  # whole degrees near (0, 0): no warning
        haversine(FLORENCE, FLORENCE + [0.01, 0.0])
