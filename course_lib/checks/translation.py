"""Self-checks for Chapter 5, the data into the model: token positions, the chapter's
vocabulary, attention shapes, the decoder's self-attention mask. Masks: True = blocked.
(Decoding: ``checks.decoding``.) Inside ``unseen_cases`` the random values come from other
seeds and every check adds drawn cases: other sentences, sizes, lengths."""

from __future__ import annotations

import operator
from collections.abc import Callable

import torch
from torch import Tensor

from course_lib._foreign_names import explains_bad_calls
from course_lib._validate_basics import shape_str
from course_lib.checks._core import (
    ATOL,
    CheckFailed,
    boolean_mask,
    call_student,
    case_generator,
    case_seed,
    compare,
    in_order,
    passed,
    reference_holds,
    unpack,
    variant,
)
from course_lib.checks._describe import describe
from course_lib.checks._masks import polarity_problem
from course_lib.checks._translation_cases import (
    an_int,
    sinusoid_table,
    target_inputs,
    unseen_lengths,
    unseen_sentences,
    unseen_shapes,
)
from course_lib.masking import causal_mask
from course_lib.multihead import MultiHeadAttention
from course_lib.positional import sinusoidal_encoding
from course_lib.vocab import EOS, PAD, UNK, Vocab

__all__ = [
    "check_token_positions",
    "check_chapter_vocabulary",
    "check_attention_shapes",
    "check_decoder_self_attention_mask",
]


@explains_bad_calls()
def check_token_positions(fn: Callable) -> None:
    """Check ``token_positions(sentence, vocab, d_model) -> (ids, pe)``.

    ``ids`` ``(S,)``: the sentence's token ids as a long tensor, ``<eos>`` included, exactly
    ``vocab.encode(sentence)`` (an unknown word is ``<unk>`` = 3). ``pe`` ``(S, d_model)``: the
    sinusoidal encoding added at positions ``0 .. S - 1``, i.e. the library's
    ``sinusoidal_encoding(S, d_model)`` -- sine in feature ``2i``, cosine in ``2i + 1``.
    """
    __tracebackhide__ = True
    name = "token_positions"
    vocab = Vocab(["le chat est noir", "le chien est blanc", "un chat noir dort", "le chien dort"])
    cases = [
        ("le chat est noir", 8),
        ("un chien blanc dort", 16),
        ("le chat mange", 256),
        ("noir", 8),
    ]  # "mange" is not in the vocabulary
    if variant():
        cases += unseen_sentences(vocab.words[4:], case_generator(54))
    for sentence, d in cases:
        ids = torch.tensor(vocab.encode(sentence), dtype=torch.long)
        s = len(ids)
        expected = sinusoidal_encoding(s, d)
        reference_holds(
            torch.allclose(expected, sinusoid_table(s, d).float(), atol=ATOL), "positions"
        )
        unknown = vocab.unknown_words(sentence)
        case = f"sentence={sentence!r}, d_model={d}" + (f", unknown {unknown}" if unknown else "")
        got = call_student(fn, name, sentence, vocab, d)
        got_ids, got_pe = unpack(got, ("ids", "pe"), name, case, "a pair")
        in_order((got_ids, got_pe), (ids, expected), ("ids", "pe"), name, case)
        if not isinstance(got_ids, Tensor) or got_ids.dtype != torch.long:
            kind = describe(got_ids) if not isinstance(got_ids, Tensor) else got_ids.dtype
            raise CheckFailed(
                f"{name} returned the ids as {kind}: return a 1-D long tensor, "
                "torch.tensor(vocab.encode(sentence), dtype=torch.long), the type "
                f"an nn.Embedding takes ({case})"
            )
        if got_ids.shape == (s - 1,) or (isinstance(got_pe, Tensor) and got_pe.shape == (s - 1, d)):
            raise CheckFailed(
                f"{name} returned {s - 1} positions, one per word: the <eos> that "
                "vocab.encode appends is a token too and gets a position, so "
                f"S = len(ids) = {s} ({case})"
            )
        compare(got_ids, ids, f"{name} (ids)", case)
        compare(
            got_pe,
            expected,
            f"{name} (pe)",
            case,
            [
                (
                    sinusoid_table(s, d, concatenated=True),
                    "the sines of all the speeds come first, then "
                    "all the cosines (the tutorial's concatenated layout). The library interleaves them: "
                    "feature 2i is the sine of pair i, feature 2i + 1 its cosine, so with d_model=256 "
                    "position 1 starts [0.8415, 0.5403, 0.8020, 0.5974], not [0.8415, 0.8020, 0.7617, "
                    "0.7214]. Use sinusoidal_encoding(len(ids), d_model)",
                ),
                (
                    sinusoid_table(s, d, start=1),
                    "the positions are counted from 1: the first token is at "
                    "position 0, so the first row is [0, 1, 0, 1, ...]",
                ),
                (
                    # rows picked by token id: the same rows from any table this long or longer
                    sinusoidal_encoding(int(ids.max()) + 1, d)[ids],
                    "each token got the row of its token id (a table indexed by ids): pe "
                    "encodes POSITIONS, row k for the token at position k = 0 .. S - 1 whatever "
                    "the token is -- sinusoidal_encoding(len(ids), d_model), not indexed by ids",
                ),
                (
                    sinusoid_table(s, d, exponent=1),
                    "the speeds use 10000^(i / d_model): the exponent is "
                    "2i / d_model, with i counting the sine/cosine PAIRS",
                ),
            ],
        )
    passed(name, len(cases))


#: Ids in the chapter's French vocabulary, ``Vocab(fr for fr, _ in split.train)`` with
#: ``split = split_pairs(load_pairs(), seed=0)``; tests/test_checks.py rebuilds them from the data.
CHAPTER_IDS = {
    "le chat est noir": [24, 2551, 7, 1986, 2],
    "je suis tres fatigue": [4, 5, 25, 97, 2],
    "je suis xylophoniste": [4, 5, 3, 2],  # "xylophoniste" is unknown: <unk> = 3
}
CHAPTER_VOCAB_SIZE = 4102  # tokens, the four special ones included

#: More words of the chapter's vocabulary and their ids, frequent to rare, from which
#: ``unseen_cases`` builds other sentences (tests/test_unseen_cases_5_6.py rebuilds them).
CHAPTER_WORD_IDS = {
    "mon": 43, "sommes": 20, "si": 51, "c": 26, "te": 54, "toi": 48, "avec": 57, "trop": 45,
    "joueur": 602, "fait": 89, "bois": 920, "menteuse": 536, "peintre": 854, "famille": 315,
    "quitte": 724, "fini": 113, "contusionne": 1642, "vegetarienne": 1463, "capte": 2522,
    "epandent": 2921, "papa": 2009, "cherches": 2559, "insatisfait": 3227, "reunion": 1417,
}  # fmt: skip
_UNKNOWN_WORDS = ("xylophoniste", "ornithorynque", "kangourou", "trottinette")


def _unseen_chapter_ids(g: torch.Generator) -> dict[str, list[int]]:
    """Three other sentences for ``unseen_cases``, two to five words of
    ``CHAPTER_WORD_IDS`` (and now and then an unknown word), with their chapter ids."""
    known = list(CHAPTER_WORD_IDS)
    sentences = {}
    while len(sentences) < 3:
        n = int(torch.randint(2, 6, (), generator=g))
        words = [known[i] for i in torch.randperm(len(known), generator=g)[:n].tolist()]
        if torch.rand((), generator=g) < 0.3:
            words[-1] = _UNKNOWN_WORDS[int(torch.randint(len(_UNKNOWN_WORDS), (), generator=g))]
        sentences[" ".join(words)] = [*(CHAPTER_WORD_IDS.get(w, UNK) for w in words), EOS]
    return sentences


#: "le chat est noir" in vocabularies built from the wrong pairs, and what went wrong.
_WRONG_VOCABULARIES = {
    (24, 1875, 6, 1020, 2): "the vocabulary was built from all pairs; it must come from the "
    "training split only (split.train), or it holds every test word",
    (24, 1728, 7, 2128, 2): "the vocabulary was built from the training and validation "
    "splits; it must come from the training split only (split.train)",
    (24, 598, 6, 3, 2): "the vocabulary was built from the validation split; it must come "
    "from the training split (split.train)",
}


def _size(vocab, name: str) -> int:
    """``len(vocab)``, or :class:`CheckFailed` for an object whose length is not a number."""
    __tracebackhide__ = True
    try:
        return int(len(vocab))
    except Exception as err:  # a student's object that is not a Vocab after all
        raise CheckFailed(
            f"{name}() returned a {type(vocab).__name__} whose len() raised "
            f"{type(err).__name__}: {err}: return a course_lib.vocab.Vocab"
        ) from err


@explains_bad_calls()
def check_chapter_vocabulary(fn: Callable) -> None:
    """Check ``chapter_vocabulary() -> Vocab``: the chapter's French vocabulary, built from the
    French side of the training split of ``split_pairs(load_pairs(), seed=0)``.

    Compares the ids of three sentences (*le chat est noir* among them; inside
    ``unseen_cases`` three more, made of ``CHAPTER_WORD_IDS``) and the size of the
    vocabulary with the chapter's, and names the likely cause of a difference: the
    vocabulary built from all pairs, from the English side, or from another split.
    """
    __tracebackhide__ = True
    name = "chapter_vocabulary"
    vocab = call_student(fn, name, returns="the vocabulary (a course_lib.vocab.Vocab)")
    is_vocab = callable(getattr(vocab, "encode", None)) and hasattr(vocab, "__len__")
    if not is_vocab or isinstance(vocab, (str, bytes)):
        raise CheckFailed(
            f"{name} should return the vocabulary itself (a course_lib.vocab.Vocab), got "
            f"{describe(vocab)}: return Vocab(fr for fr, _ in split.train)"
        )
    size = _size(vocab, name)
    sentences = dict(CHAPTER_IDS)
    if variant():
        sentences |= _unseen_chapter_ids(case_generator(55))
    for sentence, expected in sentences.items():
        try:
            got = [int(i) for i in vocab.encode(sentence)]
        except Exception as err:  # a student's object that is not a Vocab after all
            raise CheckFailed(
                f"{name}() returned a {type(vocab).__name__} whose encode({sentence!r}) "
                f"raised {type(err).__name__}: {err}"
            ) from err
        if got == expected:
            continue
        case = f"the ids of {sentence!r}: got {got}, expected {expected}"
        if got[:-1] and all(i == 3 for i in got[:-1]):
            why = (
                "every word is <unk> = 3, so the vocabulary holds no French words: it was "
                "built from the English side. load_pairs() gives (French, English) pairs; "
                "take the first of each, Vocab(fr for fr, _ in split.train)"
            )
        elif got[-1:] != [2]:
            why = "the last id should be <eos> = 2: use vocab.encode(sentence), which appends it"
        else:
            why = _WRONG_VOCABULARIES.get(
                tuple(got),
                f"your vocabulary has {size} tokens, the chapter's {CHAPTER_VOCAB_SIZE}: build "
                "it as the chapter does, split = split_pairs(load_pairs(), seed=0) (seed 0), "
                "then Vocab(fr for fr, _ in split.train) -- from the training split's French "
                "side, not from all pairs, the English side or another seed",
            )
        raise CheckFailed(f"{name}: {case}. {why[0].upper()}{why[1:]}")
    if size != CHAPTER_VOCAB_SIZE:
        raise CheckFailed(
            f"{name}: the ids agree, but the vocabulary has {size} tokens, the chapter's "
            f"{CHAPTER_VOCAB_SIZE}: build it from split.train alone, with Vocab's defaults"
        )
    print(
        f"✓ {name}: all {len(sentences)} sentences get the chapter's ids, "
        f"'le chat est noir' -> {CHAPTER_IDS['le chat est noir']}."
    )


def _shown(value: object) -> str:
    """A short tuple or list as written (``(2, 3)``); anything else described."""
    if isinstance(value, (tuple, list)) and len(repr(value)) <= 120:
        return repr(value)
    return describe(value)


@explains_bad_calls()
def check_attention_shapes(fn: Callable) -> None:
    """Check ``attention_shapes(B, Lq, Lk, D, H) -> (output, averaged, per_head)``: the shapes
    a multi-head attention layer of width ``D`` with ``H`` heads returns for queries
    ``(B, Lq, D)`` and keys/values ``(B, Lk, D)``: its output ``(B, Lq, D)``, its weights
    averaged over the heads ``(B, Lq, Lk)`` and per head ``(B, H, Lq, Lk)``. Each shape may be
    a tuple or list of ints, or a ``torch.Size``. The check runs ``MultiHeadAttention``.
    """
    __tracebackhide__ = True
    name = "attention_shapes"
    g = case_generator(53)
    # all five sizes differ in the first case, so every mistake below shows
    cases = [(2, 3, 5, 8, 4), (4, 6, 2, 12, 3), (1, 1, 7, 4, 2), (3, 4, 4, 16, 8)]
    if variant():
        cases += unseen_shapes(case_generator(530))
    for seed, (b, lq, lk, d, h) in enumerate(cases):
        with torch.random.fork_rng(devices=[]):  # leave the student's generator alone
            torch.manual_seed(case_seed(530 + seed))
            mha = MultiHeadAttention(d, h)
        q, kv = torch.randn(b, lq, d, generator=g), torch.randn(b, lk, d, generator=g)
        with torch.no_grad():
            out, averaged = mha(q, kv, kv)
            _, per_head = mha(q, kv, kv, average_attn_weights=False)
        expected = [tuple(out.shape), tuple(averaged.shape), tuple(per_head.shape)]
        reference_holds(expected == [(b, lq, d), (b, lq, lk), (b, h, lq, lk)], "shapes")
        case = f"B={b}, Lq={lq}, Lk={lk}, D={d}, H={h}"
        got = call_student(fn, name, b, lq, lk, d, h)
        if not (isinstance(got, (tuple, list)) and len(got) == 3):
            raise CheckFailed(
                f"{name} should return three shapes (output, averaged weights, "
                f"per-head weights), got {_shown(got)} ({case})"
            )
        parts = [  # (which, in letters, known mistakes)
            (
                "output",
                "(B, Lq, D)",
                [
                    (
                        (b, lq, lk),
                        "that is the shape of the head-averaged weights, one weight per "
                        "(query, key) pair; the output has one D-wide vector per query: (B, Lq, D)",
                    ),
                    (
                        (b, lk, d),
                        "the output has as many rows as there are queries, not keys: "
                        "each query gets one weighted average of the values, (B, Lq, D)",
                    ),
                ],
            ),
            (
                "averaged weights",
                "(B, Lq, Lk)",
                [
                    (
                        (b, h, lq, lk),
                        "that is the per-head shape: averaging over the heads "
                        "removes the H axis, (B, Lq, Lk)",
                    )
                ],
            ),
            (
                "per-head weights",
                "(B, H, Lq, Lk)",
                [
                    (
                        wrong,
                        "the library and PyTorch put the head axis second, right after the "
                        "batch: (B, H, Lq, Lk)",
                    )
                    for wrong in [(b, lq, h, lk), (h, b, lq, lk)]
                ],
            ),
        ]
        for shape, want, (which, letters, known) in zip(got, expected, parts, strict=True):
            if not (isinstance(shape, (tuple, list)) and all(map(an_int, shape))):
                raise CheckFailed(
                    f"{name}: the {which} shape should be a tuple of ints, "
                    f"such as (2, 3), got {_shown(shape)} ({case})"
                )
            shape = tuple(operator.index(n) for n in shape)
            if tuple(shape) != want:
                why = next(
                    (why for wrong, why in known if tuple(shape) == wrong),
                    f"expected {letters} = {shape_str(want)}",
                )
                raise CheckFailed(
                    f"{name}: the {which} shape {shape_str(shape)} is wrong: {why} ({case})"
                )
    passed(name, len(cases))


@explains_bad_calls()
def check_decoder_self_attention_mask(mask_fn: Callable) -> None:
    """Check ``decoder_self_attention_mask(tgt_in) -> (B, T, T)`` boolean, True = blocked.

    ``tgt_in`` ``(B, T)`` holds target token ids, ``<pad>`` (0) at the end of the shorter
    rows. Entry ``[b, t, s]`` is True when key ``s`` comes after query ``t`` (causal) OR key
    ``s`` is padding in row ``b``: ``causal_mask(T)[None] | (tgt_in == PAD)[:, None, :]``.
    """
    __tracebackhide__ = True
    name = "decoder_self_attention_mask"
    g = case_generator(50)
    # B != T in the first case, so the (T, T) and (B, T) shapes are told apart; T=1 last
    cases = [([4, 2], 4), ([5, 3, 1], 5), ([3], 3), ([2, 4, 1, 3], 6), ([1], 1)]
    if variant():  # the mask depends on the lengths alone: other lengths, not other words
        cases += unseen_lengths(case_generator(500))
    for lengths, t in cases:
        tgt_in = target_inputs(lengths, t, g)
        b = len(lengths)
        pad = tgt_in == PAD  # (B, T)
        causal = causal_mask(t)  # (T, T)
        expected = causal[None] | pad[:, None, :]  # (B, T, T)
        case = f"B={b}, T={t}, lengths={lengths}"
        got = call_student(mask_fn, name, tgt_in.clone())
        boolean_mask(got, expected, name, case)
        if isinstance(got, Tensor) and tuple(got.shape) == (t, t) and b != t:
            raise CheckFailed(
                f"{name} returned (T, T) = {shape_str(got.shape)}: one mask for every "
                "sentence cannot block each sentence's own padding. Return "
                "(B, T, T): causal_mask(T)[None] is (1, T, T), the padding "
                "(tgt_in == PAD)[:, None, :] is (B, 1, T), and | broadcasts "
                f"them to (B, T, T) ({case})"
            )
        if isinstance(got, Tensor) and tuple(got.shape) == (b, t):
            raise CheckFailed(
                f"{name} returned (B, T) = {shape_str(got.shape)}, a padding mask alone: "
                "the decoder also needs the causal part. Broadcasting builds "
                "(B, T, T): causal_mask(T)[None] (1, T, T) | (tgt_in == PAD)"
                f"[:, None, :] (B, 1, T) ({case})"
            )
        mistakes = [
            (
                ~expected,
                "the polarity is flipped: in course_lib True means BLOCKED, so True "
                "must mark the future keys and the padded keys",
            ),
            (
                causal.expand(b, t, t),
                "the padding is ignored: the padded keys at the end of the "
                "shorter sentences must be blocked too, | (tgt_in == PAD)[:, None, :]",
            ),
            (
                pad[:, None, :].expand(b, t, t),
                "only the padding is blocked: without the causal "
                "part step t can see the later target words it is trained to predict",
            ),
            (
                causal[None] | pad[:, :, None],
                "the padding is applied to the query axis (rows) "
                "instead of the key axis (columns): entry [b, t, s] is blocked when KEY s is "
                "padding, so use (tgt_in == PAD)[:, None, :], not [:, :, None]",
            ),
            (
                causal[None] & pad[:, None, :],
                "the masks are combined with AND (&): a key is "
                "blocked when it is in the future OR padding, so combine them with |",
            ),
            (
                torch.eye(t, dtype=torch.bool)[None] | expected,
                "the diagonal is blocked too: step t "
                "may attend to itself, only the steps after it are blocked (triu with diagonal=1)",
            ),
        ]
        if isinstance(got, Tensor) and got.shape == expected.shape:
            got = got.detach().cpu()
            if not torch.equal(got, expected):
                for wrong, why in mistakes:
                    if torch.equal(got, wrong):
                        raise CheckFailed(f"{name}: {why} ({case})")
                inverted = polarity_problem(got, expected)
                if inverted is not None:
                    raise CheckFailed(f"{name}: {inverted} ({case})")
                i, j, k = (int(n) for n in (got != expected).nonzero()[0])
                raise CheckFailed(
                    f"{name}[{i}, {j}, {k}] is {bool(got[i, j, k])}, expected "
                    f"{bool(expected[i, j, k])} ({case}): key {k} is "
                    f"{'padding' if pad[i, k] else 'a real token'} and comes "
                    f"{'after' if k > j else 'at or before'} query {j}"
                )
        compare(got, expected, name, case)  # the type and shape messages
    passed(name, len(cases))
