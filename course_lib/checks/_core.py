"""What every self-check shares: calling the answer safely, comparing, explaining."""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Callable, Iterator, Sequence

import torch
from torch import Tensor

from course_lib._validate import shape_str

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


def call_student(fn: Callable, name: str, *args):
    __tracebackhide__ = True
    if not callable(fn):
        raise CheckFailed(f"pass the function itself, e.g. check(my_function), not {fn!r}")
    try:
        return fn(*args)
    except NotImplementedError:
        raise CheckFailed(
            f"{name} is not implemented yet: replace `raise NotImplementedError` with your code."
        ) from None
    except Exception as err:
        raise CheckFailed(f"{name} raised {type(err).__name__}: {err}") from err


def compare(
    got,
    expected: Tensor,
    name: str,
    case: str,
    mistakes: Sequence[tuple[Tensor, str]] = (),
) -> None:
    """Raise CheckFailed unless ``got`` equals ``expected``; name a known mistake if it fits."""
    __tracebackhide__ = True
    if not isinstance(got, Tensor):
        raise CheckFailed(f"{name} should return a torch.Tensor, got {type(got).__name__} ({case})")
    if tuple(got.shape) != tuple(expected.shape):
        raise CheckFailed(
            f"{name} returned shape {shape_str(got.shape)}, expected {shape_str(expected.shape)} ({case})"
        )
    got = got.detach().to("cpu", expected.dtype)
    if torch.allclose(got, expected, atol=ATOL):
        return
    for wrong, explanation in mistakes:
        if torch.allclose(got, wrong, atol=ATOL):
            raise CheckFailed(f"{name}: {explanation} ({case})")
    if expected.dtype == torch.bool:
        wrong = (got != expected).nonzero().tolist()
        raise CheckFailed(
            f"{name} returned the right shape but {len(wrong)} entries differ ({case}), the "
            f"first at {wrong[0]}. Expected\n{expected}\ngot\n{got}"
        )
    worst = (got - expected).abs().max().item()
    raise CheckFailed(
        f"{name} returned the right shape but different values ({case}): the largest "
        f"difference is {worst:.4g}. Expected\n{expected}\ngot\n{got}"
    )


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
