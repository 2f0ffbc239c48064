"""Rotary position embedding (RoPE): positions as rotations of queries and keys.

Letters: ``B`` batch, ``Nh`` heads, ``L`` positions, ``Dh`` width of one head (even).

Chapter 4 showed that moving a sinusoidal encoding by ``k`` positions is a rotation of each
(sine, cosine) pair by ``k`` times that pair's angular speed. Rotary embedding puts that
rotation where attention can use it (Su et al., 2021): before the dot product, the query at
position ``m`` and the key at position ``n`` are each rotated, pair ``i`` of their features
by ``m * w_i`` and ``n * w_i``, with the angular speeds of the sinusoidal table,
``w_i = base^(-2i / Dh)``. A rotation preserves lengths, and the dot product of two rotated
pairs depends only on the difference of their angles, so

    score(m, n) = q_m . k_n  depends on the positions only through the offset  m - n.

Nothing is added to the token vectors (the embeddings carry no position); the values are not
rotated. Pairs are adjacent features ``(x[2i], x[2i + 1])``, the layout of Chapter 4's table.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor

from course_lib._name_tables import explain_names
from course_lib._positional_checks import check_rotary_angles_args, check_rotary_input

__all__ = ["rotary_angles", "apply_rotary"]


def rotary_angles(
    num_positions: int,
    head_dim: int,
    *,
    start: int = 0,
    base: float = 10000.0,
    dtype: torch.dtype = torch.float32,
) -> Tensor:
    """The rotation angles ``(L, Dh / 2)``: position ``start + l`` times pair ``i``'s speed
    ``base^(-2i / Dh)``, computed in ``dtype`` (float32: Chapter 4's table).

    Raises:
        ValueError: sizes that are not positive integers, an odd ``head_dim``, a negative
            ``start``, a ``base`` that is not a number above 1.
    """
    check_rotary_angles_args(num_positions, head_dim, start, base)
    position = torch.arange(start, start + num_positions, dtype=dtype)  # (L,)
    pairs = torch.arange(0, head_dim, 2, dtype=dtype)  # 2i for i = 0 .. Dh / 2 - 1
    speed = torch.exp(pairs * (-math.log(base) / head_dim))  # (Dh / 2,)
    return position[:, None] * speed  # (L, 1) * (Dh / 2,) -> (L, Dh / 2)


def apply_rotary(
    x: Tensor, *, start: int = 0, positions: Tensor | None = None, base: float = 10000.0
) -> Tensor:
    """Rotate each feature pair of ``x`` ``(..., L, Dh)`` by its position's angle.

    Args:
        x: queries or keys, positions on the second-to-last axis (``(B, Nh, L, Dh)``).
        start: the position of ``x``'s first row (the number of tokens already in a
            key/value cache when decoding step by step).
        positions: instead of ``start``, each row's own positions ``(B, L)`` for ``x``
            ``(B, Nh, L, Dh)`` -- sequences that start at different offsets in one batch
            (left padding).
        base: the base of the angular speeds, 10000 as in the sinusoidal table.

    Returns:
        a tensor of ``x``'s shape and dtype; ``x`` is not modified. The angles and the
        rotation are computed in float32 (float64 for float64 input) and cast back, so
        half-precision queries keep the offset-only property.

    Raises:
        TypeError: ``x`` that is not a floating-point tensor, ``positions`` that is not a
            tensor.
        ValueError: ``x`` that is not ``(..., L, Dh)`` with an even ``Dh``, both ``start``
            and ``positions``, ``positions`` that is not ``(B, L)``.

    The positions are read from the second-to-last axis: queries laid out ``(B, L, Nh,
    Dh)`` (as some code keeps them) must be transposed to ``(B, Nh, L, Dh)`` first, or
    their heads are rotated as if they were positions.
    """
    check_rotary_input(x, start, positions)
    # angles, cos, sin and the rotation in at least float32 (as Meta's and Hugging Face's
    # reference code): in bfloat16 the angle of position 100 would be off by up to 0.25 rad
    wide = torch.promote_types(x.dtype, torch.float32)
    if positions is None:
        angles = rotary_angles(x.shape[-2], x.shape[-1], start=start, base=base, dtype=wide)
    else:
        speeds = rotary_angles(1, x.shape[-1], start=1, base=base, dtype=wide)[0]  # (Dh / 2,)
        # (B, L) -> (B, 1, L, 1) * (Dh / 2,) -> (B, 1, L, Dh / 2): one angle per row and pair
        angles = positions.to(wide)[:, None, :, None] * speeds.to(positions.device)
    angles = angles.to(x.device)
    cos, sin = angles.cos(), angles.sin()  # (L, Dh / 2) each
    even, odd = (
        x.to(wide)[..., 0::2],
        x.to(wide)[..., 1::2],
    )  # no copy for float32 and 64  # (..., L, Dh / 2): the pairs' coordinates
    # each pair (a, b) turned by its angle: (a cos - b sin, a sin + b cos)
    rotated = torch.stack([even * cos - odd * sin, even * sin + odd * cos], dim=-1)
    return rotated.flatten(-2).to(x.dtype)  # (..., L, Dh / 2, 2) -> (..., L, Dh), pairs adjacent


# Calls and attributes in other libraries' words: their tables are in _name_tables.py.
explain_names(__name__)
