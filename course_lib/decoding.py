"""Turning a trained translation model into sentences: greedy decoding and beam search.

Batch first. Letters: ``B`` sentences, ``S`` source tokens, ``K`` beams, ``T`` generated
tokens, ``V`` vocabulary.

Any model with the :class:`Translator` protocol can be decoded: the Transformer of
:mod:`course_lib.translation`, the recurrent models of
:mod:`course_lib.recurrent_translation` and the decoder-only model of
:mod:`course_lib.decoder_only` alike, so their outputs compare token for token.

* :func:`greedy_decode` picks the most likely token at every step, for a whole batch at
  once, and stops each sentence at its ``<eos>``. By default it encodes the source once and
  feeds the decoder only the newest token, carrying the model's cache from step to step
  (earlier keys and values for a Transformer, the hidden state for a GRU). For teaching and
  timing, ``recompute="decoder"`` re-runs the decoder over the whole prefix at every step
  (the encoder still runs once), and ``recompute="everything"`` re-runs the whole model,
  encoder included -- the same tokens, more and more work.
* :func:`beam_search` keeps the ``K`` best prefixes per sentence and returns the finished one
  with the best length-normalised log-probability.
* :func:`translate` turns sentences into sentences: encode with the source vocabulary, pad,
  decode a batch at a time, and back to words with the target vocabulary.

Both decoders run under ``torch.no_grad()`` in eval mode and restore the mode they found.
Outputs are ``(B, T)`` token ids without ``<sos>``; each row ends with ``<eos>`` (unless
``max_new_tokens`` were generated first) followed by ``<pad>``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, Protocol

import torch
from torch import Tensor

from course_lib._name_tables import explain_names
from course_lib._translation_checks import check_beam_search, check_greedy_decode, check_translate
from course_lib.train import evaluating
from course_lib.vocab import EOS, PAD, SOS, Vocab, pad

__all__ = ["Translator", "greedy_decode", "beam_search", "translate"]


class Translator(Protocol):
    """What the decoding functions need from a model (an ``nn.Module``).

    * ``max_len`` -- the most target positions the model handles;
    * ``model(src (B, S), tgt_in (B, T))`` -> logits ``(B, T, V)`` (teacher forcing);
    * ``init_cache(src (B, S))`` -> a cache: the source encoded once, with what every step
      needs (the memory, the source padding); immutable, with ``select(rows)`` to keep or
      repeat batch rows (beam search);
    * ``step(tokens (B, t), cache)`` -> ``(logits (B, t, V), updated cache, weights or
      None)``.
    """

    max_len: int
    training: bool

    def __call__(self, src: Tensor, tgt_in: Tensor) -> Tensor: ...

    def init_cache(self, src: Tensor) -> Any: ...

    def step(self, tokens: Tensor, cache: Any) -> tuple[Tensor, Any, Any]: ...

    def train(self, mode: bool = True) -> Any: ...

    def eval(self) -> Any: ...


RECOMPUTE = ("nothing", "decoder", "everything")


def greedy_decode(
    model: Translator | None = None,
    src: Tensor | None = None,
    *,
    max_new_tokens: int = 20,
    recompute: str = "nothing",
) -> Tensor:
    """The most likely next token at every step, for each sentence of ``src`` ``(B, S)``.

    Args:
        model: any :class:`Translator` (Transformer or recurrent).
        max_new_tokens: the most tokens generated per sentence, ``<eos>`` included.
        recompute: what each step computes again. ``"nothing"`` (default): the newest
            token only, with the cache. ``"decoder"``: the decoder over the whole prefix from
            an empty cache, the encoder's memory reused. ``"everything"``: ``model(src,
            prefix)``, the encoder included. All three give the same tokens.
    """
    check_greedy_decode(model, src, max_new_tokens, recompute, RECOMPUTE)
    B = src.shape[0]
    ys = torch.full((B, 1), SOS, dtype=torch.long, device=src.device)  # (B, 1): <sos>
    finished = torch.zeros(B, dtype=torch.bool, device=src.device)
    with evaluating(model):
        if recompute != "everything":
            cache = empty = model.init_cache(src)  # the source encoded once
        for _ in range(max_new_tokens):
            if recompute == "nothing":
                logits, cache, _ = model.step(ys[:, -1:], cache)  # (B, 1, V)
            elif recompute == "decoder":  # (B, t, V): the prefix from the empty cache
                logits, _, _ = model.step(ys, empty)
            else:
                logits = model(src, ys)  # (B, t, V): encoder and decoder again
            token = logits[:, -1].argmax(dim=-1)  # (B,)
            token = token.masked_fill(finished, PAD)  # finished sentences only pad
            ys = torch.cat([ys, token[:, None]], dim=1)
            finished |= token == EOS
            if finished.all():
                break
    return ys[:, 1:]


def beam_search(
    model: Translator | None = None,
    src: Tensor | None = None,
    *,
    beam_size: int = 4,
    max_new_tokens: int = 20,
    length_penalty: float = 1.0,
) -> Tensor:
    """The best of ``beam_size`` hypotheses per sentence, by ``log p / length ** alpha``.

    Args:
        model: any :class:`Translator` (Transformer or recurrent).
        beam_size: ``K``, hypotheses kept per sentence (1 gives greedy decoding).
        max_new_tokens: the most tokens generated per sentence, ``<eos>`` included.
        length_penalty: ``alpha``; 0 compares raw log-probabilities (favouring short
            outputs), 1 compares the mean log-probability per token.
    """
    check_beam_search(model, src, max_new_tokens, beam_size)
    B, K = src.shape[0], beam_size
    device = src.device
    with evaluating(model):
        rows = torch.arange(B, device=device).repeat_interleave(K)  # (B * K,): beam -> sentence
        cache = model.init_cache(src).select(rows)
        ys = torch.full((B * K, 1), SOS, dtype=torch.long, device=device)
        scores = torch.full((B, K), -math.inf, device=device)
        scores[:, 0] = 0.0  # one live hypothesis per sentence at the start
        finished = torch.zeros(B, K, dtype=torch.bool, device=device)
        lengths = torch.zeros(B, K, device=device)
        for _ in range(max_new_tokens):
            logits, cache, _ = model.step(ys[:, -1:], cache)
            logp = torch.log_softmax(logits[:, -1].float(), dim=-1)  # (B * K, V)
            V = logp.shape[-1]
            done = finished.view(-1)
            logp[done] = -math.inf  # a finished hypothesis only appends <pad>, at no cost
            logp[done, PAD] = 0.0
            candidates = (scores.view(-1, 1) + logp).view(B, K * V)  # (B, K * V)
            scores, best = candidates.topk(K, dim=-1)  # (B, K)
            beam, token = best // V, best % V  # which hypothesis it extends, with which token
            picked = (torch.arange(B, device=device)[:, None] * K + beam).view(-1)  # (B * K,)
            ys = torch.cat([ys[picked], token.view(-1, 1)], dim=1)
            cache = cache.select(picked)
            was_finished = finished.gather(1, beam)
            lengths = lengths.gather(1, beam) + (~was_finished).float()
            finished = was_finished | (token == EOS)
            if finished.all():
                break
        normalised = scores / lengths.clamp(min=1) ** length_penalty  # (B, K)
        choice = normalised.argmax(dim=-1)  # (B,)
        best_rows = torch.arange(B, device=device) * K + choice
    return ys[best_rows, 1:]


def translate(
    model: Translator,
    sentences: Sequence[str],
    src_vocab: Vocab,
    tgt_vocab: Vocab,
    *,
    decode: Callable[[Translator, Tensor], Tensor] = greedy_decode,
    batch_size: int = 256,
) -> list[str]:
    """Translate normalised sentences into sentences, ``batch_size`` at a time.

    Args:
        model: any :class:`Translator`; the batches go to the device of its parameters.
        sentences: source sentences, normalised as the vocabulary's were
            (:func:`course_lib.tatoeba.normalize`).
        src_vocab, tgt_vocab: the vocabularies the model was trained with.
        decode: ``decode(model, src (B, S)) -> (B, T)`` token ids, e.g. :func:`greedy_decode`
            or ``functools.partial(beam_search, beam_size=4)``.
        batch_size: sentences decoded together (padding costs little: the
            padding mask hides it).

    Returns:
        one output sentence per input, stopped at ``<eos>``, without special tokens.

    Raises:
        TypeError: a ``decode`` that cannot be called as ``decode(model, src)`` or returns
            something other than token ids ``(B, T)`` (None: its ``return`` forgotten).
    """
    decode = check_translate(sentences, model, src_vocab, tgt_vocab, decode, batch_size)
    device = next(model.parameters()).device
    out = []
    for k in range(0, len(sentences), batch_size):
        src = pad([src_vocab.encode(s) for s in sentences[k : k + batch_size]])  # (B, S)
        ids = decode(model, src.to(device))  # (B, T), checked: token ids, one row per sentence
        out += [tgt_vocab.decode(row.tolist()) for row in ids]
    return out


# Calls and attributes in other libraries' words: their tables are in _name_tables.py.
explain_names(__name__)
