"""Transformer layers and stacks, with incremental decoding through an explicit cache.

Batch first. Letters: ``B`` batch, ``S`` source length, ``T`` target length, ``D`` model
width, ``Nh`` heads. Masks use PyTorch's names and the library's one polarity, True = blocked:
``src_mask`` / ``tgt_mask`` / ``memory_mask`` ``(T, S)``-like, and ``src_key_padding_mask``,
``tgt_key_padding_mask``, ``memory_key_padding_mask`` ``(B, length)``.

Each layer is a stack of *sublayers* (attention, feed-forward). ``add_norm`` says how a
sublayer's output joins its input:

* ``"post"`` -- ``LayerNorm(x + sublayer(x))``, the original Transformer's Add & Norm;
* ``"pre"``  -- ``x + sublayer(LayerNorm(x))``, easier to train in deep stacks; a stack of
  pre-LN layers ends with one more LayerNorm, which both stacks add;
* ``None``   -- ``sublayer(x)``, no residual and no normalisation: the lecture's first
  self-attention model.

With weights copied, :class:`EncoderLayer` and :class:`DecoderLayer` equal
``nn.TransformerEncoderLayer`` / ``nn.TransformerDecoderLayer`` (``batch_first=True``,
``norm_first`` False or True) -- the tests check it to 1e-6 in float64. Unlike those, they
return their attention weights when asked.
"""

from __future__ import annotations

from typing import NamedTuple

from torch import Tensor, nn

from course_lib._name_tables import explain_names
from course_lib._transformer_checks import (
    check_decoder_layer,
    check_decoder_stack,
    check_decoder_step,
    check_encoder_layer,
    check_encoder_stack,
    check_feed_forward,
    check_layer_args,
    check_memory,
    check_stack_step,
)
from course_lib._validate import AttentionWeights, check_positive_int, checked
from course_lib.multihead import KeyValue, MultiHeadAttention

__all__ = [
    "FeedForward",
    "EncoderLayer",
    "DecoderLayer",
    "TransformerEncoder",
    "TransformerDecoder",
    "DecoderCache",
]

ADD_NORM = ("post", "pre", None)


class FeedForward(nn.Module):
    """Position-wise feed-forward network: two linear layers with a ReLU between them, for
    every step on its own; ``dropout`` acts on the ``d_ff`` hidden features, as in PyTorch."""

    def __init__(self, d_model: int, d_ff: int, dropout: float = 0.0) -> None:
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(d_model, d_ff), nn.ReLU(), nn.Dropout(dropout), nn.Linear(d_ff, d_model)
        )

    def forward(self, x: Tensor) -> Tensor:
        check_feed_forward(self, x)
        return self.net(x)  # (B, T, D) -> (B, T, d_ff) -> (B, T, D)


class _Layer(nn.Module):
    """What the encoder and decoder layers share: their sublayers, a LayerNorm per sublayer
    (``norm1``, ``norm2``, ... as in PyTorch; none with ``add_norm=None``), the dropout on
    each sublayer's output before it is added."""

    cross_attention = False  # the decoder's middle sublayer

    def __init__(
        self,
        d_model: int,
        num_heads: int,
        d_ff: int,
        dropout: float = 0.0,
        add_norm: str | None = "post",
    ) -> None:
        super().__init__()
        check_layer_args(add_norm, ADD_NORM, dropout)
        self.d_model, self.add_norm = d_model, add_norm
        for i in range(1, 3 + self.cross_attention) if add_norm else ():
            self.add_module(f"norm{i}", nn.LayerNorm(d_model))
        self.dropout = nn.Dropout(dropout)
        self.self_attn = MultiHeadAttention(d_model, num_heads, dropout)
        if self.cross_attention:
            self.cross_attn = MultiHeadAttention(d_model, num_heads, dropout)
        self.ffn = FeedForward(d_model, d_ff, dropout)


class EncoderLayer(_Layer):
    """Self-attention then feed-forward, each joined to its input as ``add_norm`` says.

    Shape:
        x ``(B, S, D)``, ``src_mask`` ``(S, S)``, ``src_key_padding_mask`` ``(B, S)`` ->
        ``(B, S, D)`` and, with ``need_weights``, the weights of every head ``(B, Nh, S, S)``.
    """

    def forward(
        self,
        x: Tensor,
        *,
        src_mask: Tensor | None = None,
        src_key_padding_mask: Tensor | None = None,
        need_weights: bool = False,
        **unknown: object,
    ) -> tuple[Tensor, Tensor | None]:
        check_encoder_layer(self, x, src_mask, src_key_padding_mask, unknown)
        with checked():
            masks = {"attn_mask": src_mask, "key_padding_mask": src_key_padding_mask}
            if self.add_norm == "pre":
                out, weights = self._sa_block(self.norm1(x), masks)
                x = x + self.dropout(out)
                x = x + self.dropout(self.ffn(self.norm2(x)))
            elif self.add_norm == "post":
                out, weights = self._sa_block(x, masks)
                x = self.norm1(x + self.dropout(out))
                x = self.norm2(x + self.dropout(self.ffn(x)))
            else:  # add_norm=None, the lecture's model: no residuals, no LayerNorm
                x, weights = self._sa_block(x, masks)
                x = self.ffn(x)
        return x, (weights if need_weights else None)

    def _sa_block(self, x: Tensor, masks: dict) -> tuple[Tensor, Tensor]:
        return self.self_attn(x, x, x, **masks, average_attn_weights=False)


class DecoderLayer(_Layer):
    """Masked self-attention, cross-attention to the encoder's output, then feed-forward,
    each joined to its input as ``add_norm`` says.

    Shape:
        x ``(B, T, D)``, memory ``(B, S, D)``, ``tgt_mask`` ``(T, T)`` (usually causal),
        ``memory_mask`` ``(T, S)``, padding masks ``(B, T)`` and ``(B, S)`` -> ``(B, T, D)``
        and, with ``need_weights``, the weights of every head: self ``(B, Nh, T, T)`` and
        cross ``(B, Nh, T, S)``.
    """

    cross_attention = True

    def forward(
        self,
        x: Tensor,
        memory: Tensor,
        *,
        tgt_mask: Tensor | None = None,
        memory_mask: Tensor | None = None,
        tgt_key_padding_mask: Tensor | None = None,
        memory_key_padding_mask: Tensor | None = None,
        need_weights: bool = False,
    ) -> tuple[Tensor, Tensor | None, Tensor | None]:
        self_masks = {"attn_mask": tgt_mask, "key_padding_mask": tgt_key_padding_mask}
        cross_masks = {"attn_mask": memory_mask, "key_padding_mask": memory_key_padding_mask}
        check_decoder_layer(self, x, memory, self_masks, cross_masks)
        with checked():
            x, self_w, cross_w, _ = self._sublayers(x, memory, cross_masks, self_masks=self_masks)
        return (x, self_w, cross_w) if need_weights else (x, None, None)

    def step(
        self,
        x: Tensor,
        memory_kv: KeyValue,
        cache: KeyValue | None,
        *,
        memory_key_padding_mask: Tensor | None = None,
        need_weights: bool = False,
    ) -> tuple[Tensor, Tensor | None, Tensor | None, KeyValue]:
        """The newest target positions ``x`` ``(B, t, D)``: their self-attention reads and
        extends ``cache``, their cross-attention reads the memory projected once, ``memory_kv``.

        Returns ``(output (B, t, D), self weights, cross weights, updated cache)``; the same
        numbers ``forward`` gives at those positions under a causal ``tgt_mask``.
        """
        check_decoder_step(self, x, memory_kv, cache, memory_key_padding_mask)
        cross_masks = {"key_padding_mask": memory_key_padding_mask}
        with checked():
            x, self_w, cross_w, cache = self._sublayers(x, memory_kv, cross_masks, cache=cache)
        return (x, self_w, cross_w, cache) if need_weights else (x, None, None, cache)

    def _sublayers(self, x, memory, cross_masks, self_masks=None, cache=None):
        """The three sublayers, for ``forward`` (which gives ``self_masks``) and ``step``."""
        if self.add_norm == "pre":
            out, self_w, cache = self._sa_block(self.norm1(x), self_masks, cache)
            x = x + self.dropout(out)
            out, cross_w = self._ca_block(self.norm2(x), memory, cross_masks)
            x = x + self.dropout(out)
            x = x + self.dropout(self.ffn(self.norm3(x)))
        elif self.add_norm == "post":
            out, self_w, cache = self._sa_block(x, self_masks, cache)
            x = self.norm1(x + self.dropout(out))
            out, cross_w = self._ca_block(x, memory, cross_masks)
            x = self.norm2(x + self.dropout(out))
            x = self.norm3(x + self.dropout(self.ffn(x)))
        else:  # add_norm=None, the lecture's model: no residuals, no LayerNorm
            x, self_w, cache = self._sa_block(x, self_masks, cache)
            x, cross_w = self._ca_block(x, memory, cross_masks)
            x = self.ffn(x)
        return x, self_w, cross_w, cache

    def _sa_block(self, x: Tensor, masks: dict | None, cache: KeyValue | None) -> tuple:
        """Every position attends to the masked sequence (``forward``), or the newest ones to
        the cached past and themselves (``step``); returns ``(out, weights, cache)``."""
        if masks is None:
            return self.self_attn.self_attention_step(x, cache, average_attn_weights=False)
        out, weights = self.self_attn(x, x, x, **masks, average_attn_weights=False)
        return out, weights, None

    def _ca_block(self, x: Tensor, memory: Tensor | KeyValue, masks: dict) -> tuple:
        """Attention to the memory ``(B, S, D)``, or to its projection ``memory_kv``."""
        if isinstance(memory, KeyValue):
            return self.cross_attn.attend(x, memory, **masks, average_attn_weights=False)
        return self.cross_attn(x, memory, memory, **masks, average_attn_weights=False)


class _Stack(nn.Module):
    """``num_layers`` layers of ``layer_type``, then ``norm`` (see ``"pre"`` above)."""

    layer_type: type[_Layer]

    def __init__(
        self,
        d_model: int,
        num_heads: int,
        d_ff: int,
        num_layers: int,
        dropout: float = 0.0,
        add_norm: str | None = "post",
    ) -> None:
        super().__init__()
        check_positive_int(num_layers, "num_layers")
        self.layers = nn.ModuleList(
            self.layer_type(d_model, num_heads, d_ff, dropout, add_norm) for _ in range(num_layers)
        )
        self.norm = nn.LayerNorm(d_model) if add_norm == "pre" else nn.Identity()


class TransformerEncoder(_Stack):
    """``num_layers`` encoder layers.

    Shape:
        x ``(B, S, D)`` (already embedded) -> ``(B, S, D)``; with ``need_weights`` also a
        list with every layer's weights ``(B, Nh, S, S)``, else ``None``.
    """

    layer_type = EncoderLayer

    def forward(
        self,
        x: Tensor,
        *,
        mask: Tensor | None = None,
        src_key_padding_mask: Tensor | None = None,
        need_weights: bool = False,
        **unknown: object,
    ) -> tuple[Tensor, list[Tensor] | None]:
        check_encoder_stack(self, x, mask, src_key_padding_mask, unknown)
        masks = {"src_mask": mask, "src_key_padding_mask": src_key_padding_mask}
        weights = []
        with checked():
            for layer in self.layers:
                x, w = layer(x, **masks, need_weights=need_weights)
                weights.append(w)
            x = self.norm(x)
        return x, (weights if need_weights else None)


class DecoderCache(NamedTuple):
    """What incremental decoding carries from step to step, per layer: the encoder memory's
    projected keys and values (fixed), and the self-attention keys and values so far."""

    memory: tuple[KeyValue, ...]
    self_attn: tuple[KeyValue | None, ...]

    @property
    def length(self) -> int:
        """Target positions cached so far."""
        first = self.self_attn[0]
        return 0 if first is None else first.key.shape[2]

    def select(self, index: Tensor) -> DecoderCache:
        """Keep (or repeat) batch rows ``index`` in every layer's cache."""
        return DecoderCache(
            tuple(kv.select(index) for kv in self.memory),
            tuple(None if kv is None else kv.select(index) for kv in self.self_attn),
        )


class TransformerDecoder(_Stack):
    """``num_layers`` decoder layers.

    ``forward`` decodes whole target sequences in parallel (training, teacher forcing);
    :meth:`init_cache` and :meth:`step` decode one position at a time, reusing the keys and
    values of earlier positions instead of recomputing them.

    Shape:
        x ``(B, T, D)``, memory ``(B, S, D)`` -> ``(B, T, D)``; with ``need_weights`` also
        ``{"self": [(B, Nh, T, T), ...], "cross": [(B, Nh, T, S), ...]}`` (one tensor per
        layer), else ``None``.
    """

    layer_type = DecoderLayer

    def forward(
        self,
        x: Tensor,
        memory: Tensor,
        *,
        tgt_mask: Tensor | None = None,
        memory_mask: Tensor | None = None,
        tgt_key_padding_mask: Tensor | None = None,
        memory_key_padding_mask: Tensor | None = None,
        need_weights: bool = False,
    ):
        masks = {
            "tgt_mask": tgt_mask,
            "memory_mask": memory_mask,
            "tgt_key_padding_mask": tgt_key_padding_mask,
            "memory_key_padding_mask": memory_key_padding_mask,
        }
        check_decoder_stack(self, x, memory, masks)
        self_weights, cross_weights = [], []
        with checked():
            for layer in self.layers:
                x, ws, wc = layer(x, memory, **masks, need_weights=need_weights)
                self_weights.append(ws)
                cross_weights.append(wc)
            x = self.norm(x)
        weights = AttentionWeights(self=self_weights, cross=cross_weights) if need_weights else None
        return x, weights

    def init_cache(self, memory: Tensor) -> DecoderCache:
        """Project the encoder memory ``(B, S, D)`` once for every layer's cross-attention."""
        check_memory(self, memory)
        return DecoderCache(
            tuple(layer.cross_attn.project_kv(memory, memory) for layer in self.layers),
            tuple(None for _ in self.layers),
        )

    def step(
        self,
        x: Tensor,
        cache: DecoderCache,
        *,
        memory_key_padding_mask: Tensor | None = None,
        need_weights: bool = False,
    ):
        """Decode the newest positions ``x`` ``(B, t, D)`` (usually ``t = 1``).

        Returns ``(output (B, t, D), updated cache, weights or None)``.
        """
        check_stack_step(self, x, cache, DecoderCache, memory_key_padding_mask)
        masks = {"memory_key_padding_mask": memory_key_padding_mask}
        new_self, self_weights, cross_weights = [], [], []
        with checked():
            for layer, memory_kv, kv in zip(
                self.layers, cache.memory, cache.self_attn, strict=True
            ):
                x, ws, wc, kv = layer.step(x, memory_kv, kv, **masks, need_weights=need_weights)
                new_self.append(kv)
                self_weights.append(ws)
                cross_weights.append(wc)
            x = self.norm(x)
        weights = AttentionWeights(self=self_weights, cross=cross_weights) if need_weights else None
        return x, DecoderCache(cache.memory, tuple(new_self)), weights


# Calls and attributes in other libraries' words: their tables are in _name_tables.py.
explain_names(__name__)
