"""Transformer layers and stacks: parity with PyTorch, masks, padding, the decoding cache."""

import pytest
import torch
from torch import nn

from course_lib.masking import causal_mask, padding_mask
from course_lib.transformer import (
    DecoderLayer,
    EncoderLayer,
    FeedForward,
    TransformerDecoder,
    TransformerEncoder,
)

D, N, FF = 8, 2, 16


def copy_attention(ours, theirs: nn.MultiheadAttention) -> None:
    q, k, v = theirs.in_proj_weight.chunk(3)
    bq, bk, bv = theirs.in_proj_bias.chunk(3)
    with torch.no_grad():
        for proj, w, b in ((ours.q_proj, q, bq), (ours.k_proj, k, bk), (ours.v_proj, v, bv)):
            proj.weight.copy_(w)
            proj.bias.copy_(b)
        ours.out_proj.weight.copy_(theirs.out_proj.weight)
        ours.out_proj.bias.copy_(theirs.out_proj.bias)


def copy_common(ours, theirs) -> None:
    with torch.no_grad():
        ours.ffn.net[0].load_state_dict(theirs.linear1.state_dict())
        ours.ffn.net[3].load_state_dict(theirs.linear2.state_dict())
        for i in (1, 2, 3) if hasattr(theirs, "norm3") else (1, 2):
            getattr(ours, f"norm{i}").load_state_dict(getattr(theirs, f"norm{i}").state_dict())
    copy_attention(ours.self_attn, theirs.self_attn)


def inputs(seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(3, 5, D, generator=g, dtype=torch.float64)
    memory = torch.randn(3, 6, D, generator=g, dtype=torch.float64)
    tgt_kpm = padding_mask(torch.tensor([5, 3, 4]), total_length=5)
    mem_kpm = padding_mask(torch.tensor([6, 2, 5]), total_length=6)
    return x, memory, tgt_kpm, mem_kpm


@pytest.mark.parametrize("norm_first", [False, True])
def test_encoder_layer_equals_pytorchs(norm_first):
    torch.manual_seed(0)
    theirs = (
        nn.TransformerEncoderLayer(D, N, FF, dropout=0.0, batch_first=True, norm_first=norm_first)
        .double()
        .eval()
    )
    ours = EncoderLayer(D, N, FF, add_norm="pre" if norm_first else "post").double().eval()
    copy_common(ours, theirs)
    x, _, kpm, _ = inputs()
    for mask, key_padding in ((None, kpm), (causal_mask(5), None), (causal_mask(5), kpm)):
        expected = theirs(x, src_mask=mask, src_key_padding_mask=key_padding)
        got, _ = ours(x, src_mask=mask, src_key_padding_mask=key_padding)
        real = ~kpm if key_padding is not None else torch.ones(3, 5, dtype=torch.bool)
        torch.testing.assert_close(got[real], expected[real], atol=1e-6, rtol=0)


@pytest.mark.parametrize("norm_first", [False, True])
def test_decoder_layer_equals_pytorchs(norm_first):
    torch.manual_seed(1)
    theirs = (
        nn.TransformerDecoderLayer(D, N, FF, dropout=0.0, batch_first=True, norm_first=norm_first)
        .double()
        .eval()
    )
    ours = DecoderLayer(D, N, FF, add_norm="pre" if norm_first else "post").double().eval()
    copy_common(ours, theirs)
    copy_attention(ours.cross_attn, theirs.multihead_attn)
    x, memory, tgt_kpm, mem_kpm = inputs(1)
    expected = theirs(
        x,
        memory,
        tgt_mask=causal_mask(5),
        tgt_key_padding_mask=tgt_kpm,
        memory_key_padding_mask=mem_kpm,
    )
    got, _, _ = ours(
        x,
        memory,
        tgt_mask=causal_mask(5),
        tgt_key_padding_mask=tgt_kpm,
        memory_key_padding_mask=mem_kpm,
    )
    torch.testing.assert_close(got[~tgt_kpm], expected[~tgt_kpm], atol=1e-6, rtol=0)


@pytest.mark.parametrize("norm_first", [False, True])
def test_stacks_equal_pytorchs(norm_first):
    torch.manual_seed(2)
    layer = nn.TransformerEncoderLayer(
        D, N, FF, dropout=0.0, batch_first=True, norm_first=norm_first
    )
    theirs = (
        nn.TransformerEncoder(
            layer, 3, norm=nn.LayerNorm(D) if norm_first else None, enable_nested_tensor=False
        )
        .double()
        .eval()
    )
    ours = TransformerEncoder(D, N, FF, 3, add_norm="pre" if norm_first else "post")
    ours = ours.double().eval()
    for mine, reference in zip(ours.layers, theirs.layers, strict=True):
        copy_common(mine, reference)
    if norm_first:
        ours.norm.load_state_dict(theirs.norm.state_dict())
    x, _, kpm, _ = inputs(2)
    got, _ = ours(x, src_key_padding_mask=kpm)
    expected = theirs(x, src_key_padding_mask=kpm)
    torch.testing.assert_close(got[~kpm], expected[~kpm], atol=1e-6, rtol=0)


@pytest.mark.parametrize("norm_first", [False, True])
def test_decoder_stack_equals_pytorchs(norm_first):
    torch.manual_seed(5)
    layer = nn.TransformerDecoderLayer(
        D, N, FF, dropout=0.0, batch_first=True, norm_first=norm_first
    )
    theirs = nn.TransformerDecoder(layer, 2, norm=nn.LayerNorm(D) if norm_first else None)
    theirs = theirs.double().eval()
    ours = TransformerDecoder(D, N, FF, 2, add_norm="pre" if norm_first else "post")
    ours = ours.double().eval()
    for mine, reference in zip(ours.layers, theirs.layers, strict=True):
        copy_common(mine, reference)
        copy_attention(mine.cross_attn, reference.multihead_attn)
    if norm_first:
        ours.norm.load_state_dict(theirs.norm.state_dict())
    x, memory, tgt_kpm, mem_kpm = inputs(5)
    masks = {
        "tgt_mask": causal_mask(5),
        "tgt_key_padding_mask": tgt_kpm,
        "memory_key_padding_mask": mem_kpm,
    }
    got, _ = ours(x, memory, **masks)
    expected = theirs(x, memory, **masks)
    torch.testing.assert_close(got[~tgt_kpm], expected[~tgt_kpm], atol=1e-6, rtol=0)


def test_without_add_norm_the_sublayers_are_simply_chained():
    """add_norm=None (no PyTorch twin): exactly ffn(attention(x)), no residual, no LayerNorm."""
    torch.manual_seed(6)
    encoder = EncoderLayer(D, N, FF, dropout=0.1, add_norm=None).double().train()
    decoder = DecoderLayer(D, N, FF, dropout=0.1, add_norm=None).double().eval()
    assert not any(isinstance(m, nn.LayerNorm) for m in [*encoder.modules(), *decoder.modules()])
    x, memory, _, mem_kpm = inputs(6)
    torch.manual_seed(0)
    got, weights = encoder(x, src_mask=causal_mask(5), need_weights=True)
    torch.manual_seed(0)
    h, w = encoder.self_attn(x, x, x, attn_mask=causal_mask(5), average_attn_weights=False)
    assert torch.equal(got, encoder.ffn(h)) and torch.equal(weights, w)
    got, _, _ = decoder(x, memory, tgt_mask=causal_mask(5), memory_key_padding_mask=mem_kpm)
    h, _ = decoder.self_attn(x, x, x, attn_mask=causal_mask(5))
    h, _ = decoder.cross_attn(h, memory, memory, key_padding_mask=mem_kpm)
    assert torch.equal(got, decoder.ffn(h))


def test_layers_name_their_norms_as_pytorch_does():
    assert {n for n, _ in DecoderLayer(D, N, FF, add_norm="pre").named_children()} == {
        "norm1",
        "norm2",
        "norm3",
        "dropout",
        "self_attn",
        "cross_attn",
        "ffn",
    }


@pytest.mark.parametrize("add_norm", ["post", "pre"])
def test_padding_tokens_change_no_real_output(add_norm):
    torch.manual_seed(3)
    encoder = TransformerEncoder(D, N, FF, 2, add_norm=add_norm).double().eval()
    decoder = TransformerDecoder(D, N, FF, 2, add_norm=add_norm).double().eval()
    x, memory, tgt_kpm, mem_kpm = inputs(3)
    src = memory
    noisy_src = src.masked_fill(mem_kpm[..., None], 0.0) + 50 * mem_kpm[..., None].double()
    noisy_x = x + 50 * tgt_kpm[..., None].double()
    out, _ = encoder(src, src_key_padding_mask=mem_kpm)
    out2, _ = encoder(noisy_src, src_key_padding_mask=mem_kpm)
    torch.testing.assert_close(out[~mem_kpm], out2[~mem_kpm])
    kwargs = {
        "tgt_mask": causal_mask(5),
        "tgt_key_padding_mask": tgt_kpm,
        "memory_key_padding_mask": mem_kpm,
    }
    dec, _ = decoder(x, out, **kwargs)
    dec2, _ = decoder(noisy_x, out2, **kwargs)
    torch.testing.assert_close(dec[~tgt_kpm], dec2[~tgt_kpm])


@pytest.mark.parametrize("add_norm", ["post", "pre", None])
def test_cached_steps_equal_the_parallel_pass(add_norm):
    torch.manual_seed(4)
    decoder = TransformerDecoder(D, N, FF, 3, add_norm=add_norm).double().eval()
    x, memory, _, mem_kpm = inputs(4)
    full, weights = decoder(
        x, memory, tgt_mask=causal_mask(5), memory_key_padding_mask=mem_kpm, need_weights=True
    )
    cache = decoder.init_cache(memory)
    steps = []
    for t in range(5):
        out, cache, w = decoder.step(
            x[:, t : t + 1], cache, memory_key_padding_mask=mem_kpm, need_weights=True
        )
        steps.append(out)
        torch.testing.assert_close(w["cross"][2][:, :, 0], weights["cross"][2][:, :, t])
    assert cache.length == 5
    torch.testing.assert_close(torch.cat(steps, dim=1), full)
    picked = cache.select(torch.tensor([2, 2, 0]))  # beam search reorders rows so
    assert picked.length == 5 and torch.equal(picked.self_attn[0].key[0], cache.self_attn[0].key[2])


@pytest.mark.parametrize("add_norm", ["post", "pre", None])
def test_self_attention_without_positions_is_permutation_equivariant(add_norm):
    torch.manual_seed(0)
    layer = EncoderLayer(8, 2, 16, add_norm=add_norm).eval()
    x = torch.randn(3, 5, 8)
    perm = torch.tensor([3, 0, 4, 1, 2])
    out, _ = layer(x)
    out_perm, _ = layer(x[:, perm])
    torch.testing.assert_close(out_perm, out[:, perm])  # permute in, permuted out


def test_decoder_layer_causal_mask_blocks_the_future_weights():
    torch.manual_seed(0)
    layer = DecoderLayer(6, 3, 12).eval()
    _, self_w, cross_w = layer(
        torch.randn(2, 4, 6), torch.randn(2, 3, 6), tgt_mask=causal_mask(4), need_weights=True
    )
    assert self_w.shape == (2, 3, 4, 4) and cross_w.shape == (2, 3, 4, 3)
    assert torch.all(self_w.masked_select(causal_mask(4)) == 0)


def test_pre_norm_keeps_a_residual_path():
    layer = EncoderLayer(4, 2, 8, add_norm="pre")
    with torch.no_grad():
        for p in layer.parameters():
            p.zero_()
    x = torch.randn(2, 3, 4)
    torch.testing.assert_close(layer(x)[0], x)  # zero sublayers: the input passes unchanged


def test_clear_errors():
    with pytest.raises(ValueError, match="add_norm"):
        EncoderLayer(4, 2, 8, add_norm="middle")
    with pytest.raises(ValueError, match=r"d_model=8\), got \(2, 3, 6\)"):
        EncoderLayer(8, 2, 16, add_norm="pre")(torch.randn(2, 3, 6))
    with pytest.raises(ValueError, match="num_layers"):
        TransformerEncoder(8, 2, 16, 0)
    with pytest.raises(ValueError, match="probability"):
        DecoderLayer(8, 2, 16, dropout=1.5)
    with pytest.raises(TypeError):
        EncoderLayer(8, 2, 16)(torch.randn(2, 3, 8), None)  # masks are keyword-only
    decoder = TransformerDecoder(8, 2, 16, 2)
    with pytest.raises(ValueError, match=r"^memory must be batch-first .*width first$"):
        decoder(torch.randn(2, 3, 8), torch.randn(2, 4, 6))
    with pytest.raises(ValueError, match=r"^x must be batch-first \(B, length, d_model=8\)"):
        decoder.step(torch.randn(3, 8), decoder.init_cache(torch.randn(2, 4, 8)))
    with pytest.raises(ValueError, match="num_layers must be a positive integer"):
        TransformerDecoder(8, 2, 16, 1.5)


def test_layers_and_stacks_name_the_arguments_the_user_passed():
    """tgt_mask was reported as attn_mask; a batch mismatch as 'query, key, value'."""
    x, memory = torch.randn(2, 4, 8), torch.randn(2, 5, 8)
    bad = torch.zeros(5, 5, dtype=torch.bool)
    layer, stack = DecoderLayer(8, 2, 16), TransformerDecoder(8, 2, 16, 2)
    for model in (layer, stack):
        with pytest.raises(ValueError, match=r"^tgt_mask must be \(T, S\) = \(4, 4\)"):
            model(x, memory, tgt_mask=bad)
        with pytest.raises(
            ValueError, match=r"^memory_mask must be \(T, S\) = \(4, 5\).*transposed"
        ):
            model(x, memory, memory_mask=torch.zeros(5, 4, dtype=torch.bool))
        with pytest.raises(
            ValueError, match=r"^memory_key_padding_mask must be \(B, S\) = \(2, 5\)"
        ):
            model(x, memory, memory_key_padding_mask=torch.zeros(2, 4, dtype=torch.bool))
        with pytest.raises(ValueError, match=r"^x holds 3 sequences but memory 2"):
            model(torch.randn(3, 4, 8), memory)
    with pytest.raises(ValueError, match=r"^src_mask must be"):
        EncoderLayer(8, 2, 16)(x, src_mask=bad)
    with pytest.raises(ValueError, match=r"^mask must be"):
        TransformerEncoder(8, 2, 16, 2)(x, mask=bad)
    with pytest.raises(ValueError, match=r"src_key_padding_mask blocks every key.*Polarity"):
        TransformerEncoder(8, 2, 16, 2)(x, src_key_padding_mask=torch.ones(2, 4, dtype=torch.bool))
    with pytest.raises(TypeError, match=r"x is torch.int64.*embed token ids first"):
        EncoderLayer(8, 2, 16)(torch.ones(2, 4, 8, dtype=torch.long))


def test_a_feed_forward_layer_names_its_width_instead_of_mat1_and_mat2():
    with pytest.raises(
        ValueError, match=r"x must be \(\.\.\., length, d_model=8\), got \(2, 3, 6\)"
    ):
        FeedForward(8, 16)(torch.randn(2, 3, 6))


def test_a_decoding_step_names_a_batch_that_was_not_encoded():
    decoder = TransformerDecoder(8, 2, 16, 2)
    cache = decoder.init_cache(torch.randn(1, 5, 8))  # one sentence encoded
    with pytest.raises(ValueError, match=r"x holds 3 sequences but memory_kv 1: decode the batch"):
        decoder.step(torch.randn(3, 1, 8), cache)  # a whole batch decoded
    with pytest.raises(TypeError, match=r"cache must be the DecoderCache of init_cache"):
        decoder.step(torch.randn(1, 1, 8), torch.randn(1, 5, 8))


def _decoded_three_steps():
    """A decoder, a source padding mask (2, 3) and the cache after 3 steps (one query each)."""
    torch.manual_seed(0)
    decoder = TransformerDecoder(8, 2, 16, 2).eval()
    memory = torch.randn(2, 3, 8)
    kpm = torch.tensor([[False, False, False], [False, False, True]])
    cache = decoder.init_cache(memory)
    for _ in range(3):
        _, cache, _ = decoder.step(torch.randn(2, 1, 8), cache, memory_key_padding_mask=kpm)
    return decoder, kpm, cache


CACHED_CAUSE = (
    "the causal mask is for the whole sequence; with a cache the single new query may see "
    "every cached key: pass no mask"
)


def test_a_causal_mask_at_a_cached_step_is_named_as_such():
    """The whole sequence's causal mask (4, 4), given with the one new query of a step
    after 3 cached positions (the only mask a step takes is the source's padding)."""
    decoder, _, cache = _decoded_three_steps()
    x = torch.randn(2, 1, 8)
    float_causal = torch.zeros(4, 4).masked_fill(causal_mask(4), float("-inf"))
    for mask in (causal_mask(4), float_causal, ~causal_mask(4)):  # either polarity
        with pytest.raises(ValueError) as info:
            decoder.step(x, cache, memory_key_padding_mask=mask)
        text = str(info.value)
        assert text.startswith("memory_key_padding_mask is a causal mask (4, 4), given with one ")
        assert "a cache of 3 positions: " + CACHED_CAUSE in text
        assert "must be (B, S) = (2, 3), the source's padding (True = <pad>), or None" in text
    layer, memory_kv, kv = decoder.layers[0], cache.memory[0], cache.self_attn[0]
    with pytest.raises(ValueError, match=CACHED_CAUSE):
        layer.step(x, memory_kv, kv, memory_key_padding_mask=causal_mask(4))


def test_a_causal_mask_at_a_step_that_does_not_decide_the_cause_says_what_came():
    """Near misses: two new queries, a causal mask of another length, the first step (no
    cache), a square mask that is not causal -- none is named as the cached step's causal
    mask; the message says what was expected and what came."""
    decoder, kpm, cache = _decoded_three_steps()
    one, two = torch.randn(2, 1, 8), torch.randn(2, 2, 8)
    expected = r"^memory_key_padding_mask must be \(B, S\) = \(2, 3\), the source's padding"
    for x, mask, step in (
        (two, causal_mask(5), "2 new queries with 3 cached"),  # the whole sequence, 2 queries
        (one, causal_mask(3), "one new query with 3 cached"),  # the cached length, S = 3 too
        (one, causal_mask(5), "one new query with 3 cached"),
    ):
        with pytest.raises(ValueError, match=expected) as info:
            decoder.step(x, cache, memory_key_padding_mask=mask)
        text = str(info.value)
        assert f"got {tuple(mask.shape)}, at a step of {step} positions" in text
        assert "pass no mask" not in text and "one row per sequence" not in text
    empty = decoder.init_cache(torch.randn(2, 3, 8))
    with pytest.raises(ValueError, match=r"got \(1, 1\), at a step of one new query with 0 cached"):
        decoder.step(one, empty, memory_key_padding_mask=causal_mask(1))
    with pytest.raises(ValueError) as info:  # square, not causal: the shape check's message
        decoder.step(one, cache, memory_key_padding_mask=torch.zeros(4, 4, dtype=torch.bool))
    assert str(info.value) == "memory_key_padding_mask must be (B, S) = (2, 3), got (4, 4)"
    out, cache, _ = decoder.step(one, cache, memory_key_padding_mask=kpm)  # the right mask
    assert out.shape == (2, 1, 8) and cache.length == 4


def test_the_stack_and_layer_names_of_the_source_mask_are_told_apart():
    x = torch.randn(2, 5, 8)
    with pytest.raises(
        TypeError, match=r"EncoderLayer got an unexpected keyword argument 'mask'.*src_mask="
    ):
        EncoderLayer(8, 2, 16)(x, mask=causal_mask(5))
    with pytest.raises(
        TypeError, match=r"TransformerEncoder .* 'src_mask': this module calls it mask="
    ):
        TransformerEncoder(8, 2, 16, 1)(x, src_mask=causal_mask(5))


def test_pytorch_names_and_positional_masks_are_explained():
    with pytest.raises(TypeError, match=r"EncoderLayer\(\).*'norm_first'.*add_norm='pre'"):
        EncoderLayer(d_model=8, num_heads=2, d_ff=16, norm_first=True)
    with pytest.raises(TypeError, match=r"'nhead'.*num_heads"):
        EncoderLayer(d_model=6, nhead=3, dim_feedforward=10)
    layer = EncoderLayer(d_model=8, num_heads=2, d_ff=16)
    with pytest.raises(TypeError, match=r"keyword-only: layer\(x, src_mask=mask\)"):
        layer(torch.zeros(1, 5, 8), causal_mask(5))
    with pytest.raises(TypeError, match=r"d_model.*takes no EncoderLayer"):
        TransformerEncoder(layer, num_layers=2)
