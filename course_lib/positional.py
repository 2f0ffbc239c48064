"""Sinusoidal positional encoding (Vaswani et al., 2017), as derived in Chapter 4.

Self-attention treats its input as a set; adding a position-dependent vector to every
step tells it the order. Position ``pos`` gets, for ``i = 0, 1, ..., D/2 - 1``::

    PE[pos, 2i]     = sin(pos / 10000^(2i / D))
    PE[pos, 2i + 1] = cos(pos / 10000^(2i / D))

-- pairs of dials turning at exponentially slower angular speeds. Batch first: inputs are
``(B, T, D)``; the table is ``(max_len, D)``.
"""

from __future__ import annotations

import math
import numbers

import torch
from torch import Tensor, nn

from course_lib._name_tables import explain_names
from course_lib._validate import (
    check_non_negative_int,
    check_positive_int,
    check_type,
    check_width,
    shape_str,
)

__all__ = ["sinusoidal_encoding", "PositionalEncoding"]


def sinusoidal_encoding(max_len: int, d_model: int, base: float = 10000.0) -> Tensor:
    """The ``(max_len, d_model)`` table of sine/cosine encodings (float32).

    Even columns hold sines, odd columns cosines; an odd ``d_model`` ends with a sine.

    Raises:
        ValueError: ``max_len`` or ``d_model`` that is not a positive integer, a ``base``
            that is not a number above 1.
    """
    check_positive_int(max_len, "max_len")
    check_positive_int(d_model, "d_model")
    _check_base(base)
    position = torch.arange(max_len, dtype=torch.float32).unsqueeze(1)  # (max_len, 1)
    # 1 / base^(2i / D) for i = 0 .. ceil(D/2) - 1: one angular speed per sine/cosine pair
    angular_speed = torch.exp(torch.arange(0, d_model, 2).float() * (-math.log(base) / d_model))
    angles = position * angular_speed  # (max_len, 1) * (D/2,) -> (max_len, D/2)
    table = torch.zeros(max_len, d_model)
    table[:, 0::2] = torch.sin(angles)  # even dimensions
    table[:, 1::2] = torch.cos(angles[:, : d_model // 2])  # odd dimensions
    return table


def _check_base(base: object, name: str = "base") -> None:
    """The base of the angular speeds: a finite number above 1 (10000 in the Transformer);
    below it the speeds grow instead of shrinking, and ``log`` fails at 0 or below."""
    if isinstance(base, bool) or not isinstance(base, numbers.Real) or not math.isfinite(base):
        raise ValueError(f"{name} must be a number above 1 (10000 in the paper), got {base!r}")
    if base <= 1:
        raise ValueError(f"{name} must be above 1 (10000 in the paper), got {base!r}")


class PositionalEncoding(nn.Module):
    """Scale the input by ``sqrt(d_model)`` and add the sinusoidal encoding of each position.

    The table is a **buffer**, not a parameter: it is saved with the model and moves with it
    to a GPU, but it is never trained. The input is multiplied by ``sqrt(d_model)`` first, as
    in the Transformer and the lecture: inputs whose entries are of order ``1 / sqrt(d)``
    (vectors of length about one, such as embeddings initialised with that standard
    deviation) then reach the scale of the encoding, whose entries lie in [-1, 1]. Inputs
    of order one per feature (standardised features) come out ``sqrt(d)`` times larger.

    Args:
        max_len: longest sequence the module accepts.
        d_model: width ``D`` of the inputs.

    Shape:
        x ``(B, T, D)`` -> ``(B, T, D)``, positions ``start .. start + T - 1``, which must
        stay below ``max_len``. ``start > 0`` encodes the newest steps of a sequence decoded
        one step at a time.

    Raises:
        TypeError: ``x`` that is not a floating-point tensor (a NumPy array, token ids).
        ValueError: ``x`` that is not ``(B, T, d_model)`` (no batch axis, ``(B, D, T)``,
            another width), or positions beyond ``max_len``.
    """

    def __init__(self, max_len: int, d_model: int) -> None:
        super().__init__()
        self.max_len, self.d_model = max_len, d_model
        table = sinusoidal_encoding(max_len, d_model).unsqueeze(0)  # (1, max_len, D)
        self.register_buffer("pe", table)

    def forward(self, x: Tensor, start: int = 0) -> Tensor:
        self._check(x)
        check_non_negative_int(start, "start")
        end = start + x.shape[1]
        if end > self.max_len:
            raise ValueError(
                f"positions {start}..{end - 1} do not fit this PositionalEncoding, built for "
                f"max_len={self.max_len}: build it with a larger max_len, or shorten the input"
            )
        return x * math.sqrt(self.d_model) + self.pe[:, start:end]  # (B, T, D) + (1, T, D)

    def _check(self, x: Tensor) -> None:
        """``x`` must be a float tensor ``(B, T, d_model)``; the message names the slip."""
        fix = "Convert it: torch.as_tensor(x, dtype=torch.float32)."
        check_type(x, "x", Tensor, "a tensor (B, T, d_model)", fix)
        if not torch.is_floating_point(x):
            raise TypeError(
                f"x must be floating-point vectors (B, T, d_model), got {x.dtype} "
                f"{shape_str(x)}: embed token ids first (nn.Embedding), or use x.float()"
            )
        hint = ""
        if x.ndim == 2 and x.shape[-1] == self.d_model:
            hint = ": add the batch axis, x.unsqueeze(0)"
        elif x.ndim == 3 and x.shape[1] == self.d_model:
            hint = ": it looks (B, d_model, T), use x.transpose(1, 2)"
        elif x.ndim >= 1 and x.shape[-1] == self.max_len:
            hint = ": PositionalEncoding takes (max_len, d_model), were they swapped?"
        check_width(x, self.d_model, "x", label="d_model", hint=hint)


# Calls and attributes in other libraries' words: their tables are in _name_tables.py.
explain_names(__name__)
