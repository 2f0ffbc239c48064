"""The lecture's attention head and attention decoder, as Chapter 2 builds them.

Letters: ``B`` batch, ``S`` source length (keys), ``T`` queries, ``F`` features per step,
``H`` hidden size. Keys are **stored** by ``init_keys`` before the queries arrive, the
weights of the last call are **stored** in ``alphas``, and a mask is ``True`` where a query
**may** attend -- the lecture's design; the library's :mod:`course_lib.attention` passes
keys with every call, returns the weights and uses ``True = blocked``. See
:mod:`course_lib.lecture` for why these classes are kept.
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

__all__ = ["LectureAttention", "LectureDecoderAttn", "LectureEncoderDecoderAttn"]


class LectureAttention(nn.Module):
    """One scaled dot-product attention head with stored keys.

    The value projection is always created (so that a seed gives the lecture's initial
    weights) but only used when ``proj_values`` is true.

    Args:
        hidden_dim: width ``H`` of the projected queries and keys (and values).
        input_dim: width of the inputs; ``hidden_dim`` if ``None``.
        proj_values: project the values too; otherwise the keys are the values.

    Shape:
        ``init_keys(keys)``: ``(B, S, input_dim)``.
        ``query``: ``(B, T, input_dim)``; ``mask``: broadcastable to ``(B, T, S)``,
        ``True`` = may attend -> context ``(B, T, H)`` (``(B, T, input_dim)`` without
        ``proj_values``); ``self.alphas`` becomes ``(B, T, S)``.
    """

    def __init__(self, hidden_dim, input_dim=None, proj_values=False):
        super().__init__()
        self.d_k = hidden_dim
        self.input_dim = hidden_dim if input_dim is None else input_dim
        self.proj_values = proj_values
        self.linear_query = nn.Linear(self.input_dim, hidden_dim)
        self.linear_key = nn.Linear(self.input_dim, hidden_dim)
        self.linear_value = nn.Linear(self.input_dim, hidden_dim)
        self.alphas = None

    def init_keys(self, keys):
        self.keys = keys  # (B, S, input_dim), stored for every later query
        self.proj_keys = self.linear_key(keys)  # (B, S, H)
        self.values = self.linear_value(keys) if self.proj_values else keys

    def forward(self, query, mask=None):
        proj_query = self.linear_query(query)  # (B, T, H)
        # (B, T, H) @ (B, H, S) -> (B, T, S)
        scores = torch.bmm(proj_query, self.proj_keys.permute(0, 2, 1))
        scores = scores / np.sqrt(self.d_k)
        if mask is not None:  # the lecture's polarity: True = keep
            scores = scores.masked_fill(mask == 0, -1e9)
        alphas = F.softmax(scores, dim=-1)  # (B, T, S)
        self.alphas = alphas.detach()  # stored for plotting
        # (B, T, S) @ (B, S, H) -> (B, T, H)
        return torch.bmm(alphas, self.values)


class LectureDecoderAttn(nn.Module):
    """The lecture's GRU decoder with attention *after* the recurrent step.

    The GRU's new state is the query; the context over the encoder's states is
    concatenated with it and mapped to the next point.

    Args:
        n_features: features per step ``F``.
        hidden_dim: hidden size ``H``.

    Shape:
        ``init_hidden(hidden_seq)``: ``(B, S, H)``, the keys and values.
        ``X``: ``(B, 1, F)`` -> ``(B, 1, F)``; ``self.attn.alphas`` becomes ``(B, 1, S)``.
    """

    def __init__(self, n_features, hidden_dim):
        super().__init__()
        self.n_features, self.hidden_dim = n_features, hidden_dim
        self.hidden = None
        self.basic_rnn = nn.GRU(n_features, hidden_dim, batch_first=True)
        self.attn = LectureAttention(hidden_dim)
        self.regression = nn.Linear(2 * hidden_dim, n_features)

    def init_hidden(self, hidden_seq):
        self.attn.init_keys(hidden_seq)  # keys and values: all encoder states
        # (B, 1, H) -> (1, B, H)
        self.hidden = hidden_seq[:, -1:].permute(1, 0, 2)

    def forward(self, X, mask=None):
        # (B, 1, F) -> (B, 1, H)
        batch_first_output, self.hidden = self.basic_rnn(X, self.hidden)
        query = batch_first_output[:, -1:]  # (B, 1, H)
        context = self.attn(query, mask=mask)  # (B, 1, H)
        concatenated = torch.cat([context, query], dim=-1)  # (B, 1, 2H)
        out = self.regression(concatenated)  # (B, 1, F)
        return out.view(-1, 1, self.n_features)


class LectureEncoderDecoderAttn(nn.Module):
    """Chapter 1's encoder-decoder, storing the decoder's alphas of every step.

    Args:
        encoder: a :class:`~course_lib.lecture.seq2seq.LectureEncoder`.
        decoder: a :class:`LectureDecoderAttn`.
        input_len: source length ``S``.
        target_len: number of decoding steps ``T``.
        teacher_forcing_prob: probability of feeding the true point in training.

    Shape:
        ``X``: ``(B, S + T, F)`` in training, ``(B, S, F)`` in evaluation -> ``(B, T, F)``;
        ``self.alphas`` becomes ``(B, T, S)``.
    """

    def __init__(self, encoder, decoder, input_len, target_len, teacher_forcing_prob=0.5):
        super().__init__()
        self.encoder, self.decoder = encoder, decoder
        self.input_len, self.target_len = input_len, target_len
        self.teacher_forcing_prob = teacher_forcing_prob
        self.alphas = None

    def forward(self, X):
        source_seq = X[:, : self.input_len]  # (B, S, F)
        target_seq = X[:, self.input_len :]  # (B, T, F), empty in evaluation
        self.decoder.init_hidden(self.encoder(source_seq))
        dec_inputs = source_seq[:, -1:]
        outputs, alphas = [], []
        for i in range(self.target_len):
            out = self.decoder(dec_inputs)  # (B, 1, F)
            outputs.append(out)
            alphas.append(self.decoder.attn.alphas)  # (B, 1, S)
            prob = self.teacher_forcing_prob if self.training else 0.0
            # the coin is drawn in evaluation too, as in the lecture
            if torch.rand(1) <= prob:
                dec_inputs = target_seq[:, i : i + 1]
            else:
                dec_inputs = out
        self.alphas = torch.cat(alphas, dim=1)  # (B, T, S)
        return torch.cat(outputs, dim=1)  # (B, T, F)
