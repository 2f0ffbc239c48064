"""Multi-head attention, batch first, with an explicit key/value cache.

Letters: ``B`` batch, ``T`` queries, ``S`` keys (``L`` either length), ``D`` model width,
``Nh`` heads, ``Dh = D / Nh`` the width of one head, ``Nkv`` key/value heads (``Nh`` by
default; fewer for grouped-query attention, 1 for multi-query attention).

:class:`MultiHeadAttention` has the contract of ``nn.MultiheadAttention(batch_first=True)``
(the tests check equality to 1e-9 in float64) and returns its weights instead of keeping
them. For step-by-step decoding it exposes the two halves of its work:

* :meth:`~MultiHeadAttention.project_kv` turns keys and values into per-head tensors once --
  the encoder memory of a cross-attention, projected a single time per sentence;
* :meth:`~MultiHeadAttention.attend` lets queries attend to such projected keys and values;
* :meth:`~MultiHeadAttention.self_attention_step` adds the newest decoder position to a
  self-attention cache and attends over everything so far.

A cache is a :class:`KeyValue` pair that the caller passes in and gets back: nothing is
stored on the module. With ``num_kv_heads < num_heads`` (grouped-query attention) the keys
and values are projected to ``Nkv`` heads only, and each group of ``Nh / Nkv`` query heads
shares one: the cache holds ``Nkv`` heads, ``Nh / Nkv`` times smaller. Masks: True = blocked (see :mod:`course_lib.masking`).
"""

from __future__ import annotations

from typing import NamedTuple

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from course_lib._attention_checks import (
    check_attend,
    check_heads_mask,
    check_mha_forward,
    check_mha_masks,
    check_mha_sizes,
    check_project_kv,
    check_self_attention_step,
)
from course_lib._name_tables import explain_names
from course_lib._validate import checked
from course_lib.attention import scaled_dot_product_attention
from course_lib.masking import combine_masks
from course_lib.rotary import apply_rotary

__all__ = ["KeyValue", "MultiHeadAttention"]


class KeyValue(NamedTuple):
    """Keys and values already projected and split into heads, ``(B, Nkv, S, Dh)`` each."""

    key: Tensor
    value: Tensor

    def append(self, other: KeyValue) -> KeyValue:
        """The cache with ``other``'s positions added at the end (axis ``S``)."""
        return KeyValue(
            torch.cat([self.key, other.key], dim=2), torch.cat([self.value, other.value], dim=2)
        )

    def select(self, index: Tensor) -> KeyValue:
        """Keep (or repeat) batch rows ``index`` -- beam search reorders its beams so."""
        return KeyValue(self.key.index_select(0, index), self.value.index_select(0, index))


class MultiHeadAttention(nn.Module):
    """Multi-head attention: ``Nh`` scaled dot-product attentions side by side.

    ``d_model`` is split into ``num_heads`` heads of width ``Dh = d_model / num_heads``; all
    heads are computed with one batched matrix product on ``(B, Nh, T, Dh)`` tensors. A fully
    masked query row gives zeros instead of ``nn.MultiheadAttention``'s NaN.

    Args:
        d_model: model width ``D`` of queries, keys, values and output.
        num_heads: number of heads ``Nh``; must divide ``d_model``.
        dropout: dropout on the attention weights, in training mode.
        bias: add biases to the four projections.
        num_kv_heads: key/value heads ``Nkv``, dividing ``num_heads`` (default: as many as
            query heads, ``nn.MultiheadAttention``'s layout); 1 is multi-query attention.
        rotary: rotate queries and keys by their positions (:mod:`course_lib.rotary`) in
            self-attention; positions count from 0, or are given per row (``positions``).

    Shape:
        query ``(B, T, D)``, key and value ``(B, S, D)``;
        ``key_padding_mask`` ``(B, S)``, True = padding;
        ``attn_mask`` ``(T, S)``, ``(B * Nh, T, S)`` (PyTorch's 3-D form) or ``(B, Nh, T, S)``,
        True = blocked (or float, added to the scores).
        Output ``(B, T, D)``; weights ``(B, T, S)`` averaged over heads, or ``(B, Nh, T, S)``
        with ``average_attn_weights=False``, or ``None`` with ``need_weights=False``.
    """

    def __init__(
        self,
        d_model: int,
        num_heads: int,
        dropout: float = 0.0,
        bias: bool = True,
        *,
        num_kv_heads: int | None = None,
        rotary: bool = False,
    ):
        super().__init__()
        num_kv_heads = num_heads if num_kv_heads is None else num_kv_heads
        check_mha_sizes(d_model, num_heads, num_kv_heads, dropout)
        self.d_model, self.num_heads, self.num_kv_heads = d_model, num_heads, num_kv_heads
        self.head_dim = d_model // num_heads
        self.dropout = dropout
        self.rotary = rotary
        kv_dim = num_kv_heads * self.head_dim  # D when Nkv = Nh
        self.q_proj = nn.Linear(d_model, d_model, bias=bias)
        self.k_proj = nn.Linear(d_model, kv_dim, bias=bias)
        self.v_proj = nn.Linear(d_model, kv_dim, bias=bias)
        self.out_proj = nn.Linear(d_model, d_model, bias=bias)
        # Xavier on each projection as its own matrix (std 0.0625 at D = 256), unlike
        # nn.MultiheadAttention, which draws its packed (3D, D) in_proj_weight as one
        # matrix, sqrt(2) smaller (std 0.0442)
        for proj in (self.q_proj, self.k_proj, self.v_proj):
            nn.init.xavier_uniform_(proj.weight)
        if bias:
            for proj in (self.q_proj, self.k_proj, self.v_proj, self.out_proj):
                nn.init.zeros_(proj.bias)

    # -- checks and reshapes ----------------------------------------------------------------

    def check_masks(
        self,
        batch: int,
        queries: int,
        keys: int,
        *,
        attn_mask: Tensor | None = None,
        key_padding_mask: Tensor | None = None,
        names: tuple[str, str] = ("attn_mask", "key_padding_mask"),
        values: bool = True,
    ) -> None:
        """The masks ``forward`` accepts for ``batch`` sequences of ``queries`` queries and
        ``keys`` keys, checked under the user's ``names`` for them (a layer's ``tgt_mask``
        is this module's ``attn_mask``); ``values=False`` skips the scans of their values."""
        check_mha_masks(self, batch, queries, keys, attn_mask, key_padding_mask, names, values)

    def _split(self, x: Tensor, heads: int | None = None) -> Tensor:
        B, L, _ = x.shape
        # (B, L, heads * Dh) -> (B, L, heads, Dh) -> (B, heads, L, Dh); heads = Nh or Nkv
        return x.view(B, L, heads or self.num_heads, self.head_dim).transpose(1, 2)

    def _heads_mask(self, attn_mask, key_padding_mask, B: int, T: int, S: int):
        """Bring both masks to shapes that broadcast against the scores ``(B, Nh, T, S)``."""
        check_heads_mask(attn_mask, key_padding_mask, B, self.num_heads, T, S)
        if attn_mask is not None and attn_mask.ndim == 2:
            attn_mask = attn_mask[None, None]  # (T, S) -> (1, 1, T, S)
        elif attn_mask is not None and attn_mask.ndim == 3:  # (B * Nh, T, S) -> (B, Nh, T, S)
            attn_mask = attn_mask.view(B, self.num_heads, *attn_mask.shape[1:])
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask[:, None, None, :]  # (B, S) -> (B, 1, 1, S)
        return combine_masks(attn_mask, key_padding_mask)

    def _attend(
        self,
        q: Tensor,
        kv: KeyValue,
        key_padding_mask,
        attn_mask,
        need_weights: bool,
        average_attn_weights: bool,
    ) -> tuple[Tensor, Tensor | None]:
        B, _, T, _ = q.shape
        S = kv.key.shape[2]
        mask = self._heads_mask(attn_mask, key_padding_mask, B, T, S)
        dropout_p = self.dropout if self.training else 0.0
        key, value = kv
        group = self.num_heads // self.num_kv_heads
        if group > 1:  # (B, Nkv, S, Dh) -> (B, Nh, S, Dh): each kv head serves `group` heads
            key, value = key.repeat_interleave(group, 1), value.repeat_interleave(group, 1)
        # (B, Nh, T, Dh) @ (B, Nh, Dh, S) -> (B, Nh, T, S); then @ (B, Nh, S, Dh) -> (B, Nh, T, Dh)
        context, weights = scaled_dot_product_attention(
            q, key, value, attn_mask=mask, dropout_p=dropout_p
        )
        # (B, Nh, T, Dh) -> (B, T, Nh, Dh) -> (B, T, D): the heads side by side again
        output = self.out_proj(context.transpose(1, 2).reshape(B, T, self.d_model))
        if not need_weights:
            return output, None
        return output, (weights.mean(dim=1) if average_attn_weights else weights)

    # -- the four entry points ----------------------------------------------------------------

    def forward(
        self,
        query: Tensor,
        key: Tensor,
        value: Tensor,
        *,
        key_padding_mask: Tensor | None = None,
        attn_mask: Tensor | None = None,
        need_weights: bool = True,
        average_attn_weights: bool = True,
        positions: Tensor | None = None,
    ) -> tuple[Tensor, Tensor | None]:
        check_mha_forward(self, query, key, value, attn_mask, key_padding_mask, positions)
        with checked():
            if query is key and key is value:
                q, kv = self._project_self(query, positions)
            else:
                q, kv = self._split(self.q_proj(query)), self.project_kv(key, value)
            return self._attend(
                q, kv, key_padding_mask, attn_mask, need_weights, average_attn_weights
            )

    def _project_self(
        self, x: Tensor, positions: Tensor | None = None, start: int = 0
    ) -> tuple[Tensor, KeyValue]:
        """Queries, keys and values of one input: one ``(B, L, D) @ (D, D + 2 Nkv Dh)``
        product."""
        weight = torch.cat([self.q_proj.weight, self.k_proj.weight, self.v_proj.weight])
        bias = None
        if self.q_proj.bias is not None:
            bias = torch.cat([self.q_proj.bias, self.k_proj.bias, self.v_proj.bias])
        kv_dim = self.num_kv_heads * self.head_dim
        # (B, L, D + 2 kv_dim) -> (B, L, D), (B, L, kv_dim), (B, L, kv_dim)
        q, k, v = F.linear(x, weight, bias).split([self.d_model, kv_dim, kv_dim], dim=-1)
        q, k = self._split(q), self._split(k, self.num_kv_heads)  # (B, Nh | Nkv, L, Dh)
        if self.rotary:  # positions as rotations of queries and keys; values untouched
            where = {"start": start} if positions is None else {"positions": positions}
            q, k = apply_rotary(q, **where), apply_rotary(k, **where)
        return q, KeyValue(k, self._split(v, self.num_kv_heads))

    def project_kv(self, key: Tensor, value: Tensor) -> KeyValue:
        """Keys and values projected and split into heads once, for many later queries."""
        check_project_kv(self, key, value)
        Nkv = self.num_kv_heads
        return KeyValue(self._split(self.k_proj(key), Nkv), self._split(self.v_proj(value), Nkv))

    def attend(
        self,
        query: Tensor,
        kv: KeyValue,
        *,
        key_padding_mask: Tensor | None = None,
        attn_mask: Tensor | None = None,
        need_weights: bool = True,
        average_attn_weights: bool = True,
    ) -> tuple[Tensor, Tensor | None]:
        """Like ``forward``, with keys and values from :meth:`project_kv`."""
        check_attend(self, query, kv, attn_mask, key_padding_mask, KeyValue)
        with checked():
            return self._attend(
                self._split(self.q_proj(query)),
                kv,
                key_padding_mask,
                attn_mask,
                need_weights,
                average_attn_weights,
            )

    def self_attention_step(
        self,
        x: Tensor,
        cache: KeyValue | None,
        *,
        need_weights: bool = True,
        average_attn_weights: bool = True,
        key_padding_mask: Tensor | None = None,
        positions: Tensor | None = None,
        causal: bool = True,
    ) -> tuple[Tensor, Tensor | None, KeyValue]:
        """Self-attention for the newest positions ``x`` ``(B, t, D)`` of a sequence whose
        earlier positions are in ``cache``: they attend to the past and to each other
        (causally, unless ``causal=False``); returns ``(output, weights, cache with x's keys
        and values appended)``. ``key_padding_mask`` ``(B, past + t)`` covers the cached
        positions and the new ones; ``positions`` ``(B, t)`` are the new rows' positions for
        rotary embedding (default: ``past ... past + t - 1``)."""
        check_self_attention_step(self, x, cache, key_padding_mask)  # shapes only
        past, t = 0 if cache is None else cache.key.shape[2], x.shape[1]
        # new query i (position past + i) may see keys 0 .. past + i: (t, past + t), True above
        mask = torch.ones(t, past + t, dtype=torch.bool, device=x.device).triu(past + 1)
        mask = mask if causal and t > 1 else None
        with checked():
            q, kv = self._project_self(x, positions, start=past)
            if cache is not None:
                kv = cache.append(kv)
            out, weights = self._attend(
                q, kv, key_padding_mask, mask, need_weights, average_attn_weights
            )
        return out, weights, kv


# Calls and attributes in other libraries' words: their tables are in _name_tables.py.
explain_names(__name__)
