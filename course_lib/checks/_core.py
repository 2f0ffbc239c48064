"""What every self-check shares: calling the answer safely, comparing, explaining."""

from __future__ import annotations

import contextlib
import contextvars
import itertools
import types
from collections.abc import Callable, Iterator, Sequence

import numpy as np
import torch
from torch import Tensor

from course_lib._validate_basics import shape_str
from course_lib.checks import _masks as masks
from course_lib.checks._describe import (
    as_number,
    describe,
    dtype_problem,
    nan_problem,
    not_callable_problem,
    number_problem,
    preview,
    shape_hint,
    signature_problem,
    tensor_problem,
)
from course_lib.checks._diagnose import mask_hint, unused_hint, unused_parameters, value_hint
from course_lib.checks._raised import raised_hint

ATOL = 1e-5

# 0: the cases a student sees when running a check cell; n > 0: the grader's cases, which
# differ in their random values (another seed) and, for checks with hand-written cases, add
# cases of their own. See `unseen_cases`.
_VARIANT: contextvars.ContextVar[int] = contextvars.ContextVar("checks_variant", default=0)
SEED_STRIDE = 7919  # a prime: variant n shifts every seed by n * 7919


@contextlib.contextmanager
def unseen_cases(variant: int = 1) -> Iterator[None]:
    """Run the self-checks inside this block on cases the student never saw.

    A check's cases are drawn from fixed seeds, so a function that merely returns the
    outputs printed for those cases would pass. The grader (``course_lib.grading``) runs
    every check inside ``unseen_cases()``: the random cases come from other seeds and the
    hand-written ones get companions, so it grades the function, not the printed tick. The
    messages are the same words a student sees.

    Args:
        variant: which set of unseen cases, a positive integer (1 is the grader's).
    """
    if isinstance(variant, bool) or not isinstance(variant, int) or variant < 1:
        raise ValueError(
            f"unseen_cases(variant={variant!r}): expected a positive integer; variant 0 "
            "is the students' own cases, which need no block"
        )
    token = _VARIANT.set(variant)
    try:
        yield
    finally:
        _VARIANT.reset(token)


def variant() -> int:
    """0 for the cases a student sees; the ``unseen_cases`` variant inside that block."""
    return _VARIANT.get()


def case_seed(seed: int) -> int:
    """The seed a check draws its cases from: ``seed`` itself for a student, another one
    (the same on every call) inside ``unseen_cases``."""
    return seed + SEED_STRIDE * _VARIANT.get()


def case_generator(seed: int) -> torch.Generator:
    """A CPU generator seeded with ``case_seed(seed)``."""
    return torch.Generator().manual_seed(case_seed(seed))


class CheckFailed(AssertionError):
    """Your answer does not match the reference; the message says how."""


# the student's function last called by `call_student`, and the name the check gives it: a
# wrong result of that name also says which of its parameters the function never uses
_CALLED: contextvars.ContextVar[tuple[str, Callable] | None] = contextvars.ContextVar(
    "checks_called", default=None
)


def unused_note(name: str) -> str:
    """`` Note: ...`` naming the parameters that the function behind ``name`` (the one
    ``call_student`` last called, as ``name`` or ``"name (what)"``, ``"name's what"``)
    never reads, or ``""``."""
    called = _CALLED.get()
    if called is None:
        return ""
    own, fn = called
    if name != own and not name.startswith((f"{own} ", f"{own}'s ", f"{own}:")):
        return ""
    note = unused_hint(fn, own)
    return f" {note}" if note else ""


def unused_arguments(name: str) -> set[int]:
    """The positions of the arguments that the plain function last called as ``name`` by
    ``call_student`` never reads (``set()`` for anything else)."""
    called = _CALLED.get()
    if called is None or called[0] != name or not isinstance(called[1], types.FunctionType):
        return set()
    code = called[1].__code__
    try:
        unused = set(unused_parameters(called[1]))
    except Exception:  # a diagnosis must never hide the student's own result
        return set()
    return {i for i, p in enumerate(code.co_varnames[: code.co_argcount]) if p in unused}


def call_student(fn: Callable, name: str, *args, returns: str = "", none_ok: bool = False):
    """``fn(*args)``, or :class:`CheckFailed` saying why not: ``fn`` is not a function (a
    value, such as what it returns), cannot take ``args``, is not implemented yet, raised,
    or returned None (unless ``none_ok``). ``returns``: what it should return, for that
    message (``"the matplotlib Figure (fig)"``)."""
    __tracebackhide__ = True
    if not callable(fn):
        raise CheckFailed(not_callable_problem(fn))
    problem = signature_problem(fn, name, args)
    if problem is not None:
        raise CheckFailed(problem)
    _CALLED.set((name, fn))
    try:
        got = fn(*args)
    except NotImplementedError:
        raise CheckFailed(
            f"{name} is not implemented yet: replace `raise NotImplementedError` with your code."
        ) from None
    except Exception as err:
        hints = [h for h in (raised_hint(err), unused_hint(fn, name)) if h]
        raise CheckFailed(
            f"{name} raised {type(err).__name__}: {err}" + "".join(f"\n{h}" for h in hints)
        ) from err
    if got is None and not none_ok:
        should = f" It should return {returns}." if returns else ""
        raise CheckFailed(f"{name} returned None: did you forget `return`?{should}")
    return got


def unpack(got, names: Sequence[str], name: str, case: str, what: str = "") -> tuple:
    """The ``len(names)`` items of a returned tuple (or list), or :class:`CheckFailed`
    naming what came back instead. ``what``: how the message names them (``"a pair"``)."""
    __tracebackhide__ = True
    n = len(names)
    if isinstance(got, (tuple, list)) and len(got) == n:
        return tuple(got)
    listed = ", ".join(names)
    if isinstance(got, (Tensor, np.ndarray)):
        fix = f": return all {n}, `return {listed}`"
    elif isinstance(got, (tuple, list)):
        fix = f": return exactly these {n}, in this order, `return {listed}`"
    else:
        fix = ""
    raise CheckFailed(
        f"{name} should return {what or f'{n} values'} ({listed}), got {describe(got)} "
        f"({case}){fix}"
    )


def in_order(
    parts: Sequence, expected: Sequence[Tensor], names: Sequence[str], name: str, case: str
) -> None:
    """:class:`CheckFailed` if the returned tensors are the expected ones in another order:
    their shapes permuted, or (where the shapes agree) their values."""
    __tracebackhide__ = True
    if not all(isinstance(p, Tensor) for p in parts):
        return
    got = [tuple(p.shape) for p in parts]
    want = [tuple(e.shape) for e in expected]

    def fits(order: tuple[int, ...]) -> bool:
        return all(
            got[i] == want[j] and _agrees(parts[i].detach().cpu(), expected[j])
            for i, j in enumerate(order)
        )

    identity = tuple(range(len(parts)))
    shuffled = got != want and sorted(got) == sorted(want)
    if not shuffled and got == want and not fits(identity):
        shuffled = any(fits(order) for order in itertools.permutations(identity))
    if shuffled:
        raise CheckFailed(
            f"{name} returned its results in another order ({case}): their shapes are "
            f"{', '.join(map(str, got))}; return ({', '.join(names)}), shaped "
            f"{', '.join(map(str, want))}"
        )


def one_number(
    got, name: str, case: str, many: str = "return one number", what: str = "return one number"
) -> float | int:
    """``got`` as a Python number: a Python or NumPy number, or a 0-dim array or tensor.
    Anything else fails: ``"<name> should <what>, got ..."``, with ``many`` saying what to
    do with an array of numbers."""
    __tracebackhide__ = True
    value = as_number(got)
    if value is None:
        raise CheckFailed(f"{name} should {what}, {number_problem(got, many)} ({case})")
    return value


def boolean_mask(got, expected: Tensor, name: str, case: str, build: str = "") -> None:
    """:class:`CheckFailed` for a mask that is a tensor but not boolean (True = blocked)."""
    __tracebackhide__ = True
    if isinstance(got, Tensor):
        problem = masks.dtype_problem(got, expected, build)
        if problem is not None:
            raise CheckFailed(f"{name} {problem} ({case})")


def _agrees(got: Tensor, expected: Tensor) -> bool:
    """Equal entries (a mask, integers) or close values (floating point)."""
    if expected.dtype == torch.bool:
        return got.dtype == torch.bool and torch.equal(got, expected)
    if not torch.is_floating_point(expected):
        return torch.equal(got.double(), expected.double())
    return torch.allclose(got.to(expected.dtype), expected, atol=ATOL)


def compare(
    got,
    expected: Tensor,
    name: str,
    case: str,
    mistakes: Sequence[tuple[Tensor, str]] = (),
) -> None:
    """Raise CheckFailed unless ``got`` equals ``expected``; name a known mistake if it fits.

    ``got`` must be a tensor of the same shape, without NaN where the reference has none,
    holding the same kind of numbers: a boolean ``expected`` is a mask (True = blocked),
    a floating-point one takes any floating-point answer (float32 or float64: the values
    are compared), an integer one integers."""
    __tracebackhide__ = True
    if got is None:
        raise CheckFailed(
            f"{name} is None, expected a torch.Tensor of shape {shape_str(expected.shape)} "
            f"({case}): return the tensor itself (a function without `return` gives None)"
        )
    problem = tensor_problem(got, expected)
    if problem is not None:
        verb = "be" if "'s " in name or " (" in name or name.startswith("the ") else "return"
        raise CheckFailed(f"{name} should {verb} a torch.Tensor, got {problem} ({case})")
    if expected.dtype == torch.bool:
        boolean_mask(got, expected, name, case)
    if tuple(got.shape) != tuple(expected.shape):
        _known_shape(got, expected, name, case, mistakes)
        hint = shape_hint(got.shape, expected.shape)
        raise CheckFailed(
            f"{name} returned shape {shape_str(got.shape)}, expected "
            f"{shape_str(expected.shape)} ({case})" + (f". {hint}" if hint else "")
        )
    got = got.detach().cpu()
    problem = nan_problem(got, expected)
    if problem is not None:
        raise CheckFailed(f"{name} {problem} ({case})")
    wrong_dtype = dtype_problem(got, expected)
    if _agrees(got, expected):
        if wrong_dtype is not None:
            raise CheckFailed(f"{name} has the right values, but {wrong_dtype} ({case})")
        return
    _explain(got, expected, name, case, mistakes, wrong_dtype)


def _known_shape(got: Tensor, expected: Tensor, name: str, case: str, mistakes) -> None:
    """:class:`CheckFailed` naming a known mistake of another shape than the reference's
    that ``got`` matches, shape and values."""
    __tracebackhide__ = True
    for wrong, explanation in mistakes:
        if tuple(wrong.shape) != tuple(got.shape):
            continue
        if _agrees(got.detach().cpu(), wrong.to(expected.dtype)):
            raise CheckFailed(
                f"{name} returned shape {shape_str(got.shape)}, expected "
                f"{shape_str(expected.shape)} ({case}): {explanation}"
            )


def _explain(got, expected, name, case, mistakes, wrong_dtype: str | None) -> None:
    """The message for an answer of the right shape whose values differ."""
    __tracebackhide__ = True
    for wrong, explanation in mistakes:
        if tuple(wrong.shape) == tuple(got.shape) and _agrees(got, wrong.to(expected.dtype)):
            raise CheckFailed(f"{name}: {explanation} ({case})")
    note = f" (Note: {wrong_dtype}.)" if wrong_dtype else ""
    note += unused_note(name)
    expected = expected.detach().cpu()
    if expected.dtype == torch.bool:
        problem = masks.polarity_problem(got, expected)
        if problem is not None:
            raise CheckFailed(f"{name}: {problem} ({case})")
        differ = got.to(torch.bool) != expected
        first = tuple(int(i) for i in differ.nonzero()[0])
        hint = mask_hint(got, expected)
        raise CheckFailed(
            f"{name} returned the right shape but {int(differ.sum())} entries differ ({case}), "
            f"the first at {list(first)}: expected {bool(expected[first])}, got "
            f"{bool(got[first])}.{f' {hint}' if hint else ''}{shown(expected, got)}"
        )
    got = got.to(expected.dtype)
    gap = (got - expected).abs()
    gap = torch.where(gap.isnan(), 0.0, gap)  # an inf both hold: no difference
    at = tuple(int(i) for i in np.unravel_index(int(gap.argmax()), tuple(gap.shape)))
    hint = value_hint(got, expected)
    raise CheckFailed(
        f"{name} returned the right shape but different values ({case}): the largest "
        f"difference is {float(gap[at]):.4g}, at {list(at)} (expected {float(expected[at]):.4g}, "
        f"got {float(got[at]):.4g}).{f' {hint}' if hint else ''}{note}{shown(expected, got)}"
    )


def shown(expected: Tensor, got: Tensor) -> str:
    """The two tensors of a failure, each by its shape and first values: two short lines."""
    return f"\nExpected {preview(expected)}\ngot      {preview(got)}"


def unchanged(given: Tensor, original: Tensor, name: str, arg: str, case: str, fix: str) -> None:
    """Raise CheckFailed if the answer changed its input ``arg`` in place."""
    __tracebackhide__ = True
    if not torch.equal(given, original):
        raise CheckFailed(f"{name} changed its input {arg} in place ({case}): {fix}")


def passed(name: str, n_cases: int) -> None:
    print(f"✓ {name}: all {n_cases} cases agree with the reference.")


def reference_holds(ok: bool, what: str) -> None:
    """A self-check's own consistency test of its reference. Raises ``RuntimeError``, not
    :class:`CheckFailed` (an ``AssertionError``), so a bug in the check can never look like
    the student's mistake."""
    if not ok:
        raise RuntimeError(
            f"this self-check's reference is inconsistent ({what}): a bug in course_lib.checks, "
            "not in your code -- please report it"
        )
