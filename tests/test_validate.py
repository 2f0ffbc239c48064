"""course_lib._validate: the shared input checks and their messages."""

import numpy as np
import pytest
import torch

from course_lib._validate_attention import check_attention_inputs, check_mask, check_width
from course_lib._validate_basics import check_non_negative_int, check_positive_int


def test_integer_checks_refuse_bools_floats_and_strings():
    assert check_positive_int(3, "n") == 3
    assert type(check_positive_int(np.int64(2), "n")) is int
    assert check_non_negative_int(0, "start") == 0
    for bad in (0, -1, True, 2.0, "2", None):
        with pytest.raises(ValueError, match=r"n must be a positive integer, got"):
            check_positive_int(bad, "n")
    for bad in (-1, False, 1.5):
        with pytest.raises(ValueError, match=r"start must be a non-negative integer"):
            check_non_negative_int(bad, "start")


def test_check_width_names_the_form_the_width_and_the_fix():
    check_width(torch.zeros(2, 3, 8), 8, "x")
    check_width(torch.zeros(4, 8), 8, "x", leading="...")
    check_width(torch.zeros(1, 2, 4, 8), 8, "x", leading="...")
    with pytest.raises(ValueError, match=r"^x must be batch-first \(B, length, d_model=8\), got"):
        check_width(torch.zeros(3, 8), 8, "x", label="d_model")  # no batch dimension
    with pytest.raises(ValueError, match=r"got \(2, 3, 6\): embed it$"):
        check_width(torch.zeros(2, 3, 6), 8, "x", hint=": embed it")
    with pytest.raises(ValueError, match=r"^key must be \(\.\.\., length, 3\), got \(5\)$"):
        check_width(torch.zeros(5), 3, "key", leading="...")


def test_check_mask_names_the_argument():
    check_mask(torch.zeros(3, 5), (2, 3, 5))  # a float mask that broadcasts
    with pytest.raises(ValueError, match=r"attn_mask of shape \(5, 3\) does not fit"):
        check_mask(torch.zeros(5, 3, dtype=torch.bool), (2, 3, 5), "attn_mask")
    with pytest.raises(TypeError, match="must be a tensor"):
        check_mask([[True]], (1, 1))
    with pytest.raises(TypeError, match=r"mask.bool\(\)"):
        check_mask(torch.zeros(3, 5, dtype=torch.long), (3, 5))


def test_check_attention_inputs_with_and_without_the_modules_widths():
    q, k, v = torch.randn(2, 3, 4), torch.randn(2, 5, 6), torch.randn(2, 5, 7)
    with pytest.raises(ValueError, match="same width E"):  # dot products need equal widths
        check_attention_inputs(q, k, v)
    check_attention_inputs(q, k, v, query_dim=4, key_dim=6)  # a module projects them
    with pytest.raises(ValueError, match=r"value must be \(\.\.\., length, 4\)"):
        check_attention_inputs(q, k, v, query_dim=4, key_dim=6, value_dim=4)
    # the mask is checked against the scores (..., T, S), batch dimensions broadcast
    q1 = torch.randn(1, 3, 6)
    check_attention_inputs(q1, k, v, attn_mask=torch.zeros(2, 3, 5, dtype=torch.bool))
    with pytest.raises(ValueError, match=r"attn_mask of shape \(3, 3, 5\) does not fit"):
        check_attention_inputs(q1, k, v, attn_mask=torch.zeros(3, 3, 5, dtype=torch.bool))
    with pytest.raises(ValueError, match="dropout_p is a probability"):
        check_attention_inputs(q1, k, v, dropout_p=1.0)


# -- masks: what cannot be meant, or probably is not (issue 34) ---------------------------


def test_a_float_mask_of_zeros_and_ones_warns_at_the_users_line_and_says_what_was_meant():
    from course_lib._validate_attention import check_mask_values
    from course_lib._validate_basics import MaskWarning

    tril = torch.tril(torch.ones(4, 4))  # the tutorials' causal mask, 1 = may attend
    with pytest.warns(MaskWarning, match=r"float mask of 0s and 1s.*block nothing") as record:
        check_mask_values(tril, "attn_mask")
    message = str(record[0].message)
    assert "attn_mask == 0" in message and "causal_mask(T)" in message and ".bool()" in message
    assert record[0].filename == __file__  # shown at the user's line, not the library's
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_mask_values(torch.zeros(4, 4), "attn_mask")  # all zeros: a legal no-op
        check_mask_values(torch.randn(4, 4), "attn_mask")  # a real additive bias
        check_mask_values(tril.masked_fill(tril == 0, float("-inf")) - 1, "attn_mask")


def test_a_padding_row_that_blocks_everything_asks_polarity():
    from course_lib._validate_attention import check_key_padding_mask

    inverted = torch.tensor([[True, True, True], [True, False, False]])  # True = real token
    with pytest.raises(
        ValueError,
        match=r"src_key_padding_mask blocks every key of row 0.*"
        r"Polarity\? .*~src_key_padding_mask",
    ):
        check_key_padding_mask(inverted, "src_key_padding_mask", 2, 3)
    check_key_padding_mask(~inverted, "src_key_padding_mask", 2, 3)


@pytest.mark.parametrize(
    ("mask", "match"),
    [
        (torch.tensor([3, 2]), r"one length per sequence.*padding_mask\(lengths, total_length=3\)"),
        (
            torch.zeros(3, 2, dtype=torch.bool),
            r"got \(3, 2\): the expected shape reversed -- a mask built \(S, B\), or queries "
            r"and keys given sequence-first \(L, B, D\)",
        ),
        (torch.zeros(2, 4, dtype=torch.bool), r"one column per key, and there are 3 keys"),
        (
            torch.zeros(5, 3, dtype=torch.bool),
            r"one row per sequence of the batch, and the batch has 2",
        ),
        ([[0, 0, 1], [0, 1, 1]], r"kpm must be a tensor \(B, S\) = \(2, 3\), got list of 2 list"),
        (torch.zeros(2, 3, dtype=torch.long), r"kpm is torch.int64.*kpm.bool\(\).*kpm == 0"),
    ],
)
def test_key_padding_mask_mistakes_are_named(mask, match):
    from course_lib._validate_attention import check_key_padding_mask

    with pytest.raises((TypeError, ValueError), match=match):
        check_key_padding_mask(mask, "kpm", 2, 3)


def test_sequence_first_inputs_with_a_batch_first_mask_get_no_advice_that_would_be_wrong():
    """Queries (L, B, D) given to a batch-first module with a right (B, S) padding mask: the
    module reads B = L and S = B, so the mask looks "transposed"; transposing it would give
    a silently wrong result. The message names both causes that fit and prescribes neither."""
    from course_lib.multihead import MultiHeadAttention

    L, B, D = 5, 2, 8
    x = torch.randn(L, B, D)  # sequence-first, as nn.MultiheadAttention's default
    right = torch.zeros(B, L, dtype=torch.bool)
    with pytest.raises(ValueError) as err:
        MultiHeadAttention(D, 2)(x, x, x, key_padding_mask=right)
    message = str(err.value)
    assert "sequence-first (L, B, D)" in message
    assert ".T" not in message
