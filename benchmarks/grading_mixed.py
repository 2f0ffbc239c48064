"""The mixed class of issue 44, graded by a given grader: how many rows come out right.

    python benchmarks/grading_mixed.py [--python PY --repo DIR] [--record grading_mixed]

Builds the class of ``tests/grading_fixtures.py``'s ``mixed_class`` (deaths during checks,
ids and pages that collide, files that used to disappear or crash the run, answers a static
slice dropped, a submission that attacks the others), grades it with ``PY -m
course_lib.grading`` run in ``DIR`` (default: this Python and this repository; give an older
checkout and a Python that imports it to measure "before"), and prints, for every expected
row, whether it came out right, wrong or lost, whether the run crashed, and whether the
class's files were touched.
"""

from __future__ import annotations

import argparse
import csv
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import recipe

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tools")]
import grading_fixtures as fx  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--repo", type=Path, default=ROOT)
    parser.add_argument("--label", default="this checkout")
    parser.add_argument(
        "--leave-out",
        default="",
        help="comma-separated file stems to leave out of the class (files that crash a grader)",
    )
    parser.add_argument("--record", default="grading_mixed", help="record name ('' for none)")
    args = parser.parse_args()
    with recipe.Record(args.record or "grading_mixed", enabled=bool(args.record)):
        with tempfile.TemporaryDirectory(prefix="mixed-class-") as tmp:
            folder, out = Path(tmp) / "class", Path(tmp) / "out"
            # the attacker aims at the library of the grader measured (an older checkout's
            # own copy when measuring "before": that grader does not stop it)
            expect = fx.mixed_class(folder, out, library=args.repo / "course_lib")
            victim = fx.write(fx.untouched(fx.THREAT_CHAPTER), folder / "b_victim.ipynb")
            expect.append(("b_victim", ["0", "0", "0"], "graded"))
            before = victim.read_bytes()
            for stem in filter(None, args.leave_out.split(",")):
                (folder / f"{stem}.ipynb").unlink()
                expect = [e for e in expect if e[0] != stem]
                print(f"left out: {stem}.ipynb")
            command = [args.python, "-m", "course_lib.grading", "--chapter", fx.THREAT_CHAPTER]
            command += ["--submissions", str(folder), "--out", str(out), "--timeout", "15"]
            start = time.perf_counter()
            try:
                done = subprocess.run(
                    command, cwd=args.repo, capture_output=True, text=True, timeout=1800
                )
                code, said = done.returncode, (done.stderr.strip().splitlines() or [""])[-1]
            except subprocess.TimeoutExpired:
                code, said = "hung (30 min)", ""
            seconds = time.perf_counter() - start
            time.sleep(4)  # past the moment the attacker's forked process would act
            rows = []
            if (out / "grades.csv").is_file():
                with open(out / "grades.csv", newline="", encoding="utf-8") as f:
                    try:
                        rows = list(csv.DictReader(f))
                    except csv.Error:
                        rows = []
            verdict = fx.judge(rows, expect)
            print(f"grader: {args.label} ({args.repo}); {len(expect)} expected rows")
            print(f"exit code {code} after {seconds:.0f} s{': ' + said[:200] if code else ''}")
            print(f"rows written: {len(rows)}")
            for kind in ("right", "wrong", "lost"):
                print(f"{kind}: {len(verdict[kind])}")
                for item in verdict[kind] if kind != "right" else []:
                    print(f"  {item}")
            touched = victim.read_bytes() != before
            print(f"another student's file changed: {'yes' if touched else 'no'}")
            page_dir = out / "feedback"
            pages = len(list(page_dir.iterdir())) if page_dir.is_dir() else 0
            print(f"feedback pages: {pages} for {len(rows)} rows")
    return 0


if __name__ == "__main__":
    sys.exit(main())
