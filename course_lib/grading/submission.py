"""Reading a class's submissions: who sent what, and whether it is this chapter's notebook."""

from __future__ import annotations

import json
import re
import shutil
import zipfile
from dataclasses import dataclass
from pathlib import Path

from course_lib._foreign_names import explains_bad_calls, explains_class
from course_lib.grading.assignment import GENERATED, HEADING, Assignment, cell_source

__all__ = ["Submission", "collect", "read_cells"]

# Folders and files an LMS export or an operating system adds, never a student's work.
IGNORED = re.compile(r"^(__MACOSX|\..*|Thumbs\.db|desktop\.ini)$")
IGNORED_WORDS = "__MACOSX, dot-files, Thumbs.db, desktop.ini"


@explains_class
@dataclass(frozen=True)
class Submission:
    """One submitted file.

    Attributes:
        student: the student's id: the file's path inside SUBMISSIONS without ``.ipynb``,
            folders joined by ``__`` (an LMS that puts each student in a folder keeps them
            apart).
        path: the file.
    """

    student: str
    path: Path


@explains_bad_calls()
def collect(submissions: Path, unpack_to: Path) -> list[Submission]:
    """Every file in ``submissions`` (a folder, or a ``.zip`` unpacked into ``unpack_to``),
    one :class:`Submission` each, sorted by student id. Nothing is skipped but the folders
    and files an LMS or an operating system adds (``__MACOSX``, dot-files).

    Raises:
        FileNotFoundError: ``submissions`` does not exist.
        ValueError: it is neither a folder nor a zip file, or it holds no file to grade (an
            empty folder or zip: the class's notebooks not unpacked or exported yet).
    """
    given = submissions = Path(submissions)
    skipped = False  # a file an LMS or operating system added, never a student's work
    if not submissions.exists():
        raise FileNotFoundError(
            f"SUBMISSIONS={submissions} does not exist: give the folder (or .zip) of the "
            "notebooks your LMS exported"
        )
    if submissions.is_file():
        if not zipfile.is_zipfile(submissions):
            raise ValueError(
                f"SUBMISSIONS={submissions} is a file but not a zip: give the folder of the "
                "submitted notebooks, or the zip your LMS exported"
            )
        folder = unpack_to / "submissions"
        folder.mkdir(parents=True)
        with zipfile.ZipFile(submissions) as archive:
            for member in archive.infolist():
                parts = Path(member.filename).parts
                if member.is_dir():
                    continue
                if any(IGNORED.match(p) or p == ".." for p in parts):
                    skipped = True
                    continue
                target = folder.joinpath(*parts)
                target.parent.mkdir(parents=True, exist_ok=True)
                with archive.open(member) as src, open(target, "wb") as dst:
                    shutil.copyfileobj(src, dst)
        submissions = folder
    found = []
    for path in sorted(submissions.rglob("*")):
        relative = path.relative_to(submissions)
        if not path.is_file():
            continue
        if any(IGNORED.match(p) for p in relative.parts):
            skipped = True
            continue
        stem = relative.with_suffix("") if path.suffix == ".ipynb" else relative
        found.append(Submission(student="__".join(stem.parts), path=path))
    if not found:
        kind = "zip" if given.is_file() else "folder"
        what = (
            f"holds only files an LMS or operating system adds ({IGNORED_WORDS})"
            if skipped
            else f"is empty (a {kind} without a single file)"
        )
        fix = (
            "check that this is the zip your LMS exported with the class's submissions"
            if given.is_file()
            else "put the class's notebooks in it (unpack your LMS's export there), or give "
            "the exported .zip itself"
        )
        raise ValueError(
            f"SUBMISSIONS={given} {what}: no submissions to grade. It should contain the "
            "students' .ipynb notebooks, one file per student (or a folder per student, as "
            f"an LMS exports them): {fix}"
        )
    return sorted(found, key=lambda s: s.student)


@explains_bad_calls()
def read_cells(path: Path, assignment: Assignment) -> tuple[list[dict] | None, str]:
    """The notebook's cells and ``""``, or ``None`` and why it cannot be graded:
    ``empty file``, ``not a notebook``, ``wrong chapter (...)``."""
    data = path.read_bytes()
    if not data.strip():
        return None, "empty file"
    try:
        notebook = json.loads(data.decode("utf-8"))
        cells = notebook["cells"]
        if not isinstance(cells, list) or not all(isinstance(c, dict) for c in cells):
            raise TypeError
    except (UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError):
        return None, "not a notebook"
    markdown = "\n".join(cell_source(c) for c in cells if c.get("cell_type") == "markdown")
    generated = GENERATED.search(markdown)
    if generated and generated["chapter"] != assignment.chapter:
        return None, f"wrong chapter (this is the notebook of chapter {generated['chapter']})"
    code = "\n".join(cell_source(c) for c in cells if c.get("cell_type") == "code")
    if not generated and not HEADING.search(markdown):
        names = assignment.student_names
        if names and not any(re.search(rf"\b{re.escape(n)}\b", code) for n in names):
            return None, "wrong chapter (none of this chapter's exercises is in it)"
    return cells, ""
