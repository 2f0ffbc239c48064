import math

import numpy as np
import pytest
import torch

from course_lib.positional import PositionalEncoding, sinusoidal_encoding


def test_the_lectures_table():
    table = sinusoidal_encoding(max_len=10, d_model=8)
    expected = torch.tensor(
        [
            [0.0000, 1.0000, 0.0000, 1.0000, 0.0000, 1.0000, 0.0000, 1.0000],
            [0.8415, 0.5403, 0.0998, 0.9950, 0.0100, 1.0000, 0.0010, 1.0000],
            [0.9093, -0.4161, 0.1987, 0.9801, 0.0200, 0.9998, 0.0020, 1.0000],
            [0.1411, -0.9900, 0.2955, 0.9553, 0.0300, 0.9996, 0.0030, 1.0000],
        ]
    )
    torch.testing.assert_close(table[:4].round(decimals=4), expected, atol=1e-7, rtol=0)


def test_formula_and_equal_distances_for_equal_offsets():
    d, table = 16, sinusoidal_encoding(50, 16)
    pos, i = 7, 3
    assert table[pos, 2 * i].item() == pytest.approx(math.sin(pos / 10000 ** (2 * i / d)), abs=1e-6)
    assert table[pos, 2 * i + 1].item() == pytest.approx(
        math.cos(pos / 10000 ** (2 * i / d)), abs=1e-6
    )
    dist = torch.cdist(table, table)  # (50, 50)
    for offset in (1, 3, 10):
        diag = torch.diagonal(dist, offset)
        torch.testing.assert_close(diag, diag[0].expand_as(diag), atol=1e-4, rtol=0)


def test_odd_width():
    table = sinusoidal_encoding(5, 3)
    assert table.shape == (5, 3)
    torch.testing.assert_close(table[:, 2], torch.sin(torch.arange(5.0) / 10000 ** (2 / 3)))


def test_module_is_a_scaled_sum_with_a_buffer():
    pe = PositionalEncoding(max_len=2, d_model=2)
    assert list(pe.parameters()) == [] and "pe" in pe.state_dict()
    source = torch.tensor([[[-1.0, -1.0], [-1.0, 1.0]]])
    expected = torch.tensor([[[-1.4142, -0.4142], [-0.5727, 1.9545]]])  # the lecture's numbers
    torch.testing.assert_close(pe(source).round(decimals=4), expected, atol=1e-7, rtol=0)


def test_too_long_and_wrong_width_are_clear_errors():
    pe = PositionalEncoding(max_len=4, d_model=2)
    with pytest.raises(ValueError, match=r"positions 0..4 do not fit .* max_len=4"):
        pe(torch.zeros(1, 5, 2))
    with pytest.raises(ValueError, match="d_model=2"):
        pe(torch.zeros(1, 3, 3))
    with pytest.raises(ValueError, match="positive"):
        sinusoidal_encoding(0, 4)


def test_start_offsets_encode_later_positions():
    pe = PositionalEncoding(max_len=10, d_model=4)
    x = torch.randn(2, 6, 4)
    torch.testing.assert_close(pe(x[:, 3:], start=3), pe(x)[:, 3:])
    with pytest.raises(ValueError, match="positions 8..10"):
        pe(x[:, :3], start=8)
    with pytest.raises(ValueError, match="non-negative integer"):
        pe(x, start=-1)


# -- the slips a notebook makes, each with an error that names it ------------------------


@pytest.mark.parametrize(
    ("x", "hint"),
    [
        (torch.zeros(5, 4), r"add the batch axis, x\.unsqueeze\(0\)"),
        (torch.zeros(2, 4, 5), r"looks \(B, d_model, T\), use x\.transpose\(1, 2\)"),
        (torch.zeros(2, 5, 10), r"takes \(max_len, d_model\), were they swapped"),
    ],
)
def test_wrong_layouts_say_how_to_fix_them(x, hint):
    with pytest.raises(ValueError, match=hint):
        PositionalEncoding(max_len=10, d_model=4)(x)


def test_numpy_arrays_and_token_ids_are_refused_by_name():
    encoding = PositionalEncoding(max_len=10, d_model=4)
    with pytest.raises(TypeError, match=r"x must be a tensor.*torch\.as_tensor"):
        encoding(np.zeros((1, 5, 4), dtype=np.float32))
    with pytest.raises(TypeError, match=r"embed token ids first"):
        encoding(torch.zeros(1, 5, 4, dtype=torch.long))


@pytest.mark.parametrize("base", [1.0, -10000.0, float("nan"), "10000"])
def test_the_base_must_be_a_number_above_one(base):
    with pytest.raises(ValueError, match="base must be"):
        sinusoidal_encoding(4, 4, base=base)


def test_the_tutorial_signature_is_named():
    from course_lib.positional import PositionalEncoding

    with pytest.raises(TypeError, match=r"'dropout'.*PositionalEncoding\(max_len, d_model\)"):
        PositionalEncoding(d_model=8, dropout=0.1)
