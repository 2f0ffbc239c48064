"""The lecture's multi-head attention and self-attention encoder-decoder (Chapter 3).

Letters: ``B`` batch, ``S`` source length, ``T`` target length (queries), ``F`` features
per point, ``D`` model width, ``Nh`` heads. Every head is **full width** (it projects its
input to ``D`` features); the ``Nh`` contexts are concatenated to ``Nh * D`` and mapped back
to ``D``. Keys are stored by ``init_keys``, weights in ``alphas``, and masks are ``True``
where a query **may** attend. No residual connections and no normalisation: that is the
lecture's first self-attention model. The library's :mod:`course_lib.multihead` and
:mod:`course_lib.transformer` split one width into heads, as ``nn.MultiheadAttention``
does. See :mod:`course_lib.lecture` for why these classes are kept.
"""

from __future__ import annotations

import torch
from torch import nn

from course_lib.lecture.attention import LectureAttention

__all__ = [
    "LectureMultiHeadAttention",
    "LectureEncoderSelfAttn",
    "LectureDecoderSelfAttn",
    "subsequent_mask",
    "LectureEncoderDecoderSelfAttn",
]


class LectureMultiHeadAttention(nn.Module):
    """``Nh`` full-width :class:`~course_lib.lecture.attention.LectureAttention` heads.

    Args:
        n_heads: number of heads ``Nh``.
        d_model: width ``D`` of every head and of the output.
        input_dim: width of the inputs; ``d_model`` if ``None``.
        proj_values: project the values in every head.

    Shape:
        ``init_keys(key)``: ``(B, S, input_dim)``.
        ``query``: ``(B, T, input_dim)``, ``mask`` broadcastable to ``(B, T, S)`` with
        ``True`` = may attend -> ``(B, T, D)``; ``alphas``: ``(Nh, B, T, S)``.
    """

    def __init__(self, n_heads, d_model, input_dim=None, proj_values=True):
        super().__init__()
        self.linear_out = nn.Linear(n_heads * d_model, d_model)
        self.attn_heads = nn.ModuleList(
            LectureAttention(d_model, input_dim, proj_values) for _ in range(n_heads)
        )

    def init_keys(self, key):
        for attn in self.attn_heads:
            attn.init_keys(key)

    @property
    def alphas(self):
        # (n_heads, B, T, S)
        return torch.stack([attn.alphas for attn in self.attn_heads], dim=0)

    def forward(self, query, mask=None):
        contexts = [attn(query, mask=mask) for attn in self.attn_heads]
        # n_heads x (B, T, D) -> (B, T, n_heads * D)
        concatenated = torch.cat(contexts, dim=-1)
        return self.linear_out(concatenated)  # -> (B, T, D)


class LectureEncoderSelfAttn(nn.Module):
    """Self-attention over the source, then a feed-forward network.

    Args:
        n_heads: number of heads ``Nh``.
        d_model: model width ``D``.
        ff_units: hidden units of the feed-forward network.
        n_features: features per input point ``F``; ``d_model`` if ``None``.

    Shape:
        ``query``: ``(B, S, F)`` -> ``(B, S, D)``, the encoder's states.
    """

    def __init__(self, n_heads, d_model, ff_units, n_features=None):
        super().__init__()
        self.self_attn_heads = LectureMultiHeadAttention(n_heads, d_model, input_dim=n_features)
        self.ffn = nn.Sequential(
            nn.Linear(d_model, ff_units),
            nn.ReLU(),
            nn.Linear(ff_units, d_model),
        )

    def forward(self, query, mask=None):
        # the source is also the keys and the values
        self.self_attn_heads.init_keys(query)
        att = self.self_attn_heads(query, mask)  # (B, S, D): one per point
        return self.ffn(att)  # (B, S, D): the "hidden states"


class LectureDecoderSelfAttn(nn.Module):
    """Masked self-attention, cross-attention to the encoder, feed-forward to points.

    Args:
        n_heads: number of heads ``Nh``.
        d_model: model width ``D``.
        ff_units: hidden units of the feed-forward network.
        n_features: features per point ``F``; ``d_model`` if ``None``.

    Shape:
        ``init_keys(states)``: ``(B, S, D)``, the encoder's states.
        ``query``: ``(B, T, F)`` -> ``(B, T, F)``; ``target_mask``: ``(1, T, T)``,
        ``True`` = may attend.
    """

    def __init__(self, n_heads, d_model, ff_units, n_features=None):
        super().__init__()
        self.n_features = d_model if n_features is None else n_features
        self.self_attn_heads = LectureMultiHeadAttention(
            n_heads, d_model, input_dim=self.n_features
        )
        self.cross_attn_heads = LectureMultiHeadAttention(n_heads, d_model)
        self.ffn = nn.Sequential(
            nn.Linear(d_model, ff_units),
            nn.ReLU(),
            nn.Linear(ff_units, self.n_features),
        )

    def init_keys(self, states):
        self.cross_attn_heads.init_keys(states)  # the encoder's states

    def forward(self, query, source_mask=None, target_mask=None):
        self.self_attn_heads.init_keys(query)
        att1 = self.self_attn_heads(query, target_mask)  # (B, T, D): self
        att2 = self.cross_attn_heads(att1, source_mask)  # (B, T, D): cross
        return self.ffn(att2)  # (B, T, F): the predicted points


def subsequent_mask(size):
    """The lecture's causal mask, ``(1, T, T)``: ``True`` on and below the diagonal.

    ``True`` means *may look* -- the negation of :func:`course_lib.masking.causal_mask`.
    """
    attn_shape = (1, size, size)
    # True = may look: on and below the diagonal
    return (1 - torch.triu(torch.ones(attn_shape), diagonal=1)).bool()


class LectureEncoderDecoderSelfAttn(nn.Module):
    """The lecture's self-attention encoder-decoder for sequences of points.

    In training ``X`` is the whole sequence and the decoder reads the **shifted target**
    (the last source point, then every target point but the last) in one pass under the
    subsequent mask; in evaluation ``X`` is the source, and the decoder generates one point
    at a time, feeding each prediction back.

    Args:
        encoder: a :class:`LectureEncoderSelfAttn` (or one with its protocol).
        decoder: a :class:`LectureDecoderSelfAttn` (or one with its protocol).
        input_len: source length ``S``.
        target_len: target length ``T``.

    Shape:
        ``X``: ``(B, S + T, F)`` in training, ``(B, S, F)`` in evaluation -> ``(B, T, F)``.
    """

    def __init__(self, encoder, decoder, input_len, target_len):
        super().__init__()
        self.encoder, self.decoder = encoder, decoder
        self.input_len, self.target_len = input_len, target_len
        # (1, T, T), True = may look
        self.trg_masks = subsequent_mask(target_len)

    def predict(self, source_seq, source_mask=None):
        # evaluation: one point at a time, under growing masks
        inputs = source_seq[:, -1:]
        for i in range(self.target_len):
            mask = self.trg_masks[:, : i + 1, : i + 1]
            out = self.decoder(inputs, source_mask, mask)
            inputs = torch.cat([inputs, out[:, -1:]], dim=-2).detach()
        return inputs[:, 1:]  # (B, T, F): without the source point

    def forward(self, X, source_mask=None):
        source_seq = X[:, : self.input_len]
        self.decoder.init_keys(self.encoder(source_seq, source_mask))
        if self.training:  # the shifted target in one pass, causal mask
            shifted = X[:, self.input_len - 1 : -1]
            return self.decoder(shifted, source_mask, self.trg_masks)
        return self.predict(source_seq, source_mask)
