"""An interactive view of attention weights: which keys each query looks at, per layer and
head, for one sentence or several.

    attention_view(weights, queries, keys)           # one sentence
    attention_view([w1, w2], [q1, q2], [k1, k2])     # several: a picker chooses

Hover over a query token (or tab to it) and its row of the grid is outlined, its weights are
drawn as lines to the keys (thicker = more weight) and read out, rounded to two decimals.
Pickers switch the layer, the head (or the mean of the heads) and the sentence.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence

import numpy as np
import torch

from course_lib._foreign_names import explains_bad_calls
from course_lib._validate_basics import type_name
from course_lib.views import _static
from course_lib.views._html import HtmlView, build_view, check_budget

__all__ = ["attention_view", "encoder_decoder_view", "quantize"]

#: Weights travel as bytes: round(SCALE * w), shown as that over SCALE (two decimals).
SCALE = 100


@explains_bad_calls()
def quantize(weights: np.ndarray) -> np.ndarray:
    """``round(100 * w)`` as bytes: what a view embeds for weights in [0, 1]."""
    return np.rint(np.clip(weights, 0.0, 1.0) * SCALE).astype(np.uint8)


def token_list(tokens: object, name: str) -> list[str]:
    """``tokens`` as a list of strings, one per row or column of the weights (the views of
    this package share it), or an error that names ``name``: a string, ids or nothing."""
    if isinstance(tokens, str):
        raise TypeError(
            f"{name} must be a list of tokens, got the string {tokens[:40]!r}: pass "
            f"{name}={tokens[:20]!r}.split() (one token per row or column of the weights)"
        )
    if isinstance(tokens, torch.Tensor) or not isinstance(tokens, Sequence):
        raise TypeError(
            f"{name} must be a list of tokens (strings), got {type_name(tokens)}: turn ids "
            f"into words first, e.g. vocab.words[i] for each id"
        )
    words = list(tokens)
    if not words:
        raise ValueError(f"{name} is empty: give one token per row or column of the weights")
    return [str(word) for word in words]


def float_array(weights: object, where: str) -> np.ndarray:
    """``weights`` (a tensor, an array, nested lists) as a float64 array on the CPU, or a
    TypeError that names ``where`` (the views of this package share it)."""
    if isinstance(weights, torch.Tensor):
        weights = weights.detach().to("cpu", torch.float64).numpy()
    try:
        array = np.asarray(weights, dtype=np.float64)
    except (TypeError, ValueError) as err:
        raise TypeError(
            f"{where} must be numbers (a tensor or an array), got {type_name(weights)}"
        ) from err
    return array


def _layers_heads(weights: object, where: str, n_queries: int, n_keys: int) -> np.ndarray:
    """``weights`` of one sentence as ``(L, H, T, S)`` floats, checked."""
    array = float_array(weights, where)
    if array.ndim not in (2, 3, 4):
        raise ValueError(
            f"{where} must be (T, S), (num_heads, T, S) or (num_layers, num_heads, T, S) for "
            f"one sentence, got shape {tuple(array.shape)}; for a batch, pass one sentence's "
            "weights, weights[i], or a list of them with a list of token lists"
        )
    array = array.reshape((1,) * (4 - array.ndim) + array.shape)  # -> (L, H, T, S)
    if array.shape[-2:] != (n_queries, n_keys):
        swapped = array.shape[-2:] == (n_keys, n_queries) and n_keys != n_queries
        hint = (
            " -- queries and keys swapped? Rows are queries, columns keys"
            if swapped
            else ": a sentence's weights must be cut to its own tokens (no padding columns)"
        )
        raise ValueError(
            f"{where} has shape {tuple(array.shape[-2:])} (T, S) in its last two axes, but "
            f"there are {n_queries} query tokens and {n_keys} key tokens{hint}"
        )
    return probabilities(array, where)


def probabilities(array: np.ndarray, where: str) -> np.ndarray:
    """``array`` when its values are weights in [0, 1], or a ValueError that names ``where``
    (the views of this package share it)."""
    if not np.isfinite(array).all():
        raise ValueError(f"{where} holds NaN or inf: attention weights are probabilities")
    low, high = float(array.min()), float(array.max())
    if low < -1e-4 or high > 1 + 1e-4:
        raise ValueError(
            f"{where} holds values in [{low:.3g}, {high:.3g}], outside [0, 1]: pass the "
            "attention weights (after the softmax), not the scores"
        )
    return array


@explains_bad_calls()
def attention_view(
    weights,
    queries,
    keys=None,
    *,
    title: str | None = None,
    captions=None,
    labels=None,
    layer_names=None,
    link: str | None = None,
) -> HtmlView:
    """An interactive grid-and-lines view of attention weights.

    Args:
        weights: one sentence's weights, ``(T, S)``, ``(num_heads, T, S)`` or
            ``(num_layers, num_heads, T, S)`` (a tensor or an array, each row a query's
            weights over the keys); or a list of such, one per sentence, when ``queries``
            is a list of token lists. Every sentence has the same numbers of layers and heads.
        queries: the ``T`` query tokens (strings), or one list per sentence.
        keys: the ``S`` key tokens; by default the queries (self-attention).
        title: a line above the view.
        captions: one text per sentence shown under the pickers (the model's translation
            and the reference, say); a string for one sentence.
        labels: the sentence picker's entries; by default the first words of the queries.
        layer_names: the layer picker's entries; by default ``layer 1``, ``layer 2``, ...
        link: the address of the book's page that shows the view
            (:func:`~course_lib.views.book_page`), named under the picture shown where
            scripts do not run.

    Returns:
        An :class:`~course_lib.views.HtmlView`: Jupyter and the book show it; ``.save(path)``
        writes a page that opens from disk. The weights are embedded rounded to two decimals
        (``round(100 w) / 100``); the mean of the heads is the mean of those.

    Raises:
        TypeError: tokens given as one string or as ids; weights that are not numbers.
        ValueError: weights whose last two axes do not match the tokens, values outside
            [0, 1] (scores instead of weights), sentences with different numbers of layers
            or heads, or lists of different lengths.
    """
    several = (
        isinstance(queries, Sequence)
        and not isinstance(queries, str)
        and len(queries) > 0
        and all(isinstance(q, Sequence) and not isinstance(q, str) for q in queries)
    )
    if several:
        n = len(queries)
        if isinstance(weights, (torch.Tensor, np.ndarray)) or not isinstance(weights, Sequence):
            raise TypeError(
                f"queries holds {n} sentences, so weights must be a list of {n} arrays, one "
                f"per sentence (each cut to its own tokens), got {type_name(weights)}"
            )
        keys = queries if keys is None else keys
        for name, value in (("weights", weights), ("keys", keys)):
            if len(value) != n:
                raise ValueError(
                    f"{name} has {len(value)} entries but queries has {n} sentences: give one "
                    "per sentence"
                )
        query_lists = [token_list(q, f"queries[{i}]") for i, q in enumerate(queries)]
        key_lists = [token_list(k, f"keys[{i}]") for i, k in enumerate(keys)]
        arrays = [
            _layers_heads(w, f"weights[{i}]", len(q), len(k))
            for i, (w, q, k) in enumerate(zip(weights, query_lists, key_lists, strict=True))
        ]
    else:
        query_lists = [token_list(queries, "queries")]
        key_lists = [query_lists[0] if keys is None else token_list(keys, "keys")]
        arrays = [_layers_heads(weights, "weights", len(query_lists[0]), len(key_lists[0]))]
        n = 1
    captions = text_list(captions, n, "captions", default="")
    labels = _sentence_labels(labels, query_lists)
    kind = _kind("", arrays, query_lists, key_lists, layer_names, "weights")
    return _view([kind], labels, captions, title, "Attention weights, queries by keys", link)


#: The kinds of attention of an encoder-decoder, as its ``need_weights=True`` dict names
#: them: (name in the picker, queries' side, keys' side).
KINDS = {
    "encoder": ("encoder self-attention", "src", "src"),
    "self": ("decoder self-attention", "out", "tgt"),
    "cross": ("cross-attention", "out", "src"),
}


@explains_bad_calls()
def encoder_decoder_view(
    weights,
    src_tokens,
    tgt_tokens,
    *,
    out_tokens=None,
    title: str | None = None,
    captions=None,
    labels=None,
    link: str | None = None,
) -> HtmlView:
    """An attention view of an encoder-decoder's three kinds of attention, for a batch.

    Args:
        weights: what ``model(src, tgt_in, need_weights=True)`` returns beside its output:
            ``{"encoder": [...], "self": [...], "cross": [...]}`` (any of the three), one
            ``(B, num_heads, ., .)`` tensor per layer.
        src_tokens: ``B`` lists of source tokens, each as long as its sentence (its padding
            columns are cut off).
        tgt_tokens: ``B`` lists of the decoder's input tokens (``<sos> y1 ...``), likewise.
        out_tokens: ``B`` lists of the words each decoder position writes (``y1 ... <eos>``),
            as long as ``tgt_tokens``: they label the decoder's queries, so a row reads
            "the word written, and what it looked at". By default the input tokens.
        title, captions, labels, link: as in :func:`attention_view`.

    Returns:
        An :class:`~course_lib.views.HtmlView` with an *Attention* picker (encoder
        self-attention, decoder self-attention, cross-attention) beside the sentence, layer
        and head pickers.

    Raises:
        TypeError: weights that are not such a dict, tokens given as strings.
        ValueError: a kind not among ``"encoder"``, ``"self"``, ``"cross"``; token lists of
            another batch size or longer than the weights.
    """
    if not isinstance(weights, Mapping) or not weights:
        raise TypeError(
            f"weights must be the dict model(src, tgt_in, need_weights=True) returns, "
            f'{{"encoder": [...], "self": [...], "cross": [...]}}, got {type_name(weights)}'
        )
    unknown = sorted(set(weights) - set(KINDS), key=str)
    if unknown:
        raise ValueError(
            f"weights has the key(s) {unknown}; an encoder-decoder's kinds are {list(KINDS)}"
        )
    for name, side in (("src_tokens", src_tokens), ("tgt_tokens", tgt_tokens)):
        if isinstance(side, str) or not isinstance(side, Sequence) or not side:
            raise TypeError(f"{name} must be a list of token lists, one per sentence")
    sides = {
        key: [token_list(t, f"{name}[{b}]") for b, t in enumerate(side)]
        for key, name, side in (
            ("src", "src_tokens", src_tokens),
            ("tgt", "tgt_tokens", tgt_tokens),
        )
    }
    if out_tokens is None:
        sides["out"] = sides["tgt"]
    else:
        if isinstance(out_tokens, str) or not isinstance(out_tokens, Sequence):
            raise TypeError("out_tokens must be a list of token lists, one per sentence")
        sides["out"] = [token_list(t, f"out_tokens[{b}]") for b, t in enumerate(out_tokens)]
        lengths = [len(t) for t in sides["tgt"]], [len(t) for t in sides["out"]]
        if lengths[0] != lengths[1]:
            raise ValueError(
                "out_tokens must match tgt_tokens sentence by sentence, one written word per "
                f"decoder input: lengths {lengths[1]} against {lengths[0]}"
            )
    n = len(sides["src"])
    if len(sides["tgt"]) != n:
        raise ValueError(
            f"src_tokens has {n} sentences but tgt_tokens {len(sides['tgt'])}: one each"
        )
    kinds = []
    for key in KINDS:
        if key not in weights:
            continue
        name, q_side, k_side = KINDS[key]
        layers = weights[key]
        if isinstance(layers, (torch.Tensor, np.ndarray)) or not isinstance(layers, Sequence):
            raise TypeError(
                f'weights["{key}"] must be a list with one (B, num_heads, ., .) tensor per '
                f"layer, got {type_name(layers)}"
            )
        stacked = float_array(list(layers), f'weights["{key}"]')  # (L, B, Nh, Tq, Tk)
        if stacked.ndim != 5 or stacked.shape[1] != n:
            raise ValueError(
                f'weights["{key}"] stacks to {tuple(stacked.shape)}, expected (num_layers, '
                f"B={n}, num_heads, ., .): one tensor per layer, for the {n} sentences of "
                "src_tokens"
            )
        queries, keys = sides[q_side], sides[k_side]
        arrays = []
        for b in range(n):
            tq, tk = len(queries[b]), len(keys[b])
            if tq > stacked.shape[3] or tk > stacked.shape[4]:
                raise ValueError(
                    f'sentence {b} has {tq} query and {tk} key tokens but weights["{key}"] '
                    f"covers {stacked.shape[3]} x {stacked.shape[4]}: tokens of another batch?"
                )
            where = f'weights["{key}"], sentence {b}'
            arrays.append(_layers_heads(stacked[:, b, :, :tq, :tk], where, tq, tk))
        kinds.append(_kind(name, arrays, queries, keys, None, f'weights["{key}"]'))
        kinds[-1]["causal"] = key == "self"  # the decoder's row t may not see keys after t
    captions = text_list(captions, n, "captions", default="")
    labels = _sentence_labels(labels, sides["src"])
    return _view(kinds, labels, captions, title, "Attention of an encoder-decoder", link)


def _sentence_labels(labels, token_lists: list[list[str]]) -> list[str]:
    given = text_list(labels, len(token_lists), "labels", default=None)
    return [
        label if label is not None else f"{i + 1}: {' '.join(tokens)[:40]}"
        for i, (label, tokens) in enumerate(zip(given, token_lists, strict=True))
    ]


def _kind(name, arrays, queries, keys, layer_names, where: str) -> dict:
    """One kind of attention: its layers' names, heads and per-sentence weights."""
    shapes = {a.shape[:2] for a in arrays}
    if len(shapes) > 1:
        raise ValueError(
            f"every sentence of {where} needs the same (num_layers, num_heads), got "
            f"{sorted(shapes)}"
        )
    n_layers, n_heads = arrays[0].shape[:2]
    if layer_names is None:
        layer_names = [f"layer {i + 1}" for i in range(n_layers)]
    return {
        "name": name,
        "layers": text_list(layer_names, n_layers, "layer_names", default=""),
        "heads": int(n_heads),
        "items": [
            {
                "queries": q,
                "keys": k,
                "w": base64.b64encode(quantize(a).tobytes()).decode("ascii"),
            }
            for q, k, a in zip(queries, keys, arrays, strict=True)
        ],
    }


def _picture(kinds: list[dict], labels: list[str], label: str) -> str:
    """The view's first state (first kind, sentence and layer; the mean of the heads) as SVG."""
    kind, item = kinds[0], kinds[0]["items"][0]
    T, S, H = len(item["queries"]), len(item["keys"]), kind["heads"]
    w = np.frombuffer(base64.b64decode(item["w"]), dtype=np.uint8) / SCALE
    w = w.reshape(-1, H, T, S)[0].mean(axis=0)  # (H, T, S) of layer 1 -> (T, S)
    blocked = np.triu(np.ones((T, S), dtype=bool), 1) if kind.get("causal") else None
    parts = [kind["name"], kind["layers"][0] if len(kind["layers"]) > 1 else ""]
    parts += [f"mean of {H} heads" if H > 1 else "", labels[0] if len(labels) > 1 else ""]
    heading = " \u00b7 ".join(p for p in parts if p) or label
    return _static.heatmap(
        w,
        item["queries"],
        item["keys"],
        heading=heading,
        blocked=blocked,
        label=f"{label}: {heading}, queries by keys",
    )


def _view(
    kinds: list[dict], labels, captions, title, default_label: str, link: str | None = None
) -> HtmlView:
    data = {
        "title": title or "",
        "labels": labels,
        "captions": captions,
        "kinds": kinds,
        "kind": 0,
        "layer": 0,
        "head": -1 if kinds[0]["heads"] > 1 else 0,
    }
    label = title or default_label
    picture = _picture(kinds, labels, label)
    return check_budget(
        build_view("attention", data, "attention.js", label, picture=picture, link=link),
        "this attention view",
        "show fewer sentences or shorter ones",
    )


def text_list(values, n: int, name: str, default) -> list:
    """``n`` strings (or ``default`` each when ``values`` is None); one string for n = 1."""
    if values is None:
        return [default] * n
    if isinstance(values, str):
        if n == 1:
            return [values]
        raise TypeError(f"{name} must be a list of {n} strings (one per entry), got one string")
    values = list(values)
    if len(values) != n:
        raise ValueError(f"{name} has {len(values)} entries, expected {n} (one per entry)")
    return [str(v) for v in values]
