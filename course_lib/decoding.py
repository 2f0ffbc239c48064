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

import functools
import inspect
import math
from collections.abc import Callable, Sequence
from typing import Any, Protocol

import torch
from torch import Tensor

from course_lib._name_tables import explain_names
from course_lib._validate import check_positive_int, check_type, shape_str, type_name, warn_user
from course_lib.tatoeba import normalize
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


def _check_model(model: object) -> None:
    """A :class:`Translator`, or a clear error naming what was passed instead."""
    if all(hasattr(model, name) for name in ("init_cache", "step", "max_len", "parameters")):
        return
    if isinstance(model, type):
        fix = f"build one first: {model.__name__}(config)"
    elif hasattr(model, "model") and hasattr(model, "optimizer"):
        fix = "pass trainer.model, the model it trains"
    else:
        fix = "pass a TranslationTransformer, RecurrentTranslator or DecoderOnlyTranslator"
    raise TypeError(
        f"model must be a translator (a model with init_cache, step and max_len), got "
        f"{type_name(model)}: {fix}"
    )


def _check(model: Translator, src: Tensor, max_new_tokens: int, name: str) -> None:
    if model is None or src is None:
        raise TypeError(
            f"{name} needs a model and src: {name}(model, src, ...). To hand it to "
            "translate with settings, pass the function, not its result: "
            f"decode=functools.partial({name}, max_new_tokens=30), or "
            f"decode=lambda m, src: {name}(m, src, ...)"
        )
    _check_model(model)
    if not isinstance(src, Tensor) or src.ndim != 2 or src.dtype != torch.long:
        got = f"{shape_str(src)} {src.dtype}" if isinstance(src, Tensor) else type_name(src)
        if isinstance(src, Tensor) and src.ndim == 1 and src.dtype == torch.long:
            fix = "one sentence needs a batch dimension: src[None]"
        elif isinstance(src, (str, list, tuple)):
            fix = "to translate sentences, call translate(model, sentences, src_vocab, tgt_vocab)"
        else:
            fix = "encode and pad the sentences: pad([src_vocab.encode(s) for s in sentences])"
        raise TypeError(f"src must be a (B, S) long tensor of token ids, got {got}: {fix}")
    check_positive_int(max_new_tokens, "max_new_tokens")
    if bool((src == SOS).any()):
        warn_user(
            "src holds <sos>, which the model never saw in a source: encode source "
            "sentences without it, src_vocab.encode(s) (sos=False, the default)",
            UserWarning,
        )
    if max_new_tokens + 1 > model.max_len:
        raise ValueError(
            f"max_new_tokens={max_new_tokens} needs {max_new_tokens + 1} target positions "
            f"(with <sos>), but the model encodes at most {model.max_len}: lower max_new_tokens"
        )


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
    _check(model, src, max_new_tokens, "greedy_decode")
    if recompute not in RECOMPUTE:
        raise ValueError(f"recompute must be one of {RECOMPUTE}, got {recompute!r}")
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
    _check(model, src, max_new_tokens, "beam_search")
    check_positive_int(beam_size, "beam_size")
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
    _check_sentences(sentences, model, src_vocab, tgt_vocab)
    _check_decode(decode)
    check_positive_int(batch_size, "batch_size")
    device = next(model.parameters()).device
    out = []
    for k in range(0, len(sentences), batch_size):
        src = pad([src_vocab.encode(s) for s in sentences[k : k + batch_size]])  # (B, S)
        ids = _decoded(decode(model, src.to(device)), decode, len(src))
        out += [tgt_vocab.decode(row.tolist()) for row in ids]
    return out


def _decoded(ids: object, decode: object, batch: int) -> Tensor:
    """What ``decode(model, src)`` returned must be token ids ``(B, T)``, one row per source
    sentence: a wrapper that forgets its ``return`` gives None."""
    name = getattr(decode, "__name__", None) or getattr(
        getattr(decode, "func", None), "__name__", "decode"
    )
    if ids is None:
        raise TypeError(
            f"decode returned None, not token ids (B, T): {name}(model, src) must end with "
            "return ids -- a wrapper that logs or prints must still return what it decoded, "
            "e.g. out = greedy_decode(model, src); ...; return out"
        )
    if isinstance(ids, tuple) and ids and isinstance(ids[0], Tensor):
        raise TypeError(
            f"decode returned a tuple of {len(ids)}, not token ids (B, T): return the ids "
            f"alone from {name}(model, src), e.g. ids, _ = ...; return ids"
        )
    if not isinstance(ids, Tensor) or ids.ndim != 2 or ids.shape[0] != batch:
        got = shape_str(ids) if isinstance(ids, Tensor) else type_name(ids)
        raise TypeError(
            f"decode must return token ids (B, T) = ({batch}, T), one row per source "
            f"sentence, but {name}(model, src) returned {got}"
        )
    return ids


def _check_sentences(sentences: object, model: object, src_vocab: object, tgt_vocab: object):
    """What ``translate`` needs: a list of normalised sentences, the model's vocabularies."""
    _check_model(model)
    if isinstance(sentences, str):
        raise TypeError(
            f"sentences must be a list of sentences, got {type_name(sentences)}: for one "
            "sentence pass [sentence] (a string would be read letter by letter)"
        )
    check_type(sentences, "sentences", (list, tuple), "a list of sentences (strings)")
    for i, sentence in enumerate(sentences):
        if isinstance(sentence, tuple) and len(sentence) == 2:
            raise TypeError(
                f"sentences[{i}] is a pair {sentence!r}: translate takes the source sentences "
                "only, [src for src, _ in pairs]"
            )
        check_type(sentence, f"sentences[{i}]", str, "a string")
        if normalize(sentence) != sentence:
            raise ValueError(
                f"sentences[{i}] = {sentence!r} is not normalised (normalize gives "
                f"{normalize(sentence)!r}), so the vocabulary would not know its words: "
                "pass [normalize(s) for s in sentences]"
            )
    config = getattr(model, "config", None)
    for name, vocab, field in (
        ("src_vocab", src_vocab, "src_vocab"),
        ("tgt_vocab", tgt_vocab, "tgt_vocab"),
    ):
        check_type(vocab, name, Vocab, "a course_lib.vocab.Vocab")
        size = getattr(config, field, None)
        if size is not None and len(vocab) != size:
            raise ValueError(
                f"{name} has {len(vocab)} words but the model was built for {field}={size}: "
                "pass the vocabularies the model was trained with (src_vocab for the "
                "source language, tgt_vocab for the target), in that order"
            )
    words = [w for s in sentences for w in s.split()]
    unknown = sum(w not in src_vocab.index for w in words)
    if len(words) >= 3 and unknown >= 0.9 * len(words):  # the model would read only <unk>
        warn_user(
            f"{unknown} of the {len(words)} words of the sentences are not in src_vocab "
            f"({len(src_vocab)} words): each becomes <unk>, and the model translates what it "
            "cannot read. src_vocab must be the vocabulary of the source language the model "
            "was trained with: translate(model, sentences, src_vocab, tgt_vocab)"
        )


def _check_decode(decode: object) -> None:
    """``decode`` must be callable as ``decode(model, src)``; a ``functools.partial`` is
    checked for keywords its function does not take."""
    if not callable(decode):
        raise TypeError(
            f"decode must be a function decode(model, src), got {type_name(decode)}: e.g. "
            "decode=greedy_decode or decode=functools.partial(beam_search, beam_size=4)"
        )
    try:
        inspect.signature(decode).bind(None, None)
    except TypeError:
        bound = isinstance(decode, functools.partial) and decode.args
        fix = (
            f"bind the settings only, without the model: functools.partial("
            f"{getattr(decode.func, '__name__', 'f')}, beam_size=4)"
            if bound
            else "write it as decode=lambda model, src: ..."
        )
        raise TypeError(
            f"decode is called as decode(model, src), with two arguments, and this one "
            f"cannot take them: {fix}"
        ) from None
    except ValueError:  # no signature to read (a builtin): let the call tell
        pass
    if isinstance(decode, functools.partial):
        params = inspect.signature(decode.func).parameters
        unknown = [k for k in decode.keywords if k not in params]
        if unknown and not any(p.kind is p.VAR_KEYWORD for p in params.values()):
            name = getattr(decode.func, "__name__", "the function")
            takes = [k for k, p in params.items() if p.kind is p.KEYWORD_ONLY]
            raise TypeError(
                f"decode=functools.partial({name}, {unknown[0]}=...): {name} has no argument "
                f"{unknown[0]!r}; it takes {', '.join(takes)}"
            )


# Calls and attributes in other libraries' words: their tables are in _name_tables.py.
explain_names(__name__)
