"""Self-checks for Chapter 6's pipeline exercises: the figures, the models, training, the floor.

The figure checks read the data back from the figure your function returns (the lines'
coordinates), so they check *what* is drawn, not how it looks; they close the figure they
asked for (draw your own with a call of your function). Positions are ``[lat, lon]``
degrees, fixes ``[lat, lon, time]``.

Inside ``unseen_cases`` the figures are asked for other trajectories of the data passed
(shuffled), the models run on a random batch of another size, the trained model's own
validation loss is measured, and the floor is estimated with two other generators.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Callable, Iterator

import numpy as np
import torch
from torch import nn
from torch.nn.modules.module import register_module_forward_pre_hook

from course_lib._foreign_names import explains_bad_calls
from course_lib.checks._core import (
    CheckFailed,
    call_student,
    case_generator,
    case_seed,
    one_number,
    variant,
)
from course_lib.checks._describe import describe
from course_lib.checks._figures import (
    FIG,
    figure_axes,
    has_line_through,
    maybe_shuffled,
    metric_map,
    missing_track,
)
from course_lib.geo import to_local
from course_lib.gps import FLORENCE
from course_lib.points_transformer import SelfAttentionConfig, SelfAttentionEncoderDecoder
from course_lib.seq2seq import Decoder, Encoder, EncoderDecoder
from course_lib.seq2seq_attention import AttentionDecoder
from course_lib.train import evaluating
from course_lib.trajectories import (
    TrajectoryFeatures,
    constant_velocity,
    stay,
    trajectory_datasets,
)

__all__ = [
    "check_plot_trajectories",
    "check_models",
    "check_training",
    "check_plot_predictions",
    "check_stay_floor",
]

#: Expected ADE of *stay* on the lecture's generator, in metres (10^7 simulated walks).
STAY_FLOOR_M = 98.94


@explains_bad_calls(
    missing="pass the (observed, future) pair unpacked, with *: check_plot_trajectories(plot_trajectories, *ex_train, n)"
)
def check_plot_trajectories(plot_trajectories: Callable, observed, future, n: int) -> None:
    """Check ``plot_trajectories(observed, future, n) -> fig``: the first ``n`` trajectories
    on one map, in metres east and north of Florence's centre, with equal axes."""
    __tracebackhide__ = True
    name = "plot_trajectories"
    observed, future = maybe_shuffled(61, observed, future)
    got = call_student(plot_trajectories, name, observed, future, n, returns=FIG)
    axes = figure_axes(got, name)
    if len(axes) != 1:
        raise CheckFailed(f"{name}: draw every trajectory on one map (one axes), found {len(axes)}")
    ax = axes[0]
    for k in range(n):
        for what, track in (("observed fixes", observed[k]), ("future fixes", future[k])):
            xy = to_local(track[:, :2], FLORENCE)  # (L, 2) metres from the centre
            if not has_line_through(ax, xy):
                raise missing_track(ax, xy, track[:, :2], f"{what} of trajectory {k}", name)
    if n < len(observed) and has_line_through(ax, to_local(observed[n, :, :2], FLORENCE)):
        raise CheckFailed(f"{name}: trajectory {n} is drawn too; draw the first n = {n} only")
    metric_map(ax, name)
    print(f"✓ {name}: the {n} trajectories are on the map, in metres, with equal axes.")


def _reference_models() -> dict[str, nn.Module]:
    return {
        "GRU": EncoderDecoder(Encoder(2, 64), Decoder(2, 64), 3, 0.5),
        "GRU + attention": EncoderDecoder(Encoder(2, 64), AttentionDecoder(2, 64), 3, 0.5),
        "self-attention": SelfAttentionEncoderDecoder(
            SelfAttentionConfig(
                n_features=2, d_model=32, num_heads=4, d_ff=64, target_len=3, num_layers=2
            )
        ),
    }


# how the chapter builds its two GRU models
_RECIPES = {
    "GRU": "EncoderDecoder(Encoder(2, 64), Decoder(2, 64), 3, 0.5)",
    "GRU + attention": "EncoderDecoder(Encoder(2, 64), AttentionDecoder(2, 64), 3, 0.5), "
    "whose AttentionDecoder attends to every encoder state",
}


def _a(noun: str) -> str:
    return f"{'an' if noun[:1] in 'AEIOU' else 'a'} {noun}"


def _same_recipe(key: str, model: nn.Module, reference: nn.Module) -> None:
    """The settings the parameter count misses (or misreads as a size), each named."""
    __tracebackhide__ = True
    if isinstance(model, EncoderDecoder):
        for part in ("encoder", "decoder"):
            mine, theirs = getattr(model, part, None), getattr(reference, part)
            if not isinstance(mine, type(theirs)):
                raise CheckFailed(
                    f"{key!r} has {_a(type(mine).__name__)} as its {part}, where the "
                    f"chapter's has {_a(type(theirs).__name__)}: build it as {_RECIPES[key]}"
                )
        got, expected = model.teacher_forcing_prob, reference.teacher_forcing_prob
        if got != expected:
            raise CheckFailed(
                f"{key!r} has teacher_forcing_prob={got}, the chapter's {expected} (0 "
                "never feeds the true point in training; 1 always does, so the model never "
                "learns from its own predictions): pass it as the fourth argument, "
                f"EncoderDecoder(encoder, decoder, 3, {expected})"
            )
        return
    config, expected = model.config, reference.config
    if config.add_norm is None:
        raise CheckFailed(
            f"{key!r} has no Add & Norm (add_norm=None): that is the lecture's "
            "first teaching model, which collapses to one predicted point here; "
            "keep the default add_norm='post'"
        )
    if config.add_norm != expected.add_norm:
        raise CheckFailed(
            f"{key!r} has add_norm={config.add_norm!r}, the chapter's "
            f"{expected.add_norm!r} (the residual sum, then LayerNorm, after every "
            "sublayer, as in the 2017 Transformer): keep the default add_norm='post'"
        )
    if config.positional != expected.positional:
        raise CheckFailed(
            f"{key!r} has positional={config.positional}: without positional encoding "
            "self-attention sees the fixes as an unordered set and cannot tell the last "
            "fix from the first; keep the default positional=True"
        )


def _target_len_hint(model: nn.Module) -> str:
    """Where a model's number of predicted steps is set, if it is not the chapter's 3."""
    if isinstance(model, EncoderDecoder) and model.target_len != 3:
        return (
            f"; it predicts target_len={model.target_len} steps: pass 3 as the third argument, "
            "EncoderDecoder(encoder, decoder, 3, 0.5)"
        )
    config = getattr(model, "config", None)
    target_len = getattr(config, "target_len", 3)
    if isinstance(model, SelfAttentionEncoderDecoder) and target_len != 3:
        return (
            f"; its config has target_len={target_len} (SelfAttentionConfig's default is "
            f"{SelfAttentionConfig().target_len}): build it with SelfAttentionConfig(..., "
            "target_len=3)"
        )
    return ""


def _probe_batch() -> torch.Tensor:
    """What the models are run on: zeros ``(4, 5, 2)``, or inside ``unseen_cases`` random
    fixes of another batch size, so an output of a stored shape shows."""
    if not variant():
        return torch.zeros(4, 5, 2)
    g = case_generator(63)
    b = [1, 2, 3, 5, 6, 7, 8][int(torch.randint(7, (), generator=g))]
    return torch.randn(b, 5, 2, generator=g)


def _run_model(key: str, model: nn.Module, batch: torch.Tensor) -> torch.Tensor:
    """The model's output on ``batch`` in eval mode, or :class:`CheckFailed`."""
    __tracebackhide__ = True
    try:
        with torch.no_grad():
            out = model.eval()(batch)
    except Exception as err:
        raise CheckFailed(
            f"{key!r} raised {type(err).__name__} on a batch {tuple(batch.shape)} of "
            f"(B, 5, 2) sources: {err}"
        ) from err
    if not isinstance(out, torch.Tensor):
        raise CheckFailed(f"{key!r} maps a batch {tuple(batch.shape)} to {describe(out)}")
    return out


@explains_bad_calls()
def check_models(build_models: Callable) -> None:
    """Check ``build_models() -> {"GRU": ..., "GRU + attention": ..., "self-attention": ...}``:
    the chapter's three models, of its sizes, each mapping ``(B, 5, 2)`` to ``(B, 3, 2)``."""
    __tracebackhide__ = True
    batch = _probe_batch()
    with torch.random.fork_rng():  # building models draws weights: leave the reader's stream
        got = call_student(build_models, "build_models", returns="a dict of the three models")
        reference = _reference_models()
    if not isinstance(got, dict) or set(got) != set(reference):
        keys = sorted(map(str, got)) if isinstance(got, dict) else describe(got)
        raise CheckFailed(
            f"build_models should return a dict with the keys {sorted(reference)}, got {keys}"
        )
    for key, model in got.items():
        if not isinstance(model, type(reference[key])):
            raise CheckFailed(
                f"{key!r} should be a {type(reference[key]).__name__}, got {type(model).__name__}"
            )
        _same_recipe(key, model, reference[key])
        size = sum(p.numel() for p in model.parameters())
        expected = sum(p.numel() for p in reference[key].parameters())
        if size != expected:
            raise CheckFailed(
                f"{key!r} has {size:,} parameters, the chapter's {expected:,}: "
                "check the hidden size, d_model, heads, d_ff and layers"
            )
        out = _run_model(key, model, batch)
        if tuple(out.shape) != (len(batch), 3, 2):
            raise CheckFailed(
                f"{key!r} maps {tuple(batch.shape)} to {tuple(out.shape)}, expected "
                f"({len(batch)}, 3, 2): two features in and out, three future steps"
                + _target_len_hint(model)
            )
    print("✓ build_models: three models of the chapter's sizes, each (B, 5, 2) -> (B, 3, 2).")


@contextlib.contextmanager
def _training_inputs() -> Iterator[list[tuple[nn.Module, int]]]:
    """Record ``(model, number of inputs)`` for every call of an ``EncoderDecoder`` in
    training mode inside the block: the number of inputs shows whether the training items
    hand the target to the model (teacher forcing) or the source alone."""
    calls: list[tuple[nn.Module, int]] = []

    def record(module: nn.Module, args: tuple) -> None:
        if isinstance(module, EncoderDecoder) and module.training:
            calls.append((module, len(args)))

    # a hook on every module, for the block only: the model is built inside the answer
    handle = register_module_forward_pre_hook(record)
    try:
        yield calls
    finally:
        handle.remove()


def _same_training_recipe(name: str, trainer, inputs: list[tuple[nn.Module, int]]) -> None:
    """The exercise's learning rate and teacher forcing, read from the returned trainer."""
    __tracebackhide__ = True
    optimizer = getattr(trainer, "optimizer", None)
    if isinstance(optimizer, torch.optim.Optimizer):
        group = optimizer.param_groups[0]
        lr = float(group.get("initial_lr", group["lr"]))  # before any scheduler
        if not np.isclose(lr, 1e-3, rtol=1e-6, atol=0.0):
            raise CheckFailed(
                f"{name}: the optimizer's learning rate is {lr:g}, the recipe's 1e-3: "
                "build it as torch.optim.Adam(model.parameters(), lr=1e-3)"
            )
    forcing = getattr(trainer.model, "teacher_forcing_prob", None)
    if forcing != 0.5:
        raise CheckFailed(
            f"{name}: the model's teacher_forcing_prob is {forcing}, the recipe's 0.5: "
            "build the model as EncoderDecoder(Encoder(2, 64), AttentionDecoder(2, 64), 3, 0.5)"
        )
    seen = {n for module, n in inputs if module is trainer.model}
    if seen == {1}:
        raise CheckFailed(
            f"{name}: in training the model received the source alone, so it never "
            "saw the target and teacher forcing never happened. The Trainer passes every "
            "element of a batch but the last to the model: build the training items as "
            "(source, target, target), e.g. TensorDataset(src, tgt, tgt) from "
            "train_set.tensors (the validation items stay (source, target))"
        )


def _measured_loss(
    name: str, model: nn.Module, source: torch.Tensor, target: torch.Tensor
) -> float:
    """The mean squared error of the trained model itself on the validation items, in eval
    mode, as the Trainer's validation pass computes it."""
    __tracebackhide__ = True
    try:
        with evaluating(model):
            output = model(source.to(next(model.parameters()).device))
        return float(((output.float().cpu() - target) ** 2).mean())
    except Exception as err:
        raise CheckFailed(
            f"{name}: the trained model raised {type(err).__name__} on the validation "
            f"sources: {err}"
        ) from err


def _check_pairs(**given) -> None:
    """Each argument an ``(observed, future)`` pair of arrays, as the exercise gives them."""
    for label, value in given.items():
        if isinstance(value, (tuple, list)) and len(value) == 2:
            if all(hasattr(part, "shape") for part in value):
                continue
        what = type(value).__name__
        if hasattr(value, "__len__"):
            what += f" of {len(value)} items"
        raise TypeError(
            f"{label} must be the exercise's (observed, future) pair of arrays, got {what}: "
            "the check builds the datasets from the pairs itself"
        )


@explains_bad_calls()
def check_training(train_attention_gru: Callable, train, valid) -> None:
    """Check ``train_attention_gru(train_set, valid_set) -> Trainer`` on the exercise's data.

    ``train`` and ``valid`` are ``(observed, future)`` pairs; the check builds the datasets
    of exercise 2 from them (items ``(source, target)``, scaled on ``train``) and expects 15
    epochs of a GRU with attention trained with the recipe -- Adam at learning rate 1e-3
    (read from the trainer's optimizer), ``teacher_forcing_prob`` 0.5, and training items
    that hand the target to the model (seen in the model's calls) -- ending at a validation
    loss in the range the recipe reaches (0.30 to 0.46 in scaled units; the reference run
    reached 0.38), below *stay*'s. Inside ``unseen_cases`` that loss is measured on the
    returned model itself, not read from the trainer's history.
    """
    __tracebackhide__ = True
    _check_pairs(train=train, valid=valid)
    train_set, valid_set = trajectory_datasets(
        TrajectoryFeatures.fit(*train), train, valid, teacher_forcing=False
    )
    name = "train_attention_gru"
    with contextlib.redirect_stdout(io.StringIO()), _training_inputs() as inputs:
        trainer = call_student(
            train_attention_gru, name, train_set, valid_set, returns="the Trainer (trainer)"
        )
    losses, val_losses = getattr(trainer, "losses", None), getattr(trainer, "val_losses", None)
    if not (isinstance(losses, list) and isinstance(val_losses, list)):
        raise CheckFailed(
            f"{name} should return the Trainer (with .losses and .val_losses), "
            f"got {describe(trainer)}"
        )
    decoder = getattr(getattr(trainer, "model", None), "decoder", None)
    if not isinstance(decoder, AttentionDecoder):
        raise CheckFailed(f"{name}: train the GRU with attention (an AttentionDecoder)")
    if len(val_losses) != 15:
        raise CheckFailed(
            f"{name}: pass the validation loader to fit and train 15 epochs; "
            f"found {len(val_losses)} validation losses"
        )
    _same_training_recipe(name, trainer, inputs)
    source, target = valid_set.tensors[0], valid_set.tensors[-1]
    stay = float(((target - source[:, -1:]) ** 2).mean())  # the last fix, in scaled units
    final = val_losses[-1]
    if variant():  # judge the model, not the numbers it came with
        reported, final = final, _measured_loss(name, trainer.model, source, target)
    if not final < stay:
        raise CheckFailed(
            f"{name}: the final validation loss {final:.3f} is not below stay's "
            f"{stay:.3f}: did the model train (optimizer.step, the learning rate)?"
        )
    if not 0.30 <= final <= 0.46:
        raise CheckFailed(
            f"{name}: final validation loss {final:.3f}, expected 0.30 to 0.46 with "
            "the exercise's recipe (Adam 1e-3, MSE, batch 64, 15 epochs)"
        )
    if variant() and not abs(final - reported) <= 0.02:
        raise CheckFailed(
            f"{name}: the returned model's validation loss is {final:.3f}, the trainer's "
            f"last validation loss {reported:.3f}: return the Trainer that trained this "
            "model, as trainer.fit(...) does"
        )
    print(f"✓ {name}: 15 epochs; the validation loss is in the recipe's range and below stay's.")


@explains_bad_calls(
    missing="pass the (observed, future) pair unpacked, with *: check_plot_predictions(plot_predictions, *ex_test, n)"
)
def check_plot_predictions(plot_predictions: Callable, observed, future, n: int) -> None:
    """Check ``plot_predictions(observed, future, predictions, n) -> fig``: one panel per
    trajectory, in metres from its last observed fix, with every predictor's points.

    ``observed`` ``(N, S, 3)`` and ``future`` ``(N, T, 3)`` are fixes; the check passes the
    future's ``[lat, lon]`` and two predictors, *stay* and constant velocity.
    """
    __tracebackhide__ = True
    name = "plot_predictions"
    observed, future = maybe_shuffled(62, observed, future)
    future, when = future[..., :2], future[..., 2]
    predictions = {
        "stay": stay(observed, future.shape[1]),
        "constant velocity": constant_velocity(observed, when),
    }
    got = call_student(plot_predictions, name, observed, future, predictions, n, returns=FIG)
    axes = figure_axes(got, name)
    if len(axes) != n:
        raise CheckFailed(
            f"{name}: draw one panel per trajectory ({n}), found {len(axes)} "
            "visible axes (hide the unused ones)"
        )
    for k, ax in enumerate(axes):
        origin = observed[k, -1, :2]
        tracks = {"observed fixes": observed[k, :, :2], "true future": future[k, :, :2]}
        tracks |= {f"{key!r} prediction": np.asarray(p)[k] for key, p in predictions.items()}
        for what, track in tracks.items():
            xy = to_local(track, origin)  # metres from the last observed fix
            if not has_line_through(ax, xy):
                if has_line_through(ax, to_local(track, FLORENCE)):
                    raise CheckFailed(
                        f"{name}: panel {k} is centred on Florence; centre each "
                        "panel on its trajectory's last observed fix"
                    )
                raise missing_track(ax, xy, track, f"{what} (panel {k})", name)
        metric_map(ax, name)
    print(
        f"✓ {name}: {n} panels, each with the observed fixes, the truth and "
        f"{len(predictions)} predictions, in metres."
    )


def _stay_value(got, n: int) -> float:
    """The number ``stay_ade`` returned for ``n`` walks."""
    __tracebackhide__ = True
    many = "average the errors over the walks and their steps, take .mean()"
    return float(one_number(got, "stay_ade", f"n={n:,}", many, "return one number (metres)"))


def _off_the_floor(value: float) -> CheckFailed | None:
    """None for a value within a metre of the floor, else the error naming the likely cause."""
    if abs(value - STAY_FLOOR_M) <= 1.0:
        return None
    mistakes = [
        (122.45, "this is the FDE (the last step): the ADE averages the three steps"),
        (
            73.86,
            "this is the error of one step: either only the first step is measured "
            "(average the three steps), or the steps are not accumulated: the k-th "
            "future fix is the sum of k steps (np.cumsum over the steps)",
        ),
        (STAY_FLOOR_M / 1000, "this is in kilometres: return metres"),
    ]
    for wrong, message in mistakes:
        if abs(value - wrong) <= 0.02 * wrong:
            return CheckFailed(f"stay_ade: {message} (got {value:.4g})")
    if value < 0.05:
        return CheckFailed(f"stay_ade returned {value:.3g}: degrees? Measure in metres (haversine)")
    return CheckFailed(
        f"stay_ade returned {value:.4g} m, expected about {STAY_FLOOR_M} m: three "
        "steps, each uniform on ±0.001° in latitude and in longitude, from the last fix"
    )


@explains_bad_calls()
def check_stay_floor(stay_ade: Callable) -> None:
    """Check ``stay_ade(n, rng) -> metres``: the ADE of *stay* on the lecture's future,
    estimated from ``n`` simulated walks (about 98.9 m; the check uses n = 200,000).

    Inside ``unseen_cases`` the generator is another one, and a second estimate (n =
    100,000, a third generator) must differ from the first: a stored number cannot."""
    __tracebackhide__ = True
    rng = np.random.default_rng(case_seed(0))
    before = rng.bit_generator.state
    value = _stay_value(call_student(stay_ade, "stay_ade", 200_000, rng), 200_000)
    error = _off_the_floor(value)
    if error is not None:
        raise error
    if rng.bit_generator.state == before:
        raise CheckFailed(
            "stay_ade never drew from the rng it was given (its state is unchanged): a stored "
            "number, or walks from a generator of its own, do not change with the rng, so they "
            "estimate nothing. Simulate the n walks with the rng it is given, rng.uniform(...) "
            "or rng.normal(...), and create no generator inside"
        )
    if variant():
        rng = np.random.default_rng(case_seed(1))
        other = _stay_value(call_student(stay_ade, "stay_ade", 100_000, rng), 100_000)
        error = _off_the_floor(other)
        if error is not None:
            raise error
        if other == value:
            raise CheckFailed(
                f"stay_ade returned {value!r} twice, for other walks (another n and rng): "
                "the same value, which does not change with n and rng, like a stored number. "
                "Simulate n walks with the rng it is given, so each run is its own estimate"
            )
    print(
        f"✓ stay_ade: within a metre of {STAY_FLOOR_M} m, the error no predictor can beat "
        "on these data."
    )
