"""Attention: scores, masks, softmax, and the modules built on them.

Batch first. Letters used in this module:

* ``...`` -- any leading batch dimensions (``B``, or ``B, H`` for heads)
* ``T`` -- number of queries (target length), ``S`` -- number of keys (source length)
* ``E`` -- width of queries and keys, ``Ev`` -- width of values

**Mask polarity -- one convention everywhere in course_lib:** a boolean mask is ``True``
where attention is **blocked** (the key may not be attended to), as in
``nn.MultiheadAttention`` and ``nn.Transformer``. ``F.scaled_dot_product_attention`` uses
the *opposite* polarity (``True`` = takes part): pass it ``~mask``. A float mask is added
to the scores (``-inf`` blocks).

**Fully masked rows:** a query whose every key is blocked gets all-zero weights (and so a
zero context vector) instead of the NaNs a plain softmax gives; its gradients are zero too.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from course_lib._validate import shape_str

__all__ = [
    "masked_softmax",
    "padding_mask",
    "causal_mask",
    "merge_masks",
    "scaled_dot_product_attention",
    "AdditiveAttention",
    "Attention",
]


def _check_mask(mask: Tensor, scores_shape: torch.Size, name: str) -> None:
    if not isinstance(mask, Tensor):
        raise TypeError(f"{name} must be a tensor, got {type(mask).__name__}")
    if mask.dtype != torch.bool and not torch.is_floating_point(mask):
        raise TypeError(
            f"{name} must be boolean (True = blocked) or float (added to the scores), "
            f"got {mask.dtype}; use mask.bool()"
        )
    try:
        shape = torch.broadcast_shapes(mask.shape, scores_shape)
    except RuntimeError:
        shape = None
    if shape != scores_shape:
        raise ValueError(
            f"{name} of shape {shape_str(mask)} does not fit the attention scores of shape "
            f"(..., T, S) = {tuple(scores_shape)}: it must broadcast to them, e.g. (T, S), "
            f"(B, T, S) or (B, 1, S)"
        )


def _check_width(x: Tensor, width: int, name: str) -> None:
    if x.ndim < 2 or x.shape[-1] != width:
        raise ValueError(
            f"{name} must be (..., length, {width}) for this module, got {shape_str(x)}"
        )


def _apply_mask(scores: Tensor, mask: Tensor | None) -> Tensor:
    if mask is None:
        return scores
    if mask.dtype == torch.bool:
        return scores.masked_fill(mask, float("-inf"))  # a new tensor: the input is untouched
    return scores + mask


def _softmax_with_empty_rows(scores: Tensor, dim: int = -1) -> Tensor:
    """Softmax where a row of only ``-inf`` gives zeros (and zero gradients), not NaN."""
    empty = torch.isneginf(scores).all(dim=dim, keepdim=True)
    weights = torch.softmax(scores.masked_fill(empty, 0.0), dim=dim)
    return weights.masked_fill(empty, 0.0)


def masked_softmax(
    scores: Tensor,
    mask: Tensor | None = None,
    valid_lens: Tensor | None = None,
    dim: int = -1,
) -> Tensor:
    """Softmax over the last axis that gives blocked positions exactly zero weight.

    Give either a boolean ``mask`` (True = blocked) or ``valid_lens`` (the number of keys
    each row may use: the first ``valid_lens`` positions), not both. ``scores`` is never
    modified. A row with no allowed position gives all zeros.

    Args:
        scores: attention scores ``(..., T, S)``.
        mask: boolean, broadcastable to ``scores``.
        valid_lens: ``(B,)`` (one length per sequence) or ``(B, T)`` (one per query).
        dim: must be the last axis (-1); kept for readability at call sites.

    Returns:
        weights of the same shape as ``scores``; every row sums to 1 or is all zeros.
    """
    if dim not in (-1, scores.ndim - 1):
        raise ValueError("masked_softmax works over the last axis (dim=-1)")
    if mask is not None and valid_lens is not None:
        raise ValueError("give either mask or valid_lens, not both")
    if valid_lens is not None:
        if scores.ndim < 2:
            raise ValueError(f"scores must be (..., T, S) to use valid_lens, got {shape_str(scores)}")
        lens = torch.as_tensor(valid_lens, device=scores.device)
        positions = torch.arange(scores.shape[-1], device=scores.device)  # (S,)
        if lens.ndim == scores.ndim - 2:  # one length per sequence: (B,) for (B, T, S)
            mask = (positions >= lens[..., None])[..., None, :]  # (..., 1, S)
        elif lens.ndim == scores.ndim - 1:  # one length per query: (B, T)
            mask = positions >= lens[..., None]  # (..., T, S)
        else:
            raise ValueError(
                f"valid_lens of shape {shape_str(lens)} does not fit scores {shape_str(scores)}: "
                "use (B,) or (B, T)"
            )
    if mask is not None:
        _check_mask(mask, scores.shape, "mask")
        if mask.dtype != torch.bool:
            raise TypeError("masked_softmax takes a boolean mask (True = blocked)")
    return _softmax_with_empty_rows(_apply_mask(scores, mask))


def padding_mask(x: Tensor, pad_id: int | None = None, max_len: int | None = None) -> Tensor:
    """Key padding mask ``(B, S)``, True at padding positions.

    Two forms:

    * ``padding_mask(tokens, pad_id=0)``: ``tokens`` ``(B, S)`` holds token ids;
    * ``padding_mask(lengths, max_len=S)``: ``lengths`` ``(B,)`` holds sequence lengths
      (``max_len`` defaults to the longest).
    """
    if pad_id is not None:
        if x.ndim != 2:
            raise ValueError(f"tokens must be (B, S) to build a padding mask, got {shape_str(x)}")
        return x == pad_id
    if x.ndim != 1:
        raise ValueError(
            f"lengths must be (B,), got {shape_str(x)}; for token ids pass pad_id=..."
        )
    if torch.is_floating_point(x):
        raise TypeError("lengths must be integers")
    longest = int(x.max()) if len(x) else 0
    max_len = longest if max_len is None else max_len
    if (x < 0).any() or longest > max_len:
        raise ValueError(f"lengths must lie in [0, max_len={max_len}], got {x.tolist()}")
    return torch.arange(max_len, device=x.device) >= x[:, None]  # (B, S)


def causal_mask(size: int, device: torch.device | str | None = None) -> Tensor:
    """``(T, T)`` mask, True above the diagonal: query ``t`` may not see keys after ``t``."""
    if size < 1:
        raise ValueError(f"size must be at least 1, got {size}")
    return torch.ones(size, size, dtype=torch.bool, device=device).triu(diagonal=1)


def merge_masks(attn_mask: Tensor | None, key_padding_mask: Tensor | None) -> Tensor | None:
    """One mask from an ``attn_mask`` ``(T, S)``/``(B, T, S)`` and a ``key_padding_mask``
    ``(B, S)``, broadcastable to ``(B, T, S)``. Booleans stay boolean (True = blocked);
    if either is float, the result is a float mask to add to the scores."""
    if key_padding_mask is None:
        return attn_mask
    if key_padding_mask.ndim != 2:
        raise ValueError(f"key_padding_mask must be (B, S), got {shape_str(key_padding_mask)}")
    kpm = key_padding_mask[:, None, :]  # (B, S) -> (B, 1, S): the same for every query
    if attn_mask is None:
        return kpm
    if attn_mask.dtype == torch.bool and kpm.dtype == torch.bool:
        return attn_mask | kpm
    as_float = [
        torch.zeros(m.shape, dtype=torch.float32, device=m.device).masked_fill(m, float("-inf"))
        if m.dtype == torch.bool else m
        for m in (attn_mask, kpm)
    ]
    return as_float[0] + as_float[1]


def scaled_dot_product_attention(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    attn_mask: Tensor | None = None,
    dropout_p: float = 0.0,
    scale: float | None = None,
) -> tuple[Tensor, Tensor]:
    """``softmax(Q K^T / sqrt(E)) V``, returning the context *and* the weights.

    Args:
        query: ``(..., T, E)``.
        key: ``(..., S, E)``.
        value: ``(..., S, Ev)``.
        attn_mask: boolean (True = blocked) or float (added), broadcastable to ``(..., T, S)``.
        dropout_p: dropout on the weights (pass 0 in eval mode).
        scale: factor on the scores; default ``1 / sqrt(E)``.

    Returns:
        ``(context (..., T, Ev), weights (..., T, S))``; the weights are those before
        dropout, and a fully masked query row gives zero weights and a zero context.
    """
    for name, t in (("query", query), ("key", key), ("value", value)):
        if t.ndim < 2:
            raise ValueError(f"{name} must be (..., length, features), got {shape_str(t)}")
    if query.shape[-1] != key.shape[-1]:
        raise ValueError(
            f"query and key must have the same width E to take dot products: query "
            f"{shape_str(query)}, key {shape_str(key)}; project them first, or use AdditiveAttention"
        )
    if key.shape[-2] != value.shape[-2]:
        raise ValueError(
            f"key and value must have the same length S (one value per key): key "
            f"{shape_str(key)}, value {shape_str(value)}"
        )
    scale = 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale
    scores = query @ key.transpose(-2, -1) * scale  # (..., T, E) @ (..., E, S) -> (..., T, S)
    if attn_mask is not None:
        _check_mask(attn_mask, scores.shape, "attn_mask")
    weights = _softmax_with_empty_rows(_apply_mask(scores, attn_mask))  # (..., T, S)
    dropped = F.dropout(weights, p=dropout_p) if dropout_p > 0 else weights
    return dropped @ value, weights  # (..., T, S) @ (..., S, Ev) -> (..., T, Ev)


class AdditiveAttention(nn.Module):
    """Additive (Bahdanau) attention: ``score(q, k) = w_v^T tanh(W_q q + W_k k)``.

    Queries and keys may have different widths -- the case dot products cannot handle.

    Args:
        query_dim: width of the queries ``Eq``.
        key_dim: width of the keys ``Ek``.
        hidden_dim: width of the hidden layer ``h`` in which they are added.

    Shape:
        query ``(B, T, Eq)``, key ``(B, S, Ek)``, value ``(B, S, Ev)`` ->
        context ``(B, T, Ev)``, weights ``(B, T, S)``.
    """

    def __init__(self, query_dim: int, key_dim: int, hidden_dim: int) -> None:
        super().__init__()
        self.w_q = nn.Linear(query_dim, hidden_dim, bias=False)
        self.w_k = nn.Linear(key_dim, hidden_dim, bias=False)
        self.w_v = nn.Linear(hidden_dim, 1, bias=False)

    def forward(
        self,
        query: Tensor,
        key: Tensor,
        value: Tensor,
        attn_mask: Tensor | None = None,
        key_padding_mask: Tensor | None = None,
    ) -> tuple[Tensor, Tensor]:
        if key.shape[-2] != value.shape[-2]:
            raise ValueError(
                f"key and value must have the same length S: key {shape_str(key)}, "
                f"value {shape_str(value)}"
            )
        _check_width(query, self.w_q.in_features, "query")
        _check_width(key, self.w_k.in_features, "key")
        # (B, T, 1, h) + (B, 1, S, h) -> (B, T, S, h): every query added to every key
        features = torch.tanh(self.w_q(query).unsqueeze(-2) + self.w_k(key).unsqueeze(-3))
        scores = self.w_v(features).squeeze(-1)  # (B, T, S, 1) -> (B, T, S)
        mask = merge_masks(attn_mask, key_padding_mask)
        if mask is not None:
            _check_mask(mask, scores.shape, "mask")
        weights = _softmax_with_empty_rows(_apply_mask(scores, mask))  # (B, T, S)
        return weights @ value, weights  # (B, T, S) @ (B, S, Ev) -> (B, T, Ev)


class Attention(nn.Module):
    """Single-head scaled dot-product attention with learned projections.

    Queries and keys are projected from ``input_dim`` to ``hidden_dim``; values are
    projected too when ``proj_values`` is True, otherwise the raw values are averaged (as
    in the lecture's first attention decoder, whose values are the encoder states).

    Args:
        hidden_dim: width of the projected queries and keys ``E``.
        input_dim: width of the inputs; defaults to ``hidden_dim``.
        proj_values: project the values as well.

    Shape:
        query ``(B, T, input_dim)``, key ``(B, S, input_dim)``, value ``(B, S, Ev)``
        (default: ``key``) -> context ``(B, T, Ev)``, weights ``(B, T, S)``.
        ``key_padding_mask`` ``(B, S)`` and ``attn_mask`` ``(T, S)`` or ``(B, T, S)``:
        True = blocked.
    """

    def __init__(self, hidden_dim: int, input_dim: int | None = None, proj_values: bool = False):
        super().__init__()
        input_dim = hidden_dim if input_dim is None else input_dim
        self.hidden_dim = hidden_dim
        self.q_proj = nn.Linear(input_dim, hidden_dim)
        self.k_proj = nn.Linear(input_dim, hidden_dim)
        self.v_proj = nn.Linear(input_dim, hidden_dim) if proj_values else None

    def forward(
        self,
        query: Tensor,
        key: Tensor,
        value: Tensor | None = None,
        key_padding_mask: Tensor | None = None,
        attn_mask: Tensor | None = None,
        need_weights: bool = True,
    ) -> tuple[Tensor, Tensor | None]:
        _check_width(query, self.q_proj.in_features, "query")
        _check_width(key, self.k_proj.in_features, "key")
        value = key if value is None else value
        if self.v_proj is not None:
            _check_width(value, self.v_proj.in_features, "value")
            value = self.v_proj(value)  # (B, S, input_dim) -> (B, S, E)
        mask = merge_masks(attn_mask, key_padding_mask)
        context, weights = scaled_dot_product_attention(
            self.q_proj(query), self.k_proj(key), value, attn_mask=mask
        )  # (B, T, Ev), (B, T, S)
        return context, (weights if need_weights else None)
