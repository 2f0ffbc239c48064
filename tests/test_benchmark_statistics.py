"""The statistics Chapter 7's benchmark comparisons rest on (``benchmarks/modern.py``)."""

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
modern = pytest.importorskip("modern")

REFS = [f"the cat number {i} sat on the mat with {i % 7} friends" for i in range(400)]


def system(wrong_rows):
    """Outputs that match the references except on ``wrong_rows``."""
    wrong = set(wrong_rows)
    return [("a dog stood there" if i in wrong else r) for i, r in enumerate(REFS)]


def test_holm_adjusts_step_down_and_keeps_the_order():
    assert modern.holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert modern.holm([0.5]) == [0.5]
    assert modern.holm([0.2, 0.6]) == pytest.approx([0.4, 0.6])


def test_identical_systems_differ_by_nothing():
    runs = [system(range(s, 400, 3)) for s in range(3)]
    groups = [[i] for i in range(len(REFS))]
    a, b, delta, low, high, p = modern.runs_bootstrap(runs, runs, REFS, groups)
    assert delta == 0 and a == b and p == 1.0


def test_resampling_groups_widens_the_interval_when_sentences_come_in_clusters():
    """The same outputs, read once as independent pairs and once as clusters of ten pairs
    that stand or fall together (as pairs sharing a reference do): whole clusters resampled
    give a wider interval of the same difference."""
    a = [system(i for i in range(400) if (i // 10) % 4 == 0)]
    b = [system(i for i in range(400) if (i // 10) % 3 == 0)]
    singles = [[i] for i in range(len(REFS))]
    clusters = [list(range(k, k + 10)) for k in range(0, len(REFS), 10)]
    first = modern.runs_bootstrap(a, b, REFS, singles)
    second = modern.runs_bootstrap(a, b, REFS, clusters)
    assert first[2] == second[2]  # the same difference
    assert second[4] - second[3] > 2 * (first[4] - first[3])


def test_resampling_seeds_widens_the_interval_when_training_runs_disagree():
    rng = np.random.default_rng(0)
    b = [system(rng.choice(400, 100, replace=False))] * 3
    alike = [system(range(0, 400, 5))] * 3
    apart = [system(range(0, 400, 3)), system(range(0, 400, 5)), system(range(0, 400, 20))]
    groups = [[i] for i in range(len(REFS))]
    first = modern.runs_bootstrap(alike, b, REFS, groups)
    second = modern.runs_bootstrap(apart, b, REFS, groups)
    assert second[4] - second[3] > 2 * (first[4] - first[3])
