"""Reading a class's submissions: who sent what, and whether it is this chapter's notebook.

Every file found in SUBMISSIONS is accounted for (:func:`collect_all`): it becomes a
gradebook row -- graded, or with a status saying why not -- or, when it is something an
operating system, Jupyter or a version-control tool adds (``__MACOSX``, ``.DS_Store``,
``Thumbs.db``, ``.ipynb_checkpoints``, ``.git``), it is *listed*: named with the reason in
``review.md`` and counted in the summary, without a row that would read like a student's.
"""

from __future__ import annotations

import codecs
import hashlib
import json
import os
import re
import shutil
import stat
import tempfile
import unicodedata
import zipfile
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import nbformat

from course_lib._foreign_names import explains_bad_calls, explains_class
from course_lib.grading.assignment import GENERATED, HEADING, Assignment, cell_source

__all__ = ["Collected", "Submission", "collect", "collect_all", "read_cells", "why_not_graded"]

IGNORED_WORDS = "__MACOSX, .DS_Store, Thumbs.db, desktop.ini, .ipynb_checkpoints, dot-files"

#: Folders whose files are never a student's work, and why.
JUNK_FOLDERS = {
    "__MACOSX": "added by macOS (__MACOSX)",
    ".ipynb_checkpoints": "a .ipynb_checkpoints copy (Jupyter's autosave)",
    ".git": "version-control data (.git)",
    ".svn": "version-control data (.svn)",
    ".hg": "version-control data (.hg)",
    "__pycache__": "Python's cache (__pycache__)",
    ".Trashes": "added by macOS (.Trashes)",
    ".Spotlight-V100": "added by macOS (.Spotlight-V100)",
    ".fseventsd": "added by macOS (.fseventsd)",
}
#: Files that are never a student's work, by their lower-cased name, and why.
JUNK_FILES = {
    ".ds_store": "added by macOS (.DS_Store)",
    "thumbs.db": "added by Windows (Thumbs.db)",
    "ehthumbs.db": "added by Windows (ehthumbs.db)",
    "desktop.ini": "added by Windows (desktop.ini)",
}
HIDDEN = "a hidden file (name starts with a dot)"
HASH_LENGTHS = (4, 8, 16, 64)
#: A zip member larger than this (unpacked) is listed, not unpacked.
MAX_MEMBER_BYTES = 512 * 2**20
#: A file larger than this is not read (no notebook a student hands in is this large).
MAX_FILE_BYTES = MAX_MEMBER_BYTES


@explains_class
@dataclass(frozen=True)
class Submission:
    """One file found in SUBMISSIONS.

    Attributes:
        student: the student's id, unique among the files found: the file's path inside
            SUBMISSIONS without ``.ipynb``, folders joined by ``__`` (an LMS that puts each
            student in a folder keeps them apart), NFC-normalised, control characters shown
            as U+FFFD. Ids that would read the same -- ``a/b.ipynb`` and ``a__b.ipynb``, an
            NFC and an NFD spelling, two spellings that differ only by case, a zip's repeated
            member -- each get ``~`` and a short hash of the file's own path (``a__b~3f2a``).
        path: the file (a zip's member: its unpacked copy, a regular file).
        status: ``""``: grade it; otherwise why it is not graded (``skipped: ...``), the
            gradebook's status for it.
        note: for the instructor, what collecting it changed or found (a zip member's
            absolute path, a repeated member), ``""`` if nothing.
        source: where it was found: its path inside SUBMISSIONS, or its zip member's name.
    """

    student: str
    path: Path
    status: str = ""
    note: str = ""
    source: str = ""


@explains_class
@dataclass(frozen=True)
class Collected:
    """Every file found in SUBMISSIONS, in two lists.

    Attributes:
        graded: one gradebook row each, sorted by student id: what to pass to the grader
            (those with a ``status`` are not run, the status is their row's).
        listed: files an operating system, Jupyter or a version-control tool adds, never a
            student's work (``__MACOSX/._x``, ``.DS_Store``, ``.ipynb_checkpoints`` copies),
            and hidden files that are not notebooks: no row; ``review.md`` names each with
            its ``status``, the summary counts them. Sorted by ``source``.
    """

    graded: list[Submission]
    listed: list[Submission]

    @property
    def found(self) -> int:
        """The number of files found (rows plus listed files)."""
        return len(self.graded) + len(self.listed)


class _Entry(NamedTuple):
    """A file found, before its id is given."""

    parts: tuple[str, ...]  # its path's parts, as read (readable ones are made from them)
    key: str  # unique among the entries: what its hash is made from
    path: Path
    status: str
    note: str
    source: str  # its path inside SUBMISSIONS, or its zip member's name


def _display(text: str) -> str:
    """``text`` NFC-normalised, control characters and undecodable bytes shown as U+FFFD."""
    text = text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    text = unicodedata.normalize("NFC", text)
    return "".join("\ufffd" if unicodedata.category(c) in ("Cc", "Cs") else c for c in text)


def fold_name(text: str) -> str:
    """What two names that read the same (or differ by case only) have in common."""
    return unicodedata.normalize("NFC", unicodedata.normalize("NFC", text).casefold())


def _short_hash(key: str, length: int) -> str:
    data = key.encode("utf-8", "surrogateescape")
    return hashlib.sha256(data).hexdigest()[:length]


def unique_names(readable: list[str], keys: list[str], hashed: list[bool]) -> list[str]:
    """``readable[i]``, or with ``~`` and a hash of ``keys[i]`` where ``hashed[i]``: the
    hash lengthened until no two results are equal case-insensitively."""
    for length in HASH_LENGTHS:
        names = [
            f"{r}~{_short_hash(k, length)}" if h else r
            for r, k, h in zip(readable, keys, hashed, strict=True)
        ]
        if len({fold_name(n) for n in names}) == len(names) or length == HASH_LENGTHS[-1]:
            return names
    raise AssertionError("unreachable")


def _student_ids(entries: list[_Entry]) -> list[str]:
    """One readable id per entry, made unique by a hash where two would read the same."""
    readable = []
    for entry in entries:
        parts = [_display(p) for p in entry.parts]
        if len(parts[-1]) > 6 and parts[-1].lower().endswith(".ipynb"):
            parts[-1] = parts[-1][:-6]
        readable.append("__".join(parts))
    counts: dict[str, int] = {}
    for r in readable:
        counts[fold_name(r)] = counts.get(fold_name(r), 0) + 1
    hashed = [counts[fold_name(r)] > 1 for r in readable]
    return unique_names(readable, [e.key for e in entries], hashed)


@explains_bad_calls()
def why_not_graded(parts: Sequence[str]) -> tuple[str, bool]:
    """Whether a file, by its path alone, is a student's submission.

    Args:
        parts: the parts of its path inside SUBMISSIONS (``("dave", "hw.ipynb")``).

    Returns:
        ``("", True)`` for a file to grade; ``(status, True)`` for a file that is a row but
        not graded: a hidden notebook (``.hw.ipynb``, or one in a hidden folder); or
        ``(status, False)`` for a file with no row, listed: what an operating system,
        Jupyter or a version-control tool adds (``__MACOSX/...``, ``._x``, ``.DS_Store``,
        ``Thumbs.db``, ``desktop.ini``, ``.ipynb_checkpoints/...``, ``.git/...``) and
        hidden files that are not notebooks (``.env``).
    """
    parts = tuple(parts)
    for part in parts[:-1]:
        if part in JUNK_FOLDERS:
            return f"skipped: {JUNK_FOLDERS[part]}", False
    name = parts[-1]
    if name in JUNK_FOLDERS:
        return f"skipped: {JUNK_FOLDERS[name]}", False
    if name.lower() in JUNK_FILES:
        return f"skipped: {JUNK_FILES[name.lower()]}", False
    if name.startswith("._"):
        return "skipped: added by macOS (a ._ resource fork)", False
    hidden = [p for p in parts if p.startswith(".")]
    if hidden:
        where = HIDDEN if name.startswith(".") else f"in a hidden folder ({_display(hidden[0])})"
        return f"skipped: {where}", name.lower().endswith(".ipynb")
    return "", True


def _folder_entries(folder: Path) -> list[_Entry]:
    """Every file under ``folder``; links are not followed, a folder that cannot be read
    and anything that is not a regular file is an entry with a status."""
    entries = []

    def add(path: Path, status: str) -> None:
        relative = path.relative_to(folder)
        source = relative.as_posix()
        entries.append(_Entry(relative.parts, source, path, status, "", source))

    def unreadable(err: OSError) -> None:
        why = err.strerror or type(err).__name__
        if err.filename is None or Path(err.filename) == folder:
            raise ValueError(f"SUBMISSIONS={folder} cannot be read ({why}): {err}")
        add(Path(err.filename), f"skipped: a folder that could not be read ({why})")

    for root, dirs, files in os.walk(folder, onerror=unreadable):
        here = Path(root)
        for name in list(dirs):
            if (here / name).is_symlink():
                dirs.remove(name)
                add(here / name, "skipped: a symbolic link (the grader follows no links)")
        dirs.sort()
        for name in sorted(files):
            path = here / name
            try:
                mode = path.lstat().st_mode
            except OSError as err:
                add(path, f"unreadable file ({err.strerror or type(err).__name__})")
                continue
            if stat.S_ISLNK(mode):
                add(path, "skipped: a symbolic link (the grader follows no links)")
            elif not stat.S_ISREG(mode):
                add(path, "skipped: not a regular file (a pipe, socket or device)")
            else:
                add(path, "")
    return entries


def _member_parts(name: str) -> tuple[tuple[str, ...], str]:
    """A zip member's path parts, kept inside the unpack folder, and a note if they had to
    be changed: ``\\`` separators, a drive, a leading ``/`` or ``..`` components."""
    text = name.replace("\\", "/")
    changes = []
    drive = re.match(r"^[A-Za-z]:", text)
    if drive:
        changes.append(f"a drive ({drive.group()})")
        text = text[2:]
    if text.startswith("/"):
        changes.append("an absolute path")
    raw = text.split("/")
    if ".." in raw:
        changes.append("'..' in its path")
    parts = tuple(p for p in raw if p not in ("", ".", ".."))
    note = ""
    if changes:
        note = (
            f"zip member {_display(name)!r} had {' and '.join(changes)}: unpacked inside the "
            "grader's folder, nothing written outside it"
        )
    return parts or ("(unnamed member)",), note


def _unpack(archive: zipfile.ZipFile, member: zipfile.ZipInfo, target: Path) -> str:
    """Copy ``member`` to the new regular file ``target``; ``""``, or why it was not."""
    mode = member.external_attr >> 16
    with open(target, "xb") as dst:
        if stat.S_ISLNK(mode):
            return "skipped: a symbolic link in the zip (the grader follows no links)"
        if member.file_size > MAX_MEMBER_BYTES:
            return f"skipped: larger than {MAX_MEMBER_BYTES // 2**20} MiB unpacked"
        try:
            with archive.open(member) as src:
                shutil.copyfileobj(src, dst)
        except (zipfile.BadZipFile, RuntimeError, NotImplementedError, OSError) as err:
            dst.truncate(0)
            return f"skipped: could not be unpacked from the zip ({err})"
    return ""


def _zip_entries(submissions: Path, unpack_to: Path) -> list[_Entry]:
    """Every file member of the zip, unpacked to a file of its own in a new folder under
    ``unpack_to`` (named by its position, so no name in the zip can reach outside it or
    overwrite another member); repeated names are all kept, each with a note."""
    unpack_to.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix="submissions-", dir=unpack_to))
    try:
        with zipfile.ZipFile(submissions) as archive:
            members = [m for m in archive.infolist() if not m.is_dir()]
            total = Counter(m.filename for m in members)
            seen: Counter[str] = Counter()
            entries = []
            for index, member in enumerate(members, start=1):
                parts, note = _member_parts(member.filename)
                seen[member.filename] += 1
                k = seen[member.filename]
                key = member.filename if k == 1 else f"{member.filename}\x00{k}"
                if total[member.filename] > 1:
                    note = "; ".join(filter(None, [note, _repeated(member.filename, k, total)]))
                suffix = ".ipynb" if parts[-1].lower().endswith(".ipynb") else ""
                target = folder / f"{index:05d}{suffix}"
                status = _unpack(archive, member, target)
                entries.append(_Entry(parts, key, target, status, note, member.filename))
    except zipfile.BadZipFile as err:
        raise ValueError(
            f"SUBMISSIONS={submissions} is a damaged zip ({err}): export it again from "
            "your LMS, or unpack it and give the folder"
        ) from None
    return entries


def _repeated(name: str, k: int, total: Counter[str]) -> str:
    """The note of the ``k``-th of the zip's members named ``name``."""
    ordinal = {1: "first", 2: "second", 3: "third"}.get(k, f"{k}th")
    return (
        f"one of {total[name]} members named {_display(name)!r} in the zip (the {ordinal}); "
        "every one is kept"
    )


def _nothing_to_grade(given: Path, listed: int) -> ValueError:
    kind = "zip" if given.is_file() else "folder"
    what = (
        f"holds only files an LMS or operating system adds ({IGNORED_WORDS})"
        if listed
        else f"is empty (a {kind} without a single file)"
    )
    fix = (
        "check that this is the zip your LMS exported with the class's submissions"
        if given.is_file()
        else "put the class's notebooks in it (unpack your LMS's export there), or give "
        "the exported .zip itself"
    )
    return ValueError(
        f"SUBMISSIONS={given} {what}: no submissions to grade. It should contain the "
        "students' .ipynb notebooks, one file per student (or a folder per student, as "
        f"an LMS exports them): {fix}"
    )


@explains_bad_calls()
def collect_all(submissions: Path, unpack_to: Path) -> Collected:
    """Every file in ``submissions`` (a folder, or a ``.zip`` unpacked into a new folder
    under ``unpack_to``), each a :class:`Submission` with an id unique among them.

    Nothing is dropped: a file is a gradebook row (``graded``), with ``status`` ``""`` or
    why it is not graded -- a hidden notebook (``.hw.ipynb``), a link, a zip member that is
    a link or could not be unpacked -- or, when an operating system, Jupyter or a
    version-control tool added it, it is ``listed`` (see :class:`Collected`). A zip member
    is never written outside the unpack folder, whatever its name (``/x``, ``C:\\x``,
    ``../x``), and never as a link; a repeated member name keeps every member.

    Args:
        submissions: the folder (or zip) the LMS exported.
        unpack_to: where a zip is unpacked (a folder of the grader's own).

    Returns:
        The rows and the listed files.

    Raises:
        FileNotFoundError: ``submissions`` does not exist.
        ValueError: it is neither a folder nor a zip file, a damaged zip, or it holds no
            file for a row (an empty folder or zip: the class's notebooks not unpacked or
            exported yet).
    """
    submissions, unpack_to = Path(submissions), Path(unpack_to)
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
        entries = _zip_entries(submissions, unpack_to)
    else:
        entries = _folder_entries(submissions)
    graded, listed = [], []
    for entry, student in zip(entries, _student_ids(entries), strict=True):
        status, row = why_not_graded(entry.parts)
        status = status or entry.status
        found = Submission(student, entry.path, status, entry.note, _display(entry.source))
        (graded if row else listed).append(found)
    if not graded:
        raise _nothing_to_grade(submissions, len(listed))
    graded.sort(key=lambda s: s.student)
    listed.sort(key=lambda s: (s.source, s.student))
    return Collected(graded, listed)


@explains_bad_calls()
def collect(submissions: Path, unpack_to: Path) -> list[Submission]:
    """The gradebook's rows of :func:`collect_all`: one :class:`Submission` per file that
    is not something an operating system, Jupyter or a version-control tool added, sorted
    by student id (those with a ``status`` are not to be run).

    Args:
        submissions: the folder (or zip) the LMS exported.
        unpack_to: where a zip is unpacked.

    Returns:
        ``collect_all(submissions, unpack_to).graded``.
    """
    return collect_all(submissions, unpack_to).graded


def _decode(data: bytes) -> dict | None:
    """The JSON object in ``data`` (UTF-8, with or without a BOM; UTF-16 with one), or
    ``None``."""
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        encoding = "utf-16"
    else:
        encoding = "utf-8-sig"
    try:
        notebook = json.loads(data.decode(encoding))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    return notebook if isinstance(notebook, dict) else None


def _upgrade(notebook: dict) -> tuple[dict | None, str]:
    """A notebook of nbformat 1 to 3 converted to version 4 by nbformat."""
    version = notebook.get("nbformat")
    if not isinstance(version, int) or isinstance(version, bool) or version >= 4:
        return notebook, ""
    try:
        return nbformat.convert(nbformat.from_dict(notebook), 4), ""
    except Exception as err:  # nbformat's converters raise anything on a broken notebook
        reason = f"{type(err).__name__}: {err}"[:120]
        return (
            None,
            f"not a notebook (nbformat {version}, which nbformat could not convert: {reason})",
        )


def _kind(value: object) -> str:
    names = {type(None): "null", bool: "a boolean", int: "a number", float: "a number"}
    names |= {str: "text", list: "a list", dict: "an object"}
    return names.get(type(value), type(value).__name__)


def _normal_cell(cell: object, number: int) -> tuple[dict | None, str]:
    """``cell`` with ``cell_type`` and ``source`` text and ``metadata`` an object (a missing
    ``source``, ``metadata``, ``outputs`` or ``execution_count`` gets Jupyter's default), or
    ``None`` and what is wrong: a field there with a type nbformat refuses."""
    where = f"cell {number}"
    if not isinstance(cell, dict):
        return None, f"{where} is {_kind(cell)}, not a cell (an object)"
    cell = dict(cell)
    if not isinstance(cell.get("cell_type"), str):
        return None, f"{where}'s cell_type is {_kind(cell.get('cell_type'))}, not text"
    source = cell.get("source", "")
    if isinstance(source, list):
        wrong = [s for s in source if not isinstance(s, str)]
        if wrong:
            return None, f"{where}'s source holds {_kind(wrong[0])} among its lines of text"
        source = "".join(source)
    if not isinstance(source, str):
        return None, f"{where}'s source is {_kind(source)}, not text"
    cell["source"] = source
    metadata = cell.setdefault("metadata", {})
    if not isinstance(metadata, dict):
        return None, f"{where}'s metadata is {_kind(metadata)}, not an object"
    tags = metadata.get("tags", [])
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        return None, f"{where}'s tags are {_kind(tags)}, not a list of text"
    if cell["cell_type"] == "code":
        if not isinstance(cell.setdefault("outputs", []), list):
            return None, f"{where}'s outputs are {_kind(cell['outputs'])}, not a list"
        count = cell.setdefault("execution_count", None)
        if count is not None and (isinstance(count, bool) or not isinstance(count, int)):
            return None, f"{where}'s execution_count is {_kind(count)}, not a number"
    return cell, ""


def _notebook_cells(data: bytes) -> tuple[list[dict] | None, str]:
    """The cells of the notebook in ``data``, each normalised (:func:`_normal_cell`), or
    ``None`` and ``not a notebook`` (not a JSON object with a list of cells) or ``not a
    notebook (why)`` (a notebook with a field nbformat refuses)."""
    notebook = _decode(data)
    if notebook is None:
        return None, "not a notebook"
    notebook, problem = _upgrade(notebook)
    if notebook is None:
        return None, problem
    cells = notebook.get("cells")
    if not isinstance(cells, list):
        return None, "not a notebook"
    metadata = notebook.get("metadata", {})
    if not isinstance(metadata, dict):
        return None, f"not a notebook (its metadata is {_kind(metadata)}, not an object)"
    normal = []
    for number, cell in enumerate(cells, start=1):
        cell, problem = _normal_cell(cell, number)
        if cell is None:
            return None, f"not a notebook ({problem})"
        normal.append(cell)
    return normal, ""


@explains_bad_calls()
def read_cells(path: Path, assignment: Assignment) -> tuple[list[dict] | None, str]:
    """The notebook's cells and ``""``, or ``None`` and why it cannot be graded; never
    raises because of what the file holds.

    Cells come back normalised: each a dict with ``cell_type`` and ``source`` text and a
    ``metadata`` dict (code cells with ``outputs`` and ``execution_count``). A notebook of
    nbformat 1 to 3 is converted to version 4; a UTF-8 BOM, the keys other tools add (VS
    Code, Colab, Kaggle, cell ids) and a missing optional field are fine.

    Args:
        path: the submitted file.
        assignment: the chapter's exercises (to tell another chapter's notebook).

    Returns:
        ``(cells, "")``, or ``(None, why)``: ``unreadable file (...)``, ``empty file``,
        ``not a notebook`` (not a notebook's JSON at all), ``not a notebook (why)`` (a
        notebook with a field of a type nbformat refuses: ``"metadata": null``, a ``null``
        in a source), ``wrong chapter (...)``.
    """
    try:
        found = os.stat(path)
        if not stat.S_ISREG(found.st_mode):
            return None, "unreadable file (not a regular file)"
        if found.st_size > MAX_FILE_BYTES:
            return None, f"not a notebook (larger than {MAX_FILE_BYTES // 2**20} MiB)"
        data = Path(path).read_bytes()
    except OSError as err:
        return None, f"unreadable file ({err.strerror or type(err).__name__})"
    if not data.removeprefix(codecs.BOM_UTF8).strip():
        return None, "empty file"
    cells, problem = _notebook_cells(data)
    if cells is None:
        return None, problem
    markdown = "\n".join(cell_source(c) for c in cells if c["cell_type"] == "markdown")
    generated = GENERATED.search(markdown)
    if generated and generated["chapter"] != assignment.chapter:
        return None, f"wrong chapter (this is the notebook of chapter {generated['chapter']})"
    code = "\n".join(cell_source(c) for c in cells if c["cell_type"] == "code")
    if not generated and not HEADING.search(markdown):
        names = assignment.student_names
        if names and not any(re.search(rf"\b{re.escape(n)}\b", code) for n in names):
            return None, "wrong chapter (none of this chapter's exercises is in it)"
    return cells, ""
