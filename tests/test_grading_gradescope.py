"""The Gradescope export: the autograder zip's layout, and results.json in Gradescope's
published format (https://gradescope-autograders.readthedocs.io/en/latest/specs/)."""

from __future__ import annotations

import json
import stat
import zipfile

import jsonschema
import pytest

import grading_fixtures as fx
from course_lib.grading import gradescope
from course_lib.grading.__main__ import find_template, main

CHAPTER = "02b"

# results.json as the specification describes it: every key optional but the score, given
# at the top or on every test; visibility one of four values.
VISIBILITY = {"enum": ["hidden", "after_due_date", "after_published", "visible"]}
RESULTS_SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "score": {"type": "number"},
        "execution_time": {"type": "number"},
        "output": {"type": "string"},
        "output_format": {"enum": ["text", "html", "simple_format", "md", "ansi"]},
        "visibility": VISIBILITY,
        "stdout_visibility": VISIBILITY,
        "extra_data": {"type": "object"},
        "tests": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["name", "score", "max_score"],
                "properties": {
                    "score": {"type": "number"},
                    "max_score": {"type": "number"},
                    "status": {"enum": ["passed", "failed"]},
                    "name": {"type": "string"},
                    "name_format": {"enum": ["text", "html", "simple_format", "md", "ansi"]},
                    "number": {"type": "string"},
                    "output": {"type": "string"},
                    "output_format": {"enum": ["text", "html", "simple_format", "md", "ansi"]},
                    "tags": {"type": "array", "items": {"type": "string"}},
                    "visibility": VISIBILITY,
                    "extra_data": {"type": "object"},
                },
            },
        },
    },
    "required": ["tests"],
}


def grade_like_gradescope(tmp_path, notebook=None, other_file=None):
    submission = tmp_path / "submission"
    submission.mkdir()
    if notebook is not None:
        fx.write(notebook, submission / "my_notebook.ipynb")
    if other_file is not None:
        (submission / other_file).write_text("not a notebook")
    results = tmp_path / "results" / "results.json"
    template = find_template(CHAPTER, fx.nbtools.EXERCISES)
    args = ["--template", str(template), "--submission", str(submission), "--results"]
    assert gradescope.main([*args, str(results), "--timeout", "30"]) == 0
    data = json.loads(results.read_text())
    jsonschema.validate(data, RESULTS_SCHEMA)
    assert data["score"] == sum(t["score"] for t in data["tests"])
    assert all(0 <= t["score"] <= t["max_score"] for t in data["tests"])
    return data


def test_the_autograder_zip_holds_what_gradescope_runs(tmp_path):
    archive = tmp_path / "autograder.zip"
    assert main(["--chapter", CHAPTER, "--gradescope", str(archive)]) == 0
    with zipfile.ZipFile(archive) as z:
        names = set(z.namelist())
        modes = {i.filename: stat.S_IMODE(i.external_attr >> 16) for i in z.infolist()}
        run = z.read("run_autograder").decode()
    assert {"setup.sh", "run_autograder", "pyproject.toml", "README.md"} <= names
    assert "exercises/02b_scoring_functions_exercises.ipynb" in names
    assert {"course_lib/checks/_core.py", "course_lib/grading/worker.py"} <= names
    assert modes["setup.sh"] == modes["run_autograder"] == 0o755
    assert "--results /autograder/results/results.json" in run
    assert '--template "exercises/02b_scoring_functions_exercises.ipynb"' in run


def test_a_correct_notebook_gets_every_test_passed(tmp_path):
    data = grade_like_gradescope(tmp_path, fx.solved(CHAPTER))
    assert [t["status"] for t in data["tests"]] == ["passed"] * 3
    assert data["score"] == 3


def test_an_untouched_notebook_gets_the_checks_messages(tmp_path):
    data = grade_like_gradescope(tmp_path, fx.untouched(CHAPTER))
    assert data["score"] == 0
    assert "masked_softmax is not implemented yet" in data["tests"][0]["output"]


@pytest.mark.parametrize("other", [None, "answers.py"])
def test_no_notebook_gets_zero_and_says_why(tmp_path, other):
    data = grade_like_gradescope(tmp_path, None, other)
    assert data["score"] == 0 and len(data["tests"]) == 3
    assert "no .ipynb file was submitted" in data["output"]


@pytest.mark.parametrize("name", ["autograder.tar.gz", "autograder"])
def test_an_autograder_not_named_zip_is_refused(tmp_path, capsys, name):
    target = tmp_path / name
    assert main(["--chapter", CHAPTER, "--gradescope", str(target)]) == 2
    err = capsys.readouterr().err
    assert f"--gradescope {target}: Gradescope takes the autograder as a .zip" in err
    assert f"--gradescope {tmp_path / 'autograder.zip'}" in err
    assert not target.exists()
    template = find_template(CHAPTER, fx.nbtools.EXERCISES)
    with pytest.raises(ValueError, match=r"its name must end in \.zip"):
        gradescope.write_autograder(target, template)


def test_gradescope_with_submissions_and_out_is_refused_before_anything_is_written(
    tmp_path, capsys
):
    archive = tmp_path / "autograder.zip"
    argv = ["--chapter", CHAPTER, "--gradescope", str(archive)]
    argv += ["--submissions", str(tmp_path), "--out", str(tmp_path / "out")]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "--gradescope with --submissions and --out" in err and "two commands" in err
    assert not archive.exists() and not (tmp_path / "out").exists()
