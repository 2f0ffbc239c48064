"""Self-checks for Chapter 5, decoding and training: the cached attention step and the
label-smoothed loss. Inside ``unseen_cases`` their random cases come from other seeds."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor

from course_lib._foreign_names import explains_bad_calls
from course_lib._validate_basics import shape_str
from course_lib.attention import scaled_dot_product_attention
from course_lib.checks._core import (
    ATOL,
    CheckFailed,
    call_student,
    case_generator,
    compare,
    in_order,
    passed,
    reference_holds,
    unpack,
)
from course_lib.checks._describe import as_number, describe
from course_lib.masking import causal_mask

__all__ = [
    "check_cached_attention_step",
    "check_label_smoothed_loss",
]


def _attend(q: Tensor, k: Tensor, v: Tensor, scale: float) -> Tensor:
    return torch.softmax(q @ k.transpose(-2, -1) * scale, dim=-1) @ v


_TRIPLE = ("context", "new_cache_k", "new_cache_v")


@explains_bad_calls()
def check_cached_attention_step(step_fn: Callable) -> None:
    """Check ``cached_attention_step(q, k, v, cache_k, cache_v) -> (context, new_cache_k,
    new_cache_v)``: single-head attention for ONE new decoding step with a key/value cache.

    ``q``, ``k``, ``v`` ``(B, 1, D)`` are the newest step's query, key and value; ``cache_k``,
    ``cache_v`` ``(B, t, D)`` the earlier steps' (``t`` may be 0). Append the new key and value
    at the END of the cache, giving ``(B, t + 1, D)``, then return ``softmax(q K^T / sqrt(D)) V``
    over all ``t + 1`` keys as ``context`` ``(B, 1, D)``.

    The check also confirms that this context equals the last row of full causal attention
    over the whole sequence of ``t + 1`` steps: the last query may see every key anyway, and
    the earlier rows never change once computed. That is why decoding with a cache gives the
    same outputs as re-running the whole prefix at every step, at a fraction of the cost.
    """
    __tracebackhide__ = True
    name = "cached_attention_step"
    g = case_generator(51)
    cases = [(2, 3, 4), (1, 0, 3), (3, 1, 5), (1, 6, 2), (2, 2, 1)]  # (B, t, D)
    for b, t, d in cases:
        q_all, k_all, v_all = (
            torch.randn(b, t + 1, d, generator=g, dtype=torch.float64) for _ in range(3)
        )
        q, k, v = q_all[:, -1:], k_all[:, -1:], v_all[:, -1:]  # (B, 1, D): the newest step
        cache_k, cache_v = k_all[:, :-1], v_all[:, :-1]  # (B, t, D): the earlier steps
        full, _ = scaled_dot_product_attention(q_all, k_all, v_all, attn_mask=causal_mask(t + 1))
        expected = full[:, -1:]  # (B, 1, D): the last row of full causal attention
        scale = 1 / math.sqrt(d)
        reference_holds(
            torch.allclose(expected, _attend(q, k_all, v_all, scale), atol=ATOL), "cache"
        )
        case = f"B={b}, t={t} cached steps, D={d}"
        args = (q.clone(), k.clone(), v.clone(), cache_k.clone(), cache_v.clone())
        try:
            got = call_student(step_fn, name, *args)
        except CheckFailed as err:
            if t > 0 or err.__cause__ is None:  # not implemented, returned None, ...
                raise
            raise CheckFailed(
                f"{err} ({case}). On the first step the cache is empty (t=0): "
                "append the new key and value first, then attend over all "
                "t + 1 = 1 keys, so the context is the new value itself"
            ) from err
        context, new_k, new_v = unpack(got, _TRIPLE, name, case, "a triple")
        in_order((context, new_k, new_v), (expected, k_all, v_all), _TRIPLE, name, case)
        compare(
            context,
            expected,
            f"{name} (context)",
            case,
            [
                (
                    _attend(q, k_all, v_all, 1.0),
                    f"the scores are not scaled: divide q K^T by sqrt(D) = {math.sqrt(d):.3g}",
                ),
                (
                    _attend(q, cache_k, cache_v, scale),
                    "the new key and value are left out: the step "
                    "attends only to the old cache. Append them first (the newest step may attend to "
                    "itself), then attend over all t + 1 keys",
                ),
                (
                    v_all.sum(1, keepdim=True),
                    "every weight is 1, so the softmax ran over the wrong "
                    "axis: take it over the keys (dim=-1 of the (B, 1, t + 1) scores)",
                ),
            ],
        )
        for got_cache, old, new, full_cache, which in [
            (new_k, cache_k, k, k_all, "new_cache_k"),
            (new_v, cache_v, v, v_all, "new_cache_v"),
        ]:
            if isinstance(got_cache, Tensor) and got_cache.shape == old.shape:
                raise CheckFailed(
                    f"{name} returned {which} of shape {shape_str(old.shape)}, the cache "
                    "unchanged: append the new step, torch.cat([cache, new], "
                    f"dim=1), so the next step can use it ({case})"
                )
            compare(
                got_cache,
                full_cache,
                f"{name} ({which})",
                case,
                [
                    (
                        torch.cat([new, old], 1),
                        "the new step is put at the START of the cache: "
                        "this step's context is the same (attention does not care about the order of "
                        "the keys), but the cache must keep the steps in time order, newest at the "
                        "END -- torch.cat([cache, new], dim=1)",
                    ),
                ],
            )
    passed(name, len(cases))


def _smoothed(
    logits: Tensor, target: Tensor, eps: float, spread: int, logs: bool = True, reduce: str = "mean"
) -> Tensor:
    """``-sum_c q_c log p_c`` with ``1 - eps`` on the true class and ``eps`` spread over
    ``spread`` classes (V: all, the true one included; V - 1: the others only)."""
    v = logits.shape[-1]
    one_hot = F.one_hot(target, v).to(logits.dtype)
    if spread == v:
        q = (1 - eps) * one_hot + eps / v
    else:
        q = (1 - eps) * one_hot + eps / spread * (1 - one_hot)
    p = logits.log_softmax(-1) if logs else logits.softmax(-1)
    per_row = -(q * p).sum(-1)  # (N,)
    return per_row.mean() if reduce == "mean" else per_row.sum()


def _a_loss(got, name: str, n: int, case: str) -> Tensor:
    """The returned loss as a tensor: a 0-dim tensor, or any Python or NumPy number."""
    __tracebackhide__ = True
    if isinstance(got, (Tensor, np.ndarray)) and tuple(got.shape) == (n,) and n > 1:
        raise CheckFailed(
            f"{name} returned shape ({n},), one loss per prediction: average "
            f"over the N predictions with .mean() to get one number ({case})"
        )
    if isinstance(got, Tensor):
        return got
    value = as_number(got)
    if value is None:
        raise CheckFailed(
            f"{name} should return a 0-dim tensor (or a float), got {describe(got)} ({case})"
        )
    return torch.tensor(float(value), dtype=torch.float64)


@explains_bad_calls()
def check_label_smoothed_loss(loss_fn: Callable) -> None:
    """Check ``label_smoothed_loss(logits, target, epsilon) -> loss``, a scalar.

    ``logits`` ``(N, V)``, ``target`` ``(N,)`` class ids, ``0 <= epsilon < 1``. The target
    distribution puts ``1 - epsilon`` on the true class and spreads ``epsilon`` evenly over
    ALL ``V`` classes, the true one included: ``(1 - epsilon) * one_hot + epsilon / V``. The
    loss is the cross-entropy ``-sum_c q_c log softmax(logits)_c`` averaged over the ``N``
    predictions -- what ``F.cross_entropy(logits, target, label_smoothing=epsilon)`` computes.
    A 0-dim tensor or a Python float is accepted.
    """
    __tracebackhide__ = True
    name = "label_smoothed_loss"
    g = case_generator(52)
    # N > 1 and epsilon > 0 first, so that every mistake below shows
    cases = [(4, 5, 0.1), (1, 2, 0.3), (6, 11, 0.1), (3, 5, 0.0), (2, 11, 0.3), (5, 2, 0.1)]
    for n, v, eps in cases:
        logits = 2 * torch.randn(n, v, generator=g, dtype=torch.float64)
        target = torch.randint(0, v, (n,), generator=g)
        expected = F.cross_entropy(logits, target, label_smoothing=eps)
        reference_holds(
            torch.allclose(expected, _smoothed(logits, target, eps, v), atol=ATOL), "smoothing"
        )
        case = f"N={n}, V={v}, epsilon={eps}"
        got = call_student(loss_fn, name, logits.clone(), target.clone(), eps)
        got = _a_loss(got, name, n, case)
        compare(
            got,
            expected,
            name,
            case,
            [
                (
                    _smoothed(logits, target, eps, v - 1),
                    "epsilon is spread over the V - 1 other "
                    "classes only. That convention is also used in the literature, but the course "
                    "(and PyTorch's label_smoothing) spreads it over ALL V classes, the true one "
                    "included: (1 - epsilon) * one_hot + epsilon / V",
                ),
                (
                    (1 - eps) * F.cross_entropy(logits, target),
                    "the true class gets 1 - epsilon, but the epsilon taken from it is spread "
                    "nowhere: add epsilon / V to EVERY class, the true one included, "
                    "(1 - epsilon) * one_hot + epsilon / V -- the uniform part of the loss is "
                    "epsilon * (-log_softmax(logits)).mean(-1)",
                ),
                (
                    -(((1 - eps) * F.one_hot(target, v) + eps) * logits.log_softmax(-1))
                    .sum(-1)
                    .mean(),
                    "epsilon is added to every class without dividing it among them: each "
                    "class gets epsilon / V, so that the target distribution sums to 1, "
                    "(1 - epsilon) * one_hot + epsilon / V",
                ),
                (
                    F.cross_entropy(logits, target),
                    "the smoothing is ignored: this is the plain "
                    "cross-entropy; mix the one-hot target with the uniform distribution",
                ),
                (
                    _smoothed(logits, target, eps, v, logs=False),
                    "the probabilities are used instead "
                    "of the log-probabilities: the cross-entropy is -sum q * log_softmax(logits)",
                ),
                (
                    _smoothed(logits, target, eps, v, reduce="sum"),
                    "this is the SUM over the N "
                    "predictions: take the mean, so the loss does not grow with the batch size",
                ),
                (
                    -expected,
                    "the sign is flipped: the cross-entropy is MINUS sum q * log p, a "
                    "positive number",
                ),
            ],
        )
    passed(name, len(cases))
