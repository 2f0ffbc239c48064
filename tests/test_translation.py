"""The translation Transformer and its loss; decoding is tested in test_decoding.py."""

import pytest
import torch

from course_lib.schedules import warmup_inverse_sqrt
from course_lib.translation import TranslationConfig, TranslationTransformer, translation_loss
from course_lib.vocab import EOS, PAD, SOS

V = 12  # 4 specials + 8 words


def small(seed=0, **changes):
    torch.manual_seed(seed)
    sizes = {"d_model": 16, "num_heads": 2, "d_ff": 32, "dropout": 0.0, "max_len": 16}
    config = TranslationConfig(src_vocab=V, tgt_vocab=V, **{**sizes, **changes})
    return TranslationTransformer(config)


def batch(seed=0, b=6, s=5):
    g = torch.Generator().manual_seed(seed)
    src = torch.randint(4, V, (b, s), generator=g)
    src[1, 3:] = PAD  # a shorter sentence
    return src


def test_shapes_weights_and_tied_embeddings():
    model = small(tie_embeddings=True).eval()
    src, tgt = batch(), torch.full((6, 4), SOS)
    logits, weights = model(src, tgt, need_weights=True)
    assert logits.shape == (6, 4, V)
    assert weights["cross"][0].shape == (6, 2, 4, 5) and len(weights["self"]) == 2
    assert torch.all(weights["cross"][1][1, :, :, 3:] == 0)  # padding gets no attention
    assert model.output.weight is model.tgt_embed.weight


def test_the_loss_ignores_padding_and_smooths_labels():
    logits = torch.randn(2, 3, V)
    target = torch.tensor([[5, 6, EOS], [7, EOS, PAD]])
    full = translation_loss(logits, target)
    real = target != PAD
    expected = torch.nn.functional.cross_entropy(logits[real], target[real])
    torch.testing.assert_close(full, expected)
    assert translation_loss(logits, target, label_smoothing=0.1) != full
    with pytest.raises(ValueError, match=r"\(B, T, V\)"):
        translation_loss(logits[:, :2], target)


def test_model_errors():
    model = small()
    with pytest.raises(ValueError, match="outside the vocabulary"):
        model(torch.full((1, 3), V), torch.full((1, 1), SOS))
    with pytest.raises(ValueError, match=r"src has 17 tokens, more than max_len=16.*filter"):
        model(torch.full((1, 17), 5), torch.full((1, 1), SOS))


def test_a_small_model_learns_to_reverse_sentences(reversal_task):
    """Real training, about ten seconds: model, masks, loss, schedule and decoding fit together.
    Measured: 96 % of held-out sentences reversed exactly (the claim below leaves margin)."""
    model = small(4, d_model=32, d_ff=64)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3, betas=(0.9, 0.98))
    right = reversal_task(
        model, optimizer, clip_grad_norm=1.0, scheduler=warmup_inverse_sqrt(optimizer, 50)
    )
    assert right >= 80, f"only {right} of 100 held-out sentences reversed"


def test_the_summed_loss_adds_up_over_batches_to_the_mean_per_token():
    torch.manual_seed(0)
    logits, target = torch.randn(3, 4, V), torch.randint(4, V, (3, 4))
    target[0, 2:] = PAD
    tokens = int((target != PAD).sum())
    total = translation_loss(logits[:1], target[:1], 0.1, reduction="sum") + translation_loss(
        logits[1:], target[1:], 0.1, reduction="sum"
    )
    assert torch.allclose(total / tokens, translation_loss(logits, target, 0.1))
    with pytest.raises(ValueError, match="reduction must be 'mean' or 'sum'"):
        translation_loss(logits, target, reduction="none")


def test_the_cache_carries_the_source_padding_and_steps_match_teacher_forcing():
    from course_lib.translation import TranslationCache

    model = small().eval()
    src = batch()
    tgt = torch.cat([torch.full((6, 1), SOS), torch.randint(4, V, (6, 3))], dim=1)
    with torch.no_grad():
        full = model(src, tgt)
        cache = model.init_cache(src)
        assert isinstance(cache, TranslationCache) and cache.length == 0
        assert torch.equal(cache.src_key_padding_mask, src == PAD)
        first, cache, _ = model.step(tgt[:, :1], cache)
        rest, cache, _ = model.step(tgt[:, 1:], cache)
    assert cache.length == 4
    torch.testing.assert_close(torch.cat([first, rest], dim=1), full, rtol=0, atol=1e-5)
    picked = cache.select(torch.tensor([1, 1, 0]))
    assert torch.equal(picked.src_key_padding_mask[0], cache.src_key_padding_mask[1])
    assert picked.length == 4


def test_the_twins_validate_the_same_way():
    with pytest.raises(ValueError, match="d_model must be a positive integer"):
        TranslationConfig(V, V, d_model=0)
    with pytest.raises(ValueError, match="not divisible by num_heads"):
        TranslationConfig(V, V, d_model=10, num_heads=4)
    with pytest.raises(ValueError, match="add_norm must be 'post' or 'pre'"):
        TranslationConfig(V, V, add_norm="sandwich")
    with pytest.raises(ValueError, match="probability"):
        TranslationConfig(V, V, dropout=1.5)
    with pytest.raises(TypeError, match="config must be a TranslationConfig"):
        TranslationTransformer({"src_vocab": V})
    model = small()
    cache = model.init_cache(batch())
    with pytest.raises(TypeError, match="TranslationCache"):
        model.step(torch.full((6, 1), SOS), cache.decoder)
    with pytest.raises(ValueError, match="decode the batch that was encoded"):
        model.step(torch.full((2, 1), SOS), cache)
    with pytest.raises(TypeError, match="long tensor"):
        model.step(torch.full((6, 1), 1.0), cache)


def _three_translators():
    from course_lib.decoder_only import DecoderOnlyConfig, DecoderOnlyTranslator
    from course_lib.recurrent_translation import RecurrentConfig, RecurrentTranslator

    return {
        "TranslationTransformer": small(),
        "RecurrentTranslator": RecurrentTranslator(RecurrentConfig(V, V, 8, 8, max_len=16)),
        "DecoderOnlyTranslator": DecoderOnlyTranslator(
            DecoderOnlyConfig(V, V, 8, 2, None, 16, 1, 0.0, max_len=16, max_src_len=16)
        ),
    }


@pytest.mark.parametrize("name", list(_three_translators()))
def test_the_three_translators_refuse_the_same_sources_and_targets(name):
    """An all-<pad> source row was translated by the Transformers and refused by the GRU;
    a 2-sentence source with a 3-sentence target was reported as 'query, key, value'."""
    model = _three_translators()[name]
    src = torch.tensor([[5, 6, PAD], [PAD, PAD, PAD]])
    tgt = torch.full((2, 3), SOS)
    with pytest.raises(ValueError, match=r"^src row 1 is all <pad> \(id 0\): every sentence"):
        model(src, tgt)
    with pytest.raises(ValueError, match=r"^src row 1 is all <pad>"):
        model.init_cache(src)
    with pytest.raises(ValueError, match=r"^src has 2 sentences but tgt_in 3: give one target"):
        model(torch.tensor([[5, 6], [7, PAD]]), torch.full((3, 3), SOS))
    with pytest.raises(ValueError, match=r"^tgt_in has 17 tokens, more than max_len=16"):
        model(torch.tensor([[5, 6], [7, PAD]]), torch.full((2, 17), SOS))


@pytest.mark.parametrize("name", list(_three_translators()))
def test_teacher_forcing_inputs_in_the_wrong_place_warn(name):
    model = _three_translators()[name]
    src = torch.tensor([[5, 6, 7], [8, 9, PAD]])
    tgt_in = torch.tensor([[SOS, 5, 6], [SOS, 7, PAD]])
    tgt_out = torch.tensor([[5, 6, EOS], [7, EOS, PAD]])
    with pytest.warns(UserWarning, match=r"tgt_in does not start with <sos>.*batch.tgt_out"):
        model(src, tgt_out)
    with pytest.warns(UserWarning, match=r"src and tgt_in look swapped"):
        model(tgt_in, src)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model(src, tgt_in)  # the right order: no warning


def test_the_loss_warns_when_given_probabilities():
    logits = torch.randn(2, 3, V)
    target = torch.randint(4, V, (2, 3))
    with pytest.warns(UserWarning, match=r"look like probabilities.*without .softmax"):
        translation_loss(logits.softmax(-1), target)


def test_the_loss_names_a_pair_and_a_target_that_is_the_decoders_input():
    model = small()
    src = torch.tensor([[5, 6, 7]])
    tgt_in = torch.tensor([[SOS, 5, 6]])
    with pytest.raises(TypeError, match=r"logits is a tuple of 2.*unpack it"):
        translation_loss(model(src, tgt_in, need_weights=True), tgt_in)
    with pytest.warns(UserWarning, match=r"every target row starts with <sos>.*batch.tgt_out"):
        translation_loss(model(src, tgt_in), tgt_in)


def test_other_libraries_names_are_explained():
    with pytest.raises(
        TypeError, match=r"TranslationConfig\(\).*'num_layers'.*num_encoder_layers="
    ):
        TranslationConfig(10, 10, num_layers=1)
    with pytest.raises(TypeError, match=r"'src_vocab_size'.*src_vocab="):
        TranslationConfig(src_vocab_size=10, tgt_vocab_size=10)
    with pytest.raises(TypeError, match=r"'ignore_index'.*<pad>"):
        translation_loss(torch.zeros(1, 2, 5), torch.zeros(1, 2, dtype=torch.long), ignore_index=0)


def test_a_vocabulary_size_below_the_specials_and_a_wrong_weights_key_are_named():
    with pytest.raises(ValueError, match=r"src_vocab=2 is smaller than the 4 special tokens"):
        TranslationConfig(src_vocab=2, tgt_vocab=V)
    model = small().eval()
    src = batch()
    _, weights = model(src, torch.full((6, 3), SOS), need_weights=True)
    with pytest.raises(KeyError, match=r"no 'decoder'.*weights\['cross'\]"):
        weights["decoder"]
    assert set(weights) == {"encoder", "self", "cross"}


def test_time_major_inputs_are_named():
    model = small().eval()
    src, tgt = batch(b=3), torch.full((3, 4), SOS)  # (B, S) = (3, 5), (B, T) = (3, 4)
    tgt[:, 1:] = 5
    with pytest.raises(ValueError, match=r"time-major.*batch_first=False.*src.T and tgt_in.T"):
        model(src.T, tgt.T)
