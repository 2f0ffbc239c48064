"""course_lib.attention: parity with PyTorch, fully masked rows, gradients, errors."""

import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st

from course_lib.attention import AdditiveAttention, Attention, scaled_dot_product_attention
from course_lib.masking import causal_mask, masked_softmax, padding_mask


@st.composite
def attention_inputs(draw):
    batch = draw(st.lists(st.integers(1, 3), min_size=0, max_size=2))  # any leading dims
    t, s = draw(st.integers(1, 5)), draw(st.integers(1, 6))
    e, ev = draw(st.integers(1, 8)), draw(st.integers(1, 8))
    seed = draw(st.integers(0, 2**31 - 1))
    g = torch.Generator().manual_seed(seed)
    q = torch.randn(*batch, t, e, generator=g, dtype=torch.float64)
    k = torch.randn(*batch, s, e, generator=g, dtype=torch.float64)
    v = torch.randn(*batch, s, ev, generator=g, dtype=torch.float64)
    mask_shape = draw(st.sampled_from(["none", "full", "keys", "tq"]))
    if mask_shape == "none":
        mask = None
    elif mask_shape == "full":
        mask = torch.rand(*batch, t, s, generator=g) < draw(st.floats(0, 0.9))
    elif mask_shape == "keys":  # one mask row for all queries, broadcast
        mask = torch.rand(*batch, 1, s, generator=g) < 0.5
    else:  # a (T, S) mask shared by the batch
        mask = torch.rand(t, s, generator=g) < 0.5
    return q, k, v, mask


@settings(max_examples=150, deadline=None)
@given(attention_inputs())
@pytest.mark.filterwarnings("ignore:attn_mask blocks every key")  # rows on purpose
def test_parity_with_torch_sdpa(inputs):
    q, k, v, mask = inputs
    q0, k0, v0 = q.clone(), k.clone(), v.clone()
    mask0 = None if mask is None else mask.clone()
    context, weights = scaled_dot_product_attention(q, k, v, attn_mask=mask)
    # inputs are never modified
    assert torch.equal(q, q0) and torch.equal(k, k0) and torch.equal(v, v0)
    assert (mask is None) or torch.equal(mask, mask0)
    # PyTorch's polarity is the opposite: True = takes part
    reference = F.scaled_dot_product_attention(q, k, v, attn_mask=None if mask is None else ~mask)
    blocked = (
        torch.zeros(weights.shape, dtype=torch.bool) if mask is None else mask.expand(weights.shape)
    )
    empty = blocked.all(-1)  # (..., T): rows where every key is blocked
    torch.testing.assert_close(context[~empty], reference[~empty], rtol=1e-9, atol=1e-9)
    # rows sum to 1, blocked positions are exactly 0, fully masked rows are all zeros
    sums = weights.sum(-1)
    torch.testing.assert_close(sums[~empty], torch.ones_like(sums[~empty]))
    assert torch.all(weights[blocked] == 0)
    assert torch.all(weights[empty] == 0) and torch.all(context[empty] == 0)
    assert not torch.isnan(context).any()


def test_float_mask_is_added():
    q, k, v = torch.randn(2, 3, 4), torch.randn(2, 5, 4), torch.randn(2, 5, 2)
    bias = torch.randn(3, 5)
    ours, _ = scaled_dot_product_attention(q, k, v, attn_mask=bias)
    torch.testing.assert_close(ours, F.scaled_dot_product_attention(q, k, v, attn_mask=bias))


@pytest.mark.filterwarnings("ignore:attn_mask blocks every key")  # rows on purpose
def test_gradcheck_float64_with_masks():
    g = torch.Generator().manual_seed(0)
    q = torch.randn(2, 3, 4, dtype=torch.float64, generator=g, requires_grad=True)
    k = torch.randn(2, 5, 4, dtype=torch.float64, generator=g, requires_grad=True)
    v = torch.randn(2, 5, 3, dtype=torch.float64, generator=g, requires_grad=True)
    mask = torch.rand(2, 3, 5, generator=g) < 0.4
    mask[0, 1] = True  # one fully masked row: its gradients must be zeros, not NaN
    assert torch.autograd.gradcheck(
        lambda q, k, v: scaled_dot_product_attention(q, k, v, attn_mask=mask), (q, k, v)
    )
    context, _ = scaled_dot_product_attention(q, k, v, attn_mask=mask)
    context.sum().backward()
    assert not torch.isnan(q.grad).any() and torch.all(q.grad[0, 1] == 0)


def test_clear_errors_for_mismatched_shapes():
    q, k, v = torch.randn(2, 3, 4), torch.randn(2, 5, 4), torch.randn(2, 5, 6)
    with pytest.raises(ValueError, match="same width E"):
        scaled_dot_product_attention(q, torch.randn(2, 5, 3), v)
    with pytest.raises(ValueError, match="same length S"):
        scaled_dot_product_attention(q, k, torch.randn(2, 4, 6))
    with pytest.raises(ValueError, match=r"attn_mask of shape \(5, 3\) does not fit"):
        scaled_dot_product_attention(q, k, v, attn_mask=torch.zeros(5, 3, dtype=torch.bool))
    with pytest.raises(TypeError, match="boolean .* or float"):
        scaled_dot_product_attention(q, k, v, attn_mask=torch.zeros(3, 5, dtype=torch.long))
    with pytest.raises(ValueError, match="length, features"):
        scaled_dot_product_attention(torch.randn(4), k, v)


def test_additive_attention_shapes_masks_and_different_widths():
    torch.manual_seed(0)
    attention = AdditiveAttention(query_dim=3, key_dim=5, attn_dim=7)
    q, k, v = torch.randn(2, 4, 3), torch.randn(2, 6, 5), torch.randn(2, 6, 2)
    context, weights = attention(q, k, v, key_padding_mask=padding_mask(torch.tensor([6, 2])))
    assert context.shape == (2, 4, 2) and weights.shape == (2, 4, 6)
    torch.testing.assert_close(weights.sum(-1), torch.ones(2, 4))
    assert torch.all(weights[1, :, 2:] == 0)
    manual = attention.w_v(
        torch.tanh(attention.w_q(q)[:, :, None] + attention.w_k(k)[:, None])
    ).squeeze(-1)
    torch.testing.assert_close(weights[0], manual[0].softmax(-1))
    with pytest.raises(ValueError, match="query must be"):
        attention(torch.randn(2, 4, 5), k, v)
    with pytest.raises(ValueError, match="same length S"):
        attention(q, k, v[:, :3])


def test_attention_module_projections_and_masks():
    torch.manual_seed(1)
    attention = Attention(proj_dim=4, input_dim=3)
    q, k = torch.randn(2, 2, 3), torch.randn(2, 5, 3)
    context, weights = attention(q, k)  # values default to the raw keys
    expected_w = torch.softmax(attention.q_proj(q) @ attention.k_proj(k).transpose(1, 2) / 2.0, -1)
    torch.testing.assert_close(weights, expected_w)
    torch.testing.assert_close(context, expected_w @ k)
    _, masked = attention(q, k, key_padding_mask=padding_mask(torch.tensor([5, 1])))
    assert torch.all(masked[1, :, 1:] == 0)
    assert attention(q, k, need_weights=False)[1] is None
    projected = Attention(proj_dim=4, input_dim=3, proj_values=True)
    assert projected(q, k)[0].shape == (2, 2, 4)
    with pytest.raises(ValueError, match=r"key has 4 features per step.*input_dim=3: give"):
        attention(q, torch.randn(2, 5, 4))


def test_modules_keep_no_state():
    attention = Attention(2)
    q, k = torch.randn(1, 1, 2), torch.randn(1, 3, 2)
    attention(q, k)
    assert set(vars(attention)) <= set(vars(Attention(2)))  # nothing new was stored


@pytest.mark.parametrize(
    "call, error, message",
    [
        (
            lambda: scaled_dot_product_attention(
                torch.randn(2, 3, 4), torch.randn(3, 5, 4), torch.randn(3, 5, 4)
            ),
            ValueError,
            "batch",
        ),
        (
            lambda: scaled_dot_product_attention(
                torch.ones(2, 3, 4, dtype=torch.long), torch.randn(2, 5, 4), torch.randn(2, 5, 4)
            ),
            TypeError,
            "embed token ids",
        ),
        (
            lambda: scaled_dot_product_attention(
                torch.randn(2, 3, 4), torch.randn(2, 5, 4), torch.randn(2, 5, 4), dropout_p=-0.5
            ),
            ValueError,
            "probability",
        ),
        (lambda: Attention(4)(torch.randn(2, 3, 4), torch.randn(3, 5, 4)), ValueError, "batch"),
        (
            lambda: AdditiveAttention(4, 4, 8)(
                torch.randn(2, 3, 4), torch.randn(3, 5, 4), torch.randn(3, 5, 4)
            ),
            ValueError,
            "batch",
        ),
    ],
)
def test_mistakes_a_new_user_makes(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_pytorchs_fused_attention_agrees_with_every_mask_form_in_the_opposite_polarity():
    """F.scaled_dot_product_attention reads a boolean mask as True = takes part: the
    library's masks (True = blocked) go in negated; float masks are added by both."""
    import torch.nn.functional as F

    from course_lib.masking import causal_mask, padding_mask, sliding_window_mask

    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(2, 3, 6, 4, generator=g, dtype=torch.float64) for _ in range(3))
    kpm = padding_mask(torch.tensor([6, 3]), total_length=6)[:, None, None, :]  # (B, 1, 1, S)
    float_mask = torch.randn(6, 6, generator=g, dtype=torch.float64)
    for mask in (None, causal_mask(6), sliding_window_mask(6, 3), kpm, kpm | causal_mask(6)):
        ours, _ = scaled_dot_product_attention(q, k, v, attn_mask=mask)
        theirs = F.scaled_dot_product_attention(q, k, v, attn_mask=None if mask is None else ~mask)
        torch.testing.assert_close(ours, theirs, rtol=0, atol=1e-12)
    ours, _ = scaled_dot_product_attention(q, k, v, attn_mask=float_mask)
    theirs = F.scaled_dot_product_attention(q, k, v, attn_mask=float_mask)
    torch.testing.assert_close(ours, theirs, rtol=0, atol=1e-12)
    causal, _ = scaled_dot_product_attention(q, k, v, attn_mask=causal_mask(6))
    torch.testing.assert_close(
        causal, F.scaled_dot_product_attention(q, k, v, is_causal=True), rtol=0, atol=1e-12
    )
    wrong = F.scaled_dot_product_attention(q, k, v, attn_mask=causal_mask(6))  # not negated
    assert not torch.allclose(wrong, causal)


def test_a_tutorial_causal_mask_of_floats_warns_instead_of_silently_blocking_nothing():
    from course_lib._validate_basics import MaskWarning

    q = torch.randn(1, 4, 8)
    tril = torch.tril(torch.ones(4, 4))  # 1 = may attend, as many tutorials build it
    with pytest.warns(MaskWarning, match=r"attn_mask is a float mask of 0s and 1s"):
        scaled_dot_product_attention(q, q, q, attn_mask=tril)
    with pytest.warns(MaskWarning, match=r"^mask is a float mask of 0s and 1s"):
        masked_softmax(torch.randn(4, 4), tril)
    # the fix the warning gives is right: the same weights as the library's causal mask
    fixed = scaled_dot_product_attention(q, q, q, attn_mask=tril == 0)[1]
    torch.testing.assert_close(
        fixed, scaled_dot_product_attention(q, q, q, attn_mask=causal_mask(4))[1]
    )


@pytest.mark.parametrize("module", ["Attention", "AdditiveAttention"])
def test_single_head_modules_name_the_mask_the_user_passed(module):
    """A wrong key_padding_mask was reported as a bad attn_mask (the merged mask)."""
    x = torch.randn(2, 4, 8)
    layer = Attention(8) if module == "Attention" else AdditiveAttention(8, 8, 4)
    with pytest.raises(
        ValueError, match=r"^key_padding_mask must be \(B, S\) = \(2, 4\), got \(2, 3\)"
    ):
        layer(x, x, x, key_padding_mask=torch.zeros(2, 3, dtype=torch.bool))
    with pytest.raises(ValueError, match=r"^attn_mask must be \(T, S\) = \(4, 4\) or \(B, T, S\)"):
        layer(x, x, x, attn_mask=torch.zeros(3, 4, 4, dtype=torch.bool))
    with pytest.raises(ValueError, match=r"key_padding_mask blocks every key of row 1.*Polarity"):
        layer(x, x, x, key_padding_mask=torch.tensor([[False] * 4, [True] * 4]))


def test_attention_names_input_dim_when_the_inputs_are_narrower_than_proj_dim():
    with pytest.raises(ValueError, match=r"built for input_dim=4.*Attention\(4, input_dim=2\)"):
        Attention(4)(torch.randn(2, 1, 2), torch.randn(2, 3, 2))


def test_sizes_and_a_scale_of_sqrt_e_are_named():
    with pytest.raises(ValueError, match=r"attn_dim must be a positive integer, got 0"):
        AdditiveAttention(4, 4, 0)
    with pytest.raises(ValueError, match=r"proj_dim must be a positive integer, got 4.0"):
        Attention(8 / 2)
    q = torch.randn(1, 3, 4)
    with pytest.warns(UserWarning, match=r"scale=2 is sqrt\(E\) for E=4.*1 / sqrt\(E\)"):
        scaled_dot_product_attention(q, q, q, scale=2.0)


def test_foreign_keywords_name_the_course_s_masks():
    q = torch.zeros(1, 2, 4)
    with pytest.raises(TypeError, match=r"'is_causal'.*attn_mask=causal_mask\(T\)"):
        scaled_dot_product_attention(q, q, q, is_causal=True)
    with pytest.raises(TypeError, match=r"Attention.forward\(\).*'mask'.*key_padding_mask="):
        Attention(4)(q, q, mask=torch.zeros(1, 2, dtype=torch.bool))


@pytest.mark.parametrize("module", [AdditiveAttention(20, 2, 8), Attention(2, input_dim=20)])
def test_modules_refuse_a_query_without_its_length_axis(module):
    query, key = (
        torch.randn(2, 20),
        torch.randn(2, 10, 2 if isinstance(module, AdditiveAttention) else 20),
    )
    with pytest.raises(ValueError, match=r"same rank.*query \(2, 20\).*query\.unsqueeze\(1\)"):
        module(query, key, key)


def test_the_fused_functions_polarity_warns():
    from course_lib._validate_basics import MaskWarning

    q, k, v = (torch.randn(2, 4, 6, 16) for _ in range(3))
    with pytest.warns(MaskWarning, match=r"True on and below the diagonal.*causal_mask\(6\)"):
        scaled_dot_product_attention(q, k, v, attn_mask=~causal_mask(6))


def _warnings_of(call):
    """The messages of the warnings ``call()`` gives, every one recorded."""
    import warnings

    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        call()
    return [str(w.message) for w in seen]


def test_a_keep_mask_that_leaves_a_query_no_key_asks_polarity_as_multi_head_attention_does():
    """Issue "The code a student reads": the functional attention given a boolean mask in
    PyTorch's polarity (True = keep) whose rows block every key ran silently, where
    MultiHeadAttention asks "Polarity?" of the same mask. Now the same rule and words."""
    import warnings

    from course_lib._validate import MaskWarning
    from course_lib.multihead import MultiHeadAttention

    q = torch.randn(1, 3, 4)
    keep = torch.tensor([[True, True, True], [False, False, False], [True, True, True]])
    blocked = ~keep  # the mask of PyTorch's polarity passed as is: row 1 is all True here
    with pytest.warns(MaskWarning, match=r"attn_mask blocks every key of row 1.*Polarity\?"):
        scaled_dot_product_attention(q, q, q, attn_mask=blocked)
    ours = _warnings_of(lambda: scaled_dot_product_attention(q, q, q, attn_mask=blocked))
    theirs = _warnings_of(lambda: MultiHeadAttention(4, 2)(q, q, q, attn_mask=blocked))
    assert ours == theirs and len(ours) == 1
    # the key padding of PyTorch's polarity, ~padding_mask: the full sequence is all True
    x = torch.randn(2, 3, 4)
    inverted = ~padding_mask(torch.tensor([2, 3]))[:, None]  # (B, 1, S)
    with pytest.warns(MaskWarning, match=r"row \(1, 0\).*pass ~attn_mask"):
        scaled_dot_product_attention(x, x, x, attn_mask=inverted)
    # near misses: the course's polarity, and a row left with one key, say nothing
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        scaled_dot_product_attention(x, x, x, attn_mask=padding_mask(torch.tensor([2, 3]))[:, None])
        scaled_dot_product_attention(q, q, q, attn_mask=causal_mask(3))
        one_left = torch.tensor([[True, True, False]] * 3)
        scaled_dot_product_attention(q, q, q, attn_mask=one_left)
        # a float mask with a row of -inf is the additive form, written on purpose
        additive = torch.zeros(3, 3).masked_fill(blocked, float("-inf"))
        scaled_dot_product_attention(q, q, q, attn_mask=additive)
    # ~causal_mask(T) gets its own, more precise warning, and only that one
    said = _warnings_of(lambda: scaled_dot_product_attention(q, q, q, attn_mask=~causal_mask(3)))
    assert len(said) == 1 and "True on and below the diagonal" in said[0]


def test_a_float_mask_of_0s_and_1s_warns_as_the_modules_do():
    """A confused boolean mask (floats 0 and 1) given to the functional attention: the
    MaskWarning of MultiHeadAttention and Attention, word for word."""
    import warnings

    from course_lib.multihead import MultiHeadAttention

    q = torch.randn(1, 4, 4)
    tril = torch.tril(torch.ones(4, 4))
    ours = _warnings_of(lambda: scaled_dot_product_attention(q, q, q, attn_mask=tril))
    assert len(ours) == 1 and "float mask of 0s and 1s" in ours[0]
    assert ours == _warnings_of(lambda: MultiHeadAttention(4, 2)(q, q, q, attn_mask=tril))
    assert ours == _warnings_of(lambda: Attention(4)(q, q, attn_mask=tril))
    with warnings.catch_warnings():  # near misses: real float masks
        warnings.simplefilter("error")
        scaled_dot_product_attention(
            q, q, q, attn_mask=torch.zeros(4, 4).masked_fill(tril == 0, float("-inf"))
        )
        scaled_dot_product_attention(q, q, q, attn_mask=torch.randn(4, 4))
        scaled_dot_product_attention(q, q, q, attn_mask=torch.zeros(4, 4))
