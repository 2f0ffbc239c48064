"""What the check reads from the returned Trainer before comparing any training: whether it
is a Trainer, its model, its number of epochs, its optimizer, loss and options -- each
difference from the recipe turned into words, with the fix.
"""

from __future__ import annotations

import math
from dataclasses import fields

import torch
import torch.nn.functional as F
from torch import nn

from course_lib.checks._core import CheckFailed
from course_lib.checks._describe import describe
from course_lib.checks._recipes import LR, Recipe
from course_lib.points_transformer import SelfAttentionConfig, SelfAttentionEncoderDecoder
from course_lib.seq2seq import Decoder
from course_lib.train import Trainer


def a_trainer(recipe: Recipe, got) -> Trainer:
    """What the student's function returned, if a Trainer; else :class:`CheckFailed`."""
    __tracebackhide__ = True
    if isinstance(got, Trainer):
        return got
    what = type(got).__name__
    if got is None:
        hint = "it returned None: end the function with `return trainer`"
    elif isinstance(got, nn.Module):
        hint = f"it returned the model ({what}): return the Trainer that trained it"
    elif isinstance(got, (list, tuple, float)):
        hint = (
            f"it returned a {what} (losses?): return the Trainer itself, whose histories "
            "the check reads"
        )
    else:
        hint = f"it returned {describe(got)}"
    raise CheckFailed(
        f"{recipe.call} should return the course's Trainer (course_lib.train.Trainer): {hint}"
    )


_FIELD_HINTS = {
    ("positional", True): "positional=True: the exercise's model has no positions, "
    "positional=False",
    ("positional", False): "positional=False: the exercise trains the model with positions, "
    "positional=True",
    ("start", "origin"): "start='origin': the exercise's decoder starts from the last source "
    "point, start='last'",
    ("start", "last"): "start='last': the exercise's decoder starts from the origin, "
    "start='origin'",
    ("add_norm", None): "add_norm=None: the exercise's model has Add & Norm after every "
    "sublayer, add_norm='post'",
    ("add_norm", "post"): "add_norm='post' (the library's default): the chapter's model has "
    "no Add & Norm, add_norm=None",
}


def _config_problem(config: SelfAttentionConfig, expected: SelfAttentionConfig) -> str | None:
    """The first setting of ``config`` that differs from ``expected``, in words."""
    named = ("positional", "start", "add_norm")
    for name in named + tuple(f.name for f in fields(SelfAttentionConfig) if f.name not in named):
        got, want = getattr(config, name), getattr(expected, name)
        if got != want:
            hint = _FIELD_HINTS.get((name, got), f"{name}={got!r}: the exercise's is {want!r}")
            return hint if name in named else f"{hint} (keep SelfAttentionConfig's default)"
    return None


def model_problem(recipe: Recipe, model: nn.Module) -> str | None:
    """What differs between the trained model and the recipe's, in words; None if nothing."""
    expected = recipe.build()
    if not isinstance(model, type(expected)):
        return (
            f"it trained a {type(model).__name__}; the exercise trains a {type(expected).__name__}"
        )
    if isinstance(expected, SelfAttentionEncoderDecoder):
        config = getattr(model, "config", None)
        if not isinstance(config, SelfAttentionConfig):
            return (
                "the model has no SelfAttentionConfig: build it as "
                "SelfAttentionEncoderDecoder(config)"
            )
        problem = _config_problem(config, expected.config)
        return None if problem is None else f"the model was built with {problem}"
    width = recipe.args[0]
    if type(model.decoder) is not Decoder:
        return (
            f"its decoder is a {type(model.decoder).__name__}: the exercise widens the "
            "chapter's plain GRU model, EncoderDecoder.from_config(Seq2SeqConfig(...))"
        )
    got = getattr(model.encoder, "hidden_dim", None)
    if got != width:
        return (
            f"it trained a model with hidden_dim={got}: build it with the width passed in, "
            "Seq2SeqConfig(hidden_dim=hidden_dim) (a Trainer kept from another call cannot "
            "answer for this width)"
        )
    if (model.target_len, model.teacher_forcing_prob) != (2, 0.5):
        return (
            f"the model has target_len={model.target_len}, teacher_forcing_prob="
            f"{model.teacher_forcing_prob}: keep Seq2SeqConfig's defaults (2 and 0.5), only "
            "hidden_dim changes"
        )
    return None


def setup_problem(recipe: Recipe, trainer: Trainer) -> str | None:
    """The optimizer, the loss and the Trainer's options, against the recipe's."""
    optimizer = trainer.optimizer
    if type(optimizer) is not torch.optim.Adam:
        return f"the optimizer is {type(optimizer).__name__}: the recipe's is torch.optim.Adam"
    params = {id(p) for group in optimizer.param_groups for p in group["params"]}
    if params != {id(p) for p in trainer.model.parameters()}:
        return (
            "the optimizer does not hold exactly the trained model's parameters: build it "
            "on model.parameters() of the model you pass to the Trainer"
        )
    group = optimizer.param_groups[0]
    defaults = {"betas": (0.9, 0.999), "eps": 1e-8, "weight_decay": 0, "amsgrad": False}
    other = [f"{k}={group[k]!r}" for k, v in defaults.items() if k in group and group[k] != v]
    if other:
        return (
            f"Adam has {', '.join(other)}: keep its defaults, "
            f"torch.optim.Adam(model.parameters(), lr={LR})"
        )
    lr = float(group.get("initial_lr", group["lr"]))
    if not recipe.plateau and not math.isclose(lr, LR, rel_tol=1e-9):
        return f"the learning rate is {lr:g}, the recipe's {LR}: Adam(model.parameters(), lr={LR})"
    if trainer.scheduler is not None:
        return "the Trainer was given a scheduler, which it steps after every batch: " + (
            "ReduceLROnPlateau is stepped by you, once per epoch, outside the Trainer"
            if recipe.plateau
            else "the recipe keeps the learning rate constant"
        )
    if trainer.clip_grad_norm is not None or trainer.mixed_precision:
        return "the Trainer clips gradients or uses mixed precision: the recipe does neither"
    a = torch.linspace(-1.0, 1.0, 24).view(3, 4, 2)  # (N, S, F): 3 sequences of 4 points
    b = 0.5 * a.flip(0) + 0.1
    try:
        loss = float(trainer.loss_fn(a.to(trainer.device), b.to(trainer.device)))
    except Exception as err:
        return f"the loss function raised {type(err).__name__} on two (3, 4, 2) tensors: {err}"
    if not math.isclose(loss, float(F.mse_loss(a, b)), rel_tol=1e-5):
        return "the loss is not the mean squared error: the recipe's is nn.MSELoss()"
    return None


def epochs_problem(recipe: Recipe, trainer: Trainer) -> str | None:
    """What is wrong with the number of epochs trained and validated, or None."""
    got, trained, e = len(trainer.val_losses), len(trainer.losses), recipe.epochs
    if trained and not got:
        return (
            "the Trainer has no validation losses: pass the validation loader to fit, "
            "trainer.fit(train_loader, val_loader, ...)"
        )
    if got != trained:
        return (
            f"it trained {trained} epochs but has {got} validation losses: pass the "
            "validation loader to every fit call"
        )
    if got == e:
        return None
    hint = ""
    if recipe.plateau:
        hint = (
            " (loop over range(epochs) and call trainer.fit(train_loader, val_loader, 1, ...) "
            "once per epoch)"
            if got != e * e
            else " (each fit call trains one epoch: fit(train_loader, val_loader, 1, ...))"
        )
    return f"it trained {got} epochs (len(trainer.val_losses)), the recipe trains {e}{hint}"
