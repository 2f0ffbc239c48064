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
