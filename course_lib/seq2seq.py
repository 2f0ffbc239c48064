"""Recurrent sequence-to-sequence models: a GRU encoder, a GRU decoder, and the loop around them.

Batch first everywhere. Letters used in this module:

* ``B`` -- batch size
* ``S`` -- source length, ``T`` -- target length (number of decoding steps)
* ``F`` -- features per step (2 for the squares)
* ``H`` -- hidden size of the GRUs

A GRU's recurrent state is ``(1, B, H)`` (layers first) even when its inputs are batch
first: that is PyTorch's convention, and the one place where a "sequence first" shape
survives in this library.

Unlike the lecture's teaching versions, nothing here is *set* on a module before it is
called (no ``init_hidden``, no ``self.hidden``): the decoder receives its state and returns
the new one, so a call depends only on its arguments and two batches can never mix.

Decoder-step protocol, shared with the attention decoders of Chapter 2::

    out, hidden, weights = decoder(x, hidden, memory, memory_key_padding_mask=...)

``x`` is ``(B, T, F)``, ``memory`` the encoder states ``(B, S, H)``; ``weights`` is the
attention over the source ``(B, T, S)``, or ``None`` for a decoder without attention.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor, nn

from course_lib._attention_checks import check_sizes
from course_lib._name_tables import explain_names
from course_lib._seq2seq_checks import (
    check_config_type,
    check_decoder_result,
    check_decoder_step,
    check_encoder_decoder,
    check_encoder_decoder_inputs,
    check_encoder_source,
    check_seq2seq_config,
)
from course_lib._validate import checked

__all__ = ["Seq2SeqConfig", "Encoder", "DecoderStep", "Decoder", "EncoderDecoder"]


@dataclass(frozen=True)
class Seq2SeqConfig:
    """Sizes and decoding settings of a recurrent encoder-decoder."""

    n_features: int = 2
    hidden_dim: int = 2
    target_len: int = 2
    teacher_forcing_prob: float = 0.5

    def __post_init__(self) -> None:
        check_seq2seq_config(self)


class Encoder(nn.Module):
    """A GRU that reads the source and returns every hidden state and the final one.

    Args:
        n_features: features per source step ``F``.
        hidden_dim: GRU hidden size ``H``.

    Shape:
        source ``(B, S, F)`` -> states ``(B, S, H)``, final ``(1, B, H)``.
    """

    def __init__(self, n_features: int, hidden_dim: int) -> None:
        super().__init__()
        self.n_features, self.hidden_dim = check_sizes(n_features=n_features, hidden_dim=hidden_dim)
        self.gru = nn.GRU(n_features, hidden_dim, batch_first=True)

    def forward(self, source: Tensor) -> tuple[Tensor, Tensor]:
        check_encoder_source(self, source)
        states, final = self.gru(source)  # (B, S, H), (1, B, H)
        return states, final


class DecoderStep(nn.Module):
    """Base of the decoders: their sizes and the argument checks of the decoder-step
    protocol. Subclasses with attention set ``needs_memory = True``.

    Args:
        n_features: features per step ``F`` (input and output).
        hidden_dim: GRU hidden size ``H``.
    """

    needs_memory = False

    def __init__(self, n_features: int, hidden_dim: int) -> None:
        super().__init__()
        self.n_features, self.hidden_dim = check_sizes(n_features=n_features, hidden_dim=hidden_dim)

    def check_step(
        self,
        x: Tensor,
        hidden: Tensor,
        memory: Tensor | None,
        memory_key_padding_mask: Tensor | None = None,
    ) -> None:
        """The shapes of a decoder step's arguments (cheap: checked at every step) and,
        outside a library call that checked them already, the padding mask's values."""
        check_decoder_step(self, x, hidden, memory, memory_key_padding_mask)


class Decoder(DecoderStep):
    """A GRU plus a linear layer, ``output``, that turns each hidden state into a point.

    Args:
        n_features: features per step ``F`` (input and output).
        hidden_dim: GRU hidden size ``H``.

    Shape:
        x ``(B, T, F)``, hidden ``(1, B, H)`` -> out ``(B, T, F)``, hidden ``(1, B, H)``.
        ``memory`` and ``memory_key_padding_mask`` are accepted for the shared decoder-step
        protocol and ignored: this decoder sees the source only through ``hidden``.

    Returns:
        ``(out, hidden, None)`` -- no attention weights.
    """

    def __init__(self, n_features: int, hidden_dim: int) -> None:
        super().__init__(n_features, hidden_dim)
        self.gru = nn.GRU(n_features, hidden_dim, batch_first=True)
        self.output = nn.Linear(hidden_dim, n_features)

    def forward(
        self,
        x: Tensor,
        hidden: Tensor,
        memory: Tensor | None = None,
        *,
        memory_key_padding_mask: Tensor | None = None,
    ) -> tuple[Tensor, Tensor, None]:
        self.check_step(x, hidden, memory, memory_key_padding_mask)
        outputs, hidden = self.gru(x, hidden)  # (B, T, H), (1, B, H)
        return self.output(outputs), hidden, None  # (B, T, F)


class EncoderDecoder(nn.Module):
    """Encode the source, then decode ``target_len`` points one step at a time.

    The first decoder input is the last source point (the target continues the source).
    In training mode, when ``target`` is given, each step flips one coin for the whole
    batch: with probability ``teacher_forcing_prob`` the next input is the true target
    point (teacher forcing), otherwise the model's own prediction. In eval mode the model
    always feeds back its own predictions and never reads ``target``, whatever is passed.

    Args:
        encoder: returns ``(states (B, S, H), final (1, B, H))`` for a source.
        decoder: follows the decoder-step protocol of this module.
        target_len: number of points to generate ``T``.
        teacher_forcing_prob: probability of teacher forcing at each training step.

    Shape:
        source ``(B, S, F)``, target ``(B, T, F)`` -> predictions ``(B, T, F)``;
        with ``need_weights=True`` also the attention weights ``(B, T, S)`` (or ``None``).
    """

    def __init__(
        self,
        encoder: nn.Module,
        decoder: nn.Module,
        target_len: int,
        teacher_forcing_prob: float = 0.5,
    ) -> None:
        super().__init__()
        check_encoder_decoder(encoder, decoder, target_len, teacher_forcing_prob)
        self.encoder = encoder
        self.decoder = decoder
        self.target_len = target_len
        self.teacher_forcing_prob = teacher_forcing_prob

    @classmethod
    def from_config(cls, config: Seq2SeqConfig) -> EncoderDecoder:
        """The plain GRU encoder-decoder of Chapter 1, built from a config."""
        check_config_type(config, Seq2SeqConfig)
        return cls(
            Encoder(config.n_features, config.hidden_dim),
            Decoder(config.n_features, config.hidden_dim),
            config.target_len,
            config.teacher_forcing_prob,
        )

    def forward(
        self,
        source: Tensor,
        target: Tensor | None = None,
        *,
        src_key_padding_mask: Tensor | None = None,
        need_weights: bool = False,
    ) -> Tensor | tuple[Tensor, Tensor | None]:
        check_encoder_decoder_inputs(self, source, target, src_key_padding_mask)
        use_target = self.training and target is not None
        memory, hidden = self.encoder(source)  # (B, S, H), (1, B, H)
        x = source[:, -1:]  # (B, 1, F): the last known point starts the decoding
        outputs, weights = [], []
        for t in range(self.target_len):
            out, hidden, w = self._step(x, hidden, memory, src_key_padding_mask)
            outputs.append(out)  # (B, 1, F)
            weights.append(w)  # (B, 1, S) or None
            teacher_forced = use_target and bool(torch.rand(()) < self.teacher_forcing_prob)
            x = target[:, t : t + 1] if teacher_forced else out
        predictions = torch.cat(outputs, dim=1)  # T x (B, 1, F) -> (B, T, F)
        if not need_weights:
            return predictions
        if weights[0] is None:
            return predictions, None
        return predictions, torch.cat(weights, dim=1)  # T x (B, 1, S) -> (B, T, S)

    def _step(self, x: Tensor, hidden: Tensor, memory: Tensor, mask: Tensor | None):
        """One decoder step, ``(out (B, 1, F), hidden (1, B, H), weights (B, 1, S) or None)``."""
        with checked():  # the mask's values were checked in forward, once
            result = self.decoder(x, hidden, memory, memory_key_padding_mask=mask)
        return check_decoder_result(self.decoder, result)


# Calls and attributes in other libraries' words: their tables are in _name_tables.py.
explain_names(__name__)
