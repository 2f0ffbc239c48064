"""The Trainer's argument checks: the wrong kind of object, a stale optimizer, a scheduler
set up in epochs, a hook that cannot be called, a checkpoint that does not fit -- each named in
the user's words with the fix, before anything runs or is restored (package-private; see
:mod:`course_lib.train`; the checks of its data are in ``_train_data``, what a failure during
an epoch means in ``_train_failures``)."""

from __future__ import annotations

import inspect
import os
from collections.abc import Mapping
from numbers import Real
from pathlib import Path

import numpy as np
import torch
from torch import Tensor, nn
from torch.optim.lr_scheduler import ReduceLROnPlateau

from course_lib._train_failures import call_signature
from course_lib._validate_basics import check_type, shape_str, type_name, warn_user

_ORDER = "The order is Trainer(model, loss_fn, optimizer)"


def check_model(model: object) -> None:
    if isinstance(getattr(model, "model", None), nn.Module):  # a Trainer, even a reloaded one
        fix = "Pass its model, trainer.model, or keep training that Trainer: trainer.fit(...)"
    elif isinstance(model, type):
        fix = f"Build one first, model = {model.__name__}(...), and pass that"
    elif isinstance(model, torch.optim.Optimizer):
        fix = _ORDER
    else:
        fix = "Pass the model to train, e.g. nn.Linear(3, 1)"
    check_type(model, "model", nn.Module, "a torch.nn.Module (the model to train)", fix)


def check_loss_fn(loss_fn: object) -> None:
    what = "a loss function, loss_fn(output, target) -> scalar tensor"
    if isinstance(loss_fn, type):  # a class is callable: nn.CrossEntropyLoss(output, target)
        raise TypeError(
            f"loss_fn must be {what}, got {type_name(loss_fn)}. Create one: "
            f"{'nn.' if issubclass(loss_fn, nn.Module) else ''}{loss_fn.__name__}()"
        )
    if isinstance(loss_fn, torch.optim.Optimizer):
        raise TypeError(f"loss_fn must be {what}, got {type_name(loss_fn)}. {_ORDER}")
    if not callable(loss_fn):
        raise TypeError(
            f"loss_fn must be {what}, got {type_name(loss_fn)}. Pass e.g. nn.MSELoss() or "
            "nn.CrossEntropyLoss()"
        )


def check_optimizer(optimizer: object) -> None:
    what = "a torch.optim optimizer"
    if isinstance(optimizer, type):
        fix = f"Create it on the model's parameters: {optimizer.__name__}(model.parameters())"
    elif isinstance(optimizer, nn.Module):
        fix = f"{_ORDER}, with optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)"
    elif isinstance(optimizer, torch.optim.lr_scheduler.LRScheduler):
        fix = "This is a scheduler: pass its optimizer here and the scheduler as scheduler="
    else:
        fix = "Create it on the model's parameters: torch.optim.Adam(model.parameters())"
    check_type(optimizer, "optimizer", torch.optim.Optimizer, what, fix)


def check_same_parameters(model: nn.Module, optimizer: torch.optim.Optimizer) -> None:
    """The optimizer must update this model: at least one of its parameters is the
    model's (the same object). An optimizer over a subset (frozen layers) or in several
    groups passes; the optimizer of an earlier model -- the model's cell run again, the
    optimizer's not -- does not, since it would "train" for epochs without changing a
    weight. A model without parameters has nothing to check."""
    own = {id(p) for p in model.parameters()}
    if not own:
        return
    held = [p for group in optimizer.param_groups for p in group["params"]]
    if not any(id(p) in own for p in held):
        raise ValueError(
            f"the optimizer holds none of the model's parameters ({len(held)} tensors, none "
            "of them the model's): it was built on another model -- e.g. the model's cell "
            "was run again, which makes a new model, and the optimizer's was not. Re-create "
            "the optimizer after the model: torch.optim.Adam(model.parameters())"
        )


def check_scheduler(scheduler: object, optimizer: torch.optim.Optimizer) -> None:
    if scheduler is None:
        return
    if isinstance(scheduler, type):
        raise TypeError(
            f"scheduler must be a learning-rate scheduler, got {type_name(scheduler)}. Create "
            "it on the optimizer, e.g. warmup_inverse_sqrt(optimizer, warmup=100)"
        )
    if isinstance(scheduler, ReduceLROnPlateau):
        raise ValueError(
            "a ReduceLROnPlateau scheduler needs the validation loss, and the Trainer steps "
            "its scheduler after every batch: do not pass it to the Trainer; step it "
            "yourself after each epoch, scheduler.step(trainer.val_losses[-1])"
        )
    if not callable(getattr(scheduler, "step", None)):
        fix = ""
        if callable(scheduler):  # a function: the schedule's maker, or its lr_lambda
            name = getattr(scheduler, "__name__", "")
            if name == "warmup_cosine":
                build = "warmup_cosine(optimizer, warmup, total)"
            elif name == "warmup_inverse_sqrt":
                build = "warmup_inverse_sqrt(optimizer, warmup)"
            else:
                build = (
                    "warmup_inverse_sqrt(optimizer, warmup); a function of the step goes "
                    "in torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda)"
                )
            fix = (
                f" {name}".rstrip() + ". Build the scheduler on the optimizer and pass that, "
                f"not the function: scheduler={build}"
            )
        raise TypeError(
            f"scheduler must be a learning-rate scheduler (see course_lib.schedules), got "
            f"{type_name(scheduler)}{fix}"
        )
    if getattr(scheduler, "optimizer", None) is not optimizer:
        raise ValueError(
            "the scheduler must be built on the same optimizer as the Trainer: create it "
            "after the optimizer, on that one, e.g. warmup_inverse_sqrt(optimizer, warmup)"
        )
    _warn_epoch_schedule(scheduler)


#: Below these, a StepLR's step_size, a MultiStepLR's last milestone or an ExponentialLR's
#: gamma count epochs (the PyTorch tutorials' habit), not the Trainer's optimiser steps.
_EPOCH_STEPS, _EPOCH_GAMMA = 100, 0.99


def _warn_epoch_schedule(scheduler: object) -> None:
    """A StepLR, MultiStepLR or ExponentialLR set up in epochs, in a Trainer that steps its
    scheduler after every batch: the learning rate would fall len(train_loader) times too
    fast. A schedule counted in steps (step_size=20 * len(train_loader)) passes."""
    schedules = torch.optim.lr_scheduler
    per_batch = (
        "the Trainer steps its scheduler after every optimiser step (each batch), not once "
        "per epoch"
    )
    if isinstance(scheduler, schedules.StepLR) and scheduler.step_size < _EPOCH_STEPS:
        size = scheduler.step_size
        message = (
            f"scheduler=StepLR(step_size={size}): {per_batch}, so the learning rate falls "
            f"every {size} batches. For a fall every {size} epochs pass step_size={size} * "
            "len(train_loader)"
        )
    elif isinstance(scheduler, schedules.MultiStepLR) and scheduler.milestones:
        last = max(scheduler.milestones)
        if last >= _EPOCH_STEPS:
            return
        marks = sorted(scheduler.milestones.elements())
        message = (
            f"scheduler=MultiStepLR(milestones={marks}): {per_batch}, so the milestones count "
            f"batches. For milestones in epochs multiply them by len(train_loader)"
        )
    elif isinstance(scheduler, schedules.ExponentialLR) and scheduler.gamma < _EPOCH_GAMMA:
        gamma = scheduler.gamma
        message = (
            f"scheduler=ExponentialLR(gamma={gamma:g}): {per_batch}, so the learning rate is "
            f"multiplied by {gamma:g} after every batch. For that factor per epoch pass "
            f"gamma={gamma:g} ** (1 / len(train_loader))"
        )
    else:
        return
    warn_user(message, UserWarning)


def warn_one_cycle_in_epochs(scheduler: object, epochs: int, train_loader: object) -> None:
    """A OneCycleLR whose ``total_steps`` counts epochs (``total_steps=epochs``, the PyTorch
    tutorials' habit with a scheduler stepped once per epoch), in a Trainer that steps it after
    every batch: PyTorch would stop the fit with a ValueError once the steps pass
    ``total_steps``. Said when the fit starts, and only when the numbers decide it:
    ``total_steps`` at most ``epochs`` and fewer than the fit's optimiser steps (at least one
    per epoch when the loader has no length)."""
    if not isinstance(scheduler, torch.optim.lr_scheduler.OneCycleLR):
        return
    total = scheduler.total_steps
    try:
        batches = len(train_loader)  # type: ignore[arg-type]
    except TypeError:
        batches = None
    steps = epochs * batches if batches is not None else epochs
    if total > epochs or total >= steps:
        return
    makes = (
        f"{epochs} * {batches} = {steps}"
        if batches is not None
        else f"at least {epochs} (one per batch of each of its {epochs} epochs)"
    )
    warn_user(
        f"OneCycleLR's total_steps={total} but this fit makes {makes} optimiser steps: the "
        "Trainer steps the scheduler after every batch, so total_steps counts batches: "
        "total_steps=epochs * len(train_loader) (or epochs=epochs, "
        f"steps_per_epoch=len(train_loader)). As it is, PyTorch stops the fit with a "
        f"ValueError after {total} steps",
        UserWarning,
    )


def parse_device(device: object) -> torch.device:
    if isinstance(device, bool) or not isinstance(device, (str, torch.device, int)):
        fix = (
            ": pass the scheduler as scheduler=..."
            if callable(getattr(device, "step", None))
            else ""
        )
        raise TypeError(
            f"device must be a device such as 'cpu' or 'cuda', got {type_name(device)}{fix}"
        )
    try:
        parsed = torch.device(device)
    except RuntimeError as err:
        raise ValueError(
            f"device must be a device such as 'cpu', 'cuda' or 'cuda:1', got {device!r}"
        ) from err
    if parsed.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(
            f"device={str(device)!r} asks for a CUDA GPU, but none is available here: pass "
            "device='cpu', or leave device out to use default_device()"
        )
    return parsed


def check_number(value: object, name: str) -> None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, Real)):
        raise TypeError(f"{name} must be a number, got {type_name(value)}")


def check_ignore_index(ignore_index: object) -> None:
    if ignore_index is not None and (
        isinstance(ignore_index, bool) or not isinstance(ignore_index, (int, np.integer))
    ):
        raise TypeError(
            f"ignore_index must be the padding id (an int, e.g. PAD) or None, got "
            f"{type_name(ignore_index)}"
        )


def check_mixed_precision(mixed_precision: object) -> None:
    """A switch, True or False: ``bool("bf16")`` would switch it on whatever the string."""
    if not isinstance(mixed_precision, (bool, np.bool_)):
        raise TypeError(
            f"mixed_precision must be True or False (a bool), got "
            f"{type_name(mixed_precision)}. It is an on/off switch, not a dtype: "
            "mixed_precision=True runs the forward passes in bfloat16 autocast on a GPU (and "
            "does nothing on the CPU)"
        )


def check_hook(hook: object, name: str = "on_epoch_end") -> None:
    """An end-of-epoch hook is called as ``hook(trainer)``: refuse one that is not callable
    or cannot take that one argument, before the first epoch (not after it)."""
    if hook is None:
        return
    if not callable(hook):
        raise TypeError(f"{name} must be a function {name}(trainer), got {type_name(hook)}")
    try:
        signature = inspect.signature(hook)
    except (TypeError, ValueError):  # a builtin without a signature: let the call tell
        return
    try:
        signature.bind(None)
    except TypeError as err:
        label = getattr(hook, "__name__", "")
        label = label if label.isidentifier() else name
        params = list(signature.parameters)
        takes = "takes no argument" if not params else f"cannot be called with one ({err})"
        raise TypeError(
            f"{name} is called as {name}(trainer) after every epoch, with the Trainer as its "
            f"one argument, but {label}{call_signature(signature)} {takes}. Give it that parameter: "
            f"def {label}(trainer): ... (trainer.losses[-1], trainer.epochs and "
            "trainer.model are there)"
        ) from None


def check_model_device(model: nn.Module, device: torch.device) -> None:
    """The model is still on the Trainer's device (moving it off breaks the batches)."""
    param = next(model.parameters(), None)
    if param is None:
        return
    here = param.device
    if here.type != device.type or (device.index is not None and here.index != device.index):
        raise ValueError(
            f"the model is on {here}, but this Trainer runs on {device} (the model "
            "was moved after the Trainer was built): move it back, "
            "trainer.model.to(trainer.device)"
        )


def check_path(path: object) -> Path:
    check_type(path, "path", (str, os.PathLike), "a file path (a str or Path)")
    return Path(path)


# -- checks of a checkpoint, before anything is restored ---------------------------------


def check_checkpoint(trainer: object, path: Path, state: object) -> None:
    """Raise unless ``state`` restores into this Trainer entirely (checked first, as
    ``load_state_dict`` copies the weights that fit before it reports the others)."""
    keys = ("model", "optimizer", "scheduler", "losses", "val_losses", "learning_rates")
    keys += ("seconds",)
    if not isinstance(state, Mapping) or not all(k in state for k in keys):
        bare = isinstance(state, Mapping) and all(isinstance(v, Tensor) for v in state.values())
        raise ValueError(
            f"{path} is not a Trainer checkpoint"
            + (
                ": it holds a model's state_dict; load it with "
                "trainer.model.load_state_dict(torch.load(path))"
                if bare and state
                else f" (it holds {type_name(state)}): save one with save_checkpoint"
            )
        )
    own, saved = trainer.model.state_dict(), state["model"]
    missing = [k for k in own if k not in saved]
    extra = [k for k in saved if k not in own]
    resized = [
        f"{k} {shape_str(saved[k])} saved, {shape_str(own[k])} here"
        for k in own
        if k in saved and saved[k].shape != own[k].shape
    ]
    if missing or extra or resized:
        details = "; ".join(
            f"{what}: {', '.join(names[:3])}{', ...' if len(names) > 3 else ''}"
            for what, names in (
                ("missing from the file", missing),
                ("not in this model", extra),
                ("other shapes", resized),
            )
            if names
        )
        raise ValueError(
            f"{path} holds the weights of another model or configuration ({details}). "
            "Build the model as the saved one was built; nothing was loaded"
        )
    if (state["scheduler"] is None) != (trainer.scheduler is None):
        saved_with = "without" if state["scheduler"] is None else "with"
        raise ValueError(
            f"the checkpoint was saved {saved_with} a scheduler and this Trainer "
            f"{'has' if trainer.scheduler is not None else 'has none'}: build the Trainer "
            "as the saved one was built; nothing was loaded"
        )
    _check_saved_optimizer(trainer.optimizer, path, state["optimizer"])


def _check_saved_optimizer(optimizer: torch.optim.Optimizer, path: Path, saved: object) -> None:
    groups = optimizer.param_groups
    saved_groups = saved.get("param_groups") if isinstance(saved, Mapping) else None
    fits = isinstance(saved_groups, list) and len(saved_groups) == len(groups)
    # another kind of optimizer has settings of its own on both sides (SGD's momentum,
    # Adam's betas); another torch release only adds some on one side
    fits = fits and all(
        len(g["params"]) == len(s["params"])
        and not (set(g) - set(s) - {"initial_lr"} and set(s) - set(g) - {"initial_lr"})
        for g, s in zip(groups, saved_groups, strict=True)
    )
    if not fits:
        raise ValueError(
            f"{path} holds the state of another optimizer (another kind, or other "
            f"parameter groups) than this Trainer's {type(optimizer).__name__}: "
            "build the optimizer as the saved one was built; nothing was loaded"
        )
