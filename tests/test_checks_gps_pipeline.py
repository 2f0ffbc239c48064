"""The Chapter 6 pipeline checks (figures, models, training, the floor) pass the chapter's
answers and name the classic mistakes."""

import matplotlib.pyplot as plt
import numpy as np
import pytest
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from course_lib.checks import (
    CheckFailed,
    check_models,
    check_plot_predictions,
    check_plot_trajectories,
    check_stay_floor,
    check_training,
    unseen_cases,
)
from course_lib.geo import haversine, to_local
from course_lib.gps import FLORENCE, city_trajectories
from course_lib.points_transformer import SelfAttentionConfig, SelfAttentionEncoderDecoder
from course_lib.seq2seq import Decoder, Encoder, EncoderDecoder
from course_lib.seq2seq_attention import AttentionDecoder
from course_lib.train import Trainer


@pytest.fixture(scope="module")
def tracks():
    return city_trajectories(6, rng=np.random.default_rng(0))


def plot_trajectories(observed, future, n, frame=lambda xy: xy, aspect="equal"):
    fig, ax = plt.subplots()
    for k in range(n):
        seen = frame(to_local(observed[k, :, :2], FLORENCE))
        ahead = frame(to_local(future[k, :, :2], FLORENCE))
        ax.plot(seen[:, 0], seen[:, 1], "o-")
        ax.plot(ahead[:, 0], ahead[:, 1], "s--")
    ax.set_aspect(aspect)
    ax.set_xlabel("east (m)")
    ax.set_ylabel("north (m)")
    return fig


def test_the_trajectory_map_passes_and_its_mistakes_are_named(tracks, capsys):
    check_plot_trajectories(plot_trajectories, *tracks, 3)
    assert "✓" in capsys.readouterr().out
    with pytest.raises(CheckFailed, match="swapped"):
        check_plot_trajectories(
            lambda o, f, n: plot_trajectories(o, f, n, lambda xy: xy[:, ::-1]), *tracks, 3
        )
    with pytest.raises(CheckFailed, match="equal axes"):
        check_plot_trajectories(
            lambda o, f, n: plot_trajectories(o, f, n, aspect="auto"), *tracks, 3
        )
    with pytest.raises(CheckFailed, match="trajectory 3 is drawn too"):
        check_plot_trajectories(lambda o, f, n: plot_trajectories(o, f, n + 1), *tracks, 3)
    with pytest.raises(CheckFailed, match="return the matplotlib Figure"):
        check_plot_trajectories(lambda o, f, n: None, *tracks, 3)


def test_degrees_on_the_map_are_caught(tracks):
    def degrees(observed, future, n):
        fig, ax = plt.subplots()
        for k in range(n):
            ax.plot(observed[k, :, 0], observed[k, :, 1])
        return fig

    with pytest.raises(CheckFailed, match="in degrees"):
        check_plot_trajectories(degrees, *tracks, 2)


def plot_predictions(observed, future, predictions, n, centre=None):
    fig, axes = plt.subplots(2, 2)
    for k, ax in enumerate(axes.flat[:n]):
        origin = observed[k, -1, :2] if centre is None else centre
        for track in [observed[k, :, :2], future[k, :, :2], *(p[k] for p in predictions.values())]:
            xy = to_local(track, origin)
            ax.plot(xy[:, 0], xy[:, 1])
        ax.set_aspect("equal")
        ax.set_xlabel("east (m)")
        ax.set_ylabel("north (m)")
    for ax in axes.flat[n:]:
        ax.set_visible(False)
    return fig


def test_the_prediction_panels_pass_and_their_mistakes_are_named(tracks, capsys):
    observed, future = tracks
    check_plot_predictions(plot_predictions, observed, future, 3)
    assert "✓" in capsys.readouterr().out
    with pytest.raises(CheckFailed, match="centred on Florence"):
        check_plot_predictions(
            lambda *a: plot_predictions(*a, centre=np.asarray(FLORENCE)), observed, future, 3
        )
    with pytest.raises(CheckFailed, match="one panel per trajectory"):
        check_plot_predictions(lambda o, f, p, n: plot_predictions(o, f, p, 4), observed, future, 3)
    with pytest.raises(CheckFailed, match="'constant velocity' prediction"):
        check_plot_predictions(
            lambda o, f, p, n: plot_predictions(o, f, {"stay": p["stay"]}, n), observed, future, 3
        )


def build_models(add_norm="post", hidden=64, forcing=0.5, positional=True):
    return {
        "GRU": EncoderDecoder(Encoder(2, hidden), Decoder(2, hidden), 3, 0.5),
        "GRU + attention": EncoderDecoder(Encoder(2, 64), AttentionDecoder(2, 64), 3, forcing),
        "self-attention": SelfAttentionEncoderDecoder(
            SelfAttentionConfig(
                n_features=2,
                d_model=32,
                num_heads=4,
                d_ff=64,
                target_len=3,
                num_layers=2,
                add_norm=add_norm,
                positional=positional,
            )
        ),
    }


def test_the_models_pass_and_their_mistakes_are_named(capsys):
    state = torch.random.get_rng_state()
    check_models(build_models)
    assert "✓" in capsys.readouterr().out
    assert torch.equal(torch.random.get_rng_state(), state)
    with pytest.raises(CheckFailed, match="no Add & Norm"):
        check_models(lambda: build_models(add_norm=None))
    with pytest.raises(CheckFailed, match="parameters"):
        check_models(lambda: build_models(hidden=32))
    with pytest.raises(CheckFailed, match="keys"):
        check_models(lambda: list(build_models().values()))


@pytest.mark.parametrize("forcing", [0.0, 1.0])
def test_a_wrong_teacher_forcing_probability_is_named(forcing):
    with pytest.raises(
        CheckFailed,
        match=rf"'GRU \+ attention' has teacher_forcing_prob={forcing}, the chapter's 0.5",
    ):
        check_models(lambda: build_models(forcing=forcing))


def test_pre_norm_and_a_missing_positional_encoding_are_named():
    # "pre" has 128 more parameters (a final LayerNorm per stack): named, not a size mismatch
    with pytest.raises(CheckFailed, match="add_norm='pre', the chapter's 'post'"):
        check_models(lambda: build_models(add_norm="pre"))
    with pytest.raises(CheckFailed, match="positional=False: without positional encoding"):
        check_models(lambda: build_models(positional=False))


@pytest.fixture(scope="module")
def exercise_data():
    r = [np.random.default_rng([7, k]) for k in range(2)]
    return city_trajectories(2000, rng=r[0]), city_trajectories(200, rng=r[1])


@pytest.fixture(scope="module")
def small_data():
    """Enough to train on in a moment: for the mistakes named before the loss is judged."""
    r = [np.random.default_rng([8, k]) for k in range(2)]
    return city_trajectories(200, rng=r[0]), city_trajectories(50, rng=r[1])


def train_attention_gru(
    train_set,
    valid_set,
    epochs=15,
    lr=1e-3,
    forcing=0.5,
    with_target=True,
    trained=True,
    stale_optimizer=False,
):
    torch.manual_seed(0)
    model = EncoderDecoder(Encoder(2, 64), AttentionDecoder(2, 64), 3, forcing)
    initial = {k: v.clone() for k, v in model.state_dict().items()}
    src, tgt = train_set.tensors
    items = TensorDataset(src, tgt, tgt) if with_target else TensorDataset(src, tgt)
    loader = DataLoader(items, batch_size=64, shuffle=True, generator=torch.Generator())
    # the classic slip: an optimizer built on another model's parameters (the Trainer refuses it)
    stale = EncoderDecoder(Encoder(2, 64), AttentionDecoder(2, 64), 3)
    optimizer = torch.optim.Adam((stale if stale_optimizer else model).parameters(), lr=lr)
    trainer = Trainer(model, nn.MSELoss(), optimizer, "cpu")
    trainer.fit(
        loader, DataLoader(valid_set, batch_size=200), epochs=epochs, seed=0, progress=False
    )
    if not trained:  # the model cell re-run after training: the weights are the initial ones
        model.load_state_dict(initial)
    return trainer


def test_training_passes_and_an_untrained_model_is_caught(exercise_data, small_data, capsys):
    check_training(train_attention_gru, *exercise_data)
    assert "✓" in capsys.readouterr().out
    with unseen_cases(1), pytest.raises(CheckFailed, match="not below stay's"):
        # the grader measures the returned model itself, not the trainer's history
        check_training(lambda t, v: train_attention_gru(t, v, trained=False), *exercise_data)
    with pytest.raises(CheckFailed, match="none of the model's parameters.*Re-create the optim"):
        check_training(lambda t, v: train_attention_gru(t, v, stale_optimizer=True), *small_data)
    with pytest.raises(CheckFailed, match="train 15 epochs"):
        check_training(lambda t, v: train_attention_gru(t, v, epochs=2), *small_data)
    with pytest.raises(CheckFailed, match="return the Trainer"):
        check_training(lambda t, v: None, *small_data)


@pytest.mark.parametrize("lr", [1e-4, 1e-2])
def test_a_wrong_learning_rate_is_named(small_data, lr):
    # both pass the loss window on the exercise's data (review N4): read from the optimizer
    with pytest.raises(CheckFailed, match=f"learning rate is {lr:g}, the recipe's 1e-3"):
        check_training(lambda t, v: train_attention_gru(t, v, lr=lr), *small_data)


@pytest.mark.parametrize("forcing", [0.0, 1.0])
def test_a_wrong_teacher_forcing_probability_in_training_is_named(small_data, forcing):
    with pytest.raises(CheckFailed, match=f"teacher_forcing_prob is {forcing}, the recipe's 0.5"):
        check_training(lambda t, v: train_attention_gru(t, v, forcing=forcing), *small_data)


def test_training_items_without_the_target_are_named(small_data):
    # items (source, target): the model never sees the target, so no teacher forcing
    with pytest.raises(CheckFailed, match=r"received the source alone.*\(source, target, target\)"):
        check_training(lambda t, v: train_attention_gru(t, v, with_target=False), *small_data)


def stay_ade(n, rng, last_only=False, accumulated=True):
    start = np.broadcast_to(np.asarray(FLORENCE, dtype=float), (n, 1, 2))
    steps = rng.uniform(-0.001, 0.001, (n, 3, 2))  # degrees
    future = start + (np.cumsum(steps, axis=1) if accumulated else steps)
    d = haversine(start, future)  # (n, 3) metres
    return d[:, -1].mean() if last_only else d.mean()


def test_the_floor_passes_and_its_mistakes_are_named(capsys):
    check_stay_floor(stay_ade)
    assert "✓" in capsys.readouterr().out
    with pytest.raises(CheckFailed, match="FDE"):
        check_stay_floor(lambda n, rng: stay_ade(n, rng, last_only=True))
    with pytest.raises(CheckFailed, match="kilometres"):
        check_stay_floor(lambda n, rng: stay_ade(n, rng) / 1000)
    # the first step alone and steps not accumulated both give one step's error: name both
    for one_step in (
        lambda n, rng: stay_ade(n, rng, accumulated=False),
        lambda n, rng: haversine(
            np.asarray(FLORENCE), FLORENCE + rng.uniform(-0.001, 0.001, (n, 2))
        ).mean(),
    ):
        with pytest.raises(
            CheckFailed, match="only the first step.*not accumulated: the k-th future fix"
        ):
            check_stay_floor(one_step)
    with pytest.raises(CheckFailed, match="one number"):
        check_stay_floor(lambda n, rng: "98.9 m")


def test_check_plot_trajectories_of_the_pair_whole_is_explained():
    import pytest

    from course_lib.checks.gps_pipeline import check_plot_trajectories

    with pytest.raises(TypeError, match=r"missing.*'n'.*\(observed, future\) pair unpacked"):
        check_plot_trajectories(print, ("observed", "future"), 5)
