"""The one place where course_lib reaches into sacrebleu's internals.

sacrebleu's public API scores a corpus (``metric.corpus_score``). A paired or clustered
bootstrap needs two things more, which sacrebleu 2.x computes but keeps private: each
sentence's *sufficient statistics* (for BLEU: hypothesis and reference lengths, n-gram
matches and totals), and the score of a corpus from summed statistics. sacrebleu's own
significance module uses the same two functions. Its bootstrap interval's half-width is
likewise only an attribute with a leading underscore (``result._ci``).

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

__all__ = ["TESTED", "sentence_statistics", "score_from_statistics", "interval_half_width"]

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
