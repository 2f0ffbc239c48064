"""Fresh mistakes with the trajectory task: geodesy, the generators, features, metrics and
baselines (see ``tools/probe_fresh.py``).

Ready-made (see ``mistake_cases.namespace``): ``rng`` (a NumPy ``Generator``); ``observed``
``(20, 5, 3)`` and ``future`` ``(20, 3, 3)`` (``[lat, lon, time]``); ``features`` (fitted on
them).
"""

from __future__ import annotations

from mistake_cases import case

CASES = [
    # -- geo ----------------------------------------------------------------------------------
    case(
        "geo.haversine_requires_grad",
        "haversine of a model's output that still requires grad",
        """
        predicted = torch.tensor(future[..., :2], requires_grad=True)
        haversine(predicted, future[..., :2])
        """,
        ["grad", "detach|no_grad|evaluating"],
    ),
    # -- gps ----------------------------------------------------------------------------------
    case(
        "gps.config_dict",
        "city_trajectories(config={...}): a dict of settings where a CityConfig goes",
        "city_trajectories(5, rng=rng, config={'interval_s': 10.0})",
        ["config", "cityconfig"],
    ),
    case(
        "gps.stop_s_reversed",
        "CityConfig(stop_s=(40, 10)): the longest stop before the shortest",
        "CityConfig(stop_s=(40.0, 10.0))",
        ["stop_s", "order|shortest|longest|min|<=|increas|first"],
    ),
    case(
        "gps.rng_torch_generator",
        "lecture_trajectories(rng=torch.Generator()): PyTorch's generator, not NumPy's",
        "lecture_trajectories(20, rng=torch.Generator())",
        ["rng", "default_rng|numpy"],
    ),
    # -- trajectories -------------------------------------------------------------------------
    case(
        "trajectories.transform_on_class",
        "Standardizer.transform(x) on the class: .fit forgotten",
        "Standardizer.transform(observed[..., :2])",
        ["fit"],
    ),
    case(
        "trajectories.standardizer_zero_std",
        "Standardizer(mean, std) built from statistics with a zero standard deviation",
        "Standardizer(mean=np.zeros(2), std=np.zeros(2))",
        ["std", r"zero|positive|> ?0"],
    ),
    case(
        "trajectories.time_deltas_without_time",
        "time_deltas of [lat, lon] fixes, the time column dropped",
        "time_deltas(observed[..., :2])",
        ["track", r"\(n, ?l, ?3\)|time"],
    ),
    case(
        "trajectories.heading_fit_few",
        "HeadingFrameLinear.fit on 3 trajectories, far fewer than its 48 coefficients",
        "HeadingFrameLinear.fit(observed[:3], future[:3])",
        ["trajector|observed", "few|at least|more|underdetermined"],
        expect="warn",
    ),
    case(
        "trajectories.features_scaler_class",
        "TrajectoryFeatures(Standardizer): the class where a fitted scaler goes",
        "TrajectoryFeatures(Standardizer).encode(observed)",
        ["scaler", "fit|instance"],
    ),
    case(
        "trajectories.errors_lonlat_order",
        "displacement_errors of predictions in [lon, lat] order (a student's own conversion)",
        "displacement_errors(future[..., 1::-1], future)",
        ["predicted", r"\[lat, ?lon\]|lon, ?lat|swap|order|km"],
        expect="warn",
    ),
]
