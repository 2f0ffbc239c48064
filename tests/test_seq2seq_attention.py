import pytest
import torch
from torch import nn

from course_lib.masking import padding_mask
from course_lib.seq2seq import Encoder, EncoderDecoder
from course_lib.seq2seq_attention import AttentionDecoder, BahdanauDecoder

DECODERS = [AttentionDecoder, BahdanauDecoder]


def setup(decoder_cls, b=3, s=4, f=2, h=5, seed=0):
    torch.manual_seed(seed)
    encoder, decoder = Encoder(f, h), decoder_cls(f, h)
    source = torch.randn(b, s, f)
    memory, hidden = encoder(source)
    return encoder, decoder, source, memory, hidden


@pytest.mark.parametrize("decoder_cls", DECODERS)
def test_step_shapes_and_weights(decoder_cls):
    _, decoder, source, memory, hidden = setup(decoder_cls)
    out, new_hidden, weights = decoder(source[:, -1:], hidden, memory)
    assert out.shape == (3, 1, 2) and new_hidden.shape == (1, 3, 5) and weights.shape == (3, 1, 4)
    torch.testing.assert_close(weights.sum(-1), torch.ones(3, 1))


@pytest.mark.parametrize("decoder_cls", DECODERS)
def test_multi_step_input_equals_step_by_step(decoder_cls):
    _, decoder, _, memory, hidden = setup(decoder_cls)
    x = torch.randn(3, 4, 2)
    out_all, h_all, w_all = decoder(x, hidden, memory)
    outs, ws, h = [], [], hidden
    for t in range(4):
        out, h, w = decoder(x[:, t : t + 1], h, memory)
        outs.append(out)
        ws.append(w)
    torch.testing.assert_close(torch.cat(outs, 1), out_all)
    torch.testing.assert_close(torch.cat(ws, 1), w_all)
    torch.testing.assert_close(h, h_all)


@pytest.mark.parametrize("decoder_cls", DECODERS)
def test_padded_source_steps_get_no_attention(decoder_cls):
    _, decoder, source, memory, hidden = setup(decoder_cls)
    mask = padding_mask(torch.tensor([4, 2, 1]), total_length=4)
    out, _, weights = decoder(source[:, -1:], hidden, memory, memory_key_padding_mask=mask)
    assert torch.all(weights[1, :, 2:] == 0) and torch.all(weights[2, :, 1:] == 0)
    # what sits in the padded states cannot change the output
    garbage = memory.clone()
    garbage[2, 1:] = 1e3
    out2, _, _ = decoder(source[:, -1:], hidden, garbage, memory_key_padding_mask=mask)
    torch.testing.assert_close(out[2], out2[2])


@pytest.mark.parametrize("decoder_cls", DECODERS)
def test_in_encoder_decoder_with_weights_and_gradients(decoder_cls):
    torch.manual_seed(3)
    model = EncoderDecoder(Encoder(2, 4), decoder_cls(2, 4), target_len=3, teacher_forcing_prob=0.5)
    source, target = torch.randn(5, 2, 2), torch.randn(5, 3, 2)
    predictions, weights = model.eval()(source, need_weights=True)
    assert predictions.shape == (5, 3, 2) and weights.shape == (5, 3, 2)
    model.train()
    nn.functional.mse_loss(model(source, target), target).backward()
    for name, p in model.named_parameters():
        assert p.grad is not None and p.grad.abs().sum() > 0, name


@pytest.mark.parametrize("decoder_cls", DECODERS)
def test_clear_errors(decoder_cls):
    _, decoder, source, memory, hidden = setup(decoder_cls)
    with pytest.raises(ValueError, match="needs the encoder states"):
        decoder(source[:, -1:], hidden)
    with pytest.raises(ValueError, match=r"memory holds 2 sequences but x 3: decode the batch"):
        decoder(source[:, -1:], hidden, memory[:2])
    with pytest.raises(ValueError, match=r"memory must be the encoder states \(B, S, H\)"):
        decoder(source[:, -1:], hidden, memory[..., :1])
    with pytest.raises(ValueError, match=r"^memory_key_padding_mask must be \(B, S\) = \(3, "):
        decoder(source[:, -1:], hidden, memory, memory_key_padding_mask=torch.zeros(3, 1) > 0)
    with pytest.raises(ValueError, match=r"^memory_key_padding_mask blocks every key.*Polarity"):
        full = torch.ones(3, memory.shape[1], dtype=torch.bool)  # True = real token
        decoder(source[:, -1:], hidden, memory, memory_key_padding_mask=full)
    with pytest.raises(ValueError, match=r"state of 1 sequence\(s\), and x holds 3: decode"):
        decoder(source[:, -1:], hidden[:, :1], memory)  # a one-sentence state, a batch


def test_attention_decoder_matches_its_definition():
    """Query = GRU output; keys = projected states; values = raw states; cat(context, query)."""
    _, decoder, source, memory, hidden = setup(AttentionDecoder, h=2)
    out, _, weights = decoder(source[:, -1:], hidden, memory)
    query, _ = decoder.gru(source[:, -1:], hidden)
    a = decoder.attention
    scores = a.q_proj(query) @ a.k_proj(memory).transpose(1, 2) / 2**0.5
    torch.testing.assert_close(weights, scores.softmax(-1))
    torch.testing.assert_close(out, decoder.output(torch.cat([weights @ memory, query], -1)))


def test_a_zero_attention_width_is_refused_not_replaced():
    with pytest.raises(ValueError, match=r"attn_dim must be a positive integer, got 0"):
        BahdanauDecoder(2, 4, attn_dim=0)
