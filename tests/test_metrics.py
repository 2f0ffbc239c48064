"""BLEU and chrF through sacrebleu, their intervals, paired comparisons, exact matches
and perplexity."""

import math
import warnings

import pytest
import sacrebleu
import torch

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
    with pytest.warns(UserWarning, match="identical"):
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
    with pytest.raises(ValueError, match="one hypothesis per reference"):
        paired_bootstrap(GOOD, WORSE[:-1], REFS)


# --- cluster bootstrap (groups=) ---------------------------------------------------------

DISTINCT = list(range(len(REFS)))[::-1]  # one group per sentence; the labels' values don't matter


def tripled(texts):
    """Each sentence three times in a row: clusters of copies, as when pairs share a sentence."""
    return [t for t in texts for _ in range(3)]


CLUSTERS = [i // 3 for i in range(3 * len(REFS))]  # the three copies of a sentence: one group


@pytest.mark.parametrize("score", [corpus_bleu, corpus_chrf])
def test_one_sentence_per_group_is_sacrebleus_own_bootstrap(score):
    pairs = score(GOOD, REFS, n_bootstrap=1000)
    groups = score(GOOD, REFS, n_bootstrap=1000, groups=DISTINCT)
    assert groups.ci == pairs.ci and groups.score == pairs.score  # exactly, not approximately
    assert groups.line == pairs.line and groups.signature == pairs.signature
    assert (pairs.resampled, groups.resampled) == ("sentences", f"groups ({len(REFS)})")
    assert score(GOOD, REFS).resampled is None


def test_one_sentence_per_group_is_the_paired_bootstrap():
    for metric in ("BLEU", "chrF"):
        pairs = paired_bootstrap(GOOD, WORSE, REFS, metric=metric)
        groups = paired_bootstrap(
            GOOD, WORSE, REFS, metric=metric, groups=[f"s{i}" for i in DISTINCT]
        )
        assert (groups.low, groups.high, groups.p_value) == (pairs.low, pairs.high, pairs.p_value)
        assert (groups.a, groups.b, groups.delta) == (pairs.a, pairs.b, pairs.delta)


def test_copies_in_one_group_widen_the_interval():
    hyp, ref = tripled(GOOD), tripled(REFS)
    for score in (corpus_bleu, corpus_chrf):
        pairs = score(hyp, ref, n_bootstrap=1000)
        clusters = score(hyp, ref, n_bootstrap=1000, groups=CLUSTERS)
        assert clusters.score == pairs.score and clusters.ci > 1.4 * pairs.ci
    # chrF depends on the ratios of the summed counts only: three copies in a group are
    # worth one sentence, so the interval is the untripled corpus's (same draws, same seed)
    assert corpus_chrf(hyp, ref, n_bootstrap=1000, groups=CLUSTERS).ci == pytest.approx(
        corpus_chrf(GOOD, REFS, n_bootstrap=1000).ci, rel=1e-9
    )
    a, b = tripled(GOOD), tripled(WORSE)
    for metric in ("BLEU", "chrF"):
        pairs = paired_bootstrap(a, b, ref, metric=metric)
        clusters = paired_bootstrap(a, b, ref, metric=metric, groups=CLUSTERS)
        assert clusters.delta == pairs.delta
        assert clusters.high - clusters.low > 1.4 * (pairs.high - pairs.low)
    once = paired_bootstrap(GOOD, WORSE, REFS, metric="chrF")
    clusters = paired_bootstrap(a, b, ref, metric="chrF", groups=CLUSTERS)
    assert (clusters.low, clusters.high) == pytest.approx((once.low, once.high), rel=1e-9)


def test_the_resampling_is_printed_only_for_groups():
    pairs = corpus_bleu(GOOD, REFS, n_bootstrap=100)
    assert str(pairs) == f"BLEU {pairs.score:.1f} +- {pairs.ci:.1f}"  # as before groups=
    grouped = corpus_bleu(GOOD, REFS, n_bootstrap=100, groups=[i % 7 for i in range(len(REFS))])
    assert str(grouped).endswith(", resampled: groups (7)")
    comparison = paired_bootstrap(GOOD, WORSE, REFS, groups=[i % 7 for i in range(len(REFS))])
    assert comparison.resampled == "groups (7)" and str(comparison).endswith("groups (7)")
    assert "resampled" not in str(paired_bootstrap(GOOD, WORSE, REFS))


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"groups": DISTINCT[:-1]}, ValueError, "199 labels for 200 sentences"),
        ({"groups": "abc" * 66 + "ab"}, TypeError, "string"),
        ({"groups": [0] * len(REFS)}, ValueError, "at least 2"),
        ({"groups": set(DISTINCT)}, TypeError, "ordered sequence"),
        ({"groups": [[i] for i in DISTINCT]}, TypeError, "hashable"),
    ],
)
def test_bad_groups_are_refused_with_the_fix(kwargs, error, match):
    with pytest.raises(error, match=match):
        corpus_bleu(GOOD, REFS, n_bootstrap=100, **kwargs)
    with pytest.raises(error, match=match):
        paired_bootstrap(GOOD, WORSE, REFS, **kwargs)


def test_groups_need_a_bootstrap():
    with pytest.raises(ValueError, match=r"n_bootstrap=0.*e\.g\. n_bootstrap=1000"):
        corpus_chrf(GOOD, REFS, groups=DISTINCT)


# -- the wrong kind of corpus, each named with its fix ---------------------------------------


@pytest.mark.parametrize(
    "hyp, ref, error, message",
    [
        ([[4, 5, 2]] * 3, REF, TypeError, r"hypotheses\[0\] is list of 3 int: token ids.*decode"),
        (HYP, [REF], TypeError, r"sacrebleu's form \[references\].*references\[0\]"),
        ([h.split() for h in HYP], REF, TypeError, r"lists of words: join each"),
        (torch.tensor([[4, 5, 2]]), REF, TypeError, r"got token ids \(Tensor"),
        (HYP, None, TypeError, "references must be a list of sentences .*got NoneType"),
        (REF, ["i am <unk>", "he is", "you are"], ValueError, r"references\[0\] .* <unk>.*swapped"),
    ],
    ids=["ids", "sacrebleu's nesting", "words", "a tensor", "None", "decoded references"],
)
def test_corpora_that_are_no_lists_of_sentences_are_named(hyp, ref, error, message):
    for score in (corpus_bleu, exact_match):
        with pytest.raises(error, match=message):
            score(hyp, ref)


def test_a_model_output_with_unknown_words_is_a_fine_hypothesis():
    assert corpus_bleu(["i am <unk>"], ["i am cold"]).score >= 0
    assert corpus_bleu((h for h in HYP), iter(REF)).score == corpus_bleu(HYP, REF).score


def test_corpora_of_different_lengths_say_one_each():
    with pytest.raises(ValueError, match="hypotheses holds 3 sentences but references holds 2"):
        corpus_chrf(HYP, REF[:2])


def test_paired_bootstrap_names_the_system_of_the_wrong_length():
    with pytest.raises(ValueError, match="hypotheses_b holds 199 sentences but references holds"):
        paired_bootstrap(GOOD, WORSE[:-1], REFS)
    with pytest.raises(ValueError, match="hypotheses_a holds 200 sentences but references holds"):
        paired_bootstrap(GOOD, WORSE, REFS[:-1])
    with pytest.raises(TypeError, match=r"hypotheses_b must be a list of sentences"):
        paired_bootstrap(GOOD, "i am cold", REFS)


@pytest.mark.parametrize(
    "compare, fix",
    [
        (lambda s: s > 20, "bleu.score > 20"),
        (lambda s: s <= 0.5, "bleu.score <= 0.5"),
        (lambda s: s >= s, "bleu.score >= other.score"),
        (lambda s: max([s, s]), "bleu.score > other.score"),
    ],
)
def test_ordering_a_score_says_to_compare_its_number(compare, fix):
    score = corpus_bleu(HYP, REF)
    with pytest.raises(
        TypeError, match=r"a CorpusScore \(BLEU [\d.]+\) cannot be compared"
    ) as info:
        compare(score)
    assert "holds the number in .score" in str(info.value) and fix in str(info.value)


def test_ordering_scores_of_two_metrics_warns_of_their_scales():
    with pytest.raises(TypeError, match="BLEU and chrF are on different scales"):
        _ = corpus_bleu(HYP, REF) < corpus_chrf(HYP, REF)
    assert corpus_bleu(HYP, REF) == corpus_bleu(HYP, REF)  # equality is untouched


def test_paired_bootstrap_checks_its_seed():
    with pytest.raises(TypeError, match="seed must be an integer"):
        paired_bootstrap(GOOD, WORSE, REFS, seed="1")


def test_perplexity_takes_one_total_and_a_count():
    assert perplexity(torch.tensor(3 * math.log(4)), torch.tensor(3)) == pytest.approx(4.0)
    with pytest.raises(TypeError, match=r"one number, got Tensor \(3\).*losses.sum\(\).item\(\)"):
        perplexity(torch.ones(3), 3)
    with pytest.raises(TypeError, match=r"whole number of tokens, got 2.5.*perplexity\(total_nll"):
        perplexity(12, 2.5)
    with pytest.raises(TypeError, match="n_tokens must be a number, got str"):
        perplexity(1.0, "3")


def test_a_metric_name_in_the_wrong_case_gets_the_right_one():
    with pytest.raises(ValueError, match=r"the case matters: metric='chrF'"):
        paired_bootstrap(GOOD, WORSE, REFS, metric="chrf")


def test_hypotheses_decoded_without_strip_are_refused():
    with pytest.raises(ValueError, match=r"hypotheses\[1\] .* <pad>, <sos> or <eos>.*strip=False"):
        corpus_bleu(["i am cold", "<sos> he is here <eos> <pad>"], ["i am cold", "he is here"])


def test_one_system_compared_with_itself_is_warned_of():
    with pytest.warns(UserWarning, match=r"hypotheses_a and hypotheses_b are identical") as seen:
        paired_bootstrap(GOOD, list(GOOD), REFS)  # equal lists, not only the same object
    assert "compares a system with itself" in str(seen[0].message)
    assert seen[0].filename == __file__  # at the user's line
    a = list(GOOD)
    a[1] = "he is the teacher"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        paired_bootstrap(a, GOOD, REFS)  # one sentence differs: no warning


def test_a_mean_loss_where_the_sum_goes_is_warned_of():
    with pytest.warns(UserWarning, match=r"total_nll=2\.3 is what a mean loss") as seen:
        assert perplexity(2.3, 5000) == pytest.approx(math.exp(2.3 / 5000))
    assert "the *sum* over the tokens, not the mean" in str(seen[0].message)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        perplexity(2.3 * 5000, 5000)  # the sum: a perplexity of 10
        perplexity(2.3, 1)  # one token: sum and mean are the same
        perplexity(0.01, 5000)  # a summed loss that small: a near-perfect model
        perplexity(0.6 * 30, 30)  # a good model on a few tokens


def test_bootstrap_samples_passed_positionally_are_named():
    from course_lib.metrics import corpus_bleu

    with pytest.raises(TypeError, match=r"keyword-only.*n_bootstrap=1000"):
        corpus_bleu(["a b"], ["a b"], 1000)


def test_sentence_pairs_as_groups_warn():
    pairs = [("je suis la", "i am here"), ("il est la", "he is here")]
    with pytest.warns(UserWarning, match=r"groups holds sentence pairs.*group_labels\(pairs\)"):
        corpus_bleu(
            ["i am here", "he is here"], ["i am here", "he is here"], n_bootstrap=10, groups=pairs
        )


def test_a_score_formats_by_its_number():
    bleu = corpus_bleu(["i am here"], ["i am here"])
    assert f"{bleu}" == str(bleu)
    with pytest.raises(TypeError, match=r"format its score, f\"\{bleu\.score:\.1f\}\""):
        f"{bleu:.1f}"
