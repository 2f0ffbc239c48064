"""The one place where course_lib reaches into sacrebleu's internals.

sacrebleu's public API scores a corpus (``metric.corpus_score``). A paired or clustered
bootstrap needs two things more, which sacrebleu 2.x computes but keeps private: each
sentence's *sufficient statistics* (for BLEU: hypothesis and reference lengths, n-gram
matches and totals), and the score of a corpus from summed statistics. sacrebleu's own
significance module uses the same two functions. Its bootstrap interval's half-width is
likewise only an attribute with a leading underscore (``result._ci``), and its resampling
(``significance._bootstrap_resample``) is private too: :func:`grouped_corpus_score` hands
it groups' summed statistics instead of sentences', so that a cluster bootstrap draws its
resamples and reads its interval exactly as sacrebleu does.

Every private name is used here and nowhere else. ``pyproject.toml`` admits only the
sacrebleu releases this course has run (see :data:`TESTED`), and
``tests/test_sacrebleu_contract.py`` checks each function against the public
``corpus_score``; if a release moves the internals, both the test and the first call here
fail with a message naming the installed version.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import sacrebleu

__all__ = [
    "TESTED",
    "grouped_corpus_score",
    "interval_half_width",
    "score_from_statistics",
    "sentence_statistics",
]

#: The sacrebleu releases course_lib has been run with (the range in pyproject.toml).
TESTED = "2.3.0 to 2.6.0"


def _moved(what: str) -> RuntimeError:
    return RuntimeError(
        f"sacrebleu {sacrebleu.__version__} no longer provides {what}, which course_lib's "
        f"bootstrap intervals use (tested with sacrebleu {TESTED}). Install a tested "
        f"release, e.g. pip install 'sacrebleu==2.6.0', and report the version in a bug."
    )


def sentence_statistics(metric, hypotheses: Sequence[str], references: Sequence[str]):
    """Per-sentence sufficient statistics of ``metric`` (a sacrebleu ``BLEU`` or ``CHRF``).

    Shape:
        ``(N, k)`` float64: one row per sentence; sums of rows are a corpus's statistics.
    """
    extract = getattr(metric, "_extract_corpus_statistics", None)
    if extract is None:
        raise _moved(f"{type(metric).__name__}._extract_corpus_statistics")
    return np.asarray(extract(list(hypotheses), [list(references)]), dtype=np.float64)


def score_from_statistics(metric, statistics) -> float:
    """The corpus score (0..100) of summed sufficient statistics ``(k,)``."""
    compute = getattr(metric, "_compute_score_from_stats", None)
    if compute is None:
        raise _moved(f"{type(metric).__name__}._compute_score_from_stats")
    return float(compute(list(statistics)).score)


def interval_half_width(result) -> float:
    """Half-width of the 95 % bootstrap interval of a ``corpus_score(..., n_bootstrap=R)``."""
    ci = getattr(result, "_ci", None)
    if ci is None:
        raise _moved("the bootstrap interval of a score (its _ci attribute)")
    return float(ci)


def grouped_corpus_score(metric, hypotheses, references, group, n_bootstrap: int):
    """``metric.corpus_score(hypotheses, [references], n_bootstrap=n_bootstrap)``, with each
    resample drawing whole groups of sentences instead of single sentences.

    sacrebleu's own resampling runs on the groups' summed statistics: its seed
    (``SACREBLEU_SEED``, 12345 by default), ``G`` draws with replacement from the ``G``
    groups, and its interval (half the distance between the 2.5th and 97.5th percentiles of
    the sorted resampled scores). With one group per sentence, in order, the groups'
    statistics are the sentences' and the result is ``corpus_score``'s, bit for bit.

    Args:
        metric: a fresh sacrebleu ``BLEU`` or ``CHRF``; its signature records the bootstrap.
        group: ``(N,)`` ints, each sentence's group ``0..G-1``; every group must occur.
        n_bootstrap: resamples, at least 2.

    Returns:
        sacrebleu's score of the whole corpus, with the groups' interval
        (:func:`interval_half_width`) and its score line.
    """
    extract = getattr(metric, "_extract_corpus_statistics", None)
    aggregate = getattr(metric, "_aggregate_and_compute", None)
    if extract is None or aggregate is None:
        raise _moved(f"{type(metric).__name__}._extract_corpus_statistics/_aggregate_and_compute")
    try:
        from sacrebleu.significance import _bootstrap_resample
    except ImportError:
        raise _moved("sacrebleu.significance._bootstrap_resample") from None
    stats = extract(list(hypotheses), [list(references)])  # N lists of k counts
    result = aggregate(stats)  # the whole corpus, as corpus_score computes it
    per_sentence = np.asarray(stats)  # (N, k), integer counts
    group = np.asarray(group)
    per_group = np.zeros((group.max() + 1, per_sentence.shape[1]), per_sentence.dtype)  # (G, k)
    np.add.at(per_group, group, per_sentence)
    # as corpus_score does: the metric's signature shows bs: and rs:
    metric.n_bootstrap = n_bootstrap
    metric.seed, resampled = _bootstrap_resample(per_group.tolist(), metric, n_bootstrap)
    result.estimate_ci(resampled)
    return result
