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

from course_lib._name_tables import explain_names
from course_lib._validate import (
    check_attention_inputs,
    check_attn_mask,
    check_key_padding_mask,
    check_positive_int,
    checked,
    nested,
    warn_user,
)
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
    if not nested():
        check_attention_inputs(query, key, value, attn_mask=attn_mask, dropout_p=dropout_p)
        E = query.shape[-1]
        if scale is not None and E > 1 and abs(scale - math.sqrt(E)) < 1e-6 * math.sqrt(E):
            warn_user(
                f"scale={scale:g} is sqrt(E) for E={E}: the scores are multiplied by scale, "
                f"and the standard scaling divides by sqrt(E), scale=1 / sqrt(E) = "
                f"{1 / math.sqrt(E):.4g} (the default, scale=None)",
                UserWarning,
            )
    scale = 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale
    scores = query @ key.transpose(-2, -1) * scale  # (..., T, E) @ (..., E, S) -> (..., T, S)
    with checked():
        weights = masked_softmax(scores, attn_mask)  # (..., T, S)
    dropped = F.dropout(weights, p=dropout_p) if dropout_p > 0 else weights
    return dropped @ value, weights  # (..., T, S) @ (..., S, Ev) -> (..., T, Ev)


def _check_masks(query: Tensor, key: Tensor, attn_mask, key_padding_mask) -> None:
    """The single-head modules' masks, in the user's words: ``attn_mask`` ``(T, S)`` or
    ``(B, T, S)``, ``key_padding_mask`` ``(B, S)``."""
    B, T, S = key.shape[0], query.shape[-2], key.shape[-2]
    forms = f"(T, S) = ({T}, {S}) or (B, T, S) = ({B}, {T}, {S})"
    check_attn_mask(attn_mask, "attn_mask", [(T, S), ((B, 1), T, S)], forms)
    check_key_padding_mask(key_padding_mask, "key_padding_mask", B, S)


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
        for name, size in (("query_dim", query_dim), ("key_dim", key_dim), ("attn_dim", attn_dim)):
            check_positive_int(size, name)
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
        if not nested():
            check_attention_inputs(
                query, key, value, query_dim=self.w_q.in_features, key_dim=self.w_k.in_features
            )
            _check_masks(query, key, attn_mask, key_padding_mask)
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
        check_positive_int(proj_dim, "proj_dim")
        input_dim = proj_dim if input_dim is None else input_dim
        check_positive_int(input_dim, "input_dim")
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
        input_dim = self.q_proj.in_features
        for name, t in (("query", query), ("key", key)):
            if isinstance(t, Tensor) and t.ndim >= 2 and t.shape[-1] != input_dim:
                default = " (input_dim defaults to proj_dim)" if input_dim == self.proj_dim else ""
                raise ValueError(
                    f"{name} has {t.shape[-1]} features per step, but this Attention was "
                    f"built for input_dim={input_dim}{default}: give it inputs of that width, "
                    f"or build it as Attention({self.proj_dim}, input_dim={t.shape[-1]})"
                )
        value_dim = input_dim if self.v_proj is not None else None
        if not nested():
            check_attention_inputs(
                query, key, value, query_dim=input_dim, key_dim=input_dim, value_dim=value_dim
            )
            _check_masks(query, key, attn_mask, key_padding_mask)
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
