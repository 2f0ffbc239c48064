"""BLEU and chrF through sacrebleu, their intervals, paired comparisons, exact matches
and perplexity."""

import math

import pytest
import sacrebleu

from course_lib.metrics import (
    corpus_bleu,
    corpus_chrf,
    exact_match,
    paired_bootstrap,
    perplexity,
)

HYP = ["i am cold", "he is a teacher", "you are late"]
REF = ["i am cold", "he is the teacher", "you are very late"]


def test_bleu_is_sacrebleus_corpus_bleu_with_its_signature():
    result = corpus_bleu(HYP, REF)
    expected = sacrebleu.corpus_bleu(HYP, [REF], tokenize="13a")
    assert result.score == pytest.approx(expected.score)
    assert result.line.startswith("BLEU = ") and str(expected) == result.line
    assert "tok:13a" in result.signature and "nrefs:1" in result.signature
    assert corpus_bleu(REF, REF).score == pytest.approx(100.0)


@pytest.mark.parametrize(
    "hyp, ref, error",
    [
        (HYP, REF[:2], ValueError),
        ([], [], ValueError),
        ("i am cold", "i am cold", TypeError),
    ],
)
def test_bleu_rejects_mismatched_corpora(hyp, ref, error):
    with pytest.raises(error):
        corpus_bleu(hyp, ref)


def test_exact_match_and_perplexity():
    assert exact_match(HYP, REF) == pytest.approx(1 / 3)
    assert perplexity(3 * math.log(4), 3) == pytest.approx(4.0)
    with pytest.raises(ValueError, match="n_tokens"):
        perplexity(1.0, 0)
    with pytest.raises(ValueError, match="finite"):
        perplexity(float("nan"), 3)


# a corpus large enough for resampling: 4 sentence kinds x 50
REFS = ["i am cold", "he is the teacher", "you are very late", "we re here"] * 50
GOOD = ["i am cold", "he is a teacher", "you are late", "we re here"] * 50
WORSE = ["i am cold", "he is teacher", "you late", "we here"] * 50


def test_bootstrap_intervals_are_sacrebleus():
    bleu = corpus_bleu(GOOD, REFS, n_bootstrap=1000)
    expected = sacrebleu.BLEU(tokenize="13a").corpus_score(GOOD, [REFS], n_bootstrap=1000)
    assert bleu.score == pytest.approx(expected.score) and bleu.ci == pytest.approx(expected._ci)
    assert 0 < bleu.ci < 10 and "bs:1000" in bleu.signature
    assert corpus_bleu(GOOD, REFS).ci is None
    chrf = corpus_chrf(GOOD, REFS, n_bootstrap=1000)
    assert chrf.score == pytest.approx(sacrebleu.CHRF().corpus_score(GOOD, [REFS]).score)
    assert chrf.name == "chrF" and chrf.line.startswith("chrF2 = ") and chrf.ci > 0
    with pytest.raises(ValueError, match="n_bootstrap"):
        corpus_bleu(GOOD, REFS, n_bootstrap=1)


@pytest.mark.parametrize("metric, score", [("BLEU", corpus_bleu), ("chrF", corpus_chrf)])
def test_paired_bootstrap_tells_a_real_difference_from_none(metric, score):
    better = paired_bootstrap(GOOD, WORSE, REFS, metric=metric)
    assert better.a == pytest.approx(score(GOOD, REFS).score)
    assert better.b == pytest.approx(score(WORSE, REFS).score)
    assert better.delta == pytest.approx(better.a - better.b) and better.delta > 0
    assert better.low <= better.delta <= better.high
    assert better.significant and better.p_value < 0.01
    worse = paired_bootstrap(WORSE, GOOD, REFS, metric=metric)
    assert worse.delta == pytest.approx(-better.delta) and worse.significant
    same = paired_bootstrap(GOOD, GOOD, REFS, metric=metric)
    assert same.delta == 0 and not same.significant and same.p_value == 1
    assert paired_bootstrap(GOOD, WORSE, REFS, metric=metric) == better  # seeded


def test_paired_bootstrap_finds_no_difference_in_noise():
    # the two systems differ on 2 sentences of 200, one each way: not significant
    a, b = list(GOOD), list(GOOD)
    a[1], b[2] = "he is the teacher", "you are very late"
    result = paired_bootstrap(a, b, REFS)
    assert not result.significant and result.p_value > 0.05
    assert "95 % CI" in str(result)


@pytest.mark.parametrize(
    "kwargs, error",
    [
        ({"metric": "TER"}, ValueError),
        ({"n_samples": 10}, ValueError),
    ],
)
def test_paired_bootstrap_rejects_bad_arguments(kwargs, error):
    with pytest.raises(error):
        paired_bootstrap(GOOD, WORSE, REFS, **kwargs)
    with pytest.raises(ValueError, match="one each"):
        paired_bootstrap(GOOD, WORSE[:-1], REFS)
