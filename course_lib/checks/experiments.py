"""Self-checks for the training experiments of Chapters 1, 3 and 4: a function that trains
one model with the chapter's recipe and returns the course's :class:`~course_lib.train.Trainer`.

The recipe fixes every seed, so on one machine it gives the same numbers every time. Each
check calls your function, reads the Trainer it returns (model, optimizer, loss, histories),
watches the model's training batches, its first weights and the learning rate of every
optimizer step, and then trains the recipe itself on the same data and device: the
validation losses must agree epoch for epoch (within 1e-5, relative). Where they part, the
message names the epoch and what differs first -- the weights the model starts from, the
batches, the learning rate, the loss -- and what usually causes it. The reference training
is kept for the rest of the session, so running a check again costs only your training.

Inside ``unseen_cases`` your function is asked for another width, model seed or number of
epochs, so a Trainer stored from an earlier run cannot pass.

What no check can see: where your function behaves exactly like the recipe on the data it
is given, it passes. The plateau check also reads what your ``ReduceLROnPlateau`` is stepped
with, so a scheduler stepped with the training loss fails even where the training loss
happens to plateau at the same epochs as the validation loss (on the exercise's squares
that depends on the processor's kernels: with AVX-512 the cuts differ, with AVX2 they
coincide).
"""

from __future__ import annotations

import contextlib
import io
import math
from collections.abc import Callable

import torch

from course_lib._foreign_names import explains_bad_calls
from course_lib.checks._core import CheckFailed, call_student, case_generator, variant
from course_lib.checks._recipes import Recipe, Run, make_recipe, reference_run, watching
from course_lib.checks._setup_problems import (
    a_trainer,
    epochs_problem,
    model_problem,
    setup_problem,
)
from course_lib.checks._training_problems import (
    batches_problem,
    first_difference,
    plateau_steps_problem,
    rates_problem,
    validation_problem,
    weights_problem,
)
from course_lib.points_transformer import SelfAttentionConfig, SelfAttentionEncoderDecoder
from course_lib.seq2seq import EncoderDecoder, Seq2SeqConfig
from course_lib.train import Trainer

__all__ = ["check_train_width", "check_train_add_norm", "check_train_on_plateau"]

# The plateau check's cases, (model seed, epochs): seed 43 first cuts the rate after epoch
# 33 on the CPU, the unseen seeds (none of the chapter's 43, 1-7) two epochs before their end.
PLATEAU_CASE = (43, 35)
PLATEAU_UNSEEN = [(0, 21), (17, 23), (27, 23), (33, 23), (40, 20), (30, 15), (19, 25)]


# -- the checks --------------------------------------------------------------------------------


def _item_size(dataset) -> int | None:
    """How many tensors an item of ``dataset`` holds (3 for training items (source, target,
    target), 2 for validation items (source, target)), or None where it cannot tell."""
    try:
        item = dataset[0]
    except Exception:  # not a dataset of the course's kind: the training says what is off
        return None
    return len(item) if isinstance(item, (tuple, list)) else None


def _swapped_sets(recipe: Recipe, train_set, val_set) -> None:
    """:class:`CheckFailed` where the check was given the validation set first."""
    __tracebackhide__ = True
    if (_item_size(train_set), _item_size(val_set)) == (2, 3):
        raise CheckFailed(
            f"check_{recipe.name}'s train_set and val_set look swapped: the second argument's "
            "items are (source, target) pairs, the third's (source, target, target) -- three "
            "tensors, the training items, whose target the model receives for teacher "
            f"forcing. Pass them in this order: check_{recipe.name}({recipe.name}, train_set, "
            "val_set)"
        )


def _check(recipe: Recipe, fn: Callable, train_set, val_set) -> Trainer:
    """Everything the three checks share; returns the student's Trainer once it agrees."""
    __tracebackhide__ = True
    _swapped_sets(recipe, train_set, val_set)
    call = recipe.call
    cuda = list(range(torch.cuda.device_count()))
    with torch.random.fork_rng(devices=cuda):  # the reader's random numbers stay as they were
        with contextlib.redirect_stdout(io.StringIO()), watching() as watch:
            got = call_student(fn, recipe.name, *recipe.args, none_ok=True)  # a_trainer says
        trainer = a_trainer(recipe, got)
        for problem in (
            model_problem(recipe, trainer.model),
            epochs_problem(recipe, trainer),
            setup_problem(recipe, trainer),
        ):
            if problem is not None:
                raise CheckFailed(f"{call}: {problem}")
        seen = watch.model(trainer.model)
        if seen is None:
            raise CheckFailed(
                f"{call}: the returned Trainer's model was not trained inside {recipe.name}: "
                "build the model and the Trainer in the function and call trainer.fit there"
            )
        run = Run(
            trainer, seen, watch.rates(trainer.optimizer), watch.plateau_steps(trainer.optimizer)
        )
        problem = weights_problem(recipe, seen.first)
        if problem is None:
            ref = reference_run(recipe, train_set, val_set, trainer.device)
            problem = batches_problem(recipe, run, ref, train_set)
        if problem is not None:
            raise CheckFailed(f"{call}: {problem}")
    wrong = first_difference(trainer.val_losses, ref.trainer.val_losses)
    if recipe.plateau:
        problem = plateau_steps_problem(run) or rates_problem(recipe, run, ref, wrong)
        if problem is not None:
            raise CheckFailed(f"{call}: {problem}")
    if wrong is not None:
        problem = validation_problem(recipe, run, ref)
        if problem is not None:
            raise CheckFailed(f"{call}: {problem}")
        got, expected = trainer.val_losses[wrong], ref.trainer.val_losses[wrong]
        agree = f"agree with the recipe's up to epoch {wrong} and " if wrong else ""
        raise CheckFailed(
            f"{call}: the validation losses {agree}part at epoch {wrong + 1} (got {got:.6g}, "
            f"the recipe {expected:.6g}), though the model starts from the recipe's weights "
            "and sees its batches: something acting on them differs -- the optimizer or its "
            "settings, the loss, an extra step or draw of random numbers inside the loop"
            + (", the scheduler's steps" if recipe.plateau else "")
        )
    if recipe.plateau:
        final, expected = (
            float(trainer.optimizer.param_groups[0]["lr"]),
            ref.rate_after(recipe.epochs)[-1],
        )
        if not math.isclose(final, expected, rel_tol=1e-6):
            raise CheckFailed(
                f"{call}: the optimizer ends at learning rate {final:.3g}, the recipe's at "
                f"{expected:.3g}: step the scheduler after every epoch, "
                "plateau.step(trainer.val_losses[-1])"
            )
    return trainer


def _drawn(seed: int, low: int, high: int) -> int:
    """An integer in ``[low, high]`` from ``case_generator(seed)``."""
    return int(torch.randint(low, high + 1, (), generator=case_generator(seed)))


@explains_bad_calls()
def check_train_width(train_width: Callable, train_set, val_set) -> None:
    """Check ``train_width(hidden_dim) -> Trainer`` (Chapter 1): the plain GRU
    encoder-decoder ``EncoderDecoder.from_config(Seq2SeqConfig(hidden_dim=hidden_dim))``,
    built right after ``torch.manual_seed(23)``, trained by the course's Trainer with Adam (lr
    0.01) and ``nn.MSELoss()`` for 100 epochs on batches of 16 of ``train_set`` (shuffled by a
    ``torch.Generator()`` the Trainer seeds, ``seed=42``), validated on ``val_set``.

    Asks for ``hidden_dim=3`` (inside ``unseen_cases`` another width, 4 to 7); the validation
    losses must agree with the recipe's, epoch for epoch.
    """
    __tracebackhide__ = True
    width = _drawn(80, 4, 7) if variant() else 3
    recipe = make_recipe(
        "train_width",
        (width,),
        100,
        23,
        lambda: EncoderDecoder.from_config(Seq2SeqConfig(hidden_dim=width)),
    )
    _check(recipe, train_width, train_set, val_set)
    print(
        f"✓ train_width: hidden_dim={width}, 100 epochs; every validation loss agrees with "
        "the recipe's."
    )


@explains_bad_calls()
def check_train_add_norm(train_add_norm: Callable, train_set, val_set) -> None:
    """Check ``train_add_norm(model_seed) -> Trainer`` (Chapter 3): the self-attention model
    without positions, decoding from the origin, with Add & Norm
    (``SelfAttentionConfig(positional=False, start="origin", add_norm="post")``), built right
    after ``torch.manual_seed(model_seed)`` and trained like the chapter's ``train_squares``:
    Adam (lr 0.01), ``nn.MSELoss()``, 60 epochs on batches of 16 of ``train_set`` (shuffled by
    a ``torch.Generator()``, ``seed=42``), validated on ``val_set``.

    Asks for model seed 43 (inside ``unseen_cases`` another one, none of 1-4); the validation
    losses must agree with the recipe's, epoch for epoch.
    """
    __tracebackhide__ = True
    seed = _drawn(81, 5, 40) if variant() else 43
    config = SelfAttentionConfig(positional=False, start="origin", add_norm="post")
    recipe = make_recipe(
        "train_add_norm", (seed,), 60, seed, lambda: SelfAttentionEncoderDecoder(config)
    )
    _check(recipe, train_add_norm, train_set, val_set)
    print(
        f"✓ train_add_norm: model seed {seed}, 60 epochs; every validation loss agrees with "
        "the recipe's."
    )


@explains_bad_calls()
def check_train_on_plateau(train_on_plateau: Callable, train_set, val_set) -> None:
    """Check ``train_on_plateau(model_seed, epochs) -> Trainer`` (Chapter 4): the model with
    positions, ``start="last"`` and no Add & Norm (``SelfAttentionConfig(positional=True,
    start="last", add_norm=None)``), built right after ``torch.manual_seed(model_seed)``,
    trained with Adam (lr 0.01) and ``nn.MSELoss()`` on batches of 16 of ``train_set``, one
    ``fit`` call per epoch (``seed=42`` on the first only), and
    ``ReduceLROnPlateau(optimizer, factor=0.3, patience=5)`` stepped after every epoch with
    that epoch's validation loss.

    To keep it short, asks for model seed 43 and 35 epochs (the rate is first cut after
    epoch 33); inside ``unseen_cases`` another seed and 15 to 25 epochs. The validation losses
    must agree with the recipe's epoch for epoch, and so must the learning rate after each
    epoch.
    """
    __tracebackhide__ = True
    seed, epochs = (
        PLATEAU_UNSEEN[_drawn(82, 0, len(PLATEAU_UNSEEN) - 1)] if variant() else PLATEAU_CASE
    )
    config = SelfAttentionConfig(positional=True, start="last", add_norm=None)
    recipe = make_recipe(
        "train_on_plateau",
        (seed, epochs),
        epochs,
        seed,
        lambda: SelfAttentionEncoderDecoder(config),
        plateau=True,
    )
    trainer = _check(recipe, train_on_plateau, train_set, val_set)
    final = float(trainer.optimizer.param_groups[0]["lr"])
    print(
        f"✓ train_on_plateau: model seed {seed}, {epochs} epochs; every validation loss and "
        f"the learning rate after each epoch (ending at {final:.3g}) agree with the recipe's."
    )
