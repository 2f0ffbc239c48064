"""Chapter 5's translation benchmarks: the family of comparisons a record's JSON rebuilds, and
paired tests drawn with enough resamples for the families they are adjusted in."""

import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
translation = pytest.importorskip("translation")
ablations = pytest.importorskip("ablations")
RESULTS = ROOT / "benchmarks" / "results"


def test_the_json_record_rebuilds_the_family_its_text_record_printed():
    kept = json.loads((RESULTS / "2026-11-26_translation.json").read_text())["kept"]
    rebuilt = [f"{a} - {b}" for a, _, b, _ in translation.comparisons(kept)]
    text = (RESULTS / "2026-11-26_translation.txt").read_text()
    for metric in ("BLEU", "chrF"):
        block = text.split(f"\n{metric}: 7 comparisons")[1].split("\n\n")[0]
        printed = re.findall(r"^  (.+?): " + metric, block, re.M)
        assert printed == rebuilt, metric
    recomputed = (RESULTS / "2026-11-28_translation_stats.txt").read_text()
    assert all(f"  {label}: " in recomputed for label in rebuilt)
    assert recomputed.count("(10,000 paired resamples)") == 2


def test_paired_tests_draw_enough_resamples_for_a_family_of_sixteen():
    # a bootstrap p-value is at least 2 / (n + 1); Holm multiplies the smallest by the
    # family's size: with 10,000 the floor of 16 comparisons is far below 0.05
    for n in (translation.N_SAMPLES, ablations.N_SAMPLES):
        assert 16 * 2 / (n + 1) < 0.005
