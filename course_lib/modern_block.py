"""RMSNorm and SwiGLU: the normalisation and feed-forward of today's decoder blocks.

Batch first; ``D`` model width, ``H`` hidden width of the feed-forward.

Llama-family models keep the Transformer's block -- attention, then a feed-forward, each
with a residual connection -- and change two of its parts (Touvron et al., 2023):

* :class:`RMSNorm` (Zhang and Sennrich, 2019) divides each vector by its root mean square
  and scales it: LayerNorm without subtracting the mean and without a shift;
* :class:`SwiGLU` (Shazeer, 2020) is a *gated* feed-forward: two projections of the input,
  one through the SiLU (``x * sigmoid(x)``), multiplied feature by feature, then projected
  back, with no biases. Three matrices instead of two, so a hidden width of about ``2/3``
  of the ReLU network's keeps the parameter count.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from course_lib._name_tables import explain_names
from course_lib._transformer_checks import check_block_input, check_rms_norm, check_swiglu

__all__ = ["RMSNorm", "SwiGLU"]


class RMSNorm(nn.Module):
    """``x / sqrt(mean(x^2) + eps) * weight`` over the last axis.

    Shape:
        ``(..., D)`` -> ``(..., D)``. Parity: ``torch.nn.RMSNorm`` with the same ``eps``.

    Raises:
        ValueError: a ``d_model`` that is not a positive integer, an ``eps`` that is not a
            number >= 0; in ``forward``, ``x`` whose last dimension is not ``d_model``
            (one of width 1 would broadcast silently).
        TypeError: ``x`` that is not a floating-point tensor.
    """

    def __init__(self, d_model: int, eps: float = 1e-6) -> None:
        super().__init__()
        check_rms_norm(d_model, eps)
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d_model))

    def forward(self, x: Tensor) -> Tensor:
        check_block_input(x, self.weight.shape[0], "RMSNorm")
        # (..., D) -> (..., 1): one root mean square per vector
        rms = torch.sqrt(x.pow(2).mean(dim=-1, keepdim=True) + self.eps)
        return x / rms * self.weight


class SwiGLU(nn.Module):
    """Gated feed-forward: ``down(dropout(silu(gate(x)) * up(x)))``, no biases.

    Shape:
        ``(B, T, D)`` -> ``(B, T, D)`` (any leading axes); ``dropout`` acts on the ``H``
        hidden features, as in :class:`~course_lib.transformer.FeedForward`.

    Raises:
        ValueError: sizes that are not positive integers (round a width such as
            ``8 * d / 3``: ``int(...)``), a dropout outside [0, 1); in ``forward``, ``x``
            whose last dimension is not ``d_model``.
        TypeError: ``x`` that is not a floating-point tensor.
    """

    def __init__(self, d_model: int, d_ff: int, dropout: float = 0.0) -> None:
        super().__init__()
        check_swiglu(d_model, d_ff, dropout)
        self.gate = nn.Linear(d_model, d_ff, bias=False)
        self.up = nn.Linear(d_model, d_ff, bias=False)
        self.down = nn.Linear(d_ff, d_model, bias=False)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: Tensor) -> Tensor:
        check_block_input(x, self.gate.in_features, "SwiGLU")
        # (B, T, D) -> (B, T, H) twice; gated feature by feature; -> (B, T, D)
        return self.down(self.dropout(F.silu(self.gate(x)) * self.up(x)))


# Calls and attributes in other libraries' words: their tables are in _name_tables.py.
explain_names(__name__)
