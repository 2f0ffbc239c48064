"""The input checks of :mod:`course_lib.positional` and :mod:`course_lib.rotary`
(package-private): each public function or ``forward`` there calls one ``check_...`` of
this module, so that its own body is the trigonometry.

Every message says what was wrong *and* what to do about it.
"""

from __future__ import annotations

import math
import numbers

import torch
from torch import Tensor

from course_lib._attention_checks import check_sizes
from course_lib._validate import (
    check_non_negative_int,
    check_type,
    check_width,
    shape_str,
)


def check_base(base: object, name: str = "base") -> None:
    """The base of the angular speeds: a finite number above 1 (10000 in the Transformer);
    below it the speeds grow instead of shrinking, and ``log`` fails at 0 or below."""
    if isinstance(base, bool) or not isinstance(base, numbers.Real) or not math.isfinite(base):
        raise ValueError(f"{name} must be a number above 1 (10000 in the paper), got {base!r}")
    if base <= 1:
        raise ValueError(f"{name} must be above 1 (10000 in the paper), got {base!r}")


def check_table_args(max_len: int, d_model: int, base: float) -> None:
    """:func:`~course_lib.positional.sinusoidal_encoding`'s sizes and base."""
    check_sizes(max_len=max_len, d_model=d_model)
    check_base(base)


def check_positional_input(module, x: Tensor, start: int) -> None:
    """:class:`~course_lib.positional.PositionalEncoding`'s input: a float tensor
    ``(B, T, d_model)`` (the message names the slip) whose positions ``start .. start + T - 1``
    lie below ``max_len``."""
    fix = "Convert it: torch.as_tensor(x, dtype=torch.float32)."
    check_type(x, "x", Tensor, "a tensor (B, T, d_model)", fix)
    if not torch.is_floating_point(x):
        raise TypeError(
            f"x must be floating-point vectors (B, T, d_model), got {x.dtype} "
            f"{shape_str(x)}: embed token ids first (nn.Embedding), or use x.float()"
        )
    hint = ""
    if x.ndim == 2 and x.shape[-1] == module.d_model:
        hint = ": add the batch axis, x.unsqueeze(0)"
    elif x.ndim == 3 and x.shape[1] == module.d_model:
        hint = ": it looks (B, d_model, T), use x.transpose(1, 2)"
    elif x.ndim >= 1 and x.shape[-1] == module.max_len:
        hint = ": PositionalEncoding takes (max_len, d_model), were they swapped?"
    check_width(x, module.d_model, "x", label="d_model", hint=hint)
    check_non_negative_int(start, "start")
    end = start + x.shape[1]
    if end > module.max_len:
        raise ValueError(
            f"positions {start}..{end - 1} do not fit this PositionalEncoding, built for "
            f"max_len={module.max_len}: build it with a larger max_len, or shorten the input"
        )


def check_rotary_angles_args(num_positions: int, head_dim: int, start: int, base: float) -> None:
    """:func:`~course_lib.rotary.rotary_angles`'s sizes, start and base; an even
    ``head_dim``."""
    check_sizes(num_positions=num_positions, head_dim=head_dim)
    check_non_negative_int(start, "start")
    check_base(base)
    if head_dim % 2:
        raise ValueError(f"head_dim={head_dim} must be even: rotary embedding rotates pairs")


def check_rotary_input(x: Tensor, start: int, positions: Tensor | None) -> None:
    """:func:`~course_lib.rotary.apply_rotary`'s input: floating-point queries or keys
    ``(..., L, Dh)`` with an even ``Dh``, and either ``start`` or ``positions`` ``(B, L)``
    for ``x`` ``(B, Nh, L, Dh)``."""
    fix = "Convert it: torch.as_tensor(x, dtype=torch.float32)."
    check_type(x, "x", Tensor, "a tensor (..., L, Dh) of queries or keys", fix)
    if x.ndim < 2:
        raise ValueError(f"x must be (..., L, Dh), got {shape_str(x)}")
    if not torch.is_floating_point(x):
        raise TypeError(f"x must be floating point (queries or keys), got {x.dtype}")
    if x.shape[-1] % 2:
        raise ValueError(
            f"x's last dimension Dh={x.shape[-1]} must be even: rotary embedding rotates "
            f"pairs of features, and x is {shape_str(x)}"
        )
    if positions is None:
        return
    check_type(positions, "positions", Tensor, "a (B, L) tensor of positions")
    if start != 0:
        raise ValueError(
            f"give start or positions, not both (got start={start!r}): positions already "
            "holds every row's positions"
        )
    if x.ndim != 4 or tuple(positions.shape) != (x.shape[0], x.shape[2]):
        raise ValueError(
            f"positions must be (B, L) for x (B, Nh, L, Dh) = {shape_str(x)}, got "
            f"{shape_str(positions)}"
        )
