"""Recurrent models that translate token sequences (Chapter 5: the GRUs of Chapters 1 and 2).

Batch first. Letters: ``B`` sentences, ``S`` source tokens, ``T`` target tokens, ``E``
embedding width, ``H`` hidden size of the GRUs, ``V`` vocabulary size. Token ids follow
:mod:`course_lib.vocab` (``<pad>`` = 0). A GRU's state is ``(1, B, H)``, layers first, as
everywhere in :mod:`course_lib.seq2seq`.

The model puts token embeddings around the book's recurrent parts, so that Chapter 5 can
set them beside the Transformer on the same data, decoded by the same functions:

* the encoder is a GRU that reads the embedded source as a *packed* sequence, so it never
  steps over ``<pad>``: its states at padded positions are 0 and each sentence's final state
  is the one after its last real token;
* the decoder is one of the library's own, fed the embedded target tokens as its features
  (``n_features = E``): :class:`~course_lib.seq2seq.Decoder` for ``attention="none"``
  (Chapter 1's encoder-decoder: the source reaches it only through the final state) or
  :class:`~course_lib.seq2seq_attention.BahdanauDecoder` for ``attention="bahdanau"``
  (Chapter 2: every step attends to all encoder states);
* a linear layer turns the decoder's output ``(B, T, E)`` into logits ``(B, T, V)``,
  optionally sharing its weights with the target embedding.

It has the decoding surface of :class:`~course_lib.translation.TranslationTransformer`
(:class:`~course_lib.decoding.Translator`), so the same functions decode both; its cache is
a :class:`RecurrentState`. Source sentences are right-padded, as
:func:`course_lib.vocab.pad` makes them; padding masks are True = padding = blocked.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import torch
from torch import Tensor, nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from course_lib._name_tables import explain_names
from course_lib._transformer_checks import check_config
from course_lib._translation_checks import (
    check_recurrent_config,
    check_recurrent_source,
    check_step,
    check_translation_input,
)
from course_lib._validate import checked
from course_lib.seq2seq import Decoder
from course_lib.seq2seq_attention import BahdanauDecoder
from course_lib.vocab import PAD

__all__ = ["ATTENTION", "RecurrentConfig", "RecurrentState", "RecurrentTranslator"]

ATTENTION = ("none", "bahdanau")


@dataclass(frozen=True)
class RecurrentConfig:
    """Sizes of a :class:`RecurrentTranslator`.

    ``attention`` picks the decoder: ``"none"`` (Chapter 1) or ``"bahdanau"`` (Chapter 2).
    ``max_len`` bounds the targets the decoding functions generate (``max_len - 1`` tokens
    after ``<sos>``), as for the Transformer; the GRUs themselves read any length.
    """

    src_vocab: int
    tgt_vocab: int
    embed_dim: int = 256
    hidden_dim: int = 256
    attention: str = "none"  # or "bahdanau"
    dropout: float = 0.1
    max_len: int = 64
    tie_embeddings: bool = False  # share the target embedding with the output layer

    def __post_init__(self) -> None:
        check_recurrent_config(self, ATTENTION)


class RecurrentState(NamedTuple):
    """What recurrent decoding carries from step to step.

    ``hidden`` ``(1, B, H)`` is the decoder's state after the tokens fed so far, ``memory``
    ``(B, S, H)`` the encoder states and ``src_key_padding_mask`` ``(B, S)`` their padding
    (fixed; only the attention decoder reads them), and ``length`` the number of target
    tokens fed so far.
    """

    hidden: Tensor  # (1, B, H)
    memory: Tensor  # (B, S, H)
    src_key_padding_mask: Tensor  # (B, S), True = padding
    length: int

    def select(self, index: Tensor) -> RecurrentState:
        """Keep (or repeat) batch rows ``index`` ``(B',)``: beam search reorders its beams."""
        hidden = self.hidden[:, index]  # (1, B, H) -> (1, B', H)
        memory = self.memory[index]  # (B, S, H) -> (B', S, H)
        return RecurrentState(hidden, memory, self.src_key_padding_mask[index], self.length)


class RecurrentTranslator(nn.Module):
    """GRU encoder-decoder over token ids, with or without Bahdanau attention.

    Args:
        config: sizes and the kind of decoder, a :class:`RecurrentConfig`.

    Shape:
        ``src`` ``(B, S)`` and ``tgt_in`` ``(B, T)`` long tensors (``<sos> y1 ... y_{T-1}``)
        -> logits ``(B, T, V)`` for ``y1 ... y_T``; with ``need_weights=True`` also the
        attention over the source ``(B, T, S)`` (``None`` for ``attention="none"``).
    """

    def __init__(self, config: RecurrentConfig) -> None:
        super().__init__()
        check_config(config, RecurrentConfig)
        c = self.config = config
        self.max_len = c.max_len  # target positions decoding may use (the protocol)
        self.src_embed = nn.Embedding(c.src_vocab, c.embed_dim, padding_idx=PAD)
        self.tgt_embed = nn.Embedding(c.tgt_vocab, c.embed_dim, padding_idx=PAD)
        self.dropout = nn.Dropout(c.dropout)
        self.encoder = nn.GRU(c.embed_dim, c.hidden_dim, batch_first=True)
        decoder_type = BahdanauDecoder if c.attention == "bahdanau" else Decoder
        self.decoder = decoder_type(c.embed_dim, c.hidden_dim)
        self.output = nn.Linear(c.embed_dim, c.tgt_vocab)
        if c.tie_embeddings:
            self.output.weight = self.tgt_embed.weight

    def encode(self, src: Tensor) -> tuple[Tensor, Tensor]:
        """Run the encoder GRU over the real tokens of each sentence.

        Args:
            src: ``(B, S)`` token ids, right-padded with ``<pad>``.

        Returns:
            ``(memory (B, S, H), src_key_padding_mask (B, S))``; ``memory`` is 0 at padded
            positions and stores nothing on the module.
        """
        check_recurrent_source(self.config, src)
        src_key_padding_mask = src == PAD  # (B, S), True = padding, after each sentence
        lengths = (~src_key_padding_mask).sum(dim=1)  # (B,): real tokens per sentence
        x = self.dropout(self.src_embed(src))  # (B, S, E)
        packed = pack_padded_sequence(x, lengths.cpu(), batch_first=True, enforce_sorted=False)
        states, _ = self.encoder(packed)  # packed (sum of lengths, H)
        memory, _ = pad_packed_sequence(
            states, batch_first=True, total_length=src.shape[1]
        )  # (B, S, H), zeros after each sentence's end
        return memory, src_key_padding_mask

    def init_cache(self, src: Tensor) -> RecurrentState:
        """Encode ``src`` ``(B, S)``; the decoder starts from the encoder's state after each
        sentence's last real token."""
        memory, src_key_padding_mask = self.encode(src)
        lengths = (~src_key_padding_mask).sum(dim=1)  # (B,): encode checked the padding
        rows = torch.arange(memory.shape[0], device=memory.device)  # (B,)
        # (B, S, H) -> (B, H): a packed GRU's output at the last real token IS its final state
        final = memory[rows, lengths - 1]
        return RecurrentState(final.unsqueeze(0), memory, src_key_padding_mask, 0)

    def step(
        self, tokens: Tensor, cache: RecurrentState, *, need_weights: bool = False
    ) -> tuple[Tensor, RecurrentState, Tensor | None]:
        """Feed the newest target tokens ``(B, t)`` to the decoder, starting from ``cache``.

        Returns:
            ``(logits (B, t, V), updated cache (length + t), weights (B, t, S) or None)``;
            the weights are ``None`` without ``need_weights`` or without attention.
        """
        check_step(tokens, cache, RecurrentState, self.config.tgt_vocab)
        y = self.dropout(self.tgt_embed(tokens))  # (B, t, E)
        with checked():  # the padding comes from encode: no value scan per decoded token
            out, hidden, weights = self.decoder(
                y, cache.hidden, cache.memory, memory_key_padding_mask=cache.src_key_padding_mask
            )  # (B, t, E), (1, B, H), (B, t, S) or None
        logits = self.output(out)  # (B, t, E) -> (B, t, V)
        cache = cache._replace(hidden=hidden, length=cache.length + tokens.shape[1])
        return logits, cache, (weights if need_weights else None)

    def forward(
        self, src: Tensor, tgt_in: Tensor, *, need_weights: bool = False
    ) -> Tensor | tuple[Tensor, Tensor | None]:
        """Teacher forcing over the whole target: ``tgt_in`` is ``<sos> y1 ... y_{T-1}``.

        Returns:
            logits ``(B, T, V)``; with ``need_weights`` also the weights ``(B, T, S)``
            (``None`` for ``attention="none"``).
        """
        check_translation_input(self.config, src, tgt_in, src_max_len=False)
        with checked():
            cache = self.init_cache(src)
            logits, _, weights = self.step(tgt_in, cache, need_weights=need_weights)
        if not need_weights:
            return logits
        return logits, weights


# Calls and attributes in other libraries' words: their tables are in _name_tables.py.
explain_names(__name__)
