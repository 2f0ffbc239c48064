"""BLEU through sacrebleu, exact matches and perplexity."""

import math

import pytest
import sacrebleu

from course_lib.metrics import corpus_bleu, exact_match, perplexity

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
    "hyp, ref, error", [
        (HYP, REF[:2], ValueError), ([], [], ValueError), ("i am cold", "i am cold", TypeError),
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
