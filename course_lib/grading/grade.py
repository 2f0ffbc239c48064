"""Grading one submission: which steps to run, and what they mean for each exercise."""

from __future__ import annotations

import dataclasses
import re
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from course_lib._foreign_names import explains_bad_calls, explains_class
from course_lib.grading.assignment import (
    ANSWER_PLACEHOLDER,
    HEADING,
    SETUP_TAG,
    Assignment,
    cell_source,
    check_calls,
)
from course_lib.grading.run import Isolation, StepResult, run_steps
from course_lib.grading.sandbox import Limits
from course_lib.grading.slicing import binds_anywhere, needed_cells
from course_lib.grading.submission import Submission, read_cells

__all__ = ["ExerciseResult", "Graded", "Options", "grade_submission", "DEFAULT_TIMEOUT_S"]

DEFAULT_TIMEOUT_S = 120.0


@explains_class
@dataclasses.dataclass(frozen=True)
class Options:
    """How a class is graded.

    Attributes:
        timeout_s: seconds each cell and each check may take.
        all_cells: run every code cell, not only those the checks need (``slicing``).
        variant: which unseen cases the checks run on (``course_lib.checks.unseen_cases``);
            change it for a final run when students could see the feedback of earlier runs
            and resubmit.
        sandbox: run each submission in a sandbox of its own (``sandbox``); ``False`` runs
            it as the grader's user (``--unsandboxed``), and its status says so.
        hidden: folders no submission may see (SUBMISSIONS, OUT), hidden in the sandbox.
        limits: memory, processes, file size and CPU time of each submission's worker.
    """

    timeout_s: float = DEFAULT_TIMEOUT_S
    all_cells: bool = False
    variant: int = 1
    sandbox: bool = True
    hidden: tuple[Path, ...] = ()
    limits: Limits = dataclasses.field(default_factory=Limits)

    def __post_init__(self) -> None:
        t = self.timeout_s
        if isinstance(t, bool) or not isinstance(t, (int, float)):
            raise TypeError(
                f"timeout_s={t!r}: expected a number of seconds, e.g. timeout_s=120 "
                f"(got {type(t).__name__})"
            )
        if not self.timeout_s > 0:
            raise ValueError(f"timeout_s={self.timeout_s!r}: expected a positive number of seconds")
        if isinstance(self.variant, bool) or not isinstance(self.variant, int) or self.variant < 1:
            raise ValueError(
                f"variant={self.variant!r}: expected a positive integer (1 is the default; "
                "0 would be the cases the students saw)"
            )


@explains_class
@dataclass(frozen=True)
class ExerciseResult:
    """What a submission got for one exercise.

    Attributes:
        number: the exercise's number.
        points: the points it earned; ``None`` when it is graded by hand.
        status: ``passed``, ``partly passed``, ``failed``, ``not implemented``,
            ``timed out``, ``kernel died``, ``by hand`` or ``not graded``.
        messages: for the student: the checks' own words, or why they could not run.
    """

    number: int
    points: float | None
    status: str
    messages: tuple[str, ...]


@explains_class
@dataclass(frozen=True)
class Graded:
    """A graded submission.

    Attributes:
        student: the student's id.
        status: ``graded`` (with what went wrong on the way, ``; ``-separated), or why it
            could not be graded: ``empty file``, ``not a notebook``, ``wrong chapter (...)``.
        exercises: one result per exercise of the assignment (empty if not graded).
        answers: the written answers, by exercise number.
        notes: for the instructor: cells that raised, library functions the submission
            replaced.
        seconds: the time it took (wall clock).
        seconds_by_kind: where that time went: ``cells`` (the submission's code),
            ``prepare`` (putting the library back, the assignment's data), ``checks``, and
            ``start`` (starting Python and importing torch and the library, the rest).
        cells_not_run: code cells left out because the checks do not need them
            (experiments, figures; ``slicing``).
    """

    student: str
    status: str
    exercises: tuple[ExerciseResult, ...]
    answers: dict[int, str]
    notes: tuple[str, ...]
    seconds: float
    seconds_by_kind: dict[str, float] = dataclasses.field(default_factory=dict)
    cells_not_run: int = 0

    @property
    def total(self) -> float:
        return sum(e.points or 0.0 for e in self.exercises)


def _regions(cells: list[dict]) -> list[int]:
    """For each cell, the number of the exercise whose section it is in (0: before any)."""
    current, regions = 0, []
    for cell in cells:
        if cell.get("cell_type") == "markdown":
            heading = HEADING.match(cell_source(cell))
            if heading:
                current = int(heading["number"])
        regions.append(current)
    return regions


def written_answers(cells: list[dict], assignment: Assignment) -> dict[int, str]:
    """The Markdown the student wrote in each exercise's section: every Markdown cell that
    is not the notebook's own (statements, target figures) nor the untouched placeholder."""
    template = {e.statement for e in assignment.exercises}
    regions = _regions(cells)
    answers: dict[int, list[str]] = {}
    for cell, region in zip(cells, regions, strict=True):
        text = cell_source(cell).strip()
        if (
            cell.get("cell_type") != "markdown"
            or region == 0
            or not text
            or text in template
            or text.startswith(ANSWER_PLACEHOLDER + " *Double-click")
            or text.startswith("**Target figure**")
            or HEADING.match(text)
        ):
            continue
        answers.setdefault(region, []).append(text.removeprefix(ANSWER_PLACEHOLDER).strip())
    return {n: "\n\n".join(parts) for n, parts in answers.items()}


def plan(
    cells: list[dict], assignment: Assignment, options: Options | None = None
) -> tuple[list[dict], dict[str, int], int]:
    """The steps for a submission, for each cell step its exercise's number, and how many
    code cells are left out.

    The submission's code cells run in order, except the setup cell, cells that only call
    checks (the grader calls the checks itself, on the assignment's check cells) and --
    unless ``options.all_cells`` -- cells the checks do not need (``slicing``: experiments,
    figures)."""
    options = options or Options()
    runnable = []
    for index, (cell, region) in enumerate(zip(cells, _regions(cells), strict=True), start=1):
        source = cell_source(cell)
        if (
            cell.get("cell_type") != "code"
            or SETUP_TAG in cell.get("metadata", {}).get("tags", [])
            or not source.strip()
            or check_calls(source)
        ):
            continue
        runnable.append((index, region, source))
    names = {n for e in assignment.exercises if e.autograded for n in e.student_names}
    keep = needed_cells([s for _, _, s in runnable], names)
    steps, region_of = [], {}
    for (index, region, source), needed in zip(runnable, keep, strict=True):
        if not (needed or options.all_cells):
            continue
        step_id = f"cell:{index}"
        steps.append({"id": step_id, "kind": "cell", "source": source})
        region_of[step_id] = region
    steps.append({"id": "prepare", "kind": "prepare", "data_cells": list(assignment.data_cells)})
    for exercise in assignment.exercises:
        for j, source in enumerate(exercise.checks):
            steps.append(
                {
                    "id": f"check:{exercise.number}:{j}",
                    "kind": "check",
                    "source": source,
                    "student_names": list(exercise.student_names),
                    "variant": options.variant,
                }
            )
    return steps, region_of, len(runnable) - len(region_of)


def _cell_problem(step_id: str, result: StepResult) -> str:
    cell = step_id.split(":")[1]
    if result.outcome == "timed out":
        return f"cell {cell} timed out ({result.message}): an endless loop?"
    if result.outcome == "kernel died":
        return f"cell {cell} stopped Python itself ({result.message})"
    return f"cell {cell} raised {result.message}"


def score(
    assignment: Assignment, results: dict[str, StepResult], region_of: dict[str, int]
) -> tuple[list[ExerciseResult], list[str]]:
    """Each exercise's points and messages from the steps' results."""
    exercises, notes = [], []
    prepare = results.get("prepare", StepResult("not run"))
    if prepare.outcome == "changed":
        notes.append(f"review: {prepare.message} (put back before the checks ran)")
    elif prepare.outcome != "ok":
        notes.append(f"the grader could not prepare the checks: {prepare.message}")
    for exercise in assignment.exercises:
        cell_problems = [
            (step_id, result)
            for step_id, result in results.items()
            if step_id.startswith("cell:")
            and region_of.get(step_id) == exercise.number
            and result.outcome != "ok"
        ]
        messages = [_cell_problem(s, r) for s, r in cell_problems]
        if not exercise.autograded:
            status = "by hand"
            exercises.append(ExerciseResult(exercise.number, None, status, tuple(messages)))
            continue
        checks = [
            results.get(f"check:{exercise.number}:{j}", StepResult("not run"))
            for j in range(len(exercise.checks))
        ]
        passed = sum(r.outcome == "ok" for r in checks)
        for result in checks:
            if result.outcome == "timed out":
                messages.append(
                    f"the check timed out ({result.message}): does your function end on "
                    "every input?"
                )
            elif result.outcome == "kernel died":
                messages.append(f"your function stopped Python itself ({result.message})")
            elif result.outcome == "changed":
                messages.append(result.message)
                notes.append(f"review: exercise {exercise.number}: {result.message}")
            elif result.outcome != "ok":
                messages.append(result.message)
        outcomes = {r.outcome for r in checks} | {r.outcome for _, r in cell_problems}
        if passed == len(checks):
            status = "passed"
        elif "kernel died" in outcomes:
            status = "kernel died"
        elif "timed out" in outcomes:
            status = "timed out"
        elif passed:
            status = "partly passed"
        elif all("not implemented yet" in r.message for r in checks):
            status = "not implemented"
        else:
            status = "failed"
        points = exercise.points * passed / len(checks)
        exercises.append(ExerciseResult(exercise.number, points, status, tuple(messages)))
    for step_id, result in results.items():
        if step_id.startswith("cell:") and region_of.get(step_id) == 0 and result.outcome != "ok":
            notes.append(_cell_problem(step_id, result))
    return exercises, notes


def _run(submission: Submission, steps: list[dict], options: Options) -> dict[str, StepResult]:
    """Run the steps on a copy of the submission, alone in a temporary folder."""
    with tempfile.TemporaryDirectory(prefix="grade-") as tmp:
        workdir = Path(tmp) / "submission"
        workdir.mkdir()
        shutil.copy(submission.path, workdir / "submission.ipynb")
        limit = options.timeout_s
        timeout = {"cell": limit, "check": limit, "prepare": limit, "start": 120.0}
        hidden = (*options.hidden, submission.path.parent, Path(tmp))
        isolation = Isolation(options.sandbox, hidden, options.limits)
        return run_steps(steps, workdir, Path(tmp) / "output.log", timeout, isolation)


_MISSING_NAME = re.compile(r"defines no `(\w+)`|NameError: name '(\w+)' is not defined")


def _needs_every_cell(results, steps, cells) -> bool:
    """Whether a check failed on a name that a cell the slice left out may bind
    (``slicing.binds_anywhere``), or on a missing key (``KeyError``: which cell fills a
    dict is not known statically)."""
    ran = {s["id"] for s in steps}
    left_out = [
        source
        for index, cell in enumerate(cells, start=1)
        if cell.get("cell_type") == "code"
        and f"cell:{index}" not in ran
        and (source := cell_source(cell)).strip()
    ]
    for step_id, result in results.items():
        if not step_id.startswith("check:") or result.outcome != "failed":
            continue
        if "KeyError" in result.message:
            return True
        found = _MISSING_NAME.search(result.message)
        name = found and (found.group(1) or found.group(2))
        if name and any(binds_anywhere(source, name) for source in left_out):
            return True
    return False


@explains_bad_calls()
def grade_submission(
    submission: Submission, assignment: Assignment, options: Options | None = None
) -> Graded:
    """Grade one submission in a temporary folder of its own; never raises because of what
    the submission holds.

    Args:
        submission: the file and the student's id.
        assignment: the chapter's exercises.
        options: time limit, which cells, which unseen cases (default: ``Options()``).
    """
    if not isinstance(submission, Submission):
        raise TypeError(
            f"submission must be a Submission (the file and the student's id), got "
            f"{type(submission).__name__}: build one with Submission(student=..., path=...), "
            "or collect(submissions, unpack_to) finds them in a folder"
        )
    if options is not None and not isinstance(options, Options):
        if isinstance(options, dict) and all(isinstance(k, str) for k in options):
            given = ", ".join(f"{k}={v!r}" for k, v in options.items())
            fix = f"build one from it, Options(**options), i.e. Options({given})"
        else:
            fix = "build one, e.g. Options(timeout_s=120), or pass None for the defaults"
        raise TypeError(f"options must be an Options, got {type(options).__name__}: {fix}")
    options = options or Options()
    start = time.perf_counter()
    notes_of_file = (submission.note,) if submission.note else ()
    if submission.status:  # a row, not graded (a hidden notebook, a link)
        return Graded(submission.student, submission.status, (), {}, notes_of_file, 0.0)
    cells, problem = read_cells(submission.path, assignment)
    if cells is None:
        return Graded(submission.student, problem, (), {}, (), time.perf_counter() - start)
    steps, region_of, left_out = plan(cells, assignment, options)
    results = _run(submission, steps, options)
    extra = []
    if left_out and not options.all_cells and _needs_every_cell(results, steps, cells):
        # a check missed a name or key that a left-out cell may define: grade again with
        # every cell, and say so
        options = dataclasses.replace(options, all_cells=True)
        steps, region_of, left_out = plan(cells, assignment, options)
        results = _run(submission, steps, options)
        extra.append(
            "graded with every cell: with only the cells the checks need, a check missed a "
            "name or key that another cell defines"
        )
    exercises, notes = score(assignment, results, region_of)
    notes = [*notes_of_file, *notes, *extra]
    trouble = sorted(
        {
            f"{'raised' if result.outcome == 'error' else result.outcome}: "
            + (
                f"exercise {region_of[step_id]}"
                if region_of.get(step_id)
                else f"exercise {step_id.split(':')[1]}"
                if step_id.startswith("check:")
                else step_id.replace(":", " ")
            )
            for step_id, result in results.items()
            if result.outcome in ("timed out", "kernel died", "not run")
            or (result.outcome == "error" and step_id.startswith("cell:"))
        }
    )
    if extra:
        trouble.append("every cell run")
    if not options.sandbox:
        trouble.append("unsandboxed")
    if submission.note:
        trouble.append(submission.note)
    review = [n for n in notes if n.startswith("review:")]
    seconds = time.perf_counter() - start
    by_kind = {"cells": 0.0, "prepare": 0.0, "checks": 0.0}
    for step_id, result in results.items():
        kind = {"cell": "cells", "prepare": "prepare", "check": "checks"}[step_id.split(":")[0]]
        by_kind[kind] += result.seconds
    by_kind["start"] = max(0.0, seconds - sum(by_kind.values()))
    status = "; ".join(["graded", *trouble, *(["review"] if review else [])])
    return Graded(
        student=submission.student,
        status=status,
        exercises=tuple(exercises),
        answers=written_answers(cells, assignment),
        notes=tuple(notes),
        seconds=seconds,
        seconds_by_kind=by_kind,
        cells_not_run=left_out,
    )
