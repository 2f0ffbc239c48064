"""Attention: scaled dot-product and additive scores, and the modules built on them.

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
from course_lib.masking import (
    _apply_mask,
    _check_mask,
    _softmax_with_empty_rows,
    causal_mask,
    combine_masks,
    masked_softmax,
    merge_masks,
    padding_mask,
)

__all__ = [
    "masked_softmax",
    "padding_mask",
    "causal_mask",
    "merge_masks",
    "scaled_dot_product_attention",
    "AdditiveAttention",
    "Attention",
    "MultiHeadAttention",
]


def _check_width(x: Tensor, width: int, name: str) -> None:
    if x.ndim < 2 or x.shape[-1] != width:
        raise ValueError(
            f"{name} must be (..., length, {width}) for this module, got {shape_str(x)}"
        )


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


class MultiHeadAttention(nn.Module):
    """Multi-head attention, batch first, with the contract of ``nn.MultiheadAttention``.

    ``d_model`` is split into ``num_heads`` heads of width ``Dh = d_model / num_heads``;
    all heads are computed with one batched matrix product on ``(B, H, T, Dh)`` tensors.
    With its weights copied, it gives the same output as
    ``nn.MultiheadAttention(d_model, num_heads, batch_first=True)`` (the tests check it to
    1e-9 in float64) -- except that a fully masked query row gives zeros instead of NaN.

    Args:
        d_model: model width ``D`` of queries, keys, values and output.
        num_heads: number of heads ``H``; must divide ``d_model``.
        dropout: dropout on the attention weights, in training mode.
        bias: add biases to the four projections.

    Shape:
        query ``(B, T, D)``, key and value ``(B, S, D)``;
        ``key_padding_mask`` ``(B, S)``, True = padding;
        ``attn_mask`` ``(T, S)``, ``(B * H, T, S)`` (PyTorch's 3-D form) or ``(B, H, T, S)``,
        True = blocked (or float, added to the scores).
        Output ``(B, T, D)``; weights ``(B, T, S)`` averaged over heads, or ``(B, H, T, S)``
        with ``average_attn_weights=False``, or ``None`` with ``need_weights=False``.
    """

    def __init__(self, d_model: int, num_heads: int, dropout: float = 0.0, bias: bool = True):
        super().__init__()
        if num_heads < 1 or d_model % num_heads != 0:
            raise ValueError(
                f"d_model={d_model} must be divisible by num_heads={num_heads}: each head gets "
                f"d_model / num_heads features. Try num_heads in "
                f"{[h for h in range(1, d_model + 1) if d_model % h == 0]}"
            )
        self.d_model, self.num_heads = d_model, num_heads
        self.head_dim = d_model // num_heads
        self.dropout = dropout
        self.q_proj = nn.Linear(d_model, d_model, bias=bias)
        self.k_proj = nn.Linear(d_model, d_model, bias=bias)
        self.v_proj = nn.Linear(d_model, d_model, bias=bias)
        self.out_proj = nn.Linear(d_model, d_model, bias=bias)
        for proj in (self.q_proj, self.k_proj, self.v_proj):  # as nn.MultiheadAttention
            nn.init.xavier_uniform_(proj.weight)
        if bias:
            for proj in (self.q_proj, self.k_proj, self.v_proj, self.out_proj):
                nn.init.zeros_(proj.bias)

    def _heads_mask(self, attn_mask, key_padding_mask, B: int, T: int, S: int):
        """Bring both masks to shapes that broadcast against the scores (B, H, T, S)."""
        H = self.num_heads
        if attn_mask is not None:
            if attn_mask.ndim == 2:
                attn_mask = attn_mask[None, None]  # (T, S) -> (1, 1, T, S)
            elif attn_mask.ndim == 3:
                if attn_mask.shape[0] != B * H:
                    raise ValueError(
                        f"a 3-D attn_mask must be (B * num_heads, T, S) = ({B * H}, {T}, {S}) as "
                        f"in nn.MultiheadAttention, got {shape_str(attn_mask)}"
                    )
                # (B * H, T, S) -> (B, H, T, S)
                attn_mask = attn_mask.view(B, H, *attn_mask.shape[1:])
            if attn_mask.ndim != 4 or attn_mask.shape[-2:] != (T, S):
                raise ValueError(
                    f"attn_mask must be (T, S) = ({T}, {S}), (B * H, T, S) or (B, H, T, S), "
                    f"got {shape_str(attn_mask)}"
                )
        if key_padding_mask is not None:
            if tuple(key_padding_mask.shape) != (B, S):
                raise ValueError(
                    f"key_padding_mask must be (B, S) = ({B}, {S}), got "
                    f"{shape_str(key_padding_mask)}"
                )
            kpm = key_padding_mask[:, None, None, :]  # (B, S) -> (B, 1, 1, S)
            return combine_masks(attn_mask, kpm)
        return attn_mask

    def forward(
        self,
        query: Tensor,
        key: Tensor,
        value: Tensor,
        key_padding_mask: Tensor | None = None,
        attn_mask: Tensor | None = None,
        need_weights: bool = True,
        average_attn_weights: bool = True,
    ) -> tuple[Tensor, Tensor | None]:
        for name, t in (("query", query), ("key", key), ("value", value)):
            if t.ndim != 3 or t.shape[-1] != self.d_model:
                raise ValueError(
                    f"{name} must be batch-first (B, length, d_model={self.d_model}), got "
                    f"{shape_str(t)}"
                )
        B, T, D = query.shape
        S = key.shape[1]
        if key.shape[0] != B or value.shape[:2] != key.shape[:2]:
            raise ValueError(
                f"query, key and value must share the batch size and key and value the length: "
                f"query {shape_str(query)}, key {shape_str(key)}, value {shape_str(value)}"
            )
        H, Dh = self.num_heads, self.head_dim
        if query is key and key is value and self.q_proj.bias is not None:
            # self-attention: one (B, T, D) @ (D, 3D) product instead of three
            weight = torch.cat([self.q_proj.weight, self.k_proj.weight, self.v_proj.weight])
            bias = torch.cat([self.q_proj.bias, self.k_proj.bias, self.v_proj.bias])
            q, k, v = F.linear(query, weight, bias).chunk(3, dim=-1)  # 3 x (B, T, D)
        else:
            q, k, v = self.q_proj(query), self.k_proj(key), self.v_proj(value)
        q = q.view(B, T, H, Dh).transpose(1, 2)  # (B, T, D) -> (B, T, H, Dh) -> (B, H, T, Dh)
        k = k.view(B, S, H, Dh).transpose(1, 2)  # (B, S, D) -> (B, H, S, Dh)
        v = v.view(B, S, H, Dh).transpose(1, 2)  # (B, S, D) -> (B, H, S, Dh)
        mask = self._heads_mask(attn_mask, key_padding_mask, B, T, S)
        dropout_p = self.dropout if self.training else 0.0
        # (B, H, T, Dh) @ (B, H, Dh, S) -> (B, H, T, S); then @ (B, H, S, Dh) -> (B, H, T, Dh)
        context, weights = scaled_dot_product_attention(
            q, k, v, attn_mask=mask, dropout_p=dropout_p
        )
        # (B, H, T, Dh) -> (B, T, H, Dh) -> (B, T, D): the heads side by side again
        context = context.transpose(1, 2).reshape(B, T, D)
        output = self.out_proj(context)
        if not need_weights:
            return output, None
        return output, (weights.mean(dim=1) if average_attn_weights else weights)  # (B, T, S)
