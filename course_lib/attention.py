"""Attention: scaled dot-product and additive scores, and the single-head modules.

Multi-head attention lives in :mod:`course_lib.multihead`, masks in :mod:`course_lib.masking`.

Batch first. Letters used in this module:

* ``...`` -- any leading batch dimensions (``B``, or ``B, Nh`` for heads)
* ``T`` -- number of queries (target length), ``S`` -- number of keys (source length)
* ``E`` -- width of queries and keys, ``Ev`` -- width of values

Masks: True = blocked, or float (added to the scores) -- see :mod:`course_lib.masking`.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from course_lib._attention_checks import (
    check_additive_inputs,
    check_attention_module_inputs,
    check_sdpa_inputs,
    check_sizes,
)
from course_lib._name_tables import explain_names
from course_lib._validate import checked
from course_lib.masking import masked_softmax, merge_masks

__all__ = ["scaled_dot_product_attention", "AdditiveAttention", "Attention"]


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
    check_sdpa_inputs(query, key, value, attn_mask, dropout_p, scale)
    scale = 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale
    scores = query @ key.transpose(-2, -1) * scale  # (..., T, E) @ (..., E, S) -> (..., T, S)
    with checked():
        weights = masked_softmax(scores, attn_mask)  # (..., T, S)
    dropped = F.dropout(weights, p=dropout_p) if dropout_p > 0 else weights
    return dropped @ value, weights  # (..., T, S) @ (..., S, Ev) -> (..., T, Ev)


class AdditiveAttention(nn.Module):
    """Additive (Bahdanau) attention: ``score(q, k) = w_v^T tanh(W_q q + W_k k)``.

    Queries and keys may have different widths -- the case dot products cannot handle.

    Args:
        query_dim: width of the queries ``Eq``.
        key_dim: width of the keys ``Ek``.
        attn_dim: width ``h`` of the scoring network's hidden layer, in which projected
            queries and keys are added.

    Shape:
        query ``(B, T, Eq)``, key ``(B, S, Ek)``, value ``(B, S, Ev)`` ->
        context ``(B, T, Ev)``, weights ``(B, T, S)``.
        ``key_padding_mask`` ``(B, S)`` and ``attn_mask`` ``(T, S)`` or ``(B, T, S)``:
        True = blocked.
    """

    def __init__(self, query_dim: int, key_dim: int, attn_dim: int) -> None:
        super().__init__()
        check_sizes(query_dim=query_dim, key_dim=key_dim, attn_dim=attn_dim)
        self.w_q = nn.Linear(query_dim, attn_dim, bias=False)
        self.w_k = nn.Linear(key_dim, attn_dim, bias=False)
        self.w_v = nn.Linear(attn_dim, 1, bias=False)

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
        check_additive_inputs(self, query, key, value, attn_mask, key_padding_mask)
        # (B, T, 1, h) + (B, 1, S, h) -> (B, T, S, h): every query added to every key
        features = torch.tanh(self.w_q(query).unsqueeze(-2) + self.w_k(key).unsqueeze(-3))
        scores = self.w_v(features).squeeze(-1)  # (B, T, S, 1) -> (B, T, S)
        with checked():
            weights = masked_softmax(scores, merge_masks(attn_mask, key_padding_mask))  # (B, T, S)
        context = weights @ value  # (B, T, S) @ (B, S, Ev) -> (B, T, Ev)
        return context, (weights if need_weights else None)


class Attention(nn.Module):
    """Single-head scaled dot-product attention with learned projections.

    Queries and keys are projected from ``input_dim`` to ``proj_dim``; values are
    projected too when ``proj_values`` is True, otherwise the raw values are averaged (as
    in the lecture's first attention decoder, whose values are the encoder states).

    Args:
        proj_dim: width ``E`` of the projected queries and keys (and values, with
            ``proj_values``).
        input_dim: width of the inputs; defaults to ``proj_dim``.
        proj_values: project the values as well.

    Shape:
        query ``(B, T, input_dim)``, key ``(B, S, input_dim)``, value ``(B, S, Ev)``
        (default: ``key``) -> context ``(B, T, Ev)`` (``Ev = E`` with ``proj_values``),
        weights ``(B, T, S)``. ``key_padding_mask`` ``(B, S)`` and ``attn_mask`` ``(T, S)``
        or ``(B, T, S)``: True = blocked.
    """

    def __init__(self, proj_dim: int, input_dim: int | None = None, proj_values: bool = False):
        super().__init__()
        input_dim = proj_dim if input_dim is None else input_dim
        check_sizes(proj_dim=proj_dim, input_dim=input_dim)
        self.proj_dim = proj_dim
        self.q_proj = nn.Linear(input_dim, proj_dim)
        self.k_proj = nn.Linear(input_dim, proj_dim)
        self.v_proj = nn.Linear(input_dim, proj_dim) if proj_values else None

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
        value = key if value is None else value
        check_attention_module_inputs(self, query, key, value, attn_mask, key_padding_mask)
        if self.v_proj is not None:
            value = self.v_proj(value)  # (B, S, input_dim) -> (B, S, E)
        with checked():
            context, weights = scaled_dot_product_attention(
                self.q_proj(query),  # (B, T, input_dim) -> (B, T, E)
                self.k_proj(key),  # (B, S, input_dim) -> (B, S, E)
                value,
                attn_mask=merge_masks(attn_mask, key_padding_mask),
            )  # (B, T, Ev), (B, T, S)
        return context, (weights if need_weights else None)


# Calls and attributes in other libraries' words: their tables are in _name_tables.py.
explain_names(__name__)
