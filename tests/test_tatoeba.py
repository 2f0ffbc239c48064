"""The Tatoeba pairs: normalisation, the tutorial's filter, parsing and the split."""

import os
import random
from pathlib import Path

import pytest

from course_lib.datafiles import DataFileError
from course_lib.tatoeba import (
    Split,
    group_labels,
    load_pairs,
    normalize,
    parse_pairs,
    sentence_groups,
    split_pairs,
    tutorial_filter,
)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Go.", "go"),
        ("Cours\u202f!", "cours !"),  # narrow no-break space before "!"
        ("Ça alors\u00a0!", "ca alors !"),  # no-break space, cedilla folded
        (
            "Je suis désolé si c'est une question idiote.",
            "je suis desole si c est une question idiote",
        ),
        ("I’m 25 years old.", "i m years old"),  # typographic apostrophe, digits
        ("Vous êtes trop maigre.", "vous etes trop maigre"),
        ("  Who?!  ", "who ? !"),
    ],
)
def test_normalize(text, expected):
    assert normalize(text) == expected


def test_normalize_wants_text():
    with pytest.raises(TypeError, match="string"):
        normalize(None)


def test_parse_pairs_takes_two_or_three_columns():
    text = "Go.\tVa !\nHi.\tSalut !\tCC-BY 2.0 (France) Attribution: tatoeba.org #2877272\n"
    assert parse_pairs(text) == [("Go.", "Va !"), ("Hi.", "Salut !")]


@pytest.mark.parametrize("text", ["Go. Va !\n", "Go.\t\n", "\n", ""])
def test_parse_pairs_rejects_foreign_lines(text):
    with pytest.raises(DataFileError, match="English<TAB>French|no sentence pairs"):
        parse_pairs(text)


def test_tutorial_filter():
    pairs = [
        ("i m ok", "je vais bien"),
        ("he is a very very very very very very good boy", "il est bon"),  # 11 words
        ("go", "va !"),  # no prefix
        ("they are here", "ils sont la"),
        ("i amuse myself", "je m amuse"),  # "i am " needs the space
    ]
    assert tutorial_filter(pairs) == [pairs[0], pairs[3]]


def leaks(split):
    """Validation or test sentences (either side) that also occur in training."""
    seen = {(side, sentence) for pair in split.train for side, sentence in enumerate(pair)}
    return [
        pair
        for pair in split.validation + split.test
        if any((side, sentence) in seen for side, sentence in enumerate(pair))
    ]


def test_split_of_distinct_pairs_is_seeded_disjoint_and_80_10_10():
    pairs = [(f"s{i}", f"t{i}") for i in range(11445)]  # every pair its own group
    split = split_pairs(pairs, seed=0)
    assert isinstance(split, Split)
    assert (len(split.train), len(split.validation), len(split.test)) == (9156, 1145, 1144)
    assert sorted(split.train + split.validation + split.test) == sorted(pairs)
    assert split == split_pairs(pairs, seed=0)
    assert split.test != split_pairs(pairs, seed=1).test


def test_sentence_groups_are_the_connected_components():
    pairs = [
        ("tu es trop maigre", "you re too skinny"),  # 0
        ("vous etes trop maigre", "you re too skinny"),  # 1: same English as 0
        ("vous etes trop maigre", "you are too thin"),  # 2: same French as 1
        ("je vais bien", "i m ok"),  # 3: alone
        ("tu es maigre", "you are too thin"),  # 4: same English as 2 -> joins 0, 1, 2
        ("i m ok", "je vais bien"),  # 5: the sides are not mixed up: alone
    ]
    assert sentence_groups(pairs) == [[0, 1, 2, 4], [3], [5]]
    assert group_labels(pairs) == [0, 0, 0, 1, 0, 2]


def test_split_keeps_every_sentence_on_one_side():
    rng = random.Random(0)
    # many variants of few sentences: a pair-wise split would leak most of them
    pairs = [(f"fr{rng.randrange(8000)}", f"en{rng.randrange(4000)}") for _ in range(2000)]
    for seed in range(3):
        split = split_pairs(pairs, seed=seed)
        assert leaks(split) == []
        assert sorted(split.train + split.validation + split.test) == sorted(pairs)
        assert 0.78 < len(split.train) / len(pairs) < 0.85 and len(split.test) > 100
        assert split == split_pairs(pairs, seed=seed)  # deterministic for a seed
    assert split_pairs(pairs, seed=0) != split_pairs(pairs, seed=1)


@pytest.mark.parametrize(
    "kwargs, error",
    [
        ({"seed": 1.5}, TypeError),
        ({"seed": "0"}, TypeError),
        ({"fractions": (0.8, 0.1)}, ValueError),
        ({"fractions": (0.9, 0.2, -0.1)}, ValueError),
    ],
)
def test_split_rejects_bad_arguments(kwargs, error):
    with pytest.raises(error):
        split_pairs([("a", "b")] * 10, **kwargs)


def local_copy() -> Path | None:
    folder = os.environ.get("COURSE_DATA_DIR")
    path = Path(folder) / "eng-fra.txt.gz" if folder else None
    return path if path and path.exists() else None


@pytest.mark.skipif(local_copy() is None, reason="no local eng-fra.txt.gz (set COURSE_DATA_DIR)")
def test_the_real_file_gives_the_tutorials_pairs():
    pairs = load_pairs(local_copy())
    assert len(pairs) == 11445  # the current PyTorch tutorial's "Trimmed to 11445"
    assert pairs[0] == ("je vais bien", "i m ok")  # French -> English
    assert len(sentence_groups(pairs)) == 6533
    assert max(len(g) for g in sentence_groups(pairs)) == 36
    split = split_pairs(pairs, seed=0)
    assert (len(split.train), len(split.validation), len(split.test)) == (9156, 1145, 1144)
    assert leaks(split) == []
    english = load_pairs(local_copy(), reverse=False)
    assert english[0] == ("i m ok", "je vais bien")


@pytest.mark.skipif(local_copy() is None, reason="no local eng-fra.txt.gz (set COURSE_DATA_DIR)")
def test_load_pairs_without_a_path_reads_the_course_copy():
    assert load_pairs() == load_pairs(local_copy())


def test_the_docstring_examples_hold():
    import doctest

    import course_lib.tatoeba

    result = doctest.testmod(course_lib.tatoeba)
    assert result.attempted >= 2 and result.failed == 0
