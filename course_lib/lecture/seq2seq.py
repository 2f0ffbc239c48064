"""The lecture's GRU encoder-decoder, as Chapter 1 builds it.

Letters: ``B`` batch, ``S`` source length, ``T`` target length, ``F`` features per step,
``H`` hidden size. The decoder **stores** its recurrent state (``init_hidden``, then every
call overwrites ``self.hidden``); the library's :mod:`course_lib.seq2seq` passes it in and
returns it instead. See :mod:`course_lib.lecture` for why these classes are kept.
"""

from __future__ import annotations

import torch
from torch import nn

__all__ = ["LectureEncoder", "LectureDecoder", "LectureEncoderDecoder"]


class LectureEncoder(nn.Module):
    """A one-layer GRU that returns its hidden state at every source step.

    Args:
        n_features: features per step ``F``.
        hidden_dim: hidden size ``H``.

    Shape:
        ``X``: ``(B, S, F)`` -> ``(B, S, H)``.
    """

    def __init__(self, n_features, hidden_dim):
        super().__init__()
        self.n_features = n_features
        self.hidden_dim = hidden_dim
        self.basic_rnn = nn.GRU(n_features, hidden_dim, batch_first=True)

    def forward(self, X):
        # (B, S, F) -> (B, S, H): one hidden state per step
        rnn_out, _ = self.basic_rnn(X)
        return rnn_out


class LectureDecoder(nn.Module):
    """A GRU decoder that predicts one step per call from a stored state.

    Call ``init_hidden`` with the encoder's states first; each call then reads and
    overwrites ``self.hidden``.

    Args:
        n_features: features per step ``F``.
        hidden_dim: hidden size ``H``.

    Shape:
        ``init_hidden(hidden_seq)``: ``(B, S, H)``; ``self.hidden`` becomes ``(1, B, H)``.
        ``X``: ``(B, 1, F)`` -> ``(B, 1, F)``.
    """

    def __init__(self, n_features, hidden_dim):
        super().__init__()
        self.n_features = n_features
        self.hidden_dim = hidden_dim
        self.hidden = None  # set by init_hidden() before decoding
        self.basic_rnn = nn.GRU(n_features, hidden_dim, batch_first=True)
        self.regression = nn.Linear(hidden_dim, n_features)

    def init_hidden(self, hidden_seq):
        hidden_final = hidden_seq[:, -1:]  # (B, 1, H): the encoder's last state
        # (B, 1, H) -> (1, B, H): a GRU state is layers first
        self.hidden = hidden_final.permute(1, 0, 2)

    def forward(self, X):
        # X is (B, 1, F); the GRU reads and overwrites the stored state
        # -> (B, 1, H), (1, B, H)
        batch_first_output, self.hidden = self.basic_rnn(X, self.hidden)
        last_output = batch_first_output[:, -1:]  # (B, 1, H)
        out = self.regression(last_output)  # (B, 1, H) -> (B, 1, F)
        return out.view(-1, 1, self.n_features)  # (B, 1, F)


class LectureEncoderDecoder(nn.Module):
    """The lecture's encoder-decoder: encode the source, then decode step by step.

    In training mode ``X`` holds source and target, and each step's input is the true
    previous point with probability ``teacher_forcing_prob`` (one coin per step for the
    whole batch, drawn with ``torch.rand``); in evaluation ``X`` is the source alone and
    each prediction is fed back.

    Args:
        encoder: a :class:`LectureEncoder`.
        decoder: a :class:`LectureDecoder` (or one with the same protocol).
        input_len: source length ``S``.
        target_len: number of decoding steps ``T``.
        teacher_forcing_prob: probability of feeding the true point in training.

    Shape:
        ``X``: ``(B, S + T, F)`` in training, ``(B, S, F)`` in evaluation -> ``(B, T, F)``.
    """

    def __init__(self, encoder, decoder, input_len, target_len, teacher_forcing_prob=0.5):
        super().__init__()
        self.encoder = encoder
        self.decoder = decoder
        self.input_len = input_len
        self.target_len = target_len
        self.teacher_forcing_prob = teacher_forcing_prob

    def forward(self, X):
        # X is (B, L, F): source + target in training, the source alone in eval
        source_seq = X[:, : self.input_len]  # (B, S, F)
        target_seq = X[:, self.input_len :]  # (B, T, F), empty in evaluation
        hidden_seq = self.encoder(source_seq)  # (B, S, H)
        self.decoder.init_hidden(hidden_seq)
        dec_inputs = source_seq[:, -1:]  # (B, 1, F): the last source point
        outputs = []
        for i in range(self.target_len):
            out = self.decoder(dec_inputs)  # (B, 1, F)
            outputs.append(out)
            # no peeking at test time
            prob = self.teacher_forcing_prob if self.training else 0.0
            if torch.rand(1) <= prob:
                dec_inputs = target_seq[:, i : i + 1]
            else:
                dec_inputs = out
        return torch.cat(outputs, dim=1)  # T x (B, 1, F) -> (B, T, F)
