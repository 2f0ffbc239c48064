"""The self-attention encoder-decoder for sequences of points (squares, GPS)."""

import dataclasses

import pytest
import torch
from torch import nn

from course_lib.points_transformer import SelfAttentionConfig, SelfAttentionEncoderDecoder


def model(seed=0, **changes):
    torch.manual_seed(seed)
    return SelfAttentionEncoderDecoder(dataclasses.replace(SelfAttentionConfig(), **changes)).eval()


def test_positional_encoding_breaks_the_equivariance():
    no_pe, with_pe = model(positional=False), model(positional=True)
    source = torch.randn(4, 3, 2)
    swapped = source[:, [2, 0, 1]]
    memory, _ = no_pe.encode(source)
    torch.testing.assert_close(no_pe.encode(swapped)[0], memory[:, [2, 0, 1]])
    memory, _ = with_pe.encode(source)
    assert not torch.allclose(with_pe.encode(swapped)[0], memory[:, [2, 0, 1]])


def test_without_positions_and_a_fixed_start_the_order_is_invisible():
    m = model(positional=False, start="origin")
    source = torch.randn(5, 2, 2)
    torch.testing.assert_close(m(source), m(source.flip(1)))  # swapping the source changes nothing


def test_causal_outputs_ignore_the_future():
    m = model()
    memory, _ = m.encode(torch.randn(2, 2, 2))
    inputs = torch.randn(2, 4, 2)
    changed = inputs.clone()
    changed[:, 2:] = torch.randn(2, 2, 2) * 10  # change steps 2 and 3 only
    out, _ = m.decode(inputs, memory)
    out_changed, _ = m.decode(changed, memory)
    torch.testing.assert_close(out[:, :2], out_changed[:, :2])
    assert not torch.allclose(out[:, 2:], out_changed[:, 2:])


def test_training_pass_equals_step_by_step_generation_with_true_inputs():
    """Teacher forcing in one parallel pass = feeding the true points one step at a time."""
    m = model(add_norm="post")
    source, target = torch.randn(3, 2, 2), torch.randn(3, 2, 2)
    m.train()
    parallel = m(source, target)
    m.eval()
    memory, _ = m.encode(source)
    step1, _ = m.decode(source[:, -1:], memory)
    both, _ = m.decode(torch.cat([source[:, -1:], target[:, :1]], 1), memory)
    torch.testing.assert_close(parallel, torch.cat([step1, both[:, 1:]], 1))


def test_eval_mode_ignores_the_target_and_returns_weights():
    m = model(num_layers=2)
    source = torch.randn(3, 2, 2)
    predictions, weights = m(source, torch.randn(3, 2, 2), need_weights=True)
    torch.testing.assert_close(predictions, m(source))
    assert list(weights) == ["encoder", "self", "cross"]  # the translation model's keys
    assert [w.shape for w in weights["encoder"]] == [(3, 3, 2, 2)] * 2
    assert [w.shape for w in weights["self"]] == [(3, 3, 2, 2)] * 2
    assert [w.shape for w in weights["cross"]] == [(3, 3, 2, 2)] * 2


@pytest.mark.parametrize("add_norm", ["post", "pre", None])
def test_gradients_reach_every_parameter(add_norm):
    m = model(add_norm=add_norm).train()
    source, target = torch.randn(4, 2, 2), torch.randn(4, 2, 2)
    nn.functional.mse_loss(m(source, target), target).backward()
    for name, p in m.named_parameters():
        assert p.grad is not None and p.grad.abs().sum() > 0, name


def test_clear_errors():
    with pytest.raises(ValueError, match="add_norm"):
        model(add_norm="middle")
    with pytest.raises(ValueError, match="start"):
        model(start="first")
    with pytest.raises(ValueError, match="divisible"):
        model(d_model=5)
    with pytest.raises(ValueError, match="target must be"):
        model().train()(torch.randn(2, 2, 2), torch.randn(2, 3, 2))
    with pytest.raises(ValueError, match="max_len=3"):
        model(max_len=3)(torch.randn(1, 4, 2))


def test_the_default_model_has_add_norm_and_learns_distinct_future_steps():
    """The default is a working Transformer: on points moving at constant velocity it
    predicts three different future points (the lecture's model without Add & Norm is
    asked for by name, and on Chapter 6's data it collapsed to one point)."""
    assert SelfAttentionConfig().add_norm == "post"
    gen = torch.Generator().manual_seed(0)
    velocity = torch.randn(512, 1, 2, generator=gen)
    steps = torch.arange(-4.0, 4.0)[None, :, None]  # 5 observed, 3 future
    track = velocity * steps  # (512, 8, 2), last observed point at the origin
    source, target = track[:, :5], track[:, 5:]
    torch.manual_seed(0)
    m = SelfAttentionEncoderDecoder(
        SelfAttentionConfig(
            n_features=2, d_model=32, num_heads=4, d_ff=64, target_len=3, num_layers=2
        )
    )
    optimizer = torch.optim.Adam(m.parameters(), lr=3e-3)
    for _ in range(150):
        batch = torch.randint(0, 512, (64,), generator=gen)
        loss = nn.functional.mse_loss(m(source[batch]), target[batch])  # free-running
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    m.eval()
    with torch.no_grad():
        predicted = m(source[:64])
    gaps = (predicted[:, 1:] - predicted[:, :-1]).norm(dim=-1)  # (64, 2)
    true_gaps = (target[:64, 1:] - target[:64, :-1]).norm(dim=-1)
    assert gaps.mean() > 0.5 * true_gaps.mean(), (gaps.mean(), true_gaps.mean())
    assert nn.functional.mse_loss(predicted, target[:64]) < 0.1 * target.pow(2).mean()


# -- the slips a notebook makes, each with an error that names it ------------------------


@pytest.mark.parametrize("config", [{"d_model": 6}, SelfAttentionConfig])
def test_the_config_must_be_an_instance(config):
    with pytest.raises(TypeError, match="config must be a SelfAttentionConfig instance"):
        SelfAttentionEncoderDecoder(config)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"target_len": 0}, "target_len must be a positive integer"),
        ({"n_features": 2.0}, "n_features must be a positive integer"),
        ({"target_len": 4, "max_len": 3}, "target_len=4 positions do not fit max_len=3"),
    ],
)
def test_sizes_that_cannot_work_are_refused(changes, message):
    with pytest.raises(ValueError, match=message):
        model(**changes)


def test_numpy_sources_and_targets_are_named():
    m = model().train()
    with pytest.raises(TypeError, match=r"source must be a torch\.Tensor.*torch\.as_tensor"):
        m(torch.zeros(2, 2, 2).numpy())
    with pytest.raises(TypeError, match=r"target must be a torch\.Tensor"):
        m(torch.zeros(2, 2, 2), torch.zeros(2, 2, 2).numpy())


def test_a_source_longer_than_max_len_names_the_config():
    with pytest.raises(ValueError, match=r"source has 5 points.*SelfAttentionConfig\(max_len=5\)"):
        model(max_len=3).eval()(torch.zeros(1, 5, 2))


def test_encode_and_decode_check_their_inputs():
    m = model()
    with pytest.raises(ValueError, match="inputs has 3 features per step"):
        m.decode(torch.zeros(2, 1, 3), torch.zeros(2, 2, 6))
    with pytest.raises(ValueError, match=r"memory must be .*d_model=6.*encode\(source\)"):
        m.decode(torch.zeros(2, 1, 2), torch.zeros(2, 2, 2))
    with pytest.raises(ValueError, match="source has 3 features per step"):
        m.encode(torch.zeros(2, 2, 3))


@pytest.mark.parametrize("need_weights", [False, True])
def test_encode_s_pair_given_as_memory_says_unpack_it(need_weights):
    m = model()
    source = torch.zeros(2, 2, 2)
    pair = m.encode(source, need_weights=need_weights)
    with pytest.raises(TypeError) as info:
        m.decode(source[:, -1:], pair)
    message = str(info.value)
    assert "memory must be the encoder's output" in message
    assert "got a tuple of 2 (a tensor (2, 2, 6)" in message
    assert "memory, _ = model.encode(source)" in message
    with pytest.raises(TypeError, match="memory must be .* got ndarray"):
        m.decode(source[:, -1:], pair[0].detach().numpy())


def test_positional_must_be_a_bool_not_chapter_7s_word():
    with pytest.raises(TypeError, match=r"positional must be True or False.*got 'none'"):
        SelfAttentionEncoderDecoder(SelfAttentionConfig(positional="none"))


def test_the_lecture_signature_names_the_config():
    with pytest.raises(TypeError, match=r"'input_len'.*SelfAttentionConfig"):
        SelfAttentionEncoderDecoder(None, None, input_len=2, target_len=2)


@pytest.mark.parametrize("given", ["learned", "sinusoidal", 1, None])
def test_positional_takes_a_bool_not_a_name_that_would_read_as_true(given):
    """Issue 47: SelfAttentionConfig(positional="learned") was accepted and silently gave
    the sinusoidal table."""
    from course_lib.points_transformer import SelfAttentionConfig

    with pytest.raises(TypeError, match=r"positional must be True or False.*got "):
        SelfAttentionConfig(positional=given)
    assert SelfAttentionConfig(positional=False).positional is False
