"""Self-checks for Chapter 2 (attention). Masks: True = blocked, as everywhere in course_lib."""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
from torch import Tensor

from course_lib.attention import AdditiveAttention, scaled_dot_product_attention
from course_lib.checks._core import ATOL, CheckFailed, call_student, compare, fmt, passed
from course_lib.masking import masked_softmax

__all__ = [
    "check_masked_softmax",
    "check_scaled_dot_product_attention",
    "check_additive_scores",
    "check_padding_mask",
]


def _softmax_cases(g: torch.Generator) -> list[tuple[Tensor, Tensor, str]]:
    scores = torch.randn(2, 3, 4, generator=g)
    random_mask = torch.rand(2, 3, 4, generator=g) < 0.4
    random_mask[..., 0] = False  # every row keeps at least one key
    lengths = torch.tensor([2, 3])
    length_mask = (torch.arange(4) >= lengths[:, None])[:, None, :]  # (B, 1, S), broadcast
    one_empty = torch.zeros(1, 2, 3, dtype=torch.bool)
    one_empty[0, 1] = True  # the second query may see no key at all
    return [
        (scores, random_mask, "a random (B, T, S) mask"),
        (scores, length_mask, "a (B, 1, S) padding mask that broadcasts over the queries"),
        (torch.randn(1, 2, 3, generator=g), one_empty, "a fully masked row"),
        (torch.randn(3, 5, generator=g), torch.zeros(3, 5, dtype=torch.bool), "nothing masked"),
    ]


def _row_sum_hint(got: Tensor, mask: Tensor) -> str | None:
    full_mask = torch.broadcast_to(mask, got.shape)
    sums = got.sum(-1)
    live = ~full_mask.all(-1)
    bad = live & ~torch.isclose(sums, torch.ones_like(sums), atol=1e-4)
    if bad.any():
        idx = tuple(int(i) for i in bad.nonzero()[0])
        return (f"the weights in row {idx} sum to {sums[idx]:.2f}, not 1 -- take the softmax "
                "over the last axis (dim=-1), the keys")
    return None


def check_masked_softmax(masked_softmax_fn: Callable) -> None:
    """Check ``masked_softmax(scores, mask) -> weights``: softmax over the last axis, with
    weight exactly 0 where ``mask`` is True, all zeros for a fully masked row, and
    ``scores`` left unchanged."""
    __tracebackhide__ = True
    name = "masked_softmax"
    g = torch.Generator().manual_seed(2)
    cases = _softmax_cases(g)
    for scores, mask, case in cases:
        original = scores.clone()
        expected = masked_softmax(scores, mask)
        got = call_student(masked_softmax_fn, name, scores, mask)
        if not torch.equal(scores, original):
            raise CheckFailed(f"{name} changed its input scores in place ({case}): use "
                              "masked_fill (which returns a new tensor), not masked_fill_ or "
                              "scores[mask] = ...")
        if isinstance(got, Tensor) and got.shape == expected.shape:
            got = got.detach().float()
            full_mask = torch.broadcast_to(mask, got.shape)
            nan_rows = torch.isnan(got).any(-1)
            if (nan_rows & ~full_mask.all(-1)).any():
                idx = tuple(int(i) for i in (nan_rows & ~full_mask.all(-1)).nonzero()[0])
                raise CheckFailed(f"{name} returned NaN in row {idx}, which has keys it may "
                                  "attend to: is the polarity flipped? True means BLOCKED "
                                  f"({case})")
            if nan_rows.any():
                raise CheckFailed(f"{name} returned NaN ({case}): a row whose keys are all "
                                  "masked must give zeros, not softmax(-inf, ..., -inf)")
            flipped = masked_softmax(scores, ~mask)
            if torch.allclose(got, flipped, atol=ATOL):
                raise CheckFailed(f"{name} kept the positions where the mask is True ({case}): "
                                  "in course_lib True means BLOCKED")
            leaked = got.masked_select(full_mask)
            if leaked.numel() and leaked.abs().max() > ATOL:
                raise CheckFailed(f"{name} gives masked positions weight up to "
                                  f"{leaked.abs().max():.3g} ({case}): fill them with -inf "
                                  "before the softmax so they get exactly 0")
            hint = _row_sum_hint(got, mask)
            if hint:
                raise CheckFailed(f"{name}: {hint} ({case})")
        compare(got, expected, name, case)
    passed(name, len(cases))


def check_scaled_dot_product_attention(attention_fn: Callable) -> None:
    """Check ``attention(query, key, value, attn_mask) -> (context, weights)`` against
    :func:`course_lib.attention.scaled_dot_product_attention` (mask True = blocked)."""
    __tracebackhide__ = True
    name = "scaled_dot_product_attention"
    g = torch.Generator().manual_seed(3)
    shapes = [(1, 1, 2, 2, 2), (2, 3, 4, 5, 6), (3, 2, 3, 8, 1)]
    n_cases = 0
    for b, t, s, e, ev in shapes:
        q, k, v = (torch.randn(b, t, e, generator=g), torch.randn(b, s, e, generator=g),
                   torch.randn(b, s, ev, generator=g))
        mask = torch.rand(b, t, s, generator=g) < 0.3
        mask[..., 0] = False
        for m in (None, mask):
            n_cases += 1
            case = f"B={b}, T={t}, S={s}, E={e}, Ev={ev}, {'with' if m is not None else 'no'} mask"
            expected_ctx, expected_w = scaled_dot_product_attention(q, k, v, attn_mask=m)
            got = call_student(attention_fn, name, q.clone(), k.clone(), v.clone(),
                        None if m is None else m.clone())
            if not (isinstance(got, tuple) and len(got) == 2):
                raise CheckFailed(f"{name} should return a pair (context, weights), got "
                                  f"{type(got).__name__} ({case})")
            ctx, w = got
            scores = q @ k.transpose(-2, -1)  # (B, T, S)
            mistakes = [
                (masked_softmax(scores, m), "the weights are not scaled: divide the scores by "
                 "sqrt(E), the square root of the query width"),
                (masked_softmax(scores / e, m), "the scores are divided by E; the scale is "
                 f"1/sqrt(E) = {1 / math.sqrt(e):.3f}"),
            ]
            if e != 1:  # with E = 1 the unscaled and scaled versions coincide
                compare(w, expected_w, f"{name} (weights)", case, mistakes)
            else:
                compare(w, expected_w, f"{name} (weights)", case)
            compare(ctx, expected_ctx, f"{name} (context)", case)
    passed(name, n_cases)


def check_additive_scores(additive_scores: Callable) -> None:
    """Check ``additive_scores(query, key, w_q, w_k, w_v) -> scores`` ``(B, T, S)`` with
    ``score = w_v^T tanh(W_q q + W_k k)``; ``w_q`` ``(h, Eq)``, ``w_k`` ``(h, Ek)``,
    ``w_v`` ``(1, h)`` are ``nn.Linear`` weights."""
    __tracebackhide__ = True
    name = "additive_scores"
    g = torch.Generator().manual_seed(4)
    sizes = [(1, 1, 2, 2, 2, 3), (2, 3, 4, 5, 3, 6), (3, 2, 5, 1, 4, 2)]
    for b, t, s, eq, ek, h in sizes:
        with torch.random.fork_rng(devices=[]):  # leave the student's generator alone
            attention = AdditiveAttention(eq, ek, h)
        with torch.no_grad():
            for p in attention.parameters():
                p.copy_(torch.randn(p.shape, generator=g))
        q, k = torch.randn(b, t, eq, generator=g), torch.randn(b, s, ek, generator=g)
        w_q, w_k, w_v = (attention.w_q.weight.detach(), attention.w_k.weight.detach(),
                         attention.w_v.weight.detach())
        features = (q @ w_q.T).unsqueeze(2) + (k @ w_k.T).unsqueeze(1)  # (B, T, S, h)
        expected = (torch.tanh(features) @ w_v.T).squeeze(-1)  # (B, T, S)
        _, weights = attention(q, k, torch.zeros(b, s, 1))
        assert torch.allclose(torch.softmax(expected, -1), weights, atol=ATOL)
        case = f"B={b}, T={t}, S={s}, Eq={eq}, Ek={ek}, h={h}"
        got = call_student(additive_scores, name, q.clone(), k.clone(), w_q.clone(), w_k.clone(), w_v.clone())
        if isinstance(got, Tensor) and got.shape == (b, t, s, 1):
            raise CheckFailed(f"{name} returned (B, T, S, 1): squeeze the last axis ({case})")
        if isinstance(got, Tensor) and got.shape != expected.shape and got.numel() == expected.numel():
            raise CheckFailed(f"{name} returned shape {fmt(got.shape)}, expected "
                              f"{fmt(expected.shape)}: add every query to every key with "
                              "unsqueeze(2) on the queries and unsqueeze(1) on the keys ({case})")
        compare(got, expected, name, case, [
            ((features @ w_v.T).squeeze(-1), "the tanh is missing: score = w_v^T tanh(W_q q + W_k k)"),
            (torch.softmax(expected, -1), "these are the weights: return the scores, before "
             "the softmax"),
        ])
    passed(name, len(sizes))


def check_padding_mask(padding_mask_fn: Callable) -> None:
    """Check ``padding_mask(lengths, max_len) -> mask`` ``(B, S)``, True at padding."""
    __tracebackhide__ = True
    name = "padding_mask"
    cases = [(torch.tensor([2, 1]), 2), (torch.tensor([3, 1, 4, 0]), 4), (torch.tensor([1]), 3)]
    for lengths, max_len in cases:
        expected = torch.arange(max_len) >= lengths[:, None]  # (B, S)
        case = f"lengths={lengths.tolist()}, max_len={max_len}"
        got = call_student(padding_mask_fn, name, lengths.clone(), max_len)
        if isinstance(got, Tensor) and got.dtype != torch.bool:
            raise CheckFailed(f"{name} should return a boolean tensor, got {got.dtype} ({case})")
        compare(got, expected, name, case, [
            (~expected, "the polarity is flipped: True must mark the PADDING (blocked) "
             "positions, False the real ones"),
            (torch.arange(max_len) > lengths[:, None], "off by one: a sequence of length n "
             "uses positions 0..n-1, so position n is already padding"),
        ])
    passed(name, len(cases))
