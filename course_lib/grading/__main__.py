"""``python -m course_lib.grading``: grade a class's notebooks for one chapter (``make grade``).

    python -m course_lib.grading --chapter 05 --submissions FOLDER_OR_ZIP --out FOLDER

writes FOLDER/grades.csv, FOLDER/feedback/<student>.md, FOLDER/answers.md, FOLDER/review.md
(for the instructor) and FOLDER/summary.txt, and prints the summary. ``--gradescope FILE.zip`` writes a Gradescope
autograder for the chapter instead (see ``course_lib.grading.gradescope``).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import dataclasses
import os
import re
import sys
import tempfile
from pathlib import Path

from course_lib.grading.assignment import Assignment, load_assignment
from course_lib.grading.grade import DEFAULT_TIMEOUT_S, Graded, Options, grade_submission
from course_lib.grading.preflight import preflight
from course_lib.grading.report import (
    accounted,
    summary,
    write_answers,
    write_feedback,
    write_gradebook,
    write_review,
)
from course_lib.grading.submission import Submission, collect_all

REPOSITORY = Path(__file__).resolve().parents[2]
REPOSITORY_EXERCISES = REPOSITORY / "exercises"
OUTPUTS = ("grades.csv", "answers.md", "review.md", "summary.txt", "feedback")


class UsageError(ValueError):
    """Bad arguments: the message says what was given and what to give instead."""


class PreflightFailed(RuntimeError):
    """The chapter's solutions or the untouched notebook did not grade as they must."""


def find_template(chapter: str, exercises: Path) -> Path:
    """The student notebook of ``chapter`` (``"05"``, ``"02a"``) in ``exercises``."""
    found = sorted(exercises.glob(f"{chapter}_*_exercises.ipynb"))
    if len(found) == 1:
        return found[0]
    known = sorted(p.name.split("_")[0] for p in exercises.glob("*_exercises.ipynb"))
    if not known:
        raise UsageError(
            f"no exercise notebooks in {exercises}: run from the book's repository, or pass "
            "--exercises FOLDER (the repository's exercises/ folder)"
        )
    hint = ""
    if chapter.isdigit() and f"{int(chapter):02d}" in known:
        hint = f" (did you mean CHAPTER={int(chapter):02d}?)"
    raise UsageError(
        f"CHAPTER={chapter} names no chapter{hint}: expected one of {', '.join(known)}"
    )


_UNITS = {"s": 1, "sec": 1, "m": 60, "min": 60, "h": 3600, "hr": 3600, "hour": 3600}


def seconds(text: str) -> float:
    """``--timeout``'s value: a number of seconds. A value with a unit (``2m``, ``90s``,
    ``1h``) is refused with the number of seconds to give instead."""
    try:
        return float(text)
    except ValueError:
        pass
    found = re.fullmatch(r"\s*(\d+(?:\.\d*)?|\.\d+)\s*([a-z]+?)s?\.?\s*", text.lower())
    unit = found.group(2).removesuffix("ute").removesuffix("ond") if found else ""
    factor = _UNITS.get(unit)
    if factor is None:
        value, hint = 120.0, "e.g. --timeout 120 for two minutes"
    else:
        value = float(found.group(1)) * factor
        hint = f"{text!r} is {value:g} seconds, so give --timeout {value:g}"
    raise argparse.ArgumentTypeError(
        f"TIMEOUT={text}: expected a number of seconds per cell and per check, without a "
        f"unit: {hint} (TIMEOUT={value:g} with make)"
    )


def check_out(out: Path) -> None:
    """Refuse to write over an earlier run's results: nothing is lost."""
    if out.exists() and not out.is_dir():
        raise UsageError(f"OUT={out} is a file: give a folder (it is created if missing)")
    earlier = [name for name in OUTPUTS if (out / name).exists()]
    if earlier:
        raise UsageError(
            f"OUT={out} already holds {', '.join(earlier)} from an earlier run: give a new "
            "folder, or move that one away first (the grader never writes over grades)"
        )


def grade_class(
    assignment: Assignment,
    submissions: Path,
    jobs: int = 2,
    options: Options | None = None,
    progress=None,
    before=None,
) -> tuple[list[Graded], list[Submission]]:
    """Grade every submission, ``jobs`` at a time: the results sorted by student id, and the
    files listed but not graded (``collect_all``: an LMS's or an operating system's own).
    ``before()``, when given, runs once the submissions are found and before any is graded
    (the preflight)."""
    options = options or Options()
    with tempfile.TemporaryDirectory(prefix="grade-class-") as tmp:
        collected = collect_all(submissions, Path(tmp))
        found = collected.graded
        hidden = (*options.hidden, Path(submissions).resolve(), Path(tmp))
        options = dataclasses.replace(options, hidden=hidden)
        if before is not None:
            before()
        graded = []
        with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
            futures = [pool.submit(grade_submission, s, assignment, options) for s in found]
            for i, future in enumerate(concurrent.futures.as_completed(futures), start=1):
                g = future.result()
                graded.append(g)
                if progress:
                    progress(f"[{i}/{len(found)}] {g.student}: {g.status} ({g.seconds:.0f} s)")
    return sorted(graded, key=lambda g: g.student), collected.listed


def write_results(
    out: Path, assignment: Assignment, graded: list[Graded], listed: list[Submission] = ()
) -> str:
    """Write every output; raise if a row or a page is missing (nothing is lost)."""
    out.mkdir(parents=True, exist_ok=True)
    write_gradebook(out / "grades.csv", assignment, graded)
    write_feedback(out / "feedback", assignment, graded)
    write_answers(out / "answers.md", assignment, graded)
    write_review(out / "review.md", graded, listed)
    text = summary(assignment, graded, listed)
    (out / "summary.txt").write_text(text + "\n", encoding="utf-8")
    problems = accounted(len(graded), out, listed)
    if problems:
        raise RuntimeError("not every file is accounted for: " + "; ".join(problems))
    return text


def _zip_name(path: Path) -> str:
    """``autograder.tar.gz`` -> ``autograder.zip``."""
    stem = path.name.split(".")[0] or "autograder"
    return f"{stem}.zip"


class _Parser(argparse.ArgumentParser):
    """argparse, with a value given to a flag (``--all-cells 1``, ``--all-cells=1``) named
    as such: argparse itself says "unrecognized arguments: 1", or "ignored explicit
    argument", without saying which option takes no value."""

    def parse_args(self, args=None, namespace=None):
        argv = list(sys.argv[1:] if args is None else args)
        parsed, extra = self.parse_known_args(argv, namespace)
        if extra:
            flags = self._flags()
            for before, value in zip(argv, argv[1:], strict=False):
                if before in flags and value in extra and not value.startswith("--"):
                    self.error(_flag_message(before, value))
            self.error(f"unrecognized arguments: {' '.join(extra)}")
        return parsed

    def error(self, message: str):
        found = re.match(r"argument (\S+): ignored explicit argument '(.*)'", message)
        if found:
            flag = found.group(1).split("/")[-1]
            message = _flag_message(flag, found.group(2), "=")
        super().error(message)

    def _flags(self) -> set[str]:
        """The options that take no value (``store_true`` and the like)."""
        return {
            option
            for action in self._actions
            if action.nargs == 0 and action.option_strings
            for option in action.option_strings
        }


#: The make variable of a flag (``make grade ALL_CELLS=1``), for the message.
_MAKE_VARIABLES = {"--all-cells": "ALL_CELLS", "--unsandboxed": "UNSANDBOXED"}


def sandbox_or_refusal(unsandboxed: bool) -> None:
    """Refuse to start where the sandbox cannot run, unless told ``--unsandboxed``."""
    if unsandboxed:
        return
    from course_lib.grading.sandbox import probe

    reason = probe()
    if reason:
        raise UsageError(
            f"the grader runs each submission in a sandbox of its own (bubblewrap), and it "
            f"cannot here: {reason}. Grade on Linux with bubblewrap, or in a container, one "
            'per submission (README: "Grading in a container"), or pass --unsandboxed '
            "(UNSANDBOXED=1 with make) to run the students' code as your own user, with your "
            'files and network: the gradebook\'s status column then says "unsandboxed"'
        )


def _flag_message(flag: str, value: str, given: str = " ") -> str:
    """``--all-cells 1`` (``given`` ``"="`` for ``--all-cells=1``): the flag takes no value."""
    variable = _MAKE_VARIABLES.get(flag)
    make = f" (with make, {variable}=1 gives {flag})" if variable else ""
    return (
        f"{flag}{given}{value}: {flag} is a flag and takes no value; give {flag} alone to "
        f"switch it on, or leave it out{make}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = _Parser(
        prog="python -m course_lib.grading",
        description="Grade a class's exercise notebooks with the book's self-checks.",
    )
    parser.add_argument("--chapter", required=True, help="as in the file names: 01, 02a, ... 07")
    parser.add_argument("--submissions", type=Path, help="folder (or .zip) of .ipynb files")
    parser.add_argument("--out", type=Path, help="folder for grades.csv, feedback/, answers.md")
    parser.add_argument("--jobs", type=int, default=2, help="submissions at a time (default 2)")
    parser.add_argument(
        "--timeout",
        type=seconds,
        default=DEFAULT_TIMEOUT_S,
        help=f"seconds per cell and per check (default {DEFAULT_TIMEOUT_S:g})",
    )
    parser.add_argument(
        "--exercises",
        type=Path,
        default=REPOSITORY_EXERCISES if REPOSITORY_EXERCISES.is_dir() else Path("exercises"),
        help="the folder of the student notebooks (default: the repository's exercises/)",
    )
    parser.add_argument(
        "--variant",
        type=int,
        default=1,
        help="which unseen cases the checks run on (default 1; change it for a final run)",
    )
    parser.add_argument(
        "--all-cells",
        action="store_true",
        help="run every code cell, not only those the checks need (slower: experiments too)",
    )
    parser.add_argument(
        "--unsandboxed",
        action="store_true",
        help="run students' code as your own user, without the bubblewrap sandbox (where "
        "bwrap is missing; the gradebook's status says so)",
    )
    parser.add_argument("--gradescope", type=Path, help="write a Gradescope autograder zip")
    args = parser.parse_args(argv)
    try:
        if args.gradescope and args.gradescope.suffix.lower() != ".zip":
            raise UsageError(
                f"--gradescope {args.gradescope}: Gradescope takes the autograder as a .zip "
                f"archive, and a .zip is what is written: name the file with .zip, e.g. "
                f"--gradescope {args.gradescope.parent / _zip_name(args.gradescope)}"
            )
        mixed = [
            flag
            for flag, value in (("--submissions", args.submissions), ("--out", args.out))
            if value is not None
        ]
        if args.gradescope and mixed:
            raise UsageError(
                f"--gradescope with {' and '.join(mixed)}: the two modes do not mix. "
                f"--gradescope only writes the autograder zip (Gradescope grades the "
                f"submissions it receives); --submissions and --out grade a class here. Run "
                f"them as two commands: python -m course_lib.grading --chapter "
                f"{args.chapter} --gradescope {args.gradescope}, and, to grade here, "
                f"python -m course_lib.grading --chapter {args.chapter} --submissions "
                f"FOLDER_OR_ZIP --out FOLDER"
            )
        template = find_template(args.chapter, args.exercises)
        assignment = load_assignment(template)
        if args.gradescope:
            from course_lib.grading.gradescope import write_autograder

            write_autograder(args.gradescope, template, Options(args.timeout, False, args.variant))
            print(f"wrote {args.gradescope}: upload it as the assignment's autograder")
            return 0
        if args.submissions is None or args.out is None:
            raise UsageError("give --submissions FOLDER_OR_ZIP and --out FOLDER")
        if args.jobs < 1:
            raise UsageError(
                f"JOBS={args.jobs}: expected a positive number of submissions at a time "
                f"(this machine has {os.cpu_count()} cores)"
            )
        try:
            options = Options(args.timeout, args.all_cells, args.variant)
        except ValueError as err:
            raise UsageError(f"TIMEOUT={args.timeout:g} VARIANT={args.variant}: {err}") from None
        check_out(args.out)
        sandbox_or_refusal(args.unsandboxed)
        options = dataclasses.replace(
            options,
            sandbox=not args.unsandboxed,
            hidden=(args.out.resolve(), args.submissions.resolve()),
        )

        def check_first():
            print("preflight: the chapter's solutions and the untouched notebook ...", flush=True)
            failed = preflight(assignment, template, options, REPOSITORY)
            if failed:
                raise PreflightFailed(failed)

        graded, listed = grade_class(
            assignment,
            args.submissions,
            jobs=args.jobs,
            options=options,
            progress=lambda line: print(line, flush=True),
            before=check_first,
        )
        text = write_results(args.out, assignment, graded, listed)
    except (UsageError, FileNotFoundError, ValueError, PreflightFailed) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    print(text)
    print(
        f"written to {args.out}: grades.csv, feedback/ ({len(graded)} pages), answers.md, review.md"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
