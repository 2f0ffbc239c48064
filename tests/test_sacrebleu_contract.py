"""course_lib._sacrebleu against sacrebleu's public API: fails, naming the installed version,
when a sacrebleu release moves the internals the bootstrap intervals rely on."""

from __future__ import annotations

import importlib.metadata
import re
from pathlib import Path

import numpy as np
import pytest
import sacrebleu

from course_lib import _sacrebleu
from course_lib._sacrebleu import (
    grouped_corpus_score,
    interval_half_width,
    score_from_statistics,
    sentence_statistics,
)

VERSION = sacrebleu.__version__
REFS = ["the cat sat on the mat", "i am cold", "he is the teacher", "we re here", "go"] * 3
HYPS = ["the cat sat on a mat", "i am cold", "he teacher", "", "go now"] * 3
METRICS = {"BLEU": lambda: sacrebleu.BLEU(tokenize="13a"), "chrF": sacrebleu.CHRF}


@pytest.mark.parametrize("name", sorted(METRICS))
def test_summed_sentence_statistics_give_the_public_corpus_score(name):
    metric = METRICS[name]()
    stats = sentence_statistics(metric, HYPS, REFS)
    assert stats.shape[0] == len(REFS), f"sacrebleu {VERSION}: one row per sentence expected"
    expected = METRICS[name]().corpus_score(HYPS, [REFS]).score
    got = score_from_statistics(metric, stats.sum(0))
    assert got == pytest.approx(expected), f"sacrebleu {VERSION} changed its {name} statistics"


def test_the_interval_is_the_one_sacrebleu_prints():
    result = sacrebleu.BLEU().corpus_score(HYPS, [REFS], n_bootstrap=200)
    half = interval_half_width(result)
    # the public score line prints "(mu = ... +- half)" with sacrebleu's own rounding
    printed = re.search(r"± ([\d.]+)\)", str(result))
    assert printed and float(printed.group(1)) == pytest.approx(half, abs=0.006), (
        f"sacrebleu {VERSION}: interval {half} not in its score line {result}"
    )


@pytest.mark.parametrize("name", sorted(METRICS))
def test_one_group_per_sentence_is_the_public_bootstrap(name):
    # sacrebleu's own resampling, handed the groups' statistics: with one group per
    # sentence, every field of the public corpus_score(n_bootstrap=...) is reproduced
    metric = METRICS[name]()
    grouped = grouped_corpus_score(metric, HYPS, REFS, np.arange(len(REFS)), 200)
    public_metric = METRICS[name]()
    public = public_metric.corpus_score(HYPS, [REFS], n_bootstrap=200)
    assert interval_half_width(grouped) == interval_half_width(public), (
        f"sacrebleu {VERSION} changed how it resamples or reads its interval"
    )
    assert str(grouped) == str(public) and grouped.score == public.score
    assert str(metric.get_signature()) == str(public_metric.get_signature())
    # groups change the interval only, never the score of the whole corpus
    grouped = grouped_corpus_score(METRICS[name](), HYPS, REFS, np.arange(len(REFS)) % 5, 200)
    assert grouped.score == public.score


def test_installed_sacrebleu_is_a_tested_release():
    requirement = next(
        r for r in importlib.metadata.requires("course-lib") or [] if r.startswith("sacrebleu")
    )
    bounds = dict(re.findall(r"([<>]=?)([\d.]+)", requirement))  # {">=": "2.3", "<": "2.7"}
    low, high = bounds[">="], bounds["<"]
    as_tuple = lambda v: tuple(int(x) for x in v.split(".")[:3])  # noqa: E731
    assert as_tuple(low) <= as_tuple(VERSION) < as_tuple(high), (
        f"sacrebleu {VERSION} is outside the tested range {requirement}"
    )
    # the docstring's and the message's range is pyproject's
    assert _sacrebleu.TESTED.startswith(low), (_sacrebleu.TESTED, requirement)
    text = Path(__file__).resolve().parents[1].joinpath("pyproject.toml").read_text()
    assert f'"sacrebleu>={low},<{high}"' in text, "pyproject.toml and the installed metadata differ"


def test_moved_internals_fail_loudly_naming_the_version():
    class Moved:  # a metric from a future release without the private methods
        pass

    for call in (
        lambda: sentence_statistics(Moved(), HYPS, REFS),
        lambda: score_from_statistics(Moved(), [0.0]),
        lambda: interval_half_width(Moved()),
        lambda: grouped_corpus_score(Moved(), HYPS, REFS, np.arange(len(REFS)), 2),
    ):
        with pytest.raises(RuntimeError, match=rf"sacrebleu {re.escape(VERSION)} no longer"):
            call()
