"""Self-checks for Chapter 2c (attention in the seq2seq decoder): one decoder step with
attention, and a decoder that reads the context vector alone."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable

import torch
from torch import Tensor, nn

from course_lib._foreign_names import explains_bad_calls
from course_lib.checks._core import (
    CheckFailed,
    call_student,
    case_generator,
    case_seed,
    compare,
    in_order,
    passed,
    unpack,
)
from course_lib.checks._describe import describe
from course_lib.masking import masked_softmax
from course_lib.seq2seq_attention import AttentionDecoder

__all__ = ["check_attention_step", "check_context_only_decoder"]


_STEP = ("out", "hidden", "weights")


def _unpack_step(got, name: str, case: str, expected: tuple) -> tuple:
    """The answer's ``(out, hidden, weights)``, in that order."""
    __tracebackhide__ = True
    got = unpack(got, _STEP, name, case, "a tuple")
    in_order(got, expected, _STEP, name, case)
    return got


def _a_decoder(decoder_cls, name: str, f: int, h: int) -> AttentionDecoder:
    """``decoder_cls(f, h)``, an ``AttentionDecoder``, or :class:`CheckFailed`."""
    __tracebackhide__ = True
    if isinstance(decoder_cls, nn.Module):
        raise CheckFailed(
            f"pass the class {name} itself, not an instance of it: "
            f"check_context_only_decoder({name}), and the check builds its own"
        )
    decoder = call_student(decoder_cls, name, f, h)
    if not isinstance(decoder, AttentionDecoder):
        raise CheckFailed(
            f"{name}(n_features, hidden_dim) built {describe(decoder)}: subclass the "
            f"library's decoder, class {name}(AttentionDecoder), so that it keeps its "
            "gru and attention"
        )
    return decoder


@explains_bad_calls()
def check_attention_step(attention_step: Callable) -> None:
    """Check ``attention_step(decoder, x, hidden, memory, memory_key_padding_mask)``.

    ``decoder`` is a :class:`~course_lib.seq2seq_attention.AttentionDecoder`; the answer must
    return what ``decoder(x, hidden, memory, memory_key_padding_mask=...)`` returns --
    ``out (B, 1, F)``, ``hidden (1, B, H)``, ``weights (B, 1, S)`` -- with the attention
    (projections, scaled scores, mask, softmax, weighted sum) written out by hand.
    """
    __tracebackhide__ = True
    name = "attention_step"
    g = case_generator(5)
    cases = [(2, 3, 4, 2, [3, 3]), (3, 5, 6, 2, [5, 2, 4]), (1, 1, 3, 3, [1])]
    for seed, (b, s, h, f, lengths) in enumerate(cases):
        with torch.random.fork_rng(devices=[]):  # leave the student's generator alone
            torch.manual_seed(case_seed(200 + seed))
            decoder = AttentionDecoder(f, h)
        x = torch.randn(b, 1, f, generator=g)
        hidden = torch.randn(1, b, h, generator=g)
        memory = torch.randn(b, s, h, generator=g)
        mask = torch.arange(s) >= torch.tensor(lengths)[:, None]  # (B, S), True = padding
        case = f"B={b}, S={s}, H={h}, source lengths {lengths}"
        with torch.no_grad():
            expected = decoder(x, hidden, memory, memory_key_padding_mask=mask)
            got = _unpack_step(
                call_student(attention_step, name, decoder, x, hidden.clone(), memory, mask),
                name,
                case,
                expected,
            )
            query, new_hidden = decoder.gru(x, hidden)  # (B, 1, H), (1, B, H)
            q = decoder.attention.q_proj(query)  # (B, 1, H)
            k = decoder.attention.k_proj(memory)  # (B, S, H)
            raw = q @ k.transpose(1, 2)  # (B, 1, S), unscaled
            blocked = mask[:, None, :]  # (B, 1, S)
            q_old = decoder.attention.q_proj(hidden.transpose(0, 1))  # the state before the step
            mistakes_w = [
                (
                    masked_softmax(raw, blocked),
                    "the scores are not divided by sqrt(H): scale "
                    "q @ k^T by 1 / sqrt(hidden size) before the softmax",
                ),
                (
                    masked_softmax(raw / math.sqrt(h), ~blocked),
                    "the mask's polarity is "
                    "flipped: True marks PADDING, and padded keys must get weight 0",
                ),
                (
                    torch.softmax(raw / math.sqrt(h), -1),
                    "padded keys get weight: fill the "
                    "scores where the mask is True with -inf before the softmax",
                ),
                (
                    masked_softmax(q_old @ k.transpose(1, 2) / math.sqrt(h), blocked),
                    "the "
                    "query is the state BEFORE the GRU step (that is Bahdanau's decoder): run "
                    "the GRU first, its output is the query",
                ),
            ]
        out, new_h, weights = expected
        if isinstance(got[2], Tensor) and torch.isnan(got[2]).any():
            raise CheckFailed(
                f"{name}'s weights contain NaN ({case}): a row whose keys are "
                "all blocked. Is the polarity flipped? True marks PADDING; the "
                "real keys (False) must stay"
            )
        compare(got[2], weights, f"{name}'s weights", case, mistakes_w)
        compare(got[1], new_h, f"{name}'s hidden state", case)
        context = weights @ memory  # (B, 1, H)
        compare(
            got[0],
            out,
            f"{name}'s output",
            case,
            [
                (
                    decoder.output(torch.cat([query, context], -1)).detach(),
                    "the "
                    "concatenation is in the wrong order: the output layer reads [context, query]",
                ),
                (
                    decoder.output(torch.cat([weights @ k, query], -1)).detach(),
                    "the context "
                    "averages the projected keys: the values are the encoder states themselves "
                    "(memory), not k_proj(memory)",
                ),
            ],
        )
    passed(name, len(cases))


def _parts(decoder: AttentionDecoder, name: str, x: Tensor, hidden: Tensor, memory: Tensor):
    """The decoder's own GRU step and attention, ``(query, hidden, context, weights)``, or
    :class:`CheckFailed` where the answer's class replaced them with layers that do not fit."""
    __tracebackhide__ = True
    try:
        query, new_hidden = decoder.gru(x, hidden)  # (B, 1, H), (1, B, H)
        context, weights = decoder.attention(query, memory)  # (B, 1, H), (B, 1, S)
        decoder.output(context)
    except Exception as err:
        raise CheckFailed(
            f"{name}'s gru, attention or output raised {type(err).__name__}: {err}. Keep "
            "AttentionDecoder's gru and attention (super().__init__(n_features, hidden_dim)) "
            "and replace only self.output, by Linear(hidden_dim, n_features)"
        ) from err
    return query, new_hidden, context, weights


@explains_bad_calls()
def check_context_only_decoder(decoder_cls: Callable) -> None:
    """Check ``ContextOnlyDecoder(n_features, hidden_dim)``: an ``AttentionDecoder`` whose
    output layer reads the context vector alone, ``Linear(H, F)``.

    Its forward pass must return ``(out, hidden, weights)`` like ``AttentionDecoder``'s, with
    ``out = output(context)``.
    """
    __tracebackhide__ = True
    name = "ContextOnlyDecoder"
    g = case_generator(6)
    cases = [(2, 3, 4, 2), (3, 2, 5, 3)]
    for seed, (b, s, h, f) in enumerate(cases):
        with torch.random.fork_rng(devices=[]):  # leave the student's generator alone
            torch.manual_seed(case_seed(500 + seed))
            decoder = _a_decoder(decoder_cls, name, f, h)
        output = getattr(decoder, "output", None)
        if not isinstance(output, torch.nn.Linear):
            raise CheckFailed(f"{name} needs a linear layer `self.output`")
        if (output.in_features, output.out_features) != (h, f):
            raise CheckFailed(
                f"{name}(n_features={f}, hidden_dim={h}).output is Linear"
                f"({output.in_features}, {output.out_features}); it reads the context "
                f"alone, so it must be Linear(hidden_dim, n_features) = Linear({h}, {f})"
            )
        x = torch.randn(b, 1, f, generator=g)
        hidden = torch.randn(1, b, h, generator=g)
        memory = torch.randn(b, s, h, generator=g)
        case = f"B={b}, S={s}, H={h}, F={f}"
        with torch.no_grad():
            query, new_hidden, context, weights = _parts(decoder, name, x, hidden, memory)
            expected = decoder.output(context)  # (B, 1, F)
            got = call_student(decoder, f"{name}'s forward", x, hidden, memory)
            got = _unpack_step(got, name, case, (expected, new_hidden, weights))
            mistakes = [
                (
                    decoder.output(query),
                    "the output is computed from the query: "
                    "compute it from the context vector alone",
                )
            ]
        compare(got[1], new_hidden, f"{name}'s hidden state", case)
        compare(got[2], weights, f"{name}'s weights", case)
        compare(got[0], expected, f"{name}'s output", case, mistakes)
    _check_padding_passed_on(decoder_cls, name, g)
    passed(name, len(cases) + 1)


def _check_padding_passed_on(decoder_cls: Callable, name: str, g: torch.Generator) -> None:
    """One padded batch: keys that ``memory_key_padding_mask`` blocks must get no weight."""
    __tracebackhide__ = True
    b, s, h, f = 2, 4, 4, 2
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(case_seed(510))
        decoder = _a_decoder(decoder_cls, name, f, h)
    x = torch.randn(b, 1, f, generator=g)
    hidden = torch.randn(1, b, h, generator=g)
    memory = torch.randn(b, s, h, generator=g)
    mask = torch.tensor([[False, False, True, True], [False, False, False, False]])  # (B, S)
    case = f"B={b}, S={s}, H={h}, F={f}, the last 2 keys of row 0 blocked"
    with torch.no_grad():
        query, new_hidden = decoder.gru(x, hidden)  # (B, 1, H), (1, B, H)
        context, weights = decoder.attention(query, memory, key_padding_mask=mask)
        expected = decoder.output(context)  # (B, 1, F)
        step = functools.partial(decoder, memory_key_padding_mask=mask)
        got = call_student(step, f"{name}'s forward", x, hidden, memory)
        got = _unpack_step(got, name, case, (expected, new_hidden, weights))
    leaked = torch.as_tensor(got[2])[0, :, 2:].abs().sum().item()
    if leaked > 1e-6:
        raise CheckFailed(
            f"{name} gives weight {leaked:.3f} to keys that memory_key_padding_mask blocks "
            f"({case}): pass the mask on to the attention, "
            "self.attention(queries, memory, key_padding_mask=memory_key_padding_mask)"
        )
    compare(got[2], weights, f"{name}'s weights", case)
    compare(got[0], expected, f"{name}'s output", case)
