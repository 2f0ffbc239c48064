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

__all__ = ["EARTH_RADIUS_M", "haversine", "to_local", "from_local"]

#: The Earth's mean radius in metres (IUGG), the sphere of :func:`haversine`.
EARTH_RADIUS_M = 6_371_008.8


def _latlon(x, name: str) -> np.ndarray:
    """``x`` as a float64 array ``(..., 2)`` of ``[lat, lon]`` degrees, or a clear error."""
    a = np.asarray(x, dtype=np.float64)
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
    return a


def haversine(a, b) -> np.ndarray:
    """Great-circle distance in metres between positions ``a`` and ``b``.

    Args:
        a, b: ``[lat, lon]`` in degrees, shapes ``(..., 2)`` that broadcast.

    Returns:
        Distances in metres, shape ``(...)``.
    """
    p, q = np.radians(_latlon(a, "a")), np.radians(_latlon(b, "b"))
    dlat, dlon = q[..., 0] - p[..., 0], q[..., 1] - p[..., 1]
    h = np.sin(dlat / 2) ** 2 + np.cos(p[..., 0]) * np.cos(q[..., 0]) * np.sin(dlon / 2) ** 2
    return 2 * EARTH_RADIUS_M * np.arcsin(np.sqrt(np.clip(h, 0.0, 1.0)))


def to_local(latlon, origin) -> np.ndarray:
    """East and north offsets in metres of ``latlon`` from ``origin``.

    Args:
        latlon: positions ``(..., 2)``, ``[lat, lon]`` degrees.
        origin: ``[lat, lon]`` of the map's origin, ``(2,)`` or broadcastable to
            ``latlon`` (one origin per trajectory: ``(N, 1, 2)`` for ``(N, L, 2)``).

    Returns:
        ``[east, north]`` metres, shape ``(..., 2)``.
    """
    p, o = np.radians(_latlon(latlon, "latlon")), np.radians(_latlon(origin, "origin"))
    east = EARTH_RADIUS_M * np.cos(o[..., 0]) * (p[..., 1] - o[..., 1])
    north = EARTH_RADIUS_M * (p[..., 0] - o[..., 0])
    return np.stack(np.broadcast_arrays(east, north), axis=-1)


def from_local(east_north, origin) -> np.ndarray:
    """Invert :func:`to_local`: ``[lat, lon]`` degrees of ``[east, north]`` metres from ``origin``.

    Shape: ``east_north (..., 2)`` and ``origin`` broadcastable to it -> ``(..., 2)``.
    """
    en = np.asarray(east_north, dtype=np.float64)
    if en.ndim == 0 or en.shape[-1] != 2:
        raise ValueError(f"east_north must be (..., 2) metres, got shape {en.shape}")
    o = np.radians(_latlon(origin, "origin"))
    lat = o[..., 0] + en[..., 1] / EARTH_RADIUS_M
    lon = o[..., 1] + en[..., 0] / (EARTH_RADIUS_M * np.cos(o[..., 0]))
    return np.degrees(np.stack(np.broadcast_arrays(lat, lon), axis=-1))
