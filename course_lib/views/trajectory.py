"""An interactive view of a trajectory model's attention over the observed fixes, drawn on
the map of each trajectory (Chapter 6).

    trajectory_view(observed, future, predicted, weights)   # N trajectories, in metres

For each trajectory the map shows the observed fixes (blue dots joined by a line), the true
future (green squares, dashed) and the prediction (red crosses, dotted), in metres east and
north with equal axes, as the chapter's map draws them. For the chosen predicted point the
attention over the fixes is drawn on them: each fix's orange disc grows and darkens with
its weight, a line joins the predicted point to every fix (thicker = more weight), and the
weights are read out, rounded to two decimals. Pickers choose the trajectory, the predicted
point, the layer and the head (or the mean of the heads); hover over a fix, or tab to the
fixes and move with the arrow keys, to read one fix's weight.
"""

from __future__ import annotations

import base64
import math
from collections.abc import Sequence

import numpy as np

from course_lib._foreign_names import explains_bad_calls
from course_lib.views import _static
from course_lib.views._html import HtmlView, build_view
from course_lib.views.attention import SCALE, float_array, probabilities, quantize, text_list

__all__ = ["trajectory_view"]

#: The chapter's colours (matplotlib's tab:blue, tab:green, tab:red) for the observed
#: fixes, the true future and the prediction; the weights in the views' accent.
OBSERVED, FUTURE, PREDICTED = "#1f77b4", "#2ca02c", "#d62728"

#: The map's plot area and margins in SVG units (the view scales it to its width).
PLOT_W, PLOT_H, LEFT, TOP, BOTTOM = 380.0, 300.0, 46.0, 8.0, 36.0

#: How far each row of weights may sum from 1 (float32 softmax sums are within 1e-6).
SUM_TOLERANCE = 1e-3


def _points(value: object, name: str, features_hint: str) -> np.ndarray:
    """``value`` as ``(N, L, 2)`` metres, checked, or an error that names ``name``."""
    array = float_array(value, name)
    if array.ndim == 2 and array.shape[-1] == 2:
        raise ValueError(
            f"{name} has shape {tuple(array.shape)}, one trajectory: the view takes a batch "
            f"(N, length, 2); pass {name}[None] for a single trajectory"
        )
    if array.ndim != 3 or array.shape[-1] != 2 or 0 in array.shape:
        hint = (
            f": [lat, lon, time] fixes? {features_hint}"
            if array.ndim == 3 and array.shape[-1] == 3
            else ""
        )
        raise ValueError(
            f"{name} must be (N, length, 2), metres east and north, got shape "
            f"{tuple(array.shape)}{hint}"
        )
    if not np.isfinite(array).all():
        raise ValueError(f"{name} holds NaN or inf: positions must be finite metres")
    return array


def _weights(weights: object, n: int, steps: int, fixes: int) -> np.ndarray:
    """``weights`` as ``(N, L, Nh, T, S)`` probabilities, checked."""
    if isinstance(weights, dict):
        raise TypeError(
            "weights must be the cross-attention of the model, weights['cross'] of the dict "
            "model(source, need_weights=True) returns (the decoder's look at the observed "
            f"fixes), not the whole dict with the keys {sorted(weights)}"
        )
    if isinstance(weights, Sequence) and not isinstance(weights, str):
        layers = [float_array(w, f"weights[{i}]") for i, w in enumerate(weights)]
        shapes = {a.shape for a in layers}
        if not layers or len(shapes) > 1 or layers[0].ndim != 4:
            raise ValueError(
                "weights as a list must hold one (N, num_heads, T, S) array per layer, as "
                f"weights['cross'] does, got shapes {sorted(shapes)}"
            )
        array = np.stack(layers, axis=1)  # L x (N, Nh, T, S) -> (N, L, Nh, T, S)
    else:
        array = float_array(weights, "weights")
        if array.ndim not in (3, 4, 5):
            raise ValueError(
                "weights must be (N, T, S), (N, num_heads, T, S) or (N, num_layers, "
                f"num_heads, T, S), or a list with one (N, num_heads, T, S) per layer, got "
                f"shape {tuple(array.shape)}"
            )
        array = array.reshape(array.shape[:1] + (1,) * (5 - array.ndim) + array.shape[1:])
    if array.shape[0] != n:
        raise ValueError(
            f"weights covers {array.shape[0]} trajectories but observed has {n}: one row of "
            "weights per trajectory, in the same order"
        )
    if array.shape[-2:] != (steps, fixes):
        swapped = array.shape[-2:] == (fixes, steps) and fixes != steps
        hint = (
            " -- axes swapped? Rows are the predicted points (queries), columns the fixes"
            if swapped
            else ""
        )
        raise ValueError(
            f"weights has shape {tuple(array.shape[-2:])} (T, S) in its last two axes, but "
            f"predicted has T = {steps} points and observed S = {fixes} fixes{hint}"
        )
    probabilities(array, "weights")
    sums = array.sum(axis=-1)
    worst = float(np.abs(sums - 1).max())
    if worst > SUM_TOLERANCE:
        raise ValueError(
            f"weights are not probabilities over the fixes: a row sums to "
            f"{float(sums.flat[np.abs(sums - 1).argmax()]):.4g}; each predicted point's "
            f"weights over the {fixes} observed fixes must sum to 1 (the cross-attention "
            "after the softmax, all of the fixes, no padding)"
        )
    return array


@explains_bad_calls()
def trajectory_view(
    observed,
    future,
    predicted,
    weights,
    *,
    title: str | None = None,
    captions=None,
    labels=None,
    layer_names=None,
    link: str | None = None,
) -> HtmlView:
    """An interactive map of trajectories with a model's attention over the observed fixes.

    Args:
        observed: the observed fixes ``(N, S, 2)``, metres east and north (a tensor or an
            array), for instance of the last fix:
            ``relative_metres(observed, future)`` of :mod:`course_lib.trajectories`.
        future: the true future ``(N, T, 2)`` in the same metres.
        predicted: the model's prediction ``(N, T, 2)`` in the same metres.
        weights: the attention of each predicted point over the observed fixes: the
            cross-attention ``weights["cross"]`` that ``model(source, need_weights=True)``
            returns (a list with one ``(N, num_heads, T, S)`` tensor per layer), or one array
            ``(N, T, S)``, ``(N, num_heads, T, S)`` or ``(N, num_layers, num_heads, T, S)``.
            Each row (a predicted point's weights over the ``S`` fixes) sums to 1.
        title: a line above the view.
        captions: one text per trajectory shown under the pickers (its errors, say).
        labels: the trajectory picker's entries; by default ``trajectory 1``, ...
        layer_names: the layer picker's entries; by default ``layer 1``, ``layer 2``, ...
        link: the address of the book's page that shows the view
            (:func:`~course_lib.views.book_page`), named under the picture shown where
            scripts do not run.

    Returns:
        An :class:`~course_lib.views.HtmlView`: Jupyter and the book show it; ``.save(path)``
        writes a page that opens from disk. Positions are embedded rounded to 0.1 m, the
        weights rounded to two decimals (``round(100 w) / 100``); the mean of the heads is
        the mean of those.

    Raises:
        TypeError: positions or weights that are not numbers; the whole weights dict of a
            model instead of its ``"cross"`` entry; captions or labels given as one string
            for several trajectories.
        ValueError: positions that are not ``(N, length, 2)`` metres (``[lat, lon, time]``
            fixes, one trajectory without its batch axis), different numbers of
            trajectories or of predicted points, weights whose shape does not match the
            points, values outside [0, 1] (scores instead of weights) or rows that do not
            sum to 1, lists of labels or captions of another length.
    """
    hint = "convert them to metres first: relative_metres(observed, future)"
    seen = _points(observed, "observed", hint)
    n, fixes = seen.shape[:2]
    ahead = _points(future, "future", hint)
    guess = _points(predicted, "predicted", "convert the prediction to metres of the last fix")
    for name, array in (("future", ahead), ("predicted", guess)):
        if array.shape[0] != n:
            raise ValueError(
                f"{name} holds {array.shape[0]} trajectories but observed {n}: one each"
            )
    if guess.shape[1] != ahead.shape[1]:
        raise ValueError(
            f"predicted has {guess.shape[1]} points per trajectory but future has "
            f"{ahead.shape[1]}: one prediction per future fix"
        )
    steps = ahead.shape[1]
    w = _weights(weights, n, steps, fixes)
    n_layers, n_heads = w.shape[1:3]
    if layer_names is None:
        layer_names = [f"layer {i + 1}" for i in range(n_layers)]
    labels = text_list(labels, n, "labels", default=None)
    data = {
        "title": title or "",
        "labels": [
            lab if lab is not None else f"trajectory {i + 1}" for i, lab in enumerate(labels)
        ],
        "captions": text_list(captions, n, "captions", default=""),
        "layers": text_list(layer_names, n_layers, "layer_names", default=""),
        "heads": int(n_heads),
        "colors": {"observed": OBSERVED, "future": FUTURE, "predicted": PREDICTED},
        "items": [
            {
                "o": _rounded(seen[i]),
                "f": _rounded(ahead[i]),
                "p": _rounded(guess[i]),
                "w": base64.b64encode(quantize(w[i]).tobytes()).decode("ascii"),
            }
            for i in range(n)
        ],
    }
    label = title or "Attention over the observed fixes, on the map"
    view = build_view(
        "trajectory", data, "trajectory.js", label, picture=_picture(data, label), link=link
    )
    return view


def _rounded(points: np.ndarray) -> list[list[float]]:
    """Positions to 0.1 m, ``-0.0`` written as ``0.0`` (the same data, the same bytes)."""
    return [[round(float(x), 1) + 0.0, round(float(y), 1) + 0.0] for x, y in points]


def frame(points: np.ndarray) -> tuple[float, float, float, float]:
    """The map's equal-axes frame around ``points`` ``(K, 2)``: ``(x0, y0, scale, step)``,
    the lower-left corner in metres, SVG units per metre and the grid's step in metres.
    trajectory.js computes the same."""
    x0, y0 = points.min(axis=0)
    x1, y1 = points.max(axis=0)
    pad = 0.08 * max(x1 - x0, y1 - y0) + 5.0
    x0, y0, x1, y1 = x0 - pad, y0 - pad, x1 + pad, y1 + pad
    scale = min(PLOT_W / (x1 - x0), PLOT_H / (y1 - y0))
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    x0, y0 = cx - PLOT_W / scale / 2, cy - PLOT_H / scale / 2  # equal axes: fill the area
    raw = max(PLOT_W, PLOT_H) / scale / 5
    mag = 10 ** math.floor(math.log10(raw))
    step = mag * next(
        s for limit, s in ((1.5, 1), (3.5, 2), (7.5, 5), (99, 10)) if raw / mag < limit
    )
    return float(x0), float(y0), float(scale), float(step)


def _picture(data: dict, label: str) -> str:
    """The view's first state (first trajectory, predicted point 1, layer 1, mean of the
    heads) as SVG, drawn as trajectory.js draws it."""
    item, heads = data["items"][0], data["heads"]
    seen, ahead, guess = (np.asarray(item[k], dtype=np.float64) for k in ("o", "f", "p"))
    S, T = len(seen), len(ahead)
    q = np.frombuffer(base64.b64decode(item["w"]), dtype=np.uint8) / SCALE
    w = q.reshape(-1, heads, T, S)[0].mean(axis=0)[0]  # layer 1, mean of heads, point 1
    x0, y0, scale, step = frame(np.concatenate([seen, ahead, guess, [[0.0, 0.0]]]))

    top = TOP + 22  # under the heading's line

    def at(p) -> tuple[float, float]:
        return LEFT + (p[0] - x0) * scale, top + PLOT_H - (p[1] - y0) * scale

    heading = [data["labels"][0] if len(data["items"]) > 1 else ""]
    heading += [f"predicted point 1 of {T}", data["layers"][0] if len(data["layers"]) > 1 else ""]
    heading += [f"mean of {heads} heads" if heads > 1 else ""]
    words = " \u00b7 ".join(h for h in heading if h)
    parts = [_static.text(0, 14, words, size=12, extra=' font-weight="600"')]
    parts += _grid(x0, y0, scale, step, top)
    last = seen[-1]
    parts.append(_path([at(p) for p in seen], OBSERVED, ""))
    parts.append(_path([at(p) for p in [last, *ahead]], FUTURE, ' stroke-dasharray="5 3"'))
    parts.append(_path([at(p) for p in [last, *guess]], PREDICTED, ' stroke-dasharray="2 3"'))
    px, py = at(guess[0])
    for s in range(S):
        x, y = at(seen[s])
        parts.append(
            _static.line(
                px,
                py,
                x,
                y,
                _static.ACCENT,
                f' stroke-width="{0.5 + 6 * w[s]:.2f}" stroke-opacity="{max(w[s], 0.08):.2f}"'
                ' stroke-linecap="round"',
            )
        )
    for s in range(S):
        x, y = at(seen[s])
        parts.append(
            _circle(x, y, 4 + 12 * math.sqrt(w[s]), _static.ACCENT, f' fill-opacity="{w[s]:.2f}"')
        )
        parts.append(_circle(x, y, 3.5, OBSERVED, ""))
        parts.append(_static.text(x + 7, y - 6, f"{s + 1}: {w[s]:.2f}", size=11))
    for p in ahead:
        x, y = at(p)
        parts.append(_static.rect(x - 3.5, y - 3.5, 7, 7, FUTURE))
    for t, p in enumerate(guess):
        x, y = at(p)
        parts.append(_cross(x, y, 5 if t else 7))
    parts.extend(_legend(top + PLOT_H + BOTTOM))
    width, height = LEFT + PLOT_W + 10, top + PLOT_H + BOTTOM + 40
    return _static.svg(width, height, parts, f"{label}: {words}, on the map in metres")


def _grid(x0: float, y0: float, scale: float, step: float, top: float) -> list[str]:
    """Faint grid lines every ``step`` metres, their values, and the axes' names."""
    parts = []
    faint = ' stroke-opacity="0.15"'
    for axis, start, length in (("x", x0, PLOT_W), ("y", y0, PLOT_H)):
        v = math.ceil(start / step) * step
        while v <= start + length / scale:
            d = (v - start) * scale
            if axis == "x":
                x = LEFT + d
                parts.append(_static.line(x, top, x, top + PLOT_H, extra=faint))
                parts.append(
                    _static.text(x, top + PLOT_H + 14, f"{round(v):d}", size=10, anchor="middle")
                )
            else:
                y = top + PLOT_H - d
                parts.append(_static.line(LEFT, y, LEFT + PLOT_W, y, extra=faint))
                parts.append(
                    _static.text(LEFT - 4, y + 3.5, f"{round(v):d}", size=10, anchor="end")
                )
            v += step
    parts.append(
        _static.text(LEFT + PLOT_W / 2, top + PLOT_H + 28, "east (m)", size=11, anchor="middle")
    )
    parts.append(
        _static.text(12, top + PLOT_H / 2, "north (m)", size=11, anchor="middle", rotate=-90)
    )
    return parts


def _legend(y: float) -> list[str]:
    """The marks' legend and the weight's colour bar, in one row under the map."""
    parts = [_circle(6, y + 5, 3.5, OBSERVED, ""), _static.text(14, y + 9, "observed", size=11)]
    parts.append(_static.rect(78, y + 1.5, 7, 7, FUTURE))
    parts.append(_static.text(90, y + 9, "true future", size=11))
    parts.append(_cross(172, y + 5, 5))
    parts.append(_static.text(180, y + 9, "predicted", size=11))
    return parts + _static.legend(250, y, width=100, label="weight")


def _circle(x: float, y: float, r: float, fill: str, extra: str) -> str:
    n = _static.num
    return f'<circle cx="{n(x)}" cy="{n(y)}" r="{n(r)}" fill="{fill}"{extra}/>'


def _path(points: list[tuple[float, float]], stroke: str, extra: str) -> str:
    text = " ".join(f"{_static.num(x)},{_static.num(y)}" for x, y in points)
    return f'<polyline points="{text}" fill="none" stroke="{stroke}" stroke-width="1.5"{extra}/>'


def _cross(x: float, y: float, r: float) -> str:
    n = _static.num
    return (
        f'<path d="M{n(x - r)} {n(y - r)}L{n(x + r)} {n(y + r)}M{n(x - r)} {n(y + r)}'
        f'L{n(x + r)} {n(y - r)}" stroke="{PREDICTED}" stroke-width="2"/>'
    )
