import math

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
