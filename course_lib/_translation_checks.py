"""The input checks of the translation modules -- :mod:`course_lib.translation`,
:mod:`course_lib.decoding` and :mod:`course_lib.recurrent_translation` -- kept here so that
each of their public functions and ``forward`` methods reads like the lecture: one line that
checks, then the arithmetic (package-private).

Each ``check_...`` raises the error (or gives the warning) a mistake deserves, named in the
user's words. Those that guard a call made once per batch or per decoded token skip their
work inside a library call that checked its inputs already
(:func:`~course_lib._validate.nested`).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable

import torch
from torch import Tensor

from course_lib._transformer_checks import check_heads_divide
from course_lib._validate import (
    check_decoding_step,
    check_dropout,
    check_positive_int,
    check_source,
    check_target,
    check_type,
    check_vocab_size,
    nested,
    shape_str,
    type_name,
    warn_user,
)
from course_lib.tatoeba import normalize
from course_lib.vocab import PAD, SOS, Vocab

# -- translation.py ----------------------------------------------------------------------------


def check_translation_config(c) -> None:
    """A :class:`~course_lib.translation.TranslationConfig`'s sizes and options."""
    for name in ("src_vocab", "tgt_vocab"):
        check_vocab_size(getattr(c, name), name)
    for name in ("d_model", "num_heads", "d_ff", "max_len"):
        check_positive_int(getattr(c, name), name)
    for name in ("num_encoder_layers", "num_decoder_layers"):
        check_positive_int(getattr(c, name), name)
    check_heads_divide(c.d_model, c.num_heads)
    if c.add_norm not in ("post", "pre"):
        raise ValueError(f"add_norm must be 'post' or 'pre', got {c.add_norm!r}")
    check_dropout(c.dropout)


def check_translation_source(config, src: Tensor) -> None:
    """The source ``(B, S)`` the encoder reads: token ids, at most ``max_len``."""
    if not nested():
        check_source(src, config.src_vocab, pad_id=PAD, max_len=config.max_len)


def check_translation_input(config, src: Tensor, tgt_in: Tensor, *, src_max_len: bool = True):
    """Teacher forcing's source ``(B, S)`` and target ``(B, T)``; ``src_max_len=False`` for
    a model that reads sources of any length (the GRUs)."""
    if nested():
        return
    max_len = config.max_len if src_max_len else None
    check_source(src, config.src_vocab, pad_id=PAD, max_len=max_len)
    check_target(tgt_in, src, config.tgt_vocab, max_len=config.max_len, sos_id=SOS)


def check_step(tokens: Tensor, cache: object, cache_type: type, vocab_size: int) -> None:
    """A decoding step's tokens and cache (outside a library call that checked them)."""
    if not nested():
        check_decoding_step(tokens, cache, cache_type, vocab_size)


def check_translation_loss(logits: object, target: object, reduction: str) -> None:
    """What :func:`~course_lib.translation.translation_loss` needs, and the two slips that
    compute a loss anyway: ``tgt_in`` for the target, probabilities for the logits."""
    if isinstance(logits, tuple):
        raise TypeError(
            f"logits is a tuple of {len(logits)}: model(src, tgt_in, need_weights=True) "
            "returns (logits, weights); unpack it, logits, weights = model(...), or call the "
            "model without need_weights for the loss"
        )
    check_type(logits, "logits", Tensor, "a (B, T, V) tensor of the model's logits")
    check_type(target, "target", Tensor, "a (B, T) tensor of token ids (batch.tgt_out)")
    if reduction not in ("mean", "sum"):
        raise ValueError(f"reduction must be 'mean' or 'sum', got {reduction!r}")
    if logits.ndim != 3 or logits.shape[:2] != target.shape:
        raise ValueError(
            f"logits {shape_str(logits)} must be (B, T, V) for a target (B, T) = "
            f"{shape_str(target)}"
        )
    if logits.device.type == "cpu" and logits.is_floating_point():  # no GPU sync per batch
        if target.numel() and bool((target[:, 0] == SOS).all()):
            warn_user(
                "every target row starts with <sos>: that is the decoder's input, tgt_in. The "
                "loss scores the next tokens, y1 ... y_T <eos>: pass batch.tgt_out",
                UserWarning,
            )
        first = logits[0, 0]  # (V,): one row tells probabilities from logits
        if bool(first.min() >= 0) and abs(float(first.sum()) - 1.0) < 1e-4:
            warn_user(
                "the logits given to translation_loss look like probabilities (a row is "
                "non-negative and sums to 1): the loss applies log_softmax itself, so pass "
                "the model's raw logits, without .softmax(-1)",
                UserWarning,
            )


# -- recurrent_translation.py ------------------------------------------------------------------


def check_recurrent_config(c, attention: tuple) -> None:
    """A :class:`~course_lib.recurrent_translation.RecurrentConfig`'s sizes and decoder."""
    if c.attention not in attention:
        raise ValueError(
            f"attention must be one of {attention} ('none': Chapter 1's GRU decoder, "
            f"'bahdanau': Chapter 2's attention decoder), got {c.attention!r}"
        )
    for name in ("src_vocab", "tgt_vocab"):
        check_vocab_size(getattr(c, name), name)
    for name in ("embed_dim", "hidden_dim", "max_len"):
        check_positive_int(getattr(c, name), name)
    check_dropout(c.dropout)


def check_right_padded(src_key_padding_mask: object) -> None:
    """The source padding ``(B, S)`` must be a right-hand tail of each row, after at least
    one real token: the packed GRU reads each sentence's first ``length`` tokens."""
    mask = src_key_padding_mask
    if not isinstance(mask, Tensor) or mask.dtype != torch.bool or mask.ndim != 2:
        got = shape_str(mask) if isinstance(mask, Tensor) else type(mask).__name__
        raise TypeError(f"src_key_padding_mask must be a (B, S) bool tensor, got {got}")
    lengths = (~mask).sum(dim=1)  # (B,)
    if (lengths == 0).any():
        raise ValueError("a source sentence is all <pad>: every sentence needs a real token")
    positions = torch.arange(mask.shape[1], device=mask.device)  # (S,)
    if not torch.equal(positions[None, :] >= lengths[:, None], mask):  # (B, S): the tails
        raise ValueError(
            "source padding must come after each sentence's last token (right-padded, as "
            "course_lib.vocab.pad makes it): <pad> inside or before a sentence"
        )


def check_recurrent_source(config, src: Tensor) -> None:
    """The source ``(B, S)`` the encoder GRU reads: token ids (outside a library call that
    checked them), right-padded (always: the packing needs it)."""
    if not nested():
        check_source(src, config.src_vocab, pad_id=PAD)
    check_right_padded(src == PAD)


# -- decoding.py -------------------------------------------------------------------------------


def check_model(model: object) -> None:
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


def check_decoding(model: object, src: Tensor, max_new_tokens: int, name: str) -> None:
    """What ``greedy_decode`` and ``beam_search`` (``name``) need: a translator, a batch of
    token ids ``(B, S)``, and ``max_new_tokens`` that fit the model's positions."""
    if model is None or src is None:
        raise TypeError(
            f"{name} needs a model and src: {name}(model, src, ...). To hand it to "
            "translate with settings, pass the function, not its result: "
            f"decode=functools.partial({name}, max_new_tokens=30), or "
            f"decode=lambda m, src: {name}(m, src, ...)"
        )
    check_model(model)
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


def check_greedy_decode(model, src, max_new_tokens, recompute, choices: tuple) -> None:
    """:func:`~course_lib.decoding.greedy_decode`'s arguments."""
    check_decoding(model, src, max_new_tokens, "greedy_decode")
    if recompute not in choices:
        raise ValueError(f"recompute must be one of {choices}, got {recompute!r}")


def check_beam_search(model, src, max_new_tokens, beam_size) -> None:
    """:func:`~course_lib.decoding.beam_search`'s arguments."""
    check_decoding(model, src, max_new_tokens, "beam_search")
    check_positive_int(beam_size, "beam_size")


def check_translate(sentences, model, src_vocab, tgt_vocab, decode, batch_size) -> Callable:
    """:func:`~course_lib.decoding.translate`'s arguments; returns ``decode`` wrapped so that
    what it returns for each batch is checked too (:func:`check_decoded`)."""
    check_sentences(sentences, model, src_vocab, tgt_vocab)
    check_decode(decode)
    check_positive_int(batch_size, "batch_size")

    def checked_decode(model, src: Tensor) -> Tensor:
        return check_decoded(decode(model, src), decode, len(src))

    return checked_decode


def check_decoded(ids: object, decode: object, batch: int) -> Tensor:
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


def check_sentences(sentences: object, model: object, src_vocab: object, tgt_vocab: object):
    """What ``translate`` needs: a list of normalised sentences, the model's vocabularies."""
    check_model(model)
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


def check_decode(decode: object) -> None:
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
