"""What a self-check says about an answer it cannot use: each function names what was
passed or returned, in the student's words, and returns the problem as text (or None), so
that ``_core`` raises it as :class:`~course_lib.checks._core.CheckFailed`."""

from __future__ import annotations

import inspect
import numbers
from collections.abc import Callable

import numpy as np
import torch
from torch import Tensor

from course_lib._validate_basics import shape_str, type_name


def describe(value: object) -> str:
    """``"None"``, ``"Tensor (2, 3) torch.float32"``, ``"a NumPy array (4,) float64"``,
    ``"tuple of 2 (Tensor (2, 3) torch.float32, None)"``, ``"int 3"``: what a message
    says the student passed or returned."""
    if value is None:
        return "None"
    if isinstance(value, np.ndarray):
        return f"a NumPy array {shape_str(value.shape)} {value.dtype}"
    if isinstance(value, np.generic):
        return f"a NumPy {value.dtype} {value.item()!r}"
    if isinstance(value, (bool, int, float)):
        return f"{type(value).__name__} {value!r}"
    if isinstance(value, (tuple, list)) and not value:
        return f"an empty {type(value).__name__}"
    if isinstance(value, (tuple, list)) and not isinstance(value, torch.Size):
        items = ", ".join(describe(v) for v in value[:4]) + (", ..." if len(value) > 4 else "")
        return f"{type(value).__name__} of {len(value)} ({items})"
    if isinstance(value, dict):
        return f"dict with keys {list(value)[:6]}"
    if inspect.isfunction(value) or inspect.ismethod(value):
        return f"the function {value.__name__}"
    return type_name(value)


def not_callable_problem(fn: object) -> str:
    """Why ``fn`` cannot be the student's function: it is a value, not the function."""
    message = f"pass the function itself, e.g. check(my_function), not {describe(fn)}"
    if fn is None:
        return message + ": is it defined by a cell that ran, and named as the exercise names it?"
    if isinstance(fn, str):
        return message + ": the function's name without quotes"
    return message + (
        ": that looks like what it returns -- write check(my_function), with no parentheses "
        "after my_function, and the check calls it on its own cases"
    )


def signature_problem(fn: Callable, name: str, args: tuple) -> str | None:
    """Why ``fn`` cannot take the check's ``args`` (missing or extra parameters), or None."""
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):  # a builtin or an odd callable: let the call tell
        return None
    try:
        signature.bind(*args)
    except TypeError as err:
        own = getattr(fn, "__name__", name)
        own = name if own == "<lambda>" else own
        other = "" if own == name else f" Is {own} the function this check is for?"
        passed = ", ".join(describe(a) for a in args[:4]) + (", ..." if len(args) > 4 else "")
        return (
            f"{name}: your {own}{signature} cannot take the {len(args)} argument(s) the "
            f"check passes ({err}).{other} Keep the parameters the exercise gives, in its "
            f"order; the check passes {passed or 'nothing'}"
        )
    return None


def _is_number(value: object) -> bool:
    """A Python or NumPy real number, or a 0-dim array or tensor of one; not a bool."""
    if isinstance(value, (bool, np.bool_, complex)):
        return False
    if isinstance(value, (np.ndarray, np.generic)):
        real = np.issubdtype(value.dtype, np.number) and not np.iscomplexobj(value)
        return real and value.ndim == 0
    if isinstance(value, Tensor):
        real = value.dtype != torch.bool and not value.is_complex()
        return real and value.ndim == 0
    return isinstance(value, numbers.Real)


def as_number(value: object) -> float | int | None:
    """``value`` as a Python int or float if it is one real number (NumPy scalars and 0-dim
    arrays and tensors included), else None."""
    if not _is_number(value):
        return None
    if isinstance(value, (Tensor, np.ndarray, np.generic)):
        value = value.item()
    return value if isinstance(value, int) else float(value)


def number_problem(value: object, many: str) -> str | None:
    """Why ``value`` is not one number, or None. ``many``: what to do with an array."""
    if as_number(value) is not None:
        return None
    if isinstance(value, (Tensor, np.ndarray)) and value.dtype != bool and value.ndim > 0:
        what = "a tensor" if isinstance(value, Tensor) else "an array"
        return f"got {what} of shape {shape_str(value.shape)}: {many}"
    return f"got {describe(value)}"


def tensor_problem(got: object, expected: Tensor) -> str | None:
    """Why ``got`` is not a tensor like ``expected`` (its type, not its shape), or None."""
    if isinstance(got, Tensor):
        return None
    want = f"one torch.Tensor of shape {shape_str(expected.shape)}"
    if isinstance(got, np.ndarray):
        return (
            f"{describe(got)}: return {want}, computed with torch operations on the tensors "
            "you are given (torch.from_numpy converts an array, but keeps its dtype)"
        )
    tensors = isinstance(got, (tuple, list)) and got and all(isinstance(v, Tensor) for v in got)
    if tensors:
        fits = [i for i, v in enumerate(got) if v.shape == expected.shape]
        if fits:
            return f"{describe(got)}: return {want} alone -- item {fits[0]} has that shape"
    if isinstance(got, tuple):
        return (
            f"{describe(got)}: return {want}, not several values (`return a, b` returns "
            "the tuple (a, b))"
        )
    if tensors:
        return f"{describe(got)}: return {want} (torch.stack or torch.cat join a list of tensors)"
    if isinstance(got, list):
        return f"{describe(got)}: return {want}, e.g. torch.tensor(values) for a list of numbers"
    return f"{describe(got)}: return {want}"


def shape_hint(got: torch.Size, expected: torch.Size) -> str:
    """A likely cause of a shape difference, as a sentence, or ``""``."""
    same_sizes = [s for s in got if s != 1] == [s for s in expected if s != 1]
    if same_sizes and len(got) > len(expected):
        return "An axis of size 1 too many: remove it (squeeze, or index it with [0])."
    if same_sizes and len(got) < len(expected):
        return "An axis of size 1 is missing: keep it (keepdim=True, or index with [:, None])."
    if len(got) == len(expected) >= 2 and (got[:-2], got[-2], got[-1]) == (
        expected[:-2],
        expected[-1],
        expected[-2],
    ):
        return "The last two axes look swapped (transpose(-2, -1))."
    if sorted(got) == sorted(expected):
        return (
            "It holds the same sizes in another order: a transpose or permute (or a reshape) "
            "too many or missing?"
        )
    if got.numel() == expected.numel():
        return f"It holds as many entries as the expected shape ({got.numel()}), in other sizes."
    return ""


def dtype_problem(got: Tensor, expected: Tensor) -> str | None:
    """Why the answer's kind of number is not the reference's, or None. Floating point of
    another precision is fine (the values are compared): integers or booleans where the
    reference is floating point are not, nor anything but integers where it holds ids."""
    if got.dtype == expected.dtype:
        return None
    if torch.is_floating_point(expected):
        if torch.is_floating_point(got):
            return None
        return (
            f"it is a {got.dtype} tensor, expected floating point ({expected.dtype}): "
            f"compute in floating point (e.g. build new tensors with dtype={expected.dtype}); "
            "integer tensors round every value"
        )
    if expected.dtype == torch.long:
        return f"its dtype is {got.dtype}, expected torch.long (torch.int64): use dtype=torch.long"
    return f"its dtype is {got.dtype}, expected {expected.dtype}"


def nan_problem(got: Tensor, expected: Tensor) -> str | None:
    """Where the answer holds NaN or an infinity the reference does not, or None."""
    if not torch.is_floating_point(got):
        return None
    expected = expected.to(got.dtype)
    for bad, causes in (
        (torch.isnan(got), _NAN_CAUSES),
        (torch.isinf(got) & ~torch.isinf(expected), _INF_CAUSES),
    ):
        bad = bad & ~torch.isnan(expected)
        if bad.any():
            idx = tuple(int(i) for i in bad.nonzero()[0])
            where = f" at {list(idx)}" if idx else ""
            word = "NaN" if causes is _NAN_CAUSES else f"{float(got[idx]):g}"
            return (
                f"returned {word}{where}, where the reference is "
                f"{float(expected[idx]):.4g}: look for {causes}"
            )
    return None


#: What gives NaN, and what gives an infinity: each message names only those of its kind.
_NAN_CAUSES = (
    "a 0 / 0, inf - inf, the log or square root of a negative number, or a softmax over a "
    "row of -inf"
)
_INF_CAUSES = "a division by 0, the log of 0, an exp that overflows, or a -inf fill left in"


def preview(x: Tensor, n: int = 6) -> str:
    """``"(64, 50, 50) [0.1235, -0.5, 2, ...]"``: a tensor by its shape and its first values
    (in memory order), never more than ``n`` of them."""
    flat = x.detach().reshape(-1)[:n].cpu().tolist()
    if x.dtype == torch.bool:
        values = ", ".join(str(v) for v in flat)
    elif torch.is_floating_point(x):
        values = ", ".join(f"{v:.4g}" for v in flat)
    else:
        values = ", ".join(str(v) for v in flat)
    more = ", ..." if x.numel() > n else ""
    return f"{shape_str(x.shape)} [{values}{more}]"
