"""Features, scaling, errors and baselines of the GPS chapter."""

import warnings

import numpy as np
import pytest
import torch

from course_lib.geo import from_local, haversine
from course_lib.gps import FLORENCE, city_trajectories, lecture_trajectories
from course_lib.trajectories import (
    HeadingFrameLinear,
    HeadingFrameQuadratic,
    Standardizer,
    TrajectoryFeatures,
    ade_fde,
    constant_turn_rate,
    constant_velocity,
    displacement_errors,
    relative_metres,
    stay,
    time_deltas,
    trajectory_datasets,
)


@pytest.fixture(scope="module")
def city():
    return city_trajectories(400, rng=np.random.default_rng(0))


def straight_line(n=6, speed=(3.0, -4.0), interval=20.0):
    """Trajectories moving at a constant 5 m/s: constant velocity is exact on them."""
    t = interval * np.arange(n)
    en = np.asarray(speed) * t[:, None]  # (L, 2) metres
    latlon = from_local(en, np.asarray(FLORENCE))
    return np.concatenate([latlon, 1.7e9 + t[:, None]], axis=1)[None]  # (1, L, 3)


def test_relative_metres_start_from_the_last_observed_fix(city):
    source, target = relative_metres(*city)
    assert source.shape == (400, 5, 2) and target.shape == (400, 3, 2)
    np.testing.assert_allclose(source[:, -1], 0, atol=1e-9)
    np.testing.assert_allclose(
        np.linalg.norm(target, axis=-1), haversine(city[1][..., :2], city[0][:, -1:, :2]), rtol=1e-3
    )


def test_time_deltas_and_time_running_back():
    np.testing.assert_array_equal(time_deltas(straight_line(4)), [[20.0, 20.0, 20.0]])
    with pytest.raises(ValueError, match="increase"):
        time_deltas(straight_line(4)[:, ::-1])


def test_standardizer_fits_once_and_inverts():
    rng = np.random.default_rng(0)
    x = rng.normal([5.0, -2.0], [3.0, 0.5], size=(50, 8, 2))
    s = Standardizer.fit(x)
    z = s.transform(x)
    np.testing.assert_allclose(z.reshape(-1, 2).mean(0), 0, atol=1e-12)
    np.testing.assert_allclose(z.reshape(-1, 2).std(0), 1, atol=1e-12)
    np.testing.assert_allclose(s.inverse_transform(z), x, atol=1e-12)
    other = rng.normal(size=(3, 2))
    np.testing.assert_allclose(s.transform(other), (other - s.mean) / s.std)  # training statistics


def test_a_constant_feature_is_refused():
    x = np.ones((10, 5, 3))
    x[..., 0] = np.arange(50).reshape(10, 5)
    with pytest.raises(ValueError, match=r"feature\(s\) \[1, 2\] are constant"):
        Standardizer.fit(x)
    with pytest.raises(ValueError, match="expected 2 features"):
        Standardizer.fit(np.random.default_rng(0).normal(size=(4, 2))).transform(np.zeros((4, 3)))


def test_features_round_trip_to_positions(city):
    features = TrajectoryFeatures.fit(*city)
    source, target = features.encode(*city)
    assert source.dtype == target.dtype == torch.float32
    assert source.shape == (400, 5, 2) and target.shape == (400, 3, 2)
    both = torch.cat([source, target], dim=1).double()
    np.testing.assert_allclose(both.mean((0, 1)), 0, atol=1e-5)
    back = features.to_latlon(target, city[0])
    assert np.max(haversine(back, city[1][..., :2])) < 0.01  # float32 round trip: < 1 cm


def test_features_fitted_on_training_only(city):
    seen, ahead = city
    features = TrajectoryFeatures.fit(seen[:200], ahead[:200])
    other = TrajectoryFeatures.fit(seen[200:], ahead[200:])
    assert not np.allclose(features.scaler.std, other.scaler.std)
    np.testing.assert_allclose(
        features.encode(seen[200:]).numpy(),
        features.scaler.transform(relative_metres(seen[200:])),
        rtol=1e-6,
        atol=1e-6,
    )


def test_datasets_with_and_without_teacher_forcing(city):
    features = TrajectoryFeatures.fit(*city)
    train, valid = trajectory_datasets(features, city, city)
    assert len(train[0]) == 3 and len(valid[0]) == 2
    free, _ = trajectory_datasets(features, city, city, teacher_forcing=False)
    assert len(free[0]) == 2
    torch.testing.assert_close(free[0][1], train[0][2])


def test_to_latlon_checks_the_batch(city):
    features = TrajectoryFeatures.fit(*city)
    with pytest.raises(ValueError, match="N = 400"):
        features.to_latlon(np.zeros((3, 3, 2)), city[0])


def test_errors_in_metres():
    true = np.repeat(np.asarray(FLORENCE)[None, None], 3, axis=1)  # (1, 3, 2)
    pred = from_local(np.array([[[0.0, 10.0], [0.0, 20.0], [30.0, 40.0]]]), np.asarray(FLORENCE))
    d = displacement_errors(pred, true)
    np.testing.assert_allclose(d, [[10.0, 20.0, 50.0]], rtol=1e-5)
    ade, fde = ade_fde(pred, true)
    assert ade == pytest.approx(80 / 3, rel=1e-5) and fde == pytest.approx(50, rel=1e-5)
    with pytest.raises(ValueError, match="same"):
        displacement_errors(pred[:, :2], true)


def test_constant_velocity_is_exact_on_a_straight_line_and_stay_is_not():
    track = straight_line(8)
    seen, ahead = track[:, :5], track[:, 5:]
    cv = constant_velocity(seen, ahead[..., 2])
    assert np.max(displacement_errors(cv, ahead)) < 1e-6
    np.testing.assert_allclose(
        displacement_errors(stay(seen, 3), ahead), [[100, 200, 300]], rtol=1e-4
    )


def test_constant_velocity_uses_the_timestamps():
    track = straight_line(8)
    seen = track[:, :5]
    halfway = seen[:, -1, 2] + np.array([[10.0, 30.0, 50.0]])  # other prediction times
    d = haversine(constant_velocity(seen, halfway), seen[:, -1:, :2])
    np.testing.assert_allclose(d, [[50.0, 150.0, 250.0]], rtol=1e-4)  # 5 m/s
    with pytest.raises(ValueError, match="after the last observed"):
        constant_velocity(seen, seen[:, -3:, 2])


def test_on_the_lecture_data_constant_velocity_is_far_worse_than_staying():
    seen, ahead = lecture_trajectories(2000, rng=np.random.default_rng(7))
    stay_ade, _ = ade_fde(stay(seen, 3), ahead)
    cv_ade, _ = ade_fde(constant_velocity(seen, ahead[..., 2]), ahead)
    assert 80 < stay_ade < 120 and cv_ade > 10 * stay_ade


def test_bad_shapes_are_explained():
    with pytest.raises(ValueError, match=r"\(N, L, 2\)"):
        relative_metres(np.zeros((5, 3)))
    with pytest.raises(ValueError, match="different numbers of trajectories"):
        relative_metres(
            np.zeros((4, 5, 3)) + [43.0, 11.0, 0.0], np.zeros((3, 3, 3)) + [43.0, 11.0, 0.0]
        )


def arc(times, speed=6.0, rate=0.02, heading=0.7):
    """One trajectory on a circle: constant speed (m/s) and turn rate (rad/s), ``(1, L, 3)``."""
    t = np.asarray(times, dtype=np.float64)
    theta = heading + rate * t
    east = speed / rate * (np.sin(theta) - np.sin(heading))
    north = -speed / rate * (np.cos(theta) - np.cos(heading))
    latlon = from_local(np.stack([east, north], axis=-1), np.asarray(FLORENCE))
    return np.concatenate([latlon, 1.7e9 + t[:, None]], axis=1)[None]


@pytest.mark.parametrize("times", [20.0 * np.arange(8), [0, 20, 45, 60, 70, 95, 110, 150]])
def test_constant_turn_rate_is_exact_on_a_circle_and_cv_is_not(times):
    track = arc(times)
    observed, future = track[:, :5], track[:, 5:]
    ctrv = displacement_errors(constant_turn_rate(observed, future[..., 2]), future)
    cv = displacement_errors(constant_velocity(observed, future[..., 2]), future)
    assert ctrv.max() < 0.05, ctrv  # metres
    assert cv[0, -1] > 10, cv


def test_constant_turn_rate_without_a_turn_is_constant_velocity(city):
    line = straight_line(8)
    observed, future = line[:, :5], line[:, 5:]
    np.testing.assert_allclose(
        constant_turn_rate(observed, future[..., 2]),
        constant_velocity(observed, future[..., 2]),
        atol=1e-9,
    )
    observed, future = city
    assert (
        ade_fde(constant_turn_rate(observed, future[..., 2]), future)[0]
        < ade_fde(constant_velocity(observed, future[..., 2]), future)[0]
    )  # city objects keep turning
    with pytest.raises(ValueError, match="S>=3"):
        constant_turn_rate(observed[:, -2:], future[..., 2])
    with pytest.raises(ValueError, match="after the last observed fix"):
        constant_turn_rate(observed, observed[:, :3, 2])


def test_heading_frame_linear_learns_a_linear_rule_exactly_and_in_any_direction():
    """Future = a fixed linear function of the history in the heading frame: fitted exactly,
    and a trajectory turned by any angle is predicted turned by the same angle."""
    rng = np.random.default_rng(0)
    n = 300
    speed = rng.uniform(1, 10, n)
    rate = rng.choice([-1, 1], n) * rng.uniform(0.005, 0.03, n)
    heading = rng.uniform(-np.pi, np.pi, n)
    tracks = np.concatenate(
        [arc(20.0 * np.arange(8), v, w, h) for v, w, h in zip(speed, rate, heading, strict=True)]
    )
    model = HeadingFrameLinear.fit(tracks[:200, :5], tracks[:200, 5:])
    test_observed, test_future = tracks[200:, :5], tracks[200:, 5:]
    errors = displacement_errors(model(test_observed), test_future)
    assert errors.mean() < 0.5, errors.mean()  # arcs are nearly linear in the heading frame
    # the last fix is the origin and the fix before it has north 0: 7 inputs and a bias
    assert model.weights.shape == (8, 6) and model.observed_fixes == 5
    with pytest.raises(ValueError, match="fitted on 5 observed fixes"):
        model(tracks[:, :4])


def test_heading_frame_linear_on_city_data_beats_constant_velocity(city):
    train = city_trajectories(2000, rng=np.random.default_rng(1))
    model = HeadingFrameLinear.fit(*train)
    observed, future = city
    assert (
        ade_fde(model(observed), future)[0]
        < ade_fde(constant_velocity(observed, future[..., 2]), future)[0]
    )


def heading_frame_tracks(future_of, n=400, seed=0):
    """Trajectories ``(n, 8, 3)`` whose three future positions are ``future_of(inputs)`` in
    the heading frame, where ``inputs`` ``(n, 7)`` are the coordinates that vary there; each
    trajectory is then turned by a random angle and placed near Florence."""
    rng = np.random.default_rng(seed)
    inputs = rng.normal(0, 50, (n, 7))  # metres
    inputs[:, 6] = -rng.uniform(5, 100, n)  # the fix before the last, east of it: behind
    seen = np.zeros((n, 5, 2))
    seen[:, :3] = inputs[:, :6].reshape(n, 3, 2)
    seen[:, 3, 0] = inputs[:, 6]  # the last fix stays at the origin
    ahead = future_of(inputs).reshape(n, 3, 2)
    angle = rng.uniform(-np.pi, np.pi, n)
    turned = np.exp(1j * angle)[:, None] * (np.concatenate([seen, ahead], 1) @ [1, 1j])
    origin = np.asarray(FLORENCE) + rng.normal(0, 0.005, (n, 1, 2))  # degrees
    latlon = from_local(np.stack([turned.real, turned.imag], -1), origin)
    times = 1.7e9 + 20.0 * np.arange(8)
    return np.concatenate([latlon, np.broadcast_to(times[:, None], (n, 8, 1))], axis=-1)


def test_heading_frame_quadratic_learns_a_quadratic_rule_exactly_and_in_any_direction():
    """Future = a fixed quadratic function of the heading-frame inputs: the quadratic baseline
    fits it to the millimetre on trajectories turned every way; the linear one cannot."""
    rng = np.random.default_rng(1)
    a, b = rng.normal(0, 1, (7, 6)), rng.normal(0, 0.01, (28, 6))
    i, j = np.triu_indices(7)
    tracks = heading_frame_tracks(lambda u: u @ a + (u[:, i] * u[:, j]) @ b + 3.0)
    train, test = tracks[:300], tracks[300:]
    model = HeadingFrameQuadratic.fit(train[:, :5], train[:, 5:])
    assert model.weights.shape == (36, 6)  # 7 inputs, 28 products, a bias
    assert displacement_errors(model(test[:, :5]), test[:, 5:]).max() < 1e-3  # metres
    linear = HeadingFrameLinear.fit(train[:, :5], train[:, 5:])
    assert displacement_errors(linear(test[:, :5]), test[:, 5:]).mean() > 10
    with pytest.raises(ValueError, match="fitted on 5 observed fixes"):
        model(test[:, :4])


def test_heading_frame_quadratic_on_city_data_beats_the_linear_model(city):
    train = city_trajectories(2000, rng=np.random.default_rng(1))
    observed, future = city
    linear, quadratic = (
        m.fit(*train)(observed) for m in (HeadingFrameLinear, HeadingFrameQuadratic)
    )
    assert ade_fde(quadratic, future)[0] < ade_fde(linear, future)[0]


# -- the slips a notebook makes, each with an error (or warning) that names it ------------


@pytest.fixture(scope="module")
def small():
    return city_trajectories(4, rng=np.random.default_rng(3))


def test_nan_fixes_are_named_by_the_argument(small):
    observed, future = small
    broken = observed.copy()
    broken[1, 2, 0] = np.nan
    with pytest.raises(ValueError, match="observed contains NaN"):
        relative_metres(broken, future)


def test_metres_for_degrees_are_named_by_the_argument(small):
    observed, future = small
    in_metres = future.copy()
    in_metres[..., :2] = [[150.0, -40.0]]  # metres from the last fix, not [lat, lon]
    with pytest.raises(ValueError, match="future has latitudes outside.*metres"):
        relative_metres(observed, in_metres)


def test_a_time_major_batch_is_refused(small):
    observed, future = small
    with pytest.raises(ValueError, match=r"observed \(5, 4, 3\) looks time-major.*swapaxes"):
        relative_metres(observed.transpose(1, 0, 2))


def test_a_time_major_batch_of_the_lecture_generator_is_refused_too():
    observed, _ = lecture_trajectories(4, rng=np.random.default_rng(0))  # shared timestamps
    with pytest.raises(ValueError, match="time-major"):
        time_deltas(observed.transpose(1, 0, 2))


def test_trajectories_of_different_lengths_are_named(small):
    observed, _ = small
    with pytest.raises(ValueError, match="observed is a ragged list"):
        relative_metres([observed[0], observed[1, :3]])


def test_one_trajectory_without_the_batch_axis_is_explained(small):
    observed, _ = small
    with pytest.raises(ValueError, match=r"add the batch axis: observed\[None\]"):
        relative_metres(observed[0])


def test_an_empty_batch_is_refused(small):
    observed, future = small
    with pytest.raises(ValueError, match=r"predicted holds no trajectories \(N = 0\)"):
        ade_fde(future[:0], future[:0])


def test_observed_and_future_swapped_are_named(small):
    observed, future = small
    with pytest.raises(ValueError, match="are observed and future swapped"):
        relative_metres(future, observed)
    with pytest.raises(ValueError, match="are observed and future swapped"):
        TrajectoryFeatures.fit(future, observed)


def test_tensors_that_require_grad_are_accepted(small):
    observed, future = small
    seen = torch.tensor(observed, requires_grad=True)
    np.testing.assert_allclose(relative_metres(seen), relative_metres(observed))
    scaler = Standardizer.fit(torch.tensor(relative_metres(observed), requires_grad=True))
    np.testing.assert_allclose(scaler.mean, Standardizer.fit(relative_metres(observed)).mean)


def test_a_scaler_is_not_fitted_on_nan_and_needs_a_positive_std():
    with pytest.raises(ValueError, match="x contains NaN.*mean and std would be NaN"):
        Standardizer.fit(np.array([[1.0, 2.0], [np.nan, 3.0]]))
    with pytest.raises(ValueError, match="std finite and positive"):
        Standardizer(np.zeros(2), np.array([1.0, 0.0]))
    with pytest.raises(ValueError, match=r"mean and std must be \(F,\)"):
        Standardizer(np.zeros(2), np.ones(3))


@pytest.mark.parametrize(
    ("args", "missing"), [((np.zeros((4, 5, 2)),), "got no std"), ((), "got no mean and no std")]
)
def test_the_constructor_called_with_data_points_at_fit(args, missing):
    with pytest.raises(TypeError) as info:
        Standardizer(*args)
    message = str(info.value)
    assert "Standardizer(mean, std) takes the statistics" in message
    assert missing in message
    assert "Standardizer.fit(train_x)" in message


def test_features_need_a_standardizer():
    with pytest.raises(TypeError, match="scaler must be a Standardizer, got dict"):
        TrajectoryFeatures({"mean": 0.0, "std": 1.0})


def test_to_latlon_with_its_arguments_swapped_says_the_order(small):
    observed, future = small
    features = TrajectoryFeatures.fit(observed, future)
    predicted = np.zeros((4, 3, 2))
    with pytest.raises(ValueError, match=r"The order is to_latlon\(predicted, observed\)"):
        features.to_latlon(observed, predicted)


def test_datasets_want_pairs_and_fitted_features(small):
    features = TrajectoryFeatures.fit(*small)
    with pytest.raises(TypeError, match=r"train must be an \(observed, future\) pair"):
        trajectory_datasets(features, small[0], small)
    with pytest.raises(TypeError, match="features must be a fitted TrajectoryFeatures, got the"):
        trajectory_datasets(TrajectoryFeatures, small, small)


def test_predictions_in_model_units_are_warned_about(small):
    observed, future = small
    scaled = np.random.default_rng(0).normal(size=(4, 3, 2))  # standardised metres
    with pytest.warns(UserWarning, match=r"still in model units.*to_latlon"):
        ade_fde(scaled, future)


def test_time_major_predictions_are_named(small):
    observed, future = small
    predicted = stay(observed, 3)  # (4, 3, 2)
    with pytest.raises(ValueError, match=r"predicted looks time-major \(T, N, 2\)"):
        displacement_errors(predicted.transpose(1, 0, 2), future)


def test_stay_wants_the_number_of_future_fixes(small):
    observed, future = small
    with pytest.raises(TypeError, match=r"horizon must be the number of future fixes.*shape\[1\]"):
        stay(observed, future)
    with pytest.raises(ValueError, match="horizon must be at least 1"):
        stay(observed, 0)


def test_constant_velocity_wants_the_time_column_of_the_future(small):
    observed, future = small
    with pytest.raises(
        ValueError, match=r"times must be the \(N, T\) timestamps.*future\[\.\.\., 2\]"
    ):
        constant_velocity(observed, future)
    with pytest.raises(ValueError, match=r"times must be \(N, T\), one row of timestamps"):
        constant_velocity(observed, future[0, :, 2])
    times = future[..., 2].copy()
    times[0, 1] = np.nan
    with pytest.raises(ValueError, match="times contains NaN"):
        constant_turn_rate(observed, times)


def test_a_baseline_is_fitted_not_built_from_data(small):
    with pytest.raises(TypeError, match=r"fit the baseline with HeadingFrameLinear\.fit"):
        HeadingFrameLinear(*small)
    with pytest.raises(TypeError, match=r"HeadingFrameQuadratic\.fit"):
        HeadingFrameQuadratic(*small)


def test_transform_on_the_class_says_fit_a_scaler_first():
    x = np.random.default_rng(0).normal(size=(6, 2))
    fix = r"Call it on a fitted scaler: scaler = Standardizer\.fit\(train_x\); scaler\.{}\(x\)"
    for name in ("transform", "inverse_transform"):
        with pytest.raises(
            TypeError, match=r"called on the class, with ndarray.*" + fix.format(name)
        ):
            getattr(Standardizer, name)(x)
    scaler = Standardizer.fit(x)
    np.testing.assert_allclose(Standardizer.transform(scaler, x), scaler.transform(x))
    np.testing.assert_allclose(scaler.inverse_transform(scaler.transform(x)), x)
    assert Standardizer.transform.__doc__.startswith("``(x - mean) / std``")


def test_a_baseline_fitted_on_fewer_trajectories_than_columns_is_warned_about():
    observed, future = city_trajectories(40, rng=np.random.default_rng(4))
    with pytest.warns(
        UserWarning,
        match=r"HeadingFrameLinear\.fit on 3 trajectories: its 48 coefficients \(8 per output, "
        r"6 outputs\) need at least 8 trajectories.*underdetermined",
    ):
        HeadingFrameLinear.fit(observed[:3], future[:3])
    with pytest.warns(UserWarning, match=r"Quadratic\.fit on 20 trajectories.*at least 36"):
        HeadingFrameQuadratic.fit(observed[:20], future[:20])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        HeadingFrameLinear.fit(observed[:8], future[:8])  # determined: no warning


def test_the_pair_passed_whole_is_explained():
    from course_lib.gps import lecture_trajectories
    from course_lib.trajectories import TrajectoryFeatures

    with pytest.raises(TypeError, match=r"'future'.*\(observed, future\) pair unpacked.*\*train"):
        TrajectoryFeatures.fit(lecture_trajectories(5, rng=np.random.default_rng(0)))


# -- a pair where one array goes, a 2-D array, other libraries' method names -------------


@pytest.fixture(scope="module")
def lecture():
    return lecture_trajectories(20, rng=np.random.default_rng(0))


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda pair, features: relative_metres(pair), "observed"),
        (lambda pair, features: stay(pair, 3), "observed"),
        (lambda pair, features: time_deltas(pair), "track"),
        (lambda pair, features: features.encode(pair), "observed"),
        (lambda pair, features: features.to_latlon(features.encode(*pair)[1], pair), "observed"),
        (lambda pair, features: HeadingFrameLinear.fit(*pair)(pair), "observed"),
        (lambda pair, features: displacement_errors(stay(pair[0], 3), pair), "true"),
        (lambda pair, features: ade_fde(list(pair), pair[1]), "predicted"),
    ],
    ids=[
        "relative_metres",
        "stay",
        "time_deltas",
        "encode",
        "to_latlon",
        "baseline",
        "true",
        "predicted",
    ],
)
def test_an_observed_future_pair_where_one_array_goes_is_to_be_unpacked(lecture, call, name):
    features = TrajectoryFeatures.fit(*lecture)
    with pytest.raises(
        TypeError,
        match=rf"^{name} is a (tuple|list) of two arrays, \(20, 5, 3\) and \(20, 3, 3\): the "
        r"\(observed, future\) pair .* Unpack it, observed, future = pair, and pass",
    ):
        call(lecture, features)


def test_the_pair_message_names_what_to_pass_and_the_call_that_takes_both(lecture):
    with pytest.raises(TypeError, match=r"pass observed alone; relative_metres\(\*pair\) takes"):
        relative_metres(lecture)
    with pytest.raises(TypeError, match=r"pass future \(the true future fixes\) as true$"):
        displacement_errors(stay(lecture[0], 3), lecture)
    with pytest.raises(TypeError, match=r"observed is a dict \(keys 'train'\).*= data\['train'\]"):
        relative_metres({"train": lecture})
    for baseline in (HeadingFrameLinear, HeadingFrameQuadratic, TrajectoryFeatures):
        with pytest.raises(TypeError, match=r"missing .*'future'.*unpacked, with \*: fit\(\*tr"):
            baseline.fit(lecture)
    # two trajectories of the same length in a list are one batch, not a pair
    two = [lecture[0][0], lecture[0][1]]
    assert relative_metres(two).shape == (2, 5, 2)


def test_a_2d_array_where_every_fix_goes_says_which_slice_it_looks_like(lecture):
    observed, future = lecture
    features = TrajectoryFeatures.fit(observed, future)
    scaled = features.encode(observed, future)[1]
    with pytest.raises(
        ValueError,
        match=r"observed must be .* got the 2-D shape \(20, 3\): one fix per trajectory \(the "
        r"last fixes, observed\[:, -1\]\?\).* all the fixes of every trajectory, \(N, L, 3\)",
    ):
        features.to_latlon(scaled, observed[:, -1])
    with pytest.raises(ValueError, match=r"track .* \(the timestamps alone, track\[\.\.\., 2\]\?"):
        time_deltas(observed[..., 2])


def test_scikit_learn_method_names_say_how_the_course_calls_them(lecture, city):
    observed, future = lecture
    linear = HeadingFrameLinear.fit(observed, future)
    with pytest.raises(
        AttributeError,
        match=r"^HeadingFrameLinear has no predict: .* called directly on the observed "
        r"fixes, predicted = baseline\(observed\)",
    ):
        linear.predict(observed)
    with pytest.raises(AttributeError, match=r"HeadingFrameQuadratic has no forward"):
        HeadingFrameQuadratic.fit(*city).forward(observed)
    with pytest.raises(AttributeError, match=r"ade_fde\(baseline\(observed\), future\)"):
        linear.score(observed, future)
    scaler = Standardizer.fit(observed)
    with pytest.raises(AttributeError, match=r"fit_transform is two steps.*Standardizer\.fit"):
        scaler.fit_transform(observed)
    features = TrajectoryFeatures.fit(observed, future)
    with pytest.raises(AttributeError, match=r"transform is encode: source, target = features"):
        features.transform(observed)
    with pytest.raises(AttributeError, match=r"features\.to_latlon\(predicted, observed\)"):
        features.inverse_transform(observed)


def test_other_missing_attributes_get_the_generic_answer_and_objects_still_copy_and_pickle(
    lecture,
):
    import copy
    import pickle

    linear = HeadingFrameLinear.fit(*lecture)
    with pytest.raises(AttributeError, match=r"^HeadingFrameLinear has no 'x'; its own attrib"):
        linear.x  # noqa: B018
    with pytest.raises(AttributeError, match=r"^HeadingFrameLinear has no 'weight'; did you mean"):
        linear.weight  # noqa: B018
    with pytest.raises(AttributeError, match=r"^'HeadingFrameLinear' object has no attribute '_x'"):
        linear._x  # noqa: B018
    assert not hasattr(linear, "predict") and hasattr(linear, "weights")
    for obj in (linear, Standardizer.fit(lecture[0]), TrajectoryFeatures.fit(*lecture)):
        for twin in (copy.deepcopy(obj), pickle.loads(pickle.dumps(obj))):
            assert type(twin) is type(obj) and vars(twin).keys() == vars(obj).keys()


def test_a_batch_given_one_more_axis_and_a_probability_as_teacher_forcing_are_named():
    observed, future = lecture_trajectories(6, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"4 dimensions.*\[None\]"):
        relative_metres(observed[None], future[None])
    features = TrajectoryFeatures.fit(observed, future)
    with pytest.raises(
        TypeError, match=r"teacher_forcing must be True or False.*teacher_forcing_prob"
    ):
        trajectory_datasets(features, (observed, future), (observed, future), teacher_forcing=0.5)
