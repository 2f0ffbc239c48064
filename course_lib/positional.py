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

import torch
from torch import Tensor, nn

from course_lib._name_tables import explain_names
from course_lib._positional_checks import check_positional_input, check_table_args

__all__ = ["sinusoidal_encoding", "PositionalEncoding"]


def sinusoidal_encoding(max_len: int, d_model: int, base: float = 10000.0) -> Tensor:
    """The ``(max_len, d_model)`` table of sine/cosine encodings (float32).

    Even columns hold sines, odd columns cosines; an odd ``d_model`` ends with a sine.

    Raises:
        ValueError: ``max_len`` or ``d_model`` that is not a positive integer, a ``base``
            that is not a number above 1.
    """
    check_table_args(max_len, d_model, base)
    position = torch.arange(max_len, dtype=torch.float32).unsqueeze(1)  # (max_len, 1)
    # 1 / base^(2i / D) for i = 0 .. ceil(D/2) - 1: one angular speed per sine/cosine pair
    angular_speed = torch.exp(torch.arange(0, d_model, 2).float() * (-math.log(base) / d_model))
    angles = position * angular_speed  # (max_len, 1) * (D/2,) -> (max_len, D/2)
    table = torch.zeros(max_len, d_model)
    table[:, 0::2] = torch.sin(angles)  # even dimensions
    table[:, 1::2] = torch.cos(angles[:, : d_model // 2])  # odd dimensions
    return table


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
        check_positional_input(self, x, start)
        end = start + x.shape[1]
        return x * math.sqrt(self.d_model) + self.pe[:, start:end]  # (B, T, D) + (1, T, D)


# Calls and attributes in other libraries' words: their tables are in _name_tables.py.
explain_names(__name__)
