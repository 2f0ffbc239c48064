"""Words to token ids and back, and padded, length-bucketed batches of sentence pairs.

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

__all__ = ["PAD", "SOS", "EOS", "UNK", "SPECIALS", "Vocab", "PairBatch", "pad", "pair_batches"]

PAD, SOS, EOS, UNK = 0, 1, 2, 3
SPECIALS = ("<pad>", "<sos>", "<eos>", "<unk>")


class Vocab:
    """A fixed word list with the four special tokens first.

    Args:
        sentences: tokenised by spaces (normalised text, see :mod:`course_lib.tatoeba`).
        min_freq: words seen fewer times become ``<unk>``.
    """

    def __init__(self, sentences: Iterable[str], min_freq: int = 1):
        if isinstance(min_freq, bool) or not isinstance(min_freq, int) or min_freq < 1:
            raise ValueError(f"min_freq must be a positive integer, got {min_freq!r}")
        counts = Counter(word for sentence in sentences for word in sentence.split())
        clash = sorted(set(counts) & set(SPECIALS))
        if clash:
            raise ValueError(f"the sentences contain special tokens {clash}: normalise them first")
        kept = sorted(
            (w for w, n in counts.items() if n >= min_freq), key=lambda w: (-counts[w], w)
        )
        self.words: list[str] = [*SPECIALS, *kept]
        self.index: dict[str, int] = {w: i for i, w in enumerate(self.words)}
        self.counts = counts

    def __len__(self) -> int:
        return len(self.words)

    def __repr__(self) -> str:
        return f"Vocab({len(self)} tokens, {len(self) - len(SPECIALS)} words)"

    def special(self, name: str) -> int:
        """The id of a special token by name, e.g. ``vocab.special("<eos>")``."""
        if name not in SPECIALS:
            raise KeyError(f"{name!r} is not a special token; they are {SPECIALS}")
        return SPECIALS.index(name)

    def encode(
        self, sentence: str, *, sos: bool = False, eos: bool = True, max_len: int | None = None
    ) -> list[int]:
        """Token ids of a normalised sentence (unknown words -> ``<unk>``).

        Raises:
            ValueError: an empty sentence, or one longer than ``max_len`` tokens (counting
                ``<sos>``/``<eos>``) -- say which, so the caller can filter or raise max_len.
        """
        words = sentence.split()
        if not words:
            raise ValueError(f"cannot encode an empty sentence ({sentence!r})")
        ids = [SOS] * sos + [self.index.get(w, UNK) for w in words] + [EOS] * eos
        if max_len is not None and len(ids) > max_len:
            raise ValueError(
                f"{sentence!r} has {len(ids)} tokens, more than max_len={max_len}: "
                "filter long sentences or raise max_len"
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

    @property
    def src_key_padding_mask(self) -> Tensor:  # (B, S), True = padding
        return self.src == PAD

    @property
    def tgt_key_padding_mask(self) -> Tensor:  # (B, T), True = padding
        return self.tgt_in == PAD

    def to(self, device: torch.device | str) -> PairBatch:
        return PairBatch(self.src.to(device), self.tgt_in.to(device), self.tgt_out.to(device))


def pair_batches(
    pairs: Sequence[tuple[Sequence[int], Sequence[int]]],
    batch_size: int,
    *,
    shuffle: bool = False,
    generator: torch.Generator | None = None,
) -> Iterator[PairBatch]:
    """Length-bucketed batches: pairs of similar source length share a batch, so little
    padding is computed. With ``shuffle`` the batches come in a random order (drawn from
    ``generator``), and pairs of equal length in a random order within their bucket.

    Args:
        pairs: ``(source ids, target ids)``; targets end with ``<eos>`` and have no ``<sos>``.
    """
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise ValueError(f"batch_size must be a positive integer, got {batch_size!r}")
    if not pairs:
        raise ValueError("no pairs to batch")
    for src, tgt in pairs:
        if not len(src) or not len(tgt) or tgt[-1] != EOS:
            raise ValueError(
                "every pair needs a non-empty source and a target ending in <eos>: encode "
                f"targets with Vocab.encode(..., eos=True); got {list(src)}, {list(tgt)}"
            )
    n = len(pairs)
    tie = torch.randperm(n, generator=generator) if shuffle else torch.arange(n)
    order = sorted(range(n), key=lambda i: (len(pairs[i][0]), len(pairs[i][1]), int(tie[i])))
    chunks = [order[k : k + batch_size] for k in range(0, n, batch_size)]
    if shuffle:
        chunks = [chunks[int(k)] for k in torch.randperm(len(chunks), generator=generator)]
    for chunk in chunks:
        src = pad([pairs[i][0] for i in chunk])
        tgt_in = pad([[SOS, *pairs[i][1][:-1]] for i in chunk])
        tgt_out = pad([pairs[i][1] for i in chunk])
        yield PairBatch(src, tgt_in, tgt_out)
