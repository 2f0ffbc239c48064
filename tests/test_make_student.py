"""The student-notebook generator's rules, on small synthetic notebooks."""

import nbformat
import pytest

import make_student as ms
import nbtools


def chapter(tmp_path, cells):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# Demo chapter")] + cells
    path = tmp_path / "99_demo.ipynb"
    nbformat.write(nb, path)
    return path


md, code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell

EXERCISE = "```{exercise} Add one\n:label: ex-add\n\nWrite `add_one(x)`.\n```"
START = "```{solution-start} ex-add\n:class: dropdown\n```"
SOLUTION = "def add_one(x):\n    '''Add one.'''\n    # BEGIN SOLUTION\n    y = x + 1\n    return y\n    # END SOLUTION"


TODO = "def add_one(x):\n    '''Add one.'''\n    # YOUR CODE HERE\n    raise NotImplementedError"


def test_solutions_become_todo_and_exercises_plain_markdown(tmp_path):
    path = chapter(
        tmp_path,
        [
            md("Chapter text, not in the student notebook."),
            md("## Exercises\n\nIntro with a link."),
            code("import math"),
            md(EXERCISE),
            md(START),
            code(SOLUTION),
            md("Why this works (solution prose).\n\n```{solution-end}\n```"),
            code("check(add_one)"),
            md("```{exercise} Explain\n:label: ex-why\n\nWhy?\n```\n"),
            md("```{solution} ex-why\n:class: dropdown\n\nBecause.\n```"),
            md(
                "```{exercise} Same cell\n:label: ex-same\n\nHow?\n```\n\n"
                "```{solution} ex-same\n:class: dropdown\n\nLike this.\n```\n"
            ),
            md(START.replace("ex-add", "ex-why")),
            code("print('a whole-cell solution, dropped')"),
            md("```{solution-end}\n```"),
            md("```{exercise} Written, then code\n:label: ex-both\n\n(a) Why? (b) Code.\n```"),
            md(START.replace("ex-add", "ex-both")),
            md("(a) Because (solution prose, first)."),
            code(SOLUTION),
            md("```{solution-end}\n```"),
            md("## Summary\n\nNot in the student notebook."),
        ],
    )
    nb = ms.build_student(path)
    sources = [c.source for c in nb.cells]
    assert sources[1].startswith("# Exercises: Demo chapter")
    assert sources[2:] == [
        "import math",
        "## Exercise 1: Add one (1 point)\n\nWrite `add_one(x)`.",
        TODO,
        "check(add_one)",
        "## Exercise 2: Explain (1 point)\n\nWhy?",
        ms.ANSWER,
        "## Exercise 3: Same cell (1 point)\n\nHow?",
        ms.ANSWER,
        "## Exercise 4: Written, then code (1 point)\n\n(a) Why? (b) Code.",
        ms.ANSWER,
        TODO,
    ]
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code")


def test_generation_is_deterministic(tmp_path):
    path = chapter(tmp_path, [md("## Exercises"), md(EXERCISE), code("x = 1")])
    assert nbformat.writes(ms.build_student(path)) == nbformat.writes(ms.build_student(path))


@pytest.mark.parametrize(
    "cells, message",
    [
        ([md("no exercise section")], "expected one '## Exercises'"),
        ([md("## Exercises"), code("x = 1")], "no exercise directive"),
        ([md("## Exercises"), md(EXERCISE), md(START), code(SOLUTION)], "never closed"),
        ([md("## Exercises"), md(EXERCISE), code("# BEGIN SOLUTION\nx = 1")], "never closed"),
        ([md("## Exercises"), md(EXERCISE), code("x = 1\n# END SOLUTION")], "without"),
    ],
)
def test_malformed_sections_are_reported(tmp_path, cells, message):
    with pytest.raises(ms.StudentError, match=message):
        ms.build_student(chapter(tmp_path, cells))


def test_solution_figures_become_embedded_target_figures(tmp_path):
    png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
    figure = nbformat.v4.new_output(
        "display_data", data={"image/png": png + "\n", "text/plain": "<Figure>"}
    )
    drawn = code("plot(add_one)")
    drawn.outputs = [figure]
    outside = code("plot(check)")
    outside.outputs = [figure]
    path = chapter(
        tmp_path,
        [
            md("## Exercises"),
            md(EXERCISE),
            md(START),
            code(SOLUTION),
            drawn,
            md("```{solution-end}\n```"),
            outside,
        ],
    )
    cells = ms.build_student(path).cells[2:]
    assert [c.cell_type for c in cells] == ["markdown", "code", "markdown", "code"]
    target = cells[2].source
    assert target.startswith("**Target figure**")
    assert target.endswith(f"(data:image/png;base64,{png})")  # the bytes, newline stripped
    assert cells[3].source == "plot(check)" and not cells[3].outputs


def test_myst_roles_become_markdown_jupyter_renders():
    text = (
        "See {class}`~course_lib.attention.Attention`, {func}`course_lib.geo.haversine`, "
        "{doc}`02b_scoring_functions`, {doc}`the scores <02b_scoring_functions>` and "
        "{cite}`vaswani2017attention`, {cite}`shazeer2019fast,ainslie2023gqa`."
    )
    assert ms.plain_roles(text) == (
        "See `Attention`, `course_lib.geo.haversine`, "
        "[02b_scoring_functions](../chapters/02b_scoring_functions.ipynb), "
        "[the scores](../chapters/02b_scoring_functions.ipynb) and (Vaswani et al., 2017), "
        "(Shazeer, 2019; Ainslie et al., 2023)."
    )


def test_student_notebooks_hold_no_raw_roles():
    for path in nbtools.student_notebooks():
        for cell in nbtools.read(path).cells:
            if cell.cell_type == "markdown":
                assert not ms.ROLE.search(cell.source), (path.name, cell.source[:200])


def test_points_come_from_a_comment_line_the_book_does_not_show(tmp_path):
    two = EXERCISE.replace("Write", "% points: 2\n\nWrite")
    half = "```{exercise} Explain\n:label: ex-why\n% points: 0.5\n\nWhy?\n```"
    path = chapter(tmp_path, [md("## Exercises"), md(two), code("x = 1"), md(half)])
    sources = [c.source for c in ms.build_student(path).cells]
    assert "## Exercise 1: Add one (2 points)\n\nWrite `add_one(x)`." in sources
    assert "## Exercise 2: Explain (0.5 points)\n\nWhy?" in sources
    for bad, message in [
        ("% points: 0", "give a positive number"),
        ("% points: 1\n% points: 2", "more than one"),
    ]:
        path = chapter(
            tmp_path, [md("## Exercises"), md(EXERCISE.replace("Write", bad + "\nWrite"))]
        )
        with pytest.raises(ms.StudentError, match=message):
            ms.build_student(path)
