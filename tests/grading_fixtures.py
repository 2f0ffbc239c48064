"""Submissions a class might hand in, built from a chapter's student notebook: the grader's
test fixtures (tests/test_grading*.py) and the README's example class (tools/example_class.py)."""

from __future__ import annotations

import base64
import contextlib
import io
import os
import pickle
from collections.abc import Callable
from pathlib import Path

import nbformat

import make_student
import nbtools
from course_lib.checks import check_masked_softmax
from course_lib.grading.assignment import YOUR_CODE, check_calls, defined_names
from course_lib.masking import masked_softmax


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


def append_to(nb: nbformat.NotebookNode, name: str, source: str) -> nbformat.NotebookNode:
    """Append ``source`` to the cell that defines ``name``."""
    cell = next(c for c in nb.cells if c.cell_type == "code" and name in defined_names(c.source))
    cell.source = cell.source.rstrip("\n") + "\n\n\n" + source
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

    with contextlib.redirect_stdout(io.StringIO()):  # the check's tick
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


THREAT_CHAPTER = "02b"


def threat_class(folder: Path) -> Path:
    """The fixture class of Chapter 2b in ``folder``: one submission per threat the grader
    must withstand (issue 33), named by its number in the README's table."""
    CHAPTER = THREAT_CHAPTER
    # 1. the chapter's own solutions
    write(solved(CHAPTER), folder / "01_correct.ipynb")
    # 2. handed back untouched
    write(untouched(CHAPTER), folder / "02_untouched.ipynb")
    # 3. outputs copied from the public check's cases
    cheat = memorized("masked_softmax", check_masked_softmax, masked_softmax)
    write(
        with_answers(CHAPTER, {"masked_softmax": cheat, "general_scores": None}),
        folder / "03_hard_coded.ipynb",
    )
    # 4. checks edited, deleted, redefined and monkeypatched; exercise 1 answered, exercise 3
    # answered by a function that patches torch when it is called
    patching = (
        "def general_scores(query, key, weight):\n"
        "    import torch\n\n"
        "    torch.allclose = lambda *args, **kwargs: True\n"
        "    torch.Tensor.__eq__ = lambda *args: True\n"
        "    return query\n"
    )
    nb = with_answers(CHAPTER, {"masked_softmax": None, "general_scores": patching})
    nb = edit_check_cells(
        nb,
        lambda source: (
            None if "general_scores" in source else 'print("✓ all cases agree with the reference.")'
        ),
    )
    append_to(
        nb,
        "masked_softmax",
        "import torch\n"
        "import course_lib.checks\n"
        "import course_lib.checks._core as core\n"
        "import course_lib.masking\n\n\n"
        "def check_general_scores(fn):\n"
        '    print("✓ general_scores: all cases agree")\n\n\n'
        "course_lib.checks.check_scaled_dot_product_attention = check_general_scores\n"
        "core.compare = lambda *args, **kwargs: None\n"
        "course_lib.masking.masked_softmax.__code__ = (lambda s, m: s).__code__\n"
        "torch.allclose = lambda *args, **kwargs: True\n",
    )
    write(nb, folder / "04_tampered.ipynb")
    # 5. an endless loop in exercise 2; exercises 1 and 3 right
    loop = "def scaled_dot_product_attention(*args):\n    while True:\n        pass\n"
    write(
        with_answers(
            CHAPTER,
            {"masked_softmax": None, "scaled_dot_product_attention": loop, "general_scores": None},
        ),
        folder / "05_endless_loop.ipynb",
    )
    # 6. a cell that raises after defining a right answer (exercise 1), one that ends Python
    # after defining one (exercise 2): Python is started again, the cells that ran are run
    # again (not the one that ended it), the rest is graded
    nb = with_answers(
        CHAPTER,
        {"masked_softmax": None, "scaled_dot_product_attention": None, "general_scores": None},
    )
    append_to(nb, "masked_softmax", "1 / 0")
    append_to(nb, "scaled_dot_product_attention", "import os\n\nos._exit(1)")
    write(nb, folder / "06_raises_and_dies.ipynb")
    # 7. not a notebook, empty, another chapter's notebook, a broken notebook
    (folder / "07_notes.txt").write_text("I could not open Jupyter, here is my code: ...")
    (folder / "07_empty.ipynb").write_bytes(b"")
    write(untouched("01"), folder / "07_other_chapter.ipynb")
    (folder / "07_broken.ipynb").write_text('{"cells": [{"cell_type": "code", "sour')
    # 8. looks around and leaves a file: keeps its masked_softmax only if it is alone in its
    # folder, so two of them (graded one after the other, or side by side) both pass
    snooping = (
        "import os\n\n"
        'seen = sorted(os.listdir("."))\n'
        'open("left_behind.txt", "w").write("for the next student")\n'
        'if seen != ["submission.ipynb"]:\n'
        "    del masked_softmax\n"
    )
    for name in ("08_snooping", "09_snooping_too"):
        nb = with_answers(
            CHAPTER,
            {"masked_softmax": None, "scaled_dot_product_attention": None, "general_scores": None},
        )
        write(append_to(nb, "masked_softmax", snooping), folder / f"{name}.ipynb")
    # 10. an experiment that never ends, outside any function the checks use: not run
    nb = with_answers(
        CHAPTER,
        {"masked_softmax": None, "scaled_dot_product_attention": None, "general_scores": None},
    )
    write(
        insert_after(nb, "general_scores", "while True:\n    pass"), folder / "10_experiment.ipynb"
    )
    return folder


def write(nb: nbformat.NotebookNode, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)
    return path


def isolation_args() -> list[str]:
    """``[]`` where the grader's sandbox runs here; ``["--unsandboxed"]`` where bubblewrap
    cannot (macOS, a container without user namespaces), unless the run requires the sandbox
    (``COURSE_REQUIRE_SANDBOX=1``, set by CI where it installed bubblewrap): then it fails."""
    from course_lib.grading.sandbox import probe

    reason = probe()
    if reason is None:
        return []
    if os.environ.get("COURSE_REQUIRE_SANDBOX"):
        raise AssertionError(
            f"COURSE_REQUIRE_SANDBOX is set, but the sandbox cannot start: {reason}"
        )
    return ["--unsandboxed"]


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
            assert main([*args, *isolation_args(), "--out", str(out)]) == 0, "the grader failed"
    return out


# A class that mixes every kind of defect of issue 44 (other names and contents than the
# issue's own cases): for each file, the gradebook row it must get. ``None`` for points means
# the row has no points (not graded); ``status`` is the start its status must have.
ANSWERS = {"masked_softmax": None, "scaled_dot_product_attention": None, "general_scores": None}
DEATHS = {
    "swallows_interrupts": (
        "def scaled_dot_product_attention(*args, **kwargs):\n"
        "    while True:\n"
        "        try:\n"
        "            while True:\n"
        "                pass\n"
        "        except KeyboardInterrupt:\n"
        "            pass\n"
    ),
    "exits_in_check": "def scaled_dot_product_attention(*a, **k):\n    import os\n    os._exit(7)\n",
    "segfaults": (
        "def scaled_dot_product_attention(*a, **k):\n"
        "    import ctypes\n"
        "    return ctypes.string_at(0)\n"
    ),
}


def _v3(nb: nbformat.NotebookNode) -> str:
    return nbformat.writes(nbformat.convert(nb, 3), version=3)


def mixed_class(
    folder: Path, out: Path, attack: bool = True, library: Path | None = None
) -> list[tuple[str, list[str] | None, str]]:
    """Write the mixed class in ``folder`` (to be graded into ``out``; ``attack``: with the
    submission that attacks the others, which only the sandbox stops; ``library``: the
    ``course_lib`` folder it tries to patch, the grader's own by default); return the rows it
    must give: (student id or its start, for ids that get a hash; points of ex1-ex3, ``None``
    where it is not graded; the start of its status). An id start may repeat: so many rows."""
    import json

    from course_lib.grading.sandbox import LIBRARY

    full, zero = ["1", "1", "1"], ["0", "0", "0"]
    expect: list[tuple[str, list[str] | None, str]] = []
    # 2. deaths during a check cost that check alone
    for name, source in DEATHS.items():
        nb = with_answers(THREAT_CHAPTER, {**ANSWERS, "scaled_dot_product_attention": source})
        write(nb, folder / f"{name}.ipynb")
        expect.append((name, ["1", "0", "1"], "graded"))
    # 3. ids and pages that would collide
    write(solved(THREAT_CHAPTER), folder / "grp" / "kim.ipynb")
    write(untouched(THREAT_CHAPTER), folder / "grp__kim.ipynb")
    expect += [("grp__kim", full, "graded"), ("grp__kim", zero, "graded")]
    write(solved(THREAT_CHAPTER), folder / "Lee Wu.ipynb")
    write(untouched(THREAT_CHAPTER), folder / "Lee_Wu.ipynb")
    expect += [("Lee Wu", full, "graded"), ("Lee_Wu", zero, "graded")]
    write(solved(THREAT_CHAPTER), folder / "Jos\u00e9.ipynb")  # NFC
    write(untouched(THREAT_CHAPTER), folder / "Jose\u0301.ipynb")  # NFD: reads the same
    expect += [("Jos\u00e9", full, "graded"), ("Jos\u00e9", zero, "graded")]
    # 4. files that used to disappear or crash the run
    write(solved(THREAT_CHAPTER), folder / ".late.ipynb")
    expect.append((".late", None, "skipped"))
    (folder / "v3_notebook.ipynb").write_text(_v3(solved(THREAT_CHAPTER)), encoding="utf-8")
    expect.append(("v3_notebook", full, "graded"))
    data = json.loads(nbformat.writes(solved(THREAT_CHAPTER)))
    data["metadata"] = None
    (folder / "null_metadata.ipynb").write_text(json.dumps(data), encoding="utf-8")
    expect.append(("null_metadata", None, "not a notebook"))
    data = json.loads(nbformat.writes(solved(THREAT_CHAPTER)))
    data["cells"][1]["source"] = [None]
    (folder / "null_source.ipynb").write_text(json.dumps(data), encoding="utf-8")
    expect.append(("null_source", None, "not a notebook"))
    deep = folder.joinpath(*(["a_long_folder_name_for_one_section_of_the_class" * 2] * 4))
    write(solved(THREAT_CHAPTER), deep / ("a_very_long_student_name" * 8 + ".ipynb"))
    expect.append(("a_long_folder_name", full, "graded"))
    # 5. answers a static slice used to drop
    cases = {
        "star_import": ("from math import *\n", "sqrt"),
        "made_by_exec": ('exec("root_of = lambda x: x ** 0.5")\n', "root_of"),
        "import_in_try": (
            "try:\n    from math import sqrt as root_of\nexcept ImportError:\n    pass\n",
            "root_of",
        ),
        "dict_filled": (
            'SETTINGS = {}\nSETTINGS["root"] = lambda x: x ** 0.5\n',
            'SETTINGS["root"]',
        ),
    }
    for name, (cell, root) in cases.items():
        nb = with_answers(THREAT_CHAPTER, ANSWERS)
        for c in nb.cells:
            if c.cell_type == "code" and "def scaled_dot_product_attention" in c.source:
                c.source = c.source.replace("math.sqrt", root)
        insert_after(nb, "masked_softmax", cell)
        write(nb, folder / f"{name}.ipynb")
        expect.append((name, full, "graded"))
    # 6. a submission that attacks the others, and the student graded after it
    if not attack:
        return expect
    library = library or LIBRARY
    attack = ATTACK.format(submissions=str(folder), out=str(out), library=str(library))
    write(
        append_to(with_answers(THREAT_CHAPTER, ANSWERS), "masked_softmax", attack),
        folder / "a_attacker.ipynb",
    )
    expect.append(("a_attacker", full, "graded"))
    return expect


ATTACK = """
import os, pathlib, subprocess, time

SUBMISSIONS, OUT, LIBRARY = {submissions!r}, {out!r}, {library!r}
for path in (SUBMISSIONS + "/b_victim.ipynb", OUT + "/grades.csv", LIBRARY + "/__init__.py",
             LIBRARY + "/../injected.pth", "/tmp/left_by_attacker"):
    try:
        with open(path, "a") as f:
            f.write("# attacked")
    except OSError:
        pass
try:
    os.makedirs(OUT, exist_ok=True)
    os.mkfifo(OUT + "/feedback")
except OSError:
    pass
subprocess.Popen(["sleep", "987"])  # a process left behind
if os.fork() == 0:  # and one that acts once the grader has moved on
    os.setsid()
    time.sleep(3)
    for path in (OUT + "/grades.csv", SUBMISSIONS + "/b_victim.ipynb"):
        try:
            pathlib.Path(path).write_text("rewritten")
        except OSError:
            pass
    os._exit(0)
"""


def judge(rows: list[dict], expect: list[tuple[str, list[str] | None, str]]) -> dict[str, list]:
    """Each expected row: ``right``, ``wrong`` (a row with that id, other points or status) or
    ``lost`` (no row with that id)."""
    import unicodedata

    left = [dict(r, student=unicodedata.normalize("NFC", r["student"])) for r in rows]
    verdict: dict[str, list] = {"right": [], "wrong": [], "lost": []}
    for start, points, status in expect:
        mine = [
            r
            for r in left
            if r["student"] == start
            or r["student"].startswith(start + "~")
            or (len(start) > 12 and r["student"].startswith(start))
        ]
        good = [
            r
            for r in mine
            if r["status"].startswith(status)
            and (points is None or [r["ex1"], r["ex2"], r["ex3"]] == points)
        ]
        if good:
            left.remove(good[0])
            verdict["right"].append(start)
        elif mine:
            left.remove(mine[0])
            verdict["wrong"].append(
                (start, mine[0]["status"], [mine[0][k] for k in ("ex1", "ex2", "ex3")])
            )
        else:
            verdict["lost"].append(start)
    return verdict
