"""Synthetic GPS trajectories around Florence: the lecture's generator and a realistic one.

Both return the same shapes, batch first, as the lecture does:

* ``observed`` -- ``(N, S, 3)``: ``S`` observed fixes (5), each ``[lat, lon, timestamp]``;
* ``future`` -- ``(N, T, 3)``: the ``T`` fixes that follow (3), to be predicted.

Latitude and longitude are in degrees, timestamps in Unix seconds (UTC).

:func:`lecture_trajectories` reproduces the lecture's generator, seeded. Its flaw is
deliberate here, because the chapter shows it: the observed fixes are *independent* jitter
around the centre (up to ``max_offset`` = 0.01 degrees, about 1 km) and the future is a
small random walk from the last one (steps up to 0.001 degrees), so the observed history
says nothing about the future beyond its last point.

:func:`city_trajectories` simulates people and vehicles moving through the centre --
pedestrians, bikes and cars with typical speeds -- whose heading turns *persistently*
(a turn that has started tends to go on), who accelerate towards a cruising speed and
sometimes stop (lights, crossings), recorded by a GPS receiver with a few metres of noise.
The motion is integrated second by second and sampled every ``interval_s`` seconds.

Randomness comes only from the ``np.random.Generator`` passed in: nothing global is seeded.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone

import numpy as np

from course_lib._foreign_names import explain_config, explains_bad_calls
from course_lib._validate_basics import check_type, warn_user
from course_lib.geo import from_local

__all__ = ["FLORENCE", "MODES", "CityConfig", "lecture_trajectories", "city_trajectories"]

#: Florence's centre, ``[lat, lon]`` in degrees (the lecture's coordinates).
FLORENCE = (43.7696, 11.2558)
#: The kinds of moving object :func:`city_trajectories` simulates, in the order of its labels.
MODES = ("walk", "bike", "car")


def _check_counts(n: int, observed: int, future: int, rng) -> None:
    check_type(
        rng,
        "rng",
        np.random.Generator,
        "a np.random.Generator",
        "Pass one, e.g. rng=np.random.default_rng(0).",
    )
    for name, value, least in (("n", n, 1), ("observed", observed, 2), ("future", future, 1)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < least:
            raise ValueError(f"{name} must be an integer >= {least}, got {value!r}")


def _check_number(value, name: str, *, positive: bool = False) -> None:
    """A finite real number, ``>= 0`` (``> 0`` with ``positive``), or a clear error."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a number, got {type(value).__name__} {value!r}")
    if not np.isfinite(value) or value < 0 or (positive and value == 0):
        raise ValueError(f"{name} must be {'> 0' if positive else '>= 0'}, got {value!r}")


def _is_negative(value) -> bool:
    """A finite real number below 0 (NaN and infinities are refused by :func:`_check_number`)."""
    real = (int, float, np.integer, np.floating)
    return not isinstance(value, bool) and isinstance(value, real) and -np.inf < value < 0


def _epoch(start: str, name: str = "start") -> float:
    """Unix seconds of ``"YYYY-mm-dd HH:MM:SS"`` read as UTC (the lecture used local time)."""
    fix = " (UTC), e.g. '2024-01-01 08:00:00'"
    check_type(start, name, str, "a str 'YYYY-mm-dd HH:MM:SS'" + fix)
    try:
        stamp = datetime.strptime(start, "%Y-%m-%d %H:%M:%S")
    except ValueError:
        raise ValueError(f"{name} must be 'YYYY-mm-dd HH:MM:SS'{fix}, got {start!r}") from None
    return stamp.replace(tzinfo=timezone.utc).timestamp()


def _with_time(latlon: np.ndarray, times: np.ndarray) -> np.ndarray:
    return np.concatenate([latlon, times[..., None]], axis=-1)  # (N, L, 2) + (N, L) -> (N, L, 3)


@explains_bad_calls()
def lecture_trajectories(
    n: int,
    *,
    rng: np.random.Generator,
    observed: int = 5,
    future: int = 3,
    interval_min: float = 15.0,
    max_offset: float = 0.01,
    max_step: float = 0.001,
    start: str = "2024-01-01 08:00:00",
) -> tuple[np.ndarray, np.ndarray]:
    """The lecture's generator: jitter around the centre, then a short random walk.

    Every trajectory starts at ``start`` (so all share the same timestamps) and steps
    ``interval_min`` minutes. Each observed fix is the centre plus an independent uniform
    offset in ``[-max_offset, max_offset]`` degrees per coordinate; each future fix is the
    previous fix plus a uniform step in ``[-max_step, max_step]``.

    Returns:
        ``observed (n, observed, 3)`` and ``future (n, future, 3)``, ``[lat, lon, time]``.

    Raises:
        TypeError: ``rng`` that is not a ``np.random.Generator``; ``start`` that is not a str.
        ValueError: counts below 1 (``observed`` below 2), a negative ``max_offset`` or
            ``max_step``, an ``interval_min`` that is not positive, or a ``start`` that is
            not ``'YYYY-mm-dd HH:MM:SS'``.
    """
    _check_counts(n, observed, future, rng)
    _check_number(interval_min, "interval_min", positive=True)
    _check_number(max_offset, "max_offset")
    _check_number(max_step, "max_step")
    t0 = _epoch(start)
    jitter = rng.uniform(-max_offset, max_offset, size=(n, observed, 2))  # (N, S, 2) degrees
    steps = rng.uniform(-max_step, max_step, size=(n, future, 2))  # (N, T, 2) degrees
    seen = np.asarray(FLORENCE) + jitter
    ahead = seen[:, -1:] + np.cumsum(steps, axis=1)  # random walk from the last observed fix
    times = t0 + 60.0 * interval_min * np.arange(observed + future)  # (S + T,)
    times = np.broadcast_to(times, (n, observed + future))
    return _with_time(seen, times[:, :observed]), _with_time(ahead, times[:, observed:])


@explain_config
@dataclass(frozen=True)
class CityConfig:
    """How :func:`city_trajectories` moves its objects. Per-mode tuples follow :data:`MODES`.

    Speeds in m/s, accelerations in m/s^2, turn rates in rad/s, times in seconds.

    Raises:
        ValueError: per-mode values that are not one per mode, negative rates, noise, speeds
            or durations, ``mode_probs`` all 0, ``interval_s`` that is not a positive whole
            number of seconds, or a ``start`` that is not ``'YYYY-mm-dd HH:MM:SS'``.
        TypeError: a value that is not a number (``start``: not a str).

    Warns:
        UserWarning: cruising speeds too fast for a city centre in m/s (above 4, 12 and 25
            m/s for walkers, cyclists and cars): km/h, most likely.
    """

    interval_s: float = 20.0
    mode_probs: tuple[float, float, float] = (0.4, 0.3, 0.3)
    cruise_mean: tuple[float, float, float] = (1.4, 4.5, 8.5)
    cruise_sd: tuple[float, float, float] = (0.25, 0.8, 2.0)
    accel: tuple[float, float, float] = (0.5, 1.0, 2.0)
    turn_sd: tuple[float, float, float] = (0.04, 0.03, 0.02)
    turn_memory_s: float = 60.0
    stop_rate: tuple[float, float, float] = (1 / 400, 1 / 250, 1 / 120)
    stop_s: tuple[float, float] = (10.0, 40.0)
    gps_noise_m: float = 4.0
    radius_m: float = 1500.0
    burn_in_s: float = 60.0
    start: str = "2024-01-01 00:00:00"
    span_days: float = 365.0

    def __post_init__(self) -> None:
        """Refuse what would fail deep inside the simulation, or silently misbehave."""
        for name in ("mode_probs", "cruise_mean", "cruise_sd", "accel", "turn_sd", "stop_rate"):
            values = getattr(self, name)
            if not isinstance(values, (tuple, list, np.ndarray)) or len(values) != len(MODES):
                raise ValueError(f"{name} must hold one value per mode {MODES}, got {values!r}")
            for mode, value in zip(MODES, values, strict=True):
                if _is_negative(value):
                    default = type(self).__dataclass_fields__[name].default
                    raise ValueError(
                        f"{name} must not be negative, got {name}={values!r}: its {mode} value "
                        f"is {value!r}. Each mode's value must be >= 0 (the default is "
                        f"{name}={default!r})."
                    )
                _check_number(value, name)
        _warn_speeds_in_kmh(self.cruise_mean)
        if sum(self.mode_probs) <= 0:
            raise ValueError(
                f"mode_probs must not all be 0, got {self.mode_probs!r}: they are the relative "
                f"chances of the modes {MODES}, so at least one must be positive, e.g. "
                "mode_probs=(0.4, 0.3, 0.3) (the default) or (0, 0, 1) for cars only."
            )
        if not isinstance(self.stop_s, (tuple, list, np.ndarray)) or len(self.stop_s) != 2:
            raise ValueError(f"stop_s must be (shortest, longest) seconds, got {self.stop_s!r}")
        for value in self.stop_s:
            _check_number(value, "stop_s")
        if self.stop_s[0] > self.stop_s[1]:
            raise ValueError(f"stop_s must be (shortest, longest), got {self.stop_s!r}")
        _check_number(self.interval_s, "interval_s", positive=True)
        if self.interval_s != int(self.interval_s):
            raise ValueError(
                f"interval_s must be a positive whole number of seconds, got {self.interval_s}"
            )
        _check_number(self.turn_memory_s, "turn_memory_s", positive=True)
        for name in ("gps_noise_m", "radius_m", "burn_in_s", "span_days"):
            _check_number(getattr(self, name), name)
        _epoch(self.start)


#: Cruising speeds above these (m/s; 14, 43 and 90 km/h) are not a city's walkers, cyclists
#: and cars: speeds in km/h, most likely.
_FASTEST_M_S = (4.0, 12.0, 25.0)


def _warn_speeds_in_kmh(cruise_mean) -> None:
    """``cruise_mean`` is in m/s: values above :data:`_FASTEST_M_S` read as km/h."""
    fast = [
        f"{mode} {float(v):g} m/s = {float(v) * 3.6:.0f} km/h"
        for mode, v, most in zip(MODES, cruise_mean, _FASTEST_M_S, strict=True)
        if v > most
    ]
    if not fast:
        return
    in_m_s = ", ".join(f"{float(v) / 3.6:.2f}" for v in cruise_mean)
    warn_user(
        f"CityConfig(cruise_mean={tuple(float(v) for v in cruise_mean)}): cruising speeds are "
        f"in m/s (metres per second), and these are fast for the centre of a city: "
        f"{'; '.join(fast)}. If they are km/h, divide by 3.6: cruise_mean=({in_m_s}) (the "
        "default is (1.4, 4.5, 8.5) m/s, about 5, 16 and 31 km/h)",
        UserWarning,
    )


def _pick(values: tuple, modes: np.ndarray) -> np.ndarray:
    return np.asarray(values, dtype=np.float64)[modes]


@explains_bad_calls()
def city_trajectories(
    n: int,
    *,
    rng: np.random.Generator,
    observed: int = 5,
    future: int = 3,
    config: CityConfig = CityConfig(),
    return_modes: bool = False,
):
    """Realistic trajectories: walkers, cyclists and cars in the centre of Florence.

    Each object gets a mode, a cruising speed, a start position within ``radius_m`` of the
    centre, a heading and a start time within ``span_days`` of ``start``. Second by second,
    its turn rate follows a slowly varying random process (memory ``turn_memory_s``), its
    speed moves towards the cruising speed -- or towards zero during a stop -- by at most
    ``accel`` per second, and stops begin at random (rate ``stop_rate``). After
    ``burn_in_s`` seconds, a fix is recorded every ``interval_s`` seconds with Gaussian
    noise of ``gps_noise_m`` metres per coordinate.

    Returns:
        ``observed (n, observed, 3)``, ``future (n, future, 3)`` (``[lat, lon, time]``), and
        with ``return_modes=True`` also the mode of each trajectory ``(n,)`` (an index
        into :data:`MODES`).

    Raises:
        TypeError: ``rng`` that is not a ``np.random.Generator``, ``config`` that is not a
            :class:`CityConfig` instance (the class itself, a dict).
        ValueError: counts below 1 (``observed`` below 2); :class:`CityConfig` refuses its
            own bad values when it is built.
    """
    _check_counts(n, observed, future, rng)
    check_type(
        config,
        "config",
        CityConfig,
        "a CityConfig instance",
        "Build one: config=CityConfig(interval_s=10.0), or leave config out for the defaults.",
    )
    c = config
    length = observed + future
    modes = rng.choice(len(MODES), size=n, p=np.asarray(c.mode_probs) / np.sum(c.mode_probs))
    cruise = np.maximum(0.3, rng.normal(_pick(c.cruise_mean, modes), _pick(c.cruise_sd, modes)))
    accel, turn_sd, stop_rate = (_pick(v, modes) for v in (c.accel, c.turn_sd, c.stop_rate))
    radius = c.radius_m * np.sqrt(rng.uniform(size=n))  # uniform over the disc
    angle = rng.uniform(0, 2 * np.pi, size=n)
    pos = np.stack([radius * np.sin(angle), radius * np.cos(angle)], axis=-1)  # (N, 2) east, north
    heading = rng.uniform(0, 2 * np.pi, size=n)  # radians clockwise from north
    speed = cruise * rng.uniform(0.5, 1.0, size=n)
    turn = rng.normal(0.0, turn_sd)
    stop_left = np.zeros(n)

    keep = np.exp(-1.0 / c.turn_memory_s)  # one-second AR(1) coefficient of the turn rate
    record_at = int(c.burn_in_s) + int(c.interval_s) * np.arange(length)
    track = np.empty((n, length, 2))
    for second in range(int(record_at[-1]) + 1):
        hits = np.flatnonzero(record_at == second)
        if hits.size:
            track[:, hits[0]] = pos
        starts = (stop_left <= 0) & (rng.uniform(size=n) < stop_rate)
        stop_left = np.where(starts, rng.uniform(*c.stop_s, size=n), stop_left - 1.0)
        goal = np.where(stop_left > 0, 0.0, cruise)
        speed = speed + np.clip(goal - speed, -accel, accel)
        turn = keep * turn + turn_sd * np.sqrt(1 - keep**2) * rng.normal(size=n)
        heading = heading + turn * np.minimum(1.0, speed / 0.5)  # no turning on the spot
        pos = pos + speed[:, None] * np.stack([np.sin(heading), np.cos(heading)], axis=-1)

    track = track + rng.normal(0.0, c.gps_noise_m, size=track.shape)  # receiver noise
    latlon = from_local(track, np.asarray(FLORENCE))  # (N, L, 2) degrees
    t0 = _epoch(c.start) + np.floor(rng.uniform(0, c.span_days * 86400, size=n))
    times = t0[:, None] + c.interval_s * np.arange(length)  # (N, L)
    out = (
        _with_time(latlon[:, :observed], times[:, :observed]),
        _with_time(latlon[:, observed:], times[:, observed:]),
    )
    return (*out, modes) if return_modes else out
