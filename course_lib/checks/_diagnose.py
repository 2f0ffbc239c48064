"""Generic diagnoses of a wrong answer, for every check: how its values relate to the
reference's when no known mistake of the check fits (the sign flipped, a constant factor or
offset, a transpose, an order reversed, softmax weights of scores scaled or of the opposite
sign, each feature scaled and shifted, some entries right), and the parameters the student's
function never reads (the cause of an error it raised: :mod:`course_lib.checks._raised`).
Each function returns a sentence, or ``""`` when it finds nothing it can say for sure."""

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


def value_hint(got: Tensor, expected: Tensor) -> str:
    """How the values of ``got`` relate to ``expected`` (same shape, both numbers, not
    equal): a sentence, or ``""``. Only relations that hold for every entry are named."""
    if expected.numel() < 2 or expected.is_complex() or got.is_complex():
        return ""
    e, g = expected.detach().cpu().double(), got.detach().cpu().double()
    if not (torch.isfinite(e).all() and torch.isfinite(g).all()):
        return ""
    scale = float(e.abs().max())
    if scale == 0:
        return ""
    if _close(g, -e, scale):
        return "Every value has the opposite sign of the reference's: a minus sign too many or missing?"
    if e.ndim >= 2 and e.shape[-1] == e.shape[-2] > 1:
        swapped = e.transpose(-2, -1)
        if not _close(swapped, e, scale) and _close(g, swapped, scale):
            return (
                "It holds the reference's values with the last two axes swapped: a transpose "
                "(transpose(-2, -1)) too many or missing?"
            )
    for axis in range(e.ndim):
        flipped = e.flip(axis)
        if e.shape[axis] > 1 and not _close(flipped, e, scale) and _close(g, flipped, scale):
            return f"It holds the reference's values in reverse order along axis {axis}."
    hint = _softmax_hint(g, e)
    if hint:
        return hint
    c = float((g * e).sum() / (e * e).sum())
    if abs(c - 1) > 1e-3 and c != 0 and _close(g, c * e, scale):
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
    norm = float((a * a).sum())
    if norm < 1e-12:
        return None
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


def affine_hint(g: Tensor, e: Tensor, scale: float) -> str:
    """Whether every column (last axis) of ``g`` is ``a * e + b``, ``a`` and ``b`` its own."""
    if e.ndim < 1 or e.numel() // e.shape[-1] < 4:
        return ""
    e2, g2 = e.reshape(-1, e.shape[-1]), g.reshape(-1, g.shape[-1])
    spread = e2 - e2.mean(0)
    if (spread.abs().amax(0) <= 1e-6 * max(1.0, scale)).any():  # a constant column
        return ""
    a = ((g2 - g2.mean(0)) * spread).sum(0) / (spread * spread).sum(0)
    b = g2.mean(0) - a * e2.mean(0)
    if not _close(g2, a * e2 + b, max(scale, float(g2.abs().max()))):
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
