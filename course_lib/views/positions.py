"""Interactive views of positions: the sinusoidal table as dials, and scores along the offset.

    positions_view(sinusoidal_encoding(32, 16))                 # Chapter 4
    offset_view({"rotary": rotary_scores, "added": added_scores})  # Chapter 7

Both embed their numbers rounded to three decimals (``round(1000 x) / 1000``).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from course_lib._foreign_names import explains_bad_calls
from course_lib._validate_basics import type_name
from course_lib.views._html import HtmlView, build_view
from course_lib.views.attention import float_array

__all__ = ["positions_view", "offset_view"]


def _milli(array: np.ndarray) -> list[int]:
    """``round(1000 x)`` of every entry, row by row: what the views embed."""
    return [int(v) for v in np.rint(array * 1000).reshape(-1)]


@explains_bad_calls()
def positions_view(
    table, *, position: int = 3, offset: int = 2, dials: int = 8, title: str | None = None
) -> HtmlView:
    """Pick a position ``p`` and an offset ``k``: the encodings of ``p`` and ``p + k`` as
    bars, their dot product along every offset, and each sine/cosine pair as a dial.

    Args:
        table: a ``(max_len, d_model)`` sinusoidal table,
            :func:`~course_lib.positional.sinusoidal_encoding`: pair ``i`` is columns
            ``(2i, 2i + 1)`` = (sine, cosine) of ``p * w_i``.
        position, offset: where the sliders start.
        dials: how many pairs to draw as dials (the fastest first).
        title: a line above the view.

    Raises:
        ValueError: a table that is not 2-D with an even width of at least 2, values
            outside [-1, 1], or a start outside the table.
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
    data = {
        "title": title or "",
        "length": length,
        "width": array.shape[1],
        "table": _milli(array),
        "p": int(position),
        "k": int(offset),
        "dials": int(dials),
    }
    return build_view("positions", data, "positions.js", title or "Positions explorer")


@explains_bad_calls()
def offset_view(scores: Mapping, *, position: int = 0, title: str | None = None) -> HtmlView:
    """Scores of a query at position ``m`` against every key position ``n``, drawn along the
    offset ``n - m``, one curve per entry of ``scores``, with a slider for ``m``.

    Args:
        scores: ``{name: (L, L) scores}``, row ``m`` and column ``n`` (``queries @ keys.T``
            of one query and one key vector put at every position).
        position: where the slider starts.
        title: a line above the view.

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
    data = {"title": title or "", "length": length, "curves": curves, "m": int(position)}
    return build_view("offsets", data, "offsets.js", title or "Scores along the offset")
