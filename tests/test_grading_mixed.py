"""A class that mixes every kind of defect of issue 44 -- deaths during the checks, ids and
pages that would collide, files that used to disappear or crash the run, answers a static
slice used to drop, a submission that attacks the others -- graded as an instructor would
(``make grade``): every file gets the row it must, and nothing of the class is touched."""

from __future__ import annotations

import csv
import time

import grading_fixtures as fx
from course_lib.grading.__main__ import main


def test_a_mixed_class_gets_every_row_right_and_loses_nothing(tmp_path):
    folder, out = tmp_path / "class", tmp_path / "out"
    isolation = fx.isolation_args()  # without the sandbox, no attacker: it would succeed
    expect = fx.mixed_class(folder, out, attack=not isolation)
    victim = fx.write(fx.untouched(fx.THREAT_CHAPTER), folder / "b_victim.ipynb").read_bytes()
    expect.append(("b_victim", ["0", "0", "0"], "graded"))
    args = ["--chapter", fx.THREAT_CHAPTER, "--submissions", str(folder), "--out", str(out)]
    assert main([*args, "--timeout", "15", *isolation]) == 0
    time.sleep(4)  # past the moment the attacker's forked process would act
    with open(out / "grades.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    verdict = fx.judge(rows, expect)
    assert verdict["wrong"] == [] and verdict["lost"] == []
    assert len(rows) == len(expect)  # no row that should not be there
    pages = sorted((out / "feedback").iterdir())
    assert len(pages) == len(rows) and all(p.is_file() for p in pages)
    assert all(len(p.name.encode()) < 200 for p in pages)
    assert (folder / "b_victim.ipynb").read_bytes() == victim
    assert "rewritten" not in (out / "grades.csv").read_text()
