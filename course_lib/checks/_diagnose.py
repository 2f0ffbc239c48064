"""Generic diagnoses of a wrong answer, for every check: how its values relate to the
reference's when no known mistake of the check fits (the sign flipped, a constant factor or
offset, a transpose, an order reversed, softmax weights of scores scaled or of the opposite
sign, each feature scaled and shifted, some entries right), and the parameters the student's
function never reads (the cause of an error it raised: :mod:`course_lib.checks._raised`).
Each function returns a sentence, or ``""`` when it finds nothing it can say for sure: a
relation is named only where the values tell it apart from the others that would fit (a
reversal from a shift, a factor from an offset), else what came is said plainly."""

from __future__ import annotations

import dis
import math
import types

import torch
from torch import Tensor

from course_lib._frames import users_code

# -- values ------------------------------------------------------------------------------------


def _close(a: Tensor, b: Tensor, scale: float) -> bool:
    return bool(torch.allclose(a, b, rtol=1e-4, atol=1e-5 * max(1.0, scale)))


def _constant(x: Tensor, scale: float) -> bool:
    """Whether every value of ``x`` is the same (up to the tolerance of ``_close``)."""
    return float(x.max() - x.min()) <= 1e-5 * max(1.0, scale)


def _inverse_root(k: int) -> float:
    return 1 / math.sqrt(k)


def _named(c: float) -> str:
    """`` (= 1/8)``, `` (= sqrt(8))`` or `` (= 1/sqrt(8))`` where ``|c|`` is one of them
    (up to 4096); ``""`` otherwise, or where ``c`` is a whole number its digits show."""
    a, sign = abs(c), "-" if c < 0 else ""
    if not 1e-6 < a < 1e6:
        return ""
    k = round(a)
    if k >= 1 and math.isclose(a, k, rel_tol=1e-4):
        return ""
    k = round(1 / a)
    if 2 <= k <= 4096 and math.isclose(a, 1 / k, rel_tol=1e-4):
        return f" (= {sign}1/{k})"
    for k, root in ((round(a * a), math.sqrt), (round(1 / (a * a)), _inverse_root)):
        if 2 <= k <= 4096 and math.isqrt(k) ** 2 != k and math.isclose(a, root(k), rel_tol=1e-4):
            return f" (= {sign}{'sqrt' if root is math.sqrt else '1/sqrt'}({k}))"
    return ""


def _reversed_along(e: Tensor, axis: int, scale: float) -> Tensor | None:
    """``e`` flipped along ``axis``, where that tells a reversal from other orders: the flip
    changes ``e``, and (on 3 entries or more) no shift along the axis gives the same values
    (on 2 entries the two are one and the same swap)."""
    n = e.shape[axis]
    flipped = e.flip(axis)
    if n < 2 or _close(flipped, e, scale):
        return None
    shifts = range(1, n) if n <= 64 else (1, n - 1)
    if n >= 3 and any(_close(flipped, e.roll(s, axis), scale) for s in shifts):
        return None
    return flipped


def _reorderings(g: Tensor, e: Tensor, scale: float) -> list[str]:
    """The simple relations ``g`` has to ``e`` (each phrased to follow "the reference's
    values"): the sign flipped, the last two axes swapped, an axis reversed. A reordering
    is named only where ``e`` holds at least 3 different values: with two (a one-hot row,
    weights 1 and 0) any wrong answer is some reordering of them."""
    found = []
    if _close(g, -e, scale):
        found.append("with the opposite sign")
    if _distinct(e.flatten(), scale) < 3:
        return found
    if e.ndim >= 2 and e.shape[-1] == e.shape[-2] > 1:
        swapped = e.transpose(-2, -1)
        if not _close(swapped, e, scale) and _close(g, swapped, scale):
            found.append("with the last two axes swapped")
    for axis in range(e.ndim):
        flipped = _reversed_along(e, axis, scale)
        if flipped is not None and _close(g, flipped, scale):
            found.append(f"in reverse order along axis {axis}")
    return found


_REORDERED = {
    "with the opposite sign": (
        "Every value has the opposite sign of the reference's: a minus sign too many or missing?"
    ),
    "with the last two axes swapped": (
        "It holds the reference's values with the last two axes swapped: a transpose "
        "(transpose(-2, -1)) too many or missing?"
    ),
}


def _factor_or_offset(g: Tensor, e: Tensor, scale: float) -> str:
    """``g`` as ``c * e`` or ``e + offset``, where the values tell the two apart: a constant
    reference fits both (then only what came is said), and a factor needs at least two
    nonzero reference values (one value times anything fits one other value)."""
    if _constant(e, scale):
        if not _constant(g, scale):
            return ""
        return (
            f"Every value is {float(g.flatten()[0]):.4g}, where every value of the "
            f"reference's is {float(e.flatten()[0]):.4g}."
        )
    c = float((g * e).sum() / (e * e).sum())
    several = int((e.abs() > 1e-5 * max(1.0, scale)).sum()) >= 2
    if several and abs(c - 1) > 1e-3 and _close(g, c * e, scale):
        return (
            f"Every value is {c:.4g}{_named(c)} times the reference's: a factor too many or "
            "missing (a scale, a division by a count or a square root, a sum for a mean?)"
        )
    offset = float((g - e).mean())
    if _close(g, e + offset, scale):
        word = "plus" if offset > 0 else "minus"
        return (
            f"Every value is the reference's {word} {abs(offset):.4g}: a constant added or "
            "missing (a bias, an offset, a count that starts at 1?)"
        )
    return ""


def value_hint(got: Tensor, expected: Tensor) -> str:
    """How the values of ``got`` relate to ``expected`` (same shape, both numbers, not
    equal): a sentence, or ``""``. Only relations that hold for every entry, and that these
    values can tell apart from the others, are named."""
    if expected.numel() < 2 or expected.is_complex() or got.is_complex():
        return ""
    e, g = expected.detach().cpu().double(), got.detach().cpu().double()
    if not (torch.isfinite(e).all() and torch.isfinite(g).all()):
        return ""
    scale = float(e.abs().max())
    if scale == 0:
        return ""
    if _close(g, torch.zeros_like(g), scale):
        return "Every value it returned is 0 (the reference's are not)."
    if _constant(e, scale):  # a factor, an offset and a sign flip fit alike: say what came
        return _factor_or_offset(g, e, scale)
    found = _reorderings(g, e, scale)
    if len(found) > 1:
        return (
            f"It holds the reference's values {found[0]}, which here is also the reference's "
            f"{' and also '.join(found[1:])}: these values cannot tell which slip it is."
        )
    if found:
        return _REORDERED.get(found[0], f"It holds the reference's values {found[0]}.")
    hint = _softmax_hint(g, e)
    if hint:
        return hint
    hint = _factor_or_offset(g, e, scale)
    if hint:
        return hint
    hint = affine_hint(g, e, scale)
    if hint:
        return hint
    agree = torch.isclose(g, e, rtol=1e-4, atol=1e-5 * max(1.0, scale))
    n_agree = int(agree.sum())
    if 0 < n_agree < agree.numel():
        first = [int(i) for i in (~agree).nonzero()[0]]
        return (
            f"{n_agree} of its {agree.numel()} values agree with the reference's; the first "
            f"that differs is at {first}."
        )
    return ""


def _distributions(x: Tensor) -> bool:
    """Whether every row (last axis) of ``x`` is a probability distribution or all zeros."""
    sums = x.sum(-1)
    whole = torch.isclose(sums, torch.ones_like(sums), atol=1e-4) | (sums == 0)
    return bool((x >= 0).all() and whole.all())


def _softmax_scale(g: Tensor, e: Tensor) -> float | None:
    """``c`` where every row (last axis) of ``g`` is ``softmax(c * s)`` for the scores ``s``
    whose softmax is ``e``'s row (the log-weights, centred per row, ``c`` times the
    reference's), both zero at the same places; None where that does not hold."""
    if e.ndim < 1 or e.shape[-1] < 2 or not (_distributions(e) and _distributions(g)):
        return None
    support = e > 0
    if not torch.equal(support, g > 0):
        return None
    e, g, support = (x.reshape(-1, x.shape[-1]) for x in (e, g, support))
    rows = support.sum(-1) >= 2
    if not rows.any():
        return None
    e, g, support = e[rows], g[rows], support[rows]
    n = support.sum(-1, keepdim=True)

    def centred(x: Tensor) -> Tensor:  # log-weights minus their mean over the row's support
        logs = torch.where(support, x.clamp_min(1e-300).log(), 0.0)
        return torch.where(support, logs - logs.sum(-1, keepdim=True) / n, 0.0)

    a, b = centred(e), centred(g)
    if float(a.abs().max()) < 0.05:  # nearly uniform weights: any flat enough weights fit
        return None
    if torch.unique((a[support] * 1e3).round()).numel() < 3:
        return None  # one log-ratio (a single row of 2 weights): any other weights fit it
    norm = float((a * a).sum())
    c = float((a * b).sum()) / norm
    if abs(c - 1) < 1e-3 or abs(c) < 1e-3:
        return None
    if not torch.allclose(b, c * a, rtol=1e-4, atol=1e-3):
        return None
    return c


def _softmax_hint(g: Tensor, e: Tensor) -> str:
    """The scale of the scores, where both are softmax weights of scores ``c`` apart."""
    c = _softmax_scale(g, e)
    if c is None:
        return ""
    if math.isclose(c, -1.0, rel_tol=1e-3):
        return (
            "Every row of weights is the softmax of the reference's scores with the opposite "
            "sign: the largest weights go where the reference's are smallest, and the "
            "smallest where they are largest -- a minus sign missing or too many?"
        )
    how = "more peaked" if abs(c) > 1 else "flatter"
    sign = "with the opposite sign and " if c < 0 else ""
    return (
        f"Every row of weights is the softmax of the reference's scores {sign}multiplied by "
        f"{abs(c):.4g}{_named(abs(c))}, so the weights are {how} than the reference's: the "
        "scores are scaled wrong -- multiplied or divided by a factor too many or missing (a "
        "square root, a temperature, a / 2?)"
    )


def _distinct(x: Tensor, scale: float) -> int:
    """How many different values ``x`` holds, up to the tolerance of ``_close``."""
    return int(torch.unique((x / (1e-5 * max(1.0, scale))).round()).numel())


def affine_hint(g: Tensor, e: Tensor, scale: float) -> str:
    """Whether every column (last axis) of ``g`` is ``a * e + b``, ``a`` and ``b`` its own,
    where the values decide it: at least 4 rows, at least 3 different values in every
    column of ``e`` (a line fits any two), and no column of ``g`` constant (``a = 0``)."""
    if e.ndim < 1 or e.numel() // e.shape[-1] < 4:
        return ""
    e2, g2 = e.reshape(-1, e.shape[-1]), g.reshape(-1, g.shape[-1])
    spread = e2 - e2.mean(0)
    if (spread.abs().amax(0) <= 1e-6 * max(1.0, scale)).any():  # a constant column
        return ""
    if min(_distinct(column, scale) for column in e2.T) < 3:
        return ""  # a line fits any two points: a column of two values tells nothing
    g_scale = max(scale, float(g2.abs().max()))
    if ((g2 - g2.mean(0)).abs().amax(0) <= 1e-5 * max(1.0, g_scale)).any():
        return ""  # a constant column of its own: not scaled, replaced
    a = ((g2 - g2.mean(0)) * spread).sum(0) / (spread * spread).sum(0)
    b = g2.mean(0) - a * e2.mean(0)
    if not _close(g2, a * e2 + b, g_scale):
        return ""
    if e2.shape[-1] == 1:
        return (
            f"Every value is {float(a[0]):.4g} times the reference's plus {float(b[0]):.4g}: "
            "the same values scaled and shifted -- standardised or normalised with another "
            "mean and std (or another unit, origin)?"
        )
    factors = ", ".join(f"{float(v):.4g}" for v in a[:6])
    offsets = ", ".join(f"{float(v):.4g}" for v in b[:6])
    more = ", ..." if len(a) > 6 else ""
    return (
        "Each column (feature, along the last axis) is the reference's times a factor plus an "
        f"offset of its own (factors {factors}{more}; offsets {offsets}{more}): the same "
        "values scaled and shifted -- standardised or normalised with another mean and std "
        "(or another unit, origin)?"
    )


def mask_hint(got: Tensor, expected: Tensor) -> str:
    """Whether a boolean mask only blocks too much or only too little, or ``""``."""
    got = got.to(torch.bool)
    extra, missing = got & ~expected, ~got & expected
    if extra.any() and not missing.any():
        return (
            f"Each of them is True (blocked) where the reference is False: it blocks "
            f"{int(extra.sum())} entries the reference leaves open, and opens none it blocks."
        )
    if missing.any() and not extra.any():
        return (
            f"Each of them is False (open) where the reference is True: it leaves open "
            f"{int(missing.sum())} entries the reference blocks, and blocks none it opens."
        )
    return ""


# -- what the student's function never reads ---------------------------------------------------

_READS = {
    "LOAD_FAST",
    "LOAD_FAST_CHECK",
    "LOAD_FAST_AND_CLEAR",
    "LOAD_FAST_LOAD_FAST",
    "STORE_FAST_LOAD_FAST",
    "LOAD_DEREF",
    "LOAD_CLOSURE",
    "LOAD_NAME",
    "DELETE_FAST",
}
_INTROSPECTION = {"locals", "vars", "eval", "exec", "inspect"}


def unused_parameters(fn: object) -> list[str]:
    """The parameters of the student's own Python function ``fn`` that its code never reads
    (``[]`` for anything else: a class, a module, a library's function, ``*args``)."""
    if isinstance(fn, types.MethodType):
        fn = fn.__func__
    if not isinstance(fn, types.FunctionType):
        return []
    code = fn.__code__
    if not users_code(code) or _INTROSPECTION & set(code.co_names):
        return []
    params = code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
    read: set[str] = set(code.co_cellvars)  # read by a function defined inside
    for instruction in dis.get_instructions(code):
        if instruction.opname in _READS:
            value = instruction.argval
            read.update(value if isinstance(value, tuple) else (value,))
    return [
        p for p in params if p not in read and not p.startswith("_") and p not in ("self", "cls")
    ]


def unused_hint(fn: object, name: str) -> str:
    """``"Note: ..."`` naming the parameters ``fn`` never reads, or ``""``."""
    try:
        unused = unused_parameters(fn)
    except Exception:  # a diagnosis must never hide the student's own result
        return ""
    if not unused:
        return ""
    own = getattr(fn, "__name__", name)
    own = name if own == "<lambda>" else own
    listed = ", ".join(unused)
    its = "its parameter" if len(unused) == 1 else "its parameters"
    them, verb = ("it", "is") if len(unused) == 1 else ("them", "are")
    return (
        f"Note: your {own} never uses {its} {listed}, so what it returns cannot depend on "
        f"{them}: {verb} {listed} left out of the computation?"
    )
