"""Before a class is graded: the chapter's own solutions and the untouched notebook go through
exactly the path the students' notebooks take (the same worker, sandbox, limits and unseen
cases). Unless the solutions score full marks and the untouched notebook zero, grading does
not start, and the instructor is told what came instead.

A broken environment -- a worker that cannot start or cannot import the library, a sandbox
that hides the data, a library whose checks disagree with its own solutions -- would
otherwise give every student the same wrong grade.
"""

from __future__ import annotations

import importlib.util
import sys
import tempfile
from pathlib import Path

from course_lib._foreign_names import explains_bad_calls
from course_lib.grading.assignment import Assignment
from course_lib.grading.grade import Graded, Options, grade_submission
from course_lib.grading.submission import Submission

__all__ = ["preflight", "solutions_notebook"]


@explains_bad_calls()
def solutions_notebook(assignment: Assignment, repository: Path, folder: Path) -> Path | None:
    """The student notebook with the chapter's own solutions, written in ``folder``; ``None``
    where the chapter is not at hand (the grader used outside the book's repository)."""
    chapter = repository / "chapters" / f"{assignment.chapter}.ipynb"
    tool = repository / "tools" / "make_student.py"
    if not (chapter.is_file() and tool.is_file()):
        return None
    sys.path.insert(0, str(tool.parent))
    try:
        spec = importlib.util.spec_from_file_location("_course_make_student", tool)
        make_student = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(make_student)
        notebook = make_student.build_student(chapter, keep_solutions=True)
    finally:
        sys.path.remove(str(tool.parent))
    import nbformat

    path = folder / "solutions.ipynb"
    nbformat.write(notebook, path)
    return path


def _shortfall(graded: Graded, want_full: bool) -> list[str]:
    """What a preflight submission got that it should not have, exercise by exercise."""
    lines = []
    if not graded.exercises:
        return [f"it could not be graded: {graded.status}"]
    for exercise in graded.exercises:
        if exercise.points is None:
            continue
        full = exercise.status == "passed"
        if full != want_full and (want_full or exercise.points):
            said = exercise.messages[0] if exercise.messages else exercise.status
            lines.append(f"exercise {exercise.number}: {exercise.status}: {said[:400]}")
    for note in graded.notes:
        if "stopped Python" in note or "could not prepare" in note:
            lines.append(note[:400])
    return lines


@explains_bad_calls()
def preflight(assignment: Assignment, template: Path, options: Options, repository: Path) -> str:
    """``""`` when the grader is ready; otherwise what went wrong, for the instructor.

    Args:
        assignment: the chapter's exercises.
        template: the student notebook as handed out (it must score zero).
        options: the options the class will be graded with.
        repository: the book's repository (its ``chapters/`` give the solutions).
    """
    problems = []
    with tempfile.TemporaryDirectory(prefix="grade-preflight-") as tmp:
        folder = Path(tmp)
        untouched = grade_submission(Submission("untouched", template), assignment, options)
        for line in _shortfall(untouched, want_full=False):
            problems.append(f"the untouched notebook: {line}")
        solved = solutions_notebook(assignment, repository, folder)
        if solved is not None:
            graded = grade_submission(Submission("solutions", solved), assignment, options)
            for line in _shortfall(graded, want_full=True):
                problems.append(f"the chapter's own solutions: {line}")
    if not problems:
        return ""
    return (
        "the preflight failed: the chapter's solutions must score full marks and the "
        "untouched notebook zero, through the same worker the students' notebooks take, "
        "and they did not, so no submission was graded:\n  "
        + "\n  ".join(problems)
        + "\nFix the environment, or run `make doctor`, then grade again."
    )
