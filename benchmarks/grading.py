"""Grading speed: a class of copies of each chapter's solved exercise notebook.

    OMP_NUM_THREADS=1 python benchmarks/grading.py [--class-size 30] [--jobs 2] [--chapters 05,06]

For each chapter (all by default, one at a time) it writes ``--class-size`` copies of the
student notebook with the chapter's own solutions -- the exercises' functions and the
experiments the exercises ask the student to run (``--functions-only``: without them) -- grades them as ``make grade`` does
(``course_lib.grading``, ``--jobs`` submissions at a time), and prints the class's wall-clock
time, the seconds per submission, and where a submission's time goes:

* ``start``: starting Python and importing torch and the library (once per submission);
* ``cells``: the submission's code cells;
* ``prepare``: putting the library back and running the assignment's data cells;
* ``checks``: the checks, on the unseen cases.

By default the grader runs only the cells the checks need (``course_lib.grading.slicing``);
``--all-cells`` times ``make grade ALL_CELLS=1``, the experiments included.

The target (issue 33): a class of 30 of the heaviest chapter in under 10 minutes on 2 cores,
two at a time. The record is ``benchmarks/results/<date>_grading.txt``.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import nbformat
import recipe

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import make_student  # noqa: E402
import nbtools  # noqa: E402
from course_lib.grading.__main__ import find_template, grade_class  # noqa: E402
from course_lib.grading.assignment import load_assignment  # noqa: E402
from course_lib.grading.grade import Options  # noqa: E402


def solved_class(chapter: Path, folder: Path, size: int, experiments: bool) -> None:
    """``size`` copies of the student notebook with the chapter's solutions (and, with
    ``experiments``, the experiments its exercises ask for: a complete submission)."""
    nb = make_student.build_student(chapter, keep_solutions=True, keep_experiments=experiments)
    for cell in nb.cells:
        if cell.cell_type == "markdown" and cell.source == make_student.ANSWER:
            cell.source = "**Your answer.** A written answer."
    for i in range(size):
        nbformat.write(nb, folder / f"student{i:03d}.ipynb")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--class-size", type=int, default=30)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--chapters", default="", help="e.g. 05,06 (default: every chapter)")
    parser.add_argument(
        "--functions-only",
        action="store_true",
        help="copies with the exercises' functions only, not the experiments they ask for",
    )
    parser.add_argument(
        "--all-cells",
        action="store_true",
        help="grade with --all-cells: run the experiments too, as make grade ALL_CELLS=1",
    )
    parser.add_argument(
        "--unsandboxed",
        action="store_true",
        help="grade without the bubblewrap sandbox (to measure what the sandbox costs)",
    )
    parser.add_argument("--record", default="grading", help="record name ('' for none)")
    args = parser.parse_args()
    chapters = nbtools.chapter_notebooks()
    if args.chapters:
        wanted = args.chapters.split(",")
        chapters = [c for c in chapters if c.name.split("_")[0] in wanted]
    with recipe.Record(args.record or "grading", enabled=bool(args.record)):
        what = "functions only" if args.functions_only else "with the experiments they ask for"
        run = "every cell run (--all-cells)" if args.all_cells else "the cells the checks need"
        run += ", unsandboxed" if args.unsandboxed else ", each in its bubblewrap sandbox"
        print(
            f"a class of {args.class_size} solved notebooks per chapter ({what}; {run}), "
            f"{args.jobs} at a time; seconds per submission (wall clock) and where they go"
        )
        print(
            f"{'chapter':26} {'class s':>8} {'per sub.':>8} {'start':>6} {'cells':>6} "
            f"{'prepare':>7} {'checks':>6}  points"
        )
        slowest = 0.0
        for chapter in chapters:
            number = chapter.name.split("_")[0]
            assignment = load_assignment(find_template(number, nbtools.EXERCISES))
            with tempfile.TemporaryDirectory() as tmp:
                folder = Path(tmp)
                solved_class(chapter, folder, args.class_size, not args.functions_only)
                start = time.perf_counter()
                options = Options(all_cells=args.all_cells, sandbox=not args.unsandboxed)
                graded, _ = grade_class(assignment, folder, jobs=args.jobs, options=options)
                wall = time.perf_counter() - start
            # a class of 30, two at a time: measured when class_size is 30, else projected
            slowest = max(
                slowest, wall * 30 / max(1, len(graded)) if args.class_size != 30 else wall
            )
            n = len(graded)
            kinds = {
                k: sum(g.seconds_by_kind[k] for g in graded) / n
                for k in ("start", "cells", "prepare", "checks")
            }
            possible = sum(e.points for e in assignment.exercises if e.autograded)
            full = sum(g.total == possible for g in graded)
            print(
                f"{chapter.stem:26} {wall:8.1f} {sum(g.seconds for g in graded) / n:8.1f} "
                f"{kinds['start']:6.1f} {kinds['cells']:6.1f} {kinds['prepare']:7.1f} "
                f"{kinds['checks']:6.1f}  {full}/{n} full marks ({possible:g})"
            )
            if full != n:
                print(f"  not every solved copy got full marks: {graded[0].status}")
        verdict = "meets" if slowest < 600 else "MISSES"
        how = "" if args.class_size == 30 else f", projected from {args.class_size}"
        print(
            f"slowest class of 30: {slowest:.0f} s{how} ({verdict} the target: 30 of the "
            "heaviest chapter in under 600 s)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
