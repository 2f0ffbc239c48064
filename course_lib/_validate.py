"""Input checks shared by the library's modules: clear messages instead of deep stack traces.

Every message says what was wrong *and* what to do about it.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import Tensor


def shape_str(x: Tensor) -> str:
    return "(" + ", ".join(str(s) for s in x.shape) + ")"


def check_sequence(x: Tensor, name: str, n_features: int | None = None) -> None:
    """``x`` must be a batch-first float tensor ``(B, T, F)`` with ``F == n_features``."""
    if not isinstance(x, Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(x).__name__}")
    if x.ndim != 3:
        hint = " Add a batch dimension with x.unsqueeze(0)." if x.ndim == 2 else ""
        raise ValueError(
            f"{name} must be batch-first with shape (B, T, F), got {shape_str(x)}.{hint}"
        )
    if x.shape[1] == 0:
        raise ValueError(f"{name} is an empty sequence (T = 0): give it at least one step")
    if n_features is not None and x.shape[-1] != n_features:
        raise ValueError(
            f"{name} has {x.shape[-1]} features per step but the model was built for "
            f"{n_features}: shape (B, T, F) = {shape_str(x)}"
        )
    if not torch.is_floating_point(x):
        raise TypeError(f"{name} must be a floating-point tensor, got {x.dtype}; use x.float()")


def check_hidden(hidden: Tensor, batch_size: int, hidden_dim: int, name: str = "hidden") -> None:
    """A GRU state ``(1, B, H)``: layers first, even for batch-first GRUs."""
    expected = (1, batch_size, hidden_dim)
    if not isinstance(hidden, Tensor) or tuple(hidden.shape) != expected:
        got = shape_str(hidden) if isinstance(hidden, Tensor) else type(hidden).__name__
        hint = ""
        if isinstance(hidden, Tensor) and hidden.ndim == 3 and hidden.shape[1] == 1:
            hint = (
                " It looks batch-first (B, 1, H): a GRU state is (layers, B, H), "
                "so use hidden.transpose(0, 1)."
            )
        raise ValueError(f"{name} must have shape (1, B, H) = {expected}, got {got}.{hint}")


def check_seed(seed: object, name: str = "seed") -> int:
    """``seed`` as a Python int, or a clear error (``torch.manual_seed(1.5)`` silently uses 1).

    Raises:
        TypeError: a float, string or bool seed.
        ValueError: a negative seed.
    """
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"{name} must be an integer, got {seed!r} ({type(seed).__name__})")
    if seed < 0:
        raise ValueError(f"{name} must be non-negative, got {seed}")
    return int(seed)


def check_floating(**tensors: Tensor) -> None:
    """Attention needs floating-point inputs: token ids must be embedded first."""
    for name, t in tensors.items():
        if not isinstance(t, Tensor):
            raise TypeError(f"{name} must be a tensor, got {type(t).__name__}")
        if not torch.is_floating_point(t):
            raise TypeError(
                f"{name} is {t.dtype}, but attention needs floating-point vectors: embed "
                "token ids first (nn.Embedding), or convert with .float()"
            )


def check_dropout(p: float, name: str = "dropout") -> None:
    if not 0.0 <= p < 1.0:
        raise ValueError(f"{name} is a probability in [0, 1), got {p}")
