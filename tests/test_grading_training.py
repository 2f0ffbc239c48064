"""The grader on a chapter whose checks train a model (Chapter 6): the fixtures that matter
where training runs -- full marks, zero, a memorized answer, a replaced training check and
an endless training loop. (Every threat on a light chapter: tests/test_grading.py.)"""

from __future__ import annotations

import csv

import pytest

import grading_fixtures as fx
from course_lib.checks import check_haversine
from course_lib.geo import haversine

CHAPTER = "06"
TIMEOUT_S = 45  # per cell and per check; the training check takes a few seconds
AUTOGRADED = 9  # exercise 10 is graded by hand


def class_folder(root):
    folder = root / "class"
    fx.write(fx.solved(CHAPTER), folder / "correct.ipynb")
    fx.write(fx.untouched(CHAPTER), folder / "untouched.ipynb")
    # exercise 6: a haversine copied from the public check's outputs, and the chapter's
    # ADE/FDE (which measures with it)
    cheat = fx.memorized("my_haversine", check_haversine, haversine)
    nb = fx.with_answers(CHAPTER, {"my_haversine": None, "my_ade_fde": None})
    cell = next(c for c in nb.cells if "def my_haversine" in c.source)
    cell.source = cheat + "\n\n" + cell.source[cell.source.index("def my_ade_fde") :]
    fx.write(nb, folder / "hard_coded.ipynb")
    # the training check replaced and its cell edited; the training not written
    nb = fx.edit_check_cells(
        fx.untouched(CHAPTER),
        lambda source: (
            'print("✓ train_attention_gru: trained")' if "check_training" in source else source
        ),
    )
    fx.append_to(
        nb,
        "train_attention_gru",
        "import course_lib.checks\n"
        "import course_lib.checks.gps_pipeline as pipeline\n\n"
        "course_lib.checks.check_training = lambda *args: None\n"
        "pipeline.check_training = lambda *args: None\n",
    )
    fx.write(nb, folder / "tampered.ipynb")
    # everything right but a training loop that never ends
    names = {
        "plot_trajectories": None,
        "make_datasets": None,
        "build_models": None,
        "inverse_transform": None,
        "my_haversine": None,
        "my_constant_velocity": None,
        "plot_predictions": None,
        "stay_ade": None,
        "train_attention_gru": "def train_attention_gru(*args):\n    while True:\n        pass\n",
    }
    fx.write(fx.with_answers(CHAPTER, names), folder / "endless_training.ipynb")
    return folder


@pytest.fixture(scope="module")
def rows(tmp_path_factory):
    def build(root):
        folder = class_folder(root)
        return ["--chapter", CHAPTER, "--submissions", str(folder), "--timeout", str(TIMEOUT_S)]

    out = fx.grade_once(tmp_path_factory, "06", build)
    with open(out / "grades.csv", newline="", encoding="utf-8") as f:
        return {row["student"]: row for row in csv.DictReader(f)}


def scores(row):
    return [row[f"ex{n}"] for n in range(1, AUTOGRADED + 1)] + [row["ex10 (by hand)"]]


def test_correct_gets_every_autograded_point(rows):
    assert scores(rows["correct"]) == ["1"] * AUTOGRADED + [""]
    assert rows["correct"]["total"] == rows["correct"]["possible"] == str(AUTOGRADED)
    assert rows["correct"]["status"] == "graded"


def test_untouched_gets_zero(rows):
    assert scores(rows["untouched"]) == ["0"] * AUTOGRADED + [""]


def test_memorized_haversine_fails_and_so_does_the_ade_built_on_it(rows):
    # the chapter's ADE/FDE measures with my_haversine: each check is half of exercise 6
    assert rows["hard_coded"]["ex6"] == "0"
    assert rows["hard_coded"]["total"] == "0"


def test_replaced_training_check_changes_nothing(rows):
    row = rows["tampered"]
    assert row["ex4"] == "0" and row["total"] == "0"
    assert row["status"] == "graded; review"


def test_endless_training_times_out_and_the_rest_is_graded(rows):
    row = rows["endless_training"]
    assert row["ex4"] == "0"
    assert row["status"] == "graded; timed out: exercise 4"
    assert row["total"] == str(AUTOGRADED - 1)
