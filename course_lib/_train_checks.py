"""The Trainer's argument checks: the wrong kind of object, a stale optimizer, a loader that is
not one, a loss that cannot train, a checkpoint that does not fit -- each named in the user's
words with the fix, before anything runs or is restored (package-private; see
:mod:`course_lib.train`)."""

from __future__ import annotations

import inspect
import os
from collections.abc import Iterable, Iterator, Mapping
from numbers import Real
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.optim.lr_scheduler import ReduceLROnPlateau
from torch.utils.data import DataLoader, Dataset

from course_lib._validate import (
    check_type,
    shape_str,
    type_name,
    warn_user,
)

_ORDER = "The order is Trainer(model, loss_fn, optimizer)"


def _check_model(model: object) -> None:
    if isinstance(getattr(model, "model", None), nn.Module):  # a Trainer, even a reloaded one
        fix = "Pass its model, trainer.model, or keep training that Trainer: trainer.fit(...)"
    elif isinstance(model, type):
        fix = f"Build one first, model = {model.__name__}(...), and pass that"
    elif isinstance(model, torch.optim.Optimizer):
        fix = _ORDER
    else:
        fix = "Pass the model to train, e.g. nn.Linear(3, 1)"
    check_type(model, "model", nn.Module, "a torch.nn.Module (the model to train)", fix)


def _check_loss_fn(loss_fn: object) -> None:
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


def _check_optimizer(optimizer: object) -> None:
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


def _check_same_parameters(model: nn.Module, optimizer: torch.optim.Optimizer) -> None:
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


def _check_scheduler(scheduler: object, optimizer: torch.optim.Optimizer) -> None:
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


def _parse_device(device: object) -> torch.device:
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


def _check_number(value: object, name: str) -> None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, Real)):
        raise TypeError(f"{name} must be a number, got {type_name(value)}")


def _check_ignore_index(ignore_index: object) -> None:
    if ignore_index is not None and (
        isinstance(ignore_index, bool) or not isinstance(ignore_index, (int, np.integer))
    ):
        raise TypeError(
            f"ignore_index must be the padding id (an int, e.g. PAD) or None, got "
            f"{type_name(ignore_index)}"
        )


def _check_mixed_precision(mixed_precision: object) -> None:
    """A switch, True or False: ``bool("bf16")`` would switch it on whatever the string."""
    if not isinstance(mixed_precision, (bool, np.bool_)):
        raise TypeError(
            f"mixed_precision must be True or False (a bool), got "
            f"{type_name(mixed_precision)}. It is an on/off switch, not a dtype: "
            "mixed_precision=True runs the forward passes in bfloat16 autocast on a GPU (and "
            "does nothing on the CPU)"
        )


def _check_loader(loader: object, name: str, passes: int) -> None:
    """Batches ``(*inputs, target)`` to iterate ``passes`` times: a DataLoader, a
    PairBatches, a list of batches -- not a dataset, a tensor or one batch."""
    if isinstance(loader, Dataset):
        shuffle = ", shuffle=True" if name == "train_loader" else ""
        fix = f"Wrap it in batches: DataLoader(dataset, batch_size=32{shuffle})"
        raise TypeError(f"{name} must be a DataLoader, got {type_name(loader)}. {fix}")
    if isinstance(loader, (Tensor, np.ndarray)):
        raise TypeError(
            f"{name} must be a DataLoader of (*inputs, target) batches, got "
            f"{type_name(loader)}: build one, DataLoader(TensorDataset(x, y), batch_size=32)"
        )
    one_batch = isinstance(loader, (tuple, list)) and len(loader) >= 2
    if one_batch and all(isinstance(b, Tensor) for b in loader):
        raise TypeError(
            f"{name} must be batches (*inputs, target), got {type_name(loader)}: that is one "
            f"batch; pass a list of batches, [{name}], or a DataLoader"
        )
    if isinstance(loader, (str, bytes, Real)) or not isinstance(loader, Iterable):
        hint = (
            f" Did you mean epochs={loader}? fit(train_loader, val_loader=None, epochs=1)"
            if isinstance(loader, int) and name == "val_loader"
            else ""
        )
        raise TypeError(f"{name} must be a DataLoader, got {type_name(loader)}.{hint}")
    _refuse_unpadded_ids(loader, name)
    if passes > 1 and isinstance(loader, Iterator):
        raise TypeError(
            f"{name} is an iterator ({type_name(loader)}), which is used up after one pass: "
            f"it would be read {passes} times. Pass a DataLoader or a list of batches"
        )
    _check_not_empty(loader, name)


def _refuse_unpadded_ids(loader: object, name: str) -> None:
    """A DataLoader over encoded ``(source ids, target ids)`` pairs with the default collate:
    it cannot pad sentences of different lengths (an error at the first uneven batch) and
    turns even ones into lists of one tensor per position. Translation pairs go in
    :class:`~course_lib.vocab.PairBatches`. Looks at the dataset's first item only."""
    if not isinstance(loader, DataLoader):
        return
    if getattr(loader.collate_fn, "__name__", "") != "default_collate":
        return
    dataset = loader.dataset
    if not isinstance(dataset, (list, tuple)) or not dataset:
        return
    first = dataset[0]
    if not (
        isinstance(first, (tuple, list))
        and len(first) == 2
        and all(
            isinstance(ids, (list, tuple))
            and ids
            and all(isinstance(i, (int, np.integer)) and not isinstance(i, bool) for i in ids)
            for ids in first
        )
    ):
        return
    size = loader.batch_size or 1
    raise TypeError(
        f"{name} is a DataLoader over {type_name(dataset)}: encoded (source ids, target ids) "
        "pairs, which its default collate cannot pad into batches (sentences differ in "
        "length) -- it would hand the model lists of one tensor per position. Batch them "
        f"with PairBatches (course_lib.vocab), which pads each batch into (src, tgt_in, "
        f"tgt_out): PairBatches(ids, batch_size={size}"
        + (", shuffle=True)" if name == "train_loader" else ")")
    )


def _check_not_empty(loader: object, name: str) -> None:
    """A loader with a length of 0 yields no batch: say so before any epoch runs (a loader
    without a length, an iterator or an iterable dataset, is checked after its epoch)."""
    try:
        batches = len(loader)  # type: ignore[arg-type]
    except TypeError:
        return
    if batches:
        return
    dataset = getattr(loader, "dataset", None)
    try:
        items = len(dataset) if dataset is not None else None  # type: ignore[arg-type]
    except TypeError:
        items = None
    if items:  # items, but fewer than a batch, all dropped
        size = getattr(loader, "batch_size", None)
        why = (
            f"its dataset holds {items} item(s), fewer than batch_size={size}, and "
            "drop_last=True drops the incomplete batch: lower batch_size, or leave "
            "drop_last out"
        )
    elif items == 0:
        why = (
            "its dataset is empty, 0 items: the data it was built from holds nothing (a "
            "selection or filter that kept no rows? check it, e.g. len(...), before building "
            "the datasets)"
        )
    else:
        why = f"{type_name(loader)} is empty: give it at least one batch (*inputs, target)"
    raise ValueError(f"{name} has no batches, so there is nothing to train on: {why}")


def _check_hook(hook: object, name: str = "on_epoch_end") -> None:
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
            f"one argument, but {label}{_names(signature)} {takes}. Give it that parameter: "
            f"def {label}(trainer): ... (trainer.losses[-1], trainer.epochs and "
            "trainer.model are there)"
        ) from None


def _names(signature: inspect.Signature) -> str:
    """``(queries, keys, values)``: the parameters as a call shows them."""
    return str(
        signature.replace(
            parameters=[
                p.replace(annotation=inspect.Parameter.empty, default=inspect.Parameter.empty)
                for p in signature.parameters.values()
            ],
            return_annotation=inspect.Signature.empty,
        )
    )


def _check_inputs(inputs: tuple) -> None:
    """``predict``'s inputs: tensors (other arguments pass), not a loader or a list, nor a
    bool (a keyword's value passed positionally: ``predict(source, True)``)."""
    for k, x in enumerate(inputs):
        if isinstance(x, (bool, np.bool_)) and k > 0:
            raise TypeError(
                f"predict passes its positional arguments to the model as inputs, but input "
                f"{k} is {x!r}: a setting passed positionally (it would reach the model as "
                f"an input, e.g. its target). Pass it by name, trainer.predict(source, "
                f"need_weights={x!r}): keyword arguments go to the model's forward as they are"
            )
        if isinstance(x, (DataLoader, Dataset)):
            raise TypeError(
                f"predict takes the model's input tensors, but input {k} is "
                f"{type_name(x)}: pass the tensors, trainer.predict(test_source); for the "
                "loss over a loader, trainer.evaluate(loader)"
            )
        if isinstance(x, np.ndarray):
            raise TypeError(
                f"predict takes tensors, but input {k} is a NumPy array {x.shape}: convert "
                "it, torch.from_numpy(x).float()"
            )
        if isinstance(x, (list, tuple)):
            if len(inputs) == 1 and len(x) >= 2 and all(isinstance(t, Tensor) for t in x):
                fix = (
                    "if it is a batch (*inputs, target) from a loader, pass its inputs "
                    "without the target, trainer.predict(*batch[:-1]) (for a (source, "
                    "target) batch, trainer.predict(source)); if it holds only the model's "
                    "inputs, unpack it, trainer.predict(*inputs)"
                )
            elif x and all(isinstance(t, Tensor) for t in x):
                fix = "pass them as separate arguments, trainer.predict(*inputs)"
            else:
                fix = "convert it to a tensor, torch.tensor(x)"
            raise TypeError(f"predict takes tensors, but input {k} is {type_name(x)}: {fix}")


def _check_class_target(loss_fn: object, target: object) -> None:
    """PyTorch's cross-entropy reads a float target as class probabilities (soft labels):
    one with values below 0 or above 1 -- coordinates, a regression target -- cannot be
    that. Reads the first batch's target once per fit."""
    ce = isinstance(loss_fn, nn.CrossEntropyLoss) or loss_fn is F.cross_entropy
    if not ce or not isinstance(target, Tensor) or not torch.is_floating_point(target):
        return
    if not target.numel():
        return
    low, high = float(target.min()), float(target.max())
    if low >= 0.0 and high <= 1.0:
        return
    name = "nn.CrossEntropyLoss()" if isinstance(loss_fn, nn.Module) else "F.cross_entropy"
    raise ValueError(
        f"loss_fn={name} is a classification loss, and it reads a float target as class "
        f"probabilities, but the target {shape_str(target)} {target.dtype} holds values from "
        f"{low:.3g} to {high:.3g}, not probabilities in [0, 1]: a regression target "
        "(coordinates, points). For a regression pass loss_fn=nn.MSELoss(); for a "
        "classification the target holds class indices (torch.long) and the model's output "
        "the class scores"
    )


def _explain_model_failure(err: RuntimeError, inputs: tuple, target: object) -> None:
    """A shape error inside the model on the fit's first batch, whose batch has several
    inputs: name how the batch was split, since a dataset whose target is not its last
    item ((X, y) first, TensorDataset(x, y, keys, values)) fails just so."""
    if isinstance(err, torch.cuda.OutOfMemoryError) or len(inputs) < 2:
        return
    if not any(word in str(err).lower() for word in ("size", "shape", "dimension")):
        return
    shapes = ", ".join(shape_str(x) if isinstance(x, Tensor) else type_name(x) for x in inputs)
    kept = shape_str(target) if isinstance(target, Tensor) else type_name(target)
    raise RuntimeError(
        f"the model failed on the fit's first batch with a shape error (the error above). "
        f"The Trainer splits every batch as (*inputs, target): it called the model with the "
        f"batch's first {len(inputs)} items as inputs, {shapes}, and kept its last item, "
        f"{kept}, as the target. If the target is not the dataset's last tensor (the (X, y) "
        "habit, TensorDataset(x, y, keys, values)), put it last: TensorDataset(x, keys, "
        "values, y), in the order of the model's forward; otherwise the error is in the "
        "model's forward"
    ) from err


def _warn_ignore_index_on_floats(ignore_index: int | None, target: object) -> None:
    """``ignore_index`` names a padding token id; a float target (a regression) has none,
    and the epoch's mean would then weight each batch by its values that differ from it."""
    if ignore_index is None or not isinstance(target, Tensor):
        return
    if torch.is_floating_point(target):
        warn_user(
            f"Trainer(ignore_index={ignore_index}) is for targets of token ids (integer "
            f"class indices, e.g. ignore_index=PAD), but the target is {type_name(target)}, "
            f"a float regression target: the epoch's loss would weight each batch by its "
            f"values != {ignore_index}, ordinary numbers here. Leave ignore_index out "
            "(None) for a regression",
            UserWarning,
        )


def _nan_in_batches(loader: Iterable) -> str | None:
    """What the first batch with a NaN holds it in (``"the target"``), ``""`` when no
    batch does, ``None`` when the loader cannot be read again (an iterator, odd batches).
    Read once, only after an epoch's loss came out NaN."""
    if isinstance(loader, Iterator):  # used up by the epoch: nothing left to read
        return None
    for batch in loader:
        if not isinstance(batch, (tuple, list)) or len(batch) < 2:
            return None
        items = [*((f"input {k}", x) for k, x in enumerate(batch[:-1])), ("target", batch[-1])]
        bad = [
            name
            for name, x in items
            if isinstance(x, Tensor) and x.is_floating_point() and bool(torch.isnan(x).any())
        ]
        if bad:
            return f"the {' and the '.join(bad)}"
    return ""


def _nan_loss_message(which: str, loss: float, epoch: int, loader: Iterable) -> str:
    """What a NaN (or infinite) epoch loss means, with the data scanned for NaN once."""
    found = _nan_in_batches(loader) if loss != loss else None  # NaN, not an infinity
    diverged = (
        "lower the learning rate (or clip the gradients, clip_grad_norm=1.0) if the training "
        "diverged"
    )
    if found:
        cause = (
            f"the data holds NaN, in {found} of a batch: clean it first, e.g. drop the "
            "samples where torch.isnan(target).any()"
        )
    elif found == "":
        cause = (
            f"the data holds no NaN, so the model or the loss made it: {diverged}, or look "
            "for a log of 0 or a softmax over only -inf in the model"
        )
    else:
        cause = f"check the data for NaN (torch.isnan(target).any(), and the inputs), or {diverged}"
    shown = "NaN" if loss != loss else loss
    weights = (
        "; the model's weights may be NaN now, so rebuild the model and its optimizer before "
        "training again"
        if which == "training"
        else ""
    )
    return (
        f"the {which} loss is {shown} at epoch {epoch}: {cause}. The training was stopped{weights}"
    )


def _check_batch_items(inputs: tuple, target) -> None:
    """An epoch's first batch holds tensors, not lists of numbers."""
    for name, item in [*((f"input {k}", x) for k, x in enumerate(inputs)), ("target", target)]:
        if isinstance(item, (list, tuple)) and item and isinstance(item[0], (Real, list)):
            raise TypeError(
                f"the batch's {name} is {type_name(item)}, not a tensor: build the "
                "batches from tensors, DataLoader(TensorDataset(torch.tensor(x), "
                "torch.tensor(y)), batch_size=32)"
            )


def _check_loss(loss, train: bool) -> None:
    """An epoch's first loss is one number, with a gradient when training."""
    if not isinstance(loss, Tensor):
        raise TypeError(
            f"loss_fn must return a tensor, got {type_name(loss)}: return the loss "
            "itself, not loss.item() or a float"
        )
    if loss.ndim != 0:
        raise ValueError(
            f"loss_fn returned a tensor of shape {shape_str(loss)}, not one number: "
            "average it, with reduction='mean' (the losses' default) or loss.mean()"
        )
    if train and not loss.requires_grad:
        raise ValueError(
            "the loss has no gradient, so no weight can change: loss_fn detached it "
            "(.item(), .detach(), torch.tensor(...), numpy), or every parameter of the "
            "model is frozen (requires_grad=False)"
        )


def _explain_loss_error(err: Exception, output: object, target: object = None) -> None:
    """Name the likely cause when the loss fails: a model that returns ``(output,
    weights)`` (``need_weights=True``) trained as it is, or scores ``(B, T, V)`` given to
    PyTorch's cross-entropy, which reads the classes from dimension 1."""
    if isinstance(output, (tuple, list)) and isinstance(err, (TypeError, AttributeError)):
        raise TypeError(
            f"loss_fn(output, target) failed because the model returned "
            f"{type_name(output)}, not one output tensor: does its forward return "
            "(output, weights)? Train it with need_weights=False, or make forward return the "
            "prediction alone"
        ) from err
    if (
        isinstance(err, (RuntimeError, ValueError))
        and isinstance(output, Tensor)
        and isinstance(target, Tensor)
        and output.ndim >= 3
        and not target.is_floating_point()
        and output.shape[:-1] == target.shape
    ):
        V = output.shape[-1]
        raise ValueError(
            f"loss_fn(output, target) failed on the model's output (B, T, V) = "
            f"{shape_str(output)}, class scores in the last dimension, for the target (B, T) = "
            f"{shape_str(target)} of class indices: PyTorch's cross-entropy "
            f"(nn.CrossEntropyLoss, F.cross_entropy, nn.NLLLoss) reads the classes from "
            f"dimension 1, (B, V, T). For token targets pass loss_fn=translation_loss "
            f"(course_lib.translation, <pad> ignored) with Trainer(..., ignore_index=PAD), or "
            f"flatten the positions into the batch: loss_fn=lambda output, target: "
            f"F.cross_entropy(output.reshape(-1, {V}), target.reshape(-1), ignore_index=PAD)"
        ) from err


def _explain_model_call(err: TypeError, model: nn.Module, inputs: tuple) -> None:
    """A TypeError from ``model(*inputs)`` whose inputs do not fit ``forward``'s signature
    (Python refused the call itself): how a batch ``(*inputs, target)`` is split, and
    whether the dataset lacks its target or holds an item too many."""
    try:
        signature = inspect.signature(model.forward)
    except (AttributeError, TypeError, ValueError):  # no signature to read
        return
    if _binds(signature, inputs):  # the inputs fit: the TypeError came from inside forward
        return
    n = len(inputs)
    shown = f"{type(model).__name__}.forward{_names(signature)}"
    split = (
        f"every batch is (*inputs, target): the Trainer calls model(*batch[:-1]) and keeps "
        f"the last item of the batch as the target of loss_fn(output, target), so a batch of "
        f"{n + 1} items gives the model {n} input{'s' if n != 1 else ''}"
    )
    if _binds(signature, (*inputs, None)):
        names = [p.name for p in signature.parameters.values()][: n + 1]
        fix = (
            f"{shown} needs {n + 1}: the dataset lacks its target, and its last item was "
            f"taken for it. Put the target last, TensorDataset({', '.join(names)}, target)"
        )
    elif n > 1 and _binds(signature, inputs[:-1]):
        fix = (
            f"{shown} takes {n - 1}: the dataset holds an item too many. Keep only the "
            f"model's inputs and the target (last), or accept the extra input in forward"
        )
    else:
        fix = f"they do not fit {shown} ({err})"
    raise TypeError(f"the model cannot be called with the batch's inputs: {split}; {fix}") from err


def _binds(signature: inspect.Signature, args: tuple) -> bool:
    try:
        signature.bind(*args)
    except TypeError:
        return False
    return True


def _check_model_device(model: nn.Module, device: torch.device) -> None:
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


def _check_path(path: object) -> Path:
    check_type(path, "path", (str, os.PathLike), "a file path (a str or Path)")
    return Path(path)


# -- checks of a checkpoint, before anything is restored ---------------------------------


def _check_checkpoint(trainer: object, path: Path, state: object) -> None:
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
