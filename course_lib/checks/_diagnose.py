"""Generic diagnoses of a wrong answer, for every check: how its values relate to the
reference's when no known mistake of the check fits (the sign flipped, a constant factor or
offset, a transpose, an order reversed, some entries right), and the likely cause of an
error the student's own function raised (``x.T`` on a batch). Each function returns a
sentence, or ``""`` when it finds nothing it can say for sure."""

from __future__ import annotations

import dis
import math
import os
import sysconfig
import types

import numpy as np
import torch
from torch import Tensor

from course_lib._validate import shape_str

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
    agree = torch.isclose(g, e, rtol=1e-4, atol=1e-5 * max(1.0, scale))
    n_agree = int(agree.sum())
    if 0 < n_agree < agree.numel():
        first = [int(i) for i in (~agree).nonzero()[0]]
        return (
            f"{n_agree} of its {agree.numel()} values agree with the reference's; the first "
            f"that differs is at {first}."
        )
    return ""


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


# -- errors the student's function raised ------------------------------------------------------

_LIBRARIES = tuple(
    os.path.join(os.path.normcase(os.path.abspath(p)), "")
    for p in {
        os.path.dirname(os.path.dirname(os.path.abspath(__file__))),  # course_lib
        sysconfig.get_paths()["stdlib"],
        sysconfig.get_paths()["purelib"],
        sysconfig.get_paths()["platlib"],
    }
)
_LOADS = {"LOAD_FAST", "LOAD_FAST_CHECK", "LOAD_DEREF", "LOAD_NAME", "LOAD_GLOBAL"}


def _own_code(code: types.CodeType) -> bool:
    """Whether ``code`` is the student's (a notebook cell, a script), not a library's."""
    path = os.path.normcase(os.path.abspath(code.co_filename))
    return not code.co_filename.startswith("<frozen") and not path.startswith(_LIBRARIES)


def _lookup(frame: types.FrameType, name: str):
    if name in frame.f_locals:
        return frame.f_locals[name]
    return frame.f_globals.get(name)


def _dot_t(frame: types.FrameType, line: int) -> str:
    """The hint for ``name.T`` on a tensor of more than two axes in ``frame``'s code: on
    the line that raised first, elsewhere in the function else."""
    found: list[tuple[bool, str, object]] = []
    instructions = list(dis.get_instructions(frame.f_code))
    for load, attr in zip(instructions, instructions[1:], strict=False):
        if attr.opname != "LOAD_ATTR" or attr.argval != "T" or load.opname not in _LOADS:
            continue
        value = _lookup(frame, str(load.argval))
        if isinstance(value, (Tensor, np.ndarray)) and value.ndim > 2:
            lineno = attr.positions.lineno if attr.positions else None
            found.append((lineno != line, str(load.argval), value))
    if not found:
        return ""
    elsewhere, name, value = min(found, key=lambda f: f[0])
    shape = tuple(value.shape)
    swap = (
        f"{name}.transpose(-2, -1) (or {name}.mT)"
        if isinstance(value, Tensor)
        else f"np.swapaxes({name}, -2, -1)"
    )
    return (
        f"{'A possible' if elsewhere else 'Likely'} cause: {name}.T reverses ALL "
        f"{len(shape)} axes of {name}, {shape_str(shape)} -> {shape_str(shape[::-1])}, batch "
        f"axis included; to swap only its last two axes write {swap}."
    )


def raised_hint(err: BaseException) -> str:
    """The likely cause of an error raised inside the student's own code, as a sentence, or
    ``""``: read from the traceback's frames (their code and variables), no source needed."""
    frames = []
    tb = err.__traceback__
    while tb is not None:
        frames.append((tb.tb_frame, tb.tb_lineno))
        tb = tb.tb_next
    for frame, line in reversed(frames):  # the innermost first
        try:
            hint = _dot_t(frame, line) if _own_code(frame.f_code) else ""
        except Exception:  # a diagnosis must never hide the student's own error
            hint = ""
        if hint:
            return hint
    return ""
