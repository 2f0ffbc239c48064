"""The statistics Chapter 7's benchmark comparisons rest on (``benchmarks/modern.py``)."""

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
modern = pytest.importorskip("modern")
seed_statistics = pytest.importorskip("seed_statistics")

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
    got = seed_statistics.seed_interval(runs, runs, REFS, groups, n_samples=200)
    assert got["difference"] == 0 and got["a"] == got["b"] and got["p"] == 1.0


def test_resampling_groups_widens_the_interval_when_sentences_come_in_clusters():
    """The same outputs, read once as independent pairs and once as clusters of ten pairs
    that stand or fall together (as pairs sharing a reference do): whole clusters resampled
    give a wider test term, and so a wider interval, of the same difference."""
    a = [system(i for i in range(400) if (i // 10) % 4 == 0)] * 2
    b = [system(i for i in range(400) if (i // 10) % 3 == 0)] * 2
    singles = [[i] for i in range(len(REFS))]
    clusters = [list(range(k, k + 10)) for k in range(0, len(REFS), 10)]
    first = seed_statistics.seed_interval(a, b, REFS, singles, n_samples=300)
    second = seed_statistics.seed_interval(a, b, REFS, clusters, n_samples=300)
    assert first["difference"] == second["difference"]
    assert second["test_sd"] > 2 * first["test_sd"]
    assert second["high"] - second["low"] > 2 * (first["high"] - first["low"])


def test_runs_that_disagree_widen_the_interval_through_the_seed_term():
    rng = np.random.default_rng(0)
    b = [system(rng.choice(400, 100, replace=False))] * 3
    alike = [system(range(0, 400, 5))] * 3
    apart = [system(range(0, 400, 3)), system(range(0, 400, 5)), system(range(0, 400, 20))]
    groups = [[i] for i in range(len(REFS))]
    first = seed_statistics.seed_interval(alike, b, REFS, groups, n_samples=200)
    second = seed_statistics.seed_interval(apart, b, REFS, groups, n_samples=200)
    assert first["seed_sd"] == 0 and second["seed_sd"] > 0
    assert second["high"] - second["low"] > 2 * (first["high"] - first["low"])


def test_the_t_distribution_matches_its_tables():
    # two-sided 95 % critical values: df 2 -> 4.303, df 6 -> 2.447, df 30 -> 2.042
    for df, critical in ((2, 4.303), (6, 2.447), (30, 2.042)):
        assert seed_statistics.t_quantile(0.975, df) == pytest.approx(critical, abs=1e-3)
        assert seed_statistics.t_two_sided_p(critical, df) == pytest.approx(0.05, abs=1e-3)


def test_the_seed_interval_covers_at_three_seeds_where_a_bootstrap_of_three_does_not():
    """Simulated training runs: three seeds a side, their scores normal around the true
    means, no test term (the seed term alone). The t interval covers the true difference
    about 95 % of the time; a percentile bootstrap that resamples the three seeds covers it
    far less often -- why the chapter's headline no longer rests on one."""
    rng = np.random.default_rng(1)
    covered_t = covered_boot = 0
    trials = 400
    for _ in range(trials):
        a, b = rng.normal(0.0, 1.0, 3), rng.normal(0.0, 1.0, 3)
        se = np.sqrt(a.var(ddof=1) / 3 + b.var(ddof=1) / 3)
        df = se**4 / ((a.var(ddof=1) / 3) ** 2 / 2 + (b.var(ddof=1) / 3) ** 2 / 2)
        half = seed_statistics.t_quantile(0.975, df) * se
        covered_t += abs(a.mean() - b.mean()) <= half
        draws = [rng.choice(a, 3).mean() - rng.choice(b, 3).mean() for _ in range(400)]
        low, high = np.percentile(draws, [2.5, 97.5])
        covered_boot += low <= 0 <= high
    assert covered_t / trials >= 0.93
    assert covered_boot / trials <= 0.88


def test_three_runs_a_side_can_never_reach_5_percent_by_permutation():
    assert seed_statistics.permutation_p([1, 2, 3], [4, 5, 6]) == pytest.approx(0.1)
    assert seed_statistics.permutation_p([1, 2, 3, 4, 5], [6, 7, 8, 9, 10]) == pytest.approx(
        2 / 252
    )
    assert seed_statistics.permutation_p([1, 5], [1, 5]) == 1.0
