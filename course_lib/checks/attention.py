"""Self-checks for Chapters 2a and 2b (attention pooling and scoring functions). Masks:
True = blocked, as everywhere in course_lib. (Chapter 2c: ``checks.attention_decoder``.)"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
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
    unchanged,
    unpack,
    variant,
)
from course_lib.masking import masked_softmax

__all__ = [
    "check_masked_softmax",
    "check_scaled_dot_product_attention",
    "check_general_scores",
    "check_kernel_weights",
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
        return (
            f"the weights in row {idx} sum to {sums[idx]:.2f}, not 1 -- take the softmax "
            "over the last axis (dim=-1), the keys"
        )
    return None


def _floating_like(got, expected: Tensor) -> bool:
    """A floating-point tensor of the reference's shape: one the diagnostics can read."""
    return isinstance(got, Tensor) and got.shape == expected.shape and torch.is_floating_point(got)


@explains_bad_calls()
def check_masked_softmax(masked_softmax_fn: Callable) -> None:
    """Check ``masked_softmax(scores, mask) -> weights``: softmax over the last axis, with
    weight exactly 0 where ``mask`` is True, all zeros for a fully masked row, and
    ``scores`` left unchanged."""
    __tracebackhide__ = True
    name = "masked_softmax"
    g = case_generator(2)
    cases = _softmax_cases(g)
    for scores, mask, case in cases:
        original = scores.clone()
        expected = masked_softmax(scores, mask)
        got = call_student(masked_softmax_fn, name, scores, mask)
        unchanged(
            scores,
            original,
            name,
            "scores",
            case,
            "use masked_fill (which returns a new tensor), not masked_fill_ or scores[mask] = ...",
        )
        if _floating_like(got, expected):
            values = got.detach().cpu().float()
            full_mask = torch.broadcast_to(mask, values.shape)
            nan_rows = torch.isnan(values).any(-1)
            if (nan_rows & ~full_mask.all(-1)).any():
                idx = tuple(int(i) for i in (nan_rows & ~full_mask.all(-1)).nonzero()[0])
                raise CheckFailed(
                    f"{name} returned NaN in row {idx}, which has keys it may "
                    "attend to: is the polarity flipped? True means BLOCKED "
                    f"({case})"
                )
            if nan_rows.any():
                raise CheckFailed(
                    f"{name} returned NaN ({case}): a row whose keys are all "
                    "masked must give zeros, not softmax(-inf, ..., -inf)"
                )
            flipped = masked_softmax(scores, ~mask)
            if torch.allclose(values, flipped, atol=ATOL):
                raise CheckFailed(
                    f"{name} kept the positions where the mask is True ({case}): "
                    "in course_lib True means BLOCKED"
                )
            leaked = values.masked_select(full_mask)
            if leaked.numel() and leaked.abs().max() > ATOL:
                raise CheckFailed(
                    f"{name} gives masked positions weight up to "
                    f"{leaked.abs().max():.3g} ({case}): fill them with -inf "
                    "before the softmax so they get exactly 0"
                )
            hint = _row_sum_hint(values, mask)
            if hint:
                raise CheckFailed(f"{name}: {hint} ({case})")
        compare(got, expected, name, case)
    passed(name, len(cases))


_PAIR = ("context", "weights")


@explains_bad_calls()
def check_scaled_dot_product_attention(attention_fn: Callable) -> None:
    """Check ``attention(query, key, value, attn_mask) -> (context, weights)`` against
    :func:`course_lib.attention.scaled_dot_product_attention` (mask True = blocked)."""
    __tracebackhide__ = True
    name = "scaled_dot_product_attention"
    g = case_generator(3)
    shapes = [(1, 1, 2, 2, 2), (2, 3, 4, 5, 6), (3, 2, 3, 8, 1)]
    n_cases = 0
    for b, t, s, e, ev in shapes:
        q, k, v = (
            torch.randn(b, t, e, generator=g),
            torch.randn(b, s, e, generator=g),
            torch.randn(b, s, ev, generator=g),
        )
        mask = torch.rand(b, t, s, generator=g) < 0.3
        mask[..., 0] = False
        for m in (None, mask):
            n_cases += 1
            case = f"B={b}, T={t}, S={s}, E={e}, Ev={ev}, {'with' if m is not None else 'no'} mask"
            expected_ctx, expected_w = scaled_dot_product_attention(q, k, v, attn_mask=m)
            got = call_student(
                attention_fn,
                name,
                q.clone(),
                k.clone(),
                v.clone(),
                None if m is None else m.clone(),
            )
            ctx, w = unpack(got, _PAIR, name, case, "a pair")
            in_order((ctx, w), (expected_ctx, expected_w), _PAIR, name, case)
            scores = q @ k.transpose(-2, -1)  # (B, T, S)
            scaled = scores / math.sqrt(e)
            if m is not None:
                scaled = scaled.masked_fill(m, float("-inf"))
            # a key masked for every query leaves a column of -inf: NaN, or 0 once cleaned
            over_queries = torch.nan_to_num(torch.softmax(scaled, dim=-2), nan=0.0)
            mistakes = []
            if e != 1:  # with E = 1 the unscaled and scaled versions coincide
                mistakes += [
                    (
                        masked_softmax(scores, m),
                        "the weights are not scaled: divide the scores by "
                        "sqrt(E), the square root of the query width",
                    ),
                    (
                        masked_softmax(scores / e, m),
                        "the scores are divided by E; the scale is 1/sqrt(E) = "
                        f"{1 / math.sqrt(e):.3f}",
                    ),
                    (
                        masked_softmax(scores * math.sqrt(e), m),
                        "the scores are multiplied by sqrt(E); divide them by it: the "
                        f"scale is 1/sqrt(E) = {1 / math.sqrt(e):.3f}, scores / math.sqrt(E)",
                    ),
                ]
            if m is not None:
                mistakes.append(
                    (
                        masked_softmax(scores / math.sqrt(e), ~m),
                        "the mask is used with the opposite polarity: here True means "
                        "blocked, so fill the scores where the mask is True "
                        "(scores.masked_fill(attn_mask, float('-inf'))), not where it is False",
                    )
                )
            mistakes.append(
                (
                    over_queries,
                    "the softmax runs over the queries (dim=-2), so each key's column sums "
                    "to 1; take it over the keys, the last axis (dim=-1): each query's row of "
                    "weights must sum to 1",
                )
            )
            compare(w, expected_w, f"{name} (weights)", case, mistakes)
            compare(ctx, expected_ctx, f"{name} (context)", case)
    passed(name, n_cases)


# what PyTorch says when the widths of a product do not fit
_SHAPE_CLASH = ("cannot be multiplied", "must match the size", "does not broadcast")


def _general_call(fn: Callable, name: str, query: Tensor, key: Tensor, weight: Tensor):
    """``call_student``, with a hint when a transposed weight makes the shapes clash."""
    __tracebackhide__ = True
    try:
        return call_student(fn, name, query, key, weight)
    except CheckFailed as err:
        clash = isinstance(err.__cause__, RuntimeError) and any(
            marker in str(err.__cause__) for marker in _SHAPE_CLASH
        )
        if weight.shape[0] == weight.shape[1] or not clash:
            raise
        eq, ek = weight.shape
        raise CheckFailed(
            f"{err}\nHint: is the weight used transposed? weight is W, shape "
            f"(Eq, Ek) = ({eq}, {ek}), as nn.Linear(Ek, Eq) stores it: W k is "
            "key @ weight.T, and q^T W is query @ weight"
        ) from err.__cause__


@explains_bad_calls()
def check_general_scores(general_scores: Callable) -> None:
    """Check ``general_scores(query, key, weight) -> scores`` ``(B, T, S)``: Luong's
    "general" (bilinear) score ``q^T W k`` for every query-key pair.

    Shapes: query ``(B, T, Eq)``, key ``(B, S, Ek)``, weight ``W`` ``(Eq, Ek)`` -- the
    way ``nn.Linear(Ek, Eq)`` stores its weight, so ``W k`` is ``key @ weight.T``. The
    scores are neither scaled by ``sqrt(d)`` nor turned into weights by a softmax. With
    ``W = I`` (and ``Eq = Ek``) the general score is the plain dot product ``q^T k``.
    """
    __tracebackhide__ = True
    name = "general_scores"
    g = case_generator(9)
    # (B, T, S, Eq, Ek, W = I)
    cases = [
        (2, 3, 4, 3, 5, False),
        (2, 3, 4, 4, 4, True),
        (3, 2, 5, 4, 4, False),
        (1, 1, 3, 2, 6, False),
        (1, 4, 2, 5, 2, False),
    ]
    for b, t, s, eq, ek, identity in cases:
        q = torch.randn(b, t, eq, generator=g, dtype=torch.float64)
        k = torch.randn(b, s, ek, generator=g, dtype=torch.float64)
        if identity:
            w = torch.eye(eq, dtype=torch.float64)
        else:
            w = torch.randn(eq, ek, generator=g, dtype=torch.float64)
        expected = torch.einsum("bti,ij,bsj->bts", q, w, k)  # (B, T, S)
        case = f"B={b}, T={t}, S={s}, Eq={eq}, Ek={ek}" + (", W = I" * identity)
        got = _general_call(general_scores, name, q.clone(), k.clone(), w.clone())
        if isinstance(got, Tensor) and got.shape == (b, s, t) and s != t:
            raise CheckFailed(
                f"{name} returned (B, S, T) = {shape_str(got.shape)}: the scores have one "
                f"row per query and one column per key, (B, T, S) = "
                f"{shape_str(expected.shape)} ({case})"
            )
        why = (
            "the general score is q^T W k itself; the division by sqrt(d) belongs "
            "to scaled dot-product attention"
        )
        mistakes = [
            (expected / math.sqrt(eq), f"the scores are divided by sqrt(Eq): {why}"),
            (expected / math.sqrt(ek), f"the scores are divided by sqrt(Ek): {why}"),
            (
                torch.softmax(expected, -1),
                "these are the weights: return the scores q^T W k, before the softmax",
            ),
            (
                torch.softmax(expected / math.sqrt(eq), -1),
                "these are the weights of "
                "scaled scores: return the scores q^T W k, unscaled and before the "
                "softmax",
            ),
        ]
        if eq == ek and not identity:
            mistakes += [
                (
                    torch.einsum("bti,ji,bsj->bts", q, w, k),
                    "the weight is used "
                    "transposed: W is (Eq, Ek), as nn.Linear(Ek, Eq) stores it, so W k is "
                    "key @ weight.T (and q^T W is query @ weight)",
                ),
                (
                    q @ k.transpose(-2, -1),
                    "the weight is not used: this is the plain "
                    "dot product q^T k, which is the general score only for W = I; "
                    "compute q^T W k",
                ),
            ]
        try:
            compare(got, expected, name, case, mistakes)
        except CheckFailed as err:
            if identity and "different values" in str(err):
                raise CheckFailed(
                    f"{name}: with W = I the general score is the dot product q^T k, "
                    f"query @ key.transpose(-2, -1), and yours is not ({case}). {err}"
                ) from None
            raise
    passed(name, len(cases))
    print("  With W = I the general score is the dot product q^T k.")


def _empty_window_case(g: torch.Generator) -> tuple[Tensor, float]:
    """Drawn ``diffs`` ``(T, S)`` and a half width, with one query whose window holds no
    training point (one of its points sits exactly half_width away, which is outside)."""
    t, s = (int(torch.randint(low, high, (1,), generator=g)) for low, high in [(3, 7), (4, 10)])
    half = 0.25 * int(torch.randint(2, 6, (1,), generator=g))  # 0.5 .. 1.25, exact in float
    diffs = torch.rand(t, s, generator=g) * 4 - 2
    far = half + torch.rand(s, generator=g)  # |diff| >= half_width
    far[int(torch.randint(s, (1,), generator=g))] = half
    sign = torch.where(torch.rand(s, generator=g) < 0.5, -1.0, 1.0)
    diffs[int(torch.randint(t, (1,), generator=g))] = far * sign
    return diffs, half


def _boxcar(diffs: Tensor, half: float) -> Tensor:
    inside = (diffs.abs() < half).float()  # (T, S)
    return inside / inside.sum(-1, keepdim=True).clamp(min=1)


@explains_bad_calls()
def check_kernel_weights(laplace_weights: Callable, boxcar_weights: Callable) -> None:
    """Check the Nadaraya-Watson weights of two kernels, from ``diffs`` ``(T, S)`` (query
    minus training input): ``laplace_weights(diffs)`` is the softmax of ``-|diffs|`` over the
    training points; ``boxcar_weights(diffs, half_width)`` spreads each query's weight
    equally over the training points with ``|diff| < half_width``, and gives a query with
    no such point all-zero weights."""
    __tracebackhide__ = True
    g = case_generator(8)
    cases = [torch.randn(4, 6, generator=g), torch.rand(5, 9, generator=g) * 4 - 2]
    empty = torch.tensor([[0.1, -0.7, 0.9], [0.6, -0.8, 1.5], [0.5, -0.5, 0.2]])
    windows = [(cases[0], 0.5), (cases[1], 1.0), (empty, 0.5)]
    if variant() > 0:  # the hand-written case gets a drawn companion
        windows.append(_empty_window_case(g))
    for diffs in cases:
        case = f"diffs of shape {shape_str(diffs.shape)}"
        expected = torch.softmax(-diffs.abs(), dim=-1)
        got = call_student(laplace_weights, "laplace_weights", diffs.clone())
        compare(
            got,
            expected,
            "laplace_weights",
            case,
            [
                (
                    torch.softmax(-(diffs**2) / 2, dim=-1),
                    "these are the Gaussian weights: the "
                    "Laplace kernel scores -|x - x_i|, not -(x - x_i)^2 / 2",
                ),
                (
                    torch.softmax(diffs.abs(), dim=-1),
                    "the minus sign is missing: softmax(|x - x_i|) gives the FARTHEST "
                    "training points the most weight; the Laplace kernel scores -|x - x_i|, "
                    "so the nearest points weigh most",
                ),
                (
                    torch.softmax(-diffs.abs() / 2, dim=-1),
                    "this is softmax(-|x - x_i| / 2): the Laplace kernel scores -|x - x_i|, "
                    "without the Gaussian's / 2 (a kernel twice as wide, its weights too "
                    "flat)",
                ),
                (
                    torch.softmax(-diffs.abs(), dim=0),
                    "the softmax runs over the wrong axis: each "
                    "query's (row's) weights must sum to 1, so use dim=-1",
                ),
                (
                    _boxcar(diffs, 0.5),
                    "these are boxcar weights: the two functions look swapped; the order "
                    "is check_kernel_weights(laplace_weights, boxcar_weights)",
                ),
            ],
        )
    for diffs, half in windows:
        case = f"diffs of shape {shape_str(diffs.shape)}, half_width={half}"
        inside = (diffs.abs() < half).float()  # (T, S)
        expected = _boxcar(diffs, half)
        got = call_student(boxcar_weights, "boxcar_weights", diffs.clone(), half)
        if isinstance(got, Tensor) and torch.isnan(got).any():
            raise CheckFailed(
                f"boxcar_weights returned NaN ({case}): a query with no "
                "training point in its window must get all-zero weights, "
                "not 0 / 0"
            )
        compare(
            got,
            expected,
            "boxcar_weights",
            case,
            [
                (
                    inside,
                    "the weights are 0/1 indicators: divide each row by the number of "
                    "points in its window, so that the prediction is their average",
                ),
                (
                    (
                        (diffs.abs() <= half).float()
                        / (diffs.abs() <= half).float().sum(-1, keepdim=True).clamp(min=1)
                    ),
                    "a point exactly half_width away counts here: the window is |x - x_i| < "
                    "half_width, strictly",
                ),
            ],
        )
    passed("laplace_weights and boxcar_weights", len(cases) + len(windows))
