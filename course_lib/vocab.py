"""Words to token ids and back, and padded, length-bucketed batches of sentence pairs.

The translation data path: :class:`Vocab` (words <-> ids), :func:`encode_pairs` (sentence
pairs -> id pairs), :class:`PairBatches` (id pairs -> padded batches, re-shuffled on every
pass, so a :class:`~course_lib.train.Trainer` can iterate it once per epoch).

Batch first. Letters: ``B`` sentences, ``S`` source tokens, ``T`` target tokens.

A :class:`Vocab` is built from the **training** sentences only; a word it has not seen maps
to ``<unk>``. Four special tokens come first, always with the same ids:

=========  ==  =====================================================
``<pad>``  0   fills short sentences up to the batch's longest
``<sos>``  1   start of sentence: the decoder's first input
``<eos>``  2   end of sentence: the decoder's last target
``<unk>``  3   a word outside the vocabulary
=========  ==  =====================================================

Padding masks follow the library's one convention: ``True`` = padding = blocked.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from typing import NamedTuple

import numpy as np
import torch
from torch import Tensor

from course_lib._foreign_names import explains_bad_calls, explains_class, not_subscriptable
from course_lib._validate_basics import check_positive_int, check_type, type_name
from course_lib.tatoeba import normalize

__all__ = [
    "PAD",
    "SOS",
    "EOS",
    "UNK",
    "SPECIALS",
    "Vocab",
    "encode_pairs",
    "PairBatch",
    "PairBatches",
    "pad",
]

PAD, SOS, EOS, UNK = 0, 1, 2, 3
SPECIALS = ("<pad>", "<sos>", "<eos>", "<unk>")


def _is_id(value: object) -> bool:
    """A token id: a Python or NumPy integer, or an integer tensor of one element."""
    if isinstance(value, Tensor):
        return value.ndim == 0 and not torch.is_floating_point(value)
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def _is_ids(value: object) -> bool:
    """Token ids of one sentence (a list, tuple or tensor of integers)."""
    if isinstance(value, Tensor):
        return value.ndim == 1 and not torch.is_floating_point(value)
    return isinstance(value, (list, tuple)) and bool(value) and all(map(_is_id, value))


def _is_text_pair(value: object) -> bool:
    return (
        isinstance(value, (tuple, list))
        and len(value) == 2
        and all(isinstance(v, str) for v in value)
    )


def _check_sentence(sentence: object, name: str = "sentence") -> None:
    """One sentence (a string), or a TypeError naming what came instead and the fix."""
    if isinstance(sentence, str):
        return
    if _is_text_pair(sentence) and isinstance(sentence, tuple):
        fix = "Encode one side at a time: src_vocab.encode(fr), tgt_vocab.encode(en)."
    elif isinstance(sentence, (list, tuple)) and sentence and isinstance(sentence[0], str):
        fix = f"It takes one sentence; for several, [vocab.encode(s) for s in {name}s]."
    elif _is_ids(sentence):
        fix = "These are token ids already: vocab.decode(ids) gives their words."
    else:
        fix = "Pass one normalised sentence, e.g. 'je suis content'."
    check_type(sentence, name, str, "a sentence (a string)", fix)


def _sentence_list(sentences: object) -> list[str]:
    """``sentences`` as a list of strings, or a TypeError naming what came instead."""
    what = "a list (or a generator) of sentences, one string each"
    if isinstance(sentences, str):
        raise TypeError(
            f"sentences must be {what}, got one {type_name(sentences)}, which would give a "
            f"vocabulary of its letters. Wrap it in a list, Vocab([{sentences[:30]!r}]), or "
            "pass all the sentences, Vocab(sentences)"
        )
    if not isinstance(sentences, Iterable) or isinstance(sentences, (bytes, Tensor)):
        raise TypeError(f"sentences must be {what}, got {type_name(sentences)}")
    sentences = list(sentences)
    for k, sentence in enumerate(sentences):
        if isinstance(sentence, str):
            continue
        if _is_text_pair(sentence):
            fix = (
                "These are sentence pairs: build one vocabulary per side, "
                "Vocab(fr for fr, _ in pairs) and Vocab(en for _, en in pairs)"
            )
        elif _is_ids(sentence):
            fix = "These are token ids: build the vocabulary from the sentences themselves"
        else:
            fix = "Pass the normalised sentences, one string each"
        raise TypeError(f"sentences must be {what}, but item {k} is {type_name(sentence)}. {fix}")
    return sentences


@explains_class
class Vocab:
    """A fixed word list with the four special tokens first.

    Args:
        sentences: tokenised by spaces (normalised text, see :mod:`course_lib.tatoeba`):
            one side of the pairs, e.g. ``Vocab(fr for fr, _ in split.train)``.
        min_freq: words seen fewer times become ``<unk>``.

    Raises:
        TypeError: ``sentences`` is one string (a vocabulary of its letters), or holds
            sentence pairs or token ids instead of sentences.
        ValueError: no sentences (an empty list, or a generator already used up), no
            words, no word seen ``min_freq`` times, or a special token in the text.
    """

    def __init__(self, sentences: Iterable[str], min_freq: int = 1):
        check_positive_int(min_freq, "min_freq")
        sentences = _sentence_list(sentences)
        if not sentences:
            raise ValueError(
                "sentences is empty: build the vocabulary from the training sentences (a "
                "generator is used up after one pass: create it again for each Vocab)"
            )
        counts = Counter(word for sentence in sentences for word in sentence.split())
        if not counts:
            raise ValueError(f"the {len(sentences)} sentences hold no words, only spaces")
        clash = sorted(set(counts) & set(SPECIALS))
        if clash:
            raise ValueError(f"the sentences contain special tokens {clash}: normalise them first")
        kept = sorted(
            (w for w, n in counts.items() if n >= min_freq), key=lambda w: (-counts[w], w)
        )
        if not kept:
            raise ValueError(
                f"min_freq={min_freq} keeps no word: the most frequent word occurs "
                f"{max(counts.values())} time(s). Lower min_freq"
            )
        self.words: list[str] = [*SPECIALS, *kept]
        self.index: dict[str, int] = {w: i for i, w in enumerate(self.words)}

    def __len__(self) -> int:
        return len(self.words)

    def __contains__(self, word: object) -> bool:
        """``"chat" in vocab``: whether the word has an id of its own (not ``<unk>``)."""
        return word in self.index

    # vocab["je"] (torchtext's habit): say how to look a word up
    __getitem__ = not_subscriptable(
        "Vocab",
        "a word's id is vocab.index[word] (KeyError for a word it does not know) or "
        "vocab.encode(sentence) (<unk> for unknown words); a word of an id is vocab.words[i]",
    )

    def __repr__(self) -> str:
        return f"Vocab({len(self)} tokens, {len(self) - len(SPECIALS)} words)"

    @explains_bad_calls(
        add_special_tokens="course_lib writes eos=False to leave out <eos> (and sos=True to add <sos>)"
    )
    def encode(
        self, sentence: str, *, sos: bool = False, eos: bool = True, max_tokens: int | None = None
    ) -> list[int]:
        """Token ids of a normalised sentence (unknown words -> ``<unk>``).

        Raises:
            TypeError: ``sentence`` is not one string (a list of them, a pair, ids).
            ValueError: an empty sentence, or one of more than ``max_tokens`` tokens
                (counting ``<sos>``/``<eos>``) -- say which, so the caller can filter or
                raise max_tokens; or a sentence that is not normalised (capitals,
                punctuation) whose unknown words :func:`~course_lib.tatoeba.normalize`
                would make known.
        """
        _check_sentence(sentence)
        if max_tokens is not None:
            check_positive_int(max_tokens, "max_tokens")
        words = sentence.split()
        if not words:
            raise ValueError(f"cannot encode an empty sentence ({sentence!r})")
        ids = [SOS] * sos + [self.index.get(w, UNK) for w in words] + [EOS] * eos
        if UNK in ids:
            self._check_normalised(sentence, words)
        if max_tokens is not None and len(ids) > max_tokens:
            raise ValueError(
                f"{sentence!r} has {len(ids)} tokens, more than max_tokens={max_tokens}: "
                "filter long sentences or raise max_tokens"
            )
        return ids

    def _check_normalised(self, sentence: str, words: list[str]) -> None:
        """Refuse a raw sentence (capitals, punctuation) whose unknown words normalising
        would make known: without it they silently become ``<unk>``. Run only for a sentence
        with an unknown word, so most sentences cost nothing more."""
        normalised = normalize(sentence)
        if normalised == sentence:
            return
        known = sum(w in self.index for w in words)
        known_after = sum(w in self.index for w in normalised.split())
        if known_after <= known:
            return  # normalising would not help: a word the vocabulary truly lacks
        unknown = [w for w in words if w not in self.index]
        raise ValueError(
            f"sentence {sentence!r} is not normalised: {len(unknown)} of its {len(words)} "
            f"words ({', '.join(map(repr, unknown[:5]))}) are unknown to this vocabulary "
            f"and would become <unk>, but its normalised form {normalised!r} has "
            f"{known_after} known words. Normalise it first, vocab.encode(normalize(sentence)) "
            "with normalize from course_lib.tatoeba (load_pairs gives normalised pairs)"
        )

    @explains_bad_calls(
        skip_special_tokens="course_lib writes strip=True (the default) to drop <sos>, <eos> and <pad>"
    )
    def decode(self, ids: Iterable[int], *, strip: bool = True) -> str:
        """Words of token ids. ``strip`` stops at ``<eos>`` and drops ``<pad>``/``<sos>``.

        Args:
            ids: one sentence's ids: a list of ints or a 1-D integer tensor.

        Raises:
            TypeError: a string, float scores, or something else than integer ids.
            ValueError: a batch ``(B, T)`` instead of one sentence, or an id outside the
                vocabulary.
        """
        words = []
        for i in _id_list(ids):
            if not 0 <= i < len(self):
                raise ValueError(f"token id {i} is outside this vocabulary of {len(self)}")
            if strip and i == EOS:
                break
            if strip and i in (PAD, SOS):
                continue
            words.append(self.words[i])
        return " ".join(words)

    def unknown_words(self, sentence: str) -> list[str]:
        """The words of ``sentence`` this vocabulary maps to ``<unk>``."""
        _check_sentence(sentence)
        return [w for w in sentence.split() if w not in self.index]


def _id_list(ids: object) -> list[int]:
    """One sentence's token ids as Python ints, or a clear error (``decode``'s input)."""
    if isinstance(ids, Tensor):
        if torch.is_floating_point(ids):
            raise TypeError(
                f"ids must be integer token ids, got {type_name(ids)}: scores or "
                "probabilities? Take the most likely token first, ids = scores.argmax(-1)"
            )
        if ids.ndim != 1:
            raise ValueError(
                f"ids must be one sentence's ids, a 1-D tensor, got {type_name(ids)}: decode "
                "each row of a batch, [vocab.decode(row) for row in ids]"
            )
        return ids.tolist()  # one transfer, not one per token
    if isinstance(ids, (str, bytes)):
        raise TypeError(
            f"ids must be token ids (integers), got {type_name(ids)}: vocab.encode(sentence) "
            "gives the ids of a sentence"
        )
    if not isinstance(ids, Iterable):
        raise TypeError(f"ids must be token ids (integers), got {type_name(ids)}")
    out = []
    for i in ids:
        if not _is_id(i):
            batch = isinstance(i, (list, tuple, Tensor, np.ndarray))
            fix = (
                "decode one sentence at a time, [vocab.decode(row) for row in ids]"
                if batch
                else "token ids are whole numbers: vocab.encode(sentence) gives them"
            )
            raise TypeError(f"ids must be token ids (integers), but it holds {type_name(i)}: {fix}")
        out.append(int(i))
    return out


def _text_pair_list(pairs: object) -> list:
    """``pairs`` as a list of ``(source, target)`` sentence pairs, or a clear error."""
    what = "(source, target) sentence pairs, e.g. split.train"
    if isinstance(pairs, Vocab):
        raise TypeError(
            f"pairs must be {what}, got a Vocab: the order is "
            "encode_pairs(pairs, src_vocab, tgt_vocab)"
        )
    if isinstance(pairs, (str, bytes)) or not isinstance(pairs, Iterable):
        raise TypeError(f"pairs must be {what}, got {type_name(pairs)}")
    pairs = list(pairs)
    for k, pair in enumerate(pairs):
        if _is_text_pair(pair):
            continue
        if isinstance(pair, str):
            fix = "single sentences, not pairs: pass the pairs themselves"
        elif isinstance(pair, (tuple, list)) and len(pair) == 2 and _is_ids(pair[0]):
            fix = "encode_pairs takes sentences (strings); these look encoded already"
        else:
            fix = "each pair is a tuple of two sentences, (source, target)"
        raise TypeError(f"pairs must be {what}, but item {k} is {type_name(pair)}: {fix}")
    return pairs


def _unknown_share(sentences: Iterable[str], vocab: Vocab) -> float:
    words = [w for s in sentences for w in s.split()]
    return sum(w not in vocab.index for w in words) / max(len(words), 1)


def _check_direction(pairs: list, src_vocab: Vocab, tgt_vocab: Vocab, encoded: list) -> None:
    """Refuse pairs whose sides, or vocabularies, are swapped: most words of a side are
    unknown to its vocabulary but known to the other one."""
    n_tokens = sum(len(s) + len(t) - 2 for s, t in encoded)  # without the <eos>
    n_unknown = sum(i == UNK for s, t in encoded for i in (*s, *t))
    if n_unknown <= 0.5 * n_tokens:
        return
    sources, targets = [s for s, _ in pairs], [t for _, t in pairs]
    as_given = _unknown_share(sources, src_vocab) + _unknown_share(targets, tgt_vocab)
    swapped = _unknown_share(sources, tgt_vocab) + _unknown_share(targets, src_vocab)
    if swapped < 0.5 * as_given:
        raise ValueError(
            f"most words of the pairs are unknown to their side's vocabulary but known to "
            f"the other one ({n_unknown} of {n_tokens} words would become <unk>): the pairs "
            "are (target, source), or the vocabularies are swapped. load_pairs() gives "
            "(french, english) pairs; encode them as encode_pairs(pairs, src_vocab, "
            "tgt_vocab) with src_vocab = Vocab(fr for fr, _ in split.train)"
        )


@explains_bad_calls(
    missing="the two vocabularies are two arguments; a tuple of both needs its * to unpack it: encode_pairs(pairs, *vocabs)"
)
def encode_pairs(
    pairs: Iterable[tuple[str, str]], src_vocab: Vocab, tgt_vocab: Vocab
) -> list[tuple[list[int], list[int]]]:
    """``(source, target)`` sentence pairs -> ``(source ids, target ids)``, each ending in
    ``<eos>`` and without ``<sos>`` (:class:`PairBatches` adds it for teacher forcing).

    Raises:
        TypeError: ``pairs`` does not hold pairs of sentences, or a vocabulary is not a
            :class:`Vocab`.
        ValueError: an empty sentence (the message names the pair), or pairs whose words
            mostly belong to the other side's vocabulary (sides or vocabularies swapped).
    """
    pairs = _text_pair_list(pairs)
    for vocab, name in ((src_vocab, "src_vocab"), (tgt_vocab, "tgt_vocab")):
        check_type(
            vocab,
            name,
            Vocab,
            "a Vocab",
            "The order is encode_pairs(pairs, src_vocab, tgt_vocab), with src_vocab = "
            "Vocab(fr for fr, _ in split.train)",
        )
    encoded = []
    for k, (src, tgt) in enumerate(pairs):
        try:
            encoded.append((src_vocab.encode(src), tgt_vocab.encode(tgt)))
        except ValueError as err:
            raise ValueError(f"pairs[{k}] = {(src, tgt)!r}: {err}") from None
    _check_direction(pairs, src_vocab, tgt_vocab, encoded)
    return encoded


def _check_sequences(sequences: object) -> None:
    """What :func:`pad` takes: a non-empty batch of non-empty integer id sequences."""
    what = "a list of token-id sequences, e.g. [vocab.encode(s) for s in sentences]"
    if isinstance(sequences, Tensor):
        if sequences.ndim != 2 or torch.is_floating_point(sequences):
            raise TypeError(
                f"sequences must be {what}, got {type_name(sequences)}"
                + (": wrap one sentence's ids, pad([ids])" if sequences.ndim == 1 else "")
            )
        return
    if isinstance(sequences, str) or not isinstance(sequences, Sequence):
        raise TypeError(
            f"sequences must be {what}, got {type_name(sequences)}"
            + (
                ": encode the sentence first, pad([vocab.encode(s)])"
                if isinstance(sequences, str)
                else ""
            )
        )
    if not sequences:
        raise ValueError("sequences is empty: pad needs at least one sequence of token ids")
    for k, seq in enumerate(sequences):
        if isinstance(seq, str):
            fix = (
                "these are sentences: encode them first, pad([vocab.encode(s) for s in sentences])"
            )
        elif _is_id(seq):
            fix = "that is one sentence's ids: wrap it in a list, pad([ids])"
        elif not isinstance(seq, (Sequence, Tensor, np.ndarray)):
            fix = "each item is one sentence's ids, a list or a 1-D tensor of integers"
        elif len(seq) == 0:
            raise ValueError(
                f"sequences[{k}] is empty: every sentence needs at least one token "
                "(Vocab.encode adds <eos>)"
            )
        elif (isinstance(seq, Tensor) and (seq.ndim != 1 or torch.is_floating_point(seq))) or (
            not isinstance(seq, Tensor) and not _is_id(seq[0])
        ):
            fix = "token ids are integers: take scores.argmax(-1), or encode the sentences"
        else:
            continue
        raise TypeError(f"sequences must be {what}, but item {k} is {type_name(seq)}: {fix}")


@explains_bad_calls()
def pad(sequences: Sequence[Sequence[int]], value: int = PAD) -> Tensor:
    """``(B, L)`` long tensor, right-padded with ``value`` to the longest sequence.

    Raises:
        TypeError: ``sequences`` is one sentence (a string, or a flat list of ids), holds
            strings or float scores, or ``value`` is not an integer id.
        ValueError: no sequences, or an empty one.
    """
    _check_sequences(sequences)
    if not _is_id(value):
        raise TypeError(f"value must be an integer token id (PAD = 0), got {type_name(value)}")
    return _pad(sequences, int(value))


def _pad(sequences: Sequence[Sequence[int]], value: int = PAD) -> Tensor:
    longest = max(len(s) for s in sequences)
    out = torch.full((len(sequences), longest), value, dtype=torch.long)
    for row, seq in zip(out, sequences, strict=True):
        row[: len(seq)] = torch.as_tensor(seq, dtype=torch.long)
    return out


@explains_class
class PairBatch(NamedTuple):
    """One batch of encoded pairs, with the teacher-forcing shift already applied.

    ``tgt_in`` is ``<sos> y1 ... yn`` and ``tgt_out`` is ``y1 ... yn <eos>``: at step ``t``
    the decoder sees ``tgt_in[:, :t+1]`` and must predict ``tgt_out[:, t]``. A tuple
    ``(src, tgt_in, tgt_out)``, so the :class:`~course_lib.train.Trainer` calls
    ``model(src, tgt_in)`` and compares its output with ``tgt_out``.
    """

    src: Tensor  # (B, S)
    tgt_in: Tensor  # (B, T)
    tgt_out: Tensor  # (B, T)

    def __getitem__(self, key):
        """``batch[0]`` as a tuple's; ``batch["src"]`` (a dict's habit) gets a clear error."""
        if isinstance(key, str):
            raise TypeError(
                f"a PairBatch is a named tuple, not a dict: read batch.{key} (an attribute), "
                f"or unpack it, src, tgt_in, tgt_out = batch"
            )
        return tuple.__getitem__(self, key)

    def to(self, device: torch.device | str) -> PairBatch:
        return PairBatch(self.src.to(device), self.tgt_in.to(device), self.tgt_out.to(device))


@explains_class
class PairBatches:
    """Length-bucketed batches of id pairs, re-iterable: every pass over it is one epoch.

    Pairs of similar source length share a batch, so little padding is computed. With
    ``shuffle`` every pass draws a new order from ``generator``: the batches come in a
    random order, and pairs of equal length in a random order within their bucket. A
    :class:`~course_lib.train.Trainer` re-seeds ``generator`` when ``fit(seed=...)`` is
    given, like a ``DataLoader``'s.

    Args:
        pairs: ``(source ids, target ids)``; targets end with ``<eos>`` and have no ``<sos>``
            (see :func:`encode_pairs`).
        batch_size: pairs per batch (the last batch of a length may be smaller).
        shuffle: a new order on every pass; otherwise sorted by length, the same each time.
        generator: the random numbers of the shuffling (a new one when not given).

    Yields:
        :class:`PairBatch` ``(src (B, S), tgt_in (B, T), tgt_out (B, T))`` on the CPU.

    Raises:
        TypeError: ``pairs`` holds sentences (not yet encoded) or is not a list of pairs;
            ``generator`` is not a ``torch.Generator``.
        ValueError: no pairs, a ``batch_size`` that is not a positive integer, or a pair
            with an empty source, a target not ending in ``<eos>`` or one starting with
            ``<sos>`` (encoded with ``sos=True``: PairBatches adds it).
    """

    @explains_bad_calls(
        seed="PairBatches shuffles with a torch.Generator, not a seed: PairBatches(pairs, batch_size, shuffle=True, generator=torch.Generator().manual_seed(0)); Trainer.fit(seed=...) re-seeds it",
        random_state="PairBatches shuffles with a torch.Generator, not a seed: PairBatches(pairs, batch_size, shuffle=True, generator=torch.Generator().manual_seed(0)); Trainer.fit(seed=...) re-seeds it",
    )
    def __init__(
        self,
        pairs: Sequence[tuple[Sequence[int], Sequence[int]]],
        batch_size: int,
        *,
        shuffle: bool = False,
        generator: torch.Generator | None = None,
    ) -> None:
        what = "encoded (source ids, target ids) pairs, from encode_pairs"
        if isinstance(pairs, (str, bytes, Tensor, int)) or not isinstance(pairs, Iterable):
            raise TypeError(
                f"pairs must be {what}, got {type_name(pairs)}. The order is "
                "PairBatches(pairs, batch_size)"
            )
        pairs = pairs if isinstance(pairs, Sequence) else list(pairs)
        check_positive_int(batch_size, "batch_size")
        if generator is not None:
            check_type(
                generator,
                "generator",
                torch.Generator,
                "a torch.Generator",
                "Pass generator=torch.Generator().manual_seed(seed)",
            )
        if not pairs:
            raise ValueError("no pairs to batch")
        for k, pair in enumerate(pairs):
            if not (isinstance(pair, (tuple, list)) and len(pair) == 2):
                raise TypeError(f"pairs must be {what}, but item {k} is {type_name(pair)}")
            src, tgt = pair
            if isinstance(src, str) or isinstance(tgt, str):
                raise TypeError(
                    f"pairs must be {what}, but item {k} holds sentences (strings): encode "
                    "them first, PairBatches(encode_pairs(pairs, src_vocab, tgt_vocab), ...)"
                )
            if not len(src) or not len(tgt) or tgt[-1] != EOS:
                raise ValueError(
                    "every pair needs a non-empty source and a target ending in <eos>: encode "
                    f"targets with Vocab.encode(..., eos=True); got {list(src)}, {list(tgt)}"
                )
            if tgt[0] == SOS:
                shown = f"{[int(i) for i in tgt[:6]]}"[:-1] + (", ...]" if len(tgt) > 6 else "]")
                raise ValueError(
                    f"pairs[{k}]'s target {shown} starts with <sos> (id {SOS}): it was "
                    "encoded with sos=True. "
                    "PairBatches adds <sos> itself (tgt_in = <sos> y1 ... yn), so the decoder "
                    "would see it twice and learn to predict <sos>. Encode the targets "
                    "without it: tgt_vocab.encode(en) (sos=False, the default), or "
                    "encode_pairs(pairs, src_vocab, tgt_vocab)"
                )
        self.pairs = pairs
        self.batch_size = batch_size
        self.shuffle = shuffle
        self.generator = generator if generator is not None or not shuffle else torch.Generator()

    def __len__(self) -> int:
        return -(-len(self.pairs) // self.batch_size)  # ceil: the batches of one pass

    # batches[0] (a list's habit): say how to get a batch
    __getitem__ = not_subscriptable(
        "PairBatches",
        "it makes new batches on each pass, so iterate over it, for batch in batches, or take "
        "the first, batch = next(iter(batches))",
    )

    def __iter__(self) -> Iterator[PairBatch]:
        pairs, n = self.pairs, len(self.pairs)
        tie = torch.randperm(n, generator=self.generator) if self.shuffle else torch.arange(n)
        order = sorted(range(n), key=lambda i: (len(pairs[i][0]), len(pairs[i][1]), int(tie[i])))
        chunks = [order[k : k + self.batch_size] for k in range(0, n, self.batch_size)]
        if self.shuffle:
            chunks = [chunks[int(k)] for k in torch.randperm(len(chunks), generator=self.generator)]
        for chunk in chunks:
            src = _pad([pairs[i][0] for i in chunk])  # (B, S)
            tgt_in = _pad([[SOS, *pairs[i][1][:-1]] for i in chunk])  # (B, T): <sos> y1 .. yn
            tgt_out = _pad([pairs[i][1] for i in chunk])  # (B, T): y1 .. yn <eos>
            yield PairBatch(src, tgt_in, tgt_out)
