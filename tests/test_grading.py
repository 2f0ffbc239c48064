"""The grader on a class of fixture submissions (issue 33): every threat it must withstand
is a submission here, with the gradebook row it must produce.

Chapter 2b (three light checks) gets every fixture; Chapter 6 (whose checks train a model)
gets the ones that matter where training runs: tests/test_grading_training.py.
"""

from __future__ import annotations

import csv
import re
import zipfile

import pytest

import grading_fixtures as fx
from course_lib.checks import check_masked_softmax, unseen_cases
from course_lib.grading.__main__ import main
from course_lib.masking import masked_softmax

CHAPTER = fx.THREAT_CHAPTER
TIMEOUT_S = 15  # per cell and per check: far above what this chapter's steps take


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    def build(root):
        folder = fx.threat_class(root / "class")
        return ["--chapter", CHAPTER, "--submissions", str(folder), "--timeout", str(TIMEOUT_S)]

    out = fx.grade_once(tmp_path_factory, "02b", build)
    with open(out / "grades.csv", newline="", encoding="utf-8") as f:
        rows = {row["student"]: row for row in csv.DictReader(f)}
    return out, rows


def points(row):
    return [row["ex1"], row["ex2"], row["ex3"], row["total"]]


def test_gradebook_has_every_submission_and_the_columns(graded):
    out, rows = graded
    assert len(rows) == 13
    header = (out / "grades.csv").read_text().splitlines()[0]
    assert header == "student,ex1,ex2,ex3,total,possible,status"
    assert {row["possible"] for row in rows.values()} == {"3"}


def test_correct_submission_gets_full_marks(graded):
    _, rows = graded
    assert points(rows["01_correct"]) == ["1", "1", "1", "3"]
    assert rows["01_correct"]["status"] == "graded"


def test_untouched_gets_zero_and_not_implemented_feedback(graded):
    out, rows = graded
    assert points(rows["02_untouched"]) == ["0", "0", "0", "0"]
    page = (out / "feedback" / "02_untouched.md").read_text()
    assert page.count("**not implemented**") == 3
    assert "masked_softmax is not implemented yet" in page


def test_the_memorized_answer_is_a_real_cheat_and_fails(graded):
    # it passes the public check, as a student running the notebook sees ...
    cheat = fx.memorized("masked_softmax", check_masked_softmax, masked_softmax)
    namespace = {}
    exec(cheat, namespace)
    check_masked_softmax(namespace["masked_softmax"])
    # ... and not the grader's unseen cases
    exec(cheat, namespace)
    with pytest.raises(AssertionError):
        with unseen_cases():
            check_masked_softmax(namespace["masked_softmax"])
    _, rows = graded
    assert points(rows["03_hard_coded"]) == ["0", "0", "1", "1"]


def test_tampering_is_graded_as_if_untouched_and_flagged(graded):
    out, rows = graded
    row = rows["04_tampered"]
    assert points(row) == ["1", "0", "0", "1"]
    assert row["status"] == "graded; review"
    page = (out / "feedback" / "04_tampered.md").read_text()
    assert "scaled_dot_product_attention is not implemented yet" in page
    assert (
        "your code changed torch.Tensor.__eq__, torch.allclose while it was being checked" in page
    )


def test_endless_loop_times_out_alone(graded):
    out, rows = graded
    row = rows["05_endless_loop"]
    assert points(row) == ["1", "0", "1", "2"]
    assert row["status"] == "graded; timed out: exercise 2"
    assert "the check timed out" in (out / "feedback" / "05_endless_loop.md").read_text()


def test_raising_cell_and_dead_kernel_are_reported_and_the_rest_graded(graded):
    out, rows = graded
    row = rows["06_raises_and_dies"]
    assert points(row) == ["1", "0", "1", "2"]
    assert row["status"] == "graded; kernel died: exercise 2; raised: exercise 1"
    page = (out / "feedback" / "06_raises_and_dies.md").read_text()
    assert "raised ZeroDivisionError: division by zero" in page
    assert "stopped Python itself (Python exited with code 1)" in page
    assert "the notebook defines no `scaled_dot_product_attention`" in page


@pytest.mark.parametrize(
    "student, status",
    [
        ("07_notes.txt", "not a notebook"),
        ("07_empty", "empty file"),
        ("07_other_chapter", "wrong chapter (this is the notebook of chapter 01_seq2seq)"),
        ("07_broken", "not a notebook"),
    ],
)
def test_files_that_cannot_be_graded_get_a_clear_status(graded, student, status):
    out, rows = graded
    assert rows[student]["status"] == status
    assert points(rows[student]) == ["", "", "", "0"]
    assert status in (out / "feedback" / f"{student}.md").read_text()


def test_each_submission_runs_alone_in_its_folder(graded):
    _, rows = graded
    assert points(rows["08_snooping"]) == ["1", "1", "1", "3"]
    assert points(rows["09_snooping_too"]) == ["1", "1", "1", "3"]


def test_summary_names_what_most_students_missed(graded):
    out, _ = graded
    text = (out / "summary.txt").read_text()
    assert text.startswith("13 submission(s) for 02b_scoring_functions")
    assert "most missed (what to re-teach):" in text
    assert "not implemented yet" in text


def test_a_zip_of_the_class_grades_the_same(tmp_path, graded):
    _, rows = graded
    folder = tmp_path / "two"
    fx.write(fx.solved(CHAPTER), folder / "alice.ipynb")
    (folder / "bob.txt").write_text("not a notebook")
    archive = tmp_path / "export.zip"
    with zipfile.ZipFile(archive, "w") as z:
        for path in folder.iterdir():
            z.write(path, f"export/{path.name}")
        z.writestr("__MACOSX/._alice.ipynb", b"junk")
    out = tmp_path / "out"
    args = ["--chapter", CHAPTER, "--submissions", str(archive), "--out", str(out)]
    assert main(args) == 0
    with open(out / "grades.csv", newline="") as f:
        zipped = {row["student"]: row for row in csv.DictReader(f)}
    assert set(zipped) == {"export__alice", "export__bob.txt"}
    assert points(zipped["export__alice"]) == points(rows["01_correct"])
    # nothing is lost: a second run into the same OUT is refused
    assert main(args) == 2


def test_bad_arguments_say_what_to_give(tmp_path, capsys):
    assert main(["--chapter", "5", "--submissions", str(tmp_path), "--out", "x"]) == 2
    assert "CHAPTER=5 names no chapter (did you mean CHAPTER=05?)" in capsys.readouterr().err
    missing = tmp_path / "nowhere"
    assert main(["--chapter", "05", "--submissions", str(missing), "--out", "x"]) == 2
    assert f"SUBMISSIONS={missing} does not exist" in capsys.readouterr().err


def test_an_empty_submissions_folder_is_an_error_not_zero_grades(tmp_path, capsys):
    empty = tmp_path / "subs"
    empty.mkdir()
    args = ["--chapter", "02b", "--submissions", str(empty), "--out", str(tmp_path / "out")]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert f"SUBMISSIONS={empty} is empty" in err
    assert "no submissions to grade" in err
    assert ".ipynb notebooks" in err
    assert not (tmp_path / "out").exists()


def test_a_zip_of_only_lms_junk_is_an_error_naming_what_was_skipped(tmp_path, capsys):
    archive = tmp_path / "class.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("__MACOSX/._ada.ipynb", "junk")
        z.writestr(".DS_Store", "junk")
    args = ["--chapter", "02b", "--submissions", str(archive), "--out", str(tmp_path / "out")]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert f"SUBMISSIONS={archive} holds only files an LMS or operating system adds" in err
    assert "no submissions to grade" in err


def test_review_tells_the_instructor_what_was_replaced(graded):
    out, _ = graded
    review = (out / "review.md").read_text()
    tampered = review.split("## 04_tampered")[1].split("## ")[0]
    for name in (
        "torch.allclose",
        "course_lib.checks.check_scaled_dot_product_attention",
        "course_lib.checks._core.compare",
        "course_lib.masking.masked_softmax.__code__",
    ):
        assert name in tampered
    assert "01_correct" not in review
    assert "to review by hand (see review.md): 04_tampered" in (out / "summary.txt").read_text()


def test_an_experiment_the_checks_do_not_need_is_not_run(graded):
    out, rows = graded
    assert points(rows["10_experiment"]) == ["1", "1", "1", "3"]
    assert rows["10_experiment"]["status"] == "graded"
    assert "1 other code cell(s)" in (out / "feedback" / "10_experiment.md").read_text()


def test_grading_options_and_submissions_of_the_wrong_kind_are_named(tmp_path):
    from course_lib.grading.assignment import load_assignment
    from course_lib.grading.grade import Options, grade_submission

    with pytest.raises(TypeError, match=r"timeout_s='60': expected a number of seconds"):
        Options(timeout_s="60")
    with pytest.raises(TypeError, match=r"submission must be a Submission.*got PosixPath"):
        grade_submission(
            tmp_path / "ada.ipynb",
            load_assignment("exercises/02b_scoring_functions_exercises.ipynb"),
        )


@pytest.mark.parametrize(
    "value, message",
    [
        ("2m", r"TIMEOUT=2m: expected a number of seconds.*'2m' is 120 seconds, so give "),
        ("90s", r"'90s' is 90 seconds, so give --timeout 90"),
        ("2 minutes", r"is 120 seconds, so give --timeout 120"),
        ("soon", r"TIMEOUT=soon: expected a number of seconds.*e.g. --timeout 120"),
    ],
    ids=["minutes", "seconds with a unit", "words", "no number"],
)
def test_a_timeout_with_a_unit_gets_the_number_of_seconds(tmp_path, capsys, value, message):
    args = ["--chapter", "02b", "--submissions", str(tmp_path), "--out", str(tmp_path / "o")]
    with pytest.raises(SystemExit) as exit_:
        main([*args, "--timeout", value])
    assert exit_.value.code == 2
    assert re.search(message, capsys.readouterr().err)


@pytest.mark.parametrize(
    "given, shown",
    [(["--all-cells", "1"], "--all-cells 1"), (["--all-cells=1"], "--all-cells=1")],
    ids=["a value after the flag", "flag=value"],
)
def test_a_value_given_to_a_flag_says_the_flag_takes_none(tmp_path, capsys, given, shown):
    args = ["--chapter", "02b", "--submissions", str(tmp_path), "--out", str(tmp_path / "o")]
    with pytest.raises(SystemExit) as exit_:
        main([*args, *given])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert f"{shown}: --all-cells is a flag and takes no value; give --all-cells alone" in err
    assert "with make, ALL_CELLS=1 gives --all-cells" in err
    assert not (tmp_path / "o").exists()
    with pytest.raises(SystemExit):  # any other stray argument: argparse's own words
        main([*args, "--all-cells", "--bogus"])
    assert "unrecognized arguments: --bogus" in capsys.readouterr().err


def test_options_given_as_a_dict_are_to_be_built(tmp_path):
    from course_lib.grading.assignment import load_assignment
    from course_lib.grading.grade import Options, Submission, grade_submission

    assignment = load_assignment("exercises/02b_scoring_functions_exercises.ipynb")
    submission = Submission("ada", tmp_path / "ada.ipynb")
    with pytest.raises(TypeError, match=r"options must be an Options, got dict: .*Options\(\*\*"):
        grade_submission(submission, assignment, {"timeout_s": 60})
    with pytest.raises(TypeError, match=r"i.e. Options\(timeout_s=60, variant=2\)"):
        grade_submission(submission, assignment, {"timeout_s": 60, "variant": 2})
    with pytest.raises(TypeError, match=r"got int: build one, e.g. Options\(timeout_s=120\)"):
        grade_submission(submission, assignment, 60)
    assert Options(**{"timeout_s": 60}).timeout_s == 60  # the fix works
