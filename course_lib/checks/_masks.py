"""What a self-check says about a mask an answer built: course_lib's masks are boolean with
True = blocked, and the library's attention refuses integer masks (``check_mask``). Each
function returns the problem as text (or None); ``_core`` raises it."""

from __future__ import annotations

import torch
from torch import Tensor


def _library(dtype: torch.dtype) -> str:
    """What the library does with a mask of ``dtype``."""
    if dtype.is_floating_point:
        return (
            "the library's masks are boolean (True = blocked); its attention ADDS a float "
            "mask to the scores, so a 0/1 float mask blocks nothing"
        )
    return (
        "the library's masks are boolean (True = blocked) and its attention refuses integer masks"
    )


def _zero_one(mask: Tensor) -> bool:
    return bool(((mask == 0) | (mask == 1)).all())


def _broadcast(mask: Tensor, shape: torch.Size) -> Tensor | None:
    """``mask`` broadcast to ``shape``, or None where it does not broadcast."""
    try:
        return torch.broadcast_to(mask, shape)
    except RuntimeError:
        return None


def _zero_one_problem(
    head: str, dtype: torch.dtype, ones: Tensor, expected: Tensor, build: str
) -> str:
    """A 0/1 mask: its 1s exactly the blocked keys (convert it), mostly the allowed ones
    (invert it, and where that is not all, say where it still differs), or neither (build it
    boolean: no one fix is decided)."""
    library = _library(dtype)
    if torch.equal(ones, expected):
        return (
            f"{head}: {library}. Your 1s mark the blocked keys, so convert it with "
            f".bool(), or build it boolean from the start -- compare with ==, <, >=, "
            f"combine with | and &{build}"
        )
    inverted = f"{head} whose 1s mark the keys that MAY be attended (the polarity of many "
    rest = int((ones == expected).sum())  # where mask == 0 would still be wrong
    if rest == 0:
        return (
            f"{inverted}tutorials); {library}, and True must mean blocked: return mask == 0{build}"
        )
    if rest * 2 < ones.numel() and bool(ones.any()) and not bool(ones.all()):
        first = [int(i) for i in (ones == expected).nonzero()[0]]
        return (
            f"{inverted}tutorials); {library}, and True must mean blocked: return mask == 0, "
            f"which still differs from the reference at {rest} entr"
            f"{'y' if rest == 1 else 'ies'}, the first at {first}{build}"
        )
    return (
        f"{head}: {library}. Build it boolean -- compare with ==, <, >=, combine with "
        f"| and & -- or convert with .bool() if your 1s mean blocked{build}"
    )


def dtype_problem(got: Tensor, expected: Tensor, build: str = "") -> str | None:
    """Why a non-boolean mask is refused, naming its dtype and what its values look like:
    0/1 with the 1s blocked, 0/1 with the 1s allowed (inverted), or additive (0 and -inf)."""
    if got.dtype == torch.bool:
        return None
    head = f"returned a {got.dtype} mask"
    build = f" ({build})" if build else ""
    values = _broadcast(got.detach().cpu(), expected.shape)
    if values is not None and values.numel() and _zero_one(values):
        return _zero_one_problem(head, got.dtype, values != 0, expected, build)
    if values is not None and torch.is_floating_point(values) and values.numel():
        if bool((values <= 0).all()) and bool((values < 0).any()):
            head = f"{head} with 0 and {float(values.min()):.3g}, to be added to the scores"
            wrong = int(((values < 0) != expected).sum())
            if wrong:  # its negative entries are not the blocked ones either
                return (
                    f"{head}: this exercise builds the boolean mask, True = blocked; and its "
                    f"negative entries are not where the reference blocks ({wrong} of "
                    f"{values.numel()} differ), so mask < 0 would be wrong too{build}"
                )
            return (
                f"{head}: this exercise builds the boolean mask, True = blocked, which the "
                f"library turns into -inf itself; return mask < 0, or build it boolean{build}"
            )
    library = _library(got.dtype)
    return (
        f"{head}; {library}: build it boolean -- compare with ==, <, >=, combine with | and "
        f"& -- or convert with .bool() if your 1s mean blocked{build}"
    )


def polarity_problem(got: Tensor, expected: Tensor) -> str | None:
    """A boolean mask that is the reference's with its last two axes swapped, or that agrees
    with the inverted reference more than with the reference (it likely marks the allowed
    keys: ``~mask`` is advised only where that gives the reference). None for another
    difference, or a mask that is all True or all False (it blocks everything or nothing,
    whatever its polarity)."""
    if got.dtype != torch.bool or got.shape != expected.shape:
        return None
    if bool(got.all()) or not bool(got.any()):
        return None
    square = got.ndim >= 2 and got.shape[-1] == got.shape[-2]
    if square and not torch.equal(expected, expected.mT) and torch.equal(got, expected.mT):
        return (
            "it holds the reference's mask with its last two axes swapped: entry [..., t, s] "
            "is the reference's [..., s, t], queries and keys exchanged -- a transpose too "
            "many or missing?"
        )
    agree = int((got == expected).sum())
    if agree * 2 >= got.numel():
        return None
    head = (
        f"the mask's polarity looks inverted: {got.numel() - agree} of its {got.numel()} "
        "entries are the opposite of the reference's. In course_lib True must mean "
        "BLOCKED (the key may not be attended)"
    )
    if agree == 0:
        return f"{head}; if yours marks the allowed keys, return ~mask"
    first = [int(i) for i in (got == expected).nonzero()[0]]
    return (
        f"{head}; if yours marks the allowed keys, return ~mask -- which still differs from "
        f"the reference at {agree} entr{'y' if agree == 1 else 'ies'}, the first at {first}"
    )
