"""The input checks of attention: queries, keys and values that attention can combine, and
its masks -- boolean (True = blocked) or float (added to the scores), of a shape that fits,
with values that mean what was probably meant -- and the weights a model returns
(package-private; see ``course_lib._validate``)."""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import Tensor

from course_lib._validate_basics import check_dropout, shape_str, type_name, warn_user


def check_floating(**tensors: Tensor) -> None:
    """Attention needs floating-point inputs: token ids must be embedded first."""
    for name, t in tensors.items():
        if not isinstance(t, Tensor):
            raise TypeError(f"{name} must be a tensor, got {type(t).__name__}")
        if not torch.is_floating_point(t):
            raise TypeError(
                f"{name} is {t.dtype}, but attention needs floating-point vectors: embed "
                "token ids first (nn.Embedding), or convert with .float()"
            )


def check_width(
    x: Tensor, width: int, name: str, *, label: str = "", leading: str = "B", hint: str = ""
) -> None:
    """``x`` must be ``(B, length, width)``; with ``leading="..."``, ``(..., length, width)``.

    Args:
        x: the tensor to check.
        width: the features per step the module was built for.
        name: the argument's name, for the message.
        label: the width's name in the message (``"d_model"`` gives ``d_model=8``).
        leading: ``"B"`` (exactly one batch dimension) or ``"..."`` (any number).
        hint: what to do about it, appended to the message.
    """
    ndim_ok = x.ndim == 3 if leading == "B" else x.ndim >= 2
    if not ndim_ok or x.shape[-1] != width:
        form = f"({leading}, length, {f'{label}={width}' if label else width})"
        form = "batch-first " + form if leading == "B" else form
        raise ValueError(f"{name} must be {form}, got {shape_str(x)}{hint}")


def check_attention_inputs(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    *,
    query_dim: int | None = None,
    key_dim: int | None = None,
    value_dim: int | None = None,
    attn_mask: Tensor | None = None,
    dropout_p: float = 0.0,
) -> None:
    """Queries ``(..., T, Eq)``, keys ``(..., S, Ek)`` and values ``(..., S, Ev)`` that
    attention can combine: floating point, batch dimensions ``...`` that broadcast, one
    value per key.

    A module that projects its inputs passes the widths it was built for (``query_dim``,
    ``key_dim``, ``value_dim``); without them -- dot products of the inputs themselves --
    queries and keys must have the same width ``E``. ``attn_mask`` must fit the scores
    ``(..., T, S)``.
    """
    check_floating(query=query, key=key, value=value)
    check_dropout(dropout_p, "dropout_p")
    for name, t in (("query", query), ("key", key), ("value", value)):
        if t.ndim < 2:
            raise ValueError(f"{name} must be (..., length, features), got {shape_str(t)}")
    if (query_dim is not None or key_dim is not None) and query.ndim != key.ndim:
        one = (
            " (one query per sequence is (B, 1, Eq): query.unsqueeze(1))"
            if query.ndim < key.ndim
            else ""
        )
        raise ValueError(
            f"query and key must be batches of the same rank, query (B, T, Eq) and key "
            f"(B, S, Ek): got query {shape_str(query)} and key {shape_str(key)}{one}"
        )
    try:
        batch = torch.broadcast_shapes(query.shape[:-2], key.shape[:-2], value.shape[:-2])
    except RuntimeError as err:
        raise ValueError(
            f"query, key and value must share their batch dimensions (...): query "
            f"{shape_str(query)}, key {shape_str(key)}, value {shape_str(value)}"
        ) from err
    if query_dim is None and key_dim is None and query.shape[-1] != key.shape[-1]:
        raise ValueError(
            f"query and key must have the same width E to take dot products: query "
            f"{shape_str(query)}, key {shape_str(key)}; project them first, or use AdditiveAttention"
        )
    for t, width, name in (
        (query, query_dim, "query"),
        (key, key_dim, "key"),
        (value, value_dim, "value"),
    ):
        if width is not None:
            check_width(t, width, name, leading="...")
    if key.shape[-2] != value.shape[-2]:
        raise ValueError(
            f"key and value must have the same length S (one value per key): key "
            f"{shape_str(key)}, value {shape_str(value)}"
        )
    if attn_mask is not None:
        check_mask(attn_mask, (*batch, query.shape[-2], key.shape[-2]), "attn_mask")


def check_mask(
    mask: Tensor, scores_shape: torch.Size | tuple[int, ...], name: str = "mask"
) -> None:
    """Raise a clear error unless ``mask`` is boolean or float and broadcasts to the scores.

    Args:
        mask: the mask to check (True = blocked, or float, added to the scores).
        scores_shape: shape of the attention scores ``(..., T, S)``.
        name: the argument's name, for the message.
    """
    if not isinstance(mask, Tensor):
        raise TypeError(f"{name} must be a tensor, got {type(mask).__name__}")
    if mask.dtype != torch.bool and not torch.is_floating_point(mask):
        raise TypeError(
            f"{name} must be boolean (True = blocked) or float (added to the scores), "
            f"got {mask.dtype}; for 0/1 masks use mask.bool()"
        )
    try:
        shape = torch.broadcast_shapes(mask.shape, tuple(scores_shape))
    except RuntimeError:
        shape = None
    if shape != tuple(scores_shape):
        raise ValueError(
            f"{name} of shape {shape_str(mask)} does not fit the attention scores of shape "
            f"(..., T, S) = {tuple(scores_shape)}: it must broadcast to them, e.g. (T, S), "
            f"(B, T, S) or (B, 1, S)"
        )
    if mask.dtype != torch.bool:  # a row that blocks everything is legal here: zero weights
        check_mask_values(mask, name)
    else:
        _warn_inverted_causal(mask, name)


def _warn_inverted_causal(mask: Tensor, name: str) -> None:
    """A boolean ``(..., T, T)`` mask that is True on and below the diagonal: ``~causal_mask(T)``
    or ``torch.tril(...).bool()``, the polarity of ``F.scaled_dot_product_attention`` (True =
    may attend). In course_lib it blocks each query's own position and its past, and the
    last query sees nothing: warn (it reads the mask: once per public call)."""
    T = mask.shape[-1]
    if mask.ndim < 2 or mask.shape[-2] != T or T < 2 or mask.numel() == 0:
        return
    lower = torch.ones(T, T, dtype=torch.bool, device=mask.device).tril()
    if bool((mask == lower).all()):
        warn_user(
            f"{name} is True on and below the diagonal (~causal_mask({T}), or "
            f"torch.tril(...).bool()): in course_lib True = blocked, so it blocks each "
            f"query's own position and its past and leaves it only the future -- the last "
            f"query sees nothing. F.scaled_dot_product_attention's polarity is the opposite "
            f"(True = may attend); here pass {name}=causal_mask({T}) (that is, invert it: "
            f"~{name})."
        )


def _blocked(mask: Tensor) -> Tensor:
    """Where a boolean or float mask blocks (True / -inf)."""
    return mask if mask.dtype == torch.bool else torch.isneginf(mask)


def check_mask_values(mask: Tensor, name: str, *, padding: bool = False) -> None:
    """What a mask's values cannot or probably do not mean (it reads the mask: call once per
    public call, not per decoded token).

    * A float mask of only 0s and 1s (``torch.tril(torch.ones(T, T))``, as tutorials build
      it) is *added* to the scores: it blocks nothing. Warn, saying what was probably meant.
    * A key padding mask (``padding=True``) with a row that blocks every key is a sentence
      without a single token: almost always the opposite polarity (True = real token).
      Raise, asking "polarity?".
    * An attention mask with a row that blocks every key gives that query a zero context:
      legal, but the mark of an inverted mask. Warn.
    """
    if mask.numel() == 0:
        return
    if mask.dtype != torch.bool:
        ones = mask == 1
        if bool(((mask == 0) | ones).all()) and bool(ones.any()):
            warn_user(
                f"{name} is a float mask of 0s and 1s, and a float mask is added to the "
                "scores: its 1s add 1 and block nothing. If 1 marks what may be attended to "
                f"(torch.tril(torch.ones(T, T)) for causal attention), pass {name}={name} == 0 "
                "(a boolean mask, True = blocked) -- or causal_mask(T); if 1 marks what is "
                f"blocked, pass {name}.bool()."
            )
        return
    full = _blocked(mask).all(dim=-1)  # (...): rows that block every key
    if not bool(full.any()):
        return
    row = tuple(int(i) for i in full.nonzero()[0])
    where = f"row {row[0]}" if len(row) == 1 else f"row {row}"
    if padding:
        raise ValueError(
            f"{name} blocks every key of {where} (all True), a sentence without a single "
            f"token: in course_lib True = padding (blocked). Polarity? If your mask is True "
            f"at the real tokens, pass ~{name}; padding_mask(tokens, pad_id=PAD) builds it "
            "from the token ids. An empty sentence has nothing to attend to: drop it."
        )
    warn_user(
        f"{name} blocks every key of {where}: that query gets all-zero weights and a zero "
        f"context. Polarity? In course_lib True = blocked; if your mask is True where "
        f"attention is allowed (torch.tril(...).bool(), or F.scaled_dot_product_attention's "
        f"convention), pass ~{name}."
    )


def _mask_dtype(mask: object, name: str, form: str) -> None:
    if not isinstance(mask, Tensor):
        raise TypeError(
            f"{name} must be a tensor {form}, got {type_name(mask)}; build it with "
            "torch.tensor(...) or the helpers of course_lib.masking"
        )
    if mask.dtype != torch.bool and not torch.is_floating_point(mask):
        raise TypeError(
            f"{name} is {mask.dtype}, but a mask is boolean (True = blocked) or float (added "
            f"to the scores). For a 0/1 mask where 1 marks what is blocked use {name}.bool(); "
            f"where 1 marks what may be attended to, use {name} == 0."
        )


def check_key_padding_mask(
    mask: object, name: str, batch: int, length: int, *, values: bool = True
) -> None:
    """A key padding mask ``(B, S)``: boolean (True = padding) or float (added).

    Args:
        mask: what the user passed (``None`` passes).
        name: its argument name (``src_key_padding_mask``).
        batch: ``B``, the sequences of the batch.
        length: ``S``, the keys of each sequence.
        values: also check the values (:func:`check_mask_values`); False where the check
            would run once per decoded token.
    """
    if mask is None:
        return
    form = f"(B, S) = ({batch}, {length})"
    if isinstance(mask, Tensor) and mask.ndim == 1 and mask.shape[0] == batch:
        raise ValueError(
            f"{name} must be {form}, got {shape_str(mask)}: it looks like one length per "
            f"sequence; build the mask with padding_mask(lengths, total_length={length})"
        )
    _mask_dtype(mask, name, form)
    if tuple(mask.shape) != (batch, length):
        hint = ""
        if tuple(mask.shape) == (length, batch):  # two causes fit: say both, pick neither
            hint = (
                ": the expected shape reversed -- a mask built (S, B), or queries and keys "
                "given sequence-first (L, B, D) where (B, L, D) is expected"
            )
        elif mask.ndim == 2 and mask.shape[1] == length and mask.shape[0] != batch:
            hint = f": one row per sequence of the batch, and the batch has {batch}"
        elif mask.ndim == 2 and mask.shape[0] == batch:
            hint = f": one column per key, and there are {length} keys"
        raise ValueError(f"{name} must be {form}, got {shape_str(mask)}{hint}")
    if values:
        check_mask_values(mask, name, padding=True)


def _fits(shape: tuple[int, ...], pattern: Sequence[int | tuple[int, ...]]) -> bool:
    """``shape`` matches ``pattern``, whose entries are sizes or tuples of allowed sizes."""
    return len(shape) == len(pattern) and all(
        size in (want if isinstance(want, tuple) else (want,))
        for size, want in zip(shape, pattern, strict=True)
    )


def check_attn_mask(
    mask: object,
    name: str,
    shapes: Sequence[Sequence[int | tuple[int, ...]]],
    forms: str,
    *,
    values: bool = True,
) -> None:
    """An attention mask: boolean (True = blocked) or float (added to the scores) of one of
    ``shapes`` (each a pattern whose entries are sizes, or tuples of allowed sizes such as
    ``(B, 1)`` for a dimension that broadcasts), which ``forms`` names for the message, e.g.
    ``"(T, S) = (4, 4) or (B * num_heads, T, S) = (6, 4, 4)"``."""
    if mask is None:
        return
    _mask_dtype(mask, name, forms)
    if not any(_fits(tuple(mask.shape), pattern) for pattern in shapes):
        hint = ""
        T, S = shapes[0][-2:]
        if mask.ndim >= 2 and tuple(mask.shape[-2:]) == (S, T) and T != S:
            hint = f": it looks transposed (queries are rows, keys columns), use {name}.mT"
        elif mask.ndim == 3 and mask.shape[0] == 1 and tuple(mask.shape[1:]) == (T, S):
            lecture = (
                mask.dtype == torch.bool
                and T == S
                and torch.equal(mask[0].cpu(), torch.ones(T, T, dtype=torch.bool).tril())
            )
            hint = (
                f": it looks like the lecture's subsequent_mask({T}), (1, T, T) with True = "
                f"may look, the opposite polarity of course_lib's masks (True = blocked). "
                f"Pass causal_mask({T}) instead (the same as ~{name}[0])"
                if lecture
                else f": drop its leading axis of 1, {name}[0]"
            )
        raise ValueError(f"{name} must be {forms}, got {shape_str(mask)}{hint}")
    if values:
        check_mask_values(mask, name)


class AttentionWeights(dict):
    """The ``{"encoder": [...], "self": [...], "cross": [...]}`` attention weights a model
    returns with ``need_weights=True``: a dict whose missing key says which keys there are
    (``weights["decoder"]``: the decoder has two kinds, ``"self"`` and ``"cross"``)."""

    _MEANING = {
        "encoder": "the encoder's self-attention",
        "self": "the decoder's self-attention over the target",
        "cross": "the decoder's cross-attention to the source, the alignment",
    }

    def __missing__(self, key: object):
        there = ", ".join(
            f"{k!r} ({self._MEANING[k]})" if k in self._MEANING else repr(k) for k in self
        )
        hint = ""
        if isinstance(key, str) and "cross" in self:
            if key.lower() in ("decoder", "dec", "cross_attention", "alignment", "attention"):
                hint = (
                    "; the decoder's weights are two kinds: for the alignment of target "
                    "and source words use weights['cross'], for the decoder's look at the "
                    "target so far weights['self']"
                )
        raise KeyError(f"the attention weights have no {key!r}: the keys are {there}{hint}")
