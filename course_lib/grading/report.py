"""What the grader writes: the gradebook, a feedback page per student, the written answers
gathered by question, and a summary of what the class got wrong."""

from __future__ import annotations

import csv
import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from course_lib._foreign_names import explains_bad_calls
from course_lib.grading.assignment import Assignment
from course_lib.grading.grade import Graded
from course_lib.grading.submission import Submission, fold_name, unique_names

NUMBER = re.compile(r"\d+(?:\.\d+)?")

__all__ = [
    "write_gradebook",
    "write_feedback",
    "write_answers",
    "write_review",
    "summary",
    "column_names",
    "feedback_names",
    "accounted",
]

#: Characters kept in a feedback page's file name (any other run becomes ``_``).
UNSAFE = re.compile(r"[^\w.@~-]+")
#: Names Windows keeps for devices, with any extension.
RESERVED = re.compile(r"(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])", re.I)
#: The longest readable part of a feedback page's name, in UTF-8 bytes (with ``~``, the
#: hash and ``.md`` a name stays far below the 255 bytes file systems allow).
MAX_NAME_BYTES = 120


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


def _readable(student: str) -> tuple[str, bool]:
    """``student`` as a safe file name, and whether it had to be shortened or was empty."""
    text = UNSAFE.sub("_", unicodedata.normalize("NFC", student)) or "_"
    if text.startswith("."):
        text = "_" + text[1:]
    if RESERVED.fullmatch(text.split(".")[0]):
        text = "_" + text
    cut = text.encode("utf-8")[:MAX_NAME_BYTES].decode("utf-8", "ignore")
    return cut, cut != text or not student.strip()


@explains_bad_calls()
def feedback_names(students: Sequence[str]) -> list[str]:
    """The file name of each student's feedback page (``feedback/<name>``), in order: safe on
    Linux, macOS and Windows, readable, and unique even where file systems ignore case.

    A name is the id with every run of characters other than letters, digits and ``_ . @ ~
    -`` made ``_`` (NFC-normalised; a leading dot, which would hide the page, and a Windows
    device name such as ``CON`` get a ``_`` in front). Where two names would be equal
    (case-insensitively: ``Jane Doe`` and ``Jane_Doe``, two emoji names, ``Ada`` and
    ``ada``), each gets ``~`` and a short hash of its id, except one id that is its name
    unchanged (``Jane_Doe``), which keeps it; an id that had to be shortened (to
    ``MAX_NAME_BYTES`` bytes) or is empty always gets the hash. The same ids give the same
    names, in any order.

    Args:
        students: the student ids (unique, as ``collect`` gives them; a repeated id still
            gets a page of its own).

    Returns:
        One ``<name>.md`` per id.
    """
    students = list(students)
    readable, forced, keys, seen = [], [], [], Counter()
    for student in students:
        name, must = _readable(student)
        seen[student] += 1
        readable.append(name)
        forced.append(must)
        keys.append(student if seen[student] == 1 else f"{student}\x00{seen[student]}")
    groups: dict[str, list[int]] = {}
    for i, name in enumerate(readable):
        groups.setdefault(fold_name(name), []).append(i)
    hashed = list(forced)
    for members in groups.values():
        if len(members) == 1:
            continue
        verbatim = [i for i in members if readable[i] == students[i] and not forced[i]]
        keeper = verbatim[0] if len(verbatim) == 1 else None
        for i in members:
            hashed[i] = hashed[i] or i != keeper
    return [f"{name}.md" for name in unique_names(readable, keys, hashed)]


def _code(text: str) -> str:
    """``text`` as Markdown inline code, whatever backticks it holds."""
    fence = "`" * (max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def feedback_page(assignment: Assignment, g: Graded) -> str:
    """One student's feedback, in Markdown."""
    possible = sum(e.points for e in assignment.exercises if e.autograded)
    lines = [f"# Feedback: {assignment.title}", "", f"Student: {_code(g.student)}", ""]
    if not g.exercises and g.status.startswith("skipped: "):
        lines += [
            f"**This file was not graded: {g.status.removeprefix('skipped: ')}.** If it is "
            f"your submission, submit the notebook `exercises/{assignment.chapter}_exercises"
            ".ipynb` with your answers as a `.ipynb` file saved from Jupyter or Colab.",
            "",
        ]
        return "\n".join(lines)
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
    """``feedback/<name>.md`` for every submission, ``<name>`` from :func:`feedback_names`
    (the page itself states the student's full id).

    Args:
        folder: the folder of the pages (created if missing).
        assignment: the chapter's exercises.
        graded: the class's results.
    """
    folder.mkdir(parents=True, exist_ok=True)
    for g, name in zip(graded, feedback_names([g.student for g in graded]), strict=True):
        page = feedback_page(assignment, g)
        (folder / name).write_text(page, encoding="utf-8")


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
def write_review(path: Path, graded: list[Graded], listed: Sequence[Submission] = ()) -> None:
    """``review.md``: for the instructor only, what each submission did that a person should
    look at -- library functions it replaced (put back before the checks ran), cells that
    raised outside any exercise, steps that timed out or ended Python -- and every file
    found that has no row in ``grades.csv``, with why.

    Args:
        path: the file to write.
        graded: the class's results.
        listed: the files found that are not rows (``collect_all(...).listed``).
    """
    lines = ["# For the instructor: what to look at", ""]
    flagged = [g for g in graded if g.notes or g.status not in ("graded",)]
    if not flagged:
        lines.append("Nothing: every submission ran without trouble.")
        lines.append("")
    for g in flagged:
        lines += [f"## {g.student}", "", f"Status: {g.status}", ""]
        lines += [f"- {note}" for note in g.notes]
        lines.append("")
    lines += _not_graded(listed)
    path.write_text("\n".join(lines), encoding="utf-8")


def _not_graded(listed: Sequence[Submission]) -> list[str]:
    """``review.md``'s section on the files found that have no row."""
    if not listed:
        return []
    lines = [
        f"## Files not graded ({len(listed)})",
        "",
        "Found in SUBMISSIONS, added by an operating system, Jupyter or a version-control "
        "tool (or hidden files that are not notebooks): no row in grades.csv.",
        "",
    ]
    lines += [f"- {_code(s.source or s.student)}: {s.status}" for s in listed]
    lines.append("")
    return lines


@explains_bad_calls()
def summary(assignment: Assignment, graded: list[Graded], listed: Sequence[Submission] = ()) -> str:
    """The class at a glance: submissions by status, the files found that have no row,
    each autograded exercise's mean and distribution, and the exercises most students
    failed with the messages they failed with -- what to teach again.

    Args:
        assignment: the chapter's exercises.
        graded: the class's results.
        listed: the files found that are not rows (``collect_all(...).listed``).

    Returns:
        The summary, lines of text.
    """
    out = [f"{len(graded)} submission(s) for {assignment.chapter}"]
    statuses = Counter(g.status.split(";")[0] for g in graded)
    out.append("  " + ", ".join(f"{n} {status}" for status, n in statuses.most_common()))
    if listed:
        why = Counter(s.status.removeprefix("skipped: ") for s in listed)
        out.append(
            f"{len(listed)} more file(s) found, not graded and not in grades.csv (listed in "
            "review.md): " + ", ".join(f"{n} {w}" for w, n in why.most_common())
        )
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


def _rows(gradebook: Path) -> tuple[list[str] | None, str]:
    """The ``student`` column of ``grades.csv``, or ``None`` and why it cannot be read."""
    try:
        with open(gradebook, newline="", encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
    except (OSError, UnicodeDecodeError, csv.Error) as err:
        return None, f"{gradebook} could not be read ({err})"
    if rows and "student" not in rows[0]:
        return None, f"{gradebook} has no student column"
    return [row["student"] for row in rows], ""


def _pages(folder: Path, students: list[str]) -> list[str]:
    """What is wrong with the feedback pages of ``students`` in ``folder``."""
    problems = []
    pages = sorted(p.name for p in folder.glob("*.md")) if folder.is_dir() else []
    if len(pages) != len(students):
        problems.append(
            f"{folder} holds {len(pages)} feedback page(s), expected one per row of "
            f"grades.csv: {len(students)}"
        )
    for student, name in zip(students, feedback_names(students), strict=True):
        page = folder / name
        if not page.is_file():
            problems.append(f"no feedback page {name} for {student!r}")
        elif student not in page.read_text(encoding="utf-8", errors="replace"):
            problems.append(f"the feedback page {name} does not name {student!r}")
    return problems


@explains_bad_calls()
def accounted(found: int, out: Path, listed: Sequence[Submission] = ()) -> list[str]:
    """The final check of a run: every file found has a row or is listed, every row a page.

    Args:
        found: how many rows ``grades.csv`` must have: the submissions graded
            (``len(collect_all(...).graded)``).
        out: the folder the results were written to.
        listed: the files found that have no row (``collect_all(...).listed``): each must
            be named in ``review.md``.

    Returns:
        One sentence per thing wrong, and an empty list when all is accounted for. Wrong
        are: rows other than ``found``, a student id twice, feedback pages other than one
        per row (each found under its :func:`feedback_names` name and stating the id), a
        listed file that ``review.md`` does not name.
    """
    out = Path(out)
    students, problem = _rows(out / "grades.csv")
    if students is None:
        return [problem]
    problems = []
    if len(students) != found:
        problems.append(
            f"grades.csv has {len(students)} row(s), expected one per submission found: {found}"
        )
    twice = [s for s, n in Counter(fold_name(s) for s in students).items() if n > 1]
    if twice:
        problems.append(f"grades.csv has more than one row for {', '.join(map(repr, twice))}")
    problems += _pages(out / "feedback", students)
    if listed:
        review = out / "review.md"
        text = review.read_text(encoding="utf-8") if review.is_file() else ""
        problems += [
            f"review.md does not list {s.source!r}, found and not graded"
            for s in listed
            if (s.source or s.student) not in text
        ]
    return problems
