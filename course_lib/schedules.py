"""Learning-rate schedules stepped once per optimiser step.

Transformers are trained with a **warm-up**: the learning rate grows linearly from almost
zero for the first ``warmup`` steps, while Adam's running estimates of the gradients'
scale are still poor and the attention weights still random, and only then decays --
with the inverse square root of the step (Vaswani et al., 2017) or along a cosine.

Each function returns a ``torch.optim.lr_scheduler.LambdaLR`` whose factor multiplies the
optimiser's base learning rate; call ``scheduler.step()`` after every ``optimizer.step()``
(the :class:`~course_lib.train.Trainer` does it when given one).
"""

from __future__ import annotations

import math

import torch
from torch.optim.lr_scheduler import LambdaLR

__all__ = ["warmup_inverse_sqrt", "warmup_cosine"]


def _check_steps(**steps: int) -> None:
    for name, value in steps.items():
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be a positive number of steps, got {value!r}")


def warmup_inverse_sqrt(optimizer: torch.optim.Optimizer, warmup: int) -> LambdaLR:
    """Linear warm-up to the base rate at step ``warmup``, then ``sqrt(warmup / step)``."""
    _check_steps(warmup=warmup)

    def factor(step: int) -> float:  # step 0 is before the first update
        step = step + 1
        return step / warmup if step < warmup else math.sqrt(warmup / step)

    return LambdaLR(optimizer, factor)


def warmup_cosine(
    optimizer: torch.optim.Optimizer, warmup: int, total: int, floor: float = 0.0
) -> LambdaLR:
    """Linear warm-up for ``warmup`` steps, then a half cosine down to ``floor`` x the base
    rate at step ``total`` (and ``floor`` after it)."""
    _check_steps(warmup=warmup, total=total)
    if total <= warmup:
        raise ValueError(f"total={total} must exceed warmup={warmup}")
    if not 0.0 <= floor < 1.0:
        raise ValueError(f"floor must lie in [0, 1), got {floor}")

    def factor(step: int) -> float:
        step = step + 1
        if step < warmup:
            return step / warmup
        progress = min(1.0, (step - warmup) / (total - warmup))
        return floor + (1 - floor) * 0.5 * (1 + math.cos(math.pi * progress))

    return LambdaLR(optimizer, factor)
