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


def test_tutorial_filter_of_raw_pairs_names_normalize():
    raw = [("I am cold.", "J'ai froid."), ("He's here!", "Il est là !")]
    with pytest.raises(ValueError, match=r"not normalised: e.g. 'I am cold.'.*normalize\(en\)"):
        tutorial_filter(raw)
    normalised = [(normalize(en), normalize(fr)) for en, fr in raw]
    assert tutorial_filter(normalised) == [
        ("i am cold", "j ai froid"),
        ("he s here !", "il est la !"),
    ]


def test_tutorial_filter_of_french_english_pairs_names_the_order():
    with pytest.raises(ValueError, match=r"\(french, english\).*for fr, en in pairs"):
        tutorial_filter([("j ai froid", "i am cold"), ("va !", "go")])


def test_tutorial_filter_keeping_nothing_of_normalised_pairs_is_no_error():
    assert tutorial_filter([("go", "va !"), ("who ?", "qui ?")]) == []
    assert tutorial_filter([]) == []


@pytest.mark.parametrize(
    "args, kwargs, error, message",
    [
        ((["i am cold"],), {}, TypeError, "item 0 is str 'i am cold': single sentences"),
        (("i am cold",), {}, TypeError, r"\(english, french\) sentence pairs, got str"),
        (([("i am", "je suis")],), {"prefixes": "i am "}, TypeError, r"prefixes=\('i am ',\)"),
        (([("i am", "je suis")],), {"prefixes": ()}, ValueError, "prefixes is empty"),
        (([("i am", "je suis")],), {"prefixes": [1]}, TypeError, r"prefixes\[0\] must be"),
        (([("i am", "je suis")],), {"max_words": 0}, ValueError, "max_words must be a positive"),
    ],
    ids=["sentences", "a string", "one prefix string", "no prefixes", "int prefix", "max_words 0"],
)
def test_tutorial_filter_says_what_it_takes(args, kwargs, error, message):
    with pytest.raises(error, match=message):
        tutorial_filter(*args, **kwargs)


@pytest.mark.parametrize(
    "text, message",
    [
        (("I am.", "Je suis."), r"each side of a pair: \(normalize\(en\), normalize\(fr\)\)"),
        (["I am.", "He is.", "Go."], r"\[normalize\(s\) for s in sentences\]"),
    ],
    ids=["a pair", "a list"],
)
def test_normalize_of_several_sentences_says_how(text, message):
    with pytest.raises(TypeError, match=message):
        normalize(text)


@pytest.mark.parametrize(
    "text, message",
    [
        (Path("eng-fra.txt.gz"), r"Read it first.*read_text\(path, ENG_FRA\)"),
        (b"Go.\tVa !\n", r"got bytes: decode it, text.decode\('utf-8'\)"),
        (None, "got NoneType"),
    ],
    ids=["a path", "bytes", "None"],
)
def test_parse_pairs_wants_the_text(text, message):
    with pytest.raises(TypeError, match=message):
        parse_pairs(text)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"path": False}, r"path must be the path .* got bool.*load_pairs\(\)"),
        ({"reverse": "fr"}, r"reverse must be True .* got str 'fr'"),
    ],
    ids=["a bool as path", "a string as reverse"],
)
def test_load_pairs_checks_its_arguments(kwargs, message):
    with pytest.raises(TypeError, match=message):
        load_pairs(**kwargs)


def test_load_pairs_of_a_folder_names_the_file_inside_and_deletes_nothing(tmp_path):
    (tmp_path / "eng-fra.txt.gz").write_bytes(b"placeholder")
    with pytest.raises(DataFileError, match=r"is a folder.*Pass the file inside it") as info:
        load_pairs(tmp_path)
    assert str(tmp_path / "eng-fra.txt.gz") in str(info.value)
    assert "delete" not in str(info.value)
    assert (tmp_path / "eng-fra.txt.gz").read_bytes() == b"placeholder"


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: split_pairs(["je suis", "il est", "va"]), TypeError, "single sentences"),
        (lambda: sentence_groups([([4, 2], [5, 2])]), TypeError, "split the pairs before"),
        (lambda: group_labels("ab"), TypeError, "got str"),
        (lambda: split_pairs([("a", "b")] * 10, fractions=(80, 10, 10)), ValueError, "percentages"),
        (lambda: split_pairs([("a", "b")] * 10, fractions=0.8), TypeError, r"\(0.8, 0.1, 0.1\)"),
        (
            lambda: split_pairs([("a", "b")] * 10, fractions=(0.8, "0.1", 0.1)),
            TypeError,
            r"holds str '0.1'",
        ),
    ],
    ids=["sentences", "ids", "a string", "percentages", "one share", "a string share"],
)
def test_splits_and_groups_say_what_they_take(call, error, message):
    with pytest.raises(error, match=message):
        call()


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


def test_group_labels_of_a_whole_split_names_its_parts():
    split = split_pairs([(f"s{i}", f"t{i}") for i in range(10)], seed=0)
    with pytest.raises(
        TypeError, match=r"got a whole Split: pass one of its parts, e.g. split.test"
    ):
        group_labels(split)


def test_normalize_names_its_argument_text():
    with pytest.raises(TypeError, match=r"^text must be one sentence \(a string\), got list"):
        normalize(["I am.", "He is."])


def test_capitalised_prefixes_are_refused_with_their_normalised_form():
    pairs = [("i am happy", "je suis content")]
    with pytest.raises(ValueError, match=r"prefixes\[1\] is 'He is ', with capitals.*'he is '"):
        tutorial_filter(pairs, prefixes=("i am ", "He is "))


def test_split_is_read_by_attribute_not_by_key_or_unpacking():
    from course_lib.tatoeba import Split

    split = Split([("a", "b")], [("c", "d")], [("e", "f")])
    with pytest.raises(TypeError, match=r"Split is not indexed.*split\.train, split\.validation"):
        split["train"]
    with pytest.raises(TypeError, match="neither a dict nor a tuple"):
        train, validation, test = split


def test_split_pairs_names_the_groups_of_sentence_groups():
    pairs = [("a", "x"), ("b", "x"), ("c", "y"), ("d", "z")]
    groups = sentence_groups(pairs)
    with pytest.raises(TypeError, match=r"groups that sentence_groups returns.*split_pairs\(pairs"):
        split_pairs(groups, seed=0)
