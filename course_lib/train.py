"""The book's one training loop: fit, evaluate, predict, checkpoint.

The ``Trainer`` is deliberately plain -- one loop you can read in a minute -- with the
things a course needs: a tqdm progress bar, the loss history, a device chosen once,
reproducible shuffling, and a ``predict`` that cannot leave the model in the wrong mode.
Every chapter trains with it, the squares' regressions and Chapter 5's translation recipe
alike (a learning-rate schedule stepped per optimiser step, gradient clipping, a loss per
token, bfloat16 on a GPU, and an end-of-epoch hook for validation and snapshots), and so do
the benchmarks.

Batches: every batch a loader yields is a tuple ``(*inputs, target)``. The model is called
as ``model(*inputs)`` and the loss as ``loss_fn(output, target)``. A sequence-to-sequence
training set can therefore hand the target to the model as an input (for teacher forcing)
while its validation set hands over the source alone.
"""

from __future__ import annotations

import contextlib
import functools
import os
import secrets
import sys
import time
import warnings
import zipfile
from collections.abc import Callable, Iterable, Iterator, Mapping
from numbers import Real
from pathlib import Path

import numpy as np
import torch
from torch import Tensor, nn
from torch.optim.lr_scheduler import ReduceLROnPlateau
from torch.utils.data import DataLoader, Dataset
from tqdm.std import tqdm

from course_lib._validate import (
    check_course_device,
    check_positive_int,
    check_seed,
    check_type,
    shape_str,
    type_name,
)

__all__ = ["default_device", "clock", "evaluating", "Trainer"]


@functools.lru_cache(maxsize=1)
def default_device() -> torch.device:
    """The device every chapter uses: the first GPU if there is one, else the CPU.

    Chosen once per process. Set ``COURSE_DEVICE=cpu`` (or ``cuda``, ``cuda:1``) to override.
    Apple's MPS is not offered: the book is verified on the CPU and CUDA only.

    Raises:
        ValueError: ``COURSE_DEVICE`` is not ``cpu``, ``cuda`` or ``cuda:N``, or names a GPU
            this machine lacks; the message says what was set and what to set instead.
    """
    requested = os.environ.get("COURSE_DEVICE", "")
    if requested.strip():
        return check_course_device(requested)
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def clock(device: torch.device | str) -> float:
    """A clock for training time: CPU seconds of this process on the CPU (what one thread
    spends, whatever else the machine runs), wall seconds on a GPU (after waiting for the
    queued kernels). Differences of two readings are durations."""
    if torch.device(device).type == "cuda":
        torch.cuda.synchronize()
        return time.perf_counter()
    return time.process_time()


@contextlib.contextmanager
def evaluating(model: nn.Module) -> Iterator[nn.Module]:
    """Eval mode and no gradients inside the ``with`` block; the model's train/eval mode is
    put back afterwards, whatever it was (and whatever happens inside).

    Raises:
        TypeError: ``model`` is not a module (a Trainer: pass ``trainer.model``).
    """
    trainer = isinstance(getattr(model, "model", None), nn.Module)
    fix = "Pass the Trainer's model, evaluating(trainer.model)" if trainer else ""
    check_type(model, "model", nn.Module, "a torch.nn.Module", fix)
    was_training = model.training
    model.eval()
    try:
        with torch.no_grad():
            yield model
    finally:
        model.train(was_training)


def _to(obj, device: torch.device):
    """Move tensors, also inside tuples, lists and dicts, to ``device``."""
    if isinstance(obj, Tensor):
        return obj.to(device)
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):  # a NamedTuple batch
        return type(obj)(*(_to(o, device) for o in obj))
    if isinstance(obj, (tuple, list)):
        return type(obj)(_to(o, device) for o in obj)
    if isinstance(obj, dict):
        return {key: _to(value, device) for key, value in obj.items()}
    return obj


# -- checks of the arguments, once per call ----------------------------------------------

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
        raise TypeError(
            f"scheduler must be a learning-rate scheduler (see course_lib.schedules), got "
            f"{type_name(scheduler)}"
        )
    if getattr(scheduler, "optimizer", None) is not optimizer:
        raise ValueError(
            "the scheduler must be built on the same optimizer as the Trainer: create it "
            "after the optimizer, on that one, e.g. warmup_inverse_sqrt(optimizer, warmup)"
        )


def _parse_device(device: object) -> torch.device:
    if device is None:
        return default_device()
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
    if passes > 1 and isinstance(loader, Iterator):
        raise TypeError(
            f"{name} is an iterator ({type_name(loader)}), which is used up after one pass: "
            f"it would be read {passes} times. Pass a DataLoader or a list of batches"
        )


def _check_inputs(inputs: tuple) -> None:
    """``predict``'s inputs: tensors (other arguments pass), not a loader or a list."""
    for k, x in enumerate(inputs):
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
            fix = (
                "pass them as separate arguments, trainer.predict(*inputs)"
                if x and all(isinstance(t, Tensor) for t in x)
                else "convert it to a tensor, torch.tensor(x)"
            )
            raise TypeError(f"predict takes tensors, but input {k} is {type_name(x)}: {fix}")


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


def _explain_loss_error(err: Exception, output: object) -> None:
    """Name the likely cause when the loss fails on a model's tuple output: a model that
    returns ``(output, weights)`` (``need_weights=True``) trained as it is."""
    if isinstance(output, (tuple, list)) and isinstance(err, (TypeError, AttributeError)):
        raise TypeError(
            f"loss_fn(output, target) failed because the model returned "
            f"{type_name(output)}, not one output tensor: does its forward return "
            "(output, weights)? Train it with need_weights=False, or make forward return the "
            "prediction alone"
        ) from err


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


class Trainer:
    """Fit a model with an optimizer and keep its loss history.

    Args:
        model: the module to train; moved to ``device``.
        loss_fn: ``loss_fn(output, target) -> scalar tensor``.
        optimizer: built on ``model.parameters()``.
        device: where to train; defaults to :func:`default_device`.
        clip_grad_norm: clip the gradients' global norm to this value before each step.
        scheduler: a learning-rate scheduler stepped after **every** optimiser step (see
            :mod:`course_lib.schedules`), not once per epoch.
        ignore_index: for padded token targets. The loss function should average over the
            real tokens of a batch (``F.cross_entropy(..., ignore_index=PAD)`` does); the
            epoch's mean then weights each batch by its number of real tokens, so it is a
            mean **per token**. Without it, batches are weighted by their number of samples.
        mixed_precision: on a GPU, run forward passes in bfloat16 autocast (no gradient
            scaler needed); on the CPU it does nothing, so the same notebook runs on both.

    Raises:
        TypeError: the wrong kind of object for an argument: a Trainer or a class where a
            model is expected, a loss class (``nn.CrossEntropyLoss`` instead of
            ``nn.CrossEntropyLoss()``), a model or a scheduler where an optimizer is, ...
            The message names the fix.
        ValueError: an optimizer that holds none of the model's parameters (built on
            another model), a scheduler on another optimizer or a ``ReduceLROnPlateau``
            (it needs the validation loss: step it yourself), a device that is not
            available, a ``clip_grad_norm`` that is not positive.

    Attributes:
        losses: mean training loss of every epoch (per sample, or per token).
        val_losses: mean validation loss of every epoch, when a validation loader is given.
        learning_rates: the learning rate of every optimiser step, when a scheduler is given.
        seconds: training time (see :func:`clock`) up to the end of every epoch, cumulative;
            validation and the end-of-epoch hook are not counted.
        stop_training: set it to ``True`` in an ``on_epoch_end`` hook to end :meth:`fit`
            after this epoch (a time budget, early stopping).
    """

    def __init__(
        self,
        model: nn.Module,
        loss_fn: Callable[[Tensor, Tensor], Tensor],
        optimizer: torch.optim.Optimizer,
        device: torch.device | str | None = None,
        *,
        clip_grad_norm: float | None = None,
        scheduler: torch.optim.lr_scheduler.LRScheduler | None = None,
        ignore_index: int | None = None,
        mixed_precision: bool = False,
    ) -> None:
        _check_model(model)
        _check_loss_fn(loss_fn)
        _check_optimizer(optimizer)
        _check_same_parameters(model, optimizer)
        _check_scheduler(scheduler, optimizer)
        _check_number(clip_grad_norm, "clip_grad_norm")
        if clip_grad_norm is not None and not clip_grad_norm > 0:
            raise ValueError(f"clip_grad_norm must be positive, got {clip_grad_norm}")
        _check_ignore_index(ignore_index)
        self.device = _parse_device(device)
        self.model = model.to(self.device)
        if isinstance(loss_fn, nn.Module):  # its buffers (class weights) go along
            loss_fn = loss_fn.to(self.device)
        self.loss_fn = loss_fn
        self.optimizer = optimizer
        self.clip_grad_norm = clip_grad_norm
        self.scheduler = scheduler
        self.ignore_index = ignore_index
        self.mixed_precision = bool(mixed_precision) and self.device.type == "cuda"
        self.losses: list[float] = []
        self.val_losses: list[float] = []
        self.learning_rates: list[float] = []
        self.seconds: list[float] = []
        self.stop_training = False

    @property
    def epochs(self) -> int:
        """Number of epochs trained so far."""
        return len(self.losses)

    def _split(self, batch) -> tuple[tuple, Tensor]:
        if not isinstance(batch, (tuple, list)) or len(batch) < 2:
            raise ValueError(
                "each batch must be a tuple (*inputs, target) with at least one input, got "
                f"{type_name(batch)}; build the dataset as TensorDataset(inputs, target)"
            )
        batch = _to(batch, self.device)
        return tuple(batch[:-1]), batch[-1]

    @staticmethod
    def _check_output(output: Tensor, target: Tensor) -> None:
        """Refuse output/target pairs a loss would silently broadcast.

        A floating-point target (regression, soft labels) must have the output's shape: a
        loss would broadcast ``(B, 1)`` against ``(B,)`` into ``(B, B)`` and pair the wrong
        elements, with a warning only. An integer target holds class indices: the output has
        one more dimension (the classes) and the same batch size.
        """
        if not (isinstance(output, Tensor) and isinstance(target, Tensor)):
            return
        if torch.is_floating_point(target):
            if output.shape != target.shape:
                raise ValueError(
                    f"the model's output {shape_str(output)} and the target "
                    f"{shape_str(target)} differ in shape: the loss would broadcast them and "
                    "compare the wrong elements. Make the model return the target's shape "
                    "(e.g. output.squeeze(-1) for one value per sample)."
                )
        elif output.ndim != target.ndim + 1 or output.shape[0] != target.shape[0]:
            raise ValueError(
                f"the target {shape_str(target)} holds class indices, so the model's output "
                f"must have one more dimension (the class scores) and the same batch size, "
                f"got {shape_str(output)}"
            )

    def _weight(self, target: Tensor) -> int:
        if self.ignore_index is None:
            return len(target)
        return int((target != self.ignore_index).sum())

    def _step(self, loss: Tensor) -> None:
        self.optimizer.zero_grad()
        loss.backward()
        if self.clip_grad_norm is not None:
            nn.utils.clip_grad_norm_(self.model.parameters(), self.clip_grad_norm)
        self.optimizer.step()
        if self.scheduler is not None:
            self.learning_rates.append(self.optimizer.param_groups[0]["lr"])
            self.scheduler.step()

    def _run_epoch(self, loader: Iterable, train: bool, bar: tqdm | None = None) -> float:
        total, count = 0.0, 0
        self.model.train(train)
        autocast = torch.autocast("cuda", dtype=torch.bfloat16, enabled=self.mixed_precision)
        first = True
        with torch.set_grad_enabled(train):
            for batch in loader:
                inputs, target = self._split(batch)
                if first:
                    _check_batch_items(inputs, target)
                with autocast:
                    output = self.model(*inputs)
                    self._check_output(output, target)
                    try:
                        loss = self.loss_fn(output, target)
                    except Exception as err:
                        _explain_loss_error(err, output)
                        raise
                if first:
                    _check_loss(loss, train)
                    first = False
                if train:
                    self._step(loss)
                weight = self._weight(target)
                total += loss.item() * weight
                count += weight
                if bar is not None:  # the running mean of this epoch so far
                    bar.set_postfix({"loss": f"{total / max(count, 1):.4f}"}, refresh=False)
        if count == 0:
            raise ValueError(
                "the data loader yielded no batches: is the dataset empty, or is it an "
                "iterator already used up?"
            )
        return total / count

    def evaluate(self, loader: Iterable) -> float:
        """Mean loss per sample over ``loader``, in eval mode and without gradients.

        The model's previous train/eval mode is restored afterwards.

        Raises:
            TypeError: ``loader`` is a dataset, a tensor or one batch, not batches.
            ValueError: the model was moved off the Trainer's device, or no batches.
        """
        _check_loader(loader, "loader", passes=1)
        _check_model_device(self.model, self.device)
        with evaluating(self.model):
            return self._run_epoch(loader, train=False)

    def fit(
        self,
        train_loader: Iterable,
        val_loader: Iterable | None = None,
        epochs: int = 1,
        seed: int | None = None,
        progress: bool = True,
        desc: str = "Training",
        on_epoch_end: Callable[[Trainer], dict[str, str] | None] | None = None,
    ) -> Trainer:
        """Train for ``epochs`` more epochs and return ``self``.

        Args:
            train_loader: batches ``(*inputs, target)``, iterated once per epoch: a
                ``DataLoader`` or a :class:`~course_lib.vocab.PairBatches`.
            val_loader: optional batches for the validation loss after every epoch.
            epochs: number of epochs to run (at most: see ``stop_training``).
            seed: when given, re-seeds PyTorch's global generator and the train loader's
                own ``generator`` (if it has one) so shuffling, dropout and
                teacher-forcing coins are the same on every run.
            progress: show a tqdm progress bar with the running loss of the epoch, then
                its final training and validation losses.
            desc: label of the progress bar.
            on_epoch_end: called as ``on_epoch_end(trainer)`` after every epoch (and its
                validation loss), with the model in train mode afterwards; ``trainer.epochs``
                is the number of epochs done. For snapshots, other validation figures,
                timing and budgets. When it returns a dict, the progress bar shows that
                dict instead of the default losses.

        Raises:
            TypeError: a loader that is a ``Dataset`` (wrap it in a ``DataLoader``), a
                tensor, one batch, an iterator read more than once, or a number (``epochs``
                passed in ``val_loader``'s place); a loss function that returns no tensor;
                an ``on_epoch_end`` that is not callable or returns neither a dict nor None.
            ValueError: ``epochs`` not a positive integer, a bad seed, the model moved off
                the Trainer's device, a loss that is not one number or has no gradient.

        Warns:
            UserWarning: more than one optimiser step ran with a learning rate of 0 (a
                schedule whose ``total`` is shorter than the training): those steps
                changed nothing.
        """
        check_positive_int(epochs, "epochs")
        _check_loader(train_loader, "train_loader", passes=epochs)
        if val_loader is not None:
            _check_loader(val_loader, "val_loader", passes=epochs)
        if on_epoch_end is not None and not callable(on_epoch_end):
            raise TypeError(
                f"on_epoch_end must be a function on_epoch_end(trainer), got "
                f"{type_name(on_epoch_end)}"
            )
        _check_model_device(self.model, self.device)
        steps_before = len(self.learning_rates)
        if seed is not None:
            seed = check_seed(seed)
            torch.manual_seed(seed)
            generator = getattr(train_loader, "generator", None)
            if generator is not None:
                generator.manual_seed(seed)
        bar = tqdm(
            range(epochs),
            desc=desc,
            disable=not progress,
            file=sys.stdout,
            bar_format="{l_bar}{bar:10}| {n_fmt}/{total_fmt} epochs [{elapsed}{postfix}]",
        )
        self.stop_training = False
        for _ in bar:
            start = clock(self.device)
            self.losses.append(
                self._run_epoch(train_loader, train=True, bar=bar if progress else None)
            )
            spent = clock(self.device) - start
            self.seconds.append(spent + (self.seconds[-1] if self.seconds else 0.0))
            postfix = {"loss": f"{self.losses[-1]:.4f}"}  # 4 decimals: stable across runs
            if val_loader is not None:
                self.val_losses.append(self.evaluate(val_loader))
                postfix["val"] = f"{self.val_losses[-1]:.4f}"
            if on_epoch_end is not None:
                shown = on_epoch_end(self)
                if shown is not None and not isinstance(shown, Mapping):
                    raise TypeError(
                        f"on_epoch_end must return None or a dict of label -> value for the "
                        f"progress bar, got {type_name(shown)}: e.g. return "
                        "{'bleu': f'{bleu:.1f}'}"
                    )
                postfix = postfix if shown is None else shown
                self.model.train()
            bar.set_postfix(postfix, refresh=False)
            if self.stop_training:
                break
        bar.close()
        self._warn_idle_steps(self.learning_rates[steps_before:])
        return self

    @staticmethod
    def _warn_idle_steps(rates: list[float]) -> None:
        """A schedule that reached 0 before the training's end: the steps after it are lost
        (one step at 0, the last of a cosine that ends there, is expected)."""
        idle = sum(float(lr) == 0.0 for lr in rates)
        if idle > 1:
            warnings.warn(
                f"{idle} of this fit's {len(rates)} optimiser steps ran with a learning "
                "rate of 0 and changed nothing: the schedule ended before the training. A "
                "schedule counts optimiser steps, not epochs: total = epochs * "
                "len(train_loader)",
                stacklevel=3,
            )

    def predict(self, *inputs: Tensor, **kwargs):
        """Run the model in eval mode without gradients; return its output on the CPU.

        Keyword arguments go to the model (e.g. ``need_weights=True``). The model's previous
        train/eval mode is restored afterwards.

        Raises:
            TypeError: an input is a DataLoader or dataset, a NumPy array, or a list.
            ValueError: the model was moved off the Trainer's device.
        """
        _check_inputs(inputs)
        _check_model_device(self.model, self.device)
        with evaluating(self.model):
            output = self.model(*_to(inputs, self.device), **kwargs)
        return _to(output, torch.device("cpu"))

    def save_checkpoint(self, path: str | os.PathLike) -> None:
        """Save model, optimizer, scheduler and the histories (plain tensors and numbers), so
        a resumed run continues its learning-rate schedule where it stopped.

        The file is written under a temporary name and then renamed: an error (a full disk,
        an interrupted save) leaves an earlier checkpoint at ``path`` as it was.

        Raises:
            TypeError: ``path`` is not a path.
            FileNotFoundError: the folder of ``path`` does not exist.
            IsADirectoryError: ``path`` is a folder.
            FileExistsError: ``path`` is a file that is not a checkpoint (not written by
                ``torch.save``): it is not overwritten.
        """
        path = _check_path(path)
        if path.is_dir():
            raise IsADirectoryError(
                f"{path} is a folder: pass a file path inside it, e.g. {path / 'checkpoint.pt'}"
            )
        if not path.parent.is_dir():
            raise FileNotFoundError(
                f"the folder {path.parent} does not exist: create it first, "
                f"Path({str(path.parent)!r}).mkdir(parents=True), or save elsewhere"
            )
        if path.is_file() and path.stat().st_size and not zipfile.is_zipfile(path):
            raise FileExistsError(
                f"{path} exists and is not a checkpoint (torch.save writes zip archives): "
                "saving would overwrite it. Choose another file name, e.g. checkpoint.pt"
            )
        state = {
            "model": self.model.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "scheduler": None if self.scheduler is None else self.scheduler.state_dict(),
            "losses": list(self.losses),
            "val_losses": list(self.val_losses),
            "learning_rates": list(self.learning_rates),
            "seconds": list(self.seconds),
        }
        partial = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.partial")
        try:
            with open(partial, "xb") as f:  # a file object: the archive is named "archive"
                torch.save(state, f)
            os.replace(partial, path)
        finally:
            partial.unlink(missing_ok=True)

    def load_checkpoint(self, path: str | os.PathLike) -> None:
        """Restore what :meth:`save_checkpoint` saved, with ``torch.load(weights_only=True)``.

        Everything is checked before anything is restored: a checkpoint that does not fit
        this Trainer leaves its model, optimizer and histories as they were.

        Raises:
            TypeError: ``path`` is not a path.
            FileNotFoundError: no file at ``path``.
            IsADirectoryError: ``path`` is a folder.
            ValueError: the file is not a Trainer checkpoint (not written by ``torch.save``,
                or a model's bare ``state_dict``), or it is one of another model, another
                configuration, another optimizer, or saved with(out) a scheduler where this
                Trainer has none (one).
        """
        path = _check_path(path)
        if path.is_dir():
            found = sorted(p.name for p in path.glob("*.pt"))[:3]
            raise IsADirectoryError(
                f"{path} is a folder: pass the checkpoint file inside it"
                + (f", e.g. {path / found[0]} (it holds {', '.join(found)})" if found else "")
            )
        if not path.exists():
            raise FileNotFoundError(
                f"no checkpoint at {path}: check the path, or save one first with "
                "trainer.save_checkpoint(path)"
            )
        if not zipfile.is_zipfile(path):
            raise ValueError(
                f"{path} is not a checkpoint written by save_checkpoint (torch.save writes "
                "zip archives, and this file is not one): check the path"
            )
        try:
            state = torch.load(path, map_location=self.device, weights_only=True)
        except Exception as err:  # not a torch file, or one holding arbitrary objects
            raise ValueError(
                f"{path} is not a checkpoint written by save_checkpoint: {err}"
            ) from err
        _check_checkpoint(self, path, state)
        self.model.load_state_dict(state["model"])
        self.optimizer.load_state_dict(state["optimizer"])
        if self.scheduler is not None:
            self.scheduler.load_state_dict(state["scheduler"])
        self.losses = list(state["losses"])
        self.val_losses = list(state["val_losses"])
        self.learning_rates = list(state["learning_rates"])
        self.seconds = list(state["seconds"])


# -- checks of a checkpoint, before anything is restored ---------------------------------


def _check_checkpoint(trainer: Trainer, path: Path, state: object) -> None:
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
