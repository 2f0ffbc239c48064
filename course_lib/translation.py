"""A Transformer that translates token sequences (Chapter 5: French -> English).

Batch first. Letters: ``B`` sentences, ``S`` source tokens, ``T`` target tokens, ``D`` model
width, ``V`` vocabulary size. Token ids follow :mod:`course_lib.vocab` (``<pad>`` = 0).

The model is assembled from the book's parts: token embeddings scaled by ``sqrt(D)`` plus
sinusoidal positions (:class:`~course_lib.positional.PositionalEncoding`, Chapter 4), the
encoder and decoder stacks of :mod:`course_lib.transformer` (Chapter 3), and a linear output
layer over the target vocabulary, optionally sharing its weights with the target embedding.
All three masks are derived from the padding token:

* ``src_key_padding_mask`` ``(B, S)`` -- the encoder's self-attention ignores padding;
* ``tgt_key_padding_mask`` ``(B, T)`` plus the causal ``tgt_mask`` ``(T, T)`` -- the decoder's
  self-attention sees neither padding nor the future;
* ``memory_key_padding_mask`` ``(B, S)`` -- cross-attention ignores the source's padding.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from course_lib._name_tables import explain_names
from course_lib._transformer_checks import check_config
from course_lib._translation_checks import (
    check_step,
    check_translation_config,
    check_translation_input,
    check_translation_loss,
    check_translation_source,
)
from course_lib._validate import AttentionWeights, checked
from course_lib.masking import causal_mask
from course_lib.positional import PositionalEncoding
from course_lib.transformer import DecoderCache, TransformerDecoder, TransformerEncoder
from course_lib.vocab import PAD

__all__ = ["TranslationConfig", "TranslationTransformer", "TranslationCache", "translation_loss"]


@dataclass(frozen=True)
class TranslationConfig:
    """Sizes of a :class:`TranslationTransformer`."""

    src_vocab: int
    tgt_vocab: int
    d_model: int = 256
    num_heads: int = 4
    d_ff: int = 512
    num_encoder_layers: int = 2
    num_decoder_layers: int = 2
    dropout: float = 0.1
    add_norm: str = "post"  # or "pre"
    max_len: int = 64
    tie_embeddings: bool = False  # share the target embedding with the output layer

    def __post_init__(self) -> None:
        check_translation_config(self)


class TranslationCache(NamedTuple):
    """What decoding carries from step to step: the decoder stack's cache (the memory's
    projected keys and values, the self-attention keys and values so far) and the source
    padding ``(B, S)``, True = padding."""

    decoder: DecoderCache
    src_key_padding_mask: Tensor

    @property
    def length(self) -> int:
        """Target positions decoded so far."""
        return self.decoder.length

    def select(self, index: Tensor) -> TranslationCache:
        """Keep (or repeat) batch rows ``index`` ``(B',)``: beam search reorders its beams."""
        return TranslationCache(self.decoder.select(index), self.src_key_padding_mask[index])


class TranslationTransformer(nn.Module):
    """Encoder-decoder Transformer over token ids.

    Shape:
        ``src`` ``(B, S)`` and ``tgt_in`` ``(B, T)`` long tensors (``<sos> y1 ... y_{T-1}``)
        -> logits ``(B, T, V)`` for ``y1 ... y_T``; with ``need_weights=True`` also
        ``{"encoder": [...], "self": [...], "cross": [...]}``, one ``(B, Nh, ., .)`` tensor
        per layer.
    """

    def __init__(self, config: TranslationConfig) -> None:
        super().__init__()
        check_config(config, TranslationConfig)
        c = self.config = config
        self.max_len = c.max_len  # target positions it encodes (the decoding protocol)
        self.src_embed = nn.Embedding(c.src_vocab, c.d_model, padding_idx=PAD)
        self.tgt_embed = nn.Embedding(c.tgt_vocab, c.d_model, padding_idx=PAD)
        self.positional = PositionalEncoding(c.max_len, c.d_model)
        self.dropout = nn.Dropout(c.dropout)
        self.encoder = TransformerEncoder(
            c.d_model, c.num_heads, c.d_ff, c.num_encoder_layers, c.dropout, c.add_norm
        )
        self.decoder = TransformerDecoder(
            c.d_model, c.num_heads, c.d_ff, c.num_decoder_layers, c.dropout, c.add_norm
        )
        self.output = nn.Linear(c.d_model, c.tgt_vocab)
        for embedding in (self.src_embed, self.tgt_embed):  # unit-variance rows / sqrt(D)
            nn.init.normal_(embedding.weight, std=c.d_model**-0.5)
            with torch.no_grad():
                embedding.weight[PAD].zero_()
        if c.tie_embeddings:
            self.output.weight = self.tgt_embed.weight

    def encode(self, src: Tensor, *, need_weights: bool = False):
        """``(memory (B, S, D), src_key_padding_mask (B, S), encoder weights or None)``."""
        check_translation_source(self.config, src)
        src_key_padding_mask = src == PAD  # (B, S), True = padding
        with checked():
            x = self.dropout(self.positional(self.src_embed(src)))  # (B, S, D)
            memory, weights = self.encoder(
                x, src_key_padding_mask=src_key_padding_mask, need_weights=need_weights
            )
        return memory, src_key_padding_mask, weights

    def forward(self, src: Tensor, tgt_in: Tensor, *, need_weights: bool = False):
        check_translation_input(self.config, src, tgt_in)
        T = tgt_in.shape[1]
        with checked():
            memory, src_kpm, enc_weights = self.encode(src, need_weights=need_weights)
            y = self.dropout(self.positional(self.tgt_embed(tgt_in)))  # (B, T, D)
            h, dec_weights = self.decoder(
                y,
                memory,
                tgt_mask=causal_mask(T, device=tgt_in.device),
                tgt_key_padding_mask=tgt_in == PAD,
                memory_key_padding_mask=src_kpm,
                need_weights=need_weights,
            )
        logits = self.output(h)  # (B, T, D) -> (B, T, V)
        if not need_weights:
            return logits
        return logits, AttentionWeights(encoder=enc_weights, **dec_weights)

    def init_cache(self, src: Tensor) -> TranslationCache:
        """Encode ``src`` ``(B, S)`` once; the cache holds the memory's keys and values,
        projected once per layer, and the source padding."""
        memory, src_key_padding_mask, _ = self.encode(src)
        return TranslationCache(self.decoder.init_cache(memory), src_key_padding_mask)

    def step(
        self, tokens: Tensor, cache: TranslationCache, *, need_weights: bool = False
    ) -> tuple[Tensor, TranslationCache, dict | None]:
        """Logits ``(B, t, V)`` for the newest target tokens ``(B, t)``, positions
        ``cache.length ...``; returns ``(logits, updated cache, weights or None)``."""
        check_step(tokens, cache, TranslationCache, self.config.tgt_vocab)
        with checked():
            y = self.positional(self.tgt_embed(tokens), start=cache.length)  # (B, t, D)
            h, decoder_cache, weights = self.decoder.step(
                self.dropout(y),
                cache.decoder,
                memory_key_padding_mask=cache.src_key_padding_mask,
                need_weights=need_weights,
            )
        return self.output(h), cache._replace(decoder=decoder_cache), weights


def translation_loss(
    logits: Tensor, target: Tensor, label_smoothing: float = 0.0, *, reduction: str = "mean"
) -> Tensor:
    """Cross-entropy per real target token (``<pad>`` ignored), with optional label smoothing.

    Args:
        logits: ``(B, T, V)``.
        target: ``(B, T)`` token ids, ``<pad>`` where there is no token.
        label_smoothing: ``epsilon``; the target puts ``epsilon / V`` on every token.
        reduction: ``"mean"`` over the real tokens (training), or ``"sum"`` (add the sums of
            many batches, then divide by their tokens: a corpus's loss per token, and
            :func:`~course_lib.metrics.perplexity` from it).
    """
    check_translation_loss(logits, target, reduction)
    # (B, T, V) -> (B * T, V) and (B, T) -> (B * T,): one prediction per position
    return F.cross_entropy(
        logits.flatten(0, 1),
        target.flatten(),
        ignore_index=PAD,
        label_smoothing=label_smoothing,
        reduction=reduction,
    )


# Calls and attributes in other libraries' words: their tables are in _name_tables.py.
explain_names(__name__)
