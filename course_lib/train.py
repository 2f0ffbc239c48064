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
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import torch
from torch import Tensor, nn
from tqdm.std import tqdm

from course_lib._validate import check_course_device, check_positive_int, check_seed, shape_str

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
    put back afterwards, whatever it was (and whatever happens inside)."""
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
        if clip_grad_norm is not None and not clip_grad_norm > 0:
            raise ValueError(f"clip_grad_norm must be positive, got {clip_grad_norm}")
        if scheduler is not None and getattr(scheduler, "optimizer", None) is not optimizer:
            raise ValueError("the scheduler must be built on the same optimizer as the Trainer")
        self.device = torch.device(device) if device is not None else default_device()
        self.model = model.to(self.device)
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
                "each batch must be a tuple (*inputs, target) with at least one input; "
                "build the dataset as TensorDataset(inputs, target)"
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
        with torch.set_grad_enabled(train):
            for batch in loader:
                inputs, target = self._split(batch)
                with autocast:
                    output = self.model(*inputs)
                    self._check_output(output, target)
                    loss = self.loss_fn(output, target)
                if train:
                    self._step(loss)
                weight = self._weight(target)
                total += loss.item() * weight
                count += weight
                if bar is not None:  # the running mean of this epoch so far
                    bar.set_postfix({"loss": f"{total / max(count, 1):.4f}"}, refresh=False)
        if count == 0:
            raise ValueError("the data loader yielded no batches: is the dataset empty?")
        return total / count

    def evaluate(self, loader: Iterable) -> float:
        """Mean loss per sample over ``loader``, in eval mode and without gradients.

        The model's previous train/eval mode is restored afterwards.
        """
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
        """
        check_positive_int(epochs, "epochs")
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
                postfix = postfix if shown is None else shown
                self.model.train()
            bar.set_postfix(postfix, refresh=False)
            if self.stop_training:
                break
        bar.close()
        return self

    def predict(self, *inputs: Tensor, **kwargs):
        """Run the model in eval mode without gradients; return its output on the CPU.

        Keyword arguments go to the model (e.g. ``need_weights=True``). The model's previous
        train/eval mode is restored afterwards.
        """
        with evaluating(self.model):
            output = self.model(*_to(inputs, self.device), **kwargs)
        return _to(output, torch.device("cpu"))

    def save_checkpoint(self, path: str | os.PathLike) -> None:
        """Save model, optimizer, scheduler and the histories (plain tensors and numbers), so
        a resumed run continues its learning-rate schedule where it stopped."""
        torch.save(
            {
                "model": self.model.state_dict(),
                "optimizer": self.optimizer.state_dict(),
                "scheduler": None if self.scheduler is None else self.scheduler.state_dict(),
                "losses": list(self.losses),
                "val_losses": list(self.val_losses),
                "learning_rates": list(self.learning_rates),
                "seconds": list(self.seconds),
            },
            Path(path),
        )

    def load_checkpoint(self, path: str | os.PathLike) -> None:
        """Restore what :meth:`save_checkpoint` saved, with ``torch.load(weights_only=True)``."""
        state = torch.load(Path(path), map_location=self.device, weights_only=True)
        self.model.load_state_dict(state["model"])
        self.optimizer.load_state_dict(state["optimizer"])
        if (state["scheduler"] is None) != (self.scheduler is None):
            saved = "without" if state["scheduler"] is None else "with"
            raise ValueError(
                f"the checkpoint was saved {saved} a scheduler and this Trainer "
                f"{'has' if self.scheduler is not None else 'has none'}: build the Trainer "
                "as the saved one was built"
            )
        if self.scheduler is not None:
            self.scheduler.load_state_dict(state["scheduler"])
        self.losses = list(state["losses"])
        self.val_losses = list(state["val_losses"])
        self.learning_rates = list(state["learning_rates"])
        self.seconds = list(state["seconds"])
