"""Self-checks for Chapter 6 (GPS trajectories): features, inverse scaling, distances, baselines.

Answers take and return NumPy arrays (or tensors, converted here). Positions are ``[lat,
lon]`` degrees, fixes ``[lat, lon, time]``; distances are metres. Inside ``unseen_cases``
the NumPy generators start from other seeds and every check adds a case of other sizes
(haversine: of other places).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import torch
from torch import Tensor

from course_lib._foreign_names import explains_bad_calls
from course_lib._validate_basics import shape_str
from course_lib.checks._core import (
    CheckFailed,
    call_student,
    case_generator,
    case_seed,
    compare,
    one_number,
    passed,
    unpack,
    variant,
)
from course_lib.checks._describe import describe, preview
from course_lib.checks._diagnose import affine_hint
from course_lib.geo import EARTH_RADIUS_M, from_local, haversine, to_local
from course_lib.gps import FLORENCE, city_trajectories
from course_lib.trajectories import (
    Standardizer,
    TrajectoryFeatures,
    ade_fde,
    constant_velocity,
    relative_metres,
    stay,
)

__all__ = [
    "check_datasets",
    "check_inverse_transform",
    "check_haversine",
    "check_ade_fde",
    "check_constant_velocity",
]


def _t(x) -> Tensor | object:
    """float64 tensor of ``x``, a tensor, NumPy array or list of numbers; anything else (and
    what does not convert) is returned for compare() to name."""
    if isinstance(x, Tensor):
        return x.detach().cpu().double()
    if not isinstance(x, (np.ndarray, list)):
        return x
    try:
        return torch.as_tensor(np.asarray(x, dtype=np.float64))
    except (TypeError, ValueError, RuntimeError):  # ragged, not numbers, tensors with grad
        return x


def _array(got, name: str, case: str, expected: Tensor) -> Tensor:
    """The returned positions or distances as a float64 tensor, or :class:`CheckFailed`."""
    __tracebackhide__ = True
    converted = _t(got)
    if isinstance(converted, Tensor):
        return converted
    several = " (not several values: `return a, b` returns a tuple)" * isinstance(got, tuple)
    raise CheckFailed(
        f"{name} should return a NumPy array (or a tensor) of shape "
        f"{shape_str(expected.shape)}, got {describe(got)}{several} ({case})"
    )


def _rng(seed: int) -> np.random.Generator:
    """The NumPy generator a check draws its cases from: ``seed``, or another one inside
    ``unseen_cases``."""
    return np.random.default_rng(case_seed(seed))


def _unseen_sizes(seed: int, low: tuple[int, int], high: tuple[int, int]) -> list[tuple]:
    """One more pair of sizes inside ``unseen_cases``, each in ``[low, high]``; none else."""
    if not variant():
        return []
    g = case_generator(seed)
    pairs = zip(low, high, strict=True)
    return [tuple(int(torch.randint(a, b + 1, (), generator=g)) for a, b in pairs)]


def _splits(seed: int, sizes=(60, 20)):
    rng = np.random.default_rng(seed)
    return [city_trajectories(n, rng=rng) for n in sizes]


def _length(dataset, name: str) -> int:
    """``len(dataset)``, or :class:`CheckFailed` for an object without a length."""
    __tracebackhide__ = True
    try:
        return len(dataset)
    except TypeError:
        raise CheckFailed(
            f"the {name} dataset is {describe(dataset)}, which has no len(): return a "
            "dataset of (source, target) items, e.g. TensorDataset(source, target)"
        ) from None


def _item(dataset, name: str, i: int) -> tuple:
    """``dataset[i]``, a tuple ``(source, ..., target)``, or :class:`CheckFailed`."""
    __tracebackhide__ = True
    try:
        item = dataset[i]
    except Exception as err:
        raise CheckFailed(
            f"{name}_dataset[{i}] raised {type(err).__name__}: {err}. Return a dataset "
            "whose items are (source, target), e.g. TensorDataset(source, target)"
        ) from err
    if not isinstance(item, (tuple, list)) or len(item) < 2:
        raise CheckFailed(
            f"{name}_dataset[{i}] should be a tuple (source, ..., target), got {describe(item)}"
        )
    return item


def _other_scalers(train) -> list[tuple[TrajectoryFeatures, str]]:
    """Features standardised with statistics other than the reference's (every training fix,
    observed and future, np.std's ddof=0), each with what went wrong."""
    source, target = relative_metres(*train)  # (N, S, 2), (N, T, 2) metres
    observed = source.reshape(-1, 2)
    fixes = np.concatenate([source, target], axis=1).reshape(-1, 2)
    observed_only = (
        "the mean and std come from the training sources (observed fixes) alone: "
        "standardise with the statistics of every training fix, observed AND future -- "
        "per feature, over np.concatenate([source, target], axis=1) of the training split"
    )
    return [
        (TrajectoryFeatures(Standardizer(observed.mean(0), observed.std(0))), observed_only),
        (
            TrajectoryFeatures(Standardizer(observed.mean(0), observed.std(0, ddof=1))),
            observed_only,
        ),
        (
            TrajectoryFeatures(Standardizer(fixes.mean(0), fixes.std(0, ddof=1))),
            "the std is the sample std (ddof=1, torch.std's default); the statistics "
            "are the population std of every training fix, np.std's default ddof=0 "
            "(torch.std(x, dim=0, correction=0))",
        ),
    ]


def _source_problem(
    err: CheckFailed, dataset, name: str, i: int, size: int, source, src
) -> str | None:
    """What a source of other values than the reference's (no known mistake) shows: an
    origin other than each trajectory's last observed fix, or metres standardised with
    other statistics; None where neither holds."""
    if "returned the right shape but different values" not in str(err) or size < 2:
        return None
    other = size - 1 if i == 0 else 0
    try:
        got = [_t(src), _t(_item(dataset, name, other)[0])]
    except CheckFailed:
        return None
    if not all(isinstance(x, Tensor) and x.shape == source[i].shape for x in got):
        return None
    last = [x[-1] for x in got]  # each source's last observed fix
    expected = source[i].double()
    if not torch.allclose(last[0], last[1], rtol=1e-4, atol=1e-4):
        return (
            f"does not end at the same point in every item: its last row, the last observed "
            f"fix, is {[round(float(v), 4) for v in last[0]]} in {name}_dataset[{i}] and "
            f"{[round(float(v), 4) for v in last[1]]} in {name}_dataset[{other}]. Every "
            "source ends at the same point, [0, 0] metres standardised with the one training "
            "mean and std: measure [east, north] metres from each trajectory's LAST observed "
            "fix (origin observed[:, -1:, :2], one per trajectory, as relative_metres does), "
            "not from a fixed point such as FLORENCE, and standardise every item with the "
            "same training statistics"
        )
    if affine_hint(got[0].double(), expected, float(expected.abs().max())):
        return (
            "holds metres from the last observed fix, but standardised with another mean "
            "and std, per feature: fit them on the training split only, over every "
            "training fix, observed AND future (np.concatenate([source, target], axis=1)), "
            "with np.std's ddof=0, and use them for both splits"
        )
    return None


@explains_bad_calls()
def check_datasets(make_datasets: Callable) -> None:
    """Check ``make_datasets(train, valid) -> (train_dataset, valid_dataset)``.

    ``train`` and ``valid`` are ``(observed (N, 5, 3), future (N, 3, 3))`` pairs. Every item
    of a dataset starts with the source ``(5, 2)`` and ends with the target ``(3, 2)``:
    ``[east, north]`` metres from the last observed fix, standardised with the mean and
    standard deviation of the **training** split only (per feature, over every training
    fix, observed and future). Reference: :class:`~course_lib.trajectories.TrajectoryFeatures`.
    """
    __tracebackhide__ = True
    cases = [(0, (60, 20)), (1, (40, 30))]
    cases += [(2, sizes) for sizes in _unseen_sizes(10, (10, 10), (80, 40))]
    for seed, sizes in cases:
        train, valid = _splits(case_seed(seed), sizes)
        got = call_student(make_datasets, "make_datasets", train, valid)
        if not isinstance(got, (tuple, list)) or len(got) != 2:
            raise CheckFailed(
                "make_datasets should return two datasets: (train_dataset, valid_dataset), "
                f"got {describe(got)}"
            )
        reference = TrajectoryFeatures.fit(*train)
        everything = [np.concatenate(p, axis=0) for p in zip(train, valid, strict=True)]
        leaky = TrajectoryFeatures.fit(*everything)
        scalers = _other_scalers(train)
        for name, dataset, split in (("train", got[0], train), ("valid", got[1], valid)):
            size = _length(dataset, name)
            if size != len(split[0]):
                raise CheckFailed(f"the {name} dataset has {size} items, expected {len(split[0])}")
            source, target = reference.encode(*split)
            # the valid split standardised with its own statistics (for train: the reference)
            own = TrajectoryFeatures.fit(*split).encode(*split) if name == "valid" else None
            own_stats = (
                "the valid split was standardised with its own mean and std: use the "
                "training statistics -- fit the scaler on the training split only and "
                "transform valid with that same scaler"
            )
            absolute = (split[0][..., :2] - split[0][..., :2].mean()) / split[0][..., :2].std()
            scaled = [(scaler.encode(*split), why) for scaler, why in scalers]
            for i in (0, size - 1):
                item = _item(dataset, name, i)
                src = item[0]
                if isinstance(src, (Tensor, np.ndarray)) and src.shape[-1:] == (3,):
                    raise CheckFailed(
                        f"{name}_dataset[{i}] has 3 features per fix: drop the timestamp (its deltas "
                        "are all the same here, so it carries no information) and keep [east, north]"
                    )
                for value in item:
                    if isinstance(value, Tensor) and value.dtype != torch.float32:
                        raise CheckFailed(
                            f"{name}_dataset[{i}] holds {value.dtype}: models train in float32, "
                            "use torch.tensor(x, dtype=torch.float32)"
                        )
                    if isinstance(value, np.ndarray) and value.dtype != np.float32:
                        raise CheckFailed(
                            f"{name}_dataset[{i}] holds {describe(value)}: models train on "
                            "float32 tensors, use torch.tensor(x, dtype=torch.float32)"
                        )
                case = f"{name}_dataset[{i}], seed {case_seed(seed)}"
                try:
                    compare(
                        _t(src),
                        source[i].double(),
                        "the source",
                        case,
                        [
                            (
                                torch.as_tensor(relative_metres(split[0][i : i + 1])[0]),
                                "these are metres but not standardised: divide by the training std",
                            ),
                            (
                                leaky.encode(split[0][i : i + 1])[0].double(),
                                "the scaler was fitted on "
                                "train AND valid: fit it on the training split only, then apply it to both",
                            ),
                            (
                                torch.as_tensor(absolute[i]),
                                "these look like absolute lat/lon values: use "
                                "[east, north] metres from the LAST observed fix",
                            ),
                        ]
                        + ([(own[0][i].double(), own_stats)] if own is not None else [])
                        + [(torch.as_tensor(x[i]), why) for (x, _), why in scaled],
                    )
                except CheckFailed as err:
                    problem = _source_problem(err, dataset, name, i, size, source, src)
                    if problem is None:
                        raise
                    raise CheckFailed(f"the source {problem} ({case})") from None
                compare(
                    _t(item[-1]),
                    target[i].double(),
                    "the target",
                    case,
                    ([(own[1][i].double(), own_stats)] if own is not None else [])
                    + [(torch.as_tensor(y[i]), why) for (_, y), why in scaled],
                )
    passed("make_datasets", len(cases))


@explains_bad_calls()
def check_inverse_transform(inverse_transform: Callable) -> None:
    """Check ``inverse_transform(predicted, observed, mean, std) -> positions``.

    ``predicted`` ``(N, T, 2)`` are standardised ``[east, north]`` values, ``observed``
    ``(N, S, 3)`` the fixes they continue, ``mean`` and ``std`` ``(2,)`` the training
    statistics; return ``[lat, lon]`` degrees ``(N, T, 2)``.
    """
    __tracebackhide__ = True
    rng = _rng(3)
    cases = [(1, 3), (5, 3), (4, 1)] + _unseen_sizes(30, (2, 1), (7, 5))
    for n, t in cases:
        observed = city_trajectories(n, rng=rng)[0]
        mean, std = rng.normal(0, 20, 2), rng.uniform(50, 300, 2)
        predicted = rng.normal(size=(n, t, 2))
        expected = TrajectoryFeatures(Standardizer(mean, std)).to_latlon(predicted, observed)
        origin = observed[:, -1:, :2]
        metres = predicted * std + mean
        mistakes = [
            (
                from_local(predicted, origin),
                "the standardisation was not undone: multiply by "
                "std and add mean before converting metres to degrees",
            ),
            (
                from_local(predicted * std, origin),
                "the mean was not added back: undo the standardisation with "
                "predicted * std + mean (the training mean), then convert metres to degrees",
            ),
            (
                from_local(metres, observed[:, :1, :2]),
                "the offsets were added to the FIRST "
                "observed fix; they are metres from the LAST one: convert them around "
                "the last observed fix, observed[:, -1:, :2]",
            ),
            (from_local(metres[..., ::-1], origin), "east and north are swapped"),
            (
                metres,
                "these are still metres: convert them to degrees around the last observed fix",
            ),
        ]
        got = call_student(
            inverse_transform,
            "inverse_transform",
            predicted.copy(),
            observed.copy(),
            mean.copy(),
            std.copy(),
        )
        expected = torch.as_tensor(expected)
        case = f"N={n}, T={t}"
        got = _array(got, "inverse_transform", case, expected)
        compare(
            got,
            expected,
            "inverse_transform",
            case,
            _nearest_first(got, [(torch.as_tensor(w), m) for w, m in mistakes]),
        )
    passed("inverse_transform", len(cases))


def _nearest_first(got: Tensor, mistakes: list[tuple[Tensor, str]]) -> list[tuple[Tensor, str]]:
    """The known mistakes, the one nearest to ``got`` first (ties keep their order).

    Positions in degrees are compared with a tolerance relative to their size (about 50 m
    of latitude), within which several mistakes can fit one answer (a forgotten mean of a
    few metres, the first fix of a slow track); the nearest is the right diagnosis.
    """

    def distance(wrong: Tensor) -> float:
        if (
            tuple(got.shape) != tuple(wrong.shape)
            or not torch.is_floating_point(got)
            or got.numel() == 0
        ):
            return float("inf")
        gap = (got.detach().cpu().double() - wrong.double()).abs().max().item()
        return gap if math.isfinite(gap) else float("inf")

    return sorted(mistakes, key=lambda mistake: distance(mistake[0]))


def _anywhere(rng: np.random.Generator, n: int) -> np.ndarray:
    """``n`` random ``[lat, lon]`` places on Earth, away from the poles ``(n, 2)``."""
    return np.column_stack([rng.uniform(-75, 75, n), rng.uniform(-180, 180, n)])


@explains_bad_calls()
def check_haversine(haversine_fn: Callable) -> None:
    """Check ``haversine(a, b) -> metres`` for ``[lat, lon]`` degrees ``(N, 2)`` -> ``(N,)``.

    Reference: :func:`course_lib.geo.haversine` on a sphere of radius
    :data:`~course_lib.geo.EARTH_RADIUS_M`; answers must agree within a millimetre (and a
    relative 1e-9 on the long distances), so a rounded radius such as 6,371 km fails too.
    """
    __tracebackhide__ = True
    rng = _rng(4)
    centre = np.asarray(FLORENCE)
    cases = {
        "around Florence": (
            centre + rng.uniform(-0.02, 0.02, (6, 2)),
            centre + rng.uniform(-0.02, 0.02, (6, 2)),
        ),
        "far apart": (
            np.array([[0.0, 0.0], [51.5, -0.13]]),
            np.array([[0.0, 90.0], [40.7, -74.0]]),
        ),
    }
    if variant():
        cases["far apart, other places"] = tuple(_anywhere(rng, 4) for _ in "ab")
    for case, (a, b) in cases.items():
        expected = torch.as_tensor(haversine(a, b))
        flat = EARTH_RADIUS_M * np.radians(np.linalg.norm(b - a, axis=-1))
        mistakes = [
            (expected / 2, "half the distance: d = 2 R arcsin(sqrt(h))"),
            (expected / 1000, "this is in kilometres: use the radius in metres (6,371,008.8)"),
            (
                expected * 6_371_000 / EARTH_RADIUS_M,
                "the radius is rounded to 6,371 km: use "
                "EARTH_RADIUS_M = 6,371,008.8 m, the mean radius the course measures with",
            ),
            (
                torch.as_tensor(flat),
                "this treats degrees of longitude like degrees of latitude: "
                "a degree of longitude shrinks with cos(latitude)",
            ),
        ]
        pa, pb = np.radians(a), np.radians(b)
        dlat, dlon = (pb - pa)[:, 0], (pb - pa)[:, 1]
        h = np.sin(dlat / 2) ** 2 + np.cos(pa[:, 1]) * np.cos(pb[:, 1]) * np.sin(dlon / 2) ** 2
        mistakes.append(
            (
                torch.as_tensor(2 * EARTH_RADIUS_M * np.arcsin(np.sqrt(np.clip(h, 0, 1)))),
                "the cosines are taken of the longitudes (column 1): h = sin^2(dlat / 2) + "
                "cos(lat_a) cos(lat_b) sin^2(dlon / 2) takes them of the LATITUDES, column 0 "
                "of [lat, lon]",
            )
        )
        with np.errstate(all="ignore"):
            h = (
                np.sin((b - a)[:, 0] / 2) ** 2
                + np.cos(a[:, 0]) * np.cos(b[:, 0]) * np.sin((b - a)[:, 1] / 2) ** 2
            )
            mistakes.append(
                (
                    torch.as_tensor(2 * EARTH_RADIUS_M * np.arcsin(np.sqrt(np.clip(h, 0, 1)))),
                    "convert degrees to radians first (np.radians)",
                )
            )
        got = call_student(haversine_fn, "haversine", a.copy(), b.copy())
        got = _array(got, "haversine", case, expected)
        if isinstance(got, Tensor) and got.shape == expected.shape and got.isfinite().all():
            if torch.allclose(got, expected, rtol=1e-9, atol=1e-3):
                continue
            for wrong, message in mistakes:
                if torch.allclose(got, wrong, rtol=1e-9, atol=1e-3):
                    raise CheckFailed(f"haversine: {message} ({case})")
            worst = (got - expected).abs().max().item()
            raise CheckFailed(
                f"haversine is off by up to {worst:.4g} m ({case}); the reference agrees within "
                f"a millimetre.\nExpected {preview(expected)}\ngot      {preview(got)}"
            )
        compare(got, expected, "haversine", case, mistakes)
    passed("haversine", len(cases))


_ONE = "be one number, the mean over trajectories {}"


def _two_numbers(got, case: str) -> list[float]:
    """The answer's ``(ade, fde)`` as two Python numbers, or :class:`CheckFailed`."""
    __tracebackhide__ = True
    if isinstance(got, (Tensor, np.ndarray)) and tuple(got.shape) == (2,):
        got = got.tolist()  # [ade, fde] as one array: unpacks the same
    ade, fde = unpack(got, ("ade", "fde"), "ade_fde", case, "two numbers")
    return [
        one_number(ade, "ade_fde's ADE", case, "take .mean()", _ONE.format("and steps")),
        one_number(fde, "ade_fde's FDE", case, "take .mean()", _ONE.format("of the last step")),
    ]


@explains_bad_calls()
def check_ade_fde(ade_fde_fn: Callable) -> None:
    """Check ``ade_fde(predicted, true) -> (ade, fde)`` in metres, both ``(N, T, 2)`` degrees."""
    __tracebackhide__ = True
    rng = _rng(5)
    cases = [(1, 3), (6, 3), (4, 2)] + _unseen_sizes(50, (2, 2), (7, 5))
    for n, t in cases:
        true = np.asarray(FLORENCE) + rng.uniform(-0.01, 0.01, (n, t, 2))
        predicted = true + rng.normal(0, 0.0005, (n, t, 2))
        ade, fde = ade_fde(predicted, true)
        case = f"N={n}, T={t}"
        got = _two_numbers(call_student(ade_fde_fn, "ade_fde", predicted.copy(), true.copy()), case)
        d = haversine(predicted, true)
        mistakes = [
            ((d.sum(1).mean(), fde), "ADE is a mean over the steps too, not their sum"),
            ((fde, ade), "the order is (ade, fde): you returned (fde, ade), swap them"),
            ((ade, ade), "FDE is the error of the LAST step only: d[:, -1].mean()"),
            (
                (ade, d.max(1).mean()),
                "FDE is the error of the final (LAST) step of each trajectory, d[:, -1].mean(), "
                "not its largest error (d.max(axis=1))",
            ),
            (
                (d.max(1).mean(), fde),
                "ADE is the mean error over every step, d.mean(), not the largest error of "
                "each trajectory",
            ),
            (
                (ade, d[-1].mean()),
                "FDE takes the last step of every trajectory (d[:, -1]), "
                "not every step of the last trajectory (d[-1])",
            ),
        ]
        expected = torch.tensor([ade, fde], dtype=torch.float64)
        compare(
            _t(got),
            expected,
            "ade_fde",
            case,
            [(torch.tensor(w, dtype=torch.float64), m) for w, m in mistakes],
        )
    passed("ade_fde", len(cases))


@explains_bad_calls()
def check_constant_velocity(constant_velocity_fn: Callable) -> None:
    """Check ``constant_velocity(observed, times) -> positions`` (the baseline).

    ``observed`` ``(N, S, 3)`` fixes, ``times`` ``(N, T)`` the timestamps to predict at;
    returns ``[lat, lon]`` ``(N, T, 2)``: the last fix moved on at the velocity between the
    last two fixes. Reference: :func:`course_lib.trajectories.constant_velocity`.
    """
    __tracebackhide__ = True
    rng = _rng(6)
    cases = [(1, 3, "every 20 s"), (5, 3, "every 20 s"), (3, 2, "irregular sampling")]
    cases += [(n, t, "irregular sampling") for n, t in _unseen_sizes(60, (2, 1), (6, 4))]
    for n, t, sampling in cases:
        observed, future = city_trajectories(n, rng=rng, future=t)
        times = future[..., 2]
        if sampling == "irregular sampling":  # a fix skipped here, a late one there
            observed[..., 2] = observed[:, :1, 2] + np.cumsum(
                rng.uniform(5, 45, observed.shape[:2]), 1
            )
            times = observed[:, -1:, 2] + np.cumsum(rng.uniform(5, 45, (n, t)), axis=1)
        expected = constant_velocity(observed, times)
        origin = observed[:, -1:, :2]
        en = to_local(observed[..., :2], origin)
        step = en[:, -1] - en[:, -2]  # (N, 2) metres per interval
        k = np.arange(1, t + 1)[None, :, None]
        whole = (en[:, -1] - en[:, 0]) / (observed.shape[1] - 1)
        # the velocity of the first two fixes (metres per second), carried on from the last
        first_step = to_local(observed[:, 1:2, :2], observed[:, :1, :2])[:, 0]  # (N, 2)
        first_velocity = first_step / (observed[:, 1, 2] - observed[:, 0, 2])[:, None]
        ahead_s = times - observed[:, -1:, 2]  # (N, T) seconds after the last fix
        last_dt = observed[:, -1, 2] - observed[:, -2, 2]  # (N,) seconds between the last two
        velocity = step / last_dt[:, None]  # (N, 2) metres per second
        mistakes = [
            (
                from_local(step[:, None] / 20.0 * ahead_s[..., None], origin),
                "the last step is divided by 20 s, the nominal sampling interval; divide it by "
                "the real time between the last two fixes, observed[:, -1, 2] - "
                "observed[:, -2, 2] (fixes are skipped or late)",
            ),
            (
                from_local(velocity[:, None] * times[..., None], origin),
                "the velocity is multiplied by the timestamps themselves; multiply it by the "
                "seconds from the last fix, times - observed[:, -1:, 2]",
            ),
            (stay(observed, t), "every prediction is the last fix: that is the 'stay' baseline"),
            (
                from_local(np.repeat(step[:, None], t, axis=1), origin),
                "every step lands on the "
                "same point: move k intervals ahead for the k-th prediction",
            ),
            (
                from_local(-step[:, None] * k, origin),
                "the velocity points backwards: last fix minus the one before it",
            ),
            (
                from_local(first_velocity[:, None] * ahead_s[..., None], origin),
                "the velocity is that of the FIRST two fixes; the baseline carries on at the "
                "velocity of the last two, the most recent motion: observed[:, -2] to "
                "observed[:, -1], divided by their time difference",
            ),
            (
                from_local(whole[:, None] * k, origin),
                "this is the mean velocity over the whole "
                "observation; the baseline uses the last two fixes only",
            ),
            (
                from_local(step[:, None] * k, origin),
                "this assumes one sampling interval between "
                "all fixes: divide the last step by its duration and multiply the velocity by the "
                "seconds from the last fix to each timestamp in `times`",
            ),
        ]
        got = call_student(constant_velocity_fn, "constant_velocity", observed.copy(), times.copy())
        expected, case = torch.as_tensor(expected), f"N={n}, T={t}, {sampling}"
        got = _array(got, "constant_velocity", case, expected)
        compare(
            got,
            expected,
            "constant_velocity",
            case,
            _nearest_first(got, [(torch.as_tensor(w), m) for w, m in mistakes]),
        )
    passed("constant_velocity", len(cases))
