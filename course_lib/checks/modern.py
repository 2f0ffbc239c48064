"""Self-checks for Chapter 7 (today's Transformers): the rotary rotation, grouped key/value
heads, the cache-size formula and the prefix mask. Masks: True = blocked."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import torch
from torch import Tensor

from course_lib._foreign_names import explains_bad_calls
from course_lib.checks._core import (
    CheckFailed,
    boolean_mask,
    call_student,
    case_generator,
    compare,
    one_number,
    passed,
    unchanged,
    unused_arguments,
    unused_note,
    variant,
)
from course_lib.masking import causal_mask
from course_lib.rotary import apply_rotary

__all__ = ["check_rotate_pairs", "check_repeat_kv", "check_cache_bytes", "check_prefix_mask"]


def _rotate_halves(x: Tensor, start: int) -> Tensor:
    """The other common layout: feature i paired with feature i + Dh/2 (GPT-NeoX, Hugging
    Face's port of Llama; Meta's reference Llama code pairs adjacent features, as here)."""
    L, dh = x.shape[-2:]
    half = dh // 2
    speed = torch.exp(torch.arange(0, dh, 2, dtype=x.dtype) * (-math.log(10000.0) / dh))
    angles = torch.arange(start, start + L, dtype=x.dtype)[:, None] * speed  # (L, Dh / 2)
    a, b = x[..., :half], x[..., half:]
    return torch.cat([a * angles.cos() - b * angles.sin(), a * angles.sin() + b * angles.cos()], -1)


def _backwards(x: Tensor, start: int) -> Tensor:
    """Every pair turned by minus its angle: S R(a) S = R(-a), S negating odd features."""
    sign = torch.ones(x.shape[-1], dtype=x.dtype)
    sign[1::2] = -1.0
    return apply_rotary(x * sign, start=start) * sign


def _slow_speeds(x: Tensor, start: int) -> Tensor:
    """Speeds ``10000^(-i / Dh)`` instead of ``10000^(-2i / Dh)``: the exponent's 2 missing."""
    L, dh = x.shape[-2:]
    speed = 10000.0 ** (-torch.arange(dh // 2, dtype=x.dtype) / dh)  # (Dh / 2,)
    angles = torch.arange(start, start + L, dtype=x.dtype)[:, None] * speed  # (L, Dh / 2)
    a, b = x[..., 0::2], x[..., 1::2]
    out = torch.stack(
        [a * angles.cos() - b * angles.sin(), a * angles.sin() + b * angles.cos()], -1
    )
    return out.flatten(-2)  # (L, Dh / 2, 2) -> (L, Dh)


@explains_bad_calls()
def check_rotate_pairs(rotate_pairs: Callable) -> None:
    """Check ``rotate_pairs(x, start)``: ``x`` ``(L, Dh)`` queries or keys of positions
    ``start .. start + L - 1``; rotate the pair ``(x[2i], x[2i + 1])`` of row ``l`` by the
    angle ``(start + l) / 10000^(2i / Dh)``."""
    __tracebackhide__ = True
    name = "rotate_pairs"
    g = case_generator(71)
    cases = [(5, 8, 0), (3, 4, 7), (1, 16, 30), (6, 2, 2)]  # (L, Dh, start)
    for L, dh, start in cases:
        x = torch.randn(L, dh, generator=g, dtype=torch.float64)
        case = f"L={L}, Dh={dh}, start={start}"
        expected = apply_rotary(x, start=start)
        given = x.clone()
        got = call_student(rotate_pairs, name, given, start)
        unchanged(
            given,
            x,
            name,
            "x",
            case,
            "return a new tensor (build the result in torch.empty_like(x), or with "
            "torch.stack) and leave x as it was -- the caller still needs the unrotated values",
        )
        mistakes = [
            (
                _backwards(x, start),
                "the rotation goes the wrong way, clockwise (by -angle: the signs of the sines "
                "are swapped): a pair (a, b) turned counterclockwise by +angle is "
                "(a cos - b sin, a sin + b cos)",
            ),
            (
                apply_rotary(x, start=0),
                "every row starts at position 0: row l is at position start + l",
            ),
            (
                apply_rotary(x, start=start + 1),
                "every row is turned one position too far, as if the positions counted from "
                "start + 1: row l is at position start + l, so the positions are "
                "torch.arange(start, start + L), not arange(start + 1, start + L + 1)",
            ),
            (
                _slow_speeds(x, start),
                "the speeds are 10000^(-i / Dh); pair i turns at 10000^(-2i / Dh) -- the "
                "exponent counts features (2i), not pairs (i)",
            ),
        ]
        if start > 0:
            mistakes.append(
                (
                    apply_rotary(x, start=start - 1),
                    "every row is turned one position too short, as if the positions counted "
                    "from start - 1: row l is at position start + l, so the positions are "
                    "torch.arange(start, start + L)",
                )
            )
        if dh > 2:
            mistakes.append(
                (
                    _rotate_halves(x, start),
                    "this pairs feature i with feature i + Dh/2 (another common layout); "
                    "here the pairs are adjacent, (x[2i], x[2i + 1]), as in Chapter 4's table",
                )
            )
        compare(got, expected, name, case, mistakes)
    passed(name, len(cases))


@explains_bad_calls()
def check_repeat_kv(repeat_kv: Callable) -> None:
    """Check ``repeat_kv(kv, num_heads)``: ``kv`` ``(B, Nkv, S, Dh)`` -> ``(B, Nh, S, Dh)``,
    key/value head ``j`` serving query heads ``j * G .. j * G + G - 1``, ``G = Nh / Nkv``."""
    __tracebackhide__ = True
    name = "repeat_kv"
    g = case_generator(72)
    cases = [(2, 2, 5, 3, 4), (1, 1, 4, 2, 8), (3, 4, 2, 2, 4), (2, 2, 3, 4, 6)]
    for b, nkv, s, dh, nh in cases:  # (B, Nkv, S, Dh, Nh)
        kv = torch.randn(b, nkv, s, dh, generator=g, dtype=torch.float64)
        case = f"B={b}, Nkv={nkv}, S={s}, Dh={dh}, num_heads={nh}"
        group = nh // nkv
        got = call_student(repeat_kv, name, kv.clone(), nh)
        compare(
            got,
            kv.repeat_interleave(group, dim=1),
            name,
            case,
            [
                (
                    kv.repeat(1, group, 1, 1),
                    "the key/value heads are tiled (0, 1, 0, 1, ...): a group of query heads "
                    "shares one key/value head, so each is repeated in place "
                    "(0, 0, 1, 1, ...) -- repeat_interleave, not repeat",
                ),
                *(
                    [
                        (
                            kv.repeat_interleave(nh, dim=1),
                            f"each of the Nkv={nkv} key/value heads is repeated num_heads={nh} "
                            f"times, giving Nkv * num_heads = {nkv * nh} heads: repeat each "
                            f"one G = num_heads / Nkv = {group} times (the size of its group "
                            "of query heads), kv.repeat_interleave(num_heads // kv.shape[1], "
                            "dim=1), to get num_heads heads",
                        )
                    ]
                    if nkv > 1
                    else []
                ),
            ],
        )
    passed(name, len(cases))


def _draw(g: torch.Generator, options: Sequence[int]) -> int:
    """One of ``options``, drawn from ``g``."""
    return options[int(torch.randint(len(options), (1,), generator=g))]


def _cache_config(g: torch.Generator) -> tuple[int, int, int, int, int]:
    """(layers, key/value heads, head width, bytes per number, tokens), drawn."""
    return (
        _draw(g, range(1, 49)),
        _draw(g, [1, 2, 4, 8, 16]),
        _draw(g, [16, 32, 64, 80, 96, 128]),
        _draw(g, [1, 2, 4]),
        _draw(g, range(1, 9001)),
    )


def _prefix_lengths(g: torch.Generator) -> tuple[int, int]:
    """(S, T), each 1 .. 8, drawn."""
    return _draw(g, range(1, 9)), _draw(g, range(1, 9))


def _drawn(seed: int, n: int, written: list[tuple], draw: Callable) -> list[tuple]:
    """The extra cases of a check with written-out cases: none for a student, ``n`` drawn
    with ``draw(generator)`` inside ``unseen_cases``, neither repeated nor written ones."""
    extra: list[tuple] = []
    if variant() > 0:
        g = case_generator(seed)
        while len(extra) < n:
            case = draw(g)
            if case not in written and case not in extra:
                extra.append(case)
    return extra


@explains_bad_calls()
def check_cache_bytes(cache_bytes: Callable) -> None:
    """Check ``cache_bytes(num_layers, num_kv_heads, head_dim, bytes_per_number, tokens)``:
    the memory a key/value cache needs for ``tokens`` positions of one sequence."""
    __tracebackhide__ = True
    name = "cache_bytes"
    cases = [(5, 4, 64, 4, 1), (5, 1, 64, 4, 100), (32, 8, 128, 2, 4096), (2, 2, 16, 4, 7)]
    cases += _drawn(73, 3, cases, _cache_config)
    for layers, nkv, dh, size, tokens in cases:
        case = f"{layers} layers, {nkv} key/value heads of {dh}, {size} bytes, {tokens} tokens"
        got = call_student(cache_bytes, name, layers, nkv, dh, size, tokens)
        got = one_number(got, name, case)
        expected = layers * 2 * nkv * dh * size * tokens
        if got == expected:
            continue
        hints = {
            expected // 2: "that is the keys alone: the cache holds a key AND a value per head",
            expected // layers: "that is one layer: every layer keeps its own keys and values",
            expected // tokens: "that is one token: the cache grows with every position",
        }
        # float32's or float16's bytes written in: said first where the answer never reads
        # bytes_per_number (the 4th argument), else only where no other cause gives `got`
        ignores_size = 3 in unused_arguments(name)
        for fixed in (4, 2):
            if size != fixed and (ignores_size or expected // size * fixed not in hints):
                hints[expected // size * fixed] = (
                    f"that is {fixed} bytes per number, whatever bytes_per_number says "
                    f"(here {size}): multiply by the bytes_per_number you are given, not "
                    f"by the {fixed} of {'float32' if fixed == 4 else 'float16'}"
                )
        message = f"{name} returned {got}, expected {expected:,} ({case})"
        if got in hints:
            message += f": {hints[got]}"
        note = unused_note(name)
        raise CheckFailed(message + (f".{note}" if note else ""))
    passed(name, len(cases))


@explains_bad_calls()
def check_prefix_mask(prefix_mask: Callable) -> None:
    """Check ``prefix_mask(S, T)``: the ``(S + T, S + T)`` boolean mask (True = blocked) of a
    decoder-only model whose ``S`` source tokens see each other both ways, while the ``T``
    target tokens stay causal."""
    __tracebackhide__ = True
    name = "prefix_mask"
    cases = [(3, 2), (1, 4), (4, 1), (5, 3)]
    cases += _drawn(74, 3, cases, _prefix_lengths)
    for s, t in cases:
        case = f"S={s}, T={t}"
        expected = causal_mask(s + t)
        expected[:s, :s] = False  # the source block: both ways
        got = call_student(prefix_mask, name, s, t)
        boolean_mask(got, expected, name, case, "e.g. from causal_mask(S + T)")
        bidirectional = torch.zeros(s + t, s + t, dtype=torch.bool)
        source_sees_target = expected.clone()
        source_sees_target[:s, :] = False  # the source rows open on every column
        source_blind = expected.clone()
        source_blind[s:, :s] = True  # the target rows blocked from the source
        compare(
            got,
            expected,
            name,
            case,
            [
                (~expected, "the polarity is reversed: in course_lib True means BLOCKED"),
                (causal_mask(s + t), "this is the plain causal mask: open the source block"),
                (bidirectional, "nothing is blocked: the target must not see its future"),
                (
                    source_blind,
                    "the target rows are blocked from the source (mask[S:, :S] is True): every "
                    "target token may see the whole source, and the target tokens before it -- "
                    "only the target's future is blocked",
                ),
                (
                    source_sees_target,
                    "the source rows also see the target: a source token may see only the "
                    "source (the target is generated later and unknown while the source is read)",
                ),
            ],
        )
    passed(name, len(cases))
