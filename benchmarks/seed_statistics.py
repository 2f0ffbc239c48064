"""Comparing two models trained over a handful of seeds, on one test set.

Two sources of chance move a difference of mean test BLEU: the training runs (initial
weights, data order, dropout: the seed) and the test sentences. With three seeds per side a
bootstrap over the seeds understates the first (the variance of three values resampled is
2/3 of the unbiased one, and its percentiles act as if that variance were known), so these
functions use small-sample methods instead:

* :func:`seed_interval` -- a t interval (Welch-Satterthwaite): the seed term from each side's
  unbiased variance of its runs' scores, plus the test term, the variance of the difference
  over cluster-bootstrap resamples of the test groups (pairs that share a sentence move
  together); degrees of freedom from the seed term's ``n - 1`` per side.
* :func:`permutation_p` -- the exact permutation test over the runs' scores (every split of
  the ``n_a + n_b`` runs into two sides): with 3 + 3 runs its smallest two-sided p is
  2/20 = 0.1, so three seeds per side can never be "significant" by it.

Both treat the test set as fixed in the seed term and add its resampling separately; neither
pretends that three seeds tell the variance of training runs precisely.
"""

from __future__ import annotations

import itertools
import math
import statistics

import mpmath
import numpy as np
import sacrebleu

from course_lib._sacrebleu import score_from_statistics, sentence_statistics

__all__ = ["permutation_p", "seed_interval", "t_quantile", "t_two_sided_p"]


def t_two_sided_p(t: float, df: float) -> float:
    """Two-sided p of Student's t with ``df`` degrees of freedom."""
    if not math.isfinite(t):
        return 0.0
    x = df / (df + t * t)
    return float(mpmath.betainc(df / 2, 0.5, 0, x, regularized=True))


def t_quantile(q: float, df: float) -> float:
    """The ``q`` quantile (``q > 0.5``) of Student's t with ``df`` degrees of freedom."""
    target = 2 * (1 - q)  # the two-sided p at the quantile
    low, high = 0.0, 1e3
    for _ in range(200):
        mid = (low + high) / 2
        if t_two_sided_p(mid, df) > target:
            low = mid
        else:
            high = mid
    return (low + high) / 2


def _group_statistics(runs, refs, groups):
    """Per run, the sufficient statistics of each test group: (G, k) arrays."""
    scorer = sacrebleu.metrics.BLEU()
    member = np.zeros((len(groups), len(refs)))  # (G, N): which group holds each sentence
    for g, rows in enumerate(groups):
        member[g, rows] = 1.0
    return scorer, [member @ sentence_statistics(scorer, h, refs) for h in runs]  # (G, k)


def seed_interval(
    runs_a, runs_b, refs, groups, *, n_samples: int = 2000, seed: int = 12345, level=0.95
) -> dict:
    """Mean test BLEU of ``runs_a`` minus that of ``runs_b`` (each a list of runs' test
    outputs on ``refs``), with a t interval whose variance is the seed term plus the test
    term (module docstring).

    Returns:
        ``{"a", "b", "difference", "low", "high", "p", "df", "seed_sd", "test_sd",
        "scores_a", "scores_b"}`` (the ``*_sd`` are the standard errors of each term).
    """
    scorer, stats_a = _group_statistics(runs_a, refs, groups)
    _, stats_b = _group_statistics(runs_b, refs, groups)
    scores_a = [score_from_statistics(scorer, s.sum(0)) for s in stats_a]
    scores_b = [score_from_statistics(scorer, s.sum(0)) for s in stats_b]
    n_a, n_b = len(scores_a), len(scores_b)
    if n_a < 2 or n_b < 2:
        raise ValueError(f"need at least 2 runs per side for a seed term, got {n_a} and {n_b}")
    difference = statistics.mean(scores_a) - statistics.mean(scores_b)
    v_a = statistics.variance(scores_a) / n_a
    v_b = statistics.variance(scores_b) / n_b
    rng = np.random.default_rng(seed)
    deltas = []
    for _ in range(n_samples):  # the test groups resampled, the runs kept
        counts = rng.multinomial(len(groups), np.full(len(groups), 1 / len(groups)))  # (G,)
        a = statistics.mean(score_from_statistics(scorer, counts @ s) for s in stats_a)
        b = statistics.mean(score_from_statistics(scorer, counts @ s) for s in stats_b)
        deltas.append(a - b)
    v_test = float(np.var(deltas, ddof=1))
    total = v_a + v_b + v_test
    # Welch-Satterthwaite: the test term's degrees of freedom taken as unlimited
    denominator = (v_a**2 / (n_a - 1) if v_a else 0) + (v_b**2 / (n_b - 1) if v_b else 0)
    df = total**2 / denominator if denominator else math.inf
    df = max(df, min(n_a, n_b) - 1)
    se = math.sqrt(total)
    t = difference / se if se else math.inf
    half = (t_quantile(1 - (1 - level) / 2, df) if math.isfinite(df) else 1.959964) * se
    p = t_two_sided_p(t, df) if math.isfinite(df) else math.erfc(abs(t) / math.sqrt(2))
    return {
        "a": statistics.mean(scores_a),
        "b": statistics.mean(scores_b),
        "difference": difference,
        "low": difference - half,
        "high": difference + half,
        "p": p,
        "df": df,
        "seed_sd": math.sqrt(v_a + v_b),
        "test_sd": math.sqrt(v_test),
        "scores_a": scores_a,
        "scores_b": scores_b,
    }


def permutation_p(scores_a, scores_b) -> float:
    """Exact two-sided permutation p of the difference of means: the share of all splits of
    the runs into sides of the same sizes whose difference is at least as large in size."""
    scores = list(scores_a) + list(scores_b)
    n_a = len(scores_a)
    observed = abs(statistics.mean(scores_a) - statistics.mean(scores_b))
    total, hits = 0, 0
    for chosen in itertools.combinations(range(len(scores)), n_a):
        a = [scores[i] for i in chosen]
        b = [scores[i] for i in range(len(scores)) if i not in chosen]
        total += 1
        hits += abs(statistics.mean(a) - statistics.mean(b)) >= observed - 1e-9
    return hits / total
