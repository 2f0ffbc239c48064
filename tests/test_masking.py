"""course_lib.masking: the masked softmax, mask builders and mask combination."""

import pytest
import torch

from course_lib.masking import (
    causal_mask,
    combine_masks,
    masked_softmax,
    merge_masks,
    padding_mask,
)


def test_masked_softmax_forms_agree_and_do_not_mutate():
    scores = torch.randn(2, 3, 4)
    before = scores.clone()
    lens = torch.tensor([2, 4])
    by_lens = masked_softmax(scores, valid_lens=lens)
    by_mask = masked_softmax(scores, torch.arange(4) >= lens[:, None, None])
    torch.testing.assert_close(by_lens, by_mask)
    assert torch.equal(scores, before)
    assert torch.all(by_lens[0, :, 2:] == 0)
    per_query = masked_softmax(scores, valid_lens=torch.tensor([[1, 3, 0], [4, 4, 2]]))
    assert torch.all(per_query[0, 2] == 0)  # zero valid keys: a row of zeros, not uniform
    torch.testing.assert_close(per_query[0, 0], torch.tensor([1.0, 0, 0, 0]))
    torch.testing.assert_close(masked_softmax(scores), scores.softmax(-1))


def test_masked_softmax_errors():
    scores = torch.randn(2, 3, 4)
    with pytest.raises(ValueError, match="not both"):
        masked_softmax(
            scores, torch.zeros(2, 3, 4, dtype=torch.bool), valid_lens=torch.tensor([1, 2])
        )
    with pytest.raises(TypeError, match="boolean .* or float"):
        masked_softmax(scores, torch.zeros(2, 3, 4, dtype=torch.long))
    with pytest.raises(ValueError, match="does not fit"):
        masked_softmax(scores, torch.zeros(3, 4, 2, dtype=torch.bool))
    with pytest.raises(ValueError, match=r"\(B,\) or \(B, T\)"):
        masked_softmax(scores, valid_lens=torch.ones(2, 3, 4, dtype=torch.long))
    with pytest.raises(ValueError, match=r"valid_lens holds .* non-negative and at most S=4"):
        masked_softmax(scores, valid_lens=torch.tensor([5, 1]))
    with pytest.raises(ValueError, match=r"valid_lens holds .* non-negative"):
        masked_softmax(scores, valid_lens=torch.tensor([-1, 1]))
    with pytest.raises(TypeError, match="integers"):
        masked_softmax(scores, valid_lens=torch.tensor([1.0, 2.0]))


def test_mask_builders():
    tokens = torch.tensor([[5, 6, 0], [7, 0, 0]])
    assert padding_mask(tokens, pad_id=0).tolist() == [[False, False, True], [False, True, True]]
    assert padding_mask(torch.tensor([3, 1])).tolist() == [
        [False, False, False],
        [False, True, True],
    ]
    assert padding_mask(torch.tensor([1]), total_length=2).tolist() == [[False, True]]
    assert causal_mask(3).tolist() == [
        [False, True, True],
        [False, False, True],
        [False, False, False],
    ]
    with pytest.raises(ValueError, match=r"lengths must lie in \[0, total_length=2\]"):
        padding_mask(torch.tensor([3]), total_length=2)
    with pytest.raises(ValueError, match="pad_id"):
        padding_mask(tokens)
    with pytest.raises(TypeError, match="integers"):
        padding_mask(torch.tensor([1.0]))
    with pytest.raises(ValueError, match="positive integer"):
        causal_mask(0)


def test_merge_masks():
    attn = causal_mask(3)  # (T, S)
    kpm = torch.tensor([[False, False, True], [False, True, True]])  # (B, S)
    merged = merge_masks(attn, kpm)
    assert merged.shape == (2, 3, 3)
    assert merged[1].tolist() == [[False, True, True], [False, True, True], [False, True, True]]
    as_float = merge_masks(torch.zeros(3, 3), kpm)
    assert torch.equal(torch.isneginf(as_float), kpm[:, None, :].expand(2, 3, 3))
    assert merge_masks(attn, None) is attn
    with pytest.raises(ValueError, match=r"\(B, S\)"):
        merge_masks(attn, kpm[0])


def test_masked_softmax_takes_float_masks():
    scores = torch.randn(2, 3, 4, dtype=torch.float64)
    blocked = torch.rand(2, 3, 4) < 0.3
    additive = torch.zeros(2, 3, 4, dtype=torch.float64).masked_fill(blocked, float("-inf"))
    torch.testing.assert_close(masked_softmax(scores, additive), masked_softmax(scores, blocked))
    bias = torch.randn(3, 4, dtype=torch.float64)
    torch.testing.assert_close(masked_softmax(scores, bias), (scores + bias).softmax(-1))


def test_a_boolean_and_a_float_mask_combine_in_the_float_masks_dtype():
    mask = torch.tensor([[False, True]])
    for dtype in (torch.float16, torch.bfloat16, torch.float64):
        out = combine_masks(mask, torch.zeros(1, 2, dtype=dtype))
        assert out.dtype == dtype and out[0, 0] == 0 and torch.isneginf(out[0, 1])
    two_floats = combine_masks(torch.zeros(1, 2, dtype=torch.float16), torch.zeros(1, 2))
    assert two_floats.dtype == torch.float32  # the promoted dtype


def test_combine_masks():
    a = torch.tensor([[False, True, False]])
    b = torch.tensor([[False, False, True]])
    assert combine_masks(a, b).tolist() == [[False, True, True]]
    assert combine_masks(a, None) is a and combine_masks(None, None) is None
    half = torch.zeros(1, 3, dtype=torch.float16)
    mixed = combine_masks(a, half)
    assert mixed.dtype == torch.float16 and torch.isneginf(mixed).tolist() == a.tolist()
    with pytest.raises(ValueError, match="do not broadcast"):
        combine_masks(a, torch.zeros(2, 2, dtype=torch.bool))


def test_an_integer_padding_mask_is_refused_next_to_a_boolean_mask():
    # 0/1 integers would silently be *added* to the scores as +1: refuse them
    kpm = torch.tensor([[0, 1, 1]])
    with pytest.raises(TypeError, match=r"mask.bool\(\)"):
        merge_masks(causal_mask(3), kpm)
    with pytest.raises(TypeError, match=r"mask.bool\(\)"):
        combine_masks(kpm, None)


def test_public_names():
    import course_lib.masking as masking

    # combine_masks is a building block (of merge_masks and of MultiHeadAttention's masks)
    assert masking.__all__ == [
        "MaskWarning",  # what a mask that is probably not meant warns with
        "masked_softmax",
        "padding_mask",
        "causal_mask",
        "sliding_window_mask",
        "merge_masks",
    ]


def test_a_nan_at_a_blocked_key_still_poisons_the_context():
    """Documented behaviour (masking's module docstring): weights are exactly 0 at blocked
    keys, but 0 x NaN is NaN -- padding must hold finite numbers."""
    weights = masked_softmax(torch.zeros(1, 1, 2), torch.tensor([[[False, True]]]))
    assert weights.tolist() == [[[1.0, 0.0]]]
    values = torch.tensor([[[1.0], [float("nan")]]])
    assert torch.isnan(weights @ values).all()


def test_a_sliding_window_sees_the_last_few_keys_only():
    from course_lib.masking import sliding_window_mask

    mask = sliding_window_mask(5, 2)
    assert (~mask).int().tolist() == [
        [1, 0, 0, 0, 0],
        [1, 1, 0, 0, 0],
        [0, 1, 1, 0, 0],
        [0, 0, 1, 1, 0],
        [0, 0, 0, 1, 1],
    ]
    assert torch.equal(sliding_window_mask(5, 5), causal_mask(5))  # a window as long as T
    with pytest.raises(ValueError, match="window must be a positive integer"):
        sliding_window_mask(5, 0)


def test_integer_scores_are_named_instead_of_a_kernel_error():
    with pytest.raises(TypeError, match=r"scores is torch.int64.*scores.float\(\)"):
        masked_softmax(torch.tensor([[1, 2, 3]]))


def test_lengths_and_pad_ids_passed_the_wrong_way_are_named():
    scores = torch.randn(2, 3, 5)
    with pytest.raises(ValueError, match=r"valid_lens holds how many keys.*non-negative"):
        masked_softmax(scores, valid_lens=torch.tensor([-1, 2]))
    with pytest.raises(ValueError, match=r"valid_lens of shape \(3\) does not fit.*another batch"):
        masked_softmax(scores, valid_lens=torch.tensor([2, 3, 4]))
    with pytest.raises(TypeError, match=r"lengths, not a mask.*valid_lens=lengths"):
        masked_softmax(scores, torch.tensor([2, 4]))  # d2l's positional valid_lens
    with pytest.raises(TypeError, match=r"pad_id must be the integer id of <pad>.*got '<pad>'"):
        padding_mask(torch.zeros(2, 3, dtype=torch.long), pad_id="<pad>")


def test_the_two_forms_of_padding_mask_and_merged_masks_are_kept_apart():
    tokens = torch.tensor([[5, 6, 0], [7, 0, 0]])
    with pytest.raises(ValueError, match=r"give pad_id .* or total_length .*, not both"):
        padding_mask(tokens, pad_id=0, total_length=8)
    with pytest.raises(
        ValueError, match=r"these look like lengths.*total_length=S\) instead of pad_id"
    ):
        padding_mask(torch.tensor([2, 1]), pad_id=0)
    with pytest.raises(ValueError, match=r"key_padding_mask covers 6 keys but attn_mask 5"):
        merge_masks(causal_mask(5), padding_mask(torch.tensor([2, 4]), total_length=6))
    with pytest.raises(TypeError, match=r"scores is torch.bool.*masked_softmax\(scores, mask\)"):
        masked_softmax(causal_mask(5), torch.randn(5, 5))


def test_padding_mask_refuses_a_mask_it_would_invert():
    tokens = torch.tensor([[5, 6, 0], [7, 0, 0]])
    with pytest.raises(TypeError, match=r"bool tensor \(2, 3\): that is already a mask"):
        padding_mask(tokens == 0, pad_id=0)  # would have given tokens != 0: inverted
    with pytest.raises(TypeError, match="already a mask"):
        padding_mask(torch.tensor([True, False]))


@pytest.mark.parametrize("size", [(5,), (5, 2)])
def test_masks_take_one_size_and_a_device_by_name(size):
    from course_lib.masking import sliding_window_mask

    build = causal_mask if len(size) == 1 else sliding_window_mask
    with pytest.raises(TypeError, match=r"device=5: the mask is square.*device='cpu'"):
        build(*size, 5)  # causal_mask(5, 5), as torch.ones(T, T)
    assert causal_mask(3, "cpu").shape == (3, 3)


def test_a_window_longer_than_the_sequence_warns():
    from course_lib._validate_basics import MaskWarning
    from course_lib.masking import sliding_window_mask

    with pytest.warns(
        MaskWarning, match=r"sliding_window_mask\(3, 8\).*sliding_window_mask\(8, 3\)"
    ):
        assert torch.equal(sliding_window_mask(3, 8), causal_mask(3))


def test_padding_mask_given_a_list_of_lengths_says_to_make_it_a_tensor():
    """Issue 47: a Python list of lengths crashed in an attribute lookup ('list' object has
    no attribute 'ndim')."""
    import re

    from course_lib.masking import padding_mask

    with pytest.raises(TypeError, match=re.escape("got list: padding_mask(torch.tensor(lengths)")):
        padding_mask([3, 2], total_length=4)
    assert padding_mask(torch.tensor([3, 2]), total_length=4).tolist() == [
        [False, False, False, True],
        [False, False, True, True],
    ]
