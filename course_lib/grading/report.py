"""What the grader writes: the gradebook, a feedback page per student, the written answers
gathered by question, and a summary of what the class got wrong."""

from __future__ import annotations

import csv
import re
from collections import Counter
from pathlib import Path

from course_lib._foreign_names import explains_bad_calls
from course_lib.grading.assignment import Assignment
from course_lib.grading.grade import Graded

NUMBER = re.compile(r"\d+(?:\.\d+)?")

__all__ = [
    "write_gradebook",
    "write_feedback",
    "write_answers",
    "write_review",
    "summary",
    "column_names",
]


def _points(value: float) -> str:
    return f"{value:g}"


@explains_bad_calls()
def column_names(assignment: Assignment) -> list[str]:
    """``student``, one column per exercise (``ex3``; ``ex4 (by hand)`` for the exercises an
    instructor grades; an exercise with checks and a written answer gets both ``ex5`` and
    ``ex5 written (by hand)``), ``total`` (autograded points), ``possible`` (autograded
    points possible), ``status``."""
    exercises = []
    for e in assignment.exercises:
        exercises.append(f"ex{e.number}" + ("" if e.autograded else " (by hand)"))
        if e.autograded and e.written:
            exercises.append(f"ex{e.number} written (by hand)")
    return ["student", *exercises, "total", "possible", "status"]


@explains_bad_calls()
def write_gradebook(path: Path, assignment: Assignment, graded: list[Graded]) -> None:
    """``grades.csv``: one row per submission, every submission present."""
    possible = sum(e.points for e in assignment.exercises if e.autograded)
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(column_names(assignment))
        for g in graded:
            by_number = {e.number: e for e in g.exercises}
            cells = []
            for exercise in assignment.exercises:
                result = by_number.get(exercise.number)
                if result is None:
                    cells.append("0" if exercise.autograded and g.exercises else "")
                else:
                    cells.append("" if result.points is None else _points(result.points))
                if exercise.autograded and exercise.written:
                    cells.append("")  # the written part, for the instructor
            total = _points(g.total) if g.exercises else "0"
            writer.writerow([g.student, *cells, total, _points(possible), g.status])


def _safe_name(student: str) -> str:
    return re.sub(r"[^\w.@-]+", "_", student) or "_"


def feedback_page(assignment: Assignment, g: Graded) -> str:
    """One student's feedback, in Markdown."""
    possible = sum(e.points for e in assignment.exercises if e.autograded)
    lines = [f"# Feedback: {assignment.title}", "", f"Student: `{g.student}`", ""]
    if not g.exercises:
        lines += [
            f"**Your submission could not be graded: {g.status}.** Submit the notebook "
            f"`exercises/{assignment.chapter}_exercises.ipynb` with your answers, as a "
            "`.ipynb` file saved from Jupyter or Colab.",
            "",
        ]
        return "\n".join(lines)
    lines += [
        f"**Autograded points: {_points(g.total)} of {_points(possible)}.** Each check ran on "
        "cases you did not see in the notebook (other random inputs, and some extra cases), "
        "so a function that is right in general passes; the messages below are the same a "
        "check cell prints.",
        "",
    ]
    if g.cells_not_run:
        lines += [
            f"The grader ran the cells that define your functions; {g.cells_not_run} other "
            "code cell(s) (experiments, figures) are read by your instructor, not run.",
            "",
        ]
    by_number = {e.number: e for e in g.exercises}
    for exercise in assignment.exercises:
        result = by_number[exercise.number]
        points = _points(exercise.points)
        lines.append(f"## {exercise.label} ({points} point{'s' if points != '1' else ''})")
        lines.append("")
        if result.points is None:
            what = "your written answer" if exercise.written else "your code and figure"
            lines.append(f"Graded by your instructor, who reads {what}.")
        else:
            mark = "✓" if result.status == "passed" else "✗"
            lines.append(f"{mark} **{result.status}**: {_points(result.points)} of {points}.")
            if exercise.written:
                lines.append("")
                lines.append("Your written answer is read by your instructor.")
        for message in result.messages:
            lines += ["", "```text", message.strip(), "```"]
        lines.append("")
    return "\n".join(lines)


@explains_bad_calls()
def write_feedback(folder: Path, assignment: Assignment, graded: list[Graded]) -> None:
    """``feedback/<student>.md`` for every submission."""
    folder.mkdir(parents=True, exist_ok=True)
    for g in graded:
        page = feedback_page(assignment, g)
        (folder / f"{_safe_name(g.student)}.md").write_text(page, encoding="utf-8")


@explains_bad_calls()
def write_answers(path: Path, assignment: Assignment, graded: list[Graded]) -> None:
    """``answers.md``: for each exercise that asks for a written answer, every student's
    answer under their id, so one question is read for the whole class at once."""
    lines = [f"# Written answers: {assignment.title} (`{assignment.chapter}`)", ""]
    readable = [g for g in graded if g.exercises]
    for exercise in assignment.exercises:
        written = [g for g in readable if exercise.number in g.answers]
        if not exercise.written and not written:
            continue
        lines += [f"## {exercise.label}", ""]
        lines += ["> " + line if line else ">" for line in exercise.statement.splitlines()[1:]]
        lines.append("")
        for g in readable:
            answer = g.answers.get(exercise.number, "").strip()
            lines += [f"### {g.student}", "", answer or "*(no answer)*", ""]
    path.write_text("\n".join(lines), encoding="utf-8")


@explains_bad_calls()
def write_review(path: Path, graded: list[Graded]) -> None:
    """``review.md``: for the instructor only, what each submission did that a person should
    look at -- library functions it replaced (put back before the checks ran), cells that
    raised outside any exercise, steps that timed out or ended Python."""
    lines = ["# For the instructor: what to look at", ""]
    flagged = [g for g in graded if g.notes or g.status not in ("graded",)]
    if not flagged:
        lines.append("Nothing: every submission ran without trouble.")
    for g in flagged:
        lines += [f"## {g.student}", "", f"Status: {g.status}", ""]
        lines += [f"- {note}" for note in g.notes]
        lines.append("")
    path.write_text("\n".join(lines), encoding="utf-8")


@explains_bad_calls()
def summary(assignment: Assignment, graded: list[Graded]) -> str:
    """The class at a glance: submissions by status, each autograded exercise's mean and
    distribution, and the exercises most students failed with the messages they failed
    with -- what to teach again."""
    out = [f"{len(graded)} submission(s) for {assignment.chapter}"]
    statuses = Counter(g.status.split(";")[0] for g in graded)
    out.append("  " + ", ".join(f"{n} {status}" for status, n in statuses.most_common()))
    readable = [g for g in graded if g.exercises]
    if not readable:
        return "\n".join(out)
    possible = sum(e.points for e in assignment.exercises if e.autograded)
    totals = [g.total for g in readable]
    out.append(
        f"autograded total: mean {sum(totals) / len(totals):.2f} of {possible:g}, "
        f"median {sorted(totals)[len(totals) // 2]:g}, {sum(t == possible for t in totals)} "
        "full marks"
    )
    out.append("exercise  mean  distribution of points")
    failing = []
    for exercise in assignment.exercises:
        if not exercise.autograded:
            out.append(f"  ex{exercise.number:<3}        graded by hand")
            continue
        results = [next(e for e in g.exercises if e.number == exercise.number) for g in readable]
        points = [r.points or 0.0 for r in results]
        counts = Counter(_points(p) for p in points)
        spread = ", ".join(f"{p}: {n}" for p, n in sorted(counts.items(), key=lambda c: c[0]))
        mean = sum(points) / len(points)
        out.append(f"  ex{exercise.number:<3}  {mean:5.2f}  {spread}  (of {exercise.points:g})")
        missed = [r for r in results if r.status != "passed"]
        if missed:
            failing.append((len(missed), exercise, missed))
    review = [g.student for g in graded if any(n.startswith("review:") for n in g.notes)]
    if review:
        out.append(f"to review by hand (see review.md): {', '.join(review)}")
    failing.sort(key=lambda f: -f[0])
    if failing:
        out.append("most missed (what to re-teach):")
        for n, exercise, missed in failing[:5]:
            out.append(f"  {exercise.label}: {n} of {len(readable)} did not pass")
            first_lines = [
                r.messages[0].splitlines()[0] if r.messages else r.status for r in missed
            ]
            # the same mistake on other cases differs in its numbers only
            kinds = Counter(NUMBER.sub("#", line) for line in first_lines)
            example = {NUMBER.sub("#", line): line for line in reversed(first_lines)}
            for kind, k in kinds.most_common(3):
                out.append(f"    {k} x {example[kind][:150]}")
    return "\n".join(out)
