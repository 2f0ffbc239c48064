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
from numbers import Real

import torch
from torch import nn
from torch.optim.lr_scheduler import LambdaLR

from course_lib._foreign_names import explains_bad_calls
from course_lib._validate_basics import check_type, type_name

__all__ = ["warmup_inverse_sqrt", "warmup_cosine"]


def _check_steps(**steps: int) -> None:
    for name, value in steps.items():
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            hint = ""
            if isinstance(value, float) and 0 < value < 1:
                hint = (
                    f": a count of optimiser steps, not a share of them; e.g. "
                    f"{name}=int({value} * epochs * len(train_loader))"
                )
            elif isinstance(value, float) and value >= 1:
                hint = f": a whole number (an int), e.g. {name}=int({value})"
            raise ValueError(f"{name} must be a positive number of steps, got {value!r}{hint}")


def _check_optimizer(optimizer: object) -> None:
    """An optimizer instance with a positive learning rate in every group."""
    if isinstance(optimizer, type):
        fix = f"Create it first, {optimizer.__name__}(model.parameters()), and pass that"
    elif isinstance(optimizer, nn.Module):
        fix = "Pass the optimizer that trains it: torch.optim.Adam(model.parameters())"
    elif isinstance(getattr(optimizer, "optimizer", None), torch.optim.Optimizer):
        fix = "Pass its optimizer: trainer.optimizer"
    else:
        fix = "Pass the optimizer the Trainer uses"
    check_type(optimizer, "optimizer", torch.optim.Optimizer, "a torch.optim optimizer", fix)
    for k, group in enumerate(optimizer.param_groups):
        lr = group["lr"]
        if isinstance(lr, Real) and not lr > 0:
            raise ValueError(
                f"the optimizer's learning rate (group {k}) is {lr!r}, but it must be "
                "positive: the schedule multiplies it, so every step would have that rate. "
                "Give the optimizer the peak rate, e.g. "
                "torch.optim.Adam(model.parameters(), lr=1e-3)"
            )


@explains_bad_calls(
    d_model="warmup_inverse_sqrt takes no d_model: its peak is the optimizer's own learning rate (lr), reached at step warmup. The Annotated Transformer's rate, factor * d_model ** -0.5 * min(step ** -0.5, step * warmup ** -1.5), is this schedule with lr=factor * d_model ** -0.5 * warmup ** -0.5",
    warmup_steps="course_lib calls it warmup=",
    num_warmup_steps="course_lib calls it warmup=",
)
def warmup_inverse_sqrt(optimizer: torch.optim.Optimizer, warmup: int) -> LambdaLR:
    """Linear warm-up to the base rate at step ``warmup``, then ``sqrt(warmup / step)``.

    Raises:
        TypeError: ``optimizer`` is not an optimizer (a model, a Trainer, a class).
        ValueError: the optimizer's learning rate is not positive, or ``warmup`` is not a
            positive whole number of steps.
    """
    _check_optimizer(optimizer)
    _check_steps(warmup=warmup)

    def factor(step: int) -> float:  # step 0 is before the first update
        step = step + 1
        return step / warmup if step < warmup else math.sqrt(warmup / step)

    return LambdaLR(optimizer, factor)


@explains_bad_calls(
    missing="warmup_cosine(optimizer, warmup, total) builds the scheduler itself: scheduler = warmup_cosine(optimizer, warmup=..., total=...), not LambdaLR(optimizer, warmup_cosine)",
    warmup_steps="course_lib calls it warmup=",
    num_warmup_steps="course_lib calls it warmup=",
    num_training_steps="course_lib calls it total= (the optimiser steps of the whole training)",
)
def warmup_cosine(
    optimizer: torch.optim.Optimizer, warmup: int, total: int, floor: float = 0.0
) -> LambdaLR:
    """Linear warm-up for ``warmup`` steps, then a half cosine down to ``floor`` x the base
    rate at step ``total`` (and ``floor`` after it).

    Args:
        total: the optimiser steps of the whole training, ``epochs * len(train_loader)``
            (the Trainer steps the schedule after every batch, not every epoch).

    Raises:
        TypeError: ``optimizer`` is not an optimizer, or ``floor`` is not a number.
        ValueError: the optimizer's learning rate is not positive, ``warmup`` or ``total``
            is not a positive whole number of steps, ``total <= warmup``, or ``floor``
            outside ``[0, 1)``.
    """
    _check_optimizer(optimizer)
    _check_steps(warmup=warmup, total=total)
    if total <= warmup:
        raise ValueError(
            f"total={total} must exceed warmup={warmup}: the order is warmup_cosine(optimizer, "
            "warmup, total), and total counts the optimiser steps of the whole training"
        )
    if isinstance(floor, bool) or not isinstance(floor, Real):
        raise TypeError(f"floor must be a number in [0, 1), got {type_name(floor)}")
    if not 0.0 <= floor < 1.0:
        raise ValueError(f"floor must lie in [0, 1), got {floor}")

    def factor(step: int) -> float:
        step = step + 1
        if step < warmup:
            return step / warmup
        progress = min(1.0, (step - warmup) / (total - warmup))
        return floor + (1 - floor) * 0.5 * (1 + math.cos(math.pi * progress))

    return LambdaLR(optimizer, factor)
