"""A decoder-only Transformer that translates: one causal stack continues ``french <sos>``.

Batch first. Letters: ``B`` sentences, ``S`` source tokens, ``T`` target tokens,
``L = S + T`` positions of the joined sequence, ``D`` model width, ``V`` target vocabulary.

Today's language models have no encoder. The source is a **prefix**: the model reads the
French tokens, then the target's ``<sos>`` (the separator), and continues in English, one
causal self-attention stack for both. Two embedding tables (French, English) feed one
sequence; the output layer scores English tokens only, so the loss -- and the training, the
decoding and the metrics of Chapter 5 -- see exactly what they see for the encoder-decoder:

* ``model(src (B, S), tgt_in (B, T))`` -> logits ``(B, T, V)`` (teacher forcing);
* :meth:`DecoderOnlyTranslator.init_cache` runs the prefix once and keeps every layer's keys
  and values; :meth:`~DecoderOnlyTranslator.step` feeds new English tokens -- the
  :class:`~course_lib.decoding.Translator` protocol, so ``greedy_decode``, ``beam_search``
  and ``translate`` work unchanged.

**Padding.** Sources of one batch differ in length; they are *left*-padded inside the model,
so that every sentence's ``<sos>`` sits at the same index, and each row's positions count
from its first real token (a sentence gets the same positions alone or in any batch).
Padded keys are masked (True = blocked, as everywhere in the library).

**Embeddings** are multiplied by ``sqrt(D)`` whatever the position code (one rule, Chapter 5's:
rows of norm about ``sqrt(D)``, the size of a sinusoidal row), so that comparing position
codes changes the position code only.
**Positions** (``positions``): ``"rotary"`` rotates queries and keys
(:mod:`course_lib.rotary`); ``"sinusoidal"`` adds Chapter 4's table to the scaled
embeddings; ``"none"`` gives the model only the causal mask to tell order by.
**Block** (``norm``, ``feed_forward``): the 2017 parts (``"layer"`` norm, ``"relu"``
feed-forward) or today's (``"rms"``: :class:`~course_lib.modern_block.RMSNorm`;
``"swiglu"``: :class:`~course_lib.modern_block.SwiGLU`, hidden width ``d_ff``).
**Prefix mask** (``prefix_mask=True``): the source tokens see each other in both directions
(a bidirectional "encoder" inside the decoder); the target stays causal.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import torch
from torch import Tensor, nn

from course_lib._name_tables import explain_names
from course_lib._transformer_checks import (
    check_config,
    check_decoder_only_config,
    check_decoder_only_input,
    check_decoder_only_step,
    check_prefix,
)
from course_lib._validate import checked
from course_lib.modern_block import RMSNorm, SwiGLU
from course_lib.multihead import KeyValue, MultiHeadAttention
from course_lib.positional import sinusoidal_encoding
from course_lib.transformer import FeedForward
from course_lib.vocab import PAD

__all__ = ["DecoderOnlyConfig", "DecoderOnlyCache", "DecoderOnlyTranslator"]

POSITIONS = ("rotary", "sinusoidal", "none")
NORMS = ("layer", "rms")
FEED_FORWARDS = ("relu", "swiglu")


@dataclass(frozen=True)
class DecoderOnlyConfig:
    """Sizes of a :class:`DecoderOnlyTranslator`."""

    src_vocab: int
    tgt_vocab: int
    d_model: int = 256
    num_heads: int = 4
    num_kv_heads: int | None = None  # None: one per head; fewer: grouped-query attention
    d_ff: int = 512
    num_layers: int = 4
    dropout: float = 0.1
    positions: str = "rotary"  # or "sinusoidal", "none"
    prefix_mask: bool = False  # the source sees itself both ways
    max_len: int = 64  # target positions (the decoding protocol's bound)
    max_src_len: int = 64  # source positions; the sinusoidal table covers both
    tie_embeddings: bool = True  # share the English embedding with the output layer
    norm: str = "layer"  # or "rms"
    feed_forward: str = "relu"  # or "swiglu"

    def __post_init__(self) -> None:
        check_decoder_only_config(self, POSITIONS, NORMS, FEED_FORWARDS)


class DecoderOnlyCache(NamedTuple):
    """Every layer's keys and values so far ``(B, Nkv, length, Dh)``, which of them are
    padding ``(B, length)``, and each row's number of left pads ``(B,)``."""

    layers: tuple[KeyValue, ...]
    key_padding_mask: Tensor
    pads: Tensor

    @property
    def src_key_padding_mask(self) -> Tensor:  # the rows of the batch, for the shared checks
        return self.key_padding_mask

    @property
    def length(self) -> int:
        """Positions cached so far, prefix included."""
        return self.key_padding_mask.shape[1]

    def select(self, index: Tensor) -> DecoderOnlyCache:
        """Keep (or repeat) batch rows ``index`` ``(B',)``: beam search reorders its beams."""
        return DecoderOnlyCache(
            tuple(kv.select(index) for kv in self.layers),
            self.key_padding_mask[index],
            self.pads[index],
        )


def _norm(c: DecoderOnlyConfig) -> nn.Module:
    return RMSNorm(c.d_model) if c.norm == "rms" else nn.LayerNorm(c.d_model)


class _Block(nn.Module):
    """Pre-norm block: ``x + attention(norm(x))``, then ``x + feed_forward(norm(x))``."""

    def __init__(self, c: DecoderOnlyConfig) -> None:
        super().__init__()
        self.norm1, self.norm2 = _norm(c), _norm(c)
        self.self_attn = MultiHeadAttention(
            c.d_model,
            c.num_heads,
            c.dropout,
            num_kv_heads=c.num_kv_heads,
            rotary=c.positions == "rotary",
        )
        if c.feed_forward == "swiglu":
            self.ffn = SwiGLU(c.d_model, c.d_ff, c.dropout)
        else:
            self.ffn = FeedForward(c.d_model, c.d_ff, c.dropout)
        self.dropout = nn.Dropout(c.dropout)

    def forward(self, x: Tensor, cache: KeyValue | None, **attn) -> tuple[Tensor, KeyValue]:
        h, _, cache = self.self_attn.self_attention_step(self.norm1(x), cache, **attn)
        x = x + self.dropout(h)
        return x + self.dropout(self.ffn(self.norm2(x))), cache


class DecoderOnlyTranslator(nn.Module):
    """One causal Transformer stack over ``source <sos> target``; logits for the target.

    Shape:
        ``src`` ``(B, S)`` right-padded and ``tgt_in`` ``(B, T)`` (``<sos> y1 ... y_{T-1}``)
        long tensors -> logits ``(B, T, V)`` for ``y1 ... y_T``; with ``need_weights=True``
        the pair ``(logits, None)`` (the stack returns no weights).
    """

    def __init__(self, config: DecoderOnlyConfig) -> None:
        super().__init__()
        check_config(config, DecoderOnlyConfig)
        c = self.config = config
        self.max_len = c.max_len  # target positions (the decoding protocol)
        self.src_embed = nn.Embedding(c.src_vocab, c.d_model, padding_idx=PAD)
        self.tgt_embed = nn.Embedding(c.tgt_vocab, c.d_model, padding_idx=PAD)
        for embedding in (self.src_embed, self.tgt_embed):  # unit-variance rows / sqrt(D)
            nn.init.normal_(embedding.weight, std=c.d_model**-0.5)
            with torch.no_grad():
                embedding.weight[PAD].zero_()
        if c.positions == "sinusoidal":
            table = sinusoidal_encoding(c.max_src_len + c.max_len, c.d_model)
            self.register_buffer("table", table, persistent=False)  # (positions, D)
        self.dropout = nn.Dropout(c.dropout)
        self.blocks = nn.ModuleList(_Block(c) for _ in range(c.num_layers))
        self.norm = _norm(c)  # a pre-norm stack ends with a norm
        self.output = nn.Linear(c.d_model, c.tgt_vocab)
        if c.tie_embeddings:
            self.output.weight = self.tgt_embed.weight

    # -- the joined sequence ----------------------------------------------------------------

    def _left_pad(self, src: Tensor) -> tuple[Tensor, Tensor]:
        """Right-padded ``src`` ``(B, S)`` -> left-padded ``(B, S)`` and pads per row ``(B,)``."""
        check_prefix(self.config, src)
        S = src.shape[1]
        pads = (src == PAD).sum(dim=1)  # (B,)
        # row b, column j reads column (j - pads[b]) mod S: the tail of pads moves to the front
        columns = (torch.arange(S, device=src.device) - pads[:, None]) % S  # (B, S)
        return src.gather(1, columns), pads

    def _embed(self, x: Tensor, positions: Tensor) -> Tensor:
        """Embedded tokens ``(B, t, D)`` times ``sqrt(D)`` -- for every position kind -- plus,
        for ``"sinusoidal"``, their positions' rows."""
        x = x * math.sqrt(self.config.d_model)
        if self.config.positions == "sinusoidal":
            x = x + self.table[positions]  # (B, t, D)
        return self.dropout(x)

    def _run(self, x, caches, *, key_padding_mask, positions, causal):
        new = []
        for block, cache in zip(self.blocks, caches, strict=True):
            x, cache = block(
                x, cache, key_padding_mask=key_padding_mask, positions=positions, causal=causal
            )
            new.append(cache)
        return x, tuple(new)

    # -- the Translator protocol -------------------------------------------------------------

    def init_cache(self, src: Tensor) -> DecoderOnlyCache:
        """Run the source prefix ``(B, S)`` once; keep every layer's keys and values."""
        src, pads = self._left_pad(src)
        S = src.shape[1]
        positions = (torch.arange(S, device=src.device) - pads[:, None]).clamp(min=0)  # (B, S)
        key_padding_mask = src == PAD  # (B, S), True = padding (on the left now)
        with checked():
            _, layers = self._run(
                self._embed(self.src_embed(src), positions),
                [None] * len(self.blocks),
                key_padding_mask=key_padding_mask,
                positions=positions,
                causal=not self.config.prefix_mask,
            )
        return DecoderOnlyCache(layers, key_padding_mask, pads)

    def step(
        self, tokens: Tensor, cache: DecoderOnlyCache, *, need_weights: bool = False
    ) -> tuple[Tensor, DecoderOnlyCache, None]:
        """Logits ``(B, t, V)`` for the newest target tokens ``(B, t)``; returns ``(logits,
        updated cache, None)``."""
        check_decoder_only_step(self.config, tokens, cache, DecoderOnlyCache)
        t = tokens.shape[1]
        offsets = torch.arange(cache.length, cache.length + t, device=tokens.device)  # (t,)
        positions = offsets - cache.pads[:, None]  # (B, t): counted from the first real token
        key_padding_mask = torch.cat([cache.key_padding_mask, tokens == PAD], dim=1)
        with checked():
            h, layers = self._run(
                self._embed(self.tgt_embed(tokens), positions),
                cache.layers,
                key_padding_mask=key_padding_mask,
                positions=positions,
                causal=True,
            )
        logits = self.output(self.norm(h))  # (B, t, D) -> (B, t, V)
        return logits, DecoderOnlyCache(layers, key_padding_mask, cache.pads), None

    def forward(
        self, src: Tensor, tgt_in: Tensor, *, need_weights: bool = False
    ) -> Tensor | tuple[Tensor, None]:
        """Teacher forcing: the prefix, then the whole target in one causal pass."""
        check_decoder_only_input(self.config, src, tgt_in)
        with checked():
            logits, _, _ = self.step(tgt_in, self.init_cache(src))
        return (logits, None) if need_weights else logits


# Calls and attributes in other libraries' words: their tables are in _name_tables.py.
explain_names(__name__)
