"""Every self-check answers a student's slip with its own clear failure, never a crash.

Each test is one kind of mistake -- a value passed instead of the function, a missing
`return`, an exception, the wrong parameters, a result of the wrong type, shape or dtype, a
mask of the wrong dtype or polarity, an array where one number is expected -- fed to every
check it applies to. Each asserts that the check raises ``CheckFailed`` and that the message
names what was wrong. Plausible right answers in another form (a NumPy number, a 0-dim
tensor, a list for a pair) pass.
"""

from __future__ import annotations

import contextlib
import functools
import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch import nn

from course_lib import checks
from course_lib.attention import scaled_dot_product_attention
from course_lib.checks import CheckFailed
from course_lib.checks._core import compare
from course_lib.checks.gps_pipeline import _reference_models
from course_lib.geo import haversine
from course_lib.gps import FLORENCE, city_trajectories
from course_lib.masking import causal_mask, masked_softmax
from course_lib.rotary import apply_rotary
from course_lib.seq2seq_attention import AttentionDecoder
from course_lib.squares import make_squares, seq2seq_datasets
from course_lib.trajectories import ade_fde
from course_lib.vocab import PAD

# --- the data some checks take, small -----------------------------------------------------


@functools.cache
def tracks():
    return city_trajectories(6, rng=np.random.default_rng(0))


@functools.cache
def gps_splits():
    rng = [np.random.default_rng([9, k]) for k in range(2)]
    return city_trajectories(40, rng=rng[0]), city_trajectories(10, rng=rng[1])


@functools.cache
def squares():
    points, _ = make_squares(n=32, seed=13)
    val_points, _ = make_squares(n=16, seed=17)
    return seq2seq_datasets(points, val_points)


def run(name: str, answer) -> None:
    """Run the check ``name`` on ``answer`` (for both functions of the kernel check)."""
    check = getattr(checks, name)
    if name == "check_kernel_weights":
        return check(answer, answer)
    if name in ("check_plot_trajectories", "check_plot_predictions"):
        return check(answer, *tracks(), 3)
    if name == "check_training":
        return check(answer, *gps_splits())
    if name in ("check_train_width", "check_train_add_norm", "check_train_on_plateau"):
        return check(answer, *squares())
    return check(answer)


ALL = [name for name in checks.__all__ if name.startswith("check_")]
EXPERIMENTS = {"check_train_width", "check_train_add_norm", "check_train_on_plateau"}


# --- right answers, to be spoiled ---------------------------------------------------------


def gru_cell(x, h, w_ih, w_hh, b_ih, b_hh):
    x_r, x_z, x_n = (x @ w_ih.T + b_ih).chunk(3, -1)
    h_r, h_z, h_n = (h @ w_hh.T + b_hh).chunk(3, -1)
    r, z = torch.sigmoid(x_r + h_r), torch.sigmoid(x_z + h_z)
    return (1 - z) * torch.tanh(x_n + r * h_n) + z * h


def decode_scheduled(encoder, decoder, source, target, p, generator):
    batch, steps = target.shape[:2]
    _, hidden = encoder(source)
    x, outputs = source[:, -1:], []
    for t in range(steps):
        if t > 0:
            coins = torch.rand(batch, generator=generator) < p
            x = torch.where(coins[:, None, None], target[:, t - 1 : t], outputs[-1])
        out, hidden, _ = decoder(x, hidden)
        outputs.append(out)
    return torch.cat(outputs, dim=1)


def sdpa(q, k, v, m):
    return scaled_dot_product_attention(q, k, v, attn_mask=m)


def prefix_mask(s, t):
    mask = causal_mask(s + t)
    mask[:s, :s] = False
    return mask


def decoder_mask(tgt_in):
    t = tgt_in.shape[1]
    return causal_mask(t)[None] | (tgt_in == PAD)[:, None, :]


def cached_step(q, k, v, cache_k, cache_v):
    keys, values = torch.cat([cache_k, k], 1), torch.cat([cache_v, v], 1)
    context = torch.softmax(q @ keys.transpose(1, 2) / q.shape[-1] ** 0.5, -1) @ values
    return context, keys, values


def stay_ade(n, rng):
    start = np.broadcast_to(np.asarray(FLORENCE, dtype=float), (n, 1, 2))
    future = start + np.cumsum(rng.uniform(-0.001, 0.001, (n, 3, 2)), axis=1)
    return haversine(start, future).mean()


def cache_bytes(layers, kv_heads, head_dim, size, tokens):
    return 2 * layers * kv_heads * head_dim * size * tokens


def smoothed_loss(logits, target, epsilon):
    return F.cross_entropy(logits, target, label_smoothing=epsilon)


# one right answer per check that returns a tensor: (check, answer)
TENSOR_ANSWERS = {
    "check_gru_cell": gru_cell,
    "check_decoder_inputs": lambda s, t: torch.cat([s[:, -1:], t[:, :-1]], 1),
    "check_masked_softmax": masked_softmax,
    "check_general_scores": lambda q, k, w: q @ w @ k.transpose(-2, -1),
    "check_rotate_pairs": lambda x, start: apply_rotary(x, start=start),
    "check_repeat_kv": lambda kv, nh: kv.repeat_interleave(nh // kv.shape[1], dim=1),
    "check_prefix_mask": prefix_mask,
    "check_decoder_self_attention_mask": decoder_mask,
}


def spoiled(answer, spoil):
    """``answer`` whose result goes through ``spoil``."""
    return lambda *args: spoil(answer(*args))


# --- what is passed instead of a function -------------------------------------------------


@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize(
    "value, words",
    [
        (torch.zeros(2, 3), r"pass the function itself.*not Tensor \(2, 3\).*no parentheses"),
        (None, r"pass the function itself.*not None"),
        ("my_function", r"pass the function itself.*not str 'my_function'.*without quotes"),
        (3.5, r"pass the function itself.*not float 3\.5"),
    ],
    ids=["its result", "None", "its name", "a number"],
)
def test_a_value_passed_instead_of_the_function_is_named(name, value, words):
    with pytest.raises(CheckFailed, match=words):
        run(name, value)


@pytest.mark.parametrize(
    "name, make, words",
    [
        (
            "check_context_only_decoder",
            lambda: AttentionDecoder(2, 4),
            r"pass the class ContextOnlyDecoder itself, not an instance",
        ),
        (
            "check_learned_positions",
            lambda: nn.Linear(2, 2),
            r"pass the class LearnedPositions itself, not an instance",
        ),
    ],
)
def test_an_instance_passed_instead_of_the_class_is_named(name, make, words):
    with pytest.raises(CheckFailed, match=words):
        run(name, make())


def test_a_class_of_the_wrong_kind_is_named():
    class NotAModule:
        def __init__(self, max_len, d_model):
            self.embedding = nn.Embedding(max_len, d_model)

    class NotADecoder(nn.Module):
        def __init__(self, n_features, hidden_dim):
            super().__init__()
            self.output = nn.Linear(hidden_dim, n_features)

    with pytest.raises(CheckFailed, match=r"built NotAModule: make LearnedPositions a module"):
        checks.check_learned_positions(NotAModule)
    with pytest.raises(CheckFailed, match=r"built NotADecoder: subclass the library's decoder"):
        checks.check_context_only_decoder(NotADecoder)


# --- what the function does wrong, for every check ----------------------------------------


@pytest.mark.parametrize("name", ALL)
def test_a_missing_return_is_named(name):
    words = (
        r"returned None: end the function with `return trainer`"
        if name in EXPERIMENTS
        else r"returned None: did you forget `return`\?"
    )
    with pytest.raises(CheckFailed, match=words):
        run(name, lambda *args: None)


@pytest.mark.parametrize("name", ALL)
def test_an_exception_is_reported_with_its_message(name):
    def broken(*args):
        raise ValueError("a slip inside the answer")

    with pytest.raises(CheckFailed, match=r"raised ValueError: a slip inside the answer"):
        run(name, broken)


@pytest.mark.parametrize("name", ALL)
def test_parameters_that_do_not_fit_are_named(name):
    def ten(a, b, c, d, e, f, g, h, i, j):
        return None

    with pytest.raises(CheckFailed, match=r"your ten\(a, b, .*\) cannot take the \d argument"):
        run(name, ten)


@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize(
    "result, words",
    [("42", r"str '42'"), (object(), r"got object|returned object|built object")],
    ids=["a string", "an object"],
)
def test_a_result_of_the_wrong_type_is_named(name, result, words):
    with pytest.raises(CheckFailed, match=words):
        run(name, lambda *args: result)


# --- tensors of the wrong kind ------------------------------------------------------------


@pytest.mark.parametrize("name", TENSOR_ANSWERS)
def test_a_numpy_array_where_a_tensor_is_expected_is_named(name):
    answer = spoiled(TENSOR_ANSWERS[name], lambda t: t.detach().numpy())
    with pytest.raises(CheckFailed, match=r"should return a torch.Tensor, got a NumPy array"):
        run(name, answer)


@pytest.mark.parametrize("name", TENSOR_ANSWERS)
def test_a_list_where_a_tensor_is_expected_is_named(name):
    with pytest.raises(CheckFailed, match=r"should return a torch.Tensor, got list of"):
        run(name, spoiled(TENSOR_ANSWERS[name], lambda t: t.tolist()))


@pytest.mark.parametrize("name", TENSOR_ANSWERS)
def test_a_tuple_where_one_tensor_is_expected_is_named(name):
    answer = spoiled(TENSOR_ANSWERS[name], lambda t: (t, t.sum()))
    with pytest.raises(CheckFailed, match=r"got tuple of 2 .*alone -- item 0 has that shape"):
        run(name, answer)


@pytest.mark.parametrize(
    "check, answer, words",
    [
        (checks.check_scaled_dot_product_attention, spoiled(sdpa, lambda r: r[0]), "a pair"),
        (checks.check_cached_attention_step, spoiled(cached_step, lambda r: r[0]), "a triple"),
    ],
)
def test_one_tensor_where_several_are_expected_is_named(check, answer, words):
    with pytest.raises(CheckFailed, match=rf"should return {words} .*got Tensor.*return all"):
        check(answer)


def test_results_in_the_wrong_order_are_named():
    with pytest.raises(CheckFailed, match=r"another order.*return \(context, weights\)"):
        checks.check_scaled_dot_product_attention(spoiled(sdpa, lambda r: r[::-1]))
    with pytest.raises(CheckFailed, match=r"another order.*new_cache_k, new_cache_v\)"):
        checks.check_cached_attention_step(spoiled(cached_step, lambda r: (r[1], r[2], r[0])))


def test_none_inside_a_returned_tuple_is_named():
    with pytest.raises(CheckFailed, match=r"\(weights\) is None, expected a torch.Tensor"):
        checks.check_scaled_dot_product_attention(spoiled(sdpa, lambda r: (r[0], None)))


@pytest.mark.parametrize(
    "name, spoil, words",
    [
        ("check_gru_cell", lambda t: t.unsqueeze(0), r"An axis of size 1 too many"),
        ("check_decoder_inputs", lambda t: t[:, :, 0], r"returned shape \(1, 2\), expected"),
        ("check_rotate_pairs", lambda t: t.T, r"The last two axes look swapped"),
    ],
)
def test_a_wrong_shape_is_named_with_its_likely_cause(name, spoil, words):
    with pytest.raises(CheckFailed, match=words):
        run(name, spoiled(TENSOR_ANSWERS[name], spoil))


@pytest.mark.parametrize("name", ["check_gru_cell", "check_rotate_pairs", "check_repeat_kv"])
def test_nan_in_the_output_is_named(name):
    def with_nan(t):
        t = t.clone()
        t.view(-1)[0] = float("nan")
        return t

    with pytest.raises(CheckFailed, match=r"returned NaN at \[0, 0.*where the reference is"):
        run(name, spoiled(TENSOR_ANSWERS[name], with_nan))


def test_nan_in_an_array_answer_is_named():
    def haversine_with_nan(a, b):
        d = haversine(a, b)
        d[0] = np.nan
        return d

    with pytest.raises(CheckFailed, match=r"haversine returned NaN at \[0\]"):
        checks.check_haversine(haversine_with_nan)


def test_integers_where_floats_are_expected_are_named():
    right = TENSOR_ANSWERS["check_decoder_inputs"]
    with pytest.raises(CheckFailed, match=r"different values.*Note: it is a torch.int64 tensor"):
        checks.check_decoder_inputs(spoiled(right, lambda t: t.long()))
    with pytest.raises(CheckFailed, match=r"right values, but it is a torch.int64 tensor"):
        compare(torch.tensor([1, 2]), torch.tensor([1.0, 2.0]), "f", "a case")


def test_another_float_precision_is_accepted(capsys):
    # the values are compared: float64 for float32 inputs, float32 for float64 ones
    checks.check_gru_cell(spoiled(gru_cell, lambda t: t.double()))
    checks.check_rotate_pairs(lambda x, start: apply_rotary(x.float(), start=start))
    assert capsys.readouterr().out.count("✓") == 2


# --- masks: boolean, True = blocked -------------------------------------------------------

MASKS = {"check_prefix_mask": prefix_mask, "check_decoder_self_attention_mask": decoder_mask}


@pytest.mark.parametrize("name", MASKS)
@pytest.mark.parametrize("dtype", [torch.long, torch.int32, torch.float32])
def test_a_zero_one_mask_is_refused_naming_its_dtype(name, dtype):
    words = (
        rf"returned a {dtype} mask: the library's masks are boolean \(True = blocked\).*\.bool\(\)"
    )
    with pytest.raises(CheckFailed, match=words):
        run(name, spoiled(MASKS[name], lambda m: m.to(dtype)))


@pytest.mark.parametrize("name", MASKS)
def test_a_zero_one_mask_of_the_allowed_keys_is_named_inverted(name):
    words = r"whose 1s mark the keys that MAY be attended.*True must mean blocked: return mask == 0"
    with pytest.raises(CheckFailed, match=words):
        run(name, spoiled(MASKS[name], lambda m: (~m).float()))


def test_the_tutorial_mask_of_ones_below_the_diagonal_is_named_inverted():
    def tutorial(tgt_in):  # 1 = may attend, and one (T, T) mask for every sentence
        return torch.tril(torch.ones(tgt_in.shape[1], tgt_in.shape[1]))

    with pytest.raises(CheckFailed, match=r"torch.float32 mask whose 1s mark the keys that MAY"):
        checks.check_decoder_self_attention_mask(tutorial)


@pytest.mark.parametrize("name", MASKS)
def test_an_additive_mask_is_refused(name):
    def additive(m):
        return torch.zeros(m.shape).masked_fill(m, float("-inf"))

    with pytest.raises(
        CheckFailed, match=r"float32 mask with 0 and -inf, to be added to the scores"
    ):
        run(name, spoiled(MASKS[name], additive))


@pytest.mark.parametrize("name", MASKS)
def test_an_inverted_boolean_mask_names_the_polarity(name):
    with pytest.raises(CheckFailed, match=r"polarity is (flipped|reversed).*True means BLOCKED"):
        run(name, spoiled(MASKS[name], lambda m: ~m))


@pytest.mark.parametrize("name", MASKS)
def test_a_mostly_inverted_boolean_mask_names_the_polarity(name):
    def mostly_inverted(m):
        m = ~m
        m.view(-1)[0] = ~m.view(-1)[0]  # one entry off the exact inverse
        return m

    words = r"polarity looks inverted.*True must mean BLOCKED.*return ~mask"
    with pytest.raises(CheckFailed, match=words):
        run(name, spoiled(MASKS[name], mostly_inverted))


# --- one number, or two --------------------------------------------------------------------


def test_arrays_where_one_number_is_expected_are_named():
    def per_trajectory(predicted, true):
        d = haversine(predicted, true)  # (N, T)
        return d.mean(1), d[:, -1]

    words = r"ADE should be one number, the mean over trajectories and steps, got an array of shape \(1\): take .mean\(\)"
    with pytest.raises(CheckFailed, match=words):
        checks.check_ade_fde(per_trajectory)

    def per_walk(n, rng):
        start = np.broadcast_to(np.asarray(FLORENCE, dtype=float), (n, 1, 2))
        future = start + np.cumsum(rng.uniform(-0.001, 0.001, (n, 3, 2)), axis=1)
        return haversine(start, future).mean(1)  # (n,)

    with pytest.raises(CheckFailed, match=r"got an array of shape \(200000\).*take .mean\(\)"):
        checks.check_stay_floor(per_walk)
    with pytest.raises(CheckFailed, match=r"one loss per prediction.*\.mean\(\)"):
        checks.check_label_smoothed_loss(
            lambda x, y, e: F.cross_entropy(x, y, label_smoothing=e, reduction="none").numpy()
        )
    with pytest.raises(CheckFailed, match=r"cache_bytes should return one number, got an array"):
        checks.check_cache_bytes(lambda *a: np.array([cache_bytes(*a)] * 2))
    for text in (np.str_("10240"), np.array("10240"), np.array(None), 1j):
        with pytest.raises(CheckFailed, match=r"cache_bytes should return one number, got"):
            checks.check_cache_bytes(lambda *a, text=text: text)


@pytest.mark.parametrize(
    "check, answer",
    [
        (checks.check_cache_bytes, lambda *a: np.int64(cache_bytes(*a))),
        (checks.check_cache_bytes, lambda *a: torch.tensor(cache_bytes(*a))),
        (checks.check_cache_bytes, lambda *a: float(cache_bytes(*a))),
        (checks.check_label_smoothed_loss, lambda *a: np.float32(smoothed_loss(*a).item())),
        (checks.check_label_smoothed_loss, lambda *a: smoothed_loss(*a).numpy()),
        (checks.check_stay_floor, lambda n, rng: torch.tensor(stay_ade(n, rng))),
        (checks.check_stay_floor, lambda n, rng: np.float32(stay_ade(n, rng))),
        (checks.check_ade_fde, lambda p, t: tuple(np.float64(v) for v in ade_fde(p, t))),
        (checks.check_ade_fde, lambda p, t: [torch.tensor(v) for v in ade_fde(p, t)]),
        (checks.check_ade_fde, lambda p, t: np.array(ade_fde(p, t))),
        (
            checks.check_attention_shapes,
            lambda b, lq, lk, d, h: tuple(
                tuple(np.int64(n) for n in s) for s in [(b, lq, d), (b, lq, lk), (b, h, lq, lk)]
            ),
        ),
        (
            checks.check_attention_shapes,
            lambda b, lq, lk, d, h: [torch.Size([b, lq, d]), [b, lq, lk], (b, h, lq, lk)],
        ),
        (checks.check_scaled_dot_product_attention, lambda *a: list(sdpa(*a))),
    ],
)
def test_a_right_answer_in_another_form_passes(check, answer, capsys):
    check(answer)
    assert "✓" in capsys.readouterr().out


# --- mistakes particular to a check -------------------------------------------------------


def test_a_prediction_that_cannot_be_backpropagated_is_named():
    def in_place(*args):
        out = decode_scheduled(*args).exp()
        out.mul_(1.0)  # changes a tensor that exp saved for its gradient
        return out.log()

    with pytest.raises(CheckFailed, match=r"backpropagating through the predictions raised"):
        checks.check_scheduled_decode(in_place)


def test_a_model_that_raises_on_a_batch_is_named():
    def build_models():
        models = _reference_models()
        models["GRU"].forward = lambda *args: 1 / 0  # the model itself raises
        return models

    with pytest.raises(CheckFailed, match=r"'GRU' raised ZeroDivisionError on a batch"):
        checks.check_models(build_models)
    with pytest.raises(CheckFailed, match=r"the keys .*got \['0', 'GRU'\]"):
        checks.check_models(lambda: {0: None, "GRU": None})


def test_datasets_of_the_wrong_kind_are_named():
    def generators(train, valid):
        return (x for x in train), (x for x in valid)

    with pytest.raises(CheckFailed, match=r"the train dataset is generator, which has no len\(\)"):
        checks.check_datasets(generators)

    class Items:  # (source, target) pairs of NumPy float64 arrays
        def __init__(self, n):
            self.n = n

        def __len__(self):
            return self.n

        def __getitem__(self, i):
            return np.zeros((5, 2)), np.zeros((3, 2))

    def float64_items(train, valid):
        return Items(len(train[0])), Items(len(valid[0]))

    with pytest.raises(CheckFailed, match=r"NumPy array \(5, 2\) float64: models train on float32"):
        checks.check_datasets(float64_items)


def test_a_vocabulary_whose_length_raises_is_named():
    class Broken:
        def encode(self, sentence):
            return [1, 2]

        def __len__(self):
            raise RuntimeError("no words yet")

    with pytest.raises(CheckFailed, match=r"whose len\(\) raised RuntimeError: no words yet"):
        checks.check_chapter_vocabulary(Broken)


def test_a_decoder_whose_layers_do_not_fit_is_named():
    class ContextOnlyDecoder(AttentionDecoder):
        def __init__(self, n_features, hidden_dim):
            super().__init__(n_features, hidden_dim)
            self.gru = nn.GRU(n_features + 1, hidden_dim, batch_first=True)  # one too wide
            self.output = nn.Linear(hidden_dim, n_features)

    words = r"ContextOnlyDecoder's gru, attention or output raised RuntimeError.*replace only"
    with pytest.raises(CheckFailed, match=words):
        checks.check_context_only_decoder(ContextOnlyDecoder)


def test_a_figure_with_a_line_of_labels_is_read_not_crashed_on():
    import matplotlib.pyplot as plt

    def labels_only(observed, future, n):
        fig, ax = plt.subplots()
        ax.plot(["start", "end"], [0.0, 1.0])
        return fig

    with pytest.raises(CheckFailed, match=r"no line of the figure passes through"):
        checks.check_plot_trajectories(labels_only, *tracks(), 3)


def test_tensors_that_require_grad_in_a_list_are_named_not_crashed_on():
    def listed(predicted, observed, mean, std):
        return [torch.zeros(2, requires_grad=True)]

    with pytest.raises(CheckFailed, match=r"should return a NumPy array \(or a tensor\)"):
        checks.check_inverse_transform(listed)


def test_swapped_functions_and_results_are_named_as_swapped():
    from course_lib.checks import check_ade_fde, check_kernel_weights
    from course_lib.trajectories import ade_fde

    def laplace_weights(diffs):
        return torch.softmax(-diffs.abs(), dim=-1)

    def boxcar_weights(diffs, half_width=0.5):
        inside = (diffs.abs() < half_width).float()
        return inside / inside.sum(-1, keepdim=True).clamp(min=1)

    with pytest.raises(CheckFailed, match=r"boxcar weights: the two functions look swapped"):
        check_kernel_weights(boxcar_weights, laplace_weights)
    with pytest.raises(CheckFailed, match=r"you returned \(fde, ade\), swap them"):
        check_ade_fde(lambda p, t: ade_fde(p, t)[::-1])


# --- known mistakes that a check names (held-out probe) -----------------------------------


def test_multi_head_attention_without_out_proj_is_named():
    def no_out_proj(query, key, value, mha, key_padding_mask):
        d, h = mha.embed_dim, mha.num_heads
        b, t, _ = query.shape
        s = key.shape[1]
        w_q, w_k, w_v = mha.in_proj_weight.chunk(3)
        b_q, b_k, b_v = mha.in_proj_bias.chunk(3)
        q = F.linear(query, w_q, b_q).view(b, t, h, d // h).transpose(1, 2)
        k = F.linear(key, w_k, b_k).view(b, s, h, d // h).transpose(1, 2)
        v = F.linear(value, w_v, b_v).view(b, s, h, d // h).transpose(1, 2)
        scores = q @ k.transpose(-2, -1) / (d // h) ** 0.5
        if key_padding_mask is not None:
            scores = scores.masked_fill(key_padding_mask[:, None, None, :], float("-inf"))
        w = scores.softmax(-1)
        return (w @ v).transpose(1, 2).reshape(b, t, d), w.mean(1)

    with pytest.raises(CheckFailed, match=r"output projection out_proj is missing.*mha\.out_proj"):
        checks.check_multi_head_attention(no_out_proj)


@pytest.mark.parametrize("variant", [0, 1])
def test_inverse_transform_without_the_mean_is_named_and_not_the_first_fix(variant):
    from course_lib.geo import from_local

    def no_mean(predicted, observed, mean, std):
        return from_local(np.asarray(predicted) * std, observed[:, -1:, :2])

    def first_fix(predicted, observed, mean, std):
        return from_local(np.asarray(predicted) * std + mean, observed[:, :1, :2])

    def cases():
        return checks.unseen_cases(variant) if variant else contextlib.nullcontext()

    with cases(), pytest.raises(CheckFailed, match=r"the mean was not added back.*\* std \+ mean"):
        checks.check_inverse_transform(no_mean)
    with (
        cases(),
        pytest.raises(
            CheckFailed,
            match=r"added to the FIRST observed fix.*around the last observed fix, "
            r"observed\[:, -1:, :2\]",
        ),
    ):
        checks.check_inverse_transform(first_fix)


def test_a_valid_split_standardised_with_its_own_statistics_is_named():
    from torch.utils.data import TensorDataset

    from course_lib.trajectories import Standardizer, relative_metres

    def make_datasets(train, valid):
        def one(observed, future):
            seen, ahead = relative_metres(observed, future)
            scaler = Standardizer.fit(np.concatenate([seen, ahead], axis=1))
            return TensorDataset(
                torch.tensor(scaler.transform(seen), dtype=torch.float32),
                torch.tensor(scaler.transform(ahead), dtype=torch.float32),
            )

        return one(*train), one(*valid)

    with pytest.raises(
        CheckFailed, match=r"valid split was standardised with its own mean and std.*training"
    ):
        checks.check_datasets(make_datasets)


# --- known mistakes named by the checks (a fresh probe's cases) ----------------------------


def _cases(variant):
    return checks.unseen_cases(variant) if variant else contextlib.nullcontext()


def test_decoder_inputs_with_every_target_point_names_both_shapes():
    with pytest.raises(
        CheckFailed,
        match=r"returned shape \(1, 3, 2\), T \+ 1 = 3 steps, one step too many: expected "
        r"\(B, T, F\) = \(1, 2, 2\).*target\[:, :-1\]",
    ):
        checks.check_decoder_inputs(lambda s, t: torch.cat([s[:, -1:], t], dim=1))


@pytest.mark.parametrize("variant", [0, 1])
def test_attention_with_the_softmax_over_the_queries_is_named(variant):
    def over_queries(query, key, value, attn_mask=None):
        scores = query @ key.transpose(-2, -1) / query.shape[-1] ** 0.5
        if attn_mask is not None:
            scores = scores.masked_fill(attn_mask, float("-inf"))
        weights = torch.nan_to_num(torch.softmax(scores, dim=-2))
        return weights @ value, weights

    with (
        _cases(variant),
        pytest.raises(
            CheckFailed,
            match=r"\(weights\): the softmax runs over the queries \(dim=-2\).*over "
            r"the keys, the last axis \(dim=-1\)",
        ),
    ):
        checks.check_scaled_dot_product_attention(over_queries)


@pytest.mark.parametrize("variant", [0, 1])
@pytest.mark.parametrize("norm_first", [False, True])
def test_an_encoder_layer_with_a_gelu_is_named(variant, norm_first):
    def encoder_layer(x, layer, src_key_padding_mask):
        def attend(h):
            return layer.self_attn(
                h, h, h, key_padding_mask=src_key_padding_mask, need_weights=False
            )[0]

        if layer.norm_first:
            x = x + attend(layer.norm1(x))
            return x + layer.linear2(F.gelu(layer.linear1(layer.norm2(x))))
        x = layer.norm1(x + attend(x))
        return layer.norm2(x + layer.linear2(F.gelu(layer.linear1(x))))

    def answer(x, layer, mask):  # right on the layers of the other kind: fails on its own
        if layer.norm_first == norm_first:
            return encoder_layer(x, layer, mask)
        return layer(x, src_key_padding_mask=mask)

    with (
        _cases(variant),
        pytest.raises(
            CheckFailed,
            match=r"uses a GELU between linear1 and linear2; this layer's activation "
            r"is a ReLU.*use F\.relu",
        ),
    ):
        checks.check_encoder_layer(answer)


@pytest.mark.parametrize("variant", [0, 1])
def test_a_shift_matrix_with_one_speed_for_every_pair_is_named(variant):
    def one_speed(k, d_model):
        m = torch.zeros(d_model, d_model)
        for i in range(d_model // 2):
            c, s = math.cos(k), math.sin(k)
            m[2 * i, 2 * i], m[2 * i, 2 * i + 1] = c, s
            m[2 * i + 1, 2 * i], m[2 * i + 1, 2 * i + 1] = -s, c
        return m

    with (
        _cases(variant),
        pytest.raises(
            CheckFailed, match=r"every pair turns by the same angle k.*k / 10000\^\(2i / d_model\)"
        ),
    ):
        checks.check_shift_matrix(one_speed)


@pytest.mark.parametrize("variant", [0, 1])
def test_constant_velocity_from_the_first_two_fixes_is_named(variant):
    from course_lib.geo import from_local, to_local

    def first_fixes(observed, times):
        first, second, last = observed[:, 0], observed[:, 1], observed[:, -1]
        step = to_local(second[:, None, :2], first[:, None, :2])
        velocity = step / (second[:, 2] - first[:, 2])[:, None, None]
        dt = times - last[:, None, 2]
        return from_local(velocity * dt[..., None], last[:, None, :2])

    with (
        _cases(variant),
        pytest.raises(
            CheckFailed, match=r"velocity is that of the FIRST two fixes.*last two, the most recent"
        ),
    ):
        checks.check_constant_velocity(first_fixes)


def test_a_stored_stay_ade_is_named(capsys):
    # the rng it is given stays untouched: the student's own case can tell
    with pytest.raises(CheckFailed, match=r"never drew from the rng.*a stored number"):
        checks.check_stay_floor(lambda n, rng: 98.9)
    with checks.unseen_cases(), pytest.raises(CheckFailed, match="a stored number"):
        checks.check_stay_floor(lambda n, rng: 98.9)


def test_a_stay_ade_drawing_once_but_stored_is_named_inside_unseen_cases():
    def stored(n, rng):
        rng.uniform()  # touches the rng, returns the notebook's number
        return 98.9

    with (
        checks.unseen_cases(),
        pytest.raises(
            CheckFailed,
            match=r"returned 98\.9 twice.*the same value, which does not change with n "
            r"and rng, like a stored number",
        ),
    ):
        checks.check_stay_floor(stored)


def test_a_stay_ade_with_a_generator_of_its_own_is_named():
    def own_rng(n, rng):
        rng = np.random.default_rng(0)
        start = np.broadcast_to(np.asarray([43.7696, 11.2558]), (n, 1, 2))
        future = start + np.cumsum(rng.uniform(-0.001, 0.001, (n, 3, 2)), axis=1)
        return haversine(start, future).mean()

    with pytest.raises(CheckFailed, match=r"never drew from the rng it was given"):
        checks.check_stay_floor(own_rng)


# --- known mistakes named by the checks (the final probe's cases) --------------------------


def test_a_gru_cell_without_the_reset_gate_is_named():
    def no_reset(x, h, w_ih, w_hh, b_ih, b_hh):
        x_r, x_z, x_n = (x @ w_ih.T + b_ih).chunk(3, -1)
        h_r, h_z, h_n = (h @ w_hh.T + b_hh).chunk(3, -1)
        z = torch.sigmoid(x_z + h_z)
        return (1 - z) * torch.tanh(x_n + h_n) + z * h

    with pytest.raises(CheckFailed, match=r"the reset gate r is missing.*r \* \(W_hn h \+ b_hn\)"):
        checks.check_gru_cell(no_reset)


@pytest.mark.parametrize("name", sorted(EXPERIMENTS))
def test_swapped_training_and_validation_sets_are_named(name):
    train_set, val_set = squares()
    words = (
        rf"{name}'s train_set and val_set look swapped.*\(source, target, target\) -- three "
        rf"tensors.*{name}\(\w+, train_set, val_set\)"
    )
    with pytest.raises(CheckFailed, match=words):
        getattr(checks, name)(lambda *args: None, val_set, train_set)


@pytest.mark.filterwarnings("ignore:The use of `x.T`")
@pytest.mark.parametrize("variant", [0, 1])
def test_dot_t_on_a_batch_of_keys_is_named_as_the_likely_cause(variant):
    def attention(query, key, value, attn_mask=None):
        scores = query @ key.T / math.sqrt(query.shape[-1])
        weights = masked_softmax(scores, attn_mask)
        return weights @ value, weights

    def attention_one_line(query, key, value, attn_mask=None):
        weights = masked_softmax(query @ key.T @ torch.eye(2), attn_mask)
        return weights @ value, weights

    words = (
        r"raised RuntimeError: .*\n(Likely|A possible) cause: key\.T reverses ALL 3 axes of "
        r"key, \(\d+, \d+, \d+\) -> .*key\.transpose\(-2, -1\) \(or key\.mT\)"
    )
    for answer in (attention, attention_one_line):
        with _cases(variant), pytest.raises(CheckFailed, match=words):
            checks.check_scaled_dot_product_attention(answer)


def test_an_error_without_a_known_cause_gets_no_hint():
    def broken(query, key, value, attn_mask=None):
        weights = query @ (2 * key).T  # .T on a 3-d tensor, but not on a name
        return weights @ value, weights

    for answer in (lambda *a: 1 / 0, broken):
        with pytest.raises(CheckFailed, match="raised") as info:
            checks.check_scaled_dot_product_attention(answer)
        assert "cause:" not in str(info.value)


def _encoder_layer(x, layer, mask, residual_ffn=True, residual_sa=True):
    def sa(y):
        return layer.self_attn(y, y, y, key_padding_mask=mask, need_weights=False)[0]

    def ffn(y):
        return layer.linear2(F.relu(layer.linear1(y)))

    if layer.norm_first:
        x = x * residual_sa + sa(layer.norm1(x))
        return x * residual_ffn + ffn(layer.norm2(x))
    x = layer.norm1(x * residual_sa + sa(x))
    return layer.norm2(x * residual_ffn + ffn(x))


@pytest.mark.parametrize("variant", [0, 1])
@pytest.mark.parametrize(
    "missing, words",
    [
        ("residual_ffn", r"residual connection around the feed-forward block is missing"),
        ("residual_sa", r"residual connection around the self-attention is missing"),
    ],
)
def test_an_encoder_layer_without_one_residual_connection_is_named(variant, missing, words):
    with _cases(variant), pytest.raises(CheckFailed, match=words):
        checks.check_encoder_layer(
            lambda x, layer, mask: _encoder_layer(x, layer, mask, **{missing: False})
        )


def test_token_positions_indexed_by_token_id_are_named():
    from course_lib.positional import sinusoidal_encoding

    def by_id(sentence, vocab, d_model):
        ids = torch.tensor(vocab.encode(sentence), dtype=torch.long)
        return ids, sinusoidal_encoding(len(vocab), d_model)[ids]

    with pytest.raises(CheckFailed, match=r"row of its token id.*encodes POSITIONS"):
        checks.check_token_positions(by_id)


@pytest.mark.parametrize(
    "loss, words",
    [
        (
            lambda x, y, e: -(1 - e) * torch.log_softmax(x, -1).gather(1, y[:, None]).mean(),
            r"spread nowhere: add epsilon / V to EVERY class",
        ),
        (
            lambda x, y, e: (
                -(((1 - e) * F.one_hot(y, x.shape[-1]) + e) * torch.log_softmax(x, -1))
                .sum(-1)
                .mean()
            ),
            r"without dividing it among them: each class gets epsilon / V",
        ),
    ],
    ids=["not spread", "not divided"],
)
def test_label_smoothing_that_does_not_spread_epsilon_is_named(loss, words):
    with pytest.raises(CheckFailed, match=words):
        checks.check_label_smoothed_loss(loss)


def test_models_predicting_the_default_number_of_steps_are_named():
    from course_lib.points_transformer import SelfAttentionConfig, SelfAttentionEncoderDecoder
    from course_lib.seq2seq import Decoder, Encoder, EncoderDecoder

    def two_steps(key):
        models = _reference_models()
        if key == "GRU":
            models[key] = EncoderDecoder(Encoder(2, 64), Decoder(2, 64), 2, 0.5)
        else:
            config = SelfAttentionConfig(
                n_features=2, d_model=32, num_heads=4, d_ff=64, num_layers=2
            )
            models[key] = SelfAttentionEncoderDecoder(config)
        return models

    with pytest.raises(CheckFailed, match=r"target_len=2 steps: pass 3 as the third argument"):
        checks.check_models(lambda: two_steps("GRU"))
    with pytest.raises(
        CheckFailed,
        match=r"its config has target_len=2 .*SelfAttentionConfig\(\.\.\., target_len=3\)",
    ):
        checks.check_models(lambda: two_steps("self-attention"))


def test_haversine_with_the_cosines_of_the_longitudes_is_named():
    def cos_longitude(a, b):
        p, q = np.radians(a), np.radians(b)
        dlat, dlon = q[..., 0] - p[..., 0], q[..., 1] - p[..., 1]
        h = np.sin(dlat / 2) ** 2 + np.cos(p[..., 1]) * np.cos(q[..., 1]) * np.sin(dlon / 2) ** 2
        return 2 * 6_371_008.8 * np.arcsin(np.sqrt(h))

    with pytest.raises(CheckFailed, match=r"cosines are taken of the longitudes.*LATITUDES"):
        checks.check_haversine(cos_longitude)


def test_ade_fde_with_the_largest_error_is_named():
    def fde_max(predicted, true):
        d = haversine(predicted, true)
        return d.mean(), d.max(axis=1).mean()

    def ade_max(predicted, true):
        d = haversine(predicted, true)
        return d.max(axis=1).mean(), d[:, -1].mean()

    with pytest.raises(CheckFailed, match=r"FDE is the error of the final \(LAST\) step"):
        checks.check_ade_fde(fde_max)
    with pytest.raises(CheckFailed, match=r"ADE is the mean error over every step"):
        checks.check_ade_fde(ade_max)


def test_a_clockwise_rotation_is_named():
    def rotate_pairs(x, start):
        length, dh = x.shape
        positions = torch.arange(start, start + length, dtype=x.dtype)
        angles = positions[:, None] * 10000 ** (-torch.arange(0, dh, 2, dtype=x.dtype) / dh)
        a, b = x[:, 0::2], x[:, 1::2]
        out = torch.empty_like(x)
        out[:, 0::2] = a * angles.cos() + b * angles.sin()
        out[:, 1::2] = -a * angles.sin() + b * angles.cos()
        return out

    with pytest.raises(CheckFailed, match=r"wrong way, clockwise.*signs of the sines"):
        checks.check_rotate_pairs(rotate_pairs)


def test_a_prefix_mask_that_hides_the_source_from_the_target_is_named():
    def blind(s, t):
        mask = prefix_mask(s, t)
        mask[s:, :s] = True
        return mask

    with pytest.raises(CheckFailed, match=r"target rows are blocked from the source"):
        checks.check_prefix_mask(blind)


# --- a check called the wrong way -----------------------------------------------------------


@pytest.mark.parametrize("name", ALL)
def test_a_check_called_without_its_arguments_names_its_signature(name):
    check = getattr(checks, name)
    with pytest.raises(TypeError, match=rf"{name}\(\) missing .*: call it as {name}\("):
        check()


def test_a_check_called_with_too_many_arguments_names_its_signature():
    with pytest.raises(
        TypeError,
        match=r"check_gru_cell\(\) takes 1 positional argument but 2 were given: its "
        r"signature is check_gru_cell\(gru_cell\)",
    ):
        checks.check_gru_cell(gru_cell, gru_cell)
    with pytest.raises(
        TypeError, match=r"unexpected keyword argument 'fn'.*check_haversine accepts: haversine_fn"
    ):
        checks.check_haversine(fn=haversine)


# --- how a wrong answer's values relate to the reference's, for every check -----------------


_E = torch.linspace(-1.0, 2.0, 18).view(2, 3, 3) ** 3


@pytest.mark.parametrize(
    "got, words",
    [
        (-_E, r"opposite sign of the reference's"),
        (_E * math.sqrt(8), r"2\.828 \(= sqrt\(8\)\) times the reference's"),
        (_E / 4, r"0\.25 \(= 1/4\) times the reference's"),
        (_E + 0.5, r"the reference's plus 0\.5: a constant added or missing"),
        (_E.transpose(-2, -1), r"last two axes swapped: a transpose"),
        (_E.flip(0), r"in reverse order along axis 0"),
        (
            torch.where(_E > 0, _E, 0.0),
            r"\d+ of its 18 values agree .* first that differs is at \[0, 0, 0\]",
        ),
    ],
    ids=["sign", "sqrt factor", "fraction", "offset", "transpose", "reversed", "some agree"],
)
def test_how_the_values_differ_is_named(got, words):
    with pytest.raises(
        CheckFailed, match=rf"different values \(a case\): the largest difference.*{words}"
    ):
        compare(got, _E, "f", "a case")


def test_a_mask_blocking_too_much_or_too_little_is_named():
    expected = causal_mask(4)
    with pytest.raises(CheckFailed, match=r"it blocks 4 entries the reference leaves open"):
        compare(expected | torch.eye(4, dtype=torch.bool), expected, "mask", "a case")
    with pytest.raises(CheckFailed, match=r"it leaves open 3 entries the reference blocks"):
        compare(torch.ones(4, 4, dtype=torch.bool).triu(2), expected, "mask", "a case")


def test_generic_hints_name_the_value_of_a_real_check():
    with pytest.raises(CheckFailed, match=r"gru_cell returned the right shape.*opposite sign"):
        checks.check_gru_cell(spoiled(gru_cell, lambda t: -t))
    with pytest.raises(
        CheckFailed, match=r"repeat_kv returned the right shape.*times the reference's"
    ):
        checks.check_repeat_kv(spoiled(TENSOR_ANSWERS["check_repeat_kv"], lambda t: 3 * t))


# --- generic diagnoses (the measure probe's cases) ------------------------------------------


def _softmax_weights(scores):
    mask = torch.zeros_like(scores, dtype=torch.bool)
    mask[..., -1] = True  # blocked keys: weight 0 in both
    return torch.softmax(scores.masked_fill(mask, float("-inf")), dim=-1)


_S = torch.linspace(-2.0, 3.0, 30).view(2, 3, 5) ** 2 % 3


@pytest.mark.parametrize(
    "factor, words",
    [
        (-1.0, r"softmax of the reference's scores with the opposite sign.*a minus sign"),
        (2.0, r"scores multiplied by 2, so the weights are more peaked.*scaled wrong"),
        (0.5, r"scores multiplied by 0\.5 \(= 1/2\), so the weights are flatter"),
        (1 / math.sqrt(8), r"multiplied by 0\.3536 \(= 1/sqrt\(8\)\).*a square root"),
    ],
    ids=["sign", "double", "half", "sqrt"],
)
def test_softmax_weights_of_scaled_scores_are_named(factor, words):
    with pytest.raises(CheckFailed, match=rf"different values \(a case\).*{words}"):
        compare(_softmax_weights(factor * _S), _softmax_weights(_S), "weights", "a case")


def test_values_scaled_and_shifted_per_feature_are_named():
    x = torch.linspace(-1.0, 2.0, 12).view(6, 2) ** 3
    got = x * torch.tensor([2.0, 0.5]) + torch.tensor([1.0, -3.0])
    with pytest.raises(
        CheckFailed,
        match=r"Each column \(feature, along the last axis\) is the reference's times a factor "
        r"plus an offset of its own \(factors 2, 0\.5; offsets 1, -3\).*another mean and std",
    ):
        compare(got, x, "f", "a case")
    with pytest.raises(CheckFailed, match=r"Every value is 3 times the reference's plus 2"):
        compare(3 * x[:, :1] + 2, x[:, :1], "f", "a case")


def test_a_known_mistake_of_another_shape_is_named():
    expected = torch.zeros(2, 3)
    with pytest.raises(
        CheckFailed, match=r"f returned shape \(3, 2\), expected \(2, 3\) \(a case\): the why"
    ):
        compare(torch.ones(3, 2), expected, "f", "a case", [(torch.ones(3, 2), "the why")])


def test_parameters_a_function_never_uses_are_found():
    from course_lib.checks._diagnose import unused_parameters

    def some(a, b, c, d, *args, e=1, _f=2, **kwargs):
        def inner():
            return c

        return a + inner() + sum(x * d for x in args)

    assert unused_parameters(some) == ["b", "e"]
    assert unused_parameters(lambda x, y: x) == ["y"]
    assert unused_parameters(lambda *args: args) == []
    assert unused_parameters(masked_softmax) == []  # the library's own: never judged
    assert unused_parameters(nn.Linear) == []


def test_a_parameter_the_answer_never_uses_is_named():
    def general_scores(query, key, weight):  # Eq != Ek: the product itself raises
        return query @ key.transpose(-2, -1)

    with pytest.raises(
        CheckFailed,
        match=r"general_scores raised RuntimeError: .*\nNote: your general_scores never uses "
        r"its parameter weight, so what it returns cannot depend on it",
    ):
        checks.check_general_scores(general_scores)

    def decoder_inputs(source, target):  # wrong values, no known mistake
        return target * 2

    with pytest.raises(
        CheckFailed,
        match=r"different values.*Note: your decoder_inputs never uses its parameter source",
    ):
        checks.check_decoder_inputs(decoder_inputs)
    with pytest.raises(CheckFailed, match=r"different values") as info:
        checks.check_decoder_inputs(lambda source, target: target * source.sum())
    assert "never uses" not in str(info.value)


def test_a_mask_that_does_not_broadcast_in_masked_fill_is_named():
    def multi_head_attention(query, key, value, mha, key_padding_mask):
        b, t, d = query.shape
        s, nh = key.shape[1], mha.num_heads
        w_q, w_k, w_v = mha.in_proj_weight.chunk(3)
        b_q, b_k, b_v = mha.in_proj_bias.chunk(3)

        def heads(x, length):
            return x.view(b, length, nh, d // nh).transpose(1, 2)

        q, k = heads(F.linear(query, w_q, b_q), t), heads(F.linear(key, w_k, b_k), s)
        v = heads(F.linear(value, w_v, b_v), s)
        scores = q @ k.transpose(-2, -1) / math.sqrt(d // nh)
        if key_padding_mask is not None:
            scores = scores.masked_fill(key_padding_mask[:, None, :], float("-inf"))
        weights = scores.softmax(dim=-1)
        context = (weights @ v).transpose(1, 2).reshape(b, t, d)
        return mha.out_proj(context), weights.mean(dim=1)

    with pytest.raises(
        CheckFailed,
        match=r"raised RuntimeError: .*\nLikely cause: the mask given to masked_fill does not "
        r"broadcast against scores \(2, 3, 2, 4\).*mask\[:, None, None, :\], shape \(B, 1, 1, S\)",
    ):
        checks.check_multi_head_attention(multi_head_attention)


def test_torch_cat_along_the_wrong_axis_is_named_when_it_raises():
    from course_lib.checks._core import call_student

    def joined(source, target):
        return torch.cat([source[:, -1:], target[:, :-1]])

    with pytest.raises(
        CheckFailed,
        match=r"raised RuntimeError: .*\nLikely cause: torch.cat joined the tensors along "
        r"dim=0 -- its default when no dim= is given.*the time axis is dim=1",
    ):
        call_student(joined, "decoder_inputs", torch.zeros(2, 3, 2), torch.zeros(2, 4, 2))


# --- known mistakes named by the checks (the measure probe's cases) ---------------------------


def test_decoder_inputs_joined_along_the_batch_axis_is_named():
    with pytest.raises(
        CheckFailed,
        match=r"returned shape \(2, 1, 2\), expected \(1, 2, 2\).*along dim=0, the batch axis "
        r"\(its default.*dim=1\), to get \(B, T, F\)",
    ):
        checks.check_decoder_inputs(lambda s, t: torch.cat([s[:, -1:], t[:, :-1]]))


def _boxcar_weights(diffs, half_width=0.5):
    inside = (diffs.abs() < half_width).float()
    return inside / inside.sum(-1, keepdim=True).clamp(min=1)


@pytest.mark.parametrize("variant", [0, 1])
@pytest.mark.parametrize(
    "laplace, words",
    [
        (lambda d: torch.softmax(d.abs(), -1), r"the minus sign is missing.*FARTHEST"),
        (lambda d: torch.softmax(-d.abs() / 2, -1), r"softmax\(-\|x - x_i\| / 2\).*Gaussian's / 2"),
        (lambda d: torch.softmax(-3 * d.abs(), -1), r"scores multiplied by 3.*more peaked"),
    ],
    ids=["sign", "halved", "tripled"],
)
def test_laplace_weights_of_the_wrong_sign_or_scale_are_named(variant, laplace, words):
    with _cases(variant), pytest.raises(CheckFailed, match=rf"laplace_weights.*{words}"):
        checks.check_kernel_weights(laplace, _boxcar_weights)


@pytest.mark.parametrize("variant", [0, 1])
def test_attention_multiplying_by_the_square_root_is_named(variant):
    def attention(query, key, value, attn_mask=None):
        scores = query @ key.transpose(-2, -1) * math.sqrt(query.shape[-1])
        weights = masked_softmax(scores, attn_mask)
        return weights @ value, weights

    with (
        _cases(variant),
        pytest.raises(CheckFailed, match=r"the scores are multiplied by sqrt\(E\); divide them"),
    ):
        checks.check_scaled_dot_product_attention(attention)


@pytest.mark.parametrize("variant", [0, 1])
@pytest.mark.parametrize(
    "twice, words",
    [
        ("norm1", r"normalised with layer.norm1, and layer.norm2 is never used"),
        ("norm2", r"normalised with layer.norm2, and layer.norm1 is never used"),
    ],
)
def test_an_encoder_layer_with_one_norm_twice_is_named(variant, twice, words):
    def encoder_layer(x, layer, mask):
        norm = getattr(layer, twice)

        def sa(y):
            return layer.self_attn(y, y, y, key_padding_mask=mask, need_weights=False)[0]

        def ffn(y):
            return layer.linear2(F.relu(layer.linear1(y)))

        if layer.norm_first:
            x = x + sa(norm(x))
            return x + ffn(norm(x))
        x = norm(x + sa(x))
        return norm(x + ffn(x))

    with _cases(variant), pytest.raises(CheckFailed, match=words):
        checks.check_encoder_layer(encoder_layer)


def test_learned_positions_with_the_table_sizes_swapped_are_named():
    class LearnedPositions(nn.Module):
        def __init__(self, max_len, d_model):
            super().__init__()
            self.embedding = nn.Embedding(d_model, max_len)

        def forward(self, x):
            return x

    with pytest.raises(
        CheckFailed,
        match=r"holds \(6, 4\) vectors.*nn.Embedding\(max_len, d_model\), shape \(4, 6\): its "
        r"two sizes are swapped",
    ):
        checks.check_learned_positions(LearnedPositions)


def _shift_matrix(k, d_model, pairs):
    m = torch.zeros(d_model, d_model)
    for i in range(pairs(d_model)):
        speed = 1 / 10000 ** (2 * i / d_model)
        c, s = math.cos(k * speed), math.sin(k * speed)
        m[2 * i : 2 * i + 2, 2 * i : 2 * i + 2] = torch.tensor([[c, s], [-s, c]])
    return m


def test_a_shift_matrix_for_one_d_model_only_is_named():
    with pytest.raises(
        CheckFailed,
        match=r"raised RuntimeError: .*\nHint: shift_matrix gave the right matrix for "
        r"d_model=8 but raised for d_model=4.*range\(4\).*for i in range\(d_model // 2\)",
    ):
        checks.check_shift_matrix(lambda k, d: _shift_matrix(k, d, lambda d: 4))
    with pytest.raises(
        CheckFailed,
        match=r"only the first 2 of the d_model / 2 = 4 diagonal blocks are filled.*every pair",
    ):
        checks.check_shift_matrix(lambda k, d: _shift_matrix(k, d, lambda d: d // 4))


def _metres_datasets(origin=None, stats="observed", ddof=0):
    from torch.utils.data import TensorDataset

    from course_lib.geo import to_local
    from course_lib.trajectories import relative_metres

    def metres(observed, future):
        if origin is None:
            return relative_metres(observed, future)
        return to_local(observed[..., :2], origin), to_local(future[..., :2], origin)

    def make_datasets(train, valid):
        seen, ahead = metres(*train)
        fixes = seen if stats == "observed" else np.concatenate([seen, ahead], axis=1)
        fixes = fixes.reshape(-1, 2)
        mean, std = fixes.mean(0), fixes.std(0, ddof=ddof)

        def dataset(split):
            return TensorDataset(
                *(torch.tensor((x - mean) / std, dtype=torch.float32) for x in metres(*split))
            )

        return dataset(train), dataset(valid)

    return make_datasets


@pytest.mark.parametrize("variant", [0, 1])
@pytest.mark.parametrize(
    "answer, words",
    [
        (
            _metres_datasets(),
            r"the source: the mean and std come from the training sources \(observed fixes\) "
            r"alone.*observed AND future",
        ),
        (_metres_datasets(ddof=1), r"the source: the mean and std come from the training sources"),
        (
            _metres_datasets(stats="all", ddof=1),
            r"the source: the std is the sample std \(ddof=1, torch.std's default\)",
        ),
        (
            _metres_datasets(origin=FLORENCE, stats="all"),
            r"the source does not end at the same point in every item.*each trajectory's LAST "
            r"observed fix.*not from a fixed point such as FLORENCE",
        ),
    ],
    ids=["observed statistics", "observed, ddof=1", "ddof=1", "Florence"],
)
def test_datasets_standardised_or_measured_from_elsewhere_are_named(variant, answer, words):
    with _cases(variant), pytest.raises(CheckFailed, match=words):
        checks.check_datasets(answer)


def test_datasets_standardised_with_other_statistics_are_named():
    from torch.utils.data import TensorDataset

    from course_lib.trajectories import relative_metres

    def make_datasets(train, valid):  # the mean of the futures alone, the right std
        seen, ahead = relative_metres(*train)
        fixes = np.concatenate([seen, ahead], axis=1).reshape(-1, 2)
        mean, std = ahead.reshape(-1, 2).mean(0), fixes.std(0)

        def dataset(split):
            parts = relative_metres(*split)
            return TensorDataset(*(torch.tensor((x - mean) / std).float() for x in parts))

        return dataset(train), dataset(valid)

    with pytest.raises(
        CheckFailed,
        match=r"the source holds metres from the last observed fix, but standardised with "
        r"another mean and std.*observed AND future",
    ):
        checks.check_datasets(make_datasets)


def test_models_with_a_plain_decoder_for_attention_are_named():
    from course_lib.seq2seq import Decoder, EncoderDecoder

    def build_models():
        models = _reference_models()
        models["GRU + attention"] = EncoderDecoder(models["GRU"].encoder, Decoder(2, 64), 3, 0.5)
        return models

    with pytest.raises(
        CheckFailed,
        match=r"'GRU \+ attention' has a Decoder as its decoder, where the chapter's has an "
        r"AttentionDecoder: build it as EncoderDecoder\(Encoder\(2, 64\), AttentionDecoder",
    ):
        checks.check_models(build_models)


@pytest.mark.parametrize("variant", [0, 1])
@pytest.mark.parametrize(
    "shift, words", [(1, r"one position too far"), (-1, r"one position too short")]
)
def test_rotations_one_position_off_are_named(variant, shift, words):
    def rotate_pairs(x, start):
        if start == 0 and shift < 0:  # start - 1 would be -1: right there, wrong elsewhere
            return apply_rotary(x, start=start)
        return apply_rotary(x, start=start + shift)

    with (
        _cases(variant),
        pytest.raises(CheckFailed, match=rf"rotate_pairs: every row is turned {words}"),
    ):
        checks.check_rotate_pairs(rotate_pairs)


@pytest.mark.parametrize("variant", [0, 1])
def test_repeat_kv_by_the_number_of_query_heads_is_named(variant):
    with (
        _cases(variant),
        pytest.raises(
            CheckFailed,
            match=r"repeat_kv returned shape \(2, 8, 5, 3\), expected \(2, 4, 5, 3\).*repeated "
            r"num_heads=4 times, giving Nkv \* num_heads = 8 heads.*G = num_heads / Nkv = 2",
        ),
    ):
        checks.check_repeat_kv(lambda kv, nh: kv.repeat_interleave(nh, dim=1))


@pytest.mark.parametrize("fixed", [4, 2])
def test_cache_bytes_with_the_bytes_of_one_dtype_written_in_is_named(fixed):
    def cache_bytes(num_layers, num_kv_heads, head_dim, bytes_per_number, tokens):
        return 2 * num_layers * num_kv_heads * head_dim * fixed * tokens

    dtype = "float32" if fixed == 4 else "float16"
    with pytest.raises(
        CheckFailed,
        match=rf"that is {fixed} bytes per number, whatever bytes_per_number says.*the {fixed} "
        rf"of {dtype}\. Note: your cache_bytes never uses its parameter bytes_per_number",
    ):
        checks.check_cache_bytes(cache_bytes)


def test_attention_with_the_mask_of_the_opposite_polarity_is_named_not_called_reversed():
    """Issue 47: a function that fills the scores where the mask is False used to be told
    its weights hold the reference's values "in reverse order along axis 2" (true on a
    (1, 2) case, and no help). The polarity is named now; a right function still passes."""
    import math

    def inverted(query, key, value, attn_mask=None):
        scores = query @ key.transpose(-2, -1) / math.sqrt(query.shape[-1])
        if attn_mask is not None:
            scores = scores.masked_fill(~attn_mask, float("-inf"))
        weights = torch.nan_to_num(torch.softmax(scores, dim=-1))
        return weights @ value, weights

    with pytest.raises(CheckFailed) as err:
        checks.check_scaled_dot_product_attention(inverted)
    assert "opposite polarity" in str(err.value)
    assert "reverse order" not in str(err.value)

    def right(query, key, value, attn_mask=None):
        scores = query @ key.transpose(-2, -1) / math.sqrt(query.shape[-1])
        if attn_mask is not None:
            scores = scores.masked_fill(attn_mask, float("-inf"))
        weights = torch.nan_to_num(torch.softmax(scores, dim=-1))
        return weights @ value, weights

    checks.check_scaled_dot_product_attention(right)  # the near miss: no hint, no failure


def test_constant_velocity_over_the_nominal_interval_or_absolute_times_is_named():
    """Issue 47: dividing the last step by the nominal 20 s was explained as values
    "standardised or normalised with another mean and std"; multiplying by the timestamps
    themselves had no name. Both are named now."""
    from course_lib.geo import from_local, to_local

    def last_step(observed):
        origin = observed[:, -1:, :2]
        en = to_local(observed[..., :2], origin)  # (N, S, 2) metres east and north
        return en[:, -1] - en[:, -2], origin

    def nominal(observed, times):
        step, origin = last_step(observed)
        ahead = times - observed[:, -1:, 2]
        return from_local(step[:, None] / 20.0 * ahead[..., None], origin)

    with pytest.raises(CheckFailed) as err:
        checks.check_constant_velocity(nominal)
    assert "nominal sampling interval" in str(err.value)
    assert "standardised" not in str(err.value)

    def absolute(observed, times):
        step, origin = last_step(observed)
        velocity = step / (observed[:, -1, 2] - observed[:, -2, 2])[:, None]
        return from_local(velocity[:, None] * times[..., None], origin)

    with pytest.raises(CheckFailed, match="multiplied by the timestamps themselves"):
        checks.check_constant_velocity(absolute)


def test_check_training_given_datasets_says_what_it_takes_not_an_inner_call():
    """Issue 47: datasets where the (observed, future) pairs go used to be answered with an
    error about TrajectoryFeatures.fit(), a call the student never made, and a hint to
    unpack with *. Now the message is about check_training's own arguments."""
    from course_lib.gps import city_trajectories
    from course_lib.trajectories import TrajectoryFeatures, trajectory_datasets

    rng = np.random.default_rng(0)
    train, valid = city_trajectories(8, rng=rng, future=3), city_trajectories(4, rng=rng, future=3)
    train_set, valid_set = trajectory_datasets(
        TrajectoryFeatures.fit(*train), train, valid, teacher_forcing=False
    )
    with pytest.raises(TypeError) as err:
        checks.check_training(lambda *args: None, train_set, valid_set)
    message = str(err.value)
    assert message.startswith("train must be the exercise's (observed, future) pair of arrays")
    assert "fit" not in message and "*" not in message
