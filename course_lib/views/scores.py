"""An interactive view of scaled dot-product attention for one query, step by step.

    score_view(query[0], key[0], mask=mask[0])    # Chapter 2b: one sequence, one head

Pick a query (hover, click, or tab to the query row and use the arrow keys): the view shows
its vector ``q`` beside every key ``k``, the products ``q_i k_i`` and their sum ``q . k``,
the division by ``sqrt(d)`` (the score), the mask (a blocked key's score becomes ``-inf``
and the key reads "blocked", never "0.0000"), then the softmax: ``exp`` of every score and
the division by their sum, the weights, which add up to 1.

The numbers are the library's: :func:`~course_lib.attention.scaled_dot_product_attention`
computes the weights in float64 from the given tensors' values, and the scores are the same
expression it evaluates. The view embeds them rounded (the weights to 12 decimals, the rest
to 11 significant digits: the same bytes on every machine, whatever its last bits) and shows
them rounded to 3 or 4 decimals.
"""

from __future__ import annotations

import math

import numpy as np
import torch

from course_lib._foreign_names import explains_bad_calls
from course_lib._validate_basics import type_name
from course_lib.attention import scaled_dot_product_attention
from course_lib.views import _static
from course_lib.views._html import HtmlView, build_view, check_budget
from course_lib.views.attention import float_array, token_list

__all__ = ["score_view"]

#: Up to this width the vectors' entries are written out; wider ones are drawn as bars only.
NUMBERS_UP_TO = 12

#: ``exp`` is taken of the scores as they are while the largest allowed score is at most
#: this; above it, of ``score - max`` (the softmax is the same, and ``exp`` cannot overflow).
SHIFT_ABOVE = 80.0

MINUS = "\u2212"

#: The weights are embedded rounded to this many decimals (within 5e-13 of the library's
#: float64 values), q.k, the scores and exp to ``DIGITS`` significant digits: free of the
#: last bits that differ between machines (BLAS, exp), so the bytes are the same everywhere.
DECIMALS = 12
DIGITS = 11

#: The arrays the view embeds, besides ``blocked``.
NAMES = ("q", "k", "dots", "scores", "exps", "weights", "shift")


def _one_sequence(array: np.ndarray, name: str, rows: str) -> np.ndarray:
    """``(n, d)`` or ``(1, n, d)`` -> ``(n, d)``, or a ValueError in the user's words."""
    if array.ndim == 3 and array.shape[0] == 1:
        array = array[0]
    if array.ndim != 2:
        hint = (
            f": one sequence of a batch is {name}[b]"
            if array.ndim == 3
            else f": one head of a (B, num_heads, {rows}, d) tensor is {name}[b, h]"
            if array.ndim == 4
            else ""
        )
        raise ValueError(
            f"{name} must be ({rows}, d) for one sequence and one head (or (1, {rows}, d)), "
            f"got shape {tuple(array.shape)}{hint}"
        )
    if 0 in array.shape:
        raise ValueError(f"{name} is empty, shape {tuple(array.shape)}: give at least one row")
    if not np.isfinite(array).all():
        raise ValueError(f"{name} holds NaN or inf: the view shows finite vectors")
    return array


def _blocked(mask: object, T: int, S: int) -> np.ndarray:
    """The boolean mask (True = blocked) as a ``(T, S)`` array, checked."""
    if isinstance(mask, torch.Tensor):
        if mask.dtype != torch.bool:
            raise TypeError(
                f"mask must be boolean (True = blocked), got a {mask.dtype} tensor: build it "
                "with course_lib.masking (causal_mask, padding_mask), or pass mask == 1 if "
                "1 marks a blocked key"
            )
        array = mask.detach().cpu().numpy()
    else:
        array = np.asarray(mask)
        if array.dtype != np.bool_:
            raise TypeError(
                f"mask must be boolean (True = blocked), got {type_name(mask)} of {array.dtype}"
            )
    shape = tuple(array.shape)
    while array.ndim > 2 and array.shape[0] == 1:
        array = array[0]
    if array.ndim == 1:
        array = array[None, :]
    if array.ndim != 2 or array.shape[1] != S or array.shape[0] not in (1, T):
        raise ValueError(
            f"mask must be (T, S) = ({T}, {S}), or (1, S) or (S,) for the same keys in every "
            f"row, got shape {shape}: one sequence's mask, e.g. mask[b]"
        )
    array = np.broadcast_to(array, (T, S)).copy()
    empty = np.flatnonzero(array.all(axis=1))
    if empty.size:
        raise ValueError(
            f"mask blocks every key of query {int(empty[0]) + 1} (row {int(empty[0])}): its "
            "softmax has nothing to share (the library gives it all-zero weights), so there "
            "is no score to show. Polarity? course_lib's masks are True = blocked"
        )
    return array


def _tokens(tokens, n: int, name: str, default: str) -> list[str]:
    if tokens is None:
        return [f"{default}{i + 1}" for i in range(n)]
    words = token_list(tokens, name)
    if len(words) != n:
        raise ValueError(f"{name} has {len(words)} tokens but there are {n} rows: one each")
    return words


def pipeline(queries, keys, mask=None) -> dict:
    """The numbers the view shows, all float64 ``numpy`` arrays computed by the library:
    ``q`` (T, d), ``k`` (S, d), ``dots`` = ``q @ k.T`` (T, S), ``scores`` = ``dots * (1 /
    sqrt(d))`` as :func:`~course_lib.attention.scaled_dot_product_attention` scales them,
    ``blocked`` (T, S) bool, ``shift`` (T,), ``exps`` = ``exp(score - shift)`` (0 where
    blocked), ``weights`` (T, S): the library's. ``queries``, ``keys`` and ``mask`` as in
    :func:`score_view` (already checked there)."""
    q = torch.from_numpy(queries)
    k = torch.from_numpy(keys)
    T, d = q.shape
    S = k.shape[0]
    blocked = np.zeros((T, S), dtype=bool) if mask is None else mask
    attn_mask = None if mask is None else torch.from_numpy(blocked)
    scale = 1.0 / math.sqrt(d)  # the library's default scale
    dots = q @ k.transpose(-2, -1)  # (T, d) @ (d, S) -> (T, S)
    scores = dots * scale  # the expression scaled_dot_product_attention evaluates
    _, weights = scaled_dot_product_attention(
        q[None], k[None], k[None], attn_mask=None if attn_mask is None else attn_mask[None]
    )  # (1, T, S)
    scores_np = scores.numpy()
    allowed = np.where(blocked, -np.inf, scores_np)
    top = allowed.max(axis=1)
    shift = np.where(top > SHIFT_ABOVE, top, 0.0)
    exps = np.where(blocked, 0.0, np.exp(np.where(blocked, 0.0, scores_np - shift[:, None])))
    return {
        "q": queries,
        "k": keys,
        "dots": dots.numpy(),
        "scores": scores_np,
        "blocked": blocked,
        "shift": shift,
        "exps": exps,
        "weights": weights[0].numpy(),
    }


@explains_bad_calls()
def score_view(
    queries,
    keys,
    *,
    mask=None,
    query_tokens=None,
    key_tokens=None,
    title: str | None = None,
    link: str | None = None,
) -> HtmlView:
    """Scaled dot-product attention for one query at a time, step by step: ``q`` and each
    ``k``, the products summed to ``q . k``, the division by ``sqrt(d)``, the mask, the
    softmax.

    Args:
        queries: ``(T, d)`` queries of one sequence and one head (``(1, T, d)`` too), a
            tensor or an array.
        keys: ``(S, d)`` keys of the same width ``d`` (``(1, S, d)`` too).
        mask: boolean, True = blocked (the library's polarity): ``(T, S)``, or ``(1, S)`` or
            ``(S,)`` for the same keys in every row (a key padding mask); leading axes of
            size 1 are dropped. A blocked key's score becomes ``-inf`` and it reads
            "blocked". Every query must keep at least one key.
        query_tokens: ``T`` labels of the queries; by default ``q1 .. qT``.
        key_tokens: ``S`` labels of the keys; by default ``k1 .. kS``.
        title: a line above the view.
        link: the address of the book's page that shows the view
            (:func:`~course_lib.views.book_page`), named under the picture shown where
            scripts do not run.

    Returns:
        An :class:`~course_lib.views.HtmlView`. Its numbers are computed in float64 from the
        given tensors' values by :func:`~course_lib.attention.scaled_dot_product_attention`
        (the weights) and by the expression it evaluates (``q @ k.T * (1 / sqrt(d))``, the
        scores), embedded rounded (the weights to 12 decimals, within 5e-13 of the library's;
        ``q . k``, the scores and ``exp`` to 11 significant digits; the vectors exactly as
        given), so that a machine's last bits (BLAS, exp) all but never change the bytes, and shown rounded: the
        entries of the vectors and their products to 3 decimals, ``q . k``, the
        scores, ``exp`` and the weights to 4. A float32 model computes the same numbers to
        about 1e-7.

    Raises:
        TypeError: vectors that are not numbers, a mask that is not boolean, tokens given
            as one string.
        ValueError: vectors that are not ``(T, d)`` and ``(S, d)`` of one width, a batch or
            several heads, NaN or inf, a mask of another shape, a mask that blocks every key
            of some query, token lists of the wrong length.
    """
    q = _one_sequence(float_array(queries, "queries"), "queries", "T")
    k = _one_sequence(float_array(keys, "keys"), "keys", "S")
    if q.shape[1] != k.shape[1]:
        raise ValueError(
            f"queries have width d = {q.shape[1]} but keys {k.shape[1]}: a dot product needs "
            "the same width (additive attention compares different widths)"
        )
    (T, d), S = q.shape, k.shape[0]
    blocked = None if mask is None else _blocked(mask, T, S)
    numbers = pipeline(np.ascontiguousarray(q), np.ascontiguousarray(k), blocked)
    data = {
        "title": title or "",
        "queries": _tokens(query_tokens, T, "query_tokens", "q"),
        "keys": _tokens(key_tokens, S, "key_tokens", "k"),
        "d": int(d),
        "masked": blocked is not None,
        "numbers": d <= NUMBERS_UP_TO,
        "q": np.asarray(q, dtype=np.float64).tolist(),  # the values given, exactly
        "k": np.asarray(k, dtype=np.float64).tolist(),
        **{name: _rounded(numbers[name]) for name in ("dots", "scores", "exps", "shift")},
        "weights": _rounded(numbers["weights"], weights=True),
        "blocked": ["".join("1" if b else "0" for b in row) for row in numbers["blocked"]],
    }
    label = title or "Scaled dot-product attention, step by step"
    picture = _picture(data, label)
    return check_budget(
        build_view("scores", data, "scores.js", label, picture=picture, link=link),
        "this score view",
        "show fewer queries or keys, or narrower vectors",
    )


def _rounded(array: np.ndarray, weights: bool = False) -> list:
    """Nested lists of the values rounded, weights to ``DECIMALS`` places and the rest to
    ``DIGITS`` significant digits (JSON writes each as its shortest round-trip decimal)."""

    def one(value: float) -> float:
        return round(value, DECIMALS) if weights else float(f"{value:.{DIGITS}g}")

    return np.vectorize(one, otypes=[float])(np.asarray(array, dtype=np.float64)).tolist()


def shown(value: float, decimals: int) -> str:
    """A number as the view writes it: fixed decimals, a true minus sign."""
    return f"{value:.{decimals}f}".replace("-", MINUS)


def shown_exp(value: float) -> str:
    """``exp`` as the view writes it: 4 decimals, or 4 significant digits past 1e5."""
    return f"{value:.3e}".replace("-", MINUS) if value >= 1e5 else shown(value, 4)


def _picture(data: dict, label: str) -> str:
    """The first query's pipeline as SVG: a label column and one column per key."""
    numbers = {name: np.asarray(data[name]) for name in NAMES}
    numbers["blocked"] = np.array([[c == "1" for c in row] for row in data["blocked"]])
    t, d = 0, data["d"]
    keys, query = data["keys"], data["queries"][0]
    q, k = numbers["q"][t], numbers["k"]
    blocked = numbers["blocked"][t]
    with_numbers = data["numbers"]
    col = max(72.0, _static.char_width(keys, 12) + 12)
    first = 60.0
    width = first + len(keys) * col
    vec_h = d * 15.0 if with_numbers else 34.0
    parts: list[str] = []
    y = 16.0
    head = f"query {query} ({t + 1} of {len(data['queries'])}): the score step by step"
    parts.append(_static.text(0, y, head, size=12, extra=' font-weight="600"'))
    y += 20
    parts.append(_static.text(first / 2, y, "q", size=12, anchor="middle"))
    for s, word in enumerate(keys):
        parts.append(_static.text(first + s * col + col / 2, y, word, size=12, anchor="middle"))
    y += 6
    scale_all = float(np.abs(np.concatenate([q[None], k])).max()) or 1.0

    def step(words: str) -> None:
        nonlocal y
        y += 16
        parts.append(_static.text(0, y, words, size=11, extra=' font-weight="600"'))
        y += 4

    def vector(x: float, values: np.ndarray, scale: float, wide: float = col) -> None:
        for i, v in enumerate(values):
            if with_numbers:
                yy = y + i * 15
                bar = 8 * abs(float(v)) / scale
                colour = _static.ACCENT if v >= 0 else _static.SECOND
                parts.append(
                    _static.rect(x + 2 + (8 if v >= 0 else 8 - bar), yy + 3, bar, 8, colour)
                )
                parts.append(
                    _static.text(x + wide - 4, yy + 11, shown(float(v), 3), size=11, anchor="end")
                )
            else:
                w = (wide - 8) / d
                h = 14 * abs(float(v)) / scale
                colour = _static.ACCENT if v >= 0 else _static.SECOND
                parts.append(
                    _static.rect(x + 4 + i * w, y + (17 - h if v >= 0 else 17), w, h, colour)
                )

    def row(name: str, cells: list[str], height: float = 16.0) -> None:
        nonlocal y
        y += height
        parts.append(_static.text(4, y - 4, name, size=11))
        for s, words in enumerate(cells):
            x = first + s * col
            if blocked[s] and words in ("blocked", f"{MINUS}\u221e", "0"):
                parts.append(
                    _static.rect(
                        x + 2,
                        y - height + 2,
                        col - 4,
                        height - 2,
                        "currentColor",
                        ' fill-opacity="0.12"',
                    )
                )
            parts.append(_static.text(x + col - 4, y - 4, words, size=11, anchor="end"))

    step(f"1 \u00b7 the query q and each key k (d = {d})")
    vector(0.0, q, scale_all, first)
    for s in range(len(keys)):
        vector(first + s * col, k[s], scale_all)
    y += vec_h
    step("2 \u00b7 multiply entry by entry, add up: q\u00b7k = \u03a3 q\u1d62k\u1d62")
    products = q[None, :] * k
    vector_scale = float(np.abs(products).max()) or 1.0
    parts.append(_static.text(4, y + 11, "q\u1d62k\u1d62", size=11))
    for s in range(len(keys)):
        vector(first + s * col, products[s], vector_scale)
    y += vec_h
    row("q\u00b7k", [shown(float(v), 4) for v in numbers["dots"][t]])
    step(f"3 \u00b7 divide by \u221ad = {shown(math.sqrt(d), 4)}: the score")
    row("score", [shown(float(v), 4) for v in numbers["scores"][t]])
    if data["masked"]:
        step(f"4 \u00b7 the mask: a blocked key's score becomes {MINUS}\u221e")
        row("mask", ["blocked" if b else "allowed" for b in blocked])
        row(
            "score",
            [
                f"{MINUS}\u221e" if b else shown(float(v), 4)
                for b, v in zip(blocked, numbers["scores"][t], strict=True)
            ],
        )
    else:
        step("4 \u00b7 no mask: every key takes part")
    exps, shift = numbers["exps"][t], float(numbers["shift"][t])
    total = float(exps.sum())
    step(f"5 \u00b7 softmax: exp, then divide by the sum {shown_exp(total)}")
    name = "exp" if shift == 0 else f"exp({MINUS}{shown(shift, 1)})"
    row(name, ["0" if b else shown_exp(float(v)) for b, v in zip(blocked, exps, strict=True)])
    weights = numbers["weights"][t]
    y += 4
    for s, w in enumerate(weights):
        if not blocked[s]:
            parts.append(
                _static.rect(first + s * col + 4, y + 2, (col - 8) * float(w), 6, _static.ACCENT)
            )
    y += 6
    row(
        "weight",
        ["blocked" if b else shown(float(w), 4) for b, w in zip(blocked, weights, strict=True)],
    )
    y += 18
    parts.append(
        _static.text(0, y, f"the weights add up to {shown(float(weights.sum()), 4)}", size=11)
    )
    y += 8
    return _static.svg(width, y, parts, f"{label}: {head}")
