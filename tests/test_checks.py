"""The self-checks accept right answers and explain wrong ones in words."""

import pytest
import torch

from course_lib.checks import CheckFailed, check_decoder_inputs, check_greedy_decode, check_gru_cell


def gru_cell(x, h, w_ih, w_hh, b_ih, b_hh, order=(0, 1, 2), flip_z=False, bias_outside=False):
    gi = (x @ w_ih.T + b_ih).chunk(3, -1)
    gh_full = h @ w_hh.T
    gh = (gh_full + b_hh).chunk(3, -1)
    r_i, z_i, n_i = (order.index(k) for k in range(3))
    r = torch.sigmoid(gi[r_i] + gh[r_i])
    z = torch.sigmoid(gi[z_i] + gh[z_i])
    if bias_outside:
        n = torch.tanh(gi[n_i] + r * gh_full.chunk(3, -1)[n_i] + b_hh.chunk(3)[n_i])
    else:
        n = torch.tanh(gi[n_i] + r * gh[n_i])
    return z * n + (1 - z) * h if flip_z else (1 - z) * n + z * h


def not_implemented(*args):
    raise NotImplementedError


def test_gru_cell_right_answer_passes(capsys):
    check_gru_cell(gru_cell)
    assert "✓ gru_cell: all 4 cases agree" in capsys.readouterr().out


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"order": (1, 0, 2)}, "gates look swapped"),
        ({"flip_z": True}, "update gate is used the other way round"),
        ({"bias_outside": True}, "including its bias"),
    ],
)
def test_gru_cell_known_mistakes_are_named(kwargs, message):
    with pytest.raises(CheckFailed, match=message):
        check_gru_cell(lambda *a: gru_cell(*a, **kwargs))


def test_gru_cell_shape_and_value_errors():
    with pytest.raises(CheckFailed, match=r"returned shape \(1, 1, 2\), expected \(1, 2\)"):
        check_gru_cell(lambda *a: gru_cell(*a).unsqueeze(0))
    with pytest.raises(CheckFailed, match="largest difference"):
        check_gru_cell(lambda *a: gru_cell(*a) + 0.1)
    with pytest.raises(CheckFailed, match="should return a torch.Tensor"):
        check_gru_cell(lambda *a: gru_cell(*a).tolist())


def test_decoder_inputs():
    check_decoder_inputs(lambda s, t: torch.cat([s[:, -1:], t[:, :-1]], 1))
    with pytest.raises(CheckFailed, match="target itself"):
        check_decoder_inputs(lambda s, t: t)
    with pytest.raises(CheckFailed, match="LAST source point"):
        check_decoder_inputs(lambda s, t: torch.cat([s[:, :1], t[:, :-1]], 1))
    with pytest.raises(CheckFailed, match="T \\+ 1"):
        check_decoder_inputs(lambda s, t: torch.cat([s[:, -1:], t], 1))


def greedy(encoder, decoder, source, target_len, feed_back=True, carry=True):
    _, final = encoder(source)
    x, hidden, outs = source[:, -1:], final, []
    for _ in range(target_len):
        out, new_hidden, _ = decoder(x, hidden)
        outs.append(out)
        x = out if feed_back else source[:, -1:]
        hidden = new_hidden if carry else final
    return torch.cat(outs, 1)


def test_greedy_decode():
    check_greedy_decode(greedy)
    with pytest.raises(CheckFailed, match="every step produced the same point"):
        check_greedy_decode(lambda *a: greedy(*a, feed_back=False, carry=False))
    with pytest.raises(CheckFailed, match="hidden state is not"):
        check_greedy_decode(lambda *a: greedy(*a, carry=False))


@pytest.mark.parametrize("check", [check_gru_cell, check_decoder_inputs, check_greedy_decode])
def test_unimplemented_answers_fail_with_a_message(check):
    with pytest.raises(CheckFailed, match="not implemented yet"):
        check(not_implemented)


def test_student_errors_are_reported_not_hidden():
    def broken(*args):
        raise IndexError("tuple index out of range")

    with pytest.raises(CheckFailed, match="raised IndexError: tuple index out of range"):
        check_decoder_inputs(broken)
    with pytest.raises(CheckFailed, match="pass the function itself"):
        check_decoder_inputs(42)


# --- Chapter 2 ----------------------------------------------------------------------------

from course_lib.checks import (  # noqa: E402
    check_additive_scores,
    check_masked_softmax,
    check_padding_mask,
    check_scaled_dot_product_attention,
)


def good_masked_softmax(scores, mask):
    empty = mask.all(-1, keepdim=True)
    s = scores.masked_fill(mask, float("-inf")).masked_fill(empty, 0.0)
    return s.softmax(-1).masked_fill(empty, 0.0)


def test_masked_softmax_check():
    check_masked_softmax(good_masked_softmax)
    with pytest.raises(CheckFailed, match="NaN"):
        check_masked_softmax(lambda s, m: s.masked_fill(m, float("-inf")).softmax(-1))
    with pytest.raises(CheckFailed, match="polarity is flipped|True means BLOCKED"):
        check_masked_softmax(lambda s, m: good_masked_softmax(s, ~m))
    with pytest.raises(CheckFailed, match="in place"):
        check_masked_softmax(lambda s, m: good_masked_softmax(s.masked_fill_(m, -1e9), m))
    with pytest.raises(CheckFailed, match="weight up to"):
        check_masked_softmax(lambda s, m: s.softmax(-1))
    with pytest.raises(CheckFailed, match="sum to"):
        check_masked_softmax(lambda s, m: s.masked_fill(m, -1e9).softmax(-2).masked_fill(m, 0))
    with pytest.raises(CheckFailed, match="not implemented yet"):
        check_masked_softmax(not_implemented)


def sdpa(q, k, v, m, scale=None):
    scores = q @ k.transpose(-2, -1) * (scale if scale is not None else q.shape[-1] ** -0.5)
    w = good_masked_softmax(scores, m if m is not None else torch.zeros_like(scores, dtype=torch.bool))
    return w @ v, w


def test_scaled_dot_product_attention_check():
    check_scaled_dot_product_attention(sdpa)
    with pytest.raises(CheckFailed, match="not scaled"):
        check_scaled_dot_product_attention(lambda *a: sdpa(*a, scale=1.0))
    with pytest.raises(CheckFailed, match="pair"):
        check_scaled_dot_product_attention(lambda *a: sdpa(*a)[0])
    with pytest.raises(CheckFailed, match="not implemented yet"):
        check_scaled_dot_product_attention(not_implemented)


def additive(q, k, w_q, w_k, w_v, tanh=True):
    features = (q @ w_q.T).unsqueeze(2) + (k @ w_k.T).unsqueeze(1)
    return ((torch.tanh(features) if tanh else features) @ w_v.T).squeeze(-1)


def test_additive_scores_check():
    check_additive_scores(additive)
    with pytest.raises(CheckFailed, match="tanh is missing"):
        check_additive_scores(lambda *a: additive(*a, tanh=False))
    with pytest.raises(CheckFailed, match="these are the weights"):
        check_additive_scores(lambda *a: additive(*a).softmax(-1))
    with pytest.raises(CheckFailed, match="squeeze the last axis"):
        check_additive_scores(lambda *a: additive(*a).unsqueeze(-1))


def test_padding_mask_check():
    check_padding_mask(lambda lengths, n: torch.arange(n) >= lengths[:, None])
    with pytest.raises(CheckFailed, match="polarity is flipped"):
        check_padding_mask(lambda lengths, n: torch.arange(n) < lengths[:, None])
    with pytest.raises(CheckFailed, match="off by one"):
        check_padding_mask(lambda lengths, n: torch.arange(n) > lengths[:, None])
    with pytest.raises(CheckFailed, match="boolean"):
        check_padding_mask(lambda lengths, n: (torch.arange(n) >= lengths[:, None]).float())


# --- Chapters 3 and 4 ---------------------------------------------------------------------

from course_lib.checks import (  # noqa: E402
    check_causal_mask,
    check_merge_heads,
    check_positional_encoding,
    check_split_heads,
)


def test_causal_mask_check():
    check_causal_mask(lambda n: torch.ones(n, n, dtype=torch.bool).triu(1))
    with pytest.raises(CheckFailed, match="polarity is flipped"):
        check_causal_mask(lambda n: torch.ones(n, n, dtype=torch.bool).tril())
    with pytest.raises(CheckFailed, match="diagonal is blocked too"):
        check_causal_mask(lambda n: torch.ones(n, n, dtype=torch.bool).triu(0))
    with pytest.raises(CheckFailed, match="boolean"):
        check_causal_mask(lambda n: torch.ones(n, n).triu(1))
    with pytest.raises(CheckFailed, match=r"\(1, T, T\)"):
        check_causal_mask(lambda n: torch.ones(1, n, n, dtype=torch.bool).triu(1))


def test_split_and_merge_heads_checks():
    check_split_heads(lambda x, h: x.view(x.shape[0], x.shape[1], h, -1).transpose(1, 2))
    check_merge_heads(lambda x: x.transpose(1, 2).flatten(2))
    with pytest.raises(CheckFailed, match="mixes time steps and features"):
        check_split_heads(lambda x, h: x.reshape(x.shape[0], h, x.shape[1], -1))
    with pytest.raises(CheckFailed, match="transpose"):
        check_merge_heads(lambda x: x.reshape(x.shape[0], x.shape[2], -1))


def positional(max_len, d, two=2, swap=False):
    pos = torch.arange(max_len, dtype=torch.float32)[:, None]
    angle = pos / 10000 ** (two * torch.arange(d // 2) / d)
    table = torch.zeros(max_len, d)
    table[:, 0::2], table[:, 1::2] = (angle.cos(), angle.sin()) if swap else (angle.sin(), angle.cos())
    return table


def test_positional_encoding_check():
    check_positional_encoding(positional)
    with pytest.raises(CheckFailed, match="swapped"):
        check_positional_encoding(lambda n, d: positional(n, d, swap=True))
    with pytest.raises(CheckFailed, match="2i / d_model"):
        check_positional_encoding(lambda n, d: positional(n, d, two=1))


@pytest.mark.parametrize(
    "check, answer",
    [(check_gru_cell, gru_cell), (check_greedy_decode, greedy), (check_additive_scores, additive)],
)
def test_checks_leave_the_students_random_numbers_alone(check, answer):
    torch.manual_seed(1234)
    expected = torch.rand(3)
    torch.manual_seed(1234)
    check(answer)
    assert torch.equal(torch.rand(3), expected), "the check drew from the global generator"
