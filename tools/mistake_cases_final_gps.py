"""Final-probe mistakes with positions on the Earth, the trajectory generators and the
forecasting task's features, metrics and baselines (see ``tools/probe_final.py``).

Written, with their expected answers and keywords, from Chapter 6 and its exercises,
``api.md`` and the public signatures and docstrings alone, before any of them ran; none
repeats a case of the three earlier catalogues, nor a mistake the issue names.

Ready-made (see ``mistake_cases.namespace``): ``rng`` (NumPy, seed 0); ``observed``
``(20, 5, 3)`` and ``future`` ``(20, 3, 3)`` (the lecture's generator); ``features`` (fitted on
them).
"""

from __future__ import annotations

from mistake_cases import case

CASES = [
    # -- geo ----------------------------------------------------------------------------------
    case(
        "geo.haversine_radians",
        "[Ch. 6, exercise 6] haversine(np.radians(a), np.radians(b)): positions converted to "
        "radians (as inside my_haversine) before the library's function, which takes degrees",
        "haversine(np.radians(observed[:, -1, :2]), np.radians(future[:, 0, :2]))",
        [r"radian|degree"],
        expect="warn",
    ),
    # -- gps ----------------------------------------------------------------------------------
    case(
        "gps.rng_positional",
        "[Ch. 6, cell 4] lecture_trajectories(20, r[0]): the generator passed positionally",
        "lecture_trajectories(20, np.random.default_rng(0))",
        ["rng"],
    ),
    case(
        "gps.rng_list",
        "[Ch. 6, exercises cell 44] city_trajectories(20, rng=r): the list of generators, [0] "
        "forgotten",
        """
        r = [np.random.default_rng([7, k]) for k in range(3)]
        city_trajectories(20, rng=r)
        """,
        ["rng", "list"],
    ),
    case(
        "gps.turn_sd_scalar",
        "[Ch. 6, cell 39] dataclasses.replace(config, turn_sd=0.0): one number where a turning "
        "spread per mode (three) goes",
        """
        import dataclasses

        walkers = CityConfig(mode_probs=(1.0, 0.0, 0.0))
        city_trajectories(20, rng=rng, config=dataclasses.replace(walkers, turn_sd=0.0))
        """,
        ["turn_sd", r"three|\b3\b|per mode|tuple|each mode"],
    ),
    case(
        "gps.mode_probs_sum",
        "[Ch. 6, cell 39] CityConfig(mode_probs=(0.5, 0.3, 0.3)): shares of the three modes "
        "summing to 1.1",
        "city_trajectories(20, rng=rng, config=CityConfig(mode_probs=(0.5, 0.3, 0.3)))",
        ["mode_probs", r"sum|add up|\b1\b"],
    ),
    # -- trajectories -------------------------------------------------------------------------
    case(
        "trajectories.features_fit_tuple",
        "[Ch. 6, cell 15] TrajectoryFeatures.fit(lecture['train']): the (observed, future) pair "
        "passed whole, * forgotten",
        """
        train_data = lecture_trajectories(20, rng=rng)
        TrajectoryFeatures.fit(train_data)
        """,
        [r"\*|unpack|tuple|pair", r"observed|future"],
    ),
    case(
        "trajectories.relative_tuple",
        "[Ch. 6, cell 6] relative_metres(lecture['test2000']): the (observed, future) pair "
        "passed whole, * forgotten",
        "relative_metres(lecture_trajectories(20, rng=rng))",
        [r"\*|unpack|tuple|pair", "observed"],
    ),
    case(
        "trajectories.to_latlon_last_fix",
        "[Ch. 6, cell 21] features.to_latlon(scaled, seen[:, -1]): the last fixes (N, 3) where "
        "the observed fixes (N, S, 3) go",
        """
        scaled = features.encode(observed, future)[1]
        features.to_latlon(scaled, observed[:, -1])
        """,
        ["observed", r"\(n, ?s, ?3\)|\(n, ?l, ?3\)|\(20, 5, 3\)|fixes|every|whole|3-d|all"],
    ),
    case(
        "trajectories.heading_predict_method",
        "[Ch. 6, cell 17] linear.predict(seen): scikit-learn's method on the fitted baseline, "
        "which is called directly",
        """
        obs, fut = lecture_trajectories(200, rng=rng)
        linear = HeadingFrameLinear.fit(obs, fut)
        linear.predict(obs)
        """,
        ["predict", r"call|\(observed\)|linear\("],
    ),
    case(
        "trajectories.time_deltas_of_times",
        "[Ch. 6, cell 9] time_deltas(observed[..., 2]): the timestamps alone where whole "
        "[lat, lon, time] fixes go",
        "time_deltas(observed[..., 2])",
        [
            "track",
            r"\[lat, ?lon, ?time\]|3 columns|three columns|\(n, ?l, ?3\)|last axis|time "
            r"column",
        ],
    ),
    case(
        "trajectories.velocity_times_column",
        "[Ch. 6, cell 17] constant_velocity(seen, ahead[..., 2:]): the timestamps kept as a "
        "column (N, T, 1), not (N, T)",
        "constant_velocity(observed, future[..., 2:])",
        ["times", r"\(n, ?t\)|\(20, 3\)|shape"],
    ),
    case(
        "trajectories.errors_of_split_tuple",
        "[Ch. 6, cell 17] displacement_errors(predicted, data['test2000']): the (observed, "
        "future) pair where the future goes ([1] forgotten)",
        "displacement_errors(stay(observed, 3), (observed, future))",
        ["true", r"tuple|pair|future"],
    ),
]
