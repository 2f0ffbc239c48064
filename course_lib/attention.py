"""Attention: scaled dot-product and additive scores, and the single-head modules.

Multi-head attention lives in :mod:`course_lib.multihead`, masks in :mod:`course_lib.masking`.

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

from course_lib._validate import check_dropout, check_floating, shape_str
from course_lib.masking import check_mask, masked_softmax, merge_masks

__all__ = ["scaled_dot_product_attention", "AdditiveAttention", "Attention"]


def _check_width(x: Tensor, width: int, name: str) -> None:
    if x.ndim < 2 or x.shape[-1] != width:
        raise ValueError(
            f"{name} must be (..., length, {width}) for this module, got {shape_str(x)}"
        )


def scaled_dot_product_attention(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    *,
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
    check_floating(query=query, key=key, value=value)
    check_dropout(dropout_p, "dropout_p")
    for name, t in (("query", query), ("key", key), ("value", value)):
        if t.ndim < 2:
            raise ValueError(f"{name} must be (..., length, features), got {shape_str(t)}")
    try:
        torch.broadcast_shapes(query.shape[:-2], key.shape[:-2], value.shape[:-2])
    except RuntimeError as err:
        raise ValueError(
            f"query, key and value must share their batch dimensions (...): query "
            f"{shape_str(query)}, key {shape_str(key)}, value {shape_str(value)}"
        ) from err
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
        check_mask(attn_mask, scores.shape, "attn_mask")
    weights = masked_softmax(scores, attn_mask)  # (..., T, S)
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
        *,
        key_padding_mask: Tensor | None = None,
        attn_mask: Tensor | None = None,
        need_weights: bool = True,
    ) -> tuple[Tensor, Tensor | None]:
        check_floating(query=query, key=key, value=value)
        if query.shape[:-2] != key.shape[:-2] or key.shape[:-2] != value.shape[:-2]:
            raise ValueError(
                f"query, key and value must share the batch size: query {shape_str(query)}, "
                f"key {shape_str(key)}, value {shape_str(value)}"
            )
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
        weights = masked_softmax(scores, merge_masks(attn_mask, key_padding_mask))  # (B, T, S)
        context = weights @ value  # (B, T, S) @ (B, S, Ev) -> (B, T, Ev)
        return context, (weights if need_weights else None)


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
        *,
        key_padding_mask: Tensor | None = None,
        attn_mask: Tensor | None = None,
        need_weights: bool = True,
    ) -> tuple[Tensor, Tensor | None]:
        check_floating(query=query, key=key)
        if query.shape[0] != key.shape[0]:
            raise ValueError(
                f"query and key must share the batch size: query {shape_str(query)}, "
                f"key {shape_str(key)}"
            )
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
