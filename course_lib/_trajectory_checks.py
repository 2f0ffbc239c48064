"""The input checks of :mod:`course_lib.trajectories` (package-private): batches of
trajectories in the user's argument names, an ``(observed, future)`` pair where one array
goes, a fitted object's method called on its class, and the method names other libraries
use (scikit-learn's ``.predict``, ``.fit_transform``) on the module's classes.

Every check costs nothing on a correct call beyond an ``isinstance`` or a shape test: the
messages are built only when something is wrong.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping

import numpy as np

from course_lib._validate_basics import type_name
from course_lib.geo import as_array

#: What goes where an argument of this name is expected, once the pair is unpacked.
_PART = {
    "observed": "observed",
    "future": "future",
    "true": "future (the true future fixes)",
    "track": "observed or future",
    "predicted": "the predictions alone",
}


def _is_pair(x: object) -> bool:
    """A tuple or list of two arrays or tensors of trajectories ``(N, L, F)`` each: the
    ``(observed, future)`` pair the generators return, or an ``encode`` output."""
    return (
        isinstance(x, (tuple, list))
        and len(x) == 2
        and all(getattr(item, "ndim", None) == 3 for item in x)
    )


def _pass(name: str) -> str:
    """``"observed alone"``, ``"future (the true future fixes) as true"``."""
    part = _PART.get(name, name)
    return f"{part} alone" if part == name else f"{part} as {name}"


def refuse_pair(x: object, name: str, both: str = "") -> None:
    """A TypeError when ``x`` is an ``(observed, future)`` pair where one batch of
    trajectories, ``name``, goes; ``both`` names a call that takes the two together
    (``"relative_metres"``: *it* is written ``relative_metres(*pair)``)."""
    if isinstance(x, Mapping):
        keys = ", ".join(repr(k) for k in list(x)[:4])
        raise TypeError(
            f"{name} is a {type(x).__name__} (keys {keys}), where one batch of trajectories "
            f"(N, L, 3) goes: pick a split and unpack its (observed, future) pair, e.g. "
            f"observed, future = data[{next(iter(x), 'train')!r}]"
        )
    if not _is_pair(x):
        return
    shapes = " and ".join(str(tuple(item.shape)) for item in x)
    also = f"; {both}(*pair) takes both at once" if both else ""
    raise TypeError(
        f"{name} is a {type(x).__name__} of two arrays, {shapes}: the (observed, future) "
        f"pair the generators return, where one batch of trajectories (N, L, 3) goes. "
        f"Unpack it, observed, future = pair, and pass {_pass(name)}{also}"
    )


def track(x, name: str, columns: int = 3, both: str = "") -> np.ndarray:
    """``x`` as a float64 batch of trajectories ``(N, L, >= columns)``, rows ``[lat, lon,
    time]``: not empty, finite in the columns used, latitudes in [-90, 90], and
    trajectories first -- a time-major ``(L, N, 3)`` batch, whose timestamps increase along
    the first axis instead of the second, is refused. An ``(observed, future)`` pair gets
    :func:`refuse_pair`'s message (``both`` as there)."""
    refuse_pair(x, name, both)
    a = as_array(x, name)
    rows = "[lat, lon, time]" if columns == 3 else "[lat, lon]"
    if a.ndim == 2:
        if a.shape[-1] in (columns, 3):
            hint = (
                f"one fix per trajectory (the last fixes, {name}[:, -1]?) or a single "
                f"trajectory. Pass all the fixes of every trajectory, (N, L, 3) as the "
                f"generators return them; for one trajectory, add the batch axis: {name}[None]"
            )
        else:
            hint = (
                f"one column of each fix (the timestamps alone, {name}[..., 2]?) where whole "
                f"fixes go: pass every column, (N, L, 3) as the generators return them"
            )
        raise ValueError(
            f"{name} must be a batch of trajectories (N, L, {columns}) with rows {rows}, got "
            f"the 2-D shape {a.shape}: {hint}."
        )
    if a.ndim != 3 or a.shape[-1] < columns or a.shape[1] == 0:
        hint = ""
        if a.ndim == 4 and a.shape[0] == 1:
            hint = (
                f" It has 4 dimensions: a batch (N, L, 3) with one more axis in front, as "
                f"{name}[None] gives. It is a batch of trajectories already: pass it as it "
                f"is (without [None]), or {name}[0]."
            )
        elif a.ndim > 3:
            hint = f" It has {a.ndim} dimensions, where a batch of trajectories has 3."
        raise ValueError(
            f"{name} must be a batch of trajectories (N, L, {columns}) with rows {rows}, got "
            f"shape {a.shape}.{hint}"
        )
    if a.shape[0] == 0:
        raise ValueError(f"{name} holds no trajectories (N = 0), shape {a.shape}")
    used = a[..., : max(columns, min(a.shape[-1], 3))]
    if not np.all(np.isfinite(used)):
        raise ValueError(f"{name} contains NaN or infinite values")
    if np.any(np.abs(a[..., 0]) > 90):
        raise ValueError(
            f"{name} has latitudes outside [-90, 90]: are [lat, lon] swapped, or is it in "
            "metres (model units) already?"
        )
    if a.shape[-1] >= 3 and min(a.shape[:2]) >= 2:
        time = a[..., 2]
        if not np.all(np.diff(time, axis=1) > 0) and np.all(np.diff(time, axis=0) > 0):
            raise ValueError(
                f"{name} {a.shape} looks time-major, (L, N, 3): its timestamps increase "
                f"along the first axis, not along each trajectory. Trajectories come first: "
                f"np.swapaxes({name}, 0, 1)"
            )
    return a


def same_batch(a: np.ndarray, b: np.ndarray, names: str) -> None:
    if a.shape[0] != b.shape[0]:
        raise ValueError(
            f"{names} hold different numbers of trajectories: {a.shape[0]} vs {b.shape[0]}"
        )


def pair(x, name: str) -> tuple:
    """An ``(observed, future)`` pair, or a TypeError that names ``name``."""
    if not isinstance(x, (tuple, list)) or len(x) != 2:
        shape = f" of shape {np.shape(x)}" if hasattr(x, "shape") else ""
        raise TypeError(
            f"{name} must be an (observed, future) pair, as the generators return it, got "
            f"{type_name(x)}{shape}"
        )
    return tuple(x)


class FittedMethod:
    """A method of a fitted object that says so when called on the class instead:
    ``Standardizer.transform(x)`` (``.fit`` forgotten) binds ``x`` to ``self`` and would
    fail with "missing 1 required positional argument: 'x'". Called on an instance, or on
    the class with an instance first (``Standardizer.transform(scaler, x)``), it is the
    plain method."""

    def __init__(self, fn) -> None:
        self.fn = fn
        functools.update_wrapper(self, fn)

    def __get__(self, obj, owner=None):
        if obj is not None:
            return self.fn.__get__(obj, owner)
        fn = self.fn

        @functools.wraps(fn)
        def on_the_class(*args, **kwargs):
            if args and isinstance(args[0], owner):
                return fn(*args, **kwargs)
            cls, name = owner.__name__, fn.__name__
            got = f"with {type_name(args[0])}" if args else "with nothing"
            raise TypeError(
                f"{cls}.{name}(x) was called on the class, {got} where a fitted {cls} goes: "
                f"the class holds no mean and std. Call it on a fitted scaler: "
                f"scaler = {cls}.fit(train_x); scaler.{name}(x)"
            )

        return on_the_class


#: What scikit-learn's method names are here (an AttributeError says so).
TO_LATLON = "predictions go back to positions with features.to_latlon(predicted, observed)"


def sklearn_habits(cls: str) -> dict[str, str]:
    """A fitted baseline's foreign method names -> how it is called here."""
    call = (
        "that is scikit-learn's way; a fitted baseline is called directly on the observed "
        f"fixes, predicted = baseline(observed) -> [lat, lon] (N, T, 2), after baseline = "
        f"{cls}.fit(observed, future)"
    )
    habits = dict.fromkeys(("predict", "forward", "transform", "fit_predict"), call)
    habits["score"] = "score it with ade_fde(baseline(observed), future) (errors in metres)"
    return habits


#: What a ``fit(observed, future)`` given the pair whole (or three arrays) adds.
UNPACK = (
    "pass the (observed, future) pair unpacked, with *: fit(*train), where train = "
    "(observed, future) of the training trajectories"
)
