"""Inside ``unseen_cases()`` the Chapter 5 and 6 self-checks draw other cases: a right answer
passes there as it does in a student's notebook, and an answer that merely replays the
outputs it gave for the students' cases fails. Outside the block nothing changes."""

import itertools
import os
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from course_lib.attention import scaled_dot_product_attention
from course_lib.checks import (
    CheckFailed,
    check_ade_fde,
    check_attention_shapes,
    check_cached_attention_step,
    check_chapter_vocabulary,
    check_constant_velocity,
    check_datasets,
    check_decoder_self_attention_mask,
    check_haversine,
    check_inverse_transform,
    check_label_smoothed_loss,
    check_models,
    check_plot_predictions,
    check_plot_trajectories,
    check_stay_floor,
    check_token_positions,
    check_training,
    unseen_cases,
)
from course_lib.checks.translation import CHAPTER_IDS, CHAPTER_VOCAB_SIZE, CHAPTER_WORD_IDS
from course_lib.geo import haversine, to_local
from course_lib.gps import FLORENCE, city_trajectories
from course_lib.masking import causal_mask
from course_lib.points_transformer import SelfAttentionConfig, SelfAttentionEncoderDecoder
from course_lib.positional import sinusoidal_encoding
from course_lib.seq2seq import Decoder, Encoder, EncoderDecoder
from course_lib.seq2seq_attention import AttentionDecoder
from course_lib.train import Trainer
from course_lib.trajectories import (
    Standardizer,
    TrajectoryFeatures,
    ade_fde,
    constant_velocity,
    trajectory_datasets,
)
from course_lib.vocab import PAD, UNK

# --- right answers, from the library ------------------------------------------------------


def token_positions(sentence, vocab, d_model):
    ids = vocab.encode(sentence)
    return torch.tensor(ids), sinusoidal_encoding(len(ids), d_model)


def attention_shapes(b, lq, lk, d, h):
    return (b, lq, d), (b, lq, lk), (b, h, lq, lk)


def decoder_mask(tgt_in):
    return causal_mask(tgt_in.shape[1])[None] | (tgt_in == PAD)[:, None, :]


def cached_step(q, k, v, cache_k, cache_v):
    keys, values = torch.cat([cache_k, k], 1), torch.cat([cache_v, v], 1)
    return scaled_dot_product_attention(q, keys, values)[0], keys, values


def smoothed_loss(logits, target, epsilon):
    return F.cross_entropy(logits, target, label_smoothing=epsilon)


def right_datasets(train, valid):
    return trajectory_datasets(TrajectoryFeatures.fit(*train), train, valid)


def right_inverse(predicted, observed, mean, std):
    return TrajectoryFeatures(Standardizer(mean, std)).to_latlon(predicted, observed)


def stay_ade(n, rng):
    start = np.broadcast_to(np.asarray(FLORENCE, dtype=float), (n, 1, 2))
    future = start + np.cumsum(rng.uniform(-0.001, 0.001, (n, 3, 2)), axis=1)
    return haversine(start, future).mean()


def plot_trajectories(observed, future, n):
    fig, ax = plt.subplots()
    for k in range(n):
        for track in (observed[k], future[k]):
            xy = to_local(track[:, :2], FLORENCE)
            ax.plot(xy[:, 0], xy[:, 1])
    ax.set_aspect("equal")
    ax.set_xlabel("east (m)")
    ax.set_ylabel("north (m)")
    return fig


def plot_predictions(observed, future, predictions, n):
    fig, axes = plt.subplots(2, 2)
    for k, ax in enumerate(axes.flat[:n]):
        for track in [observed[k, :, :2], future[k], *(p[k] for p in predictions.values())]:
            xy = to_local(track, observed[k, -1, :2])
            ax.plot(xy[:, 0], xy[:, 1])
        ax.set_aspect("equal")
        ax.set_xlabel("east (m)")
        ax.set_ylabel("north (m)")
    for ax in axes.flat[n:]:
        ax.set_visible(False)
    return fig


@pytest.fixture(scope="module")
def tracks():
    """Enough trajectories that a shuffle puts other ones first."""
    return city_trajectories(40, rng=np.random.default_rng(0))


# --- the memorizing answer ------------------------------------------------------------------


def recorder(answer, outputs):
    """``answer``, storing every value it returns in ``outputs``."""

    def recording(*args):
        outputs.append(answer(*args))
        return outputs[-1]

    return recording


def replayer(outputs):
    """Ignores its inputs and returns the stored values in order (over again when they run
    out, so it fails on its values, not by running dry)."""
    stored = itertools.cycle(outputs)

    def replaying(*args):
        for arg in args:  # a cheat that draws once from the rng it is given, so that
            if isinstance(arg, np.random.Generator):  # check_stay_floor sees it used
                arg.uniform()
        return next(stored)

    return replaying


def replay(check, answer, *data):
    """Run ``check`` at variant 0 with ``answer`` recorded, and return the replaying cheat."""
    outputs = []
    check(recorder(answer, outputs), *data)
    assert outputs, "the check never called the answer"
    return outputs


PLAIN = {  # checks that call a plain function: (check, right answer, data the check takes)
    "token_positions": (check_token_positions, token_positions, ()),
    "attention_shapes": (check_attention_shapes, attention_shapes, ()),
    "decoder_self_attention_mask": (check_decoder_self_attention_mask, decoder_mask, ()),
    "cached_attention_step": (check_cached_attention_step, cached_step, ()),
    "label_smoothed_loss": (check_label_smoothed_loss, smoothed_loss, ()),
    "datasets": (check_datasets, right_datasets, ()),
    "inverse_transform": (check_inverse_transform, right_inverse, ()),
    "haversine": (check_haversine, haversine, ()),
    "ade_fde": (check_ade_fde, ade_fde, ()),
    "constant_velocity": (check_constant_velocity, constant_velocity, ()),
    "stay_floor": (check_stay_floor, stay_ade, ()),
    "plot_trajectories": (check_plot_trajectories, plot_trajectories, ("tracks", 3)),
    "plot_predictions": (check_plot_predictions, plot_predictions, ("tracks", 3)),
}


def _plain(key, tracks):
    check, answer, data = PLAIN[key]
    data = tuple(itertools.chain.from_iterable(tracks if d == "tracks" else (d,) for d in data))
    return check, answer, data


@pytest.mark.parametrize("key", PLAIN)
def test_a_right_answer_passes_the_students_and_the_unseen_cases(key, tracks, capsys):
    check, answer, data = _plain(key, tracks)
    check(answer, *data)
    for variant in (1, 2):
        with unseen_cases(variant):
            check(answer, *data)
    assert capsys.readouterr().out.count("✓") == 3


@pytest.mark.parametrize("key", PLAIN)
def test_replaying_the_students_outputs_fails_on_the_unseen_cases(key, tracks, capsys):
    check, answer, data = _plain(key, tracks)
    outputs = replay(check, answer, *data)
    check(replayer(outputs), *data)  # the cheat passes the students' cases...
    assert capsys.readouterr().out.count("✓") == 2
    for variant in (1, 2):
        with unseen_cases(variant), pytest.raises(CheckFailed):  # ...and only those
            check(replayer(outputs), *data)


@pytest.mark.parametrize("key", PLAIN)
def test_the_unseen_cases_are_the_same_on_every_run(key, tracks, capsys):
    check, answer, data = _plain(key, tracks)
    with unseen_cases():
        outputs = replay(check, answer, *data)
        check(replayer(outputs), *data)
    assert capsys.readouterr().out.count("✓") == 2


# The lines the committed notebooks show (nbval compares them): unchanged at variant 0.
STUDENT_LINES = {
    "token_positions": "✓ token_positions: all 4 cases agree with the reference.",
    "attention_shapes": "✓ attention_shapes: all 4 cases agree with the reference.",
    "decoder_self_attention_mask": (
        "✓ decoder_self_attention_mask: all 5 cases agree with the reference."
    ),
    "cached_attention_step": "✓ cached_attention_step: all 5 cases agree with the reference.",
    "label_smoothed_loss": "✓ label_smoothed_loss: all 6 cases agree with the reference.",
    "datasets": "✓ make_datasets: all 2 cases agree with the reference.",
    "inverse_transform": "✓ inverse_transform: all 3 cases agree with the reference.",
    "haversine": "✓ haversine: all 2 cases agree with the reference.",
    "ade_fde": "✓ ade_fde: all 3 cases agree with the reference.",
    "constant_velocity": "✓ constant_velocity: all 3 cases agree with the reference.",
    "stay_floor": (
        "✓ stay_ade: within a metre of 98.94 m, the error no predictor can beat on these data."
    ),
    "plot_trajectories": (
        "✓ plot_trajectories: the 3 trajectories are on the map, in metres, with equal axes."
    ),
    "plot_predictions": (
        "✓ plot_predictions: 3 panels, each with the observed fixes, the truth and 2 "
        "predictions, in metres."
    ),
}


STUDENT_CALLS = {"token_positions": 4, "attention_shapes": 4, "decoder_self_attention_mask": 5}
STUDENT_CALLS |= {"cached_attention_step": 5, "label_smoothed_loss": 6, "datasets": 2}
STUDENT_CALLS |= {"inverse_transform": 3, "haversine": 2, "ade_fde": 3, "constant_velocity": 3}


@pytest.mark.parametrize("key", PLAIN)
def test_the_students_cases_are_unchanged(key, tracks, capsys):
    check, answer, data = _plain(key, tracks)
    calls = []
    check(recorder(answer, calls), *data)
    assert capsys.readouterr().out == STUDENT_LINES[key] + "\n"
    assert len(calls) == STUDENT_CALLS.get(key, 1)


def test_the_unseen_cases_add_cases_to_the_hand_written_ones(capsys):
    with unseen_cases():
        check_token_positions(token_positions)
        check_attention_shapes(attention_shapes)
        check_decoder_self_attention_mask(decoder_mask)
        check_haversine(haversine)
        check_constant_velocity(constant_velocity)
    out = capsys.readouterr().out
    for line in [
        "token_positions: all 6 cases",
        "attention_shapes: all 6 cases",
        "decoder_self_attention_mask: all 7 cases",
        "haversine: all 3 cases",
        "constant_velocity: all 4 cases",
    ]:
        assert line in out


def test_a_replayed_stay_estimate_is_named(capsys):
    with (
        unseen_cases(),
        pytest.raises(CheckFailed, match="never drew from the rng.*a stored number"),
    ):
        check_stay_floor(lambda n, rng: 98.9)
    with unseen_cases(), pytest.raises(CheckFailed, match="FDE"):  # the usual messages
        check_stay_floor(lambda n, rng: 122.4)


@pytest.mark.parametrize(
    ("check", "answer"),
    [
        (check_attention_shapes, attention_shapes),
        (check_decoder_self_attention_mask, decoder_mask),
        (check_haversine, haversine),
        (check_datasets, right_datasets),
    ],
)
def test_the_unseen_cases_leave_the_random_state_alone(check, answer):
    torch.manual_seed(0)
    np.random.seed(0)
    with unseen_cases():
        check(answer)
    assert torch.rand(1).item() == pytest.approx(0.4962566, abs=1e-6)
    assert np.random.rand() == pytest.approx(0.5488135, abs=1e-6)


# --- the chapter's vocabulary: no input to replay, so the cheat is a stored word list ------


class WordVocab:
    """Encodes word by word from a stored ``{word: id}``; unknown words are ``<unk>``."""

    def __init__(self, ids, size=CHAPTER_VOCAB_SIZE):
        self.ids, self.size = ids, size

    def encode(self, sentence):
        return [self.ids.get(w, UNK) for w in sentence.split()] + [2]

    def __len__(self):
        return self.size


def test_a_vocabulary_of_the_students_sentences_fails_on_the_unseen_ones(capsys):
    # A function returns a Vocab and takes no input: replaying the Vocab it returned is the
    # right answer itself. The cheat is a stub that knows the ids the check prints.
    seen = {w: i for s, ids in CHAPTER_IDS.items() for w, i in zip(s.split(), ids, strict=False)}
    check_chapter_vocabulary(lambda: WordVocab(seen))
    assert capsys.readouterr().out.startswith("✓ chapter_vocabulary: all 3 sentences")
    for variant in (1, 2):
        with unseen_cases(variant), pytest.raises(CheckFailed, match="the ids of"):
            check_chapter_vocabulary(lambda: WordVocab(seen))
    with unseen_cases():  # the check's own unseen ids are consistent
        check_chapter_vocabulary(lambda: WordVocab(seen | CHAPTER_WORD_IDS))
    assert capsys.readouterr().out.startswith("✓ chapter_vocabulary: all 6 sentences")


def _data_file():
    folder = os.environ.get("COURSE_DATA_DIR")
    path = Path(folder) / "eng-fra.txt.gz" if folder else None
    return path if path and path.exists() else None


@pytest.mark.skipif(_data_file() is None, reason="no local eng-fra.txt.gz (set COURSE_DATA_DIR)")
def test_the_chapters_vocabulary_passes_the_unseen_sentences(capsys):
    from course_lib.tatoeba import load_pairs, split_pairs
    from course_lib.vocab import Vocab

    pairs = load_pairs(_data_file())
    vocab = Vocab(fr for fr, _ in split_pairs(pairs, seed=0).train)
    assert {w: vocab.index[w] for w in CHAPTER_WORD_IDS} == CHAPTER_WORD_IDS
    check_chapter_vocabulary(lambda: vocab)
    for variant in (1, 2):
        with unseen_cases(variant):
            check_chapter_vocabulary(lambda: vocab)
    with unseen_cases(), pytest.raises(CheckFailed, match="from all pairs|has 4603 tokens"):
        check_chapter_vocabulary(lambda: Vocab(fr for fr, _ in pairs))
    assert capsys.readouterr().out.count("✓") == 3


# --- the models: the check inspects the objects; the cheat stores their outputs -----------


def build_models():
    return {
        "GRU": EncoderDecoder(Encoder(2, 64), Decoder(2, 64), 3, 0.5),
        "GRU + attention": EncoderDecoder(Encoder(2, 64), AttentionDecoder(2, 64), 3, 0.5),
        "self-attention": SelfAttentionEncoderDecoder(
            SelfAttentionConfig(
                n_features=2, d_model=32, num_heads=4, d_ff=64, target_len=3, num_layers=2
            )
        ),
    }


def test_models_pass_the_unseen_batch_and_stored_outputs_fail(capsys):
    check_models(build_models)
    with unseen_cases():
        check_models(build_models)
    assert capsys.readouterr().out.count("✓") == 2
    # the memorizing answer: the chapter's models, each answering what it answered before
    outputs = {}

    def recording():
        models = build_models()
        for key, model in models.items():

            def store(module, args, out, key=key):
                outputs.setdefault(key, out)

            model.register_forward_hook(store)
        return models

    def replaying():
        models = build_models()
        for key, model in models.items():
            model.forward = lambda *a, out=outputs[key]: out
        return models

    check_models(recording)
    check_models(replaying)
    assert capsys.readouterr().out.count("✓") == 2
    with unseen_cases(), pytest.raises(CheckFailed, match=r"maps \(\d, 5, 2\) to \(4, 3, 2\)"):
        check_models(replaying)


# --- training: the check measures the returned model; the cheat reports stored losses ----


@pytest.fixture(scope="module")
def exercise_data():
    r = [np.random.default_rng([7, k]) for k in range(2)]
    return city_trajectories(2000, rng=r[0]), city_trajectories(200, rng=r[1])


def train_attention_gru(train_set, valid_set):
    torch.manual_seed(0)
    model = EncoderDecoder(Encoder(2, 64), AttentionDecoder(2, 64), 3, 0.5)
    src, tgt = train_set.tensors
    loader = DataLoader(
        TensorDataset(src, tgt, tgt), batch_size=64, shuffle=True, generator=torch.Generator()
    )
    trainer = Trainer(model, nn.MSELoss(), torch.optim.Adam(model.parameters(), lr=1e-3), "cpu")
    return trainer.fit(
        loader, DataLoader(valid_set, batch_size=200), epochs=15, seed=0, progress=False
    )


def test_training_passes_the_unseen_check_and_stored_losses_fail(exercise_data, capsys):
    # The right answer at variant 0 is tests/test_checks_gps_pipeline.py's (one run each).
    trained = []
    with unseen_cases():
        check_training(recorder(train_attention_gru, trained), *exercise_data)
    assert capsys.readouterr().out.count("✓") == 1

    def stored_losses(train_set, valid_set):  # the recipe's objects, none of its training
        model = EncoderDecoder(Encoder(2, 64), AttentionDecoder(2, 64), 3, 0.5)
        trainer = Trainer(model, nn.MSELoss(), torch.optim.Adam(model.parameters(), lr=1e-3))
        trainer.losses, trainer.val_losses = list(trained[0].losses), list(trained[0].val_losses)
        return trainer

    check_training(stored_losses, *exercise_data)
    assert capsys.readouterr().out.count("✓") == 1
    with unseen_cases(), pytest.raises(CheckFailed, match="final validation loss"):
        check_training(stored_losses, *exercise_data)

    def other_trainer(train_set, valid_set):  # the history of one run, the model of another
        trainer = stored_losses(train_set, valid_set)
        trainer.val_losses = [v - 0.05 for v in trainer.val_losses]
        trainer.model = trained[0].model
        return trainer

    with unseen_cases(), pytest.raises(CheckFailed, match="the trainer's last validation loss"):
        check_training(other_trainer, *exercise_data)
