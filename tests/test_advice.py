"""Advice that is right (issue 47): a hint names a cause only when the evidence decides it;
otherwise the message states the difference plainly -- what was expected, what came, where.

Each heuristic gets a pair: the case it is meant for (the hint is given) and a near miss
that produces similar evidence for another reason (the hint must be absent, and the message
still says plainly what differs). The last tests keep messages short: a few lines, tensors
shown by their shape and first values."""

from __future__ import annotations

import math
import re

import pytest
import torch

from course_lib.checks import CheckFailed
from course_lib.checks._core import call_student, compare
from course_lib.checks._describe import preview

# --- the messages of compare and call_student ---------------------------------------------


def failure(got, expected) -> str:
    """The message ``compare`` raises for ``got`` (it must raise)."""
    with pytest.raises(CheckFailed) as info:
        compare(got, expected, "f", "a case")
    return str(info.value)


def raised(fn, *args) -> str:
    """The message ``call_student`` raises for ``fn(*args)``, which must raise."""
    with pytest.raises(CheckFailed) as info:
        call_student(fn, "f", *args)
    return str(info.value)


def states_plainly(message: str) -> None:
    """The message says where the values differ and what was expected and came there."""
    assert re.search(r"at \[[\d, ]*\]", message), message
    assert "\nExpected (" in message and "\ngot      (" in message, message


def grid(*shape: int) -> torch.Tensor:
    """Distinct values, none a shift or reversal of the others: a tensor with no symmetry."""
    n = math.prod(shape)
    return (torch.arange(n, dtype=torch.float64) ** 1.5 / n - 0.3).reshape(shape)


# --- messages stay short -------------------------------------------------------------------


def _short(message: str) -> None:
    lines = message.splitlines()
    assert len(lines) <= 12 and len(message) <= 1000, message
    assert "tensor(" not in message, message  # no printed tensors, only shapes and values


@pytest.mark.parametrize(
    "spoil",
    [
        lambda e: -e,
        lambda e: e.transpose(-2, -1),
        lambda e: e.flip(0),
        lambda e: 2 * e,
        lambda e: e + 1,
        lambda e: torch.zeros_like(e),
        lambda e: e.roll(1, dims=-1),
        lambda e: (e * 1.7).softmax(-1),
        lambda e: torch.where(torch.rand_like(e) < 0.5, e, e + 1),
    ],
)
def test_a_value_failure_on_a_large_tensor_is_a_few_short_lines(spoil):
    torch.manual_seed(0)
    e = torch.randn(64, 50, 50).softmax(-1)
    message = failure(spoil(e), e)
    _short(message)
    states_plainly(message)
    assert "(64, 50, 50) [" in message


def test_a_mask_failure_on_a_large_mask_is_a_few_short_lines():
    e = torch.rand(64, 50, 50, generator=torch.Generator().manual_seed(0)) < 0.3
    for got in (~e, e.transpose(-2, -1), e | (torch.rand(64, 50, 50) < 0.1), e.roll(1, -1)):
        message = failure(got, e)
        _short(message)


def test_an_error_raised_on_large_tensors_is_a_few_short_lines():
    def f(scores, mask):
        return scores.masked_fill(mask, float("-inf"))

    _short(raised(f, torch.randn(64, 50, 50), torch.zeros(50, 64, dtype=torch.bool)))


def test_preview_shows_the_shape_and_the_first_values():
    assert preview(torch.arange(10.0).reshape(2, 5)) == "(2, 5) [0, 1, 2, 3, 4, 5, ...]"
    assert preview(torch.tensor([True, False])) == "(2) [True, False]"
