"""Interactive views of positions: the sinusoidal table as dials, and scores along the offset.

    positions_view(sinusoidal_encoding(32, 16))                 # Chapter 4
    offset_view({"rotary": rotary_scores, "added": added_scores})  # Chapter 7

Both embed their numbers rounded to three decimals (``round(1000 x) / 1000``). The positions
view also embeds the dials' speeds and the dot products ``PE(p) . PE(p + k) = sum_i cos(k
w_i)``, computed in float64 from the speeds, one number per offset: the readout and the
curve are the same for every ``p`` at an offset, and exactly ``d / 2`` at ``k = 0``.

Colours follow Chapter 4's figure (``tools/draw_schematics.py``'s sinusoidal_positions): the
hand and bars of ``p`` blue, of ``p + k`` green, the turn ``k w_i`` orange; each dial draws
the cosine across and the sine up, angles anticlockwise from 3 o'clock. Every colour reaches
3:1 against white and against a dark page (#1e1e1e); text is in the page's own colour.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from course_lib._foreign_names import explains_bad_calls
from course_lib._validate_basics import type_name
from course_lib.views import _static
from course_lib.views._html import HtmlView, build_view
from course_lib.views.attention import float_array

__all__ = ["positions_view", "offset_view"]

#: Chapter 4's figure's colours, darkened to reach 3:1 on white and on #1e1e1e.
BLUE, GREEN, ORANGE = "#1f77b4", "#2a8a2a", "#c46200"
#: The offset view's curves, in order (then again from the first).
CURVE_COLOURS = [ORANGE, BLUE, GREEN, "#8a5cc0"]


def _milli(array: np.ndarray) -> list[int]:
    """``round(1000 x)`` of every entry, row by row: what the views embed."""
    return [int(v) for v in np.rint(np.asarray(array, dtype=np.float64) * 1000).reshape(-1)]


def _fits(array: np.ndarray, speeds: np.ndarray) -> bool:
    """Whether ``array``'s pairs are ``(sin, cos)`` of ``p * speeds`` (float32 tables drift
    by about ``p`` times 1e-7)."""
    angles = np.arange(array.shape[0])[:, None] * speeds[None, :]
    tolerance = max(1e-4, 4e-7 * array.shape[0])
    return bool(
        np.allclose(array[:, 0::2], np.sin(angles), atol=tolerance)
        and np.allclose(array[:, 1::2], np.cos(angles), atol=tolerance)
    )


def _speeds(array: np.ndarray) -> np.ndarray:
    """The angular speeds ``w_i`` of a sinusoidal table's pairs, in float64: the book's
    ``1 / 10000^(2i/d)`` when the table is that one, else read off position 1 (a speed
    above pi reads as one turn less, which gives the same table at whole positions)."""
    pairs = array.shape[1] // 2
    standard = 10000.0 ** (-2.0 * np.arange(pairs) / array.shape[1])
    if _fits(array, standard):
        return standard
    if array.shape[0] >= 2:
        measured = np.arctan2(array[1, 0::2], array[1, 1::2])
        if _fits(array, measured):
            return measured
    raise ValueError(
        "table must be a sinusoidal table, pair i = (sin, cos) of p * w_i in columns "
        "(2i, 2i + 1), with at least 2 positions: pass sinusoidal_encoding(max_len, d_model)"
    )


def _speed_label(speed: float) -> str:
    return f"\u03c9 = {speed:.2g}"


@explains_bad_calls()
def positions_view(
    table,
    *,
    position: int = 3,
    offset: int = 2,
    dials: int = 8,
    title: str | None = None,
    link: str | None = None,
) -> HtmlView:
    """Pick a position ``p`` and an offset ``k``: the encodings of ``p`` and ``p + k`` as
    bars, their dot product along every offset, and each sine/cosine pair as a dial.

    The dials follow Chapter 4's figure: cosine across, sine up (angles anticlockwise from
    3 o'clock), the hand of ``p`` blue, of ``p + k`` green, and each dial names its speed
    ``w_i``. The offset slider runs over the offsets that keep ``p + k`` inside the table.
    The dot product is ``sum_i cos(k w_i)``, computed in float64 (one number per offset).

    Args:
        table: a ``(max_len, d_model)`` sinusoidal table,
            :func:`~course_lib.positional.sinusoidal_encoding`: pair ``i`` is columns
            ``(2i, 2i + 1)`` = (sine, cosine) of ``p * w_i``.
        position, offset: where the sliders start.
        dials: how many pairs to draw as dials (the fastest first).
        title: a line above the view.
        link: the address of the book's page that shows the view
            (:func:`~course_lib.views.book_page`), named under the picture shown where
            scripts do not run.

    Raises:
        ValueError: a table that is not 2-D with an even width of at least 2, values
            outside [-1, 1], a table that is not sinusoidal, or a start outside the table.
    """
    array = float_array(table, "table")
    if array.ndim != 2 or array.shape[1] < 2 or array.shape[1] % 2:
        raise ValueError(
            f"table must be (max_len, d_model) with an even d_model, got shape "
            f"{tuple(array.shape)}: pass sinusoidal_encoding(max_len, d_model)"
        )
    if not np.isfinite(array).all() or np.abs(array).max() > 1 + 1e-6:
        raise ValueError("table must hold sines and cosines, in [-1, 1]")
    length = array.shape[0]
    if not 0 <= position < length or not 0 <= position + offset < length:
        raise ValueError(
            f"position={position} and offset={offset} must keep p and p + k inside the "
            f"table's {length} positions"
        )
    speeds = _speeds(array)
    # PE(p) . PE(p + k) = sum_i cos(k w_i) for every p: one number per offset k >= 0.
    dots = np.cos(np.arange(length)[:, None] * speeds[None, :]).sum(axis=1)
    pairs = max(1, min(len(speeds), int(dials)))
    data = {
        "title": title or "",
        "length": length,
        "width": array.shape[1],
        "table": _milli(array),
        "p": int(position),
        "k": int(offset),
        "dials": pairs,
        "speeds": [float(s) for s in speeds[:pairs]],
        "speed_labels": [_speed_label(s) for s in speeds[:pairs]],
        "dots": _milli(dots),
        "colours": {"p": BLUE, "q": GREEN, "turn": ORANGE},
    }
    label = title or "Positions explorer"
    picture = _positions_picture(data, label)
    return build_view("positions", data, "positions.js", label, picture=picture, link=link)


def _heading(words: str, width: float) -> tuple[list[str], float]:
    """A picture's heading, wrapped to ``width``, and the height it takes."""
    lines = _static.wrap_words(words, width)
    parts = [
        _static.text(0, 14 + 16 * i, line, extra=' font-weight="600"')
        for i, line in enumerate(lines)
    ]
    return parts, 16.0 * len(lines) + 10


def _dial(x: float, y: float, r: float, ends: list[tuple[int, str, float]], turn: float) -> list:
    """One dial centred at (x, y): faint axes, the turn as an orange wedge from the first
    hand, and the hands ``((sin, cos), colour, width)`` drawn in order."""
    parts = [
        _static.circle(x, y, r, extra=' stroke="currentColor" stroke-opacity="0.35"'),
        _static.line(x - r, y, x + r, y, extra=' stroke-opacity="0.15"'),
        _static.line(x, y - r, x, y + r, extra=' stroke-opacity="0.15"'),
    ]
    (sin0, cos0), _, _ = ends[0]
    start = math.atan2(sin0, cos0)
    turn = math.fmod(turn, 2 * math.pi)
    if abs(turn) > 1e-3:
        w, end = 0.5 * r, start + turn
        sweep = 0 if turn > 0 else 1  # SVG's y points down: anticlockwise is sweep 0
        large = 1 if abs(turn) > math.pi else 0
        parts.append(
            _static.path(
                f"M{_static.num(x)},{_static.num(y)} "
                f"L{_static.num(x + w * math.cos(start))},{_static.num(y - w * math.sin(start))} "
                f"A{_static.num(w)},{_static.num(w)} 0 {large} {sweep} "
                f"{_static.num(x + w * math.cos(end))},{_static.num(y - w * math.sin(end))} Z",
                ORANGE,
                ' fill-opacity="0.35"',
            )
        )
    for (s, c), colour, width in ends:
        parts.append(
            _static.line(
                x,
                y,
                x + r * c,
                y - r * s,
                colour,
                f' stroke-width="{_static.num(width)}" stroke-linecap="round"',
            )
        )
    return parts


def _positions_picture(data: dict, label: str) -> str:
    """The first state (bars, dot-product curve, dials, legend) as SVG, 340 px wide."""
    L, D, p, k = data["length"], data["width"], data["p"], data["k"]
    q = p + k
    table = np.array(data["table"]).reshape(L, D) / 1000
    dots = np.array(data["dots"]) / 1000
    width = 340.0
    parts, y = _heading(label, width)
    # Bars: sines full, cosines light, one row for p and one for p + k.
    bar = max(4, min(14, 260 // D))
    h = 30.0
    for row, (pos, colour) in enumerate(((p, BLUE), (q, GREEN))):
        y0 = y + h + row * (2 * h + 10)
        parts.append(_static.text(0, y0 + 4, f"p = {p}" if row == 0 else f"p + k = {q}"))
        parts.append(_static.line(72, y0, 72 + D * bar, y0, extra=' stroke-opacity="0.3"'))
        for j in range(D):
            v = float(table[pos, j])
            parts.append(
                _static.rect(
                    72 + j * bar,
                    y0 - v * h if v >= 0 else y0,
                    bar - 1,
                    abs(v) * h,
                    colour,
                    f' fill-opacity="{0.55 if j % 2 else 0.95}"',
                )
            )
    y += 4 * h + 10 + 16
    # The dot product along the offset: faint over every offset, solid where p + k fits.
    plot_w, plot_h, left = width - 50, 120.0, 40.0
    lo, hi = min(0.0, float(dots.min())), float(dots[0])

    def X(off: float) -> float:
        return left + (off + L - 1) / max(2 * L - 2, 1) * plot_w

    def Y(v: float) -> float:
        return y + (hi - v) / ((hi - lo) or 1) * plot_h

    parts.append(_static.text(left, y - 4, "PE(p) \u00b7 PE(p + k), along the offset k"))
    parts.append(_static.line(left, Y(0), left + plot_w, Y(0), extra=' stroke-opacity="0.35"'))
    parts.append(_static.line(X(0), y, X(0), y + plot_h, extra=' stroke-opacity="0.35"'))
    for v in sorted({lo, 0.0, hi}):
        parts.append(_static.text(left - 4, Y(v) + 4, f"{v:.3g}", size=11, anchor="end"))
    for off, anchor in ((-(L - 1), "start"), (0, "middle"), (L - 1, "end")):
        parts.append(_static.text(X(off), y + plot_h + 14, str(off), size=11, anchor=anchor))
    parts.append(_static.text(left + plot_w / 2, y + plot_h + 28, "offset k", anchor="middle"))
    every = [(X(o), Y(dots[abs(o)])) for o in range(-(L - 1), L)]
    parts.append(_static.polyline(every, ORANGE, ' stroke-opacity="0.3" stroke-width="1"'))
    inside = [(X(o), Y(dots[abs(o)])) for o in range(-p, L - p)]
    parts.append(_static.polyline(inside, ORANGE, ' stroke-width="2"'))
    parts.append(_static.circle(X(k), Y(dots[abs(k)]), 4, ORANGE, ' stroke="currentColor"'))
    y += plot_h + 48
    parts.append(
        _static.text(
            0, y, f"PE({p}) \u00b7 PE({q}) = {dots[abs(k)]:.3f}: the same for every p at k = {k}"
        )
    )
    y += 14
    # The dials, four to a row, and their legend.
    r, size = 26.0, 80.0
    for i in range(data["dials"]):
        cx, cy = (i % 4) * (size + 4) + size / 2, y + (i // 4) * 100 + 8 + r
        ends = [
            ((table[p, 2 * i], table[p, 2 * i + 1]), BLUE, 4.0),
            ((table[q, 2 * i], table[q, 2 * i + 1]), GREEN, 2.0),
        ]
        parts.extend(_dial(cx, cy, r, ends, k * data["speeds"][i]))
        parts.append(
            _static.text(cx, cy + r + 16, f"dims {2 * i}, {2 * i + 1}", size=11, anchor="middle")
        )
        parts.append(
            _static.text(cx, cy + r + 30, data["speed_labels"][i], size=11, anchor="middle")
        )
    y += ((data["dials"] + 3) // 4) * 100 + 14
    parts.extend(_static.swatch(0, y, BLUE, f"hand of p = {p}", width=4))
    parts.extend(_static.swatch(170, y, GREEN, f"hand of p + k = {q}"))
    y += 18
    parts.append(_static.rect(0, y - 10, 18, 10, ORANGE, ' fill-opacity="0.35"'))
    parts.append(_static.text(24, y, "turn k\u00b7\u03c9\u1d62 (\u03c9: radians per position)"))
    y += 16
    parts.append(_static.text(0, y, "x = cos, y = sin: anticlockwise from 3 o'clock", size=11))
    return _static.svg(width, y + 6, parts, f"{label}: p = {p}, p + k = {q}")


@explains_bad_calls()
def offset_view(
    scores: Mapping,
    *,
    position: int = 0,
    title: str | None = None,
    link: str | None = None,
) -> HtmlView:
    """Scores of a query at position ``m`` against every key position ``n``, drawn along the
    offset ``n - m``, one curve per entry of ``scores``, with a slider for ``m``.

    Behind the current ``m``'s curves, faint ones for every ``m``: curves that depend on the
    offset alone coincide, the others fan out. Hover (or the offset slider) reads the scores
    at one offset.

    Args:
        scores: ``{name: (L, L) scores}``, row ``m`` and column ``n`` (``queries @ keys.T``
            of one query and one key vector put at every position).
        position: where the slider starts.
        title: a line above the view.
        link: the address of the book's page that shows the view
            (:func:`~course_lib.views.book_page`), named under the picture shown where
            scripts do not run.

    Raises:
        TypeError: scores that are not such a dict.
        ValueError: matrices that are not square or not all of one size.
    """
    if not isinstance(scores, Mapping) or not scores:
        raise TypeError(
            f"scores must be a dict {{name: (L, L) scores}}, got {type_name(scores)}: e.g. "
            "offset_view({'rotary': queries @ keys.T})"
        )
    curves, length = [], None
    for name, matrix in scores.items():
        array = float_array(matrix, f"scores[{name!r}]")
        if array.ndim != 2 or array.shape[0] != array.shape[1]:
            raise ValueError(
                f"scores[{name!r}] must be a square (L, L) matrix, got {tuple(array.shape)}"
            )
        if length is not None and array.shape[0] != length:
            raise ValueError(f"every matrix must be ({length}, {length}), scores[{name!r}] is not")
        if not np.isfinite(array).all():
            raise ValueError(f"scores[{name!r}] holds NaN or inf")
        length = array.shape[0]
        curves.append({"name": str(name), "scores": _milli(array)})
    if not 0 <= position < length:
        raise ValueError(f"position={position} lies outside 0 .. {length - 1}")
    colours = [CURVE_COLOURS[c % len(CURVE_COLOURS)] for c in range(len(curves))]
    data = {
        "title": title or "",
        "length": length,
        "curves": curves,
        "m": int(position),
        "colours": colours,
    }
    label = title or "Scores along the offset"
    picture = _offsets_picture(data, label)
    return build_view("offsets", data, "offsets.js", label, picture=picture, link=link)


def _offsets_picture(data: dict, label: str) -> str:
    """The first state (every m faint, the start's m solid, axes, legend) as SVG."""
    L, m = data["length"], data["m"]
    values = [np.array(c["scores"]).reshape(L, L) / 1000 for c in data["curves"]]
    lo = min(0.0, min(float(v.min()) for v in values))
    hi = max(0.0, max(float(v.max()) for v in values))
    width, left, right, plot_h = 360.0, 44.0, 8.0, 170.0
    plot_w = width - left - right

    def X(off: float) -> float:
        return left + (off + L - 1) / max(2 * L - 2, 1) * plot_w

    def Y(v: float) -> float:
        return top + (hi - v) / ((hi - lo) or 1) * plot_h

    parts, top = _heading(f"{label}: the query at m = {m}", width)
    top += 10
    for v in _static.nice_ticks(lo, hi):
        parts.append(
            _static.line(
                left,
                Y(v),
                left + plot_w,
                Y(v),
                extra=f' stroke-opacity="{0.45 if v == 0 else 0.12}"',
            )
        )
        parts.append(_static.text(left - 4, Y(v) + 4, f"{v:g}", size=11, anchor="end"))
    for off in _static.nice_ticks(-(L - 1), L - 1, 6):
        parts.append(_static.line(X(off), top + plot_h, X(off), top + plot_h + 4))
        parts.append(_static.text(X(off), top + plot_h + 16, f"{off:g}", size=11, anchor="middle"))
    parts.append(_static.line(X(0), top, X(0), top + plot_h, extra=' stroke-opacity="0.3"'))
    parts.append(
        _static.text(left + plot_w / 2, top + plot_h + 30, "offset n \u2212 m", anchor="middle")
    )
    for v, colour in zip(values, data["colours"], strict=True):
        for row in range(L):
            points = [(X(n - row), Y(v[row, n])) for n in range(L)]
            parts.append(_static.polyline(points, colour, ' stroke-opacity="0.15"'))
    for v, colour in zip(values, data["colours"], strict=True):
        points = [(X(n - m), Y(v[m, n])) for n in range(L)]
        parts.append(_static.polyline(points, colour, ' stroke-width="2.2"'))
    y = top + plot_h + 50
    for c, colour in enumerate(data["colours"]):
        name = data["curves"][c]["name"]
        parts.extend(_static.swatch(0, y, colour, f"{name}: {values[c][m, m]:.2f} at offset 0"))
        y += 18
    parts.append(_static.text(0, y, "faint: the same curves for every other m", size=11))
    return _static.svg(width, y + 6, parts, f"{label}: the scores of m = {m} along the offset")
