"""GPS trajectories as model inputs, and the errors and baselines they are judged by.

The pipeline, for ``observed (N, S, 3)`` and ``future (N, T, 3)`` rows ``[lat, lon, time]``
(see :mod:`course_lib.gps`):

1. :func:`relative_metres` -- every fix as ``[east, north]`` metres from the trajectory's
   **last observed fix**. The model then learns *how people move*, not *where Florence
   is*, and both axes are in the same unit.
2. :class:`Standardizer` -- fitted on the **training split only** (mean and standard
   deviation per feature), applied to every split, inverted on the predictions.
3. :class:`TrajectoryFeatures` -- both steps together: ``encode`` gives the float32
   tensors a model trains on, ``to_latlon`` turns its predictions back into positions.

Time enters as deltas (:func:`time_deltas`), never as epoch seconds. Both of the book's
generators sample at a fixed interval, so every delta is the same number: a constant
feature carries no information (and cannot be standardised), so the models see positions
only. :func:`constant_velocity` uses the timestamps, so it would also handle irregular
sampling.

Errors are great-circle distances in metres (:func:`~course_lib.geo.haversine`): the
**average displacement error** (ADE, mean over all predicted steps) and the **final
displacement error** (FDE, the last step only). Letters: ``N`` trajectories, ``S`` observed
fixes, ``T`` future fixes, ``F`` features.
"""

from __future__ import annotations

import numpy as np
import torch
from torch.utils.data import TensorDataset

from course_lib._foreign_names import explains_bad_calls, explains_class
from course_lib._trajectory_checks import TO_LATLON as _TO_LATLON
from course_lib._trajectory_checks import UNPACK as _UNPACK
from course_lib._trajectory_checks import FittedMethod as _FittedMethod
from course_lib._trajectory_checks import pair as _pair
from course_lib._trajectory_checks import refuse_pair as _refuse_pair
from course_lib._trajectory_checks import same_batch as _same_batch
from course_lib._trajectory_checks import sklearn_habits as _sklearn_habits
from course_lib._trajectory_checks import track as _track
from course_lib._validate_basics import check_type, type_name, warn_user
from course_lib.geo import as_array, from_local, haversine, to_local

__all__ = [
    "relative_metres",
    "time_deltas",
    "Standardizer",
    "TrajectoryFeatures",
    "trajectory_datasets",
    "displacement_errors",
    "ade_fde",
    "stay",
    "constant_velocity",
    "constant_turn_rate",
    "HeadingFrameLinear",
    "HeadingFrameQuadratic",
]


@explains_bad_calls()
def relative_metres(observed, future=None):
    """``[east, north]`` metres of every fix from the last observed one.

    Shape:
        observed ``(N, S, >=2)`` -> ``(N, S, 2)`` (its last row is always ``[0, 0]``); with
        ``future (N, T, >=2)`` also ``(N, T, 2)``.

    Raises:
        TypeError: the ``(observed, future)`` pair passed whole as ``observed`` (unpack it:
            ``relative_metres(*pair)``); the same holds for every function and method of this
            module that takes one batch of trajectories.
        ValueError: arrays that are not batches of trajectories ``(N, L, >=2)`` (or are
            time-major, ``(L, N, 3)``), NaN, latitudes outside [-90, 90], different numbers
            of trajectories, or a future that starts before the last observed fix
            (``observed`` and ``future`` swapped).
    """
    seen = _track(observed, "observed", 2, both="" if future is not None else "relative_metres")
    origin = seen[:, -1:, :2]  # (N, 1, 2): one map per trajectory
    source = to_local(seen[..., :2], origin)
    if future is None:
        return source
    ahead = _track(future, "future", 2)
    _same_batch(seen, ahead, "observed and future")
    if seen.shape[-1] >= 3 and ahead.shape[-1] >= 3 and np.any(ahead[:, 0, 2] <= seen[:, -1, 2]):
        raise ValueError(
            "future must follow observed in time, but some future fixes are not after the "
            "last observed one: are observed and future swapped? The order is "
            "(observed, future)"
        )
    return source, to_local(ahead[..., :2], origin)


@explains_bad_calls()
def time_deltas(track) -> np.ndarray:
    """Seconds between consecutive fixes, ``(N, L, 3) -> (N, L - 1)``; an error if time runs back.

    Raises:
        ValueError: ``track`` that is not ``(N, L, 3)`` (or is time-major), holds NaN, or
            whose timestamps do not increase.
    """
    a = _track(track, "track")
    deltas = np.diff(a[..., 2], axis=1)
    if np.any(deltas <= 0):
        raise ValueError("timestamps must increase along each trajectory; sort the fixes by time")
    return deltas


@explains_class(
    fit_transform=(
        "scikit-learn's fit_transform is two steps here: scaler = Standardizer.fit(train_x), "
        "then scaler.transform(x) for any split"
    ),
)
class Standardizer:
    """Per-feature standardisation ``(x - mean) / std``, fitted once on training data.

    Build it with :meth:`fit` on the training split; then :meth:`transform` any split and
    :meth:`inverse_transform` predictions. Statistics are over every axis but the last.
    ``Standardizer(mean, std)`` builds one from statistics already computed.

    Raises:
        TypeError: ``mean`` or ``std`` not given (``Standardizer(train_x)`` or
            ``Standardizer()``): :meth:`fit` is the way to compute them from data.
    """

    def __init__(self, mean: np.ndarray | None = None, std: np.ndarray | None = None) -> None:
        missing = [name for name, value in (("mean", mean), ("std", std)) if value is None]
        if missing:
            raise TypeError(
                f"Standardizer(mean, std) takes the statistics themselves, and got no "
                f"{' and no '.join(missing)}. To compute them from the training data, call the "
                "classmethod: scaler = Standardizer.fit(train_x) (not Standardizer(train_x), "
                "nor Standardizer().fit(train_x)); then scaler.transform(x) for any split."
            )
        self.mean, self.std = as_array(mean, "mean"), as_array(std, "std")
        if self.mean.ndim != 1 or self.mean.shape != self.std.shape:
            raise ValueError(
                f"mean and std must be (F,), one value per feature, got {self.mean.shape} and "
                f"{self.std.shape}; Standardizer.fit(x) computes them"
            )
        if not (np.all(np.isfinite(self.mean)) and np.all(np.isfinite(self.std) & (self.std > 0))):
            raise ValueError(
                f"mean must be finite and std finite and positive, got mean {self.mean} and "
                f"std {self.std}"
            )

    @classmethod
    def fit(cls, x) -> Standardizer:
        """Mean and standard deviation of every feature of ``x`` ``(..., F)``.

        Raises:
            ValueError: ``x`` without samples and features, holding NaN, or with a constant
                feature.
        """
        a = as_array(x, "x")
        if a.ndim < 2 or a.size == 0:
            raise ValueError(f"fit needs samples and features (..., F), got shape {a.shape}")
        if not np.all(np.isfinite(a)):
            raise ValueError("x contains NaN or infinite values: its mean and std would be NaN")
        flat = a.reshape(-1, a.shape[-1])  # (..., F) -> (samples, F)
        std = flat.std(axis=0)
        if np.any(std == 0):
            raise ValueError(
                f"feature(s) {np.flatnonzero(std == 0).tolist()} are constant on the training "
                "data: they carry no information and cannot be scaled -- drop them"
            )
        return cls(flat.mean(axis=0), std)

    def _check(self, x, name: str = "x") -> np.ndarray:
        a = as_array(x, name)
        if a.shape[-1:] != self.mean.shape:
            raise ValueError(
                f"expected {self.mean.shape[0]} features in the last dimension, got shape "
                f"{a.shape} ({name})"
            )
        if not np.all(np.isfinite(a)):
            raise ValueError(f"{name} contains NaN or infinite values")
        return a

    @_FittedMethod
    def transform(self, x) -> np.ndarray:
        """``(x - mean) / std`` for ``x`` ``(..., F)``.

        Raises:
            ValueError: ``x`` without the ``F`` features the scaler was fitted on, or with NaN.
            TypeError: called on the class, ``Standardizer.transform(x)``: fit a scaler first.
        """
        return (self._check(x) - self.mean) / self.std

    @_FittedMethod
    def inverse_transform(self, x) -> np.ndarray:
        """``x * std + mean``: standardised values back in their units (raises as
        :meth:`transform`)."""
        return self._check(x) * self.std + self.mean


@explains_class(
    transform=(
        "the features' scikit-learn-like transform is encode: source, target = "
        "features.encode(observed, future), or features.encode(observed)"
    ),
    fit_transform=(
        "fit, then encode: features = TrajectoryFeatures.fit(observed, future); "
        "source, target = features.encode(observed, future)"
    ),
    inverse_transform=_TO_LATLON,
    decode=_TO_LATLON,
)
class TrajectoryFeatures:
    """Relative metres, standardised: from ``[lat, lon, time]`` fixes to model tensors and back.

    Build it with :meth:`fit` on the training split. The scaler sees every training fix,
    observed and future, so the model's inputs and outputs share one scale.
    """

    def __init__(self, scaler: Standardizer) -> None:
        check_type(
            scaler,
            "scaler",
            Standardizer,
            "a Standardizer",
            "Build the features with TrajectoryFeatures.fit(observed, future) on the "
            "training split.",
        )
        self.scaler = scaler

    @classmethod
    @explains_bad_calls(missing=_UNPACK, positional=_UNPACK)
    def fit(cls, observed, future) -> TrajectoryFeatures:
        """Fit the scaler on a training split ``(N, S, 3)``, ``(N, T, 3)``."""
        source, target = relative_metres(observed, future)
        return cls(Standardizer.fit(np.concatenate([source, target], axis=1)))

    def encode(self, observed, future=None):
        """Model inputs ``(N, S, 2)`` (and targets ``(N, T, 2)``) as float32 tensors."""
        _refuse_pair(observed, "observed", both="features.encode")
        parts = relative_metres(observed, future)
        parts = (parts,) if future is None else parts
        out = tuple(torch.tensor(self.scaler.transform(p), dtype=torch.float32) for p in parts)
        return out[0] if future is None else out

    def to_latlon(self, predicted, observed) -> np.ndarray:
        """Positions ``(N, T, 2)`` in degrees of predictions ``(N, T, 2)`` for ``observed``.

        Raises:
            ValueError: ``predicted`` that is not ``(N, T, 2)`` for the ``N`` observed
                trajectories (``observed`` first: the arguments swapped), or NaN.
        """
        seen = _track(observed, "observed", 2)
        pred = as_array(predicted, "predicted")
        if pred.ndim != 3 or pred.shape[0] != seen.shape[0] or pred.shape[-1] != 2:
            swapped = " The order is to_latlon(predicted, observed)." if pred.ndim == 3 else ""
            raise ValueError(
                f"predicted must be (N, T, 2) for the N = {seen.shape[0]} observed "
                f"trajectories, got shape {pred.shape}.{swapped}"
            )
        pred = self.scaler.inverse_transform(pred)
        return from_local(pred, seen[:, -1:, :2])  # metres from the last fix -> degrees


@explains_bad_calls()
def trajectory_datasets(
    features: TrajectoryFeatures, train, valid, *, teacher_forcing: bool = True
):
    """Training and validation datasets for the Trainer, from ``(observed, future)`` pairs.

    With ``teacher_forcing`` the training items are ``(source, target, target)``: the model
    receives the target (to feed true points to its decoder) and the loss compares its
    output with the last element. Without it they are ``(source, target)``: the model feeds
    back its own predictions in training too. Validation items are always
    ``(source, target)``, so the model never sees the answer.

    Raises:
        TypeError: ``features`` that is not a fitted :class:`TrajectoryFeatures`,
            ``train`` or ``valid`` that is not an ``(observed, future)`` pair, or a
            ``teacher_forcing`` that is not True or False (a probability belongs to the model).
    """
    check_type(
        features,
        "features",
        TrajectoryFeatures,
        "a fitted TrajectoryFeatures",
        "Fit it on the training split: TrajectoryFeatures.fit(*train).",
    )
    if not isinstance(teacher_forcing, (bool, np.bool_)):
        raise TypeError(
            f"teacher_forcing must be True or False, a switch, got {type_name(teacher_forcing)} "
            f"{teacher_forcing!r}: True hands the target to the model as an input (items "
            "(source, target, target)); how often the model then uses it is the model's "
            "teacher_forcing_prob, e.g. Seq2SeqConfig(teacher_forcing_prob=0.5). Pass "
            "teacher_forcing=True here and the probability to the model"
        )
    source, target = features.encode(*_pair(train, "train"))
    val_source, val_target = features.encode(*_pair(valid, "valid"))
    inputs = (source, target) if teacher_forcing else (source,)
    return TensorDataset(*inputs, target), TensorDataset(val_source, val_target)


#: Predictions further than this from the truth (median, metres) get a warning: positions in
#: degrees are a few kilometres off at worst, model units read as degrees thousands.
_FAR_M = 100_000.0


def _errors(predicted, true) -> np.ndarray:
    """:func:`displacement_errors`, warning at the caller of the public function."""
    p, t = _track(predicted, "predicted", 2), _track(true, "true", 2)
    if p.shape[:2] != t.shape[:2]:
        hint = (
            " predicted looks time-major (T, N, 2): np.swapaxes(predicted, 0, 1)."
            if p.shape[:2] == t.shape[1::-1]
            else ""
        )
        raise ValueError(
            f"predicted {p.shape[:2]} and true {t.shape[:2]} must have the same (N, T).{hint}"
        )
    d = haversine(p[..., :2], t[..., :2])
    if np.median(d) > _FAR_M:
        warn_user(
            f"predicted is {np.median(d) / 1000:.0f} km from true (median): are the "
            "predictions still in model units? Turn them into positions first, "
            "features.to_latlon(predicted, observed)",
            UserWarning,
        )
    return d


@explains_bad_calls()
def displacement_errors(predicted, true) -> np.ndarray:
    """Distance in metres between predicted and true positions, ``(N, T, >=2) -> (N, T)``.

    Raises:
        TypeError: an ``(observed, future)`` pair where ``true`` (the future) goes.
        ValueError: ``predicted`` and ``true`` of different ``(N, T)``, or not positions
            (NaN, latitudes outside [-90, 90]).

    Warns when the median error is over 100 km: predictions still in model units
    (standardised metres), which need :meth:`TrajectoryFeatures.to_latlon` first.
    """
    return _errors(predicted, true)


@explains_bad_calls()
def ade_fde(predicted, true) -> tuple[float, float]:
    """Average and final displacement errors in metres, averaged over trajectories (checks
    and warnings: :func:`displacement_errors`)."""
    d = _errors(predicted, true)  # (N, T)
    return float(d.mean()), float(d[:, -1].mean())


@explains_bad_calls()
def stay(observed, horizon: int) -> np.ndarray:
    """Baseline: every future fix is the last observed one. ``(N, S, >=2) -> (N, horizon, 2)``.

    Raises:
        TypeError: ``horizon`` that is not an int (the future itself, not its length).
        ValueError: ``horizon`` below 1.
    """
    seen = _track(observed, "observed", 2)
    if isinstance(horizon, bool) or not isinstance(horizon, (int, np.integer)):
        raise TypeError(
            f"horizon must be the number of future fixes, an int, got {type_name(horizon)}; "
            "e.g. future.shape[1]"
        )
    if horizon < 1:
        raise ValueError(f"horizon must be at least 1, got {horizon}")
    return np.repeat(seen[:, -1:, :2], horizon, axis=1)


def _extrapolation(observed, times, min_fixes: int) -> tuple[np.ndarray, np.ndarray]:
    """Fixes ``(N, S, 3)`` and the seconds ``(N, T)`` from the last one to each of ``times``."""
    seen = _track(observed, "observed")
    when = as_array(times, "times")
    if when.ndim == 3:
        raise ValueError(
            f"times must be the (N, T) timestamps to predict at, got {when.shape}: pass the "
            "future's time column, future[..., 2]"
        )
    if when.ndim == 1 and seen.shape[0] > 1:
        raise ValueError(
            f"times must be (N, T), one row of timestamps per trajectory, got {when.shape}; "
            f"for the same offsets everywhere, observed[:, -1:, 2] + offsets[None]"
        )
    if not np.all(np.isfinite(when)):
        raise ValueError("times contains NaN or infinite values")
    if seen.shape[1] < min_fixes or when.ndim != 2 or when.shape[0] != seen.shape[0]:
        raise ValueError(
            f"need observed (N, S>={min_fixes}, 3) and times (N, T), got {seen.shape} and "
            f"{when.shape}"
        )
    ahead = when - seen[:, -1:, 2]  # (N, T) seconds after the last fix
    if np.any(ahead <= 0):
        raise ValueError("times must come after the last observed fix")
    return seen, ahead


@explains_bad_calls()
def constant_velocity(observed, times) -> np.ndarray:
    """Baseline: keep the velocity between the last two observed fixes.

    Args:
        observed: ``(N, S, 3)`` fixes ``[lat, lon, time]``, ``S >= 2``.
        times: ``(N, T)`` timestamps to predict at (``future[..., 2]``).

    Returns:
        Predicted ``[lat, lon]``, ``(N, T, 2)``.
    """
    seen, ahead = _extrapolation(observed, times, 2)
    step = to_local(seen[:, -2, :2], seen[:, -1, :2])  # (N, 2): previous fix from the last one
    velocity = -step / time_deltas(seen[:, -2:])  # (N, 2) metres per second
    return from_local(velocity[:, None] * ahead[..., None], seen[:, -1:, :2])  # (N, T, 2)


def _rotate(xy: np.ndarray, angle: np.ndarray) -> np.ndarray:
    """Rotate points ``(N, L, 2)`` by ``angle`` ``(N,)`` radians, counter-clockwise."""
    c, s = np.cos(angle)[:, None], np.sin(angle)[:, None]  # (N, 1)
    return np.stack([c * xy[..., 0] - s * xy[..., 1], s * xy[..., 0] + c * xy[..., 1]], axis=-1)


@explains_bad_calls()
def constant_turn_rate(observed, times) -> np.ndarray:
    """Baseline: keep the speed and the turn rate of the last three fixes (no fitting).

    The direction of the chord between two fixes is the heading halfway between them (on
    a circular arc, exactly). The two last chords give two headings, their difference
    over the time between the chords' midpoints the turn rate ``w``; the speed is the
    last step's arc length over its duration. The object then moves on the circle these
    define: heading ``theta(s) = theta_last + w (s + dt / 2)`` at ``s`` seconds after the
    last fix, where ``dt`` is the last interval. With ``w = 0`` this is
    :func:`constant_velocity`.

    Args:
        observed: ``(N, S, 3)`` fixes ``[lat, lon, time]``, ``S >= 3``.
        times: ``(N, T)`` timestamps to predict at (``future[..., 2]``).

    Returns:
        Predicted ``[lat, lon]``, ``(N, T, 2)``.
    """
    seen, ahead = _extrapolation(observed, times, 3)
    en = to_local(seen[:, -3:, :2], seen[:, -1:, :2])  # (N, 3, 2) metres from the last fix
    dt = time_deltas(seen[:, -3:])  # (N, 2) seconds
    chord = np.diff(en, axis=1)  # (N, 2, 2): the two last steps
    heading = np.arctan2(chord[..., 1], chord[..., 0])  # (N, 2) radians
    turn = np.angle(np.exp(1j * (heading[:, 1] - heading[:, 0])))  # wrapped to (-pi, pi]
    rate = turn / (dt.sum(axis=1) / 2)  # (N,) radians per second, between chord midpoints
    # The arc of the last step is longer than its chord by 1 / sinc(w dt / 2).
    arc = dt[:, 1] * np.sinc(rate * dt[:, 1] / 2 / np.pi)  # (N,) seconds x chord / arc
    speed = np.linalg.norm(chord[:, 1], axis=-1) / arc  # (N,) metres per second
    w = rate[:, None]  # (N, 1)
    start = heading[:, 1:] + w * dt[:, 1:] / 2  # (N, 1): heading at the last fix
    # Integrate speed * (cos, sin)(start + w s) over s in [0, ahead]; sinc keeps w -> 0 exact.
    half = w * ahead / 2  # (N, T)
    length = speed[:, None] * ahead * np.sinc(half / np.pi)  # chord length of the arc
    mid = start + half  # the chord's direction is the heading halfway along the arc
    moved = np.stack([length * np.cos(mid), length * np.sin(mid)], axis=-1)  # (N, T, 2)
    return from_local(moved, seen[:, -1:, :2])


@explains_class(**_sklearn_habits("HeadingFrameLinear"))
class HeadingFrameLinear:
    """Baseline: linear least squares from the observed fixes to the future, in the heading frame.

    Each trajectory is turned so that its last step points east (``+x``), with the last
    fix at the origin. In that frame the fix before the last lies on the east axis, so
    ``2 S - 3`` coordinates describe the ``S`` observed fixes (the others are zero for every
    trajectory); one linear map (with a bias) from them to the ``T`` future positions is
    fitted on the training split, by least squares: ``(2 S - 2) x 2 T`` coefficients, 48 for
    five observed fixes and three future ones. Predictions are turned back. Rotating first
    makes a left turn look the same whichever way the object was heading, so a linear model
    can learn speed, slowing and turn continuation from a handful of coefficients.

    Build it with :meth:`fit` on ``(observed (N, S, 3), future (N, T, 3))``, then call it:
    ``baseline(observed)`` (scikit-learn's ``baseline.predict(observed)`` gets an
    AttributeError that says so).
    """

    def __init__(self, weights: np.ndarray, observed_fixes: int) -> None:
        self.weights = as_array(weights, "weights")  # (design columns, 2 T)
        if (
            self.weights.ndim != 2
            or isinstance(observed_fixes, bool)
            or not isinstance(observed_fixes, (int, np.integer))
            or observed_fixes < 2
        ):
            name = type(self).__name__
            raise TypeError(
                f"{name}(weights, observed_fixes) takes fitted weights (columns, 2 T) and a "
                f"number of fixes >= 2, got weights {self.weights.shape} and "
                f"{type_name(observed_fixes)}: fit the baseline with {name}.fit(observed, "
                "future)"
            )
        self.observed_fixes = int(observed_fixes)

    @staticmethod
    def _frame(observed) -> tuple[np.ndarray, np.ndarray]:
        """Observed positions in the heading frame ``(N, S, 2)`` and each frame's angle ``(N,)``."""
        _refuse_pair(observed, "observed")
        seen = relative_metres(observed)  # (N, S, 2), last fix at the origin
        if seen.shape[1] < 2:
            raise ValueError(f"need at least two observed fixes for a heading, got {seen.shape[1]}")
        last = -seen[:, -2]  # (N, 2): the last step, from the fix before to the origin
        angle = np.arctan2(last[:, 1], last[:, 0])  # heading of the last step
        return _rotate(seen, -angle), angle

    @staticmethod
    def _inputs(frame: np.ndarray) -> np.ndarray:
        """The ``2 S - 3`` coordinates that vary, ``(N, S, 2) -> (N, 2 S - 3)``: the fixes
        before the last two, then the east coordinate of the fix before the last (the last
        fix is the origin, and the fix before it has north 0)."""
        earlier = frame[:, :-2].reshape(len(frame), -1)  # (N, 2 (S - 2))
        return np.concatenate([earlier, frame[:, -2, :1]], axis=1)

    @classmethod
    def _design(cls, frame: np.ndarray) -> np.ndarray:
        """Design matrix: the inputs and a bias column, ``(N, 2 S - 2)``."""
        inputs = cls._inputs(frame)
        return np.concatenate([inputs, np.ones((len(frame), 1))], axis=1)

    @classmethod
    @explains_bad_calls(missing=_UNPACK, positional=_UNPACK)
    def fit(cls, observed, future) -> HeadingFrameLinear:
        """Least-squares weights on a training split.

        Args:
            observed: ``(N, S, 3)`` fixes ``[lat, lon, time]``, ``S >= 2``.
            future: ``(N, T, 3)`` (or ``(N, T, 2)``) fixes that follow them.

        Returns:
            The fitted baseline; call it on observed fixes to predict.

        Warns when there are fewer trajectories than design columns (8 for five observed
        fixes): least squares is then underdetermined, and the weights are one of
        infinitely many exact fits.
        """
        frame, angle = cls._frame(observed)
        _, ahead = relative_metres(observed, future)  # (N, T, 2)
        target = _rotate(ahead, -angle).reshape(len(ahead), -1)  # (N, T, 2) -> (N, 2 T)
        design = cls._design(frame)  # (N, columns)
        n, columns = design.shape
        if n < columns:
            warn_user(
                f"{cls.__name__}.fit on {n} trajectories: its {columns * target.shape[1]} "
                f"coefficients ({columns} per output, {target.shape[1]} outputs) need at least "
                f"{columns} trajectories (observed, future), and many more to be estimated "
                "well; with fewer, least squares is underdetermined and the weights are one "
                "of infinitely many exact fits. Fit it on the whole training split.",
                UserWarning,
            )
        weights, *_ = np.linalg.lstsq(design, target, rcond=None)
        return cls(weights, frame.shape[1])

    def __call__(self, observed) -> np.ndarray:
        """Predicted ``[lat, lon]`` ``(N, T, 2)`` for observed fixes ``(N, S, 3)``."""
        frame, angle = self._frame(observed)
        if frame.shape[1] != self.observed_fixes:
            raise ValueError(
                f"fitted on {self.observed_fixes} observed fixes per trajectory, "
                f"got {frame.shape[1]}"
            )
        ahead = (self._design(frame) @ self.weights).reshape(len(frame), -1, 2)  # (N, T, 2)
        seen = _track(observed, "observed", 2)
        return from_local(_rotate(ahead, angle), seen[:, -1:, :2])


@explains_class(**_sklearn_habits("HeadingFrameQuadratic"))
class HeadingFrameQuadratic(HeadingFrameLinear):
    """Baseline: least squares in the heading frame on the inputs, their squares and products.

    The inputs of :class:`HeadingFrameLinear` (the ``k = 2 S - 3`` coordinates that vary in
    the heading frame), every product of two of them (squares included, ``k (k + 1) / 2``)
    and a bias, mapped linearly to the future: still a closed-form fit, but one that can
    learn, say, that a turn continues more sharply at low speed. For five observed fixes
    the design has 36 columns, so ``36 x 6 = 216`` coefficients.

    Shape:
        ``fit(observed (N, S, 3), future (N, T, 3))``; calling it maps observed fixes
        ``(N, S, 3)`` to predicted ``[lat, lon]`` ``(N, T, 2)``.
    """

    @classmethod
    def _design(cls, frame: np.ndarray) -> np.ndarray:
        """Design matrix: inputs, their pairwise products and a bias, ``(N, 1 + k + k (k + 1) / 2)``."""
        inputs = cls._inputs(frame)  # (N, k) metres
        i, j = np.triu_indices(inputs.shape[1])  # every pair, squares included
        products = inputs[:, i] * inputs[:, j]  # (N, k (k + 1) / 2) square metres
        return np.concatenate([inputs, products, np.ones((len(frame), 1))], axis=1)
