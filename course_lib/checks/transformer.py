"""Self-checks for Chapters 3 and 4 (self-attention, multi-head attention, positions)."""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
from torch import Tensor

from course_lib.checks._core import CheckFailed, call_student, compare, passed
from course_lib.masking import causal_mask
from course_lib.positional import sinusoidal_encoding

__all__ = ["check_causal_mask", "check_split_heads", "check_merge_heads", "check_positional_encoding"]


def check_causal_mask(causal_mask_fn: Callable) -> None:
    """Check ``causal_mask(size) -> (size, size)`` boolean, True where step ``t`` may NOT look
    (the keys after ``t``)."""
    __tracebackhide__ = True
    name = "causal_mask"
    sizes = [2, 3, 6, 1]  # size 1 last: there, several mistakes look alike
    for size in sizes:
        expected = causal_mask(size)
        got = call_student(causal_mask_fn, name, size)
        case = f"size={size}"
        if isinstance(got, Tensor) and got.dtype != torch.bool:
            raise CheckFailed(f"{name} should return a boolean tensor, got {got.dtype} ({case}); "
                              "compare with > 0 or build it with dtype=torch.bool")
        if isinstance(got, Tensor) and got.ndim == 3 and got.shape[0] == 1:
            raise CheckFailed(f"{name} returned (1, T, T); return (T, T) -- it broadcasts over "
                              f"the batch by itself ({case})")
        ones = torch.ones(size, size, dtype=torch.bool)
        compare(got, expected, name, case, [
            (~expected, "the polarity is flipped: this is the lecture's mask (True = may look). "
             "In course_lib True means BLOCKED, so True must sit ABOVE the diagonal"),
            (ones.triu(0), "the diagonal is blocked too: step t may attend to itself, only the "
             "steps after it are blocked (triu with diagonal=1)"),
            (ones.tril(-1), "this blocks the past instead of the future: True goes above the "
             "diagonal (key index > query index)"),
        ])
    passed(name, len(sizes))


def check_split_heads(split_heads: Callable) -> None:
    """Check ``split_heads(x, num_heads) -> (B, H, T, D / H)`` for ``x`` of shape ``(B, T, D)``:
    head ``h`` gets features ``h * Dh`` to ``(h + 1) * Dh - 1`` of every step."""
    __tracebackhide__ = True
    name = "split_heads"
    cases = [(1, 2, 4, 2), (2, 3, 6, 3), (3, 5, 8, 4), (2, 4, 8, 1)]
    for b, t, d, h in cases:
        x = torch.arange(b * t * d, dtype=torch.float32).view(b, t, d)
        expected = x.view(b, t, h, d // h).transpose(1, 2)  # (B, T, H, Dh) -> (B, H, T, Dh)
        case = f"B={b}, T={t}, D={d}, H={h}"
        got = call_student(split_heads, name, x.clone(), h)
        compare(got, expected, name, case, [
            (x.reshape(b, h, t, d // h), "reshaping (B, T, D) straight to (B, H, T, Dh) mixes "
             "time steps and features: view it as (B, T, H, Dh) first, then transpose(1, 2)"),
        ])
    passed(name, len(cases))


def check_merge_heads(merge_heads: Callable) -> None:
    """Check ``merge_heads(x) -> (B, T, H * Dh)`` for ``x`` of shape ``(B, H, T, Dh)``: the
    inverse of ``split_heads``, heads side by side in every step."""
    __tracebackhide__ = True
    name = "merge_heads"
    cases = [(1, 2, 2, 2), (2, 3, 4, 2), (3, 4, 5, 3), (2, 1, 3, 4)]
    for b, h, t, dh in cases:
        x = torch.arange(b * h * t * dh, dtype=torch.float32).view(b, h, t, dh)
        expected = x.transpose(1, 2).reshape(b, t, h * dh)  # (B, T, H, Dh) -> (B, T, D)
        case = f"B={b}, H={h}, T={t}, Dh={dh}"
        got = call_student(merge_heads, name, x.clone())
        compare(got, expected, name, case, [
            (x.reshape(b, t, h * dh), "reshaping (B, H, T, Dh) straight to (B, T, D) puts "
             "pieces of different steps together: transpose(1, 2) to (B, T, H, Dh) first"),
        ])
    passed(name, len(cases))


def check_positional_encoding(positional_encoding: Callable) -> None:
    """Check ``positional_encoding(max_len, d_model) -> (max_len, d_model)`` against the sine
    and cosine formula (sines in even columns, cosines in odd ones; ``d_model`` even)."""
    __tracebackhide__ = True
    name = "positional_encoding"
    cases = [(4, 2), (10, 8), (50, 16), (7, 6)]
    for max_len, d in cases:
        expected = sinusoidal_encoding(max_len, d)
        pos = torch.arange(max_len, dtype=torch.float32)[:, None]  # (L, 1)
        i = torch.arange(d // 2, dtype=torch.float32)  # (D/2,)
        swapped = torch.zeros(max_len, d)
        swapped[:, 0::2] = torch.cos(pos / 10000 ** (2 * i / d))
        swapped[:, 1::2] = torch.sin(pos / 10000 ** (2 * i / d))
        no_two = torch.zeros(max_len, d)
        no_two[:, 0::2] = torch.sin(pos / 10000 ** (i / d))
        no_two[:, 1::2] = torch.cos(pos / 10000 ** (i / d))
        degrees = torch.zeros(max_len, d)
        degrees[:, 0::2] = torch.sin(torch.deg2rad(pos / 10000 ** (2 * i / d)))
        degrees[:, 1::2] = torch.cos(torch.deg2rad(pos / 10000 ** (2 * i / d)))
        case = f"max_len={max_len}, d_model={d}"
        got = call_student(positional_encoding, name, max_len, d)
        compare(got, expected, name, case, [
            (swapped, "sines and cosines are swapped: sines go in the EVEN columns (0, 2, ...)"),
            (no_two, f"the exponent must be 2i / d_model for the pair i, not i / d_model: the "
             f"slowest dial then turns at 1/10000^((d-2)/d), here {10000 ** (-(d - 2) / d):.4g}"),
            (degrees, "the angles are radians (pos times the angular speed), not degrees"),
        ])
    # a sanity number students can check by hand
    assert math.isclose(float(sinusoidal_encoding(2, 2)[1, 0]), math.sin(1.0), rel_tol=1e-6)
    passed(name, len(cases))
