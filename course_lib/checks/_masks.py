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
    """A 0/1 mask: are its 1s the blocked keys (convert it) or the allowed ones (invert it)?"""
    library = _library(dtype)
    if torch.equal(ones, expected):
        return (
            f"{head}: {library}. Your 1s mark the blocked keys, so convert it with "
            f".bool(), or build it boolean from the start -- compare with ==, <, >=, "
            f"combine with | and &{build}"
        )
    if (ones == expected).float().mean() >= 0.5:
        return (
            f"{head}: {library}. Build it boolean -- compare with ==, <, >=, combine with "
            f"| and & -- or convert with .bool() if your 1s mean blocked{build}"
        )
    return (
        f"{head} whose 1s mark the keys that MAY be attended (the polarity of many "
        f"tutorials); {library}, and True must mean blocked: return mask == 0{build}"
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
            return (
                f"{head} with 0 and {float(values.min()):.3g}, to be added to the scores: "
                "this exercise builds the boolean mask, True = blocked, which the library "
                f"turns into -inf itself; return mask < 0, or build it boolean{build}"
            )
    library = _library(got.dtype)
    return (
        f"{head}; {library}: build it boolean -- compare with ==, <, >=, combine with | and "
        f"& -- or convert with .bool() if your 1s mean blocked{build}"
    )


def polarity_problem(got: Tensor, expected: Tensor) -> str | None:
    """A boolean mask that agrees with the inverted reference more than with the reference:
    it likely marks the allowed keys. None for another difference (or an all-True mask)."""
    if got.dtype != torch.bool or got.shape != expected.shape or bool(got.all()):
        return None
    agree = int((got == expected).sum())
    if agree * 2 >= got.numel():
        return None
    return (
        f"the mask's polarity looks inverted: {got.numel() - agree} of its {got.numel()} "
        "entries are the opposite of the reference's. In course_lib True must mean "
        "BLOCKED (the key may not be attended); if yours marks the allowed keys, return "
        "~mask"
    )
