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


def test_the_autograder_zip_carries_the_views_scripts_and_styles(tmp_path):
    archive = tmp_path / "autograder.zip"
    assert main(["--chapter", CHAPTER, "--gradescope", str(archive)]) == 0
    with zipfile.ZipFile(archive) as z:
        names = set(z.namelist())
        setup = z.read("setup.sh").decode()
    assert {"course_lib/views/view.css", "course_lib/views/attention.js"} <= names
    assert not any("__pycache__" in n for n in names)
    assert "bubblewrap" in setup


def test_the_assignments_notebook_is_graded_not_a_checkpoint_or_macos_copy(tmp_path):
    from course_lib.grading.gradescope import choose_notebook

    folder = tmp_path / "submission"
    template = find_template(CHAPTER, fx.nbtools.EXERCISES)
    right = fx.write(fx.solved(CHAPTER), folder / template.name)
    # sorted first, and untouched: what "the first *.ipynb" graded before
    fx.write(fx.untouched(CHAPTER), folder / ".ipynb_checkpoints" / "a-checkpoint.ipynb")
    (folder / "__MACOSX").mkdir()
    (folder / "__MACOSX" / f"._{template.name}").write_bytes(b"\x00\x05\x16\x07")
    fx.write(fx.untouched(CHAPTER), folder / "0_draft.ipynb")  # named otherwise: not graded
    assert choose_notebook(folder, template.name) == (right, "")
    results = tmp_path / "results.json"
    args = ["--template", str(template), "--submission", str(folder), "--results", str(results)]
    assert gradescope.main([*args, "--timeout", "30"]) == 0
    assert json.loads(results.read_text())["score"] == 3


def test_one_notebook_under_another_name_is_graded_and_several_are_refused(tmp_path):
    from course_lib.grading.gradescope import choose_notebook

    name = "02b_scoring_functions_exercises.ipynb"
    folder = tmp_path / "one"
    only = fx.write(fx.solved(CHAPTER), folder / "my work (1).ipynb")
    fx.write(fx.untouched(CHAPTER), folder / ".ipynb_checkpoints" / "x-checkpoint.ipynb")
    assert choose_notebook(folder, name) == (only, "")
    folder = tmp_path / "two"
    fx.write(fx.solved(CHAPTER), folder / "a.ipynb")
    fx.write(fx.untouched(CHAPTER), folder / "b.ipynb")
    notebook, problem = choose_notebook(folder, name)
    assert notebook is None
    assert problem.startswith("several notebooks were submitted (a.ipynb, b.ipynb)")
    assert f"submit only your {name}" in problem


def test_results_are_written_after_the_submissions_processes_are_gone(tmp_path):
    """A process the submission leaves behind cannot rewrite results.json: in the sandbox it
    dies with the worker, and the parent writes the file afterwards."""
    import time

    from course_lib.grading.sandbox import probe

    if probe() is not None:
        pytest.skip(f"the sandbox cannot start here: {probe()}")
    results = tmp_path / "results" / "results.json"
    lingering = (
        "import os, time\n"
        "if os.fork() == 0:\n"
        "    os.setsid()\n"
        "    for _ in range(40):\n"
        "        time.sleep(0.1)\n"
        "        try:\n"
        f"            open({str(results)!r}, 'w').write('{{\"score\": 100}}')\n"
        "        except OSError:\n"
        "            pass\n"
        "    os._exit(0)\n"
    )
    right = {"masked_softmax": None, "scaled_dot_product_attention": None, "general_scores": None}
    nb = fx.append_to(fx.with_answers(CHAPTER, right), "masked_softmax", lingering)
    folder = tmp_path / "submission"
    fx.write(nb, folder / "mine.ipynb")
    template = find_template(CHAPTER, fx.nbtools.EXERCISES)
    args = ["--template", str(template), "--submission", str(folder), "--results", str(results)]
    assert gradescope.main([*args, "--timeout", "30"]) == 0
    time.sleep(5)
    assert json.loads(results.read_text())["score"] == 3
