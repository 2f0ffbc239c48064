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
import math
import os
import secrets
import sys
import time
import zipfile
from collections.abc import Callable, Iterable, Iterator, Mapping

import torch
from torch import Tensor, nn
from tqdm.std import tqdm

from course_lib._foreign_names import explains_bad_calls, explains_class
from course_lib._train_checks import (
    check_checkpoint,
    check_hook,
    check_ignore_index,
    check_loss_fn,
    check_mixed_precision,
    check_model,
    check_model_device,
    check_number,
    check_optimizer,
    check_path,
    check_same_parameters,
    check_scheduler,
    parse_device,
    warn_one_cycle_in_epochs,
)
from course_lib._train_data import (
    check_batch_items,
    check_class_target,
    check_inputs,
    check_loader,
    check_output,
    to_device,
    warn_ignore_index_on_floats,
)
from course_lib._train_failures import (
    check_loss,
    explain_loss_error,
    explain_model_call,
    explain_model_failure,
    nan_loss_message,
)
from course_lib._validate_basics import (
    check_course_device,
    check_positive_int,
    check_seed,
    check_type,
    type_name,
    warn_user,
)

__all__ = ["default_device", "clock", "evaluating", "Trainer"]


@functools.lru_cache(maxsize=1)
@explains_bad_calls()
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


@explains_bad_calls()
def clock(device: torch.device | str) -> float:
    """A clock for training time: CPU seconds of this process on the CPU (what one thread
    spends, whatever else the machine runs), wall seconds on a GPU (after waiting for the
    queued kernels). Differences of two readings are durations."""
    if torch.device(device).type == "cuda":
        torch.cuda.synchronize()
        return time.perf_counter()
    return time.process_time()


@explains_bad_calls()
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


@explains_class
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
            ``nn.CrossEntropyLoss()``), a model or a scheduler where an optimizer is, a
            ``mixed_precision`` that is not True or False (a dtype name such as ``"bf16"``),
            ... The message names the fix.
        ValueError: an optimizer that holds none of the model's parameters (built on
            another model), a scheduler on another optimizer or a ``ReduceLROnPlateau``
            (it needs the validation loss: step it yourself), a device that is not
            available, a ``clip_grad_norm`` that is not positive.

    Warns:
        UserWarning: a ``StepLR``, ``MultiStepLR`` or ``ExponentialLR`` set up in epochs
            (a ``step_size`` or last milestone below 100, a ``gamma`` below 0.99): the
            Trainer steps it after every batch.

    Attributes:
        losses: mean training loss of every epoch (per sample, or per token).
        val_losses: mean validation loss of every epoch, when a validation loader is given.
        learning_rates: the learning rate of every optimiser step, when a scheduler is given.
        seconds: training time (see :func:`clock`) up to the end of every epoch, cumulative;
            validation and the end-of-epoch hook are not counted.
        stop_training: set it to ``True`` in an ``on_epoch_end`` hook to end :meth:`fit`
            after this epoch (a time budget, early stopping).
    """

    @explains_bad_calls(
        max_grad_norm="course_lib calls it clip_grad_norm=: Trainer(model, loss_fn, optimizer, device, clip_grad_norm=1.0)",
        gradient_clip_val="course_lib calls it clip_grad_norm=: Trainer(model, loss_fn, optimizer, device, clip_grad_norm=1.0)",
        lr_scheduler="course_lib calls it scheduler=",
        epochs="the number of epochs goes to fit, not to the Trainer: trainer.fit(train_loader, val_loader, epochs=10)",
        num_epochs="the number of epochs goes to fit, not to the Trainer: trainer.fit(train_loader, val_loader, epochs=10)",
    )
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
        check_model(model)
        check_loss_fn(loss_fn)
        check_optimizer(optimizer)
        check_same_parameters(model, optimizer)
        check_scheduler(scheduler, optimizer)
        check_number(clip_grad_norm, "clip_grad_norm")
        if clip_grad_norm is not None and not clip_grad_norm > 0:
            raise ValueError(f"clip_grad_norm must be positive, got {clip_grad_norm}")
        check_ignore_index(ignore_index)
        check_mixed_precision(mixed_precision)
        self.device = default_device() if device is None else parse_device(device)
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
        batch = to_device(batch, self.device)
        return tuple(batch[:-1]), batch[-1]

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

    def _run_epoch(
        self, loader: Iterable, train: bool, bar: tqdm | None = None, check: bool = False
    ) -> float:
        """One pass over ``loader``: the mean loss. ``check``: this fit's first epoch, whose
        first batch is checked against the Trainer's settings."""
        total, count = 0.0, 0
        self.model.train(train)
        autocast = torch.autocast("cuda", dtype=torch.bfloat16, enabled=self.mixed_precision)
        first = True
        with torch.set_grad_enabled(train):
            for batch in loader:
                inputs, target = self._split(batch)
                if first:
                    check_batch_items(inputs, target)
                    if check:
                        warn_ignore_index_on_floats(self.ignore_index, target)
                        check_class_target(self.loss_fn, target)
                with autocast:
                    try:
                        output = self.model(*inputs)
                    except TypeError as err:
                        explain_model_call(err, self.model, inputs)
                        raise
                    except RuntimeError as err:
                        if first and check:
                            explain_model_failure(err, inputs, target)
                        raise
                    check_output(output, target)
                    try:
                        loss = self.loss_fn(output, target)
                    except Exception as err:
                        explain_loss_error(err, output, target)
                        raise
                if first:
                    check_loss(loss, train)
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

    @explains_bad_calls(
        positional="evaluate takes one loader of (inputs, target) batches, as fit does, not x and y: trainer.evaluate(DataLoader(TensorDataset(source, target), batch_size=64))"
    )
    def evaluate(self, loader: Iterable) -> float:
        """Mean loss per sample over ``loader``, in eval mode and without gradients.

        The model's previous train/eval mode is restored afterwards.

        Raises:
            TypeError: ``loader`` is a dataset, a tensor or one batch, not batches.
            ValueError: the model was moved off the Trainer's device, or no batches.
        """
        check_loader(loader, "loader", passes=1)
        check_model_device(self.model, self.device)
        with evaluating(self.model):
            return self._run_epoch(loader, train=False)

    @explains_bad_calls(
        num_epochs="course_lib calls it epochs=",
        verbose="course_lib writes progress=False to hide the progress bar",
    )
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
                an ``on_epoch_end`` that is not callable, cannot take the trainer as its one
                argument (checked before training), or returns neither a dict nor None;
                batches whose inputs do not fit the model's ``forward`` (a dataset without
                its target: the last item of a batch is the target); a ``DataLoader`` over
                encoded id pairs (use :class:`~course_lib.vocab.PairBatches`).
            ValueError: ``epochs`` not a positive integer, a bad seed, a loader without
                batches (an empty dataset), the model moved off the Trainer's device, a loss
                that is not one number or has no gradient, PyTorch's cross-entropy given
                ``(B, T, V)`` scores (use ``translation_loss``, or flatten them), PyTorch's
                cross-entropy given a float target outside [0, 1] (a regression target).
            RuntimeError: a shape error inside the model on the first batch: the message
                says how the batch was split into inputs and target (PyTorch's error is
                its cause).
            FloatingPointError: an epoch's training or validation loss is NaN (or
                infinite): NaN in the data, or a training that diverged. The message says
                whether the data holds NaN (and where); the epoch's loss is kept in
                ``losses``.

        Warns:
            UserWarning: more than one optimiser step ran with a learning rate of 0 (a
                schedule whose ``total`` is shorter than the training): those steps
                changed nothing. ``ignore_index`` set for float (regression) targets. A
                ``OneCycleLR`` whose ``total_steps`` counts epochs (at most ``epochs``, fewer
                than the fit's optimiser steps), said before the first epoch.
        """
        check_positive_int(epochs, "epochs")
        check_loader(train_loader, "train_loader", passes=epochs)
        if val_loader is not None:
            check_loader(val_loader, "val_loader", passes=epochs)
        check_hook(on_epoch_end)
        check_model_device(self.model, self.device)
        warn_one_cycle_in_epochs(self.scheduler, epochs, train_loader)
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
        for k in bar:
            start = clock(self.device)
            self.losses.append(
                self._run_epoch(
                    train_loader, train=True, bar=bar if progress else None, check=k == 0
                )
            )
            spent = clock(self.device) - start
            self.seconds.append(spent + (self.seconds[-1] if self.seconds else 0.0))
            self._stop_if_not_finite("training", self.losses[-1], train_loader, bar)
            postfix = {"loss": f"{self.losses[-1]:.4f}"}  # 4 decimals: stable across runs
            if val_loader is not None:
                self.val_losses.append(self.evaluate(val_loader))
                self._stop_if_not_finite("validation", self.val_losses[-1], val_loader, bar)
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

    def _stop_if_not_finite(self, which: str, loss: float, loader: Iterable, bar: tqdm) -> None:
        """An epoch's NaN (or infinite) loss ends the fit with what to check: the epoch's
        mean is already a number on the host, so this costs no extra synchronisation."""
        if math.isfinite(loss):
            return
        bar.close()
        raise FloatingPointError(nan_loss_message(which, loss, self.epochs, loader))

    @staticmethod
    def _warn_idle_steps(rates: list[float]) -> None:
        """A schedule that reached 0 before the training's end: the steps after it are lost
        (one step at 0, the last of a cosine that ends there, is expected)."""
        idle = sum(float(lr) == 0.0 for lr in rates)
        if idle > 1:
            warn_user(
                f"{idle} of this fit's {len(rates)} optimiser steps ran with a learning "
                "rate of 0 and changed nothing: the schedule ended before the training. A "
                "schedule counts optimiser steps, not epochs: total = epochs * "
                "len(train_loader)",
                UserWarning,
            )

    def predict(self, *inputs: Tensor, **kwargs):
        """Run the model in eval mode without gradients; return its output on the CPU.

        Keyword arguments go to the model (e.g. ``need_weights=True``). The model's previous
        train/eval mode is restored afterwards.

        Raises:
            TypeError: an input is a DataLoader or dataset, a NumPy array, or a list; a bool
                after the first input (``need_weights`` passed positionally).
            ValueError: the model was moved off the Trainer's device.
        """
        check_inputs(inputs)
        check_model_device(self.model, self.device)
        with evaluating(self.model):
            output = self.model(*to_device(inputs, self.device), **kwargs)
        return to_device(output, torch.device("cpu"))

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
        path = check_path(path)
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
        path = check_path(path)
        if path.is_dir():
            found = sorted(p.name for p in path.glob("*.pt"))[:3]
            raise IsADirectoryError(
                f"{path} is a folder: pass the checkpoint file inside it"
                + (f", e.g. {path / found[0]} (it holds {', '.join(found)})" if found else "")
            )
        if not path.exists():
            nearby = (
                sorted(p.name for p in path.parent.glob("*.pt"))[:3] if path.parent.is_dir() else []
            )
            raise FileNotFoundError(
                f"no checkpoint at {path}: the file does not exist. Check the path"
                + (f" (its folder holds {', '.join(nearby)})" if nearby else "")
                + ", or save one first with trainer.save_checkpoint(path)"
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
        check_checkpoint(self, path, state)
        self.model.load_state_dict(state["model"])
        self.optimizer.load_state_dict(state["optimizer"])
        if self.scheduler is not None:
            self.scheduler.load_state_dict(state["scheduler"])
        self.losses = list(state["losses"])
        self.val_losses = list(state["val_losses"])
        self.learning_rates = list(state["learning_rates"])
        self.seconds = list(state["seconds"])
