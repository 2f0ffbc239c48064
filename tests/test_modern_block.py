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


def test_the_decoder_only_config_builds_todays_block_everywhere():
    """Every norm, the final one included, and every feed-forward; the cached pass is
    tested with the other kinds in test_decoder_only."""
    config = DecoderOnlyConfig(
        12, 12, d_model=16, num_heads=4, d_ff=20, num_layers=2, norm="rms", feed_forward="swiglu"
    )
    model = DecoderOnlyTranslator(config)
    norms = [m for m in model.modules() if isinstance(m, (RMSNorm, nn.LayerNorm))]
    assert len(norms) == 2 * 2 + 1 and all(isinstance(m, RMSNorm) for m in norms)
    assert all(isinstance(block.ffn, SwiGLU) for block in model.blocks)


@pytest.mark.parametrize(
    "changes, message",
    [({"norm": "batch"}, "norm must be one of"), ({"feed_forward": "gelu"}, "feed_forward must")],
)
def test_unknown_block_parts_are_refused(changes, message):
    with pytest.raises(ValueError, match=message):
        DecoderOnlyConfig(12, 12, **changes)


# -- the slips a notebook makes, each with an error that names it ------------------------


@pytest.mark.parametrize("layer", [RMSNorm(4), SwiGLU(4, 8)], ids=["RMSNorm", "SwiGLU"])
@pytest.mark.parametrize("width", [5, 1])  # width 1 would broadcast through RMSNorm silently
def test_another_width_is_named_not_a_torch_error(layer, width):
    name = type(layer).__name__
    with pytest.raises(
        ValueError, match=rf"x must be \(\.\.\., d_model=4\), the width this {name}"
    ):
        layer(torch.randn(2, 3, width))


@pytest.mark.parametrize("layer", [RMSNorm(4), SwiGLU(4, 8)], ids=["RMSNorm", "SwiGLU"])
def test_integer_and_numpy_inputs_are_named(layer):
    with pytest.raises(TypeError, match=r"x must be floating point, got torch\.int64"):
        layer(torch.ones(2, 4, dtype=torch.long))
    with pytest.raises(TypeError, match=r"x must be a tensor .*torch\.as_tensor"):
        layer(torch.ones(2, 4).numpy())


@pytest.mark.parametrize("eps", [-1e-6, float("nan"), "1e-6"])
def test_rmsnorm_eps_must_be_a_small_number(eps):
    with pytest.raises(ValueError, match="eps must be a small number >= 0"):
        RMSNorm(4, eps=eps)
