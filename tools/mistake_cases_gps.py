"""Mistakes on Chapter 6's path: distances, the trajectory generators, features, metrics and
baselines.

Ready-made (see ``mistake_cases.namespace``): ``rng`` (``np.random.default_rng(0)``, already
used once); ``observed, future`` ``(20, 5, 3)``, ``(20, 3, 3)`` from
``lecture_trajectories``; ``features`` (a ``TrajectoryFeatures`` fitted on them).
"""

from __future__ import annotations

from mistake_cases import NON_NEGATIVE, POSITIVE, case

CASES = [
    # -- geo ----------------------------------------------------------------------------------
    case(
        "geo.latitude_range",
        "haversine of a position with latitude 95",
        "haversine([[95.0, 10.0]], [[43.0, 11.0]])",
        ["latitude", "90"],
    ),
    case(
        "geo.lon_lat_order",
        "Tokyo given as [lon, lat] (139.7, 35.7)",
        "to_local([[139.69, 35.69]], FLORENCE)",
        ["lat", "swap"],
    ),
    case(
        "geo.missing_origin",
        "to_local(latlon) without the origin",
        "to_local(observed[..., :2])",
        ["origin"],
    ),
    case(
        "geo.metres_as_degrees",
        "to_local of positions already in metres",
        "to_local(relative_metres(observed) * 500, FLORENCE)",
        ["latitude", "metres"],
    ),
    case(
        "geo.time_column",
        "haversine of [lat, lon, time] rows",
        "haversine(observed[:, 0], observed[:, 1])",
        ["2", r"\[\.\.\., :2\]|lat, lon"],
    ),
    case(
        "geo.from_local_swapped",
        "from_local(origin, east_north): the arguments swapped",
        "from_local(FLORENCE, relative_metres(observed) * 500)",
        ["origin", "east_north|swap|metres"],
    ),
    case(
        "geo.nan",
        "haversine of a missing fix (NaN)",
        "haversine([[float('nan'), 11.0]], [[43.0, 11.0]])",
        ["nan"],
    ),
    # -- gps ----------------------------------------------------------------------------------
    case(
        "gps.rng_seed",
        "lecture_trajectories(rng=0): a seed where a Generator is expected",
        "lecture_trajectories(20, rng=0)",
        ["rng", "generator"],
    ),
    case(
        "gps.rng_missing",
        "lecture_trajectories(20) without rng",
        "lecture_trajectories(20)",
        ["rng"],
    ),
    case(
        "gps.random_state",
        "lecture_trajectories(rng=np.random.RandomState(0))",
        "lecture_trajectories(20, rng=np.random.RandomState(0))",
        ["rng", "generator"],
    ),
    case(
        "gps.n_zero",
        "lecture_trajectories(0, rng=rng)",
        "lecture_trajectories(0, rng=rng)",
        [r"\bn\b", POSITIVE],
    ),
    case(
        "gps.observed_one",
        "lecture_trajectories(observed=1): no step to learn from",
        "lecture_trajectories(20, rng=rng, observed=1)",
        ["observed", "2"],
    ),
    case(
        "gps.n_float",
        "city_trajectories(n=5.0)",
        "city_trajectories(5.0, rng=rng)",
        [r"\bn\b", "int"],
    ),
    case(
        "gps.interval_zero",
        "CityConfig(interval_s=0)",
        "city_trajectories(5, rng=rng, config=CityConfig(interval_s=0))",
        ["interval_s", POSITIVE],
    ),
    case(
        "gps.mode_probs_two",
        "CityConfig(mode_probs=(0.5, 0.5)): two probabilities for three modes",
        "city_trajectories(5, rng=rng, config=CityConfig(mode_probs=(0.5, 0.5)))",
        ["mode_probs", "3|three|modes|per mode"],
    ),
    case(
        "gps.start_date_only",
        "lecture_trajectories(start='2024-01-01'): a date without a time",
        "lecture_trajectories(20, rng=rng, start='2024-01-01')",
        ["start", "yyyy-mm-dd hh:mm:ss|%y-%m-%d %h:%m:%s"],
    ),
    case(
        "gps.noise_negative",
        "CityConfig(gps_noise_m=-1)",
        "city_trajectories(5, rng=rng, config=CityConfig(gps_noise_m=-1.0))",
        ["gps_noise_m", NON_NEGATIVE],
    ),
    # -- trajectories -------------------------------------------------------------------------
    case(
        "trajectories.one_trajectory",
        "relative_metres of one trajectory (L, 3) without its batch dimension",
        "relative_metres(observed[0])",
        ["observed", r"\(n, l"],
    ),
    case(
        "trajectories.constant_feature",
        "Standardizer.fit on the timestamps' deltas, which are constant",
        "Standardizer.fit(time_deltas(observed)[..., None])",
        ["constant"],
    ),
    case(
        "trajectories.transform_features",
        "a standardizer fitted on 2 features applied to [lat, lon, time] rows",
        "features.scaler.transform(observed)",
        ["2", "3|features"],
    ),
    case(
        "trajectories.fit_missing_future",
        "TrajectoryFeatures.fit(observed) without the future",
        "TrajectoryFeatures.fit(observed)",
        ["future"],
    ),
    case(
        "trajectories.to_latlon_flat",
        "to_latlon given flat predictions (N, T * 2)",
        "features.to_latlon(np.zeros((20, 6)), observed)",
        ["predicted", r"\(n, t, 2\)"],
    ),
    case(
        "trajectories.to_latlon_missing",
        "features.to_latlon(predicted) without the observed fixes",
        "features.to_latlon(np.zeros((20, 3, 2)))",
        ["observed"],
    ),
    case(
        "trajectories.ade_standardised",
        "ade_fde of the model's standardised output, not converted to degrees",
        """
        source, target = features.encode(observed, future)
        ade_fde(target.numpy(), future)
        """,
        ["degrees|to_latlon|lat"],
        expect="warn",
    ),
    case(
        "trajectories.ade_shapes",
        "ade_fde with one future step too few",
        "ade_fde(future[:, :2], future)",
        ["predicted", "true"],
    ),
    case(
        "trajectories.stay_zero",
        "stay(observed, horizon=0)",
        "stay(observed, 0)",
        ["horizon", POSITIVE],
    ),
    case(
        "trajectories.stay_future",
        "stay(observed, future): the future array where the number of steps is expected",
        "stay(observed, future)",
        ["horizon", r"int|number|future\.shape"],
    ),
    case(
        "trajectories.velocity_future",
        "constant_velocity(observed, future): the fixes where their timestamps are expected",
        "constant_velocity(observed, future)",
        ["times", r"future\[\.\.\., 2\]|timestamps"],
    ),
    case(
        "trajectories.velocity_past_times",
        "constant_velocity asked for times before the last fix",
        "constant_velocity(observed, observed[..., 2])",
        ["times", "after"],
    ),
    case(
        "trajectories.unsorted",
        "time_deltas of fixes in reverse order",
        "time_deltas(observed[:, ::-1])",
        ["timestamps|time", "sort|increase"],
    ),
    case(
        "trajectories.heading_fixes",
        "a fitted HeadingFrameLinear called on 4 observed fixes, fitted on 5",
        """
        baseline = HeadingFrameLinear.fit(observed, future)
        baseline(observed[:, 1:])
        """,
        ["fixes|observed", "5", "4"],
    ),
    case(
        "trajectories.heading_without_fit",
        "HeadingFrameLinear(observed, future): the class called instead of .fit",
        "HeadingFrameLinear(observed, future)(observed)",
        ["fit"],
    ),
    case(
        "trajectories.datasets_arrays",
        "trajectory_datasets(features, observed, future): arrays, not (observed, future) pairs",
        "trajectory_datasets(features, observed, future)",
        ["train", r"\(observed, future\)|pair"],
    ),
    case(
        "trajectories.standardizer_1d",
        "Standardizer.fit of a 1-D array",
        "Standardizer.fit(np.arange(10.0))",
        ["fit|x", r"\(\.\.\., f\)|features"],
    ),
]
