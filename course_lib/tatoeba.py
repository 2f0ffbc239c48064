"""The Tatoeba English-French pairs: reading, normalising, filtering and splitting.

The file ``eng-fra.txt`` holds one pair per line, ``English<TAB>French`` (newer releases add a
third column with the contributors' attribution; it is ignored). It comes through
:mod:`course_lib.datafiles`, which verifies its checksum.

The course follows the PyTorch translation tutorial's protocol, fixed once:

* **normalisation** (:func:`normalize`): Unicode folded to ASCII (accents dropped), lower
  case, ``!`` and ``?`` split off as tokens, every other run of non-letters -- full stops,
  apostrophes, digits, the no-break spaces French puts before ``!`` -- one plain space;
* **filter** (:func:`tutorial_filter`): both sides shorter than 10 words and the English side
  starting with "i am", "he is", ... (11,445 pairs of this file);
* **direction** French -> English; a seeded split of about **80/10/10** in which pairs that
  share a sentence stay together (:func:`split_pairs`), so that no test sentence -- French
  or English -- was seen in training.

The vocabulary is then built from the training split alone (:mod:`course_lib.vocab`);
settings are chosen on validation, and the test split gives the final figures.
"""

from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from numbers import Real
from pathlib import Path

import numpy as np

from course_lib._foreign_names import explains_bad_calls, explains_class, not_subscriptable
from course_lib._validate_basics import check_positive_int, check_seed, check_type, type_name
from course_lib.datafiles import ENG_FRA, DataFileError, load_text, read_text

__all__ = [
    "ENGLISH_PREFIXES",
    "Split",
    "group_labels",
    "load_pairs",
    "normalize",
    "parse_pairs",
    "sentence_groups",
    "split_pairs",
    "tutorial_filter",
]

#: The tutorial's English openings ("i m" is "i'm" after normalisation).
ENGLISH_PREFIXES = (
    "i am ",
    "i m ",
    "he is",
    "he s ",
    "she is",
    "she s ",
    "you are",
    "you re ",
    "we are",
    "we re ",
    "they are",
    "they re ",
)

_SPLIT_OFF = re.compile(r"([.!?])")
_NON_LETTERS = re.compile(r"[^a-zA-Z!?]+")


@explains_bad_calls()
def normalize(text: str) -> str:
    """Lower-case ASCII words, with ``!`` and ``?`` as tokens of their own.

    >>> normalize("Ça alors\u202f!")
    'ca alors !'
    >>> normalize("I'm sure he's right.")
    'i m sure he s right'

    Raises:
        TypeError: ``text`` is not one string (a pair, a list of sentences, None).
    """
    if not isinstance(text, str):
        if isinstance(text, tuple) and len(text) == 2:
            fix = "Normalise each side of a pair: (normalize(en), normalize(fr))"
        elif isinstance(text, (list, tuple)):
            fix = "Normalise each sentence: [normalize(s) for s in sentences]"
        else:
            fix = "Pass one sentence"
        raise TypeError(f"text must be one sentence (a string), got {type_name(text)}. {fix}")
    folded = "".join(
        ch
        for ch in unicodedata.normalize("NFD", text.lower().strip())
        if unicodedata.category(ch) != "Mn"  # drop the combining accents NFD split off
    )
    spaced = _SPLIT_OFF.sub(r" \1", folded)
    return _NON_LETTERS.sub(" ", spaced).strip()


@explains_bad_calls()
def parse_pairs(text: str, source: str = "eng-fra.txt") -> list[tuple[str, str]]:
    """``(english, french)`` pairs from the file's text, exactly as written (not normalised).

    Raises:
        TypeError: ``text`` is not the text itself (a path, bytes, a list of lines).
        DataFileError: a line without a tab, or with an empty side; the message names the
            line, so a damaged or foreign file is caught before training.
    """
    if isinstance(text, bytes):
        raise TypeError(
            "text must be the file's text (a str), got bytes: decode it, text.decode('utf-8')"
        )
    if isinstance(text, os.PathLike):
        fix = "Read it first, parse_pairs(read_text(path, ENG_FRA)), or call load_pairs(path)"
    else:
        fix = "Pass the whole text, e.g. parse_pairs(load_text())"
    check_type(text, "text", str, "the file's text (a str)", fix)
    pairs = []
    for number, line in enumerate(text.splitlines(), start=1):
        fields = line.split("\t")
        if len(fields) < 2 or not fields[0].strip() or not fields[1].strip():
            raise DataFileError(
                f"{source}, line {number}: expected 'English<TAB>French', got {line[:80]!r}. "
                "Is this the Tatoeba eng-fra file?"
            )
        pairs.append((fields[0], fields[1]))  # a third column (attribution) is ignored
    if not pairs:
        raise DataFileError(f"{source} holds no sentence pairs")
    return pairs


def _pair_list(pairs: object, name: str = "pairs", order: str = "(source, target)") -> list:
    """``pairs`` as a list of sentence pairs (tuples of two strings), or a TypeError
    naming what came instead."""
    what = f"a list of {order} sentence pairs"
    if isinstance(pairs, Split):
        raise TypeError(
            f"{name} must be {what}, got a whole Split: pass one of its parts, e.g. "
            "split.test (or split.train, split.validation)"
        )
    if isinstance(pairs, (str, bytes)) or not isinstance(pairs, Iterable):
        raise TypeError(f"{name} must be {what}, got {type_name(pairs)}")
    pairs = pairs if isinstance(pairs, list) else list(pairs)
    for k, pair in enumerate(pairs):
        if (
            isinstance(pair, (tuple, list))
            and len(pair) == 2
            and isinstance(pair[0], str)
            and isinstance(pair[1], str)
        ):
            continue
        if _index_groups(pairs):
            raise TypeError(
                f"{name} must be {what}, but it holds lists of integers, item {k} "
                f"{pair!r}: the groups that sentence_groups returns (indices into the pairs), "
                f"not the pairs. Pass the sentence pairs themselves, e.g. split_pairs(pairs, "
                f"seed=0), which forms the groups itself"
            )
        if isinstance(pair, str):
            fix = "single sentences, not pairs: pass the pairs themselves"
        elif isinstance(pair, (tuple, list)) and len(pair) == 2:
            fix = "a pair holds two sentences (strings): split the pairs before encoding them"
        else:
            fix = "each pair is a tuple of two sentences"
        raise TypeError(f"{name} must be {what}, but item {k} is {type_name(pair)}: {fix}")
    return pairs


def _index_groups(items: list) -> bool:
    """``items`` is a list of lists of integers that together number ``0 .. n - 1`` once
    each: the groups :func:`sentence_groups` returns (read only when a check has failed)."""
    indices: list = []
    for group in items:
        if not isinstance(group, (list, tuple)) or not group:
            return False
        if not all(isinstance(i, (int, np.integer)) and not isinstance(i, bool) for i in group):
            return False
        indices.extend(group)
    return sorted(indices) == list(range(len(indices)))


def _explain_nothing_kept(pairs: list, prefixes: tuple[str, ...]) -> None:
    """Raise when no pair passed the filter because of a slip: unnormalised text, or
    pairs in the other order. Normalised pairs that simply do not match pass."""
    raw = next(((en, fr) for en, fr in pairs if normalize(en) != en or normalize(fr) != fr), None)
    if raw is not None:
        raise ValueError(
            f"no pair passed the filter, and the pairs are not normalised: e.g. {raw[0]!r} "
            f"(normalize gives {normalize(raw[0])!r}). The filter compares normalised "
            "words: tutorial_filter([(normalize(en), normalize(fr)) for en, fr in pairs])"
        )
    swapped = sum(fr.startswith(prefixes) for _, fr in pairs)
    if swapped:
        raise ValueError(
            f"no pair passed the filter, but {swapped} pair(s) have an English opening on "
            "their second side: the pairs look like (french, english) (as load_pairs() "
            "gives them), and tutorial_filter takes (english, french): "
            "tutorial_filter([(en, fr) for fr, en in pairs])"
        )


@explains_bad_calls()
def tutorial_filter(
    pairs: Sequence[tuple[str, str]],
    max_words: int = 10,
    prefixes: Sequence[str] = ENGLISH_PREFIXES,
) -> list[tuple[str, str]]:
    """Keep normalised ``(english, french)`` pairs shorter than ``max_words`` words on both
    sides whose English side starts with one of ``prefixes``.

    Raises:
        TypeError: ``pairs`` does not hold pairs of sentences, or ``prefixes`` is one
            string (each of its letters would be an opening) or holds something else.
        ValueError: ``max_words`` is not a positive integer, ``prefixes`` is empty, or no
            pair passed because the pairs are not normalised (see :func:`normalize`) or
            are in the order (french, english).
    """
    pairs = _pair_list(pairs, order="(english, french)")
    check_positive_int(max_words, "max_words")
    if isinstance(prefixes, str):
        raise TypeError(
            f"prefixes must be a sequence of openings, got one {type_name(prefixes)}, each "
            f"of whose letters would count as an opening: wrap it, prefixes=({prefixes!r},)"
        )
    prefixes = tuple(prefixes)
    if not prefixes:
        raise ValueError("prefixes is empty, so no pair could pass: give at least one opening")
    for k, prefix in enumerate(prefixes):
        check_type(prefix, f"prefixes[{k}]", str, "a string such as 'i am '")
        if prefix != prefix.lower():
            raise ValueError(
                f"prefixes[{k}] is {prefix!r}, with capitals, but tutorial_filter reads "
                f"normalised pairs, which are lower case, so it could never match: write the "
                f"prefixes normalised too, {prefix.lower()!r}"
            )
    kept = [
        (eng, fra)
        for eng, fra in pairs
        if len(eng.split(" ")) < max_words
        and len(fra.split(" ")) < max_words
        and eng.startswith(prefixes)
    ]
    if not kept and pairs:
        _explain_nothing_kept(pairs, prefixes)
    return kept


@explains_bad_calls()
def load_pairs(path: str | Path | None = None, *, reverse: bool = True) -> list[tuple[str, str]]:
    """The course's sentence pairs: read, normalised, filtered; ``(source, target)``.

    Args:
        path: a gzip copy of ``eng-fra.txt``; by default
            :func:`course_lib.datafiles.load_text` finds (or downloads) it. Either way its
            checksum is verified.
        reverse: ``True`` (default) gives French -> English, ``(french, english)``.

    Returns:
        11,445 pairs for the course's file, in file order.

    Raises:
        TypeError: ``path`` is not a path (a str or ``Path``) or ``None``, or ``reverse``
            is not a bool.
        DataFileError: the file is missing, a folder, or not the course's file (see
            :func:`course_lib.datafiles.read_text`).
    """
    check_type(
        path,
        "path",
        (str, os.PathLike, type(None)),
        "the path of a gzip copy of eng-fra.txt (a str or Path), or None",
        "Leave it out to use the course's verified copy: load_pairs()",
    )
    if not isinstance(reverse, bool):
        raise TypeError(
            f"reverse must be True (french, english) or False (english, french), got "
            f"{type_name(reverse)}"
        )
    if path is None:
        raw = parse_pairs(load_text(ENG_FRA), source=ENG_FRA.filename)
    else:
        raw = parse_pairs(read_text(Path(path), ENG_FRA), source=str(path))
    kept = tutorial_filter([(normalize(eng), normalize(fra)) for eng, fra in raw])
    return [(fra, eng) for eng, fra in kept] if reverse else kept


@explains_class
@dataclass(frozen=True)
class Split:
    """Training, validation and test pairs; no sentence of one split occurs in another."""

    train: list[tuple[str, str]]
    validation: list[tuple[str, str]]
    test: list[tuple[str, str]]

    # split["train"] or train, val, test = split (a dict's or a tuple's habit): say how
    __getitem__ = not_subscriptable(
        "Split",
        "it holds three lists of pairs as attributes, split.train, split.validation and "
        "split.test (it is neither a dict nor a tuple to unpack)",
    )


@explains_bad_calls()
def sentence_groups(pairs: Sequence[tuple[str, str]]) -> list[list[int]]:
    """Indices of ``pairs`` grouped so that pairs sharing a sentence are in one group.

    Two pairs are linked when they have the same source sentence or the same target
    sentence; a group is a connected component of that relation (so "tu es trop maigre" /
    "vous etes trop maigre", both "you re too skinny", are one group, and so is every pair
    linked to them through a further shared sentence). Groups come in the order of their
    first pair; indices within a group are ascending.

    Raises:
        TypeError: ``pairs`` does not hold pairs of sentences (strings).
    """
    pairs = _pair_list(pairs)
    parent = list(range(len(pairs)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]  # path halving
            i = parent[i]
        return i

    first_seen: dict[tuple[int, str], int] = {}  # (side, sentence) -> first pair holding it
    for i, pair in enumerate(pairs):
        for side, sentence in enumerate(pair):
            j = first_seen.setdefault((side, sentence), i)
            parent[root(i)] = root(j)
    groups: dict[int, list[int]] = {}
    for i in range(len(pairs)):
        groups.setdefault(root(i), []).append(i)
    return list(groups.values())


@explains_bad_calls()
def group_labels(pairs: Sequence[tuple[str, str]]) -> list[int]:
    """One label per pair: the number of its group in :func:`sentence_groups`.

    The form the metrics' ``groups=`` takes, so that a bootstrap resamples whole groups::

        corpus_bleu(hypotheses, references, n_bootstrap=1000,
                    groups=group_labels(split.test))

    Raises:
        TypeError: ``pairs`` is not a list of sentence pairs (a whole :class:`Split`, a
            list of sentences).
    """
    pairs = _pair_list(pairs)
    labels = [0] * len(pairs)
    for number, members in enumerate(sentence_groups(pairs)):
        for i in members:
            labels[i] = number
    return labels


def _check_fractions(fractions: object) -> None:
    usual = "three shares (train, validation, test) such as (0.8, 0.1, 0.1)"
    if isinstance(fractions, (str, bytes)) or not isinstance(fractions, Sequence):
        raise TypeError(f"fractions must be {usual}, got {type_name(fractions)}")
    for f in fractions:
        if isinstance(f, bool) or not isinstance(f, Real):
            raise TypeError(f"fractions must be {usual}, but it holds {type_name(f)}")
    if len(fractions) != 3 or any(f < 0 for f in fractions) or abs(sum(fractions) - 1) > 1e-9:
        hint = (
            ": these look like percentages; divide them by 100"
            if len(fractions) == 3 and abs(sum(fractions) - 100) < 1e-6
            else ""
        )
        raise ValueError(
            f"fractions must be three non-negative shares summing to 1, got "
            f"{tuple(fractions)}{hint}"
        )


@explains_bad_calls(
    random_state="split_pairs calls scikit-learn's random_state seed=: split_pairs(pairs, seed=0)",
    test_size="split_pairs takes the three shares as fractions=(train, validation, test), e.g. fractions=(0.8, 0.1, 0.1)",
    train_size="split_pairs takes the three shares as fractions=(train, validation, test), e.g. fractions=(0.8, 0.1, 0.1)",
    shuffle="split_pairs always shuffles (whole groups of sentences, in an order set by seed=)",
)
def split_pairs(
    pairs: Sequence[tuple[str, str]],
    seed: int = 0,
    fractions: tuple[float, float, float] = (0.8, 0.1, 0.1),
) -> Split:
    """A seeded split by **sentence**, not by pair: no sentence crosses a split boundary.

    Tatoeba translates one sentence many ways ("je suis desole" / "je suis desolee" /
    "desole" -> "i m sorry"). Split by pair, the variants of one sentence land on both sides,
    and the test set measures memory: with the course's file, 53 % of the test references of
    a pair-wise split are training targets word for word. Here the pairs that share a
    source or a target sentence form one group (:func:`sentence_groups`), the groups are
    shuffled with ``seed``, and whole groups fill training until it holds ``fractions[0]``
    of the pairs, then validation up to ``fractions[0] + fractions[1]``; the test split takes
    the rest. So the shares are close to, not exactly, ``fractions``. Within a split, pairs
    keep the order of their groups.

    For the course's 11,445 pairs (6,533 groups, the largest 36 pairs) and seed 0:
    9,156 / 1,145 / 1,144 pairs.

    Raises:
        TypeError: ``pairs`` does not hold pairs of sentences, ``seed`` is not an integer,
            or ``fractions`` is not a sequence of numbers.
        ValueError: fewer than 3 pairs, a negative seed, or ``fractions`` that are not
            three non-negative shares summing to 1 (percentages are refused).
    """
    pairs = _pair_list(pairs)
    seed = check_seed(seed)
    _check_fractions(fractions)
    if len(pairs) < 3:
        raise ValueError(f"need at least 3 pairs to split, got {len(pairs)}")
    groups = sentence_groups(pairs)
    order = np.random.default_rng(seed).permutation(len(groups))
    bounds = (fractions[0] * len(pairs), (fractions[0] + fractions[1]) * len(pairs))
    parts: tuple[list, list, list] = ([], [], [])
    taken = 0
    for g in order:
        part = 0 if taken < bounds[0] else 1 if taken < bounds[1] else 2
        parts[part].extend(pairs[i] for i in groups[g])
        taken += len(groups[g])
    return Split(*parts)
