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
