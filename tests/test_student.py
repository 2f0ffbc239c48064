"""Student notebooks: generated from the chapters, fresh, and their checks work both ways.

* The committed student notebooks equal what `make student` generates now.
* Untouched, every check cell fails with CheckFailed and a message -- not a traceback
  from inside the library.
* With the chapter's solutions, every check passes.
"""

import nbformat
import pytest
from nbclient import NotebookClient

import make_student
import nbtools

CHAPTERS = nbtools.chapter_notebooks()


def run(nb, allow_errors):
    NotebookClient(
        nb, km=nbtools.kernel_manager(), timeout=600, allow_errors=allow_errors
    ).execute()
    return nb


def check_cells(nb):
    return [c for c in nb.cells if c.cell_type == "code" and c.source.startswith("check_")]


@pytest.mark.parametrize("chapter", CHAPTERS, ids=[c.name for c in CHAPTERS])
def test_student_notebook_is_up_to_date(chapter):
    target = make_student.student_path(chapter)
    assert target.exists(), f"{target.name} is missing: run `make student`"
    expected = nbformat.writes(make_student.build_student(chapter)) + "\n"
    assert target.read_text(encoding="utf-8") == expected, (
        f"{target.name} is stale: run `make student`"
    )


@pytest.mark.parametrize("chapter", CHAPTERS, ids=[c.name for c in CHAPTERS])
def test_untouched_student_notebook_fails_every_check_with_its_message(chapter):
    nb = run(make_student.build_student(chapter), allow_errors=True)
    checks = check_cells(nb)
    assert checks, "the exercises have no self-check cells"
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        errors = [o for o in cell.outputs if o.output_type == "error"]
        if cell in checks:
            assert errors, f"{cell.source!r} passed without an answer"
            assert errors[0].ename == "CheckFailed", f"{cell.source!r} raised {errors[0].ename}"
            assert "not implemented yet" in errors[0].evalue
        else:
            assert not errors, f"{cell.source[:60]!r} raised {errors[0].ename}: {errors[0].evalue}"


@pytest.mark.parametrize("chapter", CHAPTERS, ids=[c.name for c in CHAPTERS])
def test_solutions_pass_every_check(chapter):
    solved = run(make_student.build_student(chapter, keep_solutions=True), allow_errors=False)
    for cell in check_cells(solved):
        text = "".join(o.get("text", "") for o in cell.outputs)
        assert text.startswith("✓"), f"{cell.source!r} printed {text!r}"
