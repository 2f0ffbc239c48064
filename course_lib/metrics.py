"""Translation metrics: corpus BLEU through sacrebleu, perplexity and exact matches.

BLEU is never hand-written here: :func:`corpus_bleu` calls sacrebleu with its standard
settings (corpus level, ``13a`` tokenisation, one reference per sentence), and its result
carries sacrebleu's *signature* -- the line that says how the score was computed, so that
scores from different papers or machines can be compared honestly.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import sacrebleu

__all__ = ["Bleu", "corpus_bleu", "exact_match", "perplexity"]


def _check_corpus(hypotheses: Sequence[str], references: Sequence[str]) -> None:
    for name, texts in (("hypotheses", hypotheses), ("references", references)):
        if isinstance(texts, str) or not all(isinstance(t, str) for t in texts):
            raise TypeError(f"{name} must be a list of sentences (strings)")
    if len(hypotheses) != len(references):
        raise ValueError(
            f"{len(hypotheses)} hypotheses for {len(references)} references: one each"
        )
    if not hypotheses:
        raise ValueError("BLEU of an empty corpus is undefined")


@dataclass(frozen=True)
class Bleu:
    """A corpus BLEU score as sacrebleu reports it."""

    score: float  # 0..100
    line: str  # sacrebleu's full score line: "BLEU = 54.32 80.1/61.0/... (BP = ...)"
    signature: str  # how it was computed: "nrefs:1|case:mixed|eff:no|tok:13a|..."

    def __str__(self) -> str:
        return f"{self.line}\n{self.signature}"


def corpus_bleu(hypotheses: Sequence[str], references: Sequence[str]) -> Bleu:
    """sacrebleu's corpus BLEU (13a tokenisation) of one hypothesis per reference."""
    _check_corpus(hypotheses, references)
    metric = sacrebleu.BLEU(tokenize="13a")
    result = metric.corpus_score(list(hypotheses), [list(references)])
    return Bleu(float(result.score), str(result), str(metric.get_signature()))


def exact_match(hypotheses: Sequence[str], references: Sequence[str]) -> float:
    """Share of hypotheses equal to their reference, word for word (spaces normalised)."""
    _check_corpus(hypotheses, references)
    same = sum(h.split() == r.split() for h, r in zip(hypotheses, references, strict=True))
    return same / len(hypotheses)


def perplexity(total_nll: float, n_tokens: int) -> float:
    """``exp`` of the mean negative log-likelihood per token (natural log)."""
    if n_tokens <= 0:
        raise ValueError(f"n_tokens must be positive, got {n_tokens}")
    if not math.isfinite(total_nll) or total_nll < 0:
        raise ValueError(f"total_nll must be a finite, non-negative sum, got {total_nll}")
    return math.exp(total_nll / n_tokens)
