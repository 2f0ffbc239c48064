"""RMSNorm and SwiGLU: the parts of today's decoder blocks."""

import pytest
import torch
from torch import nn

from course_lib.decoder_only import DecoderOnlyConfig, DecoderOnlyTranslator
from course_lib.modern_block import RMSNorm, SwiGLU


def test_rmsnorm_divides_by_the_root_mean_square_and_scales():
    x = torch.tensor([[3.0, 4.0], [1.0, -1.0]])
    norm = RMSNorm(2, eps=0.0)
    with torch.no_grad():
        norm.weight.copy_(torch.tensor([1.0, 2.0]))
    rms = torch.tensor([[12.5**0.5], [1.0]])  # sqrt((9 + 16) / 2), sqrt((1 + 1) / 2)
    torch.testing.assert_close(norm(x), x / rms * torch.tensor([1.0, 2.0]))
    assert not torch.allclose(norm(x + 1.0), norm(x) + 1.0)  # no mean subtracted


@pytest.mark.skipif(not hasattr(nn, "RMSNorm"), reason="nn.RMSNorm needs PyTorch 2.4")
def test_rmsnorm_matches_pytorchs():
    torch.manual_seed(0)
    x = torch.randn(2, 5, 16, dtype=torch.float64)
    ours, theirs = RMSNorm(16, eps=1e-6).double(), nn.RMSNorm(16, eps=1e-6).double()
    with torch.no_grad():
        w = torch.randn(16, dtype=torch.float64)
        ours.weight.copy_(w)
        theirs.weight.copy_(w)
    torch.testing.assert_close(ours(x), theirs(x))


def test_swiglu_is_a_gated_feed_forward_without_biases():
    torch.manual_seed(0)
    ffn = SwiGLU(8, 12)
    x = torch.randn(2, 3, 8)
    want = ffn.down(torch.nn.functional.silu(ffn.gate(x)) * ffn.up(x))
    torch.testing.assert_close(ffn(x), want)
    assert all(m.bias is None for m in (ffn.gate, ffn.up, ffn.down))
    assert sum(p.numel() for p in ffn.parameters()) == 3 * 8 * 12


def test_a_decoder_only_model_with_todays_block_keeps_the_protocol():
    """RMSNorm + SwiGLU: the cached, token-by-token pass still equals the one pass."""
    torch.manual_seed(0)
    config = DecoderOnlyConfig(
        12,
        12,
        d_model=16,
        num_heads=4,
        d_ff=20,
        num_layers=2,
        dropout=0.0,
        norm="rms",
        feed_forward="swiglu",
        max_len=16,
    )
    model = DecoderOnlyTranslator(config).double().eval()
    assert isinstance(model.blocks[0].norm1, RMSNorm) and isinstance(model.norm, RMSNorm)
    assert isinstance(model.blocks[0].ffn, SwiGLU)
    src = torch.tensor([[5, 6, 7, 2], [8, 9, 2, 0]])
    tgt = torch.tensor([[1, 4, 5, 6], [1, 7, 8, 0]])
    with torch.no_grad():
        full = model(src, tgt)
        cache, steps = model.init_cache(src), []
        for t in range(tgt.shape[1]):
            logits, cache, _ = model.step(tgt[:, t : t + 1], cache)
            steps.append(logits)
    torch.testing.assert_close(torch.cat(steps, 1)[0], full[0])


@pytest.mark.parametrize(
    "changes, message",
    [({"norm": "batch"}, "norm must be one of"), ({"feed_forward": "gelu"}, "feed_forward must")],
)
def test_unknown_block_parts_are_refused(changes, message):
    with pytest.raises(ValueError, match=message):
        DecoderOnlyConfig(12, 12, **changes)
