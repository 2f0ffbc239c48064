"""Submissions a class might hand in, built from a chapter's student notebook: the grader's
test fixtures (tests/test_grading.py) and the benchmark's class (benchmarks/grading.py)."""

from __future__ import annotations

import base64
import os
import pickle
from collections.abc import Callable
from pathlib import Path

import nbformat

import make_student
import nbtools
from course_lib.grading.assignment import YOUR_CODE, check_calls, defined_names


def chapter_path(chapter: str) -> Path:
    (path,) = nbtools.CHAPTERS.glob(f"{chapter}_*.ipynb")
    return path


def untouched(chapter: str) -> nbformat.NotebookNode:
    """The student notebook as handed out."""
    return make_student.build_student(chapter_path(chapter))


def solved(chapter: str) -> nbformat.NotebookNode:
    """The student notebook with the chapter's own solutions, and a written answer in every
    answer cell."""
    nb = make_student.build_student(chapter_path(chapter), keep_solutions=True)
    for cell in nb.cells:
        if cell.cell_type == "markdown" and cell.source == make_student.ANSWER:
            cell.source = "**Your answer.** An answer written by the student."
    return nb


def with_answers(chapter: str, answers: dict[str, str | None]) -> nbformat.NotebookNode:
    """The untouched notebook with the answer cell that defines each name of ``answers``
    replaced: by the chapter's solution (``None``) or by the given source."""
    nb, solution = untouched(chapter), solved(chapter)
    for cell, solved_cell in zip(nb.cells, solution.cells, strict=True):
        if cell.cell_type != "code" or YOUR_CODE not in cell.source:
            continue
        for name, source in answers.items():
            if name in defined_names(cell.source):
                cell.source = solved_cell.source if source is None else source
    return nb


def insert_after(nb: nbformat.NotebookNode, name: str, source: str) -> nbformat.NotebookNode:
    """Insert a code cell right after the cell that defines ``name``."""
    index = next(i for i, c in enumerate(nb.cells) if name in defined_names(c.source))
    cell = nbformat.v4.new_code_cell(source)
    cell.pop("id", None)  # the student notebooks are nbformat 4.4, without cell ids
    nb.cells.insert(index + 1, cell)
    return nb


def edit_check_cells(nb: nbformat.NotebookNode, replace: Callable[[str], str | None]):
    """Replace (``None``: delete) every check cell."""
    cells = []
    for cell in nb.cells:
        if cell.cell_type == "code" and check_calls(cell.source):
            source = replace(cell.source)
            if source is None:
                continue
            cell.source = source
        cells.append(cell)
    nb.cells = cells
    return nb


def memorized(function_name: str, check: Callable, reference: Callable) -> str:
    """The source of a cheat: ``function_name`` returns, in order, what ``reference``
    returns on ``check``'s own cases (recorded here), whatever it is given."""
    outputs = []

    def recorder(*args):
        result = reference(*args)
        outputs.append(result)
        return result

    check(recorder)
    blob = base64.b64encode(pickle.dumps(outputs)).decode()
    lines = [blob[i : i + 76] for i in range(0, len(blob), 76)]
    literal = "\n".join(f'    "{line}"' for line in lines)
    return (
        "import base64\nimport pickle\n\n"
        "# The outputs the check printed a tick for, copied in.\n"
        f"_memorized = pickle.loads(base64.b64decode(\n{literal}\n))\n"
        "_answers = iter(_memorized)\n\n\n"
        f"def {function_name}(*args):\n"
        "    return next(_answers)\n"
    )


def write(nb: nbformat.NotebookNode, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)
    return path


def grade_once(tmp_path_factory, name: str, build: Callable[[Path], list[str]]) -> Path:
    """Grade a fixture class once per test session, also under pytest-xdist (whose workers
    share the base temporary folder): the first worker grades, the others wait and read.
    ``build(root)`` writes the class under ``root`` and returns the grader's arguments;
    returns the folder the grader wrote to (``root / "out"``)."""
    from filelock import FileLock

    base = tmp_path_factory.getbasetemp()  # under xdist: <session folder>/popen-gw<n>
    session = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    shared = session / f"graded-{name}"
    with FileLock(str(shared) + ".lock"):
        out = shared / "out"
        if not (out / "grades.csv").exists():
            from course_lib.grading.__main__ import main

            shared.mkdir(exist_ok=True)
            args = build(shared)
            assert main([*args, "--out", str(out)]) == 0, "the grader failed"
    return out
