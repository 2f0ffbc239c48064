"""Distances on the Earth and a local metric map: what GPS positions need before a model sees them.

Latitude and longitude are angles, not lengths: in Florence (latitude 43.77 degrees) one
degree of latitude is about 111.2 km but one degree of longitude only about 80.3 km, so an
error of 0.001 degrees means 111 m in one direction and 80 m in the other. Models and
metrics therefore work in **metres** on a local map:

* :func:`to_local` turns ``(lat, lon)`` into ``(east, north)`` metres around an origin
  (an equirectangular projection: exact enough -- millimetres -- over the few kilometres of
  a city; use a proper projection for hundreds of kilometres);
* :func:`from_local` inverts it;
* :func:`haversine` is the great-circle distance in metres between two positions, the
  distance every error in the book is measured with.

Arrays broadcast like NumPy's: ``(..., 2)`` positions in, ``(..., 2)`` or ``(...)`` out.
Angles in degrees, lengths in metres.
"""

from __future__ import annotations

import numpy as np
import torch

from course_lib._foreign_names import explains_bad_calls
from course_lib._validate_basics import warn_user

__all__ = ["EARTH_RADIUS_M", "haversine", "to_local", "from_local"]

#: The Earth's mean radius in metres (IUGG), the sphere of :func:`haversine`.
EARTH_RADIUS_M = 6_371_008.8


def as_array(x, name: str) -> np.ndarray:
    """``x`` as a float64 array: a tensor is detached and copied to the CPU first (one that
    requires grad or lives on a GPU is fine). A ragged list -- trajectories of different
    lengths -- or something that is not numbers gets an error that names ``name``."""
    if isinstance(x, torch.Tensor):
        x = x.detach().cpu()
    try:
        return np.asarray(x, dtype=np.float64)
    except ValueError as err:
        if "inhomogeneous" in str(err) or "sequence" in str(err):
            raise ValueError(
                f"{name} is a ragged list: its items (trajectories?) have different "
                "lengths, so they do not make one array. Cut or pad them to one length and "
                "stack them (np.stack), or pass them one at a time"
            ) from err
        raise TypeError(f"{name} must hold numbers, got {_kind(x)}: {err}") from err
    except TypeError as err:
        raise TypeError(f"{name} must hold numbers, got {_kind(x)}: {err}") from err


def _kind(x) -> str:
    return f"{type(x).__name__} {x!r}" if isinstance(x, str) else type(x).__name__


def _latlon(x, name: str) -> np.ndarray:
    """``x`` as a float64 array ``(..., 2)`` of ``[lat, lon]`` degrees, or a clear error."""
    a = as_array(x, name)
    if a.ndim == 0 or a.shape[-1] != 2:
        raise ValueError(
            f"{name} must hold [lat, lon] pairs in its last dimension, shape (..., 2), got "
            f"{a.shape}; for [lat, lon, timestamp] rows pass x[..., :2]"
        )
    if not np.all(np.isfinite(a)):
        raise ValueError(f"{name} contains NaN or infinite values")
    if np.any(np.abs(a[..., 0]) > 90):
        raise ValueError(
            f"{name} has latitudes outside [-90, 90]: are [lat, lon] swapped, or is it in "
            "metres already?"
        )
    if np.any(np.abs(a[..., 1]) > 360):
        raise ValueError(
            f"{name} has longitudes beyond 360 degrees: is it in metres already (from_local "
            "turns metres back into degrees)?"
        )
    return a


def _fit(x: np.ndarray, origin: np.ndarray, names: tuple[str, str]) -> None:
    """``origin`` must broadcast against ``x`` (both ``(..., 2)``), the way the docstrings
    say: one origin ``(2,)``, or one per trajectory ``(N, 1, 2)`` for ``(N, L, 2)``. An
    origin ``(N, 2)`` for ``(N, L, 2)`` is refused where NumPy cannot broadcast it, and
    warned about where it can (``L == N``: it would be read as one origin per step)."""
    per_trajectory = 1 < origin.ndim < x.ndim and origin.shape[0] == x.shape[0] > 1
    if per_trajectory:
        hint = (
            f" For one {names[1]} per trajectory, give it a length axis: {names[1]}[:, None] "
            f"is {origin.shape[:1] + (1,) + origin.shape[1:]}."
        )
    else:
        hint = " Give one [lat, lon] (2,), or one per trajectory: (N, 1, 2) for (N, L, 2)."
    try:
        np.broadcast_shapes(x.shape, origin.shape)
    except ValueError:
        raise ValueError(
            f"{names[0]} {x.shape} and {names[1]} {origin.shape} do not broadcast.{hint}"
        ) from None
    if per_trajectory:
        warn_user(
            f"{names[1]} {origin.shape} is matched to the axis of length {x.shape[x.ndim - origin.ndim]} of "
            f"{names[0]} {x.shape}, not to its first (trajectory) axis.{hint}",
            UserWarning,
        )


def _warn_if_radians(a: np.ndarray, b: np.ndarray) -> None:
    """Warn when every coordinate is a fraction within +-pi: radians given for degrees."""
    both = np.concatenate([a.reshape(-1), b.reshape(-1)])
    if both.size and np.all(np.abs(both) <= np.pi) and not np.all(both == np.round(both)):
        warn_user(
            f"haversine takes [lat, lon] in degrees, but every coordinate of a and b lies "
            f"within +-pi (largest {np.abs(both).max():.3f}): radians? Pass the degrees "
            f"themselves (np.degrees(x) undoes np.radians)",
            UserWarning,
        )


@explains_bad_calls()
def haversine(a, b) -> np.ndarray:
    """Great-circle distance in metres between positions ``a`` and ``b``.

    Args:
        a, b: ``[lat, lon]`` in degrees, shapes ``(..., 2)`` that broadcast.

    Returns:
        Distances in metres, shape ``(...)``.

    Raises:
        ValueError: positions that are not ``(..., 2)``, hold NaN, have latitudes outside
            [-90, 90] (swapped ``[lon, lat]``, or metres) or longitudes beyond 360 degrees,
            or shapes that do not broadcast (``(N, T, 2)`` against ``(T, N, 2)``).
        TypeError: something that is not numbers.
    """
    a, b = _latlon(a, "a"), _latlon(b, "b")
    _warn_if_radians(a, b)
    try:
        np.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        swapped = a.ndim == b.ndim == 3 and a.shape[:2] == b.shape[1::-1]
        hint = (
            " One is (N, T, 2), the other (T, N, 2): swap the first two axes of the "
            "time-major one, np.swapaxes(x, 0, 1)."
            if swapped
            else ""
        )
        raise ValueError(f"a {a.shape} and b {b.shape} do not broadcast.{hint}") from None
    p, q = np.radians(a), np.radians(b)
    dlat, dlon = q[..., 0] - p[..., 0], q[..., 1] - p[..., 1]
    h = np.sin(dlat / 2) ** 2 + np.cos(p[..., 0]) * np.cos(q[..., 0]) * np.sin(dlon / 2) ** 2
    return 2 * EARTH_RADIUS_M * np.arcsin(np.sqrt(np.clip(h, 0.0, 1.0)))


@explains_bad_calls()
def to_local(latlon, origin) -> np.ndarray:
    """East and north offsets in metres of ``latlon`` from ``origin``.

    Args:
        latlon: positions ``(..., 2)``, ``[lat, lon]`` degrees.
        origin: ``[lat, lon]`` of the map's origin, ``(2,)`` or broadcastable to
            ``latlon`` (one origin per trajectory: ``(N, 1, 2)`` for ``(N, L, 2)``).

    Returns:
        ``[east, north]`` metres, shape ``(..., 2)``.

    Raises:
        ValueError: as :func:`haversine`; an ``origin`` that does not broadcast against
            ``latlon`` (``(N, 2)`` for ``(N, L, 2)``: use ``origin[:, None]``). Warns where
            such an origin happens to broadcast (``L == N``).
    """
    p, o = _latlon(latlon, "latlon"), _latlon(origin, "origin")
    _fit(p, o, ("latlon", "origin"))
    p, o = np.radians(p), np.radians(o)
    east = EARTH_RADIUS_M * np.cos(o[..., 0]) * (p[..., 1] - o[..., 1])
    north = EARTH_RADIUS_M * (p[..., 0] - o[..., 0])
    return np.stack(np.broadcast_arrays(east, north), axis=-1)


@explains_bad_calls()
def from_local(east_north, origin) -> np.ndarray:
    """Invert :func:`to_local`: ``[lat, lon]`` degrees of ``[east, north]`` metres from ``origin``.

    Shape: ``east_north (..., 2)`` and ``origin`` broadcastable to it -> ``(..., 2)``.

    Raises:
        ValueError: ``east_north`` that is not ``(..., 2)`` or holds NaN; an ``origin`` as
            in :func:`to_local`.
    """
    en = as_array(east_north, "east_north")
    if en.ndim == 0 or en.shape[-1] != 2:
        raise ValueError(f"east_north must be (..., 2) metres, got shape {en.shape}")
    if not np.all(np.isfinite(en)):
        raise ValueError("east_north contains NaN or infinite values")
    o = _latlon(origin, "origin")
    _fit(en, o, ("east_north", "origin"))
    o = np.radians(o)
    lat = o[..., 0] + en[..., 1] / EARTH_RADIUS_M
    lon = o[..., 1] + en[..., 0] / (EARTH_RADIUS_M * np.cos(o[..., 0]))
    return np.degrees(np.stack(np.broadcast_arrays(lat, lon), axis=-1))
