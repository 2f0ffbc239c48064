"""Vocabulary, encoding and length-bucketed batches of sentence pairs."""

import pytest
import torch

from course_lib.vocab import EOS, PAD, SOS, UNK, PairBatches, Vocab, encode_pairs, pad

TRAIN = ["i am cold", "i am hot", "he is cold", "you are late"]


def test_specials_first_then_words_by_frequency():
    vocab = Vocab(TRAIN)
    assert vocab.words[:4] == ["<pad>", "<sos>", "<eos>", "<unk>"]
    assert vocab.words[4:7] == ["am", "cold", "i"]  # most frequent first, ties alphabetical
    assert len(vocab) == 4 + 9


def test_encode_decode_round_trip_and_unknown_words():
    vocab = Vocab(TRAIN)
    ids = vocab.encode("i am late", sos=True)
    assert ids[0] == SOS and ids[-1] == EOS
    assert vocab.decode(ids) == "i am late"
    assert vocab.encode("i am tired")[2] == UNK
    assert vocab.decode(vocab.encode("i am tired")) == "i am <unk>"
    assert vocab.unknown_words("i am very tired") == ["very", "tired"]
    assert vocab.decode([vocab.index["i"], EOS, vocab.index["am"]]) == "i"  # stops at <eos>


def test_a_raw_sentence_is_refused_with_normalize_as_the_fix():
    vocab = Vocab(TRAIN)
    with pytest.raises(ValueError, match="is not normalised") as info:
        vocab.encode("I am cold.")
    message = str(info.value)
    assert "'I', 'cold.'" in message and "'i am cold'" in message
    assert "vocab.encode(normalize(sentence))" in message
    with pytest.raises(ValueError, match=r"pairs\[0\].*not normalised"):
        encode_pairs([("I am cold.", "i am hot")], vocab, vocab)


def test_normalised_or_unhelped_sentences_still_encode_unknown_words():
    vocab = Vocab(TRAIN)
    assert vocab.encode("i am very tired")[2:4] == [UNK, UNK]  # normalised already
    assert vocab.encode("i am cold .")[3] == UNK  # normalising drops "." but adds no known word
    assert vocab.encode("Very tired")[:2] == [UNK, UNK]  # normalised, still unknown
    raw = Vocab(["I am Cold"])  # a vocabulary of raw text: its words are known as written
    assert raw.decode(raw.encode("I am Cold")) == "I am Cold"


def test_min_freq():
    vocab = Vocab(TRAIN, min_freq=2)
    assert vocab.words[4:] == ["am", "cold", "i"]


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda v: v.encode(""), ValueError, "empty sentence"),
        (lambda v: v.encode("   "), ValueError, "empty sentence"),
        (lambda v: v.encode("i am cold", max_tokens=3), ValueError, "more than max_tokens=3"),
        (lambda v: v.decode([99]), ValueError, "outside this vocabulary"),
    ],
)
def test_bad_input_says_what_is_wrong(call, error, message):
    with pytest.raises(error, match=message):
        call(Vocab(TRAIN))


def test_bad_vocabularies():
    with pytest.raises(ValueError, match="min_freq"):
        Vocab(TRAIN, min_freq=0)
    with pytest.raises(ValueError, match="special tokens"):
        Vocab(["i am <unk>"])


def test_pad():
    assert pad([[5, 6, 7], [8]]).tolist() == [[5, 6, 7], [8, PAD, PAD]]


def encoded(vocab, pairs):
    return encode_pairs(pairs, vocab, vocab)


def test_encode_pairs_uses_one_vocabulary_per_side():
    src_vocab, tgt_vocab = Vocab(["je suis"]), Vocab(["i am"])
    ((src, tgt),) = encode_pairs([("je suis", "i am")], src_vocab, tgt_vocab)
    assert src_vocab.decode(src) == "je suis" and tgt_vocab.decode(tgt) == "i am"
    assert tgt[-1] == EOS and SOS not in tgt


def test_batches_shift_the_target_and_mask_padding():
    vocab = Vocab(TRAIN)
    pairs = encoded(vocab, [("i am cold", "he is cold"), ("you are late", "i am")])
    (batch,) = PairBatches(pairs, batch_size=4)
    assert batch.src.shape == (2, 4) and batch.tgt_in.shape == batch.tgt_out.shape == (2, 4)
    assert (batch.tgt_in[:, 0] == SOS).all()
    # equal source lengths: the shorter target comes first ("you are late" -> "i am")
    assert vocab.decode(batch.src[0]) == "you are late"
    assert batch.tgt_out[0].tolist() == [vocab.index["i"], vocab.index["am"], EOS, PAD]
    assert batch.tgt_in[0].tolist() == [SOS, vocab.index["i"], vocab.index["am"], PAD]
    assert batch.tgt_in[1, 1:].tolist() == batch.tgt_out[1, :-1].tolist()
    assert (batch.src != PAD).all()  # both sources have 4 tokens


def test_batches_are_bucketed_by_length_and_shuffled_reproducibly():
    vocab = Vocab(TRAIN)
    sentences = [" ".join(["i"] * n) for n in range(1, 9)] * 4
    pairs = encoded(vocab, [(s, s) for s in sentences])
    batches = list(PairBatches(pairs, batch_size=4))
    assert [b.src.shape[1] for b in batches] == [n + 1 for n in range(1, 9)]  # no padding
    assert all((b.src != PAD).all() for b in batches)
    one = [
        b.src.shape[1]
        for b in PairBatches(pairs, 4, shuffle=True, generator=torch.Generator().manual_seed(0))
    ]
    two = [
        b.src.shape[1]
        for b in PairBatches(pairs, 4, shuffle=True, generator=torch.Generator().manual_seed(0))
    ]
    assert one == two and sorted(one) == [n + 1 for n in range(1, 9)] and one != sorted(one)


def test_every_pass_is_an_epoch_with_a_new_order():
    """Re-iterable (Trainer.fit iterates it once per epoch), a new shuffle every pass, and
    re-seeding the generator replays the passes."""
    vocab = Vocab(TRAIN)
    pairs = encoded(vocab, [(" ".join(["i"] * n), "i") for n in range(1, 9)] * 4)
    batches = PairBatches(pairs, 4, shuffle=True, generator=torch.Generator().manual_seed(0))
    assert len(batches) == 8

    def epoch():
        return [tuple(b.src.shape) for b in batches]

    first, second = epoch(), epoch()
    assert len(first) == len(second) == 8 and first != second
    batches.generator.manual_seed(0)
    assert epoch() == first and epoch() == second
    fixed = PairBatches(pairs, 4)
    assert [b.src.tolist() for b in fixed] == [b.src.tolist() for b in fixed]


@pytest.mark.parametrize(
    "pairs, batch_size, message",
    [
        ([], 4, "no pairs"),
        ([([5], [6, EOS])], 0, "batch_size"),
        ([([5], [6])], 4, "ending in <eos>"),
        ([([], [6, EOS])], 4, "non-empty source"),
    ],
)
def test_bad_batches(pairs, batch_size, message):
    with pytest.raises(ValueError, match=message):
        PairBatches(pairs, batch_size)


# -- the wrong kind of input: each mistake named, with its fix ------------------------------

PAIRS = [("je suis content", "i am happy"), ("il est la", "he is here")]


@pytest.mark.parametrize(
    "sentences, message",
    [
        ("je suis content", r"got one str 'je suis content'.*Vocab\(\['je suis content'\]\)"),
        (PAIRS, r"sentence pairs.*Vocab\(fr for fr, _ in pairs\).*Vocab\(en for _, en in pairs\)"),
        ([[5, 6, EOS]], "token ids"),
        (None, "got NoneType"),
    ],
    ids=["a string", "pairs", "token ids", "None"],
)
def test_vocab_wants_a_list_of_sentences(sentences, message):
    with pytest.raises(TypeError, match=message):
        Vocab(sentences)


def test_vocab_of_a_used_up_generator_says_so():
    french = (fr for fr, _ in PAIRS)
    Vocab(french)  # the generator is now used up
    with pytest.raises(ValueError, match="empty.*used up after one pass"):
        Vocab(french)


def test_vocab_that_would_hold_no_word_is_refused():
    with pytest.raises(ValueError, match="hold no words"):
        Vocab(["", "   "])
    with pytest.raises(ValueError, match=r"min_freq=5 keeps no word.*occurs 2 time"):
        Vocab(TRAIN, min_freq=5)


@pytest.mark.parametrize(
    "sentence, message",
    [
        (["i am cold", "i am hot"], r"\[vocab.encode\(s\) for s in sentences\]"),
        (("je suis", "i am"), r"one side at a time.*src_vocab.encode\(fr\)"),
        ([4, 5, EOS], r"token ids already.*vocab.decode\(ids\)"),
        (None, "got NoneType"),
    ],
    ids=["a list of sentences", "a pair", "ids", "None"],
)
def test_encode_wants_one_sentence(sentence, message):
    with pytest.raises(TypeError, match=message):
        Vocab(TRAIN).encode(sentence)
    with pytest.raises(TypeError, match=message):
        Vocab(TRAIN).unknown_words(sentence)


def test_encode_checks_max_tokens():
    with pytest.raises(ValueError, match="max_tokens must be a positive integer"):
        Vocab(TRAIN).encode("i am cold", max_tokens=0)


@pytest.mark.parametrize(
    "ids, error, message",
    [
        ("i am cold", TypeError, r"got str 'i am cold'.*vocab.encode\(sentence\)"),
        (torch.tensor([[4, 5], [5, 4]]), ValueError, r"one sentence's ids.*\(2, 2\).*each row"),
        (torch.rand(13), TypeError, r"scores or probabilities.*argmax\(-1\)"),
        ([[4, 5], [5, 4]], TypeError, "decode one sentence at a time"),
        ([4.0, 5.7], TypeError, "whole numbers"),
        (None, TypeError, "got NoneType"),
    ],
    ids=["a string", "a batch", "scores", "nested lists", "floats", "None"],
)
def test_decode_wants_one_sentences_ids(ids, error, message):
    with pytest.raises(error, match=message):
        Vocab(TRAIN).decode(ids)


def test_decode_takes_a_tensor_of_ids():
    vocab = Vocab(TRAIN)
    assert vocab.decode(torch.tensor(vocab.encode("i am cold"))) == "i am cold"


@pytest.mark.parametrize(
    "sequences, error, message",
    [
        ([], ValueError, "sequences is empty"),
        ([5, 6, EOS], TypeError, r"one sentence's ids.*pad\(\[ids\]\)"),
        (["i am cold"], TypeError, r"encode them first, pad\(\[vocab.encode\(s\)"),
        ("i am cold", TypeError, "encode the sentence first"),
        ([torch.tensor([1.0, 2.0])], TypeError, r"token ids are integers.*argmax"),
        ([[1.5, 2.0]], TypeError, "token ids are integers"),
        ([[5, 6], []], ValueError, r"sequences\[1\] is empty"),
        (torch.tensor([5, 6, EOS]), TypeError, r"pad\(\[ids\]\)"),
    ],
    ids=["nothing", "flat ids", "strings", "a string", "float tensor", "floats", "empty", "1-D"],
)
def test_pad_says_what_it_takes(sequences, error, message):
    with pytest.raises(error, match=message):
        pad(sequences)


def test_pad_value_must_be_an_id_and_tensors_are_padded_too():
    with pytest.raises(TypeError, match="value must be an integer token id"):
        pad([[5, 6], [7]], value=0.5)
    assert pad([torch.tensor([5, 6]), [7]]).tolist() == [[5, 6], [7, PAD]]


@pytest.mark.parametrize(
    "args, message",
    [
        ((PAIRS, Vocab(TRAIN), [1]), r"tgt_vocab must be a Vocab, got list.*The order is"),
        ((Vocab(TRAIN), Vocab(TRAIN), PAIRS), r"got a Vocab: the order is encode_pairs\(pairs,"),
        ((["je suis content"], Vocab(TRAIN), Vocab(TRAIN)), "single sentences, not pairs"),
        (([([4, 2], [5, 2])], Vocab(TRAIN), Vocab(TRAIN)), "encoded already"),
        (("je suis", Vocab(TRAIN), Vocab(TRAIN)), "got str"),
    ],
    ids=["a list as vocabulary", "vocabulary first", "sentences", "ids", "a string"],
)
def test_encode_pairs_wants_sentence_pairs_and_two_vocabularies(args, message):
    with pytest.raises(TypeError, match=message):
        encode_pairs(*args)


def test_encode_pairs_names_the_pair_with_an_empty_sentence():
    fr, en = Vocab(fr for fr, _ in PAIRS), Vocab(en for _, en in PAIRS)
    with pytest.raises(ValueError, match=r"pairs\[1\] = \('il est la', ''\).*empty sentence"):
        encode_pairs([PAIRS[0], ("il est la", "")], fr, en)


def test_encode_pairs_refuses_swapped_sides():
    fr, en = Vocab(fr for fr, _ in PAIRS), Vocab(en for _, en in PAIRS)
    assert len(encode_pairs(PAIRS, fr, en)) == 2
    swapped = [(e, f) for f, e in PAIRS]
    with pytest.raises(ValueError, match=r"\(target, source\), or the vocabularies are swapped"):
        encode_pairs(swapped, fr, en)
    with pytest.raises(ValueError, match="vocabularies are swapped"):
        encode_pairs(PAIRS, en, fr)
    encode_pairs([("le chat dort", "the cat sleeps")], fr, en)  # unknown words, not swapped


@pytest.mark.parametrize(
    "pairs, kwargs, error, message",
    [
        (PAIRS, {}, TypeError, r"holds sentences \(strings\): encode them first"),
        (4, {}, TypeError, r"got int. The order is PairBatches\(pairs, batch_size\)"),
        ([([5], [6, EOS])], {"generator": 0}, TypeError, r"torch.Generator\(\).manual_seed"),
        ([[5, 6, EOS]], {}, TypeError, "item 0 is list of 3 int"),
    ],
    ids=["sentences", "swapped arguments", "a seed as generator", "ids without pairs"],
)
def test_pair_batches_want_encoded_pairs(pairs, kwargs, error, message):
    with pytest.raises(error, match=message):
        PairBatches(pairs, 2, **kwargs)


def test_pair_batches_take_a_generator_of_pairs_and_reiterate_it():
    batches = PairBatches((p for p in [([5], [6, EOS]), ([7], [8, EOS])]), 2)
    assert len(batches) == 1 and len(list(batches)) == len(list(batches)) == 1


def test_pair_batches_refuse_targets_encoded_with_sos():
    vocab = Vocab(TRAIN)
    pairs = [(vocab.encode(s), vocab.encode(s, sos=True)) for s in TRAIN]
    with pytest.raises(ValueError, match=r"pairs\[0\]'s target \[1, .*starts with <sos>") as err:
        PairBatches(pairs, 2)
    assert "sos=True" in str(err.value) and "encode_pairs(pairs, src_vocab, tgt_vocab)" in str(
        err.value
    )
    with pytest.raises(ValueError, match="starts with <sos>"):  # tensors too
        PairBatches([(torch.tensor([5, EOS]), torch.tensor([SOS, 6, EOS]))], 2)
    PairBatches([(vocab.encode(s), vocab.encode(s)) for s in TRAIN], 2)  # no <sos>: accepted


def test_hugging_face_keywords_are_named():
    vocab = Vocab(["i am happy"])
    with pytest.raises(TypeError, match=r"'skip_special_tokens'.*strip=True"):
        vocab.decode(vocab.encode("i am happy"), skip_special_tokens=True)
    with pytest.raises(TypeError, match=r"'add_special_tokens'.*eos=False"):
        vocab.encode("i am happy", add_special_tokens=False)


def test_vocab_membership_and_a_clear_error_for_indexing():
    vocab = Vocab(["je suis content"])
    assert "je" in vocab and "tu" not in vocab
    with pytest.raises(TypeError, match=r"Vocab is not indexed.*vocab\.index\[word\]"):
        vocab["je"]


def test_pair_batch_by_name_and_batches_by_iteration():
    src_vocab, tgt_vocab = Vocab(["je suis content"]), Vocab(["i am happy"])
    ids = encode_pairs([("je suis content", "i am happy")], src_vocab, tgt_vocab)
    batches = PairBatches(ids, 1)
    batch = next(iter(batches))
    assert batch[0] is batch.src and batch[1:] == (batch.tgt_in, batch.tgt_out)
    with pytest.raises(TypeError, match=r"named tuple, not a dict: read batch\.src"):
        batch["src"]
    with pytest.raises(TypeError, match=r"PairBatches is not indexed.*next\(iter\(batches\)\)"):
        batches[0]
