import dataclasses

import pytest
import torch
from torch import nn

from course_lib.seq2seq import Decoder, Encoder, EncoderDecoder, Seq2SeqConfig


def make_model(f=2, h=3, t=2, p=0.5, seed=0):
    torch.manual_seed(seed)
    return EncoderDecoder(Encoder(f, h), Decoder(f, h), target_len=t, teacher_forcing_prob=p)


def test_encoder_shapes_and_parity_with_nn_gru():
    torch.manual_seed(0)
    encoder = Encoder(3, 5)
    gru = nn.GRU(3, 5, batch_first=True)
    gru.load_state_dict(encoder.gru.state_dict())
    x = torch.randn(4, 6, 3)
    states, final = encoder(x)
    ref_states, ref_final = gru(x)
    assert states.shape == (4, 6, 5) and final.shape == (1, 4, 5)
    torch.testing.assert_close(states, ref_states, rtol=0, atol=0)
    torch.testing.assert_close(final, ref_final, rtol=0, atol=0)
    torch.testing.assert_close(final[0], states[:, -1])


def test_decoder_steps_equal_one_gru_pass():
    """Decoding step by step with explicit state equals nn.GRU over the whole sequence."""
    torch.manual_seed(1)
    decoder = Decoder(2, 4)
    x, h0 = torch.randn(3, 5, 2), torch.randn(1, 3, 4)
    all_at_once, h_all, weights = decoder(x, h0)
    assert weights is None
    hidden, steps = h0, []
    for t in range(5):
        out, hidden, _ = decoder(x[:, t : t + 1], hidden)
        steps.append(out)
    torch.testing.assert_close(torch.cat(steps, 1), all_at_once)
    torch.testing.assert_close(hidden, h_all)
    ref = nn.GRU(2, 4, batch_first=True)
    ref.load_state_dict(decoder.gru.state_dict())
    torch.testing.assert_close(decoder.output(ref(x, h0)[0]), all_at_once)


def test_decoder_keeps_no_state_between_calls():
    torch.manual_seed(2)
    decoder = Decoder(2, 2)
    x, h = torch.randn(1, 1, 2), torch.randn(1, 1, 2)
    first = decoder(x, h)[0]
    second = decoder(x, h)[0]
    torch.testing.assert_close(first, second)
    assert not hasattr(decoder, "hidden")


def test_eval_mode_never_reads_the_target_nor_the_rng():
    model = make_model().eval()
    source = torch.randn(4, 2, 2)
    state = torch.get_rng_state()
    without = model(source)
    with_garbage = model(source, torch.full((4, 2, 2), 1e6))
    assert torch.equal(torch.get_rng_state(), state)
    torch.testing.assert_close(without, with_garbage, rtol=0, atol=0)


def test_full_teacher_forcing_equals_parallel_decoding():
    model = make_model(p=1.0).train()
    source, target = torch.randn(3, 2, 2), torch.randn(3, 2, 2)
    _, hidden = model.encoder(source)
    shifted = torch.cat([source[:, -1:], target[:, :-1]], dim=1)  # (B, T, F)
    expected, _, _ = model.decoder(shifted, hidden)
    torch.testing.assert_close(model(source, target), expected)


def test_no_teacher_forcing_in_training_equals_eval():
    model = make_model(p=0.0)
    source, target = torch.randn(3, 2, 2), torch.randn(3, 2, 2)
    trained = model.train()(source, target)
    evaluated = model.eval()(source, target)
    torch.testing.assert_close(trained, evaluated)


def test_teacher_forcing_probability_is_respected():
    model = make_model(t=2, p=0.3)
    source, target = torch.randn(1, 2, 2), torch.randn(1, 2, 2)
    with torch.no_grad():
        free = model.eval()(source)[:, 1]
        _, hidden = model.encoder(source)
        shifted = torch.cat([source[:, -1:], target[:, :1]], dim=1)
        forced = model.decoder(shifted, hidden)[0][:, 1]
        model.train()
        torch.manual_seed(0)
        second_steps = [model(source, target)[:, 1] for _ in range(1000)]
    n_forced = sum(torch.allclose(s, forced) for s in second_steps)
    n_free = sum(torch.allclose(s, free) for s in second_steps)
    assert n_forced + n_free == 1000
    assert 250 < n_forced < 350  # p = 0.3


def test_gradients_reach_every_parameter():
    model = make_model().train()
    source, target = torch.randn(5, 2, 2), torch.randn(5, 2, 2)
    loss = nn.functional.mse_loss(model(source, target), target)
    loss.backward()
    for name, p in model.named_parameters():
        assert p.grad is not None and p.grad.abs().sum() > 0, name


def test_need_weights_without_attention():
    predictions, weights = make_model().eval()(torch.randn(2, 2, 2), need_weights=True)
    assert predictions.shape == (2, 2, 2) and weights is None


def test_from_config():
    cfg = Seq2SeqConfig(n_features=3, hidden_dim=7, target_len=4, teacher_forcing_prob=0.25)
    model = EncoderDecoder.from_config(cfg)
    assert model.encoder.gru.hidden_size == 7 and model.target_len == 4
    assert model(torch.randn(2, 5, 3)).shape == (2, 4, 3)
    with pytest.raises(dataclasses.FrozenInstanceError):
        cfg.hidden_dim = 3


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda m: m(torch.randn(2, 2)), r"batch-first.*unsqueeze\(0\)"),
        (
            lambda m: m(torch.randn(2, 2, 3)),
            "3 features per step but the model was built for n_features=2",
        ),
        (lambda m: m(torch.randn(2, 0, 2)), "empty sequence"),
        (lambda m: m(torch.ones(2, 2, 2, dtype=torch.long)), "floating-point"),
        (lambda m: m.train()(torch.randn(2, 2, 2), torch.randn(2, 3, 2)), "target must have shape"),
    ],
)
def test_clear_errors(call, message):
    with pytest.raises((ValueError, TypeError), match=message):
        call(make_model(h=2))


def test_hidden_shape_error_explains_batch_first_mistake():
    decoder = Decoder(2, 4)
    with pytest.raises(ValueError, match=r"transpose\(0, 1\)"):
        decoder(torch.randn(3, 1, 2), torch.randn(3, 1, 4))


@pytest.mark.parametrize(
    "kwargs", [{"target_len": 0}, {"target_len": 2, "teacher_forcing_prob": 1.5}]
)
def test_bad_constructor_arguments(kwargs):
    with pytest.raises(ValueError):
        EncoderDecoder(Encoder(2, 2), Decoder(2, 2), **kwargs)


def test_encoder_decoder_mistakes_are_named():
    encoder, decoder = Encoder(2, 4), Decoder(2, 4)
    with pytest.raises(TypeError, match=r"got a Decoder as its encoder and a Encoder.*swapped"):
        EncoderDecoder(decoder, encoder, 3)
    with pytest.raises(
        TypeError,
        match=r"encoder must be a module \(an instance\), got the class Encoder.*Encoder\(\.\.\.\)",
    ):
        EncoderDecoder(Encoder, decoder, 3)
    with pytest.raises(
        ValueError, match=r"encoder's hidden_dim=4 differs from the decoder's hidden_dim=5"
    ):
        EncoderDecoder(encoder, Decoder(2, 5), 3)
    with pytest.raises(ValueError, match=r"target_len must be a positive integer, got 2.5"):
        EncoderDecoder(encoder, decoder, 2.5)
    model = EncoderDecoder(encoder, decoder, 3)
    with pytest.raises(ValueError, match=r"^src_key_padding_mask must be \(B, S\) = \(2, 5\)"):
        model(torch.randn(2, 5, 2), src_key_padding_mask=torch.zeros(2, 4, dtype=torch.bool))
    with pytest.raises(
        TypeError, match=r"source is torch.float64 but the encoder's weights are torch.float32"
    ):
        encoder(torch.randn(2, 5, 2, dtype=torch.float64))


def test_config_and_memory_mistakes_are_named():
    with pytest.raises(ValueError, match=r"hidden_dim must be a positive integer, got 0"):
        Seq2SeqConfig(hidden_dim=0)
    with pytest.raises(
        ValueError, match=r"teacher_forcing_prob is a probability in \[0, 1\], got 5"
    ):
        Seq2SeqConfig(teacher_forcing_prob=5)
    with pytest.raises(TypeError, match=r"config must be a Seq2SeqConfig, got dict"):
        EncoderDecoder.from_config({"hidden_dim": 4})
    from course_lib.seq2seq_attention import AttentionDecoder

    source = torch.randn(3, 5, 2)
    _, final = Encoder(2, 4)(source)
    with pytest.raises(
        ValueError, match=r"looks like the encoder's final state.*memory, hidden = encoder"
    ):
        AttentionDecoder(2, 4)(source[:, -1:], final, final)


def test_float_sizes_and_a_decoder_that_breaks_the_protocol_are_named():
    with pytest.raises(ValueError, match=r"hidden_dim must be a positive integer, got 6.0"):
        Encoder(2, 4 * 1.5)

    class MyDecoder(Decoder):
        def forward(self, x, hidden, memory=None, *, memory_key_padding_mask=None):
            out, hidden = self.gru(x, hidden)
            return self.output(out), hidden

    with pytest.raises(
        TypeError, match=r"must return \(out, hidden, weights\).*MyDecoder returned a tuple of 2"
    ):
        EncoderDecoder(Encoder(2, 4), MyDecoder(2, 4), target_len=2)(torch.randn(3, 4, 2))


def test_the_lecture_model_s_arguments_are_explained():
    with pytest.raises(TypeError, match=r"'input_len'.*source"):
        EncoderDecoder(Encoder(2, 2), Decoder(2, 2), input_len=2, target_len=2)
    with pytest.raises(TypeError, match=r"EncoderDecoder.from_config\(config\)"):
        EncoderDecoder(Seq2SeqConfig(n_features=2, hidden_dim=2, target_len=2))


def test_lecture_attribute_names_say_how_course_lib_passes_state():
    from course_lib.seq2seq_attention import AttentionDecoder

    with pytest.raises(AttributeError, match=r"no init_hidden: .*decoder\(x, hidden\)"):
        _ = Decoder(2, 4).init_hidden
    model = EncoderDecoder(Encoder(2, 2), AttentionDecoder(2, 2), target_len=2)
    with pytest.raises(AttributeError, match=r"no alphas: .*need_weights=True"):
        _ = model.alphas


def test_a_config_given_one_number_names_n_features():
    model = EncoderDecoder.from_config(Seq2SeqConfig(4))
    with pytest.raises(ValueError, match=r"built for n_features=4.*Seq2SeqConfig\(hidden_dim=4\)"):
        model(torch.randn(3, 2, 2))
    model.train()
    with pytest.raises(ValueError, match=r"target has 3 features per step but the source has 4"):
        model(torch.randn(3, 2, 4), torch.randn(3, 2, 3))


def test_training_mode_without_a_target_warns_once_per_model_that_it_ran_free():
    """Issue "The code a student reads": in training mode with teacher_forcing_prob > 0 and
    no target, the model silently fed back its own predictions. Now a UserWarning says so,
    once per model, and how to silence it."""
    import warnings

    source, target = torch.randn(3, 4, 2), torch.randn(3, 2, 2)
    model = EncoderDecoder.from_config(Seq2SeqConfig(teacher_forcing_prob=0.5))
    with pytest.warns(UserWarning, match=r"teacher forcing needs the target.*ran free") as seen:
        free = model(source)
    message = str(seen[0].message)
    assert "teacher_forcing_prob=0" in message and "model.eval()" in message
    assert seen[0].filename == __file__  # shown at the user's line
    model.eval()
    torch.testing.assert_close(free, model(source))  # it did run free: eval's predictions
    model.train()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model(source)  # once per model
        model(source, target)  # near misses: the target given,
        model.eval()(source)  # eval mode,
        unforced = EncoderDecoder.from_config(Seq2SeqConfig(teacher_forcing_prob=0.0))
        unforced(source)  # no teacher forcing asked for
    with pytest.warns(UserWarning, match=r"ran free"):  # another model is told again
        EncoderDecoder.from_config(Seq2SeqConfig())(source)
