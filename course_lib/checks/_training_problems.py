"""Where a watched training parts from the recipe's reference training: the weights the
model starts from, its batches, the sequences it is validated on, the learning rate after
each epoch -- each difference turned into words, with what usually causes it.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor

from course_lib.checks._core import variant
from course_lib.checks._recipes import (
    BATCH,
    FACTOR,
    LR,
    PATIENCE,
    Recipe,
    Run,
    first_weights,
)

RTOL = 1e-5  # validation losses agree within this relative difference


def _same_weights(got: dict[str, Tensor], expected: dict[str, Tensor]) -> bool:
    return got.keys() == expected.keys() and all(torch.equal(got[k], expected[k]) for k in expected)


def first_difference(got: list[float], expected: list[float]) -> int | None:
    """The first epoch whose losses differ beyond ``RTOL``, or None."""
    for e, (a, b) in enumerate(zip(got, expected, strict=True)):
        if not math.isclose(a, b, rel_tol=RTOL, abs_tol=1e-12):
            return e
    return None


def _plateau_rates(losses: list[float]) -> list[float]:
    """The learning rate after each epoch of the recipe's scheduler stepped with ``losses``."""
    optimizer = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=LR)
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(
        optimizer, factor=FACTOR, patience=PATIENCE
    )
    rates = []
    for loss in losses:
        scheduler.step(loss)
        rates.append(float(optimizer.param_groups[0]["lr"]))
    return rates


def weights_problem(recipe: Recipe, first: dict[str, Tensor]) -> str | None:
    """What is wrong with the model's first weights (its seed), or None."""
    if _same_weights(first, first_weights(recipe, recipe.seed)):
        return None
    building = type(recipe.build()).__name__
    others = [43, 42, 23, 0] if variant() else [42, 0]
    for seed in others:
        if seed != recipe.seed and _same_weights(first, first_weights(recipe, seed)):
            return (
                f"the model starts from the weights of torch.manual_seed({seed}), the recipe "
                f"from those of torch.manual_seed({recipe.seed}): seed with "
                f"{recipe.seeded_with} right before building the {building}"
            )
    return (
        "the model does not start from the recipe's weights: call "
        f"torch.manual_seed({recipe.seeded_with}) right before building the {building}, with "
        "nothing in between that draws random numbers (another model, torch.rand, ...)"
    )


def batches_problem(recipe: Recipe, run: Run, ref: Run, train_set) -> str | None:
    """What is wrong with the training batches (size, inputs, number, order), or None."""
    got, expected = run.sources, ref.sources
    if got and expected and len(got[0]) != len(expected[0]):
        return (
            f"it trained on batches of {len(got[0])}, the recipe's {len(expected[0])}: "
            f"DataLoader(train_set, batch_size={BATCH}, shuffle=True, generator=torch.Generator())"
        )
    per_epoch = len(expected) // recipe.epochs
    if run.seen.inputs != ref.seen.inputs:
        return (
            f"in training the model received {run.seen.inputs} input(s), the recipe's "
            f"{ref.seen.inputs} (the source and the target): train on "
            "train_set, whose items (source, target, target) hand the target to the model"
        )
    if len(got) != len(expected):
        return (
            f"it took {len(got)} training steps, the recipe {len(expected)} ({recipe.epochs} "
            f"epochs of {per_epoch} batches of train_set): train on train_set, every batch "
            "once per epoch"
        )
    wrong = next(
        (i for i, (a, b) in enumerate(zip(got, expected, strict=True)) if not torch.equal(a, b)),
        None,
    )
    if wrong is None:
        return None
    epoch = wrong // per_epoch + 1
    where = f"from epoch {epoch} (batch {wrong % per_epoch + 1})"
    try:
        in_order = torch.equal(got[wrong], train_set[: len(got[0])][0].cpu())
    except Exception:  # a dataset without slicing
        in_order = False
    if in_order and wrong % per_epoch == 0:
        return (
            f"{where} the batches are not shuffled: DataLoader(train_set, batch_size={BATCH}, "
            "shuffle=True, generator=torch.Generator())"
        )
    if epoch > 1 and all(
        torch.equal(a, b)
        for a, b in zip(
            got[(epoch - 1) * per_epoch : epoch * per_epoch], got[:per_epoch], strict=True
        )
    ):
        return (
            f"epoch {epoch} replays the first epoch's batches: the training loader is "
            "re-seeded every epoch -- pass seed=42 to the first fit call only "
            "(seed=42 if epoch == 0 else None), and build the loader once"
        )
    if epoch == 1:
        return (
            f"{where} the batches come in another order than the recipe's: give the training "
            "DataLoader its own generator=torch.Generator() and let the Trainer seed it, "
            "fit(..., seed=42); a loader without a generator shuffles with PyTorch's global "
            "one, which other draws move"
        )
    return (
        f"{where} the batches come in another order than the recipe's: build the training "
        "DataLoader once, with generator=torch.Generator(), and seed it only through "
        "fit(..., seed=42)"
    )


def validation_problem(recipe: Recipe, run: Run, ref: Run) -> str | None:
    """Whether the model was validated on ``val_set`` (its sequences, in any order)."""
    got, expected = run.validated(recipe.epochs), ref.validated(recipe.epochs)  # (N, S, F)
    # each sequence flattened to a row, (N, S * F), and compared as a set of rows
    if got.shape[1:] == expected.shape[1:] and torch.equal(
        torch.unique(got.flatten(1), dim=0), torch.unique(expected.flatten(1), dim=0)
    ):
        return None
    return (
        f"after epoch 1 the model was validated on {len(got)} sequences that are not "
        f"val_set's {len(expected)}: validate on val_set, DataLoader(val_set, batch_size={BATCH})"
    )


def _matches(got: list[float], losses: list[float]) -> bool:
    return len(got) == len(losses) > 0 and first_difference(got, losses) is None


def plateau_steps_problem(run: Run) -> str | None:
    """For the plateau: a ``ReduceLROnPlateau`` stepped with the training losses, read from
    the values it was given (the rates alone cannot tell where both losses plateau at the
    same epochs)."""
    steps, trainer = run.plateau_steps, run.trainer
    if not _matches(steps, list(trainer.losses)) or _matches(steps, list(trainer.val_losses)):
        return None
    return (
        "the scheduler was stepped with the training loss, trainer.losses[-1]: "
        "ReduceLROnPlateau watches the VALIDATION loss -- step it once after every epoch "
        "with that epoch's validation loss, plateau.step(trainer.val_losses[-1])"
    )


def rates_problem(recipe: Recipe, run: Run, ref: Run, first_loss: int | None) -> str | None:
    """For the plateau: the learning rate after each epoch, against the recipe's."""
    e = recipe.epochs
    if not run.rates:
        return "the optimizer never stepped: the Trainer steps it, trainer.fit(...)"
    if not math.isclose(run.rates[0], LR, rel_tol=1e-9):
        return (
            f"the first epoch trained at learning rate {run.rates[0]:g}, the recipe's {LR}: "
            f"Adam(model.parameters(), lr={LR})"
        )
    got, expected = run.rate_after(e), ref.rate_after(e)
    wrong = first_difference(got, expected)
    if wrong is None or (first_loss is not None and first_loss <= wrong):
        return None  # the rates follow the losses: the losses part first
    cuts = [i + 1 for i in range(e) if got[i] < (got[i - 1] if i else LR) * (1 - 1e-9)]
    want = [i + 1 for i in range(e) if expected[i] < (expected[i - 1] if i else LR) * (1 - 1e-9)]
    said = (
        f"the learning rate was cut after epoch{'s' * (len(cuts) > 1)} {', '.join(map(str, cuts))}"
        if cuts
        else "the learning rate was never cut"
    )
    said += (
        f" (ending at {got[-1]:.3g}); the recipe's after epoch{'s' * (len(want) > 1)} "
        f"{', '.join(map(str, want))} (ending at {expected[-1]:.3g}) -- "
    )
    step = (
        "step it once after every epoch with that epoch's validation loss, "
        "plateau.step(trainer.val_losses[-1])"
    )
    if not cuts:
        return said + (
            f"is the scheduler stepped at all? {step[0].upper()}{step[1:]} (stepped with the "
            "training loss, which keeps falling here, it does not cut either)"
        )
    if got == _plateau_rates(run.trainer.losses):
        return said + f"the scheduler was stepped with the training loss: {step}"
    first = cuts[0] - 1
    ratio = got[first] / (got[first - 1] if first else LR)
    if not math.isclose(ratio, FACTOR, rel_tol=1e-6):
        return said + f"each cut multiplies the rate by {ratio:.3g}: factor={FACTOR}"
    return said + (
        f"build ReduceLROnPlateau(optimizer, factor={FACTOR}, patience={PATIENCE}) once and {step}"
    )
