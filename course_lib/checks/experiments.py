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
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, fields

import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.optim.optimizer import register_optimizer_step_pre_hook
from torch.utils.data import DataLoader

from course_lib.checks._core import CheckFailed, call_student, case_generator, variant
from course_lib.points_transformer import SelfAttentionConfig, SelfAttentionEncoderDecoder
from course_lib.seq2seq import Decoder, EncoderDecoder, Seq2SeqConfig
from course_lib.train import Trainer

__all__ = ["check_train_width", "check_train_add_norm", "check_train_on_plateau"]

RTOL = 1e-5  # validation losses agree within this relative difference
LR, BATCH, FACTOR, PATIENCE = 0.01, 16, 0.3, 5  # the three recipes' shared settings
_MODELS = (EncoderDecoder, SelfAttentionEncoderDecoder)
# The plateau check's cases, (model seed, epochs): seed 43 first cuts the rate after epoch
# 33 on the CPU, the unseen seeds (none of the chapter's 43, 1-7) two epochs before their end.
PLATEAU_CASE = (43, 35)
PLATEAU_UNSEEN = [(0, 21), (17, 23), (27, 23), (33, 23), (40, 20), (30, 15), (19, 25)]


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
    first weights of every model of the course's two kinds, and the learning rate of every
    optimizer step."""

    def __init__(self) -> None:
        self._models: dict[int, _Model] = {}
        self._rates: dict[int, tuple[torch.optim.Optimizer, list[float]]] = {}

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

    def model(self, module: nn.Module) -> _Model | None:
        seen = self._models.get(id(module))
        return seen if seen is not None and seen.module is module else None

    def rates(self, optimizer: torch.optim.Optimizer) -> list[float]:
        seen = self._rates.get(id(optimizer))
        return seen[1] if seen is not None and seen[0] is optimizer else []


@contextlib.contextmanager
def _watching() -> Iterator[_Watch]:
    watch = _Watch()
    handles = [
        nn.modules.module.register_module_forward_pre_hook(watch.on_forward),
        register_optimizer_step_pre_hook(watch.on_step),
    ]
    try:
        yield watch
    finally:
        for handle in handles:
            handle.remove()


@dataclass
class _Run:
    """One training as the check saw it."""

    trainer: Trainer
    seen: _Model
    rates: list[float]  # the learning rate of every optimizer step

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
class _Recipe:
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


def _recipe(name: str, args: tuple, epochs: int, seed: int, build, plateau=False) -> _Recipe:
    def train(train_set, val_set, device) -> Trainer:
        torch.manual_seed(seed)
        model = build()
        optimizer = torch.optim.Adam(model.parameters(), lr=LR)
        trainer = Trainer(model, nn.MSELoss(), optimizer, device)
        return _fit(trainer, train_set, val_set, epochs, plateau)

    return _Recipe(name, args, epochs, seed, build, train, plateau)


def _fingerprint(dataset) -> str | None:
    tensors = getattr(dataset, "tensors", None)
    if not tensors:
        return None
    digest = hashlib.sha256()
    for t in tensors:
        digest.update(str((tuple(t.shape), t.dtype)).encode())
        digest.update(t.detach().cpu().contiguous().numpy().tobytes())
    return digest.hexdigest()


_REFERENCES: dict[tuple, _Run] = {}


def _reference(recipe: _Recipe, train_set, val_set, device: torch.device) -> _Run:
    """The recipe trained on these data and this device; kept for the session (the last 8)."""
    data = (_fingerprint(train_set), _fingerprint(val_set))
    key = (recipe.name, recipe.args, str(device), *data)
    if None not in data and key in _REFERENCES:
        return _REFERENCES[key]
    with _watching() as watch:
        trainer = recipe.train(train_set, val_set, device)
    seen = watch.model(trainer.model)
    run = _Run(trainer, seen, watch.rates(trainer.optimizer))
    if None not in data:
        _REFERENCES[key] = run
        while len(_REFERENCES) > 8:
            del _REFERENCES[next(iter(_REFERENCES))]
    return run


def _first_weights(recipe: _Recipe, seed: int) -> dict[str, Tensor]:
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        return {k: v.detach().clone() for k, v in recipe.build().state_dict().items()}


def _same_weights(got: dict[str, Tensor], expected: dict[str, Tensor]) -> bool:
    return got.keys() == expected.keys() and all(
        got[k].shape == expected[k].shape and torch.allclose(got[k], expected[k], rtol=0, atol=0)
        for k in expected
    )


def _first_difference(got: list[float], expected: list[float]) -> int | None:
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


# -- what the check reads from the Trainer -----------------------------------------------------


def _a_trainer(recipe: _Recipe, got) -> Trainer:
    __tracebackhide__ = True
    if isinstance(got, Trainer):
        return got
    what = type(got).__name__
    if got is None:
        hint = "it returned None: end the function with `return trainer`"
    elif isinstance(got, nn.Module):
        hint = f"it returned the model ({what}): return the Trainer that trained it"
    elif isinstance(got, (list, tuple, float)):
        hint = f"it returned a {what} (losses?): return the Trainer itself, whose histories the check reads"
    else:
        hint = f"it returned a {what}"
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


def _model_problem(recipe: _Recipe, model: nn.Module) -> str | None:
    """What differs between the trained model and the recipe's, in words; None if nothing."""
    expected = recipe.build()
    if not isinstance(model, type(expected)):
        return (
            f"it trained a {type(model).__name__}; the exercise trains a {type(expected).__name__}"
        )
    if isinstance(expected, SelfAttentionEncoderDecoder):
        config = getattr(model, "config", None)
        if not isinstance(config, SelfAttentionConfig):
            return "the model has no SelfAttentionConfig: build it as SelfAttentionEncoderDecoder(config)"
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


def _setup_problem(recipe: _Recipe, trainer: Trainer) -> str | None:
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
    a = torch.linspace(-1.0, 1.0, 24).view(3, 4, 2)
    b = 0.5 * a.flip(0) + 0.1
    try:
        loss = float(trainer.loss_fn(a.to(trainer.device), b.to(trainer.device)))
    except Exception as err:
        return f"the loss function raised {type(err).__name__} on two (3, 4, 2) tensors: {err}"
    if not math.isclose(loss, float(F.mse_loss(a, b)), rel_tol=1e-5):
        return "the loss is not the mean squared error: the recipe's is nn.MSELoss()"
    return None


def _epochs_problem(recipe: _Recipe, trainer: Trainer) -> str | None:
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


# -- where the training parts from the recipe's ------------------------------------------------


def _weights_problem(recipe: _Recipe, first: dict[str, Tensor]) -> str | None:
    if _same_weights(first, _first_weights(recipe, recipe.seed)):
        return None
    building = type(recipe.build()).__name__
    others = [43, 42, 23, 0] if variant() else [42, 0]
    for seed in others:
        if seed != recipe.seed and _same_weights(first, _first_weights(recipe, seed)):
            source = "model_seed" if recipe.name != "train_width" else "23"
            return (
                f"the model starts from the weights of torch.manual_seed({seed}), the recipe "
                f"from those of torch.manual_seed({recipe.seed}): seed with {source} right "
                f"before building the {building}"
            )
    seed = "model_seed" if recipe.name != "train_width" else "23"
    return (
        f"the model does not start from the recipe's weights: call torch.manual_seed({seed}) "
        f"right before building the {building}, with nothing drawing random numbers in between "
        "(build the DataLoaders before seeding or after building)"
    )


def _batches_problem(recipe: _Recipe, run: _Run, ref: _Run, train_set) -> str | None:
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


def _validation_problem(recipe: _Recipe, run: _Run, ref: _Run) -> str | None:
    """Whether the model was validated on ``val_set`` (its sequences, in any order)."""
    got, expected = run.validated(recipe.epochs), ref.validated(recipe.epochs)
    if got.shape[1:] == expected.shape[1:] and torch.equal(
        torch.unique(got.flatten(1), dim=0), torch.unique(expected.flatten(1), dim=0)
    ):
        return None
    return (
        f"after epoch 1 the model was validated on {len(got)} other sequences than val_set's "
        f"{len(expected)}: validate on val_set, DataLoader(val_set, batch_size={BATCH})"
    )


def _rates_problem(recipe: _Recipe, run: _Run, ref: _Run, first_loss: int | None) -> str | None:
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
    wrong = _first_difference(got, expected)
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


# -- the checks --------------------------------------------------------------------------------


def _check(recipe: _Recipe, fn: Callable, train_set, val_set) -> Trainer:
    """Everything the three checks share; returns the student's Trainer once it agrees."""
    __tracebackhide__ = True
    call = recipe.call
    cuda = list(range(torch.cuda.device_count()))
    with torch.random.fork_rng(devices=cuda):  # the reader's random numbers stay as they were
        with contextlib.redirect_stdout(io.StringIO()), _watching() as watch:
            got = call_student(fn, recipe.name, *recipe.args)
        trainer = _a_trainer(recipe, got)
        for problem in (
            _model_problem(recipe, trainer.model),
            _epochs_problem(recipe, trainer),
            _setup_problem(recipe, trainer),
        ):
            if problem is not None:
                raise CheckFailed(f"{call}: {problem}")
        seen = watch.model(trainer.model)
        if seen is None:
            raise CheckFailed(
                f"{call}: the returned Trainer's model was not trained inside {recipe.name}: "
                "build the model and the Trainer in the function and call trainer.fit there"
            )
        run = _Run(trainer, seen, watch.rates(trainer.optimizer))
        problem = _weights_problem(recipe, seen.first)
        if problem is None:
            ref = _reference(recipe, train_set, val_set, trainer.device)
            problem = _batches_problem(recipe, run, ref, train_set)
        if problem is not None:
            raise CheckFailed(f"{call}: {problem}")
    wrong = _first_difference(trainer.val_losses, ref.trainer.val_losses)
    if recipe.plateau:
        problem = _rates_problem(recipe, run, ref, wrong)
        if problem is not None:
            raise CheckFailed(f"{call}: {problem}")
    if wrong is not None:
        problem = _validation_problem(recipe, run, ref)
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
    recipe = _recipe(
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
    recipe = _recipe(
        "train_add_norm", (seed,), 60, seed, lambda: SelfAttentionEncoderDecoder(config)
    )
    _check(recipe, train_add_norm, train_set, val_set)
    print(
        f"✓ train_add_norm: model seed {seed}, 60 epochs; every validation loss agrees with "
        "the recipe's."
    )


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
    recipe = _recipe(
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
