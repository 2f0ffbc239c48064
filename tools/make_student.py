"""Generate the student exercise notebooks from the chapters' exercise sections.

    python tools/make_student.py            write exercises/<chapter>_exercises.ipynb
    python tools/make_student.py --check    exit 1 if any committed student notebook is stale

The chapter notebook is the single source of truth. Its exercise section runs from the
markdown cell that starts with ``## Exercises`` to the next ``## `` heading. In it:

* ```{exercise}``` directives become plain Markdown headings (they read well on Colab) that
  say what the exercise is worth: ``## Exercise 2: Title (1 point)``; a ``% points: 2``
  line in the directive (a MyST comment: the book does not show it) gives other points.
  The grader (``course_lib.grading``) reads the points from these headings;
* everything between ```{solution-start}``` and ```{solution-end}``` is solution: markdown
  cells are dropped, code between ``# BEGIN SOLUTION`` and ``# END SOLUTION`` becomes
  ``# YOUR CODE HERE`` + ``raise NotImplementedError``, and code cells without markers are
  dropped;
* ```{solution}``` directives (written answers) are dropped, also when they share a cell
  with their exercise, and an *answer cell* takes their place: a Markdown cell for the
  student's own answer. A ```{solution-start}``` block that opens with prose asks for a
  written answer too and gets one answer cell where that prose was;
* a figure that a solution cell draws (an ``image/png`` output) becomes a *target figure*: a
  Markdown cell, in the place of that cell, with the PNG embedded as a ``data:`` URI, which
  Jupyter, Colab, GitHub and Sphinx all render (cell attachments are not read by myst-nb);
* outputs and execution counts are cleared.
"""

from __future__ import annotations

import argparse
import functools
import re
import sys
from pathlib import Path

import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parent))
import nbtools  # noqa: E402

BEGIN, END = "# BEGIN SOLUTION", "# END SOLUTION"
EXERCISE = re.compile(
    r"^```\{exercise\}[ \t]*(?P<title>[^\n]*)\n(?P<body>.*?)^```[ \t]*$", re.S | re.M
)
OPTION = re.compile(r"^:[\w-]+:.*\n", re.M)
SOLUTION = re.compile(r"^```\{solution\}.*?^```[ \t]*$\n?", re.S | re.M)
POINTS = re.compile(r"^%\s*points:\s*(\d+(?:\.\d+)?)\s*$", re.M)
POINTS_LINE = re.compile(r"^%\s*points:.*\n?", re.M)


ANSWER = "**Your answer.** *Double-click this cell to write it here.*"


class StudentError(ValueError):
    """The chapter's exercise section does not follow the conventions above."""


def student_path(chapter: Path) -> Path:
    return nbtools.EXERCISES / f"{chapter.stem}_exercises.ipynb"


def exercise_section(nb: nbformat.NotebookNode, name: str) -> list:
    starts = [
        i
        for i, c in enumerate(nb.cells)
        if c.cell_type == "markdown" and c.source.startswith("## Exercises")
    ]
    if len(starts) != 1:
        raise StudentError(f"{name}: expected one '## Exercises' cell, found {len(starts)}")
    start = starts[0]
    end = next(
        (
            i
            for i in range(start + 1, len(nb.cells))
            if nb.cells[i].cell_type == "markdown" and nb.cells[i].source.startswith("## ")
        ),
        len(nb.cells),
    )
    return nb.cells[start:end]


def strip_solution(source: str, where: str) -> str:
    lines, out, inside = source.splitlines(), [], False
    for line in lines:
        stripped = line.strip()
        if stripped == BEGIN:
            if inside:
                raise StudentError(f"{where}: nested '{BEGIN}'")
            inside = True
            indent = line[: len(line) - len(line.lstrip())]
            out += [f"{indent}# YOUR CODE HERE", f"{indent}raise NotImplementedError"]
        elif stripped == END:
            if not inside:
                raise StudentError(f"{where}: '{END}' without '{BEGIN}'")
            inside = False
        elif not inside:
            out.append(line)
    if inside:
        raise StudentError(f"{where}: '{BEGIN}' is never closed")
    return "\n".join(out)


ROLE = re.compile(r"\{(?P<role>[a-z:]+)\}`(?P<text>[^`]*)`")
BIB_ENTRY = re.compile(r"@\w+\{(?P<key>[^,\s]+),(?P<body>.*?)\n\}", re.S)
BIB_FIELD = re.compile(r"^\s*(?P<name>author|year)\s*=\s*\{(?P<value>.*)\},?\s*$", re.M)


@functools.cache
def citation_names(bib: Path = nbtools.ROOT / "references.bib") -> dict[str, str]:
    """``key -> "Touvron et al., 2023"`` for every entry of the book's bibliography: what a
    reader of the student notebook (no Sphinx, no bibliography page) can look up."""
    names = {}
    for entry in BIB_ENTRY.finditer(bib.read_text(encoding="utf-8")):
        fields = {m["name"]: m["value"] for m in BIB_FIELD.finditer(entry["body"])}
        authors = [a.strip() for a in fields.get("author", "").split(" and ") if a.strip()]
        surnames = [a.split(",")[0].strip("{} ") for a in authors]
        if len(surnames) > 2 or "others" in authors:
            who = f"{surnames[0]} et al."
        else:
            who = " and ".join(surnames)
        names[entry["key"]] = f"{who}, {fields.get('year', 'n.d.')}"
    return names


def plain_roles(source: str) -> str:
    """MyST roles as the Markdown that Jupyter and Colab render (they show roles as raw text).

    ``{class}`~a.b.C``` becomes ```C```, ``{doc}`name``` a link to that chapter,
    ``{ref}`text <label>``` its text, ``{cite}`key``` ``[key]``.
    """

    def replace(match: re.Match) -> str:
        role, text = match["role"], match["text"]
        label = re.match(r"(?P<title>.*?)\s*<(?P<target>[^>]+)>$", text, re.S)
        title, target = (label["title"], label["target"]) if label else (None, text)
        if role in ("class", "func", "meth", "mod", "data", "attr", "obj", "py:class"):
            name = target.lstrip("~").split(".")[-1] if target.startswith("~") else target
            return f"`{title or name}`"
        if role == "doc":
            page = target.split("/")[-1]
            return f"[{title or page}](../chapters/{page}.ipynb)"
        if role == "cite":
            names = citation_names()
            return "(" + "; ".join(names.get(k.strip(), k.strip()) for k in target.split(",")) + ")"
        return title or target

    return ROLE.sub(replace, source)


def exercise_points(body: str, where: str) -> tuple[str, str]:
    """The exercise's points (a ``% points: N`` comment line in its directive, which the book
    does not show; 1 without one) as the heading shows them, and the body without the line."""
    found = POINTS.findall(body)
    if len(found) > 1:
        raise StudentError(f"{where}: more than one '% points:' line")
    points = found[0] if found else "1"
    if float(points) <= 0:
        raise StudentError(f"{where}: '% points: {points}': give a positive number")
    unit = "point" if float(points) == 1 else "points"
    return f"({points} {unit})", POINTS_LINE.sub("", body)


def exercise_markdown(source: str, number: int) -> str:
    def replace(match: re.Match) -> str:
        title = match["title"].strip()
        points, body = exercise_points(match["body"], f"exercise {number} ({title})")
        body = OPTION.sub("", body).strip()
        heading = f"## Exercise {number}" + (f": {title}" if title else "") + f" {points}"
        return f"{heading}\n\n{body}\n"

    return EXERCISE.sub(replace, SOLUTION.sub("", source)).strip()


def target_figures(cell: nbformat.NotebookNode) -> list:
    """Markdown cells showing the PNG figures among ``cell``'s outputs, in order."""
    images = [
        out["data"]["image/png"]
        for out in cell.get("outputs", [])
        if "image/png" in out.get("data", {})
    ]
    return [
        nbformat.v4.new_markdown_cell(
            "**Target figure** — what the solution draws. Yours should look alike; "
            "details that depend on training or on random draws may differ.\n\n"
            f"![The solution's figure](data:image/png;base64,{''.join(png.split())})"
        )
        for png in images
    ]


def build_student(
    chapter: Path, keep_solutions: bool = False, keep_experiments: bool = False
) -> nbformat.NotebookNode:
    """The student notebook of ``chapter``; with ``keep_solutions`` the marked solution code
    stays in (the tests run that version to show every check passes); with
    ``keep_experiments`` as well, the solutions' other code cells too (the experiments an
    exercise asks the student to run: what a complete submission holds, which the grading
    benchmark times)."""
    nb = nbtools.read(chapter)
    section = exercise_section(nb, chapter.name)
    title = next(
        (
            c.source.splitlines()[0].lstrip("# ").strip()
            for c in nb.cells
            if c.cell_type == "markdown"
        ),
        chapter.stem,
    )
    header = nbformat.v4.new_markdown_cell(
        f"# Exercises: {title}\n\n"
        f"These are the exercises of the chapter [{title}](../chapters/{chapter.name}), "
        "without their solutions. Replace every `# YOUR CODE HERE` / "
        "`raise NotImplementedError` with your code, then run the check cell below it: "
        "it tests your function on several cases and tells you, in words, what is off.\n\n"
        f"*Generated from `chapters/{chapter.name}` by `make student`; edit the chapter, "
        "not this file.*"
    )
    cells = [nbtools.new_setup_cell(), header]
    in_solution, number, opening = False, 0, False
    for i, cell in enumerate(section[1:], start=1):
        where = f"{chapter.name}, exercise section cell {i}"
        src = cell.source.strip()
        if cell.cell_type == "markdown":
            if src.startswith("```{solution-start}"):
                in_solution = opening = True
                continue
            if in_solution and opening and not src.startswith("```{solution-end}"):
                cells.append(nbformat.v4.new_markdown_cell(ANSWER))  # it opens with prose
            opening = False
            if "```{solution-end}" in src:  # may follow the solution's closing words
                in_solution = False
                continue
            if in_solution:
                continue
            if src.startswith("```{solution}"):
                cells.append(nbformat.v4.new_markdown_cell(ANSWER))
                continue
            if "```{exercise}" in src:
                number += 1
                text = plain_roles(exercise_markdown(cell.source, number))
                cells.append(nbformat.v4.new_markdown_cell(text))
                if SOLUTION.search(cell.source):  # its written solution shares the cell
                    cells.append(nbformat.v4.new_markdown_cell(ANSWER))
            else:
                cells.append(nbformat.v4.new_markdown_cell(plain_roles(cell.source)))
        elif cell.cell_type == "code":
            opening = False
            has_markers = BEGIN in cell.source
            if not in_solution or has_markers or (keep_solutions and keep_experiments):
                source = cell.source if keep_solutions else strip_solution(cell.source, where)
                cells.append(nbformat.v4.new_code_cell(source))
            if in_solution:
                cells += target_figures(cell)
    if in_solution:
        raise StudentError(f"{chapter.name}: a solution-start is never closed")
    if number == 0:
        raise StudentError(f"{chapter.name}: the exercise section has no exercise directive")
    student = nbformat.v4.new_notebook(cells=cells, metadata=nb.metadata.copy())
    student.metadata.pop("course", None)
    for cell in student.cells:  # stable ids: regenerating gives the same file
        cell.pop("id", None)
    student.nbformat_minor = 4
    return student


def main() -> int:
    parser = argparse.ArgumentParser(description="Generate student exercise notebooks.")
    parser.add_argument("--check", action="store_true", help="only check they are up to date")
    parser.add_argument("chapters", nargs="*", type=Path, help="default: every chapter")
    args = parser.parse_args()
    stale = []
    for chapter in [p.resolve() for p in args.chapters] or nbtools.chapter_notebooks():
        target = student_path(chapter)
        text = nbformat.writes(build_student(chapter)) + "\n"
        current = target.read_text(encoding="utf-8") if target.exists() else None
        if text == current:
            continue
        if args.check:
            stale.append(target)
        else:
            target.parent.mkdir(exist_ok=True)
            target.write_text(text, encoding="utf-8")
            print(f"wrote {target.relative_to(nbtools.ROOT)}")
    expected = {student_path(c) for c in nbtools.chapter_notebooks()}
    orphans = (
        [p for p in nbtools.student_notebooks() if p not in expected] if not args.chapters else []
    )
    if args.check and (stale or orphans):
        for p in stale:
            print(f"stale: {p.relative_to(nbtools.ROOT)} (run `make student`)", file=sys.stderr)
        for p in orphans:
            print(f"orphan: {p.relative_to(nbtools.ROOT)} has no chapter", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
