"""Held-out mistakes with the trajectory task: geodesy, the generators, features, metrics and
baselines (see ``tools/probe_heldout.py``).

Ready-made (see ``mistake_cases.namespace``): ``rng`` (a NumPy ``Generator``); ``observed``
``(20, 5, 3)`` and ``future`` ``(20, 3, 3)`` (``[lat, lon, time]``); ``features`` (fitted on
them).
"""

from __future__ import annotations

from mistake_cases import POSITIVE, case

CASES = [
    # -- geo ----------------------------------------------------------------------------------
    case(
        "geo.origin_without_axis",
        "to_local with one origin per trajectory (N, 2) for positions (N, L, 2)",
        "to_local(observed[..., :2], observed[:, -1, :2])",
        ["origin", r"\[:, ?none\]|none"],
    ),
    case(
        "geo.shapes_do_not_broadcast",
        "haversine of the observed fixes against the future ones (5 and 3 steps)",
        "haversine(observed[..., :2], future[..., :2])",
        ["broadcast|shape", r"\(20, 5, 2\)|\(20, 3, 2\)"],
    ),
    case(
        "geo.origin_with_time",
        "to_local with an origin holding [lat, lon, time]",
        "to_local(observed[..., :2], observed[0, -1])",
        ["origin", r"\(3,\)|lat, lon"],
    ),
    # -- gps ----------------------------------------------------------------------------------
    case(
        "gps.config_class",
        "city_trajectories(config=CityConfig): the class, without ()",
        "city_trajectories(5, rng=rng, config=CityConfig)",
        ["config", r"instance|cityconfig\(\)"],
    ),
    case(
        "gps.mode_probs_all_zero",
        "CityConfig(mode_probs=(0, 0, 0))",
        "CityConfig(mode_probs=(0, 0, 0))",
        ["mode_probs", "all (0|zero)|sum|positive"],
    ),
    case(
        "gps.interval_fraction",
        "CityConfig(interval_s=7.5): not a whole number of seconds",
        "CityConfig(interval_s=7.5)",
        ["interval_s", "whole|integer"],
    ),
    case(
        "gps.future_zero",
        "lecture_trajectories(future=0): nothing to forecast",
        "lecture_trajectories(20, rng=rng, future=0)",
        ["future", POSITIVE],
    ),
    case(
        "gps.start_datetime",
        "lecture_trajectories(start=datetime(...)): a datetime where a string is expected",
        """
        from datetime import datetime
        lecture_trajectories(20, rng=rng, start=datetime(2024, 1, 1, 8))
        """,
        ["start", "str"],
    ),
    case(
        "gps.cruise_negative",
        "CityConfig with a negative cruising speed (a sign slip)",
        "CityConfig(cruise_mean=(1.4, -4.5, 8.5))",
        ["cruise_mean", "negative"],
    ),
    case(
        "gps.interval_min_zero",
        "lecture_trajectories(interval_min=0)",
        "lecture_trajectories(20, rng=rng, interval_min=0)",
        ["interval_min", POSITIVE],
    ),
    # -- trajectories -------------------------------------------------------------------------
    case(
        "trajectories.relative_swapped",
        "relative_metres(future, observed): the two swapped",
        "relative_metres(future, observed)",
        ["observed", "future", "swap|before"],
    ),
    case(
        "trajectories.relative_time_major",
        "relative_metres of time-major fixes (L, N, 3)",
        "relative_metres(observed.transpose(1, 0, 2))",
        ["observed", r"time-major|\(n, l"],
    ),
    case(
        "trajectories.to_latlon_swapped",
        "features.to_latlon(observed, predicted): the arguments swapped",
        "features.to_latlon(observed, torch.zeros(20, 3, 2))",
        ["predicted", r"\(n, t, 2\)|swap"],
    ),
    case(
        "trajectories.to_latlon_other_count",
        "to_latlon of predictions for 10 trajectories with 20 observed ones",
        "features.to_latlon(torch.zeros(10, 3, 2), observed)",
        ["predicted|observed", "10", "20"],
    ),
    case(
        "trajectories.datasets_unfitted",
        "trajectory_datasets(TrajectoryFeatures, ...): the class, not a fitted instance",
        "trajectory_datasets(TrajectoryFeatures, (observed, future), (observed, future))",
        ["features", "fit"],
    ),
    case(
        "trajectories.errors_in_metres",
        "displacement_errors of predictions in relative metres against fixes in degrees",
        "displacement_errors(relative_metres(observed, future)[1], future)",
        ["predicted", "degrees|latitude|to_latlon|from_local"],
    ),
    case(
        "trajectories.velocity_one_fix",
        "constant_velocity from the last fix alone",
        "constant_velocity(observed[:, -1:], future[..., 2])",
        ["observed", "2"],
    ),
    case(
        "trajectories.turn_rate_two_fixes",
        "constant_turn_rate from the last two fixes (it needs three)",
        "constant_turn_rate(observed[:, -2:], future[..., 2])",
        ["observed", "3"],
    ),
    case(
        "trajectories.heading_fit_swapped",
        "HeadingFrameLinear.fit(future, observed): the two swapped",
        "HeadingFrameLinear.fit(future, observed)",
        ["observed", "future", "swap|before|after|order"],
    ),
    case(
        "trajectories.standardizer_constructor",
        "Standardizer(train_x): the constructor called instead of Standardizer.fit",
        "Standardizer(observed)",
        ["fit"],
    ),
]
