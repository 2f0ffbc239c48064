"""The picture inside every view: its first state as an SVG image, for places without scripts.

GitHub, a notebook not yet trusted, a sanitized export and a browser without JavaScript drop
the view's script (and often its ``<style>`` and any inline ``<svg>``: JupyterLab's sanitizer
keeps only their text), so the picture is a self-contained SVG document shown as an
``<img>`` with a ``data:`` source (no request), on a white card of its own, its text in
``currentColor`` (black inside an image). The script hides it when the view starts. Same data, same bytes: coordinates are
rounded to one decimal, nothing random.
"""

from __future__ import annotations

import html

import numpy as np

#: The views' accent (weights, the first curve) and a second colour (the second curve, the
#: focused item), as in view.css; both readable on white and on a dark page.
ACCENT = "#d35f00"
SECOND = "#1f6fb8"
FONT = "font-family:system-ui,-apple-system,'Segoe UI',sans-serif"


def num(x: float) -> str:
    """A coordinate, one decimal at most (deterministic text)."""
    text = f"{x:.1f}"
    return text[:-2] if text.endswith(".0") else text


def text(
    x: float,
    y: float,
    words: str,
    *,
    size: int = 12,
    anchor: str = "start",
    rotate: float | None = None,
    extra: str = "",
) -> str:
    """A ``<text>`` in the page's colour."""
    turn = f' transform="rotate({num(rotate)} {num(x)} {num(y)})"' if rotate is not None else ""
    return (
        f'<text x="{num(x)}" y="{num(y)}" font-size="{size}" text-anchor="{anchor}" '
        f'fill="currentColor"{turn}{extra}>{html.escape(words)}</text>'
    )


def rect(x: float, y: float, w: float, h: float, fill: str, extra: str = "") -> str:
    return (
        f'<rect x="{num(x)}" y="{num(y)}" width="{num(w)}" height="{num(h)}" fill="{fill}"{extra}/>'
    )


def line(
    x1: float, y1: float, x2: float, y2: float, stroke: str = "currentColor", extra: str = ""
) -> str:
    return (
        f'<line x1="{num(x1)}" y1="{num(y1)}" x2="{num(x2)}" y2="{num(y2)}" stroke="{stroke}"'
        f"{extra}/>"
    )


#: SVG's namespace, which a standalone SVG document (an image) must declare.
SVG_NS = "http://www.w3.org/2000/svg"
#: The card's margin around the drawing, in px.
PAD = 8


def svg(width: float, height: float, parts: list[str], label: str) -> str:
    """A standalone SVG document of the given size (plus a margin) on a white card;
    :func:`course_lib.views._html.build_view` embeds it as an image."""
    w, h = width + 2 * PAD, height + 2 * PAD
    return (
        f'<svg xmlns="{SVG_NS}" viewBox="0 0 {num(w)} {num(h)}" width="{num(w)}" '
        f'height="{num(h)}" style="{FONT}"><title>{html.escape(label)}</title>'
        f'<rect width="{num(w)}" height="{num(h)}" rx="6" fill="#fff"/>'
        f'<g transform="translate({PAD} {PAD})">' + "".join(parts) + "</g></svg>"
    )


def char_width(words: list[str], size: int = 12) -> float:
    """About how wide the longest of ``words`` is at ``size`` px."""
    return max([len(w) for w in words] + [1]) * size * 0.58


def legend(x: float, y: float, width: float = 120, label: str = "weight") -> list[str]:
    """A colour bar from 0 to 1 in the accent's opacity, with its label."""
    steps = 10
    parts = [text(x, y + 9, label, size=11)]
    left = x + char_width([label], 11) + 6
    for i in range(steps):
        opacity = (i + 0.5) / steps
        parts.append(
            rect(
                left + i * width / steps,
                y,
                width / steps,
                10,
                ACCENT,
                f' fill-opacity="{opacity:.2f}"',
            )
        )
    parts.append(text(left, y + 22, "0", size=10))
    parts.append(text(left + width, y + 22, "1", size=10, anchor="end"))
    return parts


def heatmap(
    values: np.ndarray,
    rows: list[str],
    cols: list[str],
    *,
    heading: str,
    blocked: np.ndarray | None = None,
    label: str,
    value_label: str | None = "weight",
) -> str:
    """A grid of ``values`` in [0, 1] (rows x cols) as accent opacity, row and column labels,
    ``blocked`` cells (True) drawn grey with a stroke, a legend and a heading (wrapped to the
    picture's width). Without ``value_label`` the legend is one swatch, "may attend"."""
    T, S = values.shape
    cell = max(14.0, min(40.0, 300.0 / max(T, S)))
    left = char_width(rows) + 10
    width = max(left + S * cell + 8, 300.0)
    lines = wrap_words(heading, width, 12)
    top = 16 * len(lines) + 6 + char_width(cols) * 0.8 + 8
    height = top + T * cell + 44
    parts = [
        text(0, 14 + 16 * i, words, size=12, extra=' font-weight="600"')
        for i, words in enumerate(lines)
    ]
    for s, word in enumerate(cols):
        x, y = left + s * cell + cell / 2, top - 6
        parts.append(text(x, y, word, size=11, rotate=-50))
    for t, word in enumerate(rows):
        parts.append(text(left - 6, top + t * cell + cell / 2 + 4, word, size=11, anchor="end"))
        for s in range(S):
            x, y = left + s * cell, top + t * cell
            if blocked is not None and blocked[t, s]:
                parts.append(rect(x, y, cell - 1, cell - 1, "currentColor", ' fill-opacity="0.12"'))
                parts.append(
                    line(x + 3, y + 3, x + cell - 4, y + cell - 4, extra=' stroke-opacity="0.45"')
                )
                continue
            parts.append(
                rect(x, y, cell - 1, cell - 1, ACCENT, f' fill-opacity="{float(values[t, s]):.2f}"')
            )
    parts.append(
        rect(
            left - 0.5,
            top - 0.5,
            S * cell,
            T * cell,
            "none",
            ' stroke="currentColor" stroke-opacity="0.3"',
        )
    )
    if value_label is None:
        ly = top + T * cell + 12
        parts.append(rect(left, ly, 10, 10, ACCENT, ' fill-opacity="0.85"'))
        parts.append(text(left + 14, ly + 9, "may attend", size=11))
    else:
        parts.extend(legend(left, top + T * cell + 12, label=value_label))
    if blocked is not None and blocked.any():
        lx = left + 190
        ly = top + T * cell + 12
        parts.append(rect(lx, ly, 10, 10, "currentColor", ' fill-opacity="0.12"'))
        parts.append(text(lx + 14, ly + 9, "blocked by the mask", size=11))
    return svg(width, height, parts, label)


# Curves, dials and axes (the positions and offset views' pictures).


def polyline(points: list[tuple[float, float]], stroke: str, extra: str = "") -> str:
    """An open line through ``points`` in ``stroke``."""
    coords = " ".join(f"{num(x)},{num(y)}" for x, y in points)
    return f'<polyline points="{coords}" fill="none" stroke="{stroke}"{extra}/>'


def circle(cx: float, cy: float, r: float, fill: str = "none", extra: str = "") -> str:
    return f'<circle cx="{num(cx)}" cy="{num(cy)}" r="{num(r)}" fill="{fill}"{extra}/>'


def path(d: str, fill: str = "none", extra: str = "") -> str:
    """A ``<path>`` of the commands ``d`` (written with :func:`num`)."""
    return f'<path d="{d}" fill="{fill}"{extra}/>'


def swatch(x: float, y: float, colour: str, words: str, *, width: float = 3) -> list[str]:
    """A short thick line in ``colour`` and its words in the page's colour (a legend entry:
    the text stays readable on light and dark pages whatever the colour)."""
    return [
        line(x, y - 4, x + 18, y - 4, colour, f' stroke-width="{num(width)}"'),
        text(x + 24, y, words, size=12),
    ]


def nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    """Round values between ``low`` and ``high``, about ``count`` of them (1, 2 or 5 times a
    power of ten apart), for an axis."""
    span = high - low
    if not np.isfinite(span) or span <= 0:
        return [float(low)]
    raw = span / max(count, 1)
    magnitude = 10.0 ** np.floor(np.log10(raw))
    step = next(f * magnitude for f in (1, 2, 5, 10) if f * magnitude >= raw * (1 - 1e-9))
    first = np.ceil(low / step - 1e-9)
    last = np.floor(high / step + 1e-9)
    return [float(round(i * step, 10)) + 0.0 for i in np.arange(first, last + 1)]


def wrap_words(words: str, width: float, size: int = 12) -> list[str]:
    """``words`` broken into lines about ``width`` px wide at ``size`` px (SVG text does
    not wrap by itself)."""
    most = max(1, int(width / (size * 0.58)))
    lines: list[str] = []
    for word in words.split():
        if lines and len(lines[-1]) + 1 + len(word) <= most:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines or [""]
