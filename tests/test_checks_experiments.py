"""The training checks of Chapters 1, 3 and 4 pass the chapters' recipes, normally and inside
``unseen_cases()``, and name the usual mistakes.

Most tests train on a slice of the squares: the checks take the data as arguments, so a
slice exercises the same code in a fraction of the time. The width and Add & Norm tests use
32 training and 16 validation sequences (two batches an epoch), the plateau tests 80 and 32
(five batches, and a plateau that cuts the rate twice in 35 epochs for model seed 43). Two
tests run the plateau check on the exercise's own data.
"""

from __future__ import annotations

import functools

import pytest
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from course_lib.checks import (
    CheckFailed,
    check_train_add_norm,
    check_train_on_plateau,
    check_train_width,
    unseen_cases,
)
from course_lib.checks.experiments import PLATEAU_CASE
from course_lib.points_transformer import SelfAttentionConfig, SelfAttentionEncoderDecoder
from course_lib.seq2seq import EncoderDecoder, Seq2SeqConfig
from course_lib.squares import make_squares, seq2seq_datasets
from course_lib.train import Trainer


@functools.cache
def squares_slice(n_train=256, n_val=128):
    """The first sequences of the exercises' data (all of it by default)."""
    points, _ = make_squares(n=256, seed=13)
    val_points, _ = make_squares(n=128, seed=17)
    return seq2seq_datasets(points[:n_train], val_points[:n_val])


def data_for(check):
    return squares_slice(80, 32) if check is check_train_on_plateau else squares_slice(32, 16)


@pytest.fixture
def squares():
    return squares_slice()


@pytest.fixture
def small():
    return data_for(check_train_width)


@pytest.fixture
def data():
    return data_for(check_train_on_plateau)


# --- the chapters' solutions, and their usual mistakes ----------------------------------------


def width_answer(train_set, val_set, *, lr=0.01, epochs=100, seed=True, batch_size=16, **kw):
    def train_width(hidden_dim):
        shuffle = kw.get("shuffle", True)
        generator = torch.Generator() if kw.get("generator", True) else None
        pairs = kw.get("pairs", False)  # items (source, target): no target for the model
        items = TensorDataset(*train_set.tensors[:2]) if pairs else train_set
        train_loader = DataLoader(items, batch_size, shuffle=shuffle, generator=generator)
        val_loader = DataLoader(val_set, batch_size=16) if kw.get("validate", True) else None
        if seed:
            torch.manual_seed(23)
        width = kw.get("width", hidden_dim)
        model = EncoderDecoder.from_config(Seq2SeqConfig(hidden_dim=width))
        optimizer = torch.optim.Adam(model.parameters(), lr=lr)
        trainer = Trainer(model, nn.MSELoss(), optimizer)
        trainer.fit(train_loader, val_loader, epochs=epochs, seed=42, progress=False)
        return kw.get("returns", lambda t: t)(trainer)

    return train_width


def add_norm_answer(train_set, val_set, *, config=None, seed=None, **kw):
    def train_add_norm(model_seed):
        cfg = config or SelfAttentionConfig(positional=False, start="origin", add_norm="post")
        train_loader = DataLoader(
            train_set, batch_size=16, shuffle=True, generator=torch.Generator()
        )
        torch.manual_seed(model_seed if seed is None else seed)
        model = SelfAttentionEncoderDecoder(cfg)
        optimizer = kw.get("optimizer", torch.optim.Adam)(model.parameters(), lr=0.01)
        trainer = Trainer(model, kw.get("loss", nn.MSELoss()), optimizer)
        validation = kw.get("validate_on", val_set)
        trainer.fit(
            train_loader, DataLoader(validation, batch_size=16), epochs=60, seed=42, progress=False
        )
        return trainer

    return train_add_norm


def plateau_answer(train_set, val_set, *, factor=0.3, seed_every_epoch=False, **kw):
    def train_on_plateau(model_seed, epochs=60):
        epochs = kw.get("epochs", epochs)
        train_loader = DataLoader(
            train_set, batch_size=16, shuffle=True, generator=torch.Generator()
        )
        val_loader = DataLoader(val_set, batch_size=16)
        torch.manual_seed(model_seed)
        config = SelfAttentionConfig(positional=True, start="last", add_norm=None)
        model = SelfAttentionEncoderDecoder(config)
        optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
        plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, factor=factor, patience=5)
        trainer = Trainer(model, nn.MSELoss(), optimizer)
        for epoch in range(epochs):
            seed = 42 if epoch == 0 or seed_every_epoch else None
            trainer.fit(train_loader, val_loader, 1, seed=seed, progress=False)
            step_with = kw.get("step_with", "val")
            if step_with == "val":
                plateau.step(trainer.val_losses[-1])
            elif step_with == "train":
                plateau.step(trainer.losses[-1])
        return trainer

    return train_on_plateau


ANSWERS = {
    check_train_width: width_answer,
    check_train_add_norm: add_norm_answer,
    check_train_on_plateau: plateau_answer,
}


def stored(answer):
    """The same Trainer, whatever the arguments: trained once, for the student's case."""
    kept = {}

    def replay(*args):
        if "trainer" not in kept:
            kept["trainer"] = answer(*args)
        return kept["trainer"]

    return replay


# --- right answers ----------------------------------------------------------------------------


@pytest.mark.parametrize("check", list(ANSWERS), ids=lambda c: c.__name__)
def test_the_chapters_solutions_pass_also_on_unseen_cases(check, capsys):
    data = data_for(check)
    answer = ANSWERS[check](*data)
    check(answer, *data)
    with unseen_cases():
        check(answer, *data)
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2 and all(line.startswith("✓ ") for line in lines), lines
    assert lines[0] != lines[1]  # another width, seed or number of epochs


def test_the_plateau_check_cuts_the_rate_on_the_exercises_data(squares, capsys):
    torch.manual_seed(1234)
    expected = torch.rand(3)
    torch.manual_seed(1234)
    check_train_on_plateau(plateau_answer(*squares), *squares)
    assert torch.equal(torch.rand(3), expected), "the check moved the global generator"
    out = capsys.readouterr().out
    assert f"model seed {PLATEAU_CASE[0]}, {PLATEAU_CASE[1]} epochs" in out
    assert "ending at 0.003" in out  # cut once, by 0.3


@pytest.mark.parametrize("check", list(ANSWERS), ids=lambda c: c.__name__)
def test_a_stored_trainer_passes_only_the_students_own_case(check):
    data = data_for(check)
    answer = stored(ANSWERS[check](*data))
    check(answer, *data)
    with unseen_cases(), pytest.raises(CheckFailed) as err:
        check(answer, *data)
    message = {
        check_train_width: "hidden_dim=3: build it with the width passed in",
        check_train_add_norm: "was not trained inside train_add_norm",
        check_train_on_plateau: "trained 35 epochs",
    }[check]
    assert message in str(err.value)


# --- mistakes ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"lr": 0.001}, r"learning rate is 0.001, the recipe's 0.01"),
        ({"epochs": 30}, r"trained 30 epochs \(len\(trainer.val_losses\)\), the recipe trains 100"),
        (
            {"seed": False},
            r"does not start from the recipe's weights: call torch.manual_seed\(23\)",
        ),
        ({"width": 2}, r"hidden_dim=2"),
        ({"batch_size": 8}, r"batches of 8, the recipe's 16"),
        ({"shuffle": False}, r"from epoch 1 \(batch 1\) the batches are not shuffled"),
        ({"generator": False}, r"another order than the recipe's: give the training DataLoader"),
        ({"validate": False}, r"no validation losses: pass the validation loader"),
        (
            {"pairs": True},
            r"received 1 input\(s\), the recipe's 2 \(the source and the target\)",
        ),
        ({"returns": lambda t: t.model}, r"returned the model \(EncoderDecoder\)"),
        ({"returns": lambda t: None}, r"returned None: end the function with `return trainer`"),
        ({"returns": lambda t: t.val_losses}, r"returned a list \(losses\?\)"),
    ],
    ids=lambda v: v if isinstance(v, str) else None,
)
def test_train_width_names_the_mistake(kwargs, message, small):
    with pytest.raises(CheckFailed, match=message):
        check_train_width(width_answer(*small, **kwargs), *small)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (
            {"config": SelfAttentionConfig(positional=False, start="origin", add_norm=None)},
            r"add_norm=None: the exercise's model has Add & Norm",
        ),
        (
            {"config": SelfAttentionConfig(positional=True, start="origin", add_norm="post")},
            r"positional=True: the exercise's model has no positions",
        ),
        (
            {"config": SelfAttentionConfig(positional=False, start="origin", d_model=12)},
            r"d_model=12: the exercise's is 6",
        ),
        ({"optimizer": torch.optim.SGD}, r"the optimizer is SGD"),
        ({"loss": nn.L1Loss()}, r"not the mean squared error"),
    ],
    ids=lambda v: v if isinstance(v, str) else None,
)
def test_train_add_norm_names_the_mistake(kwargs, message, small):
    with pytest.raises(CheckFailed, match=message):
        check_train_add_norm(add_norm_answer(*small, **kwargs), *small)


def test_train_add_norm_names_a_fixed_seed_and_another_validation_set(small):
    fixed = add_norm_answer(*small, seed=43)
    check_train_add_norm(fixed, *small)
    with unseen_cases(), pytest.raises(CheckFailed, match=r"weights of torch.manual_seed\(43\)"):
        check_train_add_norm(fixed, *small)
    with pytest.raises(CheckFailed, match=r"validated on 32 sequences that are not val_set's 16"):
        check_train_add_norm(add_norm_answer(*small, validate_on=small[0]), *small)


def test_a_difference_the_check_cannot_name_gives_the_epoch(small):
    def adam_ascending(params, lr):
        return torch.optim.Adam(params, lr=lr, maximize=True)

    answer = add_norm_answer(*small, optimizer=adam_ascending)
    with pytest.raises(CheckFailed, match=r"part at epoch 1 \(got .*\), though the model starts"):
        check_train_add_norm(answer, *small)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"step_with": None}, r"never cut \(ending at 0.01\); .* is the scheduler stepped at all"),
        ({"factor": 0.5}, r"each cut multiplies the rate by 0.5: factor=0.3"),
        ({"seed_every_epoch": True}, r"epoch 2 replays the first epoch's batches"),
        ({"epochs": 60}, r"trained 60 epochs .*, the recipe trains 35 \(loop over range\(epochs\)"),
    ],
    ids=lambda v: v if isinstance(v, str) else None,
)
def test_train_on_plateau_names_the_mistake(kwargs, message, data):
    with pytest.raises(CheckFailed, match=message):
        check_train_on_plateau(plateau_answer(*data, **kwargs), *data)


def test_a_plateau_stepped_with_the_training_loss_is_named(data):
    # The check reads what the scheduler is stepped with, so it names the training loss
    # whatever the rates do: on the small split the training loss keeps falling and the rate
    # is never cut; on the full squares with AVX2 kernels both losses plateau at the same
    # epochs, and the rates alone could not tell the two schedulers apart.
    answer = plateau_answer(*data, step_with="train")
    with pytest.raises(CheckFailed, match=r"stepped with the training loss"):
        check_train_on_plateau(answer, *data)


def test_what_a_plateau_scheduler_is_stepped_with_is_read_where_the_rates_agree():
    # where both losses plateau at the same epochs the learning rates agree epoch for epoch;
    # the values the scheduler was given still tell the training loss from the validation loss
    from types import SimpleNamespace

    from torch.optim.lr_scheduler import ReduceLROnPlateau

    from course_lib.checks._recipes import Run, watching
    from course_lib.checks._training_problems import plateau_steps_problem

    original = ReduceLROnPlateau.__dict__["step"]
    optimizer = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.01)
    train, val = [0.5, 0.4, 0.3], [0.6, 0.55, 0.56]
    with watching() as watch:
        scheduler = ReduceLROnPlateau(optimizer, factor=0.3, patience=5)
        for loss in train:
            scheduler.step(torch.tensor(loss))
    assert ReduceLROnPlateau.__dict__["step"] is original  # the class's own step is back
    assert watch.plateau_steps(optimizer) == pytest.approx(train)
    trainer = SimpleNamespace(losses=train, val_losses=val)
    run = Run(trainer, None, [0.01] * 3, watch.plateau_steps(optimizer))
    assert "trainer.losses[-1]" in plateau_steps_problem(run)
    assert "plateau.step(trainer.val_losses[-1])" in plateau_steps_problem(run)
    assert plateau_steps_problem(Run(trainer, None, [0.01] * 3, val)) is None
    assert plateau_steps_problem(Run(trainer, None, [0.01] * 3, [])) is None


@pytest.mark.parametrize("check", list(ANSWERS), ids=lambda c: c.__name__)
def test_unimplemented_answers_fail_with_a_message(check):
    data = data_for(check)

    def not_implemented(*args):
        raise NotImplementedError

    with pytest.raises(CheckFailed, match="not implemented yet"):
        check(not_implemented, *data)
