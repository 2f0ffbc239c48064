"""GRU decoders that attend to the encoder's states (Chapter 2).

Both follow the decoder-step protocol of :mod:`course_lib.seq2seq`, so they plug into
:class:`~course_lib.seq2seq.EncoderDecoder` unchanged::

    out, hidden, weights = decoder(x, hidden, memory, memory_key_padding_mask=...)

Letters: ``B`` batch, ``T`` decoding steps in ``x``, ``S`` source length, ``F`` features,
``H`` hidden size. ``memory`` is the encoder's states ``(B, S, H)``; ``weights`` are the
attention over the source, ``(B, T, S)``. Masks: True = blocked (a padded source step).

* :class:`AttentionDecoder` -- the lecture's decoder: the GRU steps first, then its output
  is the query; context and query together predict the point.
* :class:`BahdanauDecoder` -- Bahdanau et al. (2015): the *previous* state is the query,
  scored with additive attention, and the context joins the GRU's input.
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

from course_lib._name_tables import explain_names
from course_lib._seq2seq_checks import check_attn_dim
from course_lib._validate import checked
from course_lib.attention import AdditiveAttention, Attention
from course_lib.seq2seq import DecoderStep

__all__ = ["AttentionDecoder", "BahdanauDecoder"]


class AttentionDecoder(DecoderStep):
    """GRU decoder with attention after each step (the lecture's ``DecoderAttn``).

    At each step the GRU reads the input; its output is the **query**. The keys are the
    projected encoder states and the values the encoder states themselves. The context
    vector is concatenated with the query and a linear layer, ``output``, predicts the point
    (the lecture calls it ``regression``).

    Args:
        n_features: features per step ``F``.
        hidden_dim: GRU hidden size ``H`` (the encoder's too).

    Shape:
        x ``(B, T, F)``, hidden ``(1, B, H)``, memory ``(B, S, H)`` ->
        out ``(B, T, F)``, hidden ``(1, B, H)``, weights ``(B, T, S)``.
    """

    needs_memory = True

    def __init__(self, n_features: int, hidden_dim: int) -> None:
        super().__init__(n_features, hidden_dim)
        self.gru = nn.GRU(n_features, hidden_dim, batch_first=True)
        self.attention = Attention(proj_dim=hidden_dim)
        self.output = nn.Linear(2 * hidden_dim, n_features)

    def forward(
        self,
        x: Tensor,
        hidden: Tensor,
        memory: Tensor | None = None,
        *,
        memory_key_padding_mask: Tensor | None = None,
    ) -> tuple[Tensor, Tensor, Tensor]:
        self.check_step(x, hidden, memory, memory_key_padding_mask)
        queries, hidden = self.gru(x, hidden)  # (B, T, H), (1, B, H)
        context, weights = self.attention(
            queries, memory, key_padding_mask=memory_key_padding_mask
        )  # (B, T, H), (B, T, S)
        out = self.output(torch.cat([context, queries], dim=-1))  # (B, T, 2H) -> (B, T, F)
        return out, hidden, weights


class BahdanauDecoder(DecoderStep):
    """GRU decoder with Bahdanau attention: attend first, then step.

    Before each step the **previous** hidden state is the query; additive attention scores
    it against the encoder states, and the context vector is concatenated to the input of
    the GRU. Because each query depends on the previous step, the steps of a multi-step
    ``x`` run one after the other.

    Args:
        n_features: features per step ``F``.
        hidden_dim: GRU hidden size ``H`` (the encoder's too).
        attn_dim: hidden width of the additive scoring network (default ``H``).

    Shape:
        x ``(B, T, F)``, hidden ``(1, B, H)``, memory ``(B, S, H)`` ->
        out ``(B, T, F)``, hidden ``(1, B, H)``, weights ``(B, T, S)``.
    """

    needs_memory = True

    def __init__(self, n_features: int, hidden_dim: int, attn_dim: int | None = None) -> None:
        super().__init__(n_features, hidden_dim)
        check_attn_dim(attn_dim)
        self.attention = AdditiveAttention(hidden_dim, hidden_dim, attn_dim=attn_dim or hidden_dim)
        self.gru = nn.GRU(n_features + hidden_dim, hidden_dim, batch_first=True)
        self.output = nn.Linear(hidden_dim, n_features)

    def forward(
        self,
        x: Tensor,
        hidden: Tensor,
        memory: Tensor | None = None,
        *,
        memory_key_padding_mask: Tensor | None = None,
    ) -> tuple[Tensor, Tensor, Tensor]:
        self.check_step(x, hidden, memory, memory_key_padding_mask)
        outputs, weights = [], []
        for t in range(x.shape[1]):
            query = hidden.transpose(0, 1)  # (1, B, H) -> (B, 1, H): the previous state
            with checked():  # checked above, in the caller's words
                context, w = self.attention(
                    query, memory, memory, key_padding_mask=memory_key_padding_mask
                )  # (B, 1, H), (B, 1, S)
            step_input = torch.cat([x[:, t : t + 1], context], dim=-1)  # (B, 1, F + H)
            output, hidden = self.gru(step_input, hidden)  # (B, 1, H), (1, B, H)
            outputs.append(self.output(output))  # (B, 1, F)
            weights.append(w)
        return torch.cat(outputs, dim=1), hidden, torch.cat(weights, dim=1)  # (B, T, F), (B, T, S)


# Calls and attributes in other libraries' words: their tables are in _name_tables.py.
explain_names(__name__)
