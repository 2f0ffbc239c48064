"""Transformer layers and the self-attention encoder-decoder of Chapters 3 and 4.

Batch first. Letters: ``B`` batch, ``S`` source length, ``T`` target length, ``F`` features
per point, ``D`` model width, ``H`` heads. Masks: True = blocked.

Each layer is a stack of *sublayers* (attention, feed-forward). ``add_norm`` says how a
sublayer's output joins its input:

* ``"post"`` -- ``LayerNorm(x + sublayer(x))``, the original Transformer's Add & Norm;
* ``"pre"``  -- ``x + sublayer(LayerNorm(x))``, easier to train in deep stacks;
* ``None``   -- ``sublayer(x)``, no residual and no normalisation: the lecture's first
  self-attention model.

Attention weights are returned when asked (``need_weights=True``), never stored.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor, nn

from course_lib._validate import check_sequence
from course_lib.attention import MultiHeadAttention
from course_lib.masking import causal_mask
from course_lib.positional import PositionalEncoding

__all__ = [
    "FeedForward",
    "EncoderLayer",
    "DecoderLayer",
    "SelfAttentionConfig",
    "SelfAttentionEncoderDecoder",
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
        self.add_norm = add_norm
        self.norms = nn.ModuleList(
            nn.LayerNorm(d_model) if add_norm else nn.Identity() for _ in range(n_sublayers)
        )
        self.dropout = nn.Dropout(dropout)

    def _sublayer(self, i: int, x: Tensor, sublayer) -> tuple[Tensor, Tensor | None]:
        if self.add_norm == "pre":
            out, weights = sublayer(self.norms[i](x))
            return x + self.dropout(out), weights
        out, weights = sublayer(x)
        if self.add_norm == "post":
            return self.norms[i](x + self.dropout(out)), weights
        return out, weights


class EncoderLayer(_Sublayers):
    """Self-attention then feed-forward.

    Shape:
        x ``(B, S, D)``, ``key_padding_mask`` ``(B, S)`` -> ``(B, S, D)`` and, with
        ``need_weights``, the self-attention weights of every head ``(B, H, S, S)``.
    """

    def __init__(self, d_model: int, num_heads: int, d_ff: int, dropout: float = 0.0,
                 add_norm: str | None = "post") -> None:
        super().__init__(d_model, 2, add_norm, dropout)
        self.self_attn = MultiHeadAttention(d_model, num_heads, dropout)
        self.ffn = FeedForward(d_model, d_ff, dropout)

    def forward(self, x: Tensor, key_padding_mask: Tensor | None = None,
                need_weights: bool = False) -> tuple[Tensor, Tensor | None]:
        x, weights = self._sublayer(0, x, lambda h: self.self_attn(
            h, h, h, key_padding_mask=key_padding_mask, need_weights=need_weights,
            average_attn_weights=False))
        x, _ = self._sublayer(1, x, lambda h: (self.ffn(h), None))
        return x, weights


class DecoderLayer(_Sublayers):
    """Masked self-attention, cross-attention to the encoder's output, then feed-forward.

    Shape:
        x ``(B, T, D)``, memory ``(B, S, D)``, ``tgt_mask`` ``(T, T)`` (usually causal),
        ``memory_key_padding_mask`` ``(B, S)`` -> ``(B, T, D)`` and, with ``need_weights``,
        the weights of every head: self ``(B, H, T, T)`` and cross ``(B, H, T, S)``.
    """

    def __init__(self, d_model: int, num_heads: int, d_ff: int, dropout: float = 0.0,
                 add_norm: str | None = "post") -> None:
        super().__init__(d_model, 3, add_norm, dropout)
        self.self_attn = MultiHeadAttention(d_model, num_heads, dropout)
        self.cross_attn = MultiHeadAttention(d_model, num_heads, dropout)
        self.ffn = FeedForward(d_model, d_ff, dropout)

    def forward(self, x: Tensor, memory: Tensor, tgt_mask: Tensor | None = None,
                tgt_key_padding_mask: Tensor | None = None,
                memory_key_padding_mask: Tensor | None = None,
                need_weights: bool = False) -> tuple[Tensor, Tensor | None, Tensor | None]:
        x, self_weights = self._sublayer(0, x, lambda h: self.self_attn(
            h, h, h, key_padding_mask=tgt_key_padding_mask, attn_mask=tgt_mask,
            need_weights=need_weights, average_attn_weights=False))
        x, cross_weights = self._sublayer(1, x, lambda h: self.cross_attn(
            h, memory, memory, key_padding_mask=memory_key_padding_mask,
            need_weights=need_weights, average_attn_weights=False))
        x, _ = self._sublayer(2, x, lambda h: (self.ffn(h), None))
        return x, self_weights, cross_weights


@dataclass(frozen=True)
class SelfAttentionConfig:
    """Sizes of the squares' self-attention encoder-decoder (defaults: the lecture's)."""

    n_features: int = 2
    d_model: int = 6
    num_heads: int = 3
    d_ff: int = 10
    target_len: int = 2
    num_layers: int = 1
    positional: bool = True
    max_len: int = 100
    add_norm: str | None = None
    dropout: float = 0.0
    start: str = "last"  # first decoder input: "last" source point, or "origin" (0, ..., 0)


class SelfAttentionEncoderDecoder(nn.Module):
    """Encoder-decoder made of attention layers only, for sequences of points.

    Points are embedded by a linear layer (``F -> D``), optionally scaled and position-
    encoded, passed through ``num_layers`` encoder and decoder layers, and mapped back to
    points (``D -> F``).

    * **Training** (``model.train()`` and a ``target``): the decoder reads the *shifted*
      target -- the last source point followed by every target point but the last -- in one
      parallel pass, with a causal mask so step ``t`` cannot see steps after ``t``.
    * **Evaluation** (or no target): it generates one point at a time, feeding each
      prediction back and re-running the decoder on the growing input under a growing mask.

    Shape:
        source ``(B, S, F)``, target ``(B, T, F)`` -> predictions ``(B, T, F)``; with
        ``need_weights=True`` also a dict of per-layer weight lists: ``"encoder"``
        ``(B, H, S, S)``, ``"decoder"`` ``(B, H, T, T)`` and ``"cross"`` ``(B, H, T, S)``.
    """

    def __init__(self, config: SelfAttentionConfig = SelfAttentionConfig()) -> None:
        super().__init__()
        c = self.config = config
        if c.start not in ("last", "origin"):
            raise ValueError(f"start must be 'last' or 'origin', got {c.start!r}")
        layer_args = (c.d_model, c.num_heads, c.d_ff, c.dropout, c.add_norm)
        self.embed_source = nn.Linear(c.n_features, c.d_model)
        self.embed_target = nn.Linear(c.n_features, c.d_model)
        self.positional = PositionalEncoding(c.max_len, c.d_model) if c.positional else None
        self.encoder_layers = nn.ModuleList(EncoderLayer(*layer_args) for _ in range(c.num_layers))
        self.decoder_layers = nn.ModuleList(DecoderLayer(*layer_args) for _ in range(c.num_layers))
        self.head = nn.Linear(c.d_model, c.n_features)

    def _embed(self, x: Tensor, embed: nn.Linear) -> Tensor:
        h = embed(x)  # (B, L, F) -> (B, L, D)
        return self.positional(h) if self.positional is not None else h

    def encode(self, source: Tensor, key_padding_mask: Tensor | None = None,
               need_weights: bool = False) -> tuple[Tensor, list]:
        """The encoder's output ``(B, S, D)`` and its weights per layer."""
        h, weights = self._embed(source, self.embed_source), []
        for layer in self.encoder_layers:
            h, w = layer(h, key_padding_mask, need_weights)
            weights.append(w)
        return h, weights

    def decode(self, inputs: Tensor, memory: Tensor, memory_key_padding_mask: Tensor | None = None,
               need_weights: bool = False) -> tuple[Tensor, list, list]:
        """Predicted points ``(B, T, F)`` for decoder inputs ``(B, T, F)``, under a causal mask."""
        h = self._embed(inputs, self.embed_target)
        mask = causal_mask(inputs.shape[1], device=inputs.device)  # (T, T), True above the diagonal
        self_weights, cross_weights = [], []
        for layer in self.decoder_layers:
            h, ws, wc = layer(h, memory, tgt_mask=mask,
                              memory_key_padding_mask=memory_key_padding_mask,
                              need_weights=need_weights)
            self_weights.append(ws)
            cross_weights.append(wc)
        return self.head(h), self_weights, cross_weights  # (B, T, D) -> (B, T, F)

    def _start(self, source: Tensor) -> Tensor:
        """The first decoder input ``(B, 1, F)``: the last source point, or the origin."""
        if self.config.start == "last":
            return source[:, -1:]
        return torch.zeros_like(source[:, :1])

    def forward(self, source: Tensor, target: Tensor | None = None,
                source_key_padding_mask: Tensor | None = None, need_weights: bool = False):
        c = self.config
        check_sequence(source, "source", c.n_features)
        memory, enc_weights = self.encode(source, source_key_padding_mask, need_weights)
        if self.training and target is not None:
            check_sequence(target, "target", c.n_features)
            if target.shape[:2] != (source.shape[0], c.target_len):
                raise ValueError(f"target must be (B, T={c.target_len}, F), got {tuple(target.shape)}")
            shifted = torch.cat([self._start(source), target[:, :-1]], dim=1)  # (B, T, F)
            predictions, dec_weights, cross_weights = self.decode(
                shifted, memory, source_key_padding_mask, need_weights)
        else:
            inputs = self._start(source)  # (B, 1, F)
            for _ in range(c.target_len):
                out, dec_weights, cross_weights = self.decode(
                    inputs, memory, source_key_padding_mask, need_weights)
                inputs = torch.cat([inputs, out[:, -1:]], dim=1)  # append the newest point
            predictions = inputs[:, 1:]  # drop the source point: (B, T, F)
        if not need_weights:
            return predictions
        return predictions, {"encoder": enc_weights, "decoder": dec_weights, "cross": cross_weights}
