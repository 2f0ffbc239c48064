"""Translation metrics: corpus BLEU and chrF through sacrebleu, their confidence intervals,
paired comparisons, perplexity and exact matches.

The scores are never hand-written here: :func:`corpus_bleu` and :func:`corpus_chrf` call
sacrebleu with its standard settings (corpus level, ``13a`` tokenisation for BLEU, one
reference per sentence), and each result carries sacrebleu's *signature* -- the line that
says how the score was computed. With ``n_bootstrap`` they also carry sacrebleu's 95 %
bootstrap confidence interval (Koehn, 2004).

A score says how good one system is; whether system A beats system B on the same sentences
is a different question, answered by :func:`paired_bootstrap`: both systems are scored on
the same resampled test sets, and the interval of the *difference* says how sure the
comparison is.

What the signature does not record: the course scores its own **normalised** text (lower
case, no punctuation but ``!`` and ``?``, no digits; :func:`course_lib.tatoeba.normalize`)
on both sides, so these numbers compare with each other and with nothing outside the book.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import sacrebleu

from course_lib._sacrebleu import interval_half_width, score_from_statistics, sentence_statistics

__all__ = [
    "CorpusScore",
    "PairedComparison",
    "corpus_bleu",
    "corpus_chrf",
    "exact_match",
    "paired_bootstrap",
    "perplexity",
]

_METRICS = {"BLEU": lambda: sacrebleu.BLEU(tokenize="13a"), "chrF": lambda: sacrebleu.CHRF()}


def _check_corpus(hypotheses: Sequence[str], references: Sequence[str]) -> None:
    for name, texts in (("hypotheses", hypotheses), ("references", references)):
        if isinstance(texts, str) or not all(isinstance(t, str) for t in texts):
            raise TypeError(f"{name} must be a list of sentences (strings)")
    if len(hypotheses) != len(references):
        raise ValueError(f"{len(hypotheses)} hypotheses for {len(references)} references: one each")
    if not hypotheses:
        raise ValueError("a score of an empty corpus is undefined")


@dataclass(frozen=True)
class CorpusScore:
    """A corpus-level score as sacrebleu reports it.

    ``ci`` is the half-width of sacrebleu's 95 % bootstrap confidence interval (``None``
    without bootstrap): the score is ``score +- ci``.
    """

    name: str  # "BLEU" or "chrF"
    score: float  # 0..100
    line: str  # sacrebleu's full score line: "BLEU = 54.32 (mu = ...) 80.1/61.0/..."
    signature: str  # how it was computed: "nrefs:1|bs:1000|rs:12345|case:mixed|..."
    ci: float | None = None

    def __str__(self) -> str:
        interval = "" if self.ci is None else f" +- {self.ci:.1f}"
        return f"{self.name} {self.score:.1f}{interval}"


def _corpus_score(name: str, hypotheses, references, n_bootstrap: int) -> CorpusScore:
    _check_corpus(hypotheses, references)
    if not isinstance(n_bootstrap, int) or n_bootstrap < 0 or n_bootstrap == 1:
        raise ValueError(f"n_bootstrap must be 0 (no interval) or at least 2, got {n_bootstrap!r}")
    metric = _METRICS[name]()
    result = metric.corpus_score(
        list(hypotheses), [list(references)], n_bootstrap=max(n_bootstrap, 1)
    )
    ci = interval_half_width(result) if n_bootstrap else None
    return CorpusScore(name, float(result.score), str(result), str(metric.get_signature()), ci)


def corpus_bleu(
    hypotheses: Sequence[str], references: Sequence[str], *, n_bootstrap: int = 0
) -> CorpusScore:
    """sacrebleu's corpus BLEU (13a tokenisation) of one hypothesis per reference.

    Args:
        n_bootstrap: resamples for sacrebleu's 95 % confidence interval (1000 is usual;
            sacrebleu seeds them with 12345, so the interval is reproducible); 0 for none.
    """
    return _corpus_score("BLEU", hypotheses, references, n_bootstrap)


def corpus_chrf(
    hypotheses: Sequence[str], references: Sequence[str], *, n_bootstrap: int = 0
) -> CorpusScore:
    """sacrebleu's corpus chrF (character 6-grams, beta 2) of one hypothesis per reference.

    chrF gives partial credit for a word with the right stem and the wrong ending, which
    BLEU's whole-word n-grams count as a miss. ``n_bootstrap`` as in :func:`corpus_bleu`.
    """
    return _corpus_score("chrF", hypotheses, references, n_bootstrap)


@dataclass(frozen=True)
class PairedComparison:
    """System A minus system B on the same sentences, with a paired bootstrap interval."""

    metric: str
    a: float  # A's score on the whole test set
    b: float
    delta: float  # a - b
    low: float  # 95 % interval of the difference (2.5th and 97.5th percentiles)
    high: float
    p_value: float  # two-sided: how often the resampled difference has the other sign

    @property
    def significant(self) -> bool:
        """The 95 % interval of the difference excludes 0."""
        return self.low > 0 or self.high < 0

    def __str__(self) -> str:
        return (
            f"{self.metric} {self.a:.1f} - {self.b:.1f} = {self.delta:+.1f} "
            f"[95 % CI {self.low:+.1f}, {self.high:+.1f}], p = {self.p_value:.3f}"
        )


def paired_bootstrap(
    hypotheses_a: Sequence[str],
    hypotheses_b: Sequence[str],
    references: Sequence[str],
    *,
    metric: str = "BLEU",
    n_samples: int = 1000,
    seed: int = 12345,
) -> PairedComparison:
    """Paired bootstrap resampling (Koehn, 2004) of ``metric(A) - metric(B)``.

    Each resample draws ``len(references)`` sentences with replacement and scores *both*
    systems on that same draw, from sacrebleu's per-sentence statistics, so the sentences'
    difficulty cancels and only the systems' difference varies.

    Args:
        metric: ``"BLEU"`` or ``"chrF"``.
        n_samples: resampled test sets.
        seed: for the resampling (sacrebleu's default seed).
    """
    _check_corpus(hypotheses_a, references)
    _check_corpus(hypotheses_b, references)
    if metric not in _METRICS:
        raise ValueError(f"metric must be one of {sorted(_METRICS)}, got {metric!r}")
    if not isinstance(n_samples, int) or n_samples < 100:
        raise ValueError(f"n_samples must be an integer of at least 100, got {n_samples!r}")
    scorer = _METRICS[metric]()
    # per-sentence sufficient statistics, (N, k) each
    stats = [sentence_statistics(scorer, h, references) for h in (hypotheses_a, hypotheses_b)]
    full = [score_from_statistics(scorer, s.sum(0)) for s in stats]
    n = len(references)
    rng = np.random.default_rng(seed)
    counts = rng.multinomial(n, np.full(n, 1 / n), size=n_samples).astype(np.float64)  # (R, N)
    sums = [counts @ s for s in stats]  # (R, k): each resample's summed statistics
    deltas = np.array(
        [
            score_from_statistics(scorer, ra) - score_from_statistics(scorer, rb)
            for ra, rb in zip(*sums, strict=True)
        ]
    )
    delta = full[0] - full[1]
    low, high = np.percentile(deltas, [2.5, 97.5])
    if delta == 0:
        p = 1.0
    else:
        other_side = np.mean(deltas <= 0) if delta > 0 else np.mean(deltas >= 0)
        p = min(1.0, 2 * (other_side * n_samples + 1) / (n_samples + 1))
    return PairedComparison(metric, full[0], full[1], delta, float(low), float(high), float(p))


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
