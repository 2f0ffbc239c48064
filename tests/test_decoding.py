"""Greedy decoding, beam search and translate, over both kinds of translator.

The decoding functions see a model only through the ``Translator`` protocol, so every test
here runs on the Transformer (post- and pre-LN), the GRU (plain and with attention) and the
decoder-only Transformer (rotary; sinusoidal with grouped-query attention and a prefix mask).
"""

import warnings

import pytest
import torch

from course_lib.decoder_only import DecoderOnlyConfig, DecoderOnlyTranslator
from course_lib.decoding import beam_search, greedy_decode, translate
from course_lib.recurrent_translation import RecurrentConfig, RecurrentTranslator
from course_lib.translation import TranslationConfig, TranslationTransformer
from course_lib.vocab import EOS, PAD, SOS, Vocab, pad

V = 12  # 4 specials + 8 words
KINDS = ["post", "pre", "gru", "bahdanau", "decoder-only", "decoder-only gqa prefix"]


def small(kind, seed=0, dropout=0.0):
    torch.manual_seed(seed)
    if kind in ("post", "pre"):
        sizes = {"d_model": 16, "num_heads": 2, "d_ff": 32, "add_norm": kind}
        return TranslationTransformer(TranslationConfig(V, V, dropout=dropout, max_len=16, **sizes))
    if kind.startswith("decoder-only"):
        variant = {"positions": "sinusoidal", "num_kv_heads": 1, "prefix_mask": True}
        config = DecoderOnlyConfig(
            V,
            V,
            d_model=16,
            num_heads=2,
            d_ff=32,
            num_layers=2,
            dropout=dropout,
            max_len=16,
            **(variant if "gqa" in kind else {}),
        )
        return DecoderOnlyTranslator(config)
    attention = "none" if kind == "gru" else "bahdanau"
    config = RecurrentConfig(
        V, V, embed_dim=8, hidden_dim=12, attention=attention, dropout=dropout, max_len=16
    )
    return RecurrentTranslator(config)


def batch(seed=0, b=6, s=5):
    g = torch.Generator().manual_seed(seed)
    src = torch.randint(4, V, (b, s), generator=g)
    src[1, 3:] = PAD  # shorter sentences
    src[4, 1:] = PAD
    return src


@pytest.mark.parametrize("kind", KINDS)
def test_cached_greedy_equals_recomputing_greedy(kind):
    model = small(kind, dropout=0.3)
    model.train()
    src = batch(1, b=8)
    cached = greedy_decode(model, src, max_new_tokens=10)
    for recompute in ("decoder", "everything"):
        recomputed = greedy_decode(model, src, max_new_tokens=10, recompute=recompute)
        assert torch.equal(cached, recomputed), recompute
    with pytest.raises(ValueError, match="recompute must be one of"):
        greedy_decode(model, src, max_new_tokens=10, recompute="encoder")
    assert model.training  # the mode it found


@pytest.mark.parametrize("kind", KINDS)
def test_greedy_stops_each_sentence_at_eos(kind):
    model = small(kind, seed=2)
    with torch.no_grad():
        model.output.bias.zero_()
        model.output.bias[EOS] = 100.0  # every sentence ends at once
    out = greedy_decode(model, batch(), max_new_tokens=10)
    assert out.shape == (6, 1) and torch.all(out == EOS)


@pytest.mark.parametrize("kind", KINDS)
def test_beam_of_one_is_greedy(kind):
    model = small(kind, seed=3).eval()
    src = batch(3)
    assert torch.equal(
        beam_search(model, src, beam_size=1, max_new_tokens=8, length_penalty=0.0),
        greedy_decode(model, src, max_new_tokens=8),
    )
    assert beam_search(model, src, beam_size=3, max_new_tokens=8).shape[0] == 6


@pytest.mark.parametrize("kind", ["post", "bahdanau"])
def test_a_beam_as_wide_as_the_vocabulary_finds_the_best_two_token_output(kind):
    """With K = V every one-token prefix survives, so after two steps the beam has seen all
    V x V outputs: it must return the most probable one (raw log-probability, alpha = 0)."""
    model = small(kind, seed=5).eval()
    src = batch(5)
    with torch.no_grad():
        first = model(src, torch.full((len(src), 1), SOS)).log_softmax(-1)[:, 0]  # (B, V)
        best = []
        for i in range(len(src)):
            prefixes = torch.stack([torch.full((V,), SOS), torch.arange(V)], dim=1)  # (V, 2)
            second = model(src[i : i + 1].expand(V, -1), prefixes).log_softmax(-1)[:, 1]
            total = first[i][:, None] + second  # (V, V): log p(t1) + log p(t2 | t1)
            total[EOS] = first[i][EOS]  # after <eos> nothing more is scored
            flat = total.flatten().argmax()
            best.append([int(flat // V), int(flat % V)])
    out = beam_search(model, src, beam_size=V, max_new_tokens=2, length_penalty=0.0)
    for i, (t1, t2) in enumerate(best):
        expected = [t1, PAD] if t1 == EOS else [t1, t2]
        assert out[i].tolist() == expected


@pytest.mark.parametrize("kind", ["post", "gru"])
def test_translate_turns_sentences_into_sentences_batch_by_batch(kind):
    src_vocab = tgt_vocab = Vocab(["a b c d e f g h"])  # 12 tokens, as the model's V
    model = small(kind)

    def greedy(m, src):
        return greedy_decode(m, src, max_new_tokens=10)

    sentences = ["a b c", "h g", "d e f g h", "b"]
    one_batch = translate(model, sentences, src_vocab, tgt_vocab, decode=greedy, batch_size=4)
    singly = translate(model, sentences, src_vocab, tgt_vocab, decode=greedy, batch_size=1)
    assert singly == one_batch
    expected = [
        tgt_vocab.decode(row.tolist())
        for row in greedy(model, pad([src_vocab.encode(s) for s in sentences]))
    ]
    assert one_batch == expected and all(isinstance(s, str) for s in one_batch)

    def beam2(m, src):
        return beam_search(m, src, beam_size=2, max_new_tokens=5)

    assert len(translate(model, sentences, src_vocab, tgt_vocab, decode=beam2)) == 4
    with pytest.raises(ValueError, match="batch_size"):
        translate(model, sentences, src_vocab, tgt_vocab, batch_size=0)


@pytest.mark.parametrize("kind", ["pre", "bahdanau"])
def test_decoding_errors(kind):
    model = small(kind)
    with pytest.raises(ValueError, match="lower max_new_tokens"):
        greedy_decode(model, batch(), max_new_tokens=16)
    with pytest.raises(ValueError, match="max_new_tokens must be a positive integer"):
        greedy_decode(model, batch(), max_new_tokens=0)
    with pytest.raises(TypeError, match="long tensor"):
        greedy_decode(model, batch().float(), max_new_tokens=8)
    with pytest.raises(ValueError, match="beam_size"):
        beam_search(model, batch(), beam_size=0, max_new_tokens=8)


@pytest.mark.parametrize(
    ("args", "error", "match"),
    [
        (
            ("je suis",),
            TypeError,
            r"sentences must be a list of sentences, got str 'je suis'.*\[sentence\]",
        ),
        ([[("a b", "c")]], TypeError, r"sentences\[0\] is a pair.*\[src for src, _ in pairs\]"),
        ([["a b", 3]], TypeError, r"sentences\[1\] must be a string, got int"),
        ([["A b."]], ValueError, r"sentences\[0\] = 'A b\.' is not normalised.*normalize\(s\)"),
    ],
)
def test_translate_names_the_wrong_kind_of_sentences(args, error, match):
    vocab = Vocab(["a b c d e f g h"])
    with pytest.raises(error, match=match):
        translate(small("pre"), *args, vocab, vocab)


def test_translate_and_decoding_name_the_wrong_model_vocabulary_or_source():
    model, vocab = small("pre"), Vocab(["a b c d e f g h"])
    other = Vocab(["a b c"])
    with pytest.raises(
        ValueError, match=r"tgt_vocab has 7 words but the model was built for tgt_vocab=12"
    ):
        translate(model, ["a b"], vocab, other)

    class Trainer:  # what a notebook's trainer looks like to decoding
        def __init__(self):
            self.model, self.optimizer = model, None

    with pytest.raises(
        TypeError, match=r"model must be a translator.*got Trainer: pass trainer.model"
    ):
        translate(Trainer(), ["a b"], vocab, vocab)
    with pytest.raises(TypeError, match=r"got the class TranslationTransformer.*build one first"):
        greedy_decode(TranslationTransformer, batch())
    with pytest.raises(
        TypeError, match=r"got \(5\) torch.int64: one sentence needs a batch dimension: src\[None\]"
    ):
        greedy_decode(model, batch()[0], max_new_tokens=4)
    with pytest.raises(
        TypeError, match=r"got list of 2 str: to translate sentences, call translate"
    ):
        greedy_decode(model, ["a b", "c"], max_new_tokens=4)


def test_a_decoder_called_instead_of_passed_is_named_with_the_fix():
    vocab = Vocab(["a b c d e f g h"])
    with pytest.raises(TypeError, match=r"beam_search needs a model and src.*functools.partial"):
        translate(small("pre"), ["a b"], vocab, vocab, decode=beam_search(beam_size=4))


def test_a_partial_with_a_misspelt_keyword_is_named():
    from functools import partial

    vocab = Vocab(["a b c d e f g h"])
    with pytest.raises(TypeError, match=r"beam_search has no argument 'beam'; it takes beam_size"):
        translate(small("pre"), ["a b"], vocab, vocab, decode=partial(beam_search, beam=4))


def test_decoders_that_cannot_be_called_as_decode_model_src_are_named():
    from functools import partial

    model, vocab = small("pre"), Vocab(["a b c d e f g h"])
    with pytest.raises(
        TypeError, match=r"decode is called as decode\(model, src\).*lambda model, src"
    ):
        translate(model, ["a b"], vocab, vocab, decode=lambda src: greedy_decode(model, src))
    with pytest.raises(TypeError, match=r"without the model: functools.partial\(beam_search"):
        translate(model, ["a b"], vocab, vocab, decode=partial(beam_search, model, beam_size=2))
    src = torch.tensor([[SOS, 5, 6]])
    with pytest.warns(UserWarning, match=r"src holds <sos>"):
        greedy_decode(model, src, max_new_tokens=3)
    with pytest.raises(TypeError, match=r"one sentence needs a batch axis, src\[None\]"):
        model.init_cache(src[0])


def test_max_len_and_a_positional_beam_size_are_named():
    with pytest.raises(TypeError, match=r"'max_len'.*max_new_tokens="):
        greedy_decode(None, torch.zeros(1, 3, dtype=torch.long), max_len=10)
    with pytest.raises(TypeError, match=r"keyword-only.*beam_size=4"):
        beam_search(None, torch.zeros(1, 3, dtype=torch.long), 4)


def test_a_decode_that_returns_none_is_named():
    src_vocab = tgt_vocab = Vocab(["a b c d e f g h"])
    model = small("pre")

    def decode(m, src):
        greedy_decode(m, src, max_new_tokens=4)  # return forgotten

    with pytest.raises(TypeError, match=r"decode returned None.*return"):
        translate(model, ["a b"], src_vocab, tgt_vocab, decode=decode)


def test_translate_warns_when_the_model_would_read_only_unknown_words():
    """Issue 47: swapped vocabularies of the same size ran silently, every word <unk>."""
    french = Vocab(["le chat noir dort sur un grand tapis"])  # 12 tokens, as the model's V
    english = Vocab(["the black cat sleeps on a big mat"])
    model = small("pre")

    def short(m, src):
        return greedy_decode(m, src, max_new_tokens=5)

    with pytest.warns(UserWarning, match=r"5 of the 5 words of the sentences are not in src_vocab"):
        translate(model, ["le chat dort sur tapis"], english, french, decode=short)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the right order: no word unknown, no warning
        translate(model, ["le chat dort sur tapis"], french, english, decode=short)
