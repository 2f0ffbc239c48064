"""The recipes of the training experiments, and how a training is watched.

The settings the three recipes share; the watch that records, while a function runs, the
training batches, validation batches and first weights of every model of the course's two
kinds and the learning rate of every optimizer step; one training as the check saw it
(:class:`Run`); and each recipe's reference training on given data and device, kept for the
session.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import torch
from torch import Tensor, nn
from torch.optim.lr_scheduler import ReduceLROnPlateau
from torch.optim.optimizer import register_optimizer_step_pre_hook
from torch.utils.data import DataLoader

from course_lib.points_transformer import SelfAttentionEncoderDecoder
from course_lib.seq2seq import EncoderDecoder
from course_lib.train import Trainer

LR, BATCH, FACTOR, PATIENCE = 0.01, 16, 0.3, 5  # the three recipes' shared settings
_MODELS = (EncoderDecoder, SelfAttentionEncoderDecoder)


# -- what happens inside the student's function ------------------------------------------------


@dataclass
class _Model:
    module: nn.Module  # held, so that its id stays its own
    first: dict[str, Tensor]  # the weights at its first training step
    inputs: int  # how many inputs its first training call received
    sources: list[Tensor] = field(default_factory=list)  # one per training batch
    # (training batches so far, source) of every call in eval mode: the validation passes
    evaluated: list[tuple[int, Tensor]] = field(default_factory=list)


class _Watch:
    """Inside ``watching()``: the training batches (their sources), validation batches and
    first weights of every model of the course's two kinds, the learning rate of every
    optimizer step, and the values every ``ReduceLROnPlateau`` was stepped with."""

    def __init__(self) -> None:
        self._models: dict[int, _Model] = {}
        self._rates: dict[int, tuple[torch.optim.Optimizer, list[float]]] = {}
        self._plateaus: dict[int, tuple[torch.optim.Optimizer, list[float]]] = {}

    def on_forward(self, module: nn.Module, args: tuple) -> None:
        if not (isinstance(module, _MODELS) and args and isinstance(args[0], Tensor)):
            return
        seen = self._models.get(id(module))
        if not module.training:
            if seen is not None:
                seen.evaluated.append((len(seen.sources), args[0].detach().cpu().clone()))
            return
        if seen is None:
            first = {k: v.detach().cpu().clone() for k, v in module.state_dict().items()}
            seen = self._models[id(module)] = _Model(module, first, len(args))
        seen.sources.append(args[0].detach().cpu().clone())

    def on_step(self, optimizer: torch.optim.Optimizer, args, kwargs) -> None:
        self._rates.setdefault(id(optimizer), (optimizer, []))[1].append(
            float(optimizer.param_groups[0]["lr"])
        )

    def on_plateau(self, scheduler: ReduceLROnPlateau, metrics) -> None:
        optimizer = getattr(scheduler, "optimizer", None)
        try:
            value = float(metrics)
        except (TypeError, ValueError, RuntimeError):  # the scheduler itself will say
            return
        self._plateaus.setdefault(id(optimizer), (optimizer, []))[1].append(value)

    def plateau_steps(self, optimizer: torch.optim.Optimizer) -> list[float]:
        """What the plateau schedulers of ``optimizer`` were stepped with, in order."""
        seen = self._plateaus.get(id(optimizer))
        return seen[1] if seen is not None and seen[0] is optimizer else []

    def model(self, module: nn.Module) -> _Model | None:
        seen = self._models.get(id(module))
        return seen if seen is not None and seen.module is module else None

    def rates(self, optimizer: torch.optim.Optimizer) -> list[float]:
        seen = self._rates.get(id(optimizer))
        return seen[1] if seen is not None and seen[0] is optimizer else []


@contextlib.contextmanager
def watching() -> Iterator[_Watch]:
    """The block in which every training is watched (see ``_Watch``)."""
    watch = _Watch()
    handles = [
        nn.modules.module.register_module_forward_pre_hook(watch.on_forward),
        register_optimizer_step_pre_hook(watch.on_step),
    ]
    # PyTorch has no hook for a scheduler's step: ReduceLROnPlateau.step is wrapped for the
    # block only (the class's own function comes back, whatever happens inside)
    original = ReduceLROnPlateau.__dict__["step"]

    @functools.wraps(original)
    def step(self, *args, **kwargs):
        if args or "metrics" in kwargs:
            watch.on_plateau(self, args[0] if args else kwargs["metrics"])
        return original(self, *args, **kwargs)

    ReduceLROnPlateau.step = step
    try:
        yield watch
    finally:
        ReduceLROnPlateau.step = original
        for handle in handles:
            handle.remove()


@dataclass
class Run:
    """One training as the check saw it."""

    trainer: Trainer
    seen: _Model
    rates: list[float]  # the learning rate of every optimizer step
    # what its plateau scheduler was stepped with, once per step
    plateau_steps: list[float] = field(default_factory=list)

    @property
    def sources(self) -> list[Tensor]:
        return self.seen.sources

    def validated(self, epochs: int) -> Tensor:
        """The sources the model was validated on after its first epoch, ``(N, S, F)``."""
        per_epoch = len(self.sources) // epochs
        after_first = [x for n, x in self.seen.evaluated if n == per_epoch]
        return torch.cat(after_first) if after_first else torch.empty(0, 0, 0)

    def rate_after(self, epochs: int) -> list[float]:
        """The learning rate after each epoch (and its scheduler step)."""
        per_epoch = len(self.rates) // epochs
        final = float(self.trainer.optimizer.param_groups[0]["lr"])
        return [self.rates[(e + 1) * per_epoch] for e in range(epochs - 1)] + [final]


# -- the recipes -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Recipe:
    """An exercise's training: the student's function, its model and the reference fit."""

    name: str  # the student's function
    args: tuple  # what it is called with
    epochs: int
    seed: int  # the model seed
    build: Callable[[], nn.Module]  # the model, built right after torch.manual_seed(seed)
    train: Callable[..., Trainer]  # (train_set, val_set, device) -> the reference Trainer
    plateau: bool = False

    @property
    def call(self) -> str:
        return f"{self.name}({', '.join(map(repr, self.args))})"

    @property
    def seeded_with(self) -> str:
        """What the answer passes to ``torch.manual_seed``, as the exercise writes it."""
        return "23" if self.name == "train_width" else "model_seed"


def _fit(trainer: Trainer, train_set, val_set, epochs: int, plateau: bool) -> Trainer:
    train_loader = DataLoader(
        train_set, batch_size=BATCH, shuffle=True, generator=torch.Generator()
    )
    val_loader = DataLoader(val_set, batch_size=BATCH)
    if not plateau:
        return trainer.fit(train_loader, val_loader, epochs=epochs, seed=42, progress=False)
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(
        trainer.optimizer, factor=FACTOR, patience=PATIENCE
    )
    for epoch in range(epochs):
        trainer.fit(train_loader, val_loader, 1, seed=42 if epoch == 0 else None, progress=False)
        scheduler.step(trainer.val_losses[-1])
    return trainer


def make_recipe(name: str, args: tuple, epochs: int, seed: int, build, plateau=False) -> Recipe:
    """The recipe whose reference trains ``build()`` with Adam and the MSE loss."""

    def train(train_set, val_set, device) -> Trainer:
        torch.manual_seed(seed)
        model = build()
        optimizer = torch.optim.Adam(model.parameters(), lr=LR)
        trainer = Trainer(model, nn.MSELoss(), optimizer, device)
        return _fit(trainer, train_set, val_set, epochs, plateau)

    return Recipe(name, args, epochs, seed, build, train, plateau)


def _fingerprint(dataset) -> str | None:
    tensors = getattr(dataset, "tensors", None)
    if not tensors:
        return None
    digest = hashlib.sha256()
    for t in tensors:
        digest.update(str((tuple(t.shape), t.dtype)).encode())
        digest.update(t.detach().cpu().contiguous().numpy().tobytes())
    return digest.hexdigest()


_REFERENCES: dict[tuple, Run] = {}


def reference_run(recipe: Recipe, train_set, val_set, device: torch.device) -> Run:
    """The recipe trained on these data and this device; kept for the session (the last 8)."""
    data = (_fingerprint(train_set), _fingerprint(val_set))
    key = (recipe.name, recipe.args, str(device), *data)
    if None not in data and key in _REFERENCES:
        return _REFERENCES[key]
    with watching() as watch:
        trainer = recipe.train(train_set, val_set, device)
    seen = watch.model(trainer.model)
    run = Run(trainer, seen, watch.rates(trainer.optimizer))
    if None not in data:
        _REFERENCES[key] = run
        while len(_REFERENCES) > 8:
            del _REFERENCES[next(iter(_REFERENCES))]
    return run


def first_weights(recipe: Recipe, seed: int) -> dict[str, Tensor]:
    """The recipe's model's weights when built right after ``torch.manual_seed(seed)``."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        return {k: v.detach().clone() for k, v in recipe.build().state_dict().items()}
