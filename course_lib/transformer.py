"""Transformer layers and stacks, with incremental decoding through an explicit cache.

Batch first. Letters: ``B`` batch, ``S`` source length, ``T`` target length, ``D`` model
width, ``Nh`` heads. Masks use PyTorch's names and the library's one polarity, True = blocked:
``src_mask`` / ``tgt_mask`` / ``memory_mask`` ``(T, S)``-like, and ``src_key_padding_mask``,
``tgt_key_padding_mask``, ``memory_key_padding_mask`` ``(B, length)``.

Each layer is a stack of *sublayers* (attention, feed-forward). ``add_norm`` says how a
sublayer's output joins its input:

* ``"post"`` -- ``LayerNorm(x + sublayer(x))``, the original Transformer's Add & Norm;
* ``"pre"``  -- ``x + sublayer(LayerNorm(x))``, easier to train in deep stacks; a stack of
  pre-LN layers ends with one more LayerNorm (:class:`TransformerEncoder` adds it);
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

from course_lib._validate import check_dropout, shape_str
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
    """Position-wise feed-forward network: ``Linear(D, d_ff) -> ReLU -> Linear(d_ff, D)``."""

    def __init__(self, d_model: int, d_ff: int, dropout: float = 0.0) -> None:
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(d_model, d_ff), nn.ReLU(), nn.Dropout(dropout), nn.Linear(d_ff, d_model)
        )

    def forward(self, x: Tensor) -> Tensor:
        return self.net(x)  # (B, T, D) -> (B, T, d_ff) -> (B, T, D), each step on its own


class _Sublayers(nn.Module):
    """Shared Add & Norm logic of the encoder and decoder layers."""

    def __init__(self, d_model: int, n_sublayers: int, add_norm: str | None, dropout: float):
        super().__init__()
        if add_norm not in ADD_NORM:
            raise ValueError(f"add_norm must be 'post', 'pre' or None, got {add_norm!r}")
        check_dropout(dropout)
        self.d_model, self.add_norm = d_model, add_norm
        self.norms = nn.ModuleList(
            nn.LayerNorm(d_model) if add_norm else nn.Identity() for _ in range(n_sublayers)
        )
        self.dropout = nn.Dropout(dropout)

    def _check_width(self, **tensors: Tensor) -> None:
        for name, t in tensors.items():
            if t.ndim != 3 or t.shape[-1] != self.d_model:
                raise ValueError(
                    f"{name} must be (B, length, d_model={self.d_model}), got {shape_str(t)}: "
                    "embed the input to the layer's width first"
                )

    def _sublayer(self, i: int, x: Tensor, sublayer) -> tuple[Tensor, ...]:
        """Apply ``sublayer`` (returning its output first) with this layer's Add & Norm."""
        if self.add_norm == "pre":
            out, *rest = sublayer(self.norms[i](x))
            return x + self.dropout(out), *rest
        out, *rest = sublayer(x)
        if self.add_norm == "post":
            return self.norms[i](x + self.dropout(out)), *rest
        return out, *rest


class EncoderLayer(_Sublayers):
    """Self-attention then feed-forward.

    Shape:
        x ``(B, S, D)``, ``src_mask`` ``(S, S)``, ``src_key_padding_mask`` ``(B, S)`` ->
        ``(B, S, D)`` and, with ``need_weights``, the weights of every head ``(B, Nh, S, S)``.
    """

    def __init__(
        self,
        d_model: int,
        num_heads: int,
        d_ff: int,
        dropout: float = 0.0,
        add_norm: str | None = "post",
    ) -> None:
        super().__init__(d_model, 2, add_norm, dropout)
        self.self_attn = MultiHeadAttention(d_model, num_heads, dropout)
        self.ffn = FeedForward(d_model, d_ff, dropout)

    def forward(
        self,
        x: Tensor,
        *,
        src_mask: Tensor | None = None,
        src_key_padding_mask: Tensor | None = None,
        need_weights: bool = False,
    ) -> tuple[Tensor, Tensor | None]:
        self._check_width(x=x)
        x, weights = self._sublayer(
            0,
            x,
            lambda h: self.self_attn(
                h,
                h,
                h,
                key_padding_mask=src_key_padding_mask,
                attn_mask=src_mask,
                need_weights=need_weights,
                average_attn_weights=False,
            ),
        )
        (x,) = self._sublayer(1, x, lambda h: (self.ffn(h),))
        return x, weights


class DecoderLayer(_Sublayers):
    """Masked self-attention, cross-attention to the encoder's output, then feed-forward.

    Shape:
        x ``(B, T, D)``, memory ``(B, S, D)``, ``tgt_mask`` ``(T, T)`` (usually causal),
        ``memory_mask`` ``(T, S)``, padding masks ``(B, T)`` and ``(B, S)`` -> ``(B, T, D)``
        and, with ``need_weights``, the weights of every head: self ``(B, Nh, T, T)`` and
        cross ``(B, Nh, T, S)``.
    """

    def __init__(
        self,
        d_model: int,
        num_heads: int,
        d_ff: int,
        dropout: float = 0.0,
        add_norm: str | None = "post",
    ) -> None:
        super().__init__(d_model, 3, add_norm, dropout)
        self.self_attn = MultiHeadAttention(d_model, num_heads, dropout)
        self.cross_attn = MultiHeadAttention(d_model, num_heads, dropout)
        self.ffn = FeedForward(d_model, d_ff, dropout)

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
        self._check_width(x=x, memory=memory)
        x, self_weights = self._sublayer(
            0,
            x,
            lambda h: self.self_attn(
                h,
                h,
                h,
                key_padding_mask=tgt_key_padding_mask,
                attn_mask=tgt_mask,
                need_weights=need_weights,
                average_attn_weights=False,
            ),
        )
        x, cross_weights = self._sublayer(
            1,
            x,
            lambda h: self.cross_attn(
                h,
                memory,
                memory,
                key_padding_mask=memory_key_padding_mask,
                attn_mask=memory_mask,
                need_weights=need_weights,
                average_attn_weights=False,
            ),
        )
        (x,) = self._sublayer(2, x, lambda h: (self.ffn(h),))
        return x, self_weights, cross_weights

    def step(
        self,
        x: Tensor,
        memory_kv: KeyValue,
        cache: KeyValue | None,
        *,
        memory_key_padding_mask: Tensor | None = None,
        need_weights: bool = False,
    ):
        """The newest target positions ``x`` ``(B, t, D)`` given the cached earlier ones.

        Returns ``(output (B, t, D), self weights, cross weights, updated cache)``; the same
        numbers ``forward`` gives at those positions under a causal ``tgt_mask``.
        """
        self._check_width(x=x)
        x, self_weights, cache = self._sublayer(
            0,
            x,
            lambda h: self.self_attn.self_attention_step(
                h, cache, need_weights=need_weights, average_attn_weights=False
            ),
        )
        x, cross_weights = self._sublayer(
            1,
            x,
            lambda h: self.cross_attn.attend(
                h,
                memory_kv,
                key_padding_mask=memory_key_padding_mask,
                need_weights=need_weights,
                average_attn_weights=False,
            ),
        )
        (x,) = self._sublayer(2, x, lambda h: (self.ffn(h),))
        return x, self_weights, cross_weights, cache


class _Stack(nn.Module):
    """``num_layers`` layers of ``layer_type``; a pre-LN stack ends with a LayerNorm."""

    layer_type: type[nn.Module]

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
        if num_layers < 1:
            raise ValueError(f"num_layers must be at least 1, got {num_layers}")
        self.layers = nn.ModuleList(
            self.layer_type(d_model, num_heads, d_ff, dropout, add_norm) for _ in range(num_layers)
        )
        self.norm = nn.LayerNorm(d_model) if add_norm == "pre" else nn.Identity()


class TransformerEncoder(_Stack):
    """``num_layers`` encoder layers; a pre-LN stack ends with a LayerNorm.

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
    ) -> tuple[Tensor, list[Tensor] | None]:
        weights = []
        for layer in self.layers:
            x, w = layer(
                x,
                src_mask=mask,
                src_key_padding_mask=src_key_padding_mask,
                need_weights=need_weights,
            )
            weights.append(w)
        return self.norm(x), (weights if need_weights else None)


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
    """``num_layers`` decoder layers; a pre-LN stack ends with a LayerNorm.

    ``forward`` decodes whole target sequences in parallel (training, teacher forcing);
    :meth:`init_cache` and :meth:`step` decode one position at a time, reusing the keys and
    values of earlier positions instead of recomputing them.

    Shape:
        x ``(B, T, D)``, memory ``(B, S, D)`` -> ``(B, T, D)``; with ``need_weights`` also
        ``{"self": [(B, Nh, T, T)] * L, "cross": [(B, Nh, T, S)] * L}``, else ``None``.
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
        self_weights, cross_weights = [], []
        for layer in self.layers:
            x, ws, wc = layer(
                x,
                memory,
                tgt_mask=tgt_mask,
                memory_mask=memory_mask,
                tgt_key_padding_mask=tgt_key_padding_mask,
                memory_key_padding_mask=memory_key_padding_mask,
                need_weights=need_weights,
            )
            self_weights.append(ws)
            cross_weights.append(wc)
        weights = {"self": self_weights, "cross": cross_weights} if need_weights else None
        return self.norm(x), weights

    def init_cache(self, memory: Tensor) -> DecoderCache:
        """Project the encoder memory ``(B, S, D)`` once for every layer's cross-attention."""
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
        new_self, self_weights, cross_weights = [], [], []
        for layer, memory_kv, kv in zip(self.layers, cache.memory, cache.self_attn, strict=True):
            x, ws, wc, kv = layer.step(
                x,
                memory_kv,
                kv,
                memory_key_padding_mask=memory_key_padding_mask,
                need_weights=need_weights,
            )
            new_self.append(kv)
            self_weights.append(ws)
            cross_weights.append(wc)
        weights = {"self": self_weights, "cross": cross_weights} if need_weights else None
        return self.norm(x), DecoderCache(cache.memory, tuple(new_self)), weights
