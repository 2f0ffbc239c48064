"""The recurrent translation models (GRU, GRU + Bahdanau attention); decoding: test_decoding.py."""

import pytest
import torch

from course_lib.decoding import greedy_decode
from course_lib.recurrent_translation import RecurrentConfig, RecurrentState, RecurrentTranslator
from course_lib.seq2seq import Decoder
from course_lib.seq2seq_attention import BahdanauDecoder
from course_lib.vocab import PAD, SOS

V = 12  # 4 specials + 8 words
KINDS = ["none", "bahdanau"]


def small(attention, seed=0, dtype=torch.float64, **changes):
    torch.manual_seed(seed)
    sizes = {"embed_dim": 8, "hidden_dim": 12, "dropout": 0.0, "max_len": 16}
    config = RecurrentConfig(src_vocab=V, tgt_vocab=V, attention=attention, **{**sizes, **changes})
    return RecurrentTranslator(config).to(dtype)


def batch(seed=0, b=6, s=5):
    g = torch.Generator().manual_seed(seed)
    src = torch.randint(4, V, (b, s), generator=g)
    src[1, 3:] = PAD  # shorter sentences
    src[4, 1:] = PAD
    return src


def targets(seed=0, b=6, t=4):
    g = torch.Generator().manual_seed(seed + 100)
    tgt = torch.randint(4, V, (b, t), generator=g)
    tgt[:, 0] = SOS
    return tgt


@pytest.mark.parametrize("attention", KINDS)
def test_shapes_decoders_and_tied_embeddings(attention):
    model = small(attention, tie_embeddings=True).eval()
    logits, weights = model(batch(), targets(), need_weights=True)
    assert logits.shape == (6, 4, V)
    assert model.output.weight is model.tgt_embed.weight
    expected = {"none": Decoder, "bahdanau": BahdanauDecoder}[attention]
    assert type(model.decoder) is expected and model.decoder.n_features == 8
    if attention == "none":
        assert weights is None
    else:
        assert weights.shape == (6, 4, 5)
    memory, mask = model.encode(batch())
    assert memory.shape == (6, 5, 12)
    assert torch.equal(mask, batch() == PAD)
    assert torch.all(memory[mask] == 0)  # no state at padded positions


@pytest.mark.parametrize("attention", KINDS)
def test_step_by_step_equals_teacher_forcing(attention):
    model = small(attention).eval()
    src, tgt = batch(1), targets(1)
    with torch.no_grad():
        full, full_weights = model(src, tgt, need_weights=True)
        cache = model.init_cache(src)
        steps, step_weights = [], []
        for t in range(tgt.shape[1]):
            logits, cache, w = model.step(tgt[:, t : t + 1], cache, need_weights=True)
            steps.append(logits)
            step_weights.append(w)
        assert cache.length == tgt.shape[1]
        torch.testing.assert_close(torch.cat(steps, dim=1), full, rtol=0, atol=1e-6)
        if attention == "bahdanau":
            torch.testing.assert_close(
                torch.cat(step_weights, dim=1), full_weights, rtol=0, atol=1e-6
            )
        # two tokens at once, then the rest: the same numbers
        cache = model.init_cache(src)
        first, cache, _ = model.step(tgt[:, :2], cache)
        rest, cache, _ = model.step(tgt[:, 2:], cache)
        torch.testing.assert_close(torch.cat([first, rest], dim=1), full, rtol=0, atol=1e-6)


@pytest.mark.parametrize("attention", KINDS)
def test_the_start_state_is_the_final_state_of_each_sentence(attention):
    model = small(attention).eval()
    src = batch(2)
    cache = model.init_cache(src)
    assert torch.equal(cache.src_key_padding_mask, src == PAD)
    for i in range(len(src)):
        length = int((src[i] != PAD).sum())
        _, final = model.encoder(model.src_embed(src[i : i + 1, :length]))  # (1, 1, H)
        torch.testing.assert_close(cache.hidden[:, i], final[:, 0], rtol=0, atol=1e-12)
    assert cache.hidden.shape == (1, 6, 12) and cache.length == 0


@pytest.mark.parametrize("attention", KINDS)
def test_padding_changes_nothing(attention):
    model = small(attention).eval()
    src, tgt = batch(3), targets(3)
    with torch.no_grad():
        logits, weights = model(src, tgt, need_weights=True)
        # more padding on the right: same logits, and no weight on the new columns
        longer = torch.cat([src, torch.full((6, 3), PAD)], dim=1)  # (B, S + 3)
        logits_longer, weights_longer = model(longer, tgt, need_weights=True)
        torch.testing.assert_close(logits_longer, logits, rtol=0, atol=1e-12)
        # whatever the padding embedding holds, the encoder never reads it
        model.src_embed.weight[PAD] = torch.randn(8, dtype=torch.float64)
        torch.testing.assert_close(model(src, tgt), logits, rtol=0, atol=1e-12)
        # a sentence alone, without padding, gives what it gives inside the padded batch
        alone = model(src[4:5, :1], tgt[4:5])
        torch.testing.assert_close(alone, logits[4:5], rtol=0, atol=1e-12)
    if attention == "bahdanau":
        assert torch.all(weights_longer[..., 5:] == 0)
        torch.testing.assert_close(weights_longer[..., :5], weights, rtol=0, atol=1e-12)


def test_bahdanau_weights_are_distributions_over_the_real_source_tokens():
    model = small("bahdanau").eval()
    src = batch(4)
    _, weights = model(src, targets(4), need_weights=True)
    torch.testing.assert_close(weights.sum(-1), torch.ones(6, 4, dtype=torch.float64))
    assert torch.all(weights[1, :, 3:] == 0) and torch.all(weights[4, :, 1:] == 0)
    assert torch.all(weights[4, :, 0] == 1)  # a one-token sentence: all attention on it


@pytest.mark.parametrize("attention", KINDS)
def test_beams_reorder_the_state(attention):
    model = small(attention, seed=6).eval()
    src = batch(6)
    state = model.init_cache(src)
    picked = state.select(torch.tensor([2, 2, 0]))
    assert isinstance(picked, RecurrentState) and picked.hidden.shape == (1, 3, 12)
    assert torch.equal(picked.hidden[0, 1], state.hidden[0, 2])
    assert torch.equal(picked.memory[2], state.memory[0])
    assert torch.equal(picked.src_key_padding_mask[2], state.src_key_padding_mask[0])


def test_errors():
    with pytest.raises(ValueError, match="attention must be one of"):
        RecurrentConfig(src_vocab=V, tgt_vocab=V, attention="luong")
    with pytest.raises(ValueError, match="probability"):
        RecurrentConfig(src_vocab=V, tgt_vocab=V, dropout=1.0)
    with pytest.raises(ValueError, match="hidden_dim must be a positive integer"):
        RecurrentConfig(src_vocab=V, tgt_vocab=V, hidden_dim=0)
    model = small("bahdanau")
    src, tgt = batch(), targets()
    with pytest.raises(ValueError, match="outside the vocabulary"):
        model(torch.full((1, 3), V), torch.full((1, 1), SOS))
    with pytest.raises(ValueError, match="tgt_in holds ids outside"):
        model(src, torch.full((6, 2), V))
    with pytest.raises(TypeError, match="long tensor"):
        model(src.float(), tgt)
    with pytest.raises(ValueError, match="empty"):
        model(src, tgt[:, :0])
    with pytest.raises(ValueError, match="one target per source"):
        model(src, tgt[:3])
    with pytest.raises(ValueError, match="right-padded"):
        model(torch.tensor([[PAD, 5, 6]]), tgt[:1])
    with pytest.raises(ValueError, match="all <pad>"):
        model(torch.tensor([[5, 6], [PAD, PAD]]), tgt[:2])
    with pytest.raises(ValueError, match="right-padded"):
        model.init_cache(torch.tensor([[PAD, 5, 6]]))
    cache = model.init_cache(src)
    with pytest.raises(TypeError, match="RecurrentState"):
        model.step(tgt[:, :1], (cache.hidden, cache.memory))
    with pytest.raises(ValueError, match="decode the batch that was encoded"):
        model.step(tgt[:2, :1], cache)
    with pytest.raises(ValueError, match="lower max_new_tokens"):
        greedy_decode(model, src, max_new_tokens=16)


def test_a_bahdanau_model_learns_to_reverse_sentences(reversal_task):
    """Real training, about five seconds (640 Adam steps): embeddings, packed encoder, attention
    decoder, loss and the shared decoding fit together. Measured: 93 % of held-out sentences
    reversed exactly (90-97 % over model seeds 0, 1, 2, 4; the claim below leaves margin)."""
    model = small("bahdanau", seed=4, dtype=torch.float32, embed_dim=32, hidden_dim=64)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    right = reversal_task(model, optimizer, clip_grad_norm=1.0)
    assert right >= 80, f"only {right} of 100 held-out sentences reversed"


def test_d_model_names_the_gru_widths():
    with pytest.raises(TypeError, match=r"RecurrentConfig\(\).*'d_model'.*embed_dim=.*hidden_dim="):
        RecurrentConfig(10, 10, d_model=8)


def test_a_vocabulary_size_below_the_specials_is_named():
    with pytest.raises(ValueError, match=r"tgt_vocab=2 is smaller than the 4 special tokens"):
        RecurrentConfig(12, 2)
