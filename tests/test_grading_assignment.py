"""What the grader reads from a student notebook, and what it writes for people to read."""

from __future__ import annotations

import json

import pytest

import nbtools
from course_lib.grading.assignment import load_assignment
from course_lib.grading.grade import ExerciseResult, Graded
from course_lib.grading.report import column_names, feedback_page, summary
from course_lib.grading.submission import Submission, collect, read_cells

TEMPLATES = sorted(nbtools.EXERCISES.glob("*_exercises.ipynb"))


# The exercises graded by hand, per chapter: written answers (and Chapter 6's open project,
# which asks for one too). Every other exercise has a check; the README lists these.
BY_HAND = {
    "01_seq2seq": [5],
    "02a_attention_pooling": [2],
    "02b_scoring_functions": [],
    "02c_attention": [2],
    "03_self_attention": [3],
    "04_positional_encoding": [1],
    "05_translation": [1, 2, 3, 6, 7, 8],
    "06_gps_trajectories": [10],
    "07_modern_transformers": [],
}


@pytest.mark.parametrize("template", TEMPLATES, ids=[t.name for t in TEMPLATES])
def test_every_exercise_is_autograded_or_a_written_answer_graded_by_hand(template):
    assignment = load_assignment(template)
    assert assignment.chapter == template.name.removesuffix("_exercises.ipynb")
    numbers = [e.number for e in assignment.exercises]
    assert numbers == list(range(1, len(numbers) + 1))
    by_hand = [e.number for e in assignment.exercises if not e.autograded]
    assert by_hand == BY_HAND[assignment.chapter]
    for exercise in assignment.exercises:
        assert exercise.points > 0
        assert exercise.title and "point" not in exercise.title
        if exercise.autograded:
            assert exercise.student_names, f"{exercise.label}: checks but no answer cell"
        else:
            assert exercise.written, f"{exercise.label}: graded by hand but asks for no answer"


def test_points_in_the_heading_are_read(tmp_path):
    nb = json.loads(TEMPLATES[0].read_text())
    for cell in nb["cells"]:
        source = "".join(cell["source"])
        if source.startswith("## Exercise 1:"):
            cell["source"] = source.replace("(1 point)", "(2.5 points)", 1)
    path = tmp_path / TEMPLATES[0].name
    path.write_text(json.dumps(nb))
    assignment = load_assignment(path)
    assert assignment.exercises[0].points == 2.5
    assert "points" not in assignment.exercises[0].title


def test_a_notebook_that_is_not_a_student_notebook_is_refused(tmp_path):
    path = tmp_path / "x.ipynb"
    path.write_text(json.dumps({"cells": [{"cell_type": "markdown", "source": "# Hello"}]}))
    with pytest.raises(ValueError, match="not a student notebook made by `make student`"):
        load_assignment(path)


def test_student_ids_follow_the_export_layout(tmp_path):
    (tmp_path / "flat.ipynb").write_text("{}")
    (tmp_path / "Jane Doe_123").mkdir()
    (tmp_path / "Jane Doe_123" / "exercises.ipynb").write_text("{}")
    (tmp_path / "__MACOSX").mkdir()
    (tmp_path / "__MACOSX" / "._flat.ipynb").write_text("junk")
    (tmp_path / ".DS_Store").write_text("junk")
    found = collect(tmp_path, tmp_path / "unpacked")
    assert [s.student for s in found] == ["Jane Doe_123__exercises", "flat"]


@pytest.mark.parametrize(
    "content, status",
    [
        (b"", "empty file"),
        (b"   \n", "empty file"),
        (b"\x89PNG\r\n", "not a notebook"),
        (b'{"cells": "none"}', "not a notebook"),
        (b"[1, 2]", "not a notebook"),
    ],
)
def test_unreadable_files_get_a_status(tmp_path, content, status):
    path = tmp_path / "s.ipynb"
    path.write_bytes(content)
    assignment = load_assignment(TEMPLATES[0])
    assert read_cells(path, assignment) == (None, status)
    assert Submission("s", path).student == "s"


def _graded(assignment, statuses):
    results = []
    for exercise, (points, status, messages) in zip(assignment.exercises, statuses, strict=False):
        results.append(ExerciseResult(exercise.number, points, status, tuple(messages)))
    return Graded("ada", "graded", tuple(results), {}, (), 1.0)


def test_feedback_quotes_the_checks_words_and_says_what_is_read_by_hand():
    assignment = load_assignment(nbtools.EXERCISES / "02a_attention_pooling_exercises.ipynb")
    g = _graded(
        assignment,
        [
            (0.0, "failed", ["boxcar_weights returned NaN for a query with no point"]),
            (None, "by hand", []),
        ],
    )
    page = feedback_page(assignment, g)
    assert "**Autograded points: 0 of 1.**" in page
    assert "boxcar_weights returned NaN for a query with no point" in page
    assert "Graded by your instructor, who reads your written answer." in page
    assert column_names(assignment) == [
        "student",
        "ex1",
        "ex2 (by hand)",
        "total",
        "possible",
        "status",
    ]


def test_summary_groups_one_mistake_made_on_different_cases():
    assignment = load_assignment(nbtools.EXERCISES / "02a_attention_pooling_exercises.ipynb")
    graded = [
        _graded(assignment, [(0.0, "failed", [f"off by up to {d} (case 3)"]), (None, "", [])])
        for d in (0.5, 0.25, 1.5)
    ]
    text = summary(assignment, graded)
    assert "3 x off by up to" in text
    assert "autograded total: mean 0.00 of 1" in text
