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

import torch
from torch import Tensor

from course_lib._validate import check_positive_int

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


class Vocab:
    """A fixed word list with the four special tokens first.

    Args:
        sentences: tokenised by spaces (normalised text, see :mod:`course_lib.tatoeba`).
        min_freq: words seen fewer times become ``<unk>``.
    """

    def __init__(self, sentences: Iterable[str], min_freq: int = 1):
        check_positive_int(min_freq, "min_freq")
        counts = Counter(word for sentence in sentences for word in sentence.split())
        clash = sorted(set(counts) & set(SPECIALS))
        if clash:
            raise ValueError(f"the sentences contain special tokens {clash}: normalise them first")
        kept = sorted(
            (w for w, n in counts.items() if n >= min_freq), key=lambda w: (-counts[w], w)
        )
        self.words: list[str] = [*SPECIALS, *kept]
        self.index: dict[str, int] = {w: i for i, w in enumerate(self.words)}

    def __len__(self) -> int:
        return len(self.words)

    def __repr__(self) -> str:
        return f"Vocab({len(self)} tokens, {len(self) - len(SPECIALS)} words)"

    def encode(
        self, sentence: str, *, sos: bool = False, eos: bool = True, max_tokens: int | None = None
    ) -> list[int]:
        """Token ids of a normalised sentence (unknown words -> ``<unk>``).

        Raises:
            ValueError: an empty sentence, or one of more than ``max_tokens`` tokens
                (counting ``<sos>``/``<eos>``) -- say which, so the caller can filter or
                raise max_tokens.
        """
        words = sentence.split()
        if not words:
            raise ValueError(f"cannot encode an empty sentence ({sentence!r})")
        ids = [SOS] * sos + [self.index.get(w, UNK) for w in words] + [EOS] * eos
        if max_tokens is not None and len(ids) > max_tokens:
            raise ValueError(
                f"{sentence!r} has {len(ids)} tokens, more than max_tokens={max_tokens}: "
                "filter long sentences or raise max_tokens"
            )
        return ids

    def decode(self, ids: Iterable[int], *, strip: bool = True) -> str:
        """Words of token ids. ``strip`` stops at ``<eos>`` and drops ``<pad>``/``<sos>``."""
        words = []
        for i in (int(i) for i in ids):
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
        return [w for w in sentence.split() if w not in self.index]


def encode_pairs(
    pairs: Iterable[tuple[str, str]], src_vocab: Vocab, tgt_vocab: Vocab
) -> list[tuple[list[int], list[int]]]:
    """``(source, target)`` sentence pairs -> ``(source ids, target ids)``, each ending in
    ``<eos>`` and without ``<sos>`` (:class:`PairBatches` adds it for teacher forcing)."""
    return [(src_vocab.encode(src), tgt_vocab.encode(tgt)) for src, tgt in pairs]


def pad(sequences: Sequence[Sequence[int]], value: int = PAD) -> Tensor:
    """``(B, L)`` long tensor, right-padded with ``value`` to the longest sequence."""
    longest = max(len(s) for s in sequences)
    out = torch.full((len(sequences), longest), value, dtype=torch.long)
    for row, seq in zip(out, sequences, strict=True):
        row[: len(seq)] = torch.as_tensor(seq, dtype=torch.long)
    return out


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

    def to(self, device: torch.device | str) -> PairBatch:
        return PairBatch(self.src.to(device), self.tgt_in.to(device), self.tgt_out.to(device))


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
    """

    def __init__(
        self,
        pairs: Sequence[tuple[Sequence[int], Sequence[int]]],
        batch_size: int,
        *,
        shuffle: bool = False,
        generator: torch.Generator | None = None,
    ) -> None:
        check_positive_int(batch_size, "batch_size")
        if not pairs:
            raise ValueError("no pairs to batch")
        for src, tgt in pairs:
            if not len(src) or not len(tgt) or tgt[-1] != EOS:
                raise ValueError(
                    "every pair needs a non-empty source and a target ending in <eos>: encode "
                    f"targets with Vocab.encode(..., eos=True); got {list(src)}, {list(tgt)}"
                )
        self.pairs = pairs
        self.batch_size = batch_size
        self.shuffle = shuffle
        self.generator = generator if generator is not None or not shuffle else torch.Generator()

    def __len__(self) -> int:
        return -(-len(self.pairs) // self.batch_size)  # ceil: the batches of one pass

    def __iter__(self) -> Iterator[PairBatch]:
        pairs, n = self.pairs, len(self.pairs)
        tie = torch.randperm(n, generator=self.generator) if self.shuffle else torch.arange(n)
        order = sorted(range(n), key=lambda i: (len(pairs[i][0]), len(pairs[i][1]), int(tie[i])))
        chunks = [order[k : k + self.batch_size] for k in range(0, n, self.batch_size)]
        if self.shuffle:
            chunks = [chunks[int(k)] for k in torch.randperm(len(chunks), generator=self.generator)]
        for chunk in chunks:
            src = pad([pairs[i][0] for i in chunk])  # (B, S)
            tgt_in = pad([[SOS, *pairs[i][1][:-1]] for i in chunk])  # (B, T): <sos> y1 .. yn
            tgt_out = pad([pairs[i][1] for i in chunk])  # (B, T): y1 .. yn <eos>
            yield PairBatch(src, tgt_in, tgt_out)
