"""MultiHeadAttention: the contract and the numbers of nn.MultiheadAttention(batch_first=True)."""

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import nn

from course_lib._validate_basics import MaskWarning
from course_lib.masking import causal_mask, padding_mask
from course_lib.multihead import MultiHeadAttention


def pair(d_model, num_heads, bias=True, seed=0):
    torch.manual_seed(seed)
    ours = MultiHeadAttention(d_model, num_heads, bias=bias).double()
    ref = nn.MultiheadAttention(d_model, num_heads, bias=bias, batch_first=True).double()
    with torch.no_grad():
        for p in ours.parameters():  # move away from the zero biases of the default init
            p.copy_(torch.randn_like(p) * 0.3)
        ref.in_proj_weight.copy_(
            torch.cat([ours.q_proj.weight, ours.k_proj.weight, ours.v_proj.weight])
        )
        ref.out_proj.weight.copy_(ours.out_proj.weight)
        if bias:
            ref.in_proj_bias.copy_(
                torch.cat([ours.q_proj.bias, ours.k_proj.bias, ours.v_proj.bias])
            )
            ref.out_proj.bias.copy_(ours.out_proj.bias)
    return ours, ref


@settings(max_examples=60, deadline=None)
@given(
    heads=st.sampled_from([1, 2, 4]),
    head_dim=st.integers(1, 4),
    b=st.integers(1, 3),
    t=st.integers(1, 5),
    s=st.integers(1, 6),
    seed=st.integers(0, 10_000),
    self_attention=st.booleans(),
    use_kpm=st.booleans(),
    use_causal=st.booleans(),
    bias=st.booleans(),
    average=st.booleans(),
)
def test_parity_with_nn_multiheadattention(
    heads, head_dim, b, t, s, seed, self_attention, use_kpm, use_causal, bias, average
):
    d = heads * head_dim
    ours, ref = pair(d, heads, bias=bias, seed=seed)
    g = torch.Generator().manual_seed(seed)
    if self_attention:
        s = t
        query = key = value = torch.randn(b, t, d, generator=g, dtype=torch.float64)
    else:
        query = torch.randn(b, t, d, generator=g, dtype=torch.float64)
        key = torch.randn(b, s, d, generator=g, dtype=torch.float64)
        value = torch.randn(b, s, d, generator=g, dtype=torch.float64)
    lengths = torch.randint(1, s + 1, (b,), generator=g)  # at least one real key each
    kpm = padding_mask(lengths, total_length=s) if use_kpm else None
    attn_mask = causal_mask(t) if (use_causal and s == t) else None
    kwargs = dict(key_padding_mask=kpm, attn_mask=attn_mask, average_attn_weights=average)
    out, weights = ours(query, key, value, **kwargs)
    ref_out, ref_weights = ref(query, key, value, **kwargs)
    torch.testing.assert_close(out, ref_out, rtol=0, atol=1e-9)
    torch.testing.assert_close(weights, ref_weights, rtol=0, atol=1e-9)


def test_parity_with_a_pytorch_style_3d_mask():
    ours, ref = pair(8, 2)
    x = torch.randn(3, 4, 8, dtype=torch.float64)
    mask = torch.rand(3 * 2, 4, 4) < 0.3
    mask[..., 0] = False
    out, w = ours(x, x, x, attn_mask=mask)
    ref_out, ref_w = ref(x, x, x, attn_mask=mask)
    torch.testing.assert_close(out, ref_out, rtol=0, atol=1e-9)
    torch.testing.assert_close(w, ref_w, rtol=0, atol=1e-9)


def test_float_masks_and_a_fully_masked_row():
    ours, ref = pair(4, 2)
    x = torch.randn(2, 3, 4, dtype=torch.float64)
    bias = torch.randn(3, 3, dtype=torch.float64)
    torch.testing.assert_close(ours(x, x, x, attn_mask=bias)[0], ref(x, x, x, attn_mask=bias)[0])
    blocked = torch.zeros(2, 1, 3, 3, dtype=torch.bool)
    blocked[0, 0, 1] = True  # sequence 0, query 1: every key blocked
    kpm = torch.tensor([[False, False, False], [False, False, True]])
    with pytest.warns(MaskWarning, match=r"attn_mask blocks every key of row \(0, 0, 1\)"):
        out, weights = ours(x, x, x, attn_mask=blocked, key_padding_mask=kpm)
    assert not torch.isnan(out).any() and torch.all(weights[0, 1] == 0)
    ref_out, _ = ref(x, x, x, key_padding_mask=kpm)
    torch.testing.assert_close(out[1], ref_out[1])


def test_need_weights_and_heads():
    ours, _ = pair(6, 3)
    x = torch.randn(2, 4, 6, dtype=torch.float64)
    assert ours(x, x, x, need_weights=False)[1] is None
    _, per_head = ours(x, x, x, average_attn_weights=False)
    assert per_head.shape == (2, 3, 4, 4)
    torch.testing.assert_close(per_head.sum(-1), torch.ones(2, 3, 4, dtype=torch.float64))


def test_dropout_only_in_training():
    torch.manual_seed(0)
    mha = MultiHeadAttention(8, 2, dropout=0.5)
    x = torch.randn(2, 5, 8)
    mha.eval()
    torch.testing.assert_close(mha(x, x, x)[0], mha(x, x, x)[0])
    mha.train()
    assert not torch.allclose(mha(x, x, x)[0], mha(x, x, x)[0])


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda m, x: m(x, x, x[..., :4]), "value must be batch-first"),
        (lambda m, x: m(x[0], x[0], x[0]), "batch-first"),
        (lambda m, x: m(x, x[:1], x[:1]), "share the batch size"),
        (
            lambda m, x: m(x, x, x, key_padding_mask=torch.zeros(2, 4, dtype=torch.bool)),
            r"\(B, S\)",
        ),
        (
            lambda m, x: m(x, x, x, attn_mask=torch.zeros(2, 5, 5, dtype=torch.bool)),
            r"B \* num_heads",
        ),
        (lambda m, x: m(x, x, x, attn_mask=torch.zeros(4, 5, dtype=torch.bool)), r"\(T, S\)"),
    ],
)
def test_clear_errors(call, message):
    with pytest.raises(ValueError, match=message):
        call(MultiHeadAttention(8, 2), torch.randn(2, 5, 8))


def test_heads_must_divide_d_model():
    with pytest.raises(
        ValueError, match=r"d_model=10 must be divisible by num_heads=3.*\[1, 2, 5, 10\]"
    ):
        MultiHeadAttention(10, 3)


def test_same_member_names_as_the_issue_contract():
    mha = MultiHeadAttention(8, 2)
    assert all(
        isinstance(getattr(mha, n), nn.Linear) for n in ("q_proj", "k_proj", "v_proj", "out_proj")
    )


def test_bad_inputs_say_what_to_do():
    mha = MultiHeadAttention(8, 2)
    tokens = torch.randint(0, 5, (2, 5, 8))
    with pytest.raises(TypeError, match=r"embed token ids first"):
        mha(tokens, tokens, tokens)
    with pytest.raises(ValueError, match=r"dropout is a probability"):
        MultiHeadAttention(8, 2, dropout=-0.1)
    x = torch.randn(2, 5, 8)
    with pytest.raises(TypeError, match=r"mask.bool\(\)"):
        mha(x, x, x, key_padding_mask=torch.zeros(2, 5, dtype=torch.long), attn_mask=causal_mask(5))


# -- the key/value cache ----------------------------------------------------------------------


def test_attend_with_projected_memory_equals_forward():
    torch.manual_seed(0)
    mha = MultiHeadAttention(8, 2).double().eval()
    q, memory = torch.randn(3, 4, 8, dtype=torch.float64), torch.randn(3, 6, 8, dtype=torch.float64)
    kpm = padding_mask(torch.tensor([6, 2, 4]), total_length=6)
    kv = mha.project_kv(memory, memory)
    assert kv.key.shape == (3, 2, 6, 4)  # (B, N, S, Dh)
    expected = mha(q, memory, memory, key_padding_mask=kpm)
    got = mha.attend(q, kv, key_padding_mask=kpm)
    torch.testing.assert_close(got[0], expected[0])
    torch.testing.assert_close(got[1], expected[1])


def test_self_attention_steps_equal_one_causal_pass():
    torch.manual_seed(1)
    mha = MultiHeadAttention(8, 4).double().eval()
    x = torch.randn(2, 5, 8, dtype=torch.float64)
    full, full_w = mha(x, x, x, attn_mask=causal_mask(5), average_attn_weights=False)
    cache, outputs = None, []
    for t in range(5):
        out, w, cache = mha.self_attention_step(x[:, t : t + 1], cache, average_attn_weights=False)
        outputs.append(out)
        torch.testing.assert_close(w[:, :, 0], full_w[:, :, t, : t + 1])
        assert cache.key.shape == (2, 4, t + 1, 2)
    torch.testing.assert_close(torch.cat(outputs, dim=1), full)
    # two positions at once, after a cached prefix, give the same numbers too
    _, _, prefix = mha.self_attention_step(x[:, :3], None)
    out, _, _ = mha.self_attention_step(x[:, 3:], prefix)
    torch.testing.assert_close(out, full[:, 3:])


def test_the_module_stores_nothing_between_calls():
    mha = MultiHeadAttention(8, 2)
    before = {k: v.clone() for k, v in mha.state_dict().items()}
    attributes = set(vars(mha))
    x = torch.randn(2, 3, 8)
    _, _, cache = mha.self_attention_step(x, None)
    mha.self_attention_step(x, cache)
    assert set(vars(mha)) == attributes
    assert all(torch.equal(before[k], v) for k, v in mha.state_dict().items())


def test_cache_errors():
    mha = MultiHeadAttention(8, 2)
    x = torch.randn(2, 3, 8)
    _, _, cache = mha.self_attention_step(x, None)
    with pytest.raises(ValueError, match="cache holds 2 sequences"):
        mha.self_attention_step(torch.randn(3, 1, 8), cache)
    with pytest.raises(ValueError, match="^kv holds 2 sequences but query"):  # its own name
        mha.attend(torch.randn(3, 1, 8), cache)
    with pytest.raises(TypeError, match=r"kv must be the KeyValue of project_kv.*got tuple"):
        mha.attend(torch.randn(2, 1, 8), tuple(cache))
    with pytest.raises(TypeError, match=r"query is torch.float64 but the module's weights"):
        mha(x.double(), x.double(), x.double())


def _repeated_heads(gqa: MultiHeadAttention) -> MultiHeadAttention:
    """The full multi-head attention that grouped-query attention is: every key/value head
    copied to each query head of its group."""
    full = MultiHeadAttention(gqa.d_model, gqa.num_heads).double()
    group, dh = gqa.num_heads // gqa.num_kv_heads, gqa.head_dim
    with torch.no_grad():
        for name in ("q_proj", "out_proj"):
            getattr(full, name).load_state_dict(getattr(gqa, name).state_dict())
        for name in ("k_proj", "v_proj"):
            small, big = getattr(gqa, name), getattr(full, name)
            # (Nkv * Dh, D) -> (Nkv, Dh, D) -> (Nh, Dh, D) -> (Nh * Dh, D)
            w = small.weight.view(gqa.num_kv_heads, dh, -1).repeat_interleave(group, 0)
            big.weight.copy_(w.reshape(-1, gqa.d_model))
            big.bias.copy_(
                small.bias.view(gqa.num_kv_heads, dh).repeat_interleave(group, 0).flatten()
            )
    return full


@pytest.mark.parametrize("num_kv_heads", [1, 2, 4])
def test_grouped_query_attention_is_attention_with_shared_key_value_heads(num_kv_heads):
    torch.manual_seed(0)
    gqa = MultiHeadAttention(8, 4, num_kv_heads=num_kv_heads).double()
    assert gqa.k_proj.out_features == num_kv_heads * 2
    full = _repeated_heads(gqa)
    x, memory = torch.randn(3, 5, 8, dtype=torch.float64), torch.randn(3, 6, 8, dtype=torch.float64)
    kpm = padding_mask(torch.tensor([6, 2, 4]), total_length=6)
    for args, kwargs in (
        ((x, x, x), {"attn_mask": causal_mask(5)}),
        ((x, memory, memory), {"key_padding_mask": kpm}),
    ):
        out, w = gqa(*args, average_attn_weights=False, **kwargs)
        ref_out, ref_w = full(*args, average_attn_weights=False, **kwargs)
        torch.testing.assert_close(out, ref_out, rtol=0, atol=1e-12)
        torch.testing.assert_close(w, ref_w, rtol=0, atol=1e-12)


@pytest.mark.parametrize("num_kv_heads", [1, 2])
def test_the_grouped_cache_is_smaller_and_steps_match_the_full_pass(num_kv_heads):
    torch.manual_seed(1)
    mha = MultiHeadAttention(8, 4, num_kv_heads=num_kv_heads).double().eval()
    x = torch.randn(2, 5, 8, dtype=torch.float64)
    full, _ = mha(x, x, x, attn_mask=causal_mask(5))
    cache, outs = None, []
    for t in range(5):
        out, _, cache = mha.self_attention_step(x[:, t : t + 1], cache)
        outs.append(out)
    assert cache.key.shape == cache.value.shape == (2, num_kv_heads, 5, 2)  # (B, Nkv, S, Dh)
    torch.testing.assert_close(torch.cat(outs, dim=1), full, rtol=0, atol=1e-12)


def test_key_value_heads_must_divide_the_heads():
    with pytest.raises(ValueError, match="num_kv_heads=3 must divide num_heads=4"):
        MultiHeadAttention(8, 4, num_kv_heads=3)
    with pytest.raises(ValueError, match="num_kv_heads must be a positive integer"):
        MultiHeadAttention(8, 4, num_kv_heads=0)


def test_rotary_self_attention_sees_offsets_only_and_steps_match():
    torch.manual_seed(2)
    mha = MultiHeadAttention(8, 2, rotary=True, num_kv_heads=1).double().eval()
    x = torch.randn(2, 6, 8, dtype=torch.float64)
    base = torch.arange(6).expand(2, 6)
    out, w = mha(x, x, x, attn_mask=causal_mask(6), positions=base)
    shifted, w_shifted = mha(x, x, x, attn_mask=causal_mask(6), positions=base + 7)
    torch.testing.assert_close(w_shifted, w, rtol=0, atol=1e-12)  # every offset the same
    torch.testing.assert_close(shifted, out, rtol=0, atol=1e-12)
    plain = MultiHeadAttention(8, 2, num_kv_heads=1).double().eval()
    plain.load_state_dict(mha.state_dict())
    assert not torch.allclose(plain(x, x, x, attn_mask=causal_mask(6))[0], out)
    cache, steps = None, []
    for t in range(6):
        o, _, cache = mha.self_attention_step(x[:, t : t + 1], cache)
        steps.append(o)
    torch.testing.assert_close(torch.cat(steps, dim=1), out, rtol=0, atol=1e-12)
    with pytest.raises(ValueError, match="rotary embedding rotates"):
        mha(x, x[:, :3].clone(), x[:, :3].clone())


def test_a_step_can_see_its_block_both_ways_and_skip_padding():
    torch.manual_seed(3)
    mha = MultiHeadAttention(8, 2).double().eval()
    x = torch.randn(2, 4, 8, dtype=torch.float64)
    kpm = padding_mask(torch.tensor([4, 2]), total_length=4)
    full, _ = mha(x, x, x, key_padding_mask=kpm)  # no causal mask
    out, _, cache = mha.self_attention_step(x, None, key_padding_mask=kpm, causal=False)
    torch.testing.assert_close(out, full, rtol=0, atol=1e-12)
    assert cache.key.shape == (2, 2, 4, 4)


def test_masks_are_checked_in_the_users_words_before_any_arithmetic():
    mha = MultiHeadAttention(8, 2)
    x = torch.randn(2, 4, 8)
    with pytest.warns(MaskWarning, match="float mask of 0s and 1s"):  # the tutorials' tril
        mha(x, x, x, attn_mask=torch.tril(torch.ones(4, 4)))
    with pytest.warns(MaskWarning, match=r"attn_mask blocks every key of row 3.*Polarity"):
        mha(x, x, x, attn_mask=torch.tril(torch.ones(4, 4)).bool())  # True = may attend
    with pytest.raises(ValueError, match=r"key_padding_mask blocks every key of row 0.*Polarity"):
        mha(x, x, x, key_padding_mask=torch.tensor([[True] * 4, [True, True, False, False]]))
    with pytest.raises(ValueError, match=r"one mask per sequence.*attn_mask\[:, None\]"):
        mha(x, x, x, attn_mask=torch.zeros(2, 4, 4, dtype=torch.bool))
    with pytest.raises(ValueError, match=r"^key_padding_mask must be \(B, S\) = \(2, 4\)"):
        mha(x, x, x, key_padding_mask=torch.zeros(4, 2, dtype=torch.bool))
    with pytest.raises(TypeError, match=r"attn_mask is torch.int64.*attn_mask == 0"):
        mha(x, x, x, attn_mask=torch.tril(torch.ones(4, 4, dtype=torch.long)))
    mha(x, x, x, attn_mask=torch.zeros(2, 1, 4, 4, dtype=torch.bool))  # broadcasts: fine


def test_decoding_steps_check_shapes_but_never_read_the_masks_values():
    """No device synchronisation per decoded token: a step checks shapes only."""
    mha = MultiHeadAttention(8, 2)
    x = torch.randn(2, 1, 8)
    _, _, cache = mha.self_attention_step(x, None)
    with pytest.raises(ValueError, match=r"key_padding_mask must be \(B, S\) = \(2, 2\)"):
        mha.self_attention_step(x, cache, key_padding_mask=torch.zeros(2, 3, dtype=torch.bool))
    all_blocked = torch.ones(
        2, 2, dtype=torch.bool
    )  # forward would refuse it; a step does not look
    mha.self_attention_step(x, cache, key_padding_mask=all_blocked)


def test_swapped_sizes_and_ignored_positions_are_named():
    with pytest.raises(
        ValueError, match=r"Swapped\? The order is MultiHeadAttention\(d_model, num_heads\)"
    ):
        MultiHeadAttention(2, 8)  # the lecture's (n_heads, d_model) order
    x = torch.randn(2, 5, 8)
    with pytest.raises(ValueError, match=r"positions= is only read by rotary embedding"):
        MultiHeadAttention(8, 2)(x, x, x, positions=torch.arange(5).expand(2, 5))


def test_a_step_without_its_time_axis_is_named():
    with pytest.raises(ValueError, match=r"x\[:, -1:\] rather than x\[:, -1\]"):
        MultiHeadAttention(8, 2).self_attention_step(torch.randn(2, 8), None)


def test_pytorch_keywords_name_the_course_s():
    from course_lib.multihead import MultiHeadAttention

    with pytest.raises(TypeError, match=r"'batch_first'.*always batch-first"):
        MultiHeadAttention(8, 2, batch_first=True)
    with pytest.raises(TypeError, match=r"'embed_dim'.*d_model"):
        MultiHeadAttention(embed_dim=8, num_heads=2)
    x = torch.zeros(1, 3, 8)
    with pytest.raises(TypeError, match=r"MultiHeadAttention.forward\(\).*'is_causal'.*attn_mask="):
        MultiHeadAttention(8, 2)(x, x, x, is_causal=True)


def test_pytorch_attribute_names_say_what_course_lib_keeps():
    mha = MultiHeadAttention(8, 2)
    with pytest.raises(AttributeError, match=r"no in_proj_weight: .*q_proj, k_proj and v_proj"):
        _ = mha.in_proj_weight
    with pytest.raises(AttributeError, match="batch-first"):
        _ = mha.batch_first


def test_the_lectures_subsequent_mask_is_named_with_its_polarity():
    from course_lib.lecture.self_attention import subsequent_mask

    mha, x = MultiHeadAttention(8, 2), torch.randn(2, 5, 8)
    with pytest.raises(ValueError, match=r"subsequent_mask\(5\).*True = blocked.*causal_mask\(5\)"):
        mha(x, x, x, attn_mask=subsequent_mask(5))
    with pytest.raises(ValueError, match=r"drop its leading axis of 1, attn_mask\[0\]"):
        mha(x, x, x, attn_mask=causal_mask(5)[None])
