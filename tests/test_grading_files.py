"""Every file accounted for (issue 44, defects 3 and 4): unique ids and feedback pages, no file
skipped without a word, zip members kept inside the grader's folder, any notebook JSON read
without an exception. Fast: collect(), read_cells() and the report functions, called directly.
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import stat
import unicodedata
import zipfile

import pytest

import nbtools
from course_lib.grading.assignment import load_assignment
from course_lib.grading.grade import Graded, Options, plan
from course_lib.grading.report import (
    accounted,
    feedback_names,
    summary,
    write_feedback,
    write_gradebook,
    write_review,
)
from course_lib.grading.submission import (
    Submission,
    collect,
    collect_all,
    read_cells,
    why_not_graded,
)

ASSIGNMENT = load_assignment(nbtools.EXERCISES / "02b_scoring_functions_exercises.ipynb")
NFC = unicodedata.normalize("NFC", "José")
NFD = unicodedata.normalize("NFD", "José")


def short(text: str, n: int = 4) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:n]


def touch(path, text="{}"):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def notebook(cells, **top) -> dict:
    return {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": cells, **top}


def heading(extra=None) -> dict:
    return {"cell_type": "markdown", "metadata": {}, "source": "## Exercise 1", **(extra or {})}


def write_nb(path, nb) -> object:
    path.write_text(json.dumps(nb), encoding="utf-8")
    return path


# --- 1. ids unique by construction -------------------------------------------------------


def test_a_folder_and_a_name_with_double_underscores_get_two_ids(tmp_path):
    touch(tmp_path / "in" / "a" / "b.ipynb")
    touch(tmp_path / "in" / "a__b.ipynb")
    touch(tmp_path / "in" / "carol.ipynb")
    found = collect(tmp_path / "in", tmp_path / "unpack")
    ids = {s.source: s.student for s in found}
    assert ids == {
        "a/b.ipynb": f"a__b~{short('a/b.ipynb')}",
        "a__b.ipynb": f"a__b~{short('a__b.ipynb')}",
        "carol.ipynb": "carol",
    }
    # deterministic: the same folder gives the same ids
    assert [s.student for s in collect(tmp_path / "in", tmp_path / "unpack2")] == [
        s.student for s in found
    ]


def test_nfc_and_nfd_spellings_read_the_same_and_are_two_rows_with_a_hash(tmp_path):
    touch(tmp_path / f"{NFC}.ipynb")
    touch(tmp_path / f"{NFD}.ipynb")
    found = collect(tmp_path, tmp_path / "unpack")
    assert len(found) == 2
    ids = [s.student for s in found]
    assert len(set(ids)) == 2
    for student in ids:
        assert unicodedata.is_normalized("NFC", student)
        assert student.startswith(f"{NFC}~")


def test_ids_that_differ_by_case_only_get_a_hash(tmp_path):
    touch(tmp_path / "Ada.ipynb")
    touch(tmp_path / "ada.ipynb")
    touch(tmp_path / "ben.IPYNB")
    ids = sorted(s.student for s in collect(tmp_path, tmp_path / "unpack"))
    assert ids == sorted([f"Ada~{short('Ada.ipynb')}", f"ada~{short('ada.ipynb')}", "ben"])


def test_a_name_that_looks_like_a_hashed_id_stays_unique(tmp_path):
    touch(tmp_path / "a" / "b.ipynb")
    touch(tmp_path / "a__b.ipynb")
    touch(tmp_path / f"a__b~{short('a/b.ipynb')}.ipynb")
    ids = [s.student for s in collect(tmp_path, tmp_path / "unpack")]
    assert len({i.casefold() for i in ids}) == 3


def test_control_characters_in_a_name_are_shown_not_written(tmp_path):
    touch(tmp_path / "line\nbreak.ipynb")
    (found,) = collect(tmp_path, tmp_path / "unpack")
    assert found.student == "line\ufffdbreak"


# --- 2. feedback file names --------------------------------------------------------------


def test_sanitising_that_makes_two_names_equal_adds_a_hash():
    names = feedback_names(["Jane Doe", "Jane_Doe", "ada"])
    assert names == [f"Jane_Doe~{short('Jane Doe')}.md", "Jane_Doe.md", "ada.md"]
    assert feedback_names(["Jane Doe"]) == ["Jane_Doe.md"]  # alone: readable, no hash


def test_emoji_names_get_distinct_safe_names():
    names = feedback_names(["😀", "🎉", "Zoë 🎉"])
    assert len(set(names)) == 3
    assert names[0] == f"_~{short('😀')}.md"
    assert names[2] == "Zoë_.md"
    for name in names:
        assert "/" not in name and not name.startswith(".")


def test_long_nested_ids_are_shortened_below_the_file_system_limit():
    deep = "__".join(["ééééééééé" * 6] * 12)  # about 1300 bytes
    other = deep + "x"
    names = feedback_names([deep, other])
    assert len(set(names)) == 2
    for name in names:
        assert len(name.encode()) <= 200
        assert name.endswith(".md") and "~" in name


def test_nfc_nfd_and_case_variants_get_distinct_names_in_any_order():
    ids = [NFC, NFD, "Ada", "ada", ".hidden", "CON", "", "x/y"]
    names = feedback_names(ids)
    assert len({n.casefold() for n in names}) == len(ids)
    assert names[4] == "_hidden.md" and names[5] == "_CON.md" and names[7] == "x_y.md"
    assert names[6] == f"_~{short('')}.md"
    for name in names:
        assert unicodedata.is_normalized("NFC", name)
    reordered = dict(zip(ids[::-1], feedback_names(ids[::-1]), strict=True))
    assert reordered == dict(zip(ids, names, strict=True))


def test_a_repeated_id_still_gets_a_page_of_its_own():
    names = feedback_names(["ada", "ada"])
    assert len(set(names)) == 2


def graded_row(student, status="graded"):
    return Graded(student, status, (), {}, (), 0.0)


def test_write_feedback_writes_one_page_per_id_stating_the_full_id(tmp_path):
    ids = ["Jane Doe", "Jane_Doe", "😀", "🎉", NFC, NFD, "a`b", "x" * 400]
    write_feedback(tmp_path, ASSIGNMENT, [graded_row(i, "not a notebook") for i in ids])
    pages = sorted(tmp_path.iterdir())
    assert len(pages) == len(ids)
    texts = "\n".join(p.read_text(encoding="utf-8") for p in pages)
    for student in ids:
        assert student in texts
    assert "Student: ``a`b``" in texts


# --- 3. nothing skipped without a word ---------------------------------------------------


def test_every_file_is_a_row_or_listed_with_why(tmp_path):
    root = tmp_path / "class"
    touch(root / "alice.ipynb")
    touch(root / ".bob.ipynb")
    touch(root / ".hidden" / "carol.ipynb")
    touch(root / ".env", "SECRET=1")
    touch(root / "__MACOSX" / "._alice.ipynb", "junk")
    touch(root / "dave" / "._hw.ipynb", "junk")
    touch(root / ".DS_Store", "junk")
    touch(root / "Thumbs.db", "junk")
    touch(root / "dave" / "desktop.ini", "junk")
    touch(root / "dave" / ".ipynb_checkpoints" / "hw-checkpoint.ipynb")
    touch(root / "dave" / "hw.ipynb")
    (root / "link.ipynb").symlink_to(root / "alice.ipynb")
    os.mkfifo(root / "pipe.ipynb")
    found = collect_all(root, tmp_path / "unpack")
    on_disk = [p for p in root.rglob("*") if not p.is_dir() or p.is_symlink()]
    assert found.found == len(on_disk) == 13
    rows = {s.source: s.status for s in found.graded}
    assert rows == {
        "alice.ipynb": "",
        "dave/hw.ipynb": "",
        ".bob.ipynb": "skipped: a hidden file (name starts with a dot)",
        ".hidden/carol.ipynb": "skipped: in a hidden folder (.hidden)",
        "link.ipynb": "skipped: a symbolic link (the grader follows no links)",
        "pipe.ipynb": "skipped: not a regular file (a pipe, socket or device)",
    }
    listed = {s.source: s.status for s in found.listed}
    assert listed == {
        ".env": "skipped: a hidden file (name starts with a dot)",
        "__MACOSX/._alice.ipynb": "skipped: added by macOS (__MACOSX)",
        "dave/._hw.ipynb": "skipped: added by macOS (a ._ resource fork)",
        ".DS_Store": "skipped: added by macOS (.DS_Store)",
        "Thumbs.db": "skipped: added by Windows (Thumbs.db)",
        "dave/desktop.ini": "skipped: added by Windows (desktop.ini)",
        "dave/.ipynb_checkpoints/hw-checkpoint.ipynb": (
            "skipped: a .ipynb_checkpoints copy (Jupyter's autosave)"
        ),
    }
    assert collect(root, tmp_path / "unpack2") == found.graded
    assert [s.student for s in found.graded] == sorted(s.student for s in found.graded)


def test_a_folder_of_junk_only_is_refused_with_what_it_holds(tmp_path):
    touch(tmp_path / "in" / "__MACOSX" / "._a.ipynb")
    touch(tmp_path / "in" / ".DS_Store")
    with pytest.raises(ValueError, match="holds only files an LMS or operating system adds"):
        collect_all(tmp_path / "in", tmp_path / "unpack")


def test_a_folder_that_cannot_be_read_is_a_row(tmp_path, monkeypatch):
    touch(tmp_path / "in" / "alice.ipynb")
    locked = tmp_path / "in" / "bob"
    touch(locked / "hw.ipynb")
    scandir = os.scandir

    def refuse(path):
        if os.fspath(path) == os.fspath(locked):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return scandir(path)

    monkeypatch.setattr(os, "scandir", refuse)
    found = collect_all(tmp_path / "in", tmp_path / "unpack")
    status = {s.source: s.status for s in found.graded}
    assert status == {
        "alice.ipynb": "",
        "bob": "skipped: a folder that could not be read (Permission denied)",
    }
    locked = tmp_path / "in"  # SUBMISSIONS itself
    with pytest.raises(ValueError, match=r"SUBMISSIONS=.* cannot be read \(Permission denied\)"):
        collect_all(tmp_path / "in", tmp_path / "unpack")


# --- 4. zip members ----------------------------------------------------------------------


def test_a_repeated_member_keeps_every_copy(tmp_path):
    path = tmp_path / "class.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("alice.ipynb", "first")
        with pytest.warns(UserWarning, match="Duplicate name"):
            archive.writestr("alice.ipynb", "second")
        archive.writestr("bob.ipynb", "bob")
    found = collect_all(path, tmp_path / "unpack")
    alice = [s for s in found.graded if s.source == "alice.ipynb"]
    assert len(alice) == 2 and found.found == 3
    assert {s.path.read_text() for s in alice} == {"first", "second"}
    assert len({s.student for s in alice}) == 2
    for s in alice:
        assert s.student.startswith("alice~") and s.status == ""
        assert "one of 2 members named 'alice.ipynb'" in s.note
    assert [s.student for s in found.graded if s.source == "bob.ipynb"] == ["bob"]


def test_absolute_and_parent_members_stay_inside_and_are_listed(tmp_path):
    outside = tmp_path / "outside"
    evil = outside / "evil.ipynb"
    path = tmp_path / "class.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(zipfile.ZipInfo(str(evil)), "absolute")
        archive.writestr(zipfile.ZipInfo("../../outside/up.ipynb"), "parent")
        archive.writestr(zipfile.ZipInfo("C:\\Users\\dan\\hw.ipynb"), "windows")
        archive.writestr(zipfile.ZipInfo("erin\\hw.ipynb"), "backslash")
        archive.writestr(zipfile.ZipInfo("folder/"), "")
    before = sorted(tmp_path.rglob("*"))
    found = collect_all(path, tmp_path / "unpack")
    assert not outside.exists()
    new = [p for p in sorted(tmp_path.rglob("*")) if p not in before]
    assert all(p.is_relative_to(tmp_path / "unpack") for p in new)
    by_source = {s.source: s for s in found.graded}
    assert found.found == 4 and len(by_source) == 4
    absolute = by_source[str(evil)]
    assert absolute.status == "" and absolute.path.read_text() == "absolute"
    assert absolute.student == "__".join(evil.parts[1:])[: -len(".ipynb")]
    assert "had an absolute path: unpacked inside the grader's folder" in absolute.note
    assert "'..' in its path" in by_source["../../outside/up.ipynb"].note
    windows = by_source["C:\\Users\\dan\\hw.ipynb"]
    assert windows.student == "Users__dan__hw" and "a drive (C:)" in windows.note
    assert by_source["erin\\hw.ipynb"].student == "erin__hw"


def test_a_symlink_member_is_a_row_and_never_a_link(tmp_path):
    path = tmp_path / "class.zip"
    link = zipfile.ZipInfo("alice.ipynb")
    link.external_attr = (stat.S_IFLNK | 0o777) << 16
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(link, "/etc/passwd")
        archive.writestr("bob.ipynb", "{}")
    found = collect_all(path, tmp_path / "unpack")
    alice = next(s for s in found.graded if s.student == "alice")
    assert alice.status.startswith("skipped: a symbolic link in the zip")
    assert not alice.path.is_symlink() and alice.path.read_text() == ""


def test_junk_in_a_zip_is_listed_and_a_damaged_zip_refused(tmp_path):
    path = tmp_path / "class.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("alice.ipynb", "{}")
        archive.writestr("__MACOSX/._alice.ipynb", "junk")
        archive.writestr(".bob.ipynb", "{}")
    found = collect_all(path, tmp_path / "unpack")
    assert [s.source for s in found.listed] == ["__MACOSX/._alice.ipynb"]
    assert {s.source: s.status for s in found.graded}[".bob.ipynb"].startswith("skipped: a hidden")
    damaged = tmp_path / "damaged.zip"
    damaged.write_bytes(path.read_bytes()[:40] + path.read_bytes()[-22:])
    if zipfile.is_zipfile(damaged):
        with pytest.raises(ValueError, match="damaged zip"):
            collect_all(damaged, tmp_path / "unpack")


# --- 5. read_cells -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "nb, reason",
    [
        (notebook([heading()], metadata=None), "its metadata is null"),
        (notebook([heading({"metadata": None})]), "cell 1's metadata is null"),
        (notebook([heading({"source": [None]})]), "cell 1's source holds null"),
        (notebook([heading(), 3]), "cell 2 is a number, not a cell"),
        (notebook([heading({"source": 5})]), "cell 1's source is a number"),
        (notebook([heading({"cell_type": None})]), "cell 1's cell_type is null"),
        (notebook([heading({"metadata": {"tags": "x"}})]), "cell 1's tags are text"),
        (notebook([{"cell_type": "code", "source": "", "outputs": 1}]), "outputs are a number"),
        (
            notebook([{"cell_type": "code", "source": "", "execution_count": "1"}]),
            "execution_count is text",
        ),
        ({"nbformat": 3, "worksheets": 7}, "nbformat 3, which nbformat could not convert"),
    ],
)
def test_json_nbformat_refuses_is_a_status_not_an_exception(tmp_path, nb, reason):
    path = write_nb(tmp_path / "s.ipynb", nb)
    cells, status = read_cells(path, ASSIGNMENT)
    assert cells is None
    assert status.startswith("not a notebook (") and reason in status, status


@pytest.mark.parametrize("content", [b"[1, 2]", b"null", b'"x"', b"[" * 100000, b"\xff\xfe{"])
def test_json_that_is_no_notebook_at_all_is_not_a_notebook(tmp_path, content):
    path = tmp_path / "s.ipynb"
    path.write_bytes(content)
    assert read_cells(path, ASSIGNMENT) == (None, "not a notebook")


def test_an_unreadable_file_is_a_status(tmp_path):
    cells, status = read_cells(tmp_path, ASSIGNMENT)  # a folder: read_bytes fails
    assert cells is None and status.startswith("unreadable file (")


def test_an_nbformat_3_notebook_is_converted_and_graded(tmp_path):
    v3 = {
        "nbformat": 3,
        "nbformat_minor": 0,
        "metadata": {"name": "hw"},
        "worksheets": [
            {
                "cells": [
                    {"cell_type": "heading", "level": 2, "source": "Exercise 1"},
                    {
                        "cell_type": "code",
                        "input": ["def f():\n", "    return 1"],
                        "language": "python",
                        "outputs": [],
                        "prompt_number": 3,
                        "metadata": {},
                    },
                ]
            }
        ],
    }
    cells, status = read_cells(write_nb(tmp_path / "s.ipynb", v3), ASSIGNMENT)
    assert status == ""
    assert [c["cell_type"] for c in cells] == ["markdown", "code"]
    assert cells[0]["source"] == "## Exercise 1"
    assert cells[1]["source"] == "def f():\n    return 1"


def test_notebooks_of_other_tools_and_small_slips_are_read(tmp_path):
    nb = notebook(
        [
            heading({"id": "a1b2", "attachments": {}}),
            {"cell_type": "code", "source": ["x = 1\n", "y = 2"]},  # no outputs, metadata ...
            {"cell_type": "raw", "source": "raw", "metadata": {"vscode": {"languageId": "x"}}},
            {
                "cell_type": "code",
                "source": "z = 3",
                "metadata": {"colab": {"base_uri": "https://localhost:8080/"}, "id": "Xy"},
                "execution_count": None,
                "outputs": [],
            },
        ],
        metadata={
            "vscode": {"interpreter": {"hash": "abc"}},
            "colab": {"provenance": []},
            "kaggle": {"accelerator": "none"},
        },
    )
    del nb["nbformat_minor"]
    path = tmp_path / "s.ipynb"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(nb).encode())
    cells, status = read_cells(path, ASSIGNMENT)
    assert status == ""
    code = cells[1]
    assert code["source"] == "x = 1\ny = 2"
    assert code["metadata"] == {} and code["outputs"] == [] and code["execution_count"] is None
    steps, _, _ = plan(
        cells, ASSIGNMENT, Options(all_cells=True)
    )  # the grader's next step takes them as they are
    assert any(s.get("source") == "x = 1\ny = 2" for s in steps)


def test_a_bom_alone_is_an_empty_file(tmp_path):
    path = tmp_path / "s.ipynb"
    path.write_bytes(b"\xef\xbb\xbf  \n")
    assert read_cells(path, ASSIGNMENT) == (None, "empty file")


# --- 6. the final check, and the instructor's view of listed files ------------------------


def write_results(out, found):
    rows = [graded_row(s.student, s.status or "graded") for s in found.graded]
    out.mkdir()
    write_gradebook(out / "grades.csv", ASSIGNMENT, rows)
    write_feedback(out / "feedback", ASSIGNMENT, rows)
    write_review(out / "review.md", rows, found.listed)
    return summary(ASSIGNMENT, rows, found.listed)


def test_accounted_finds_a_missing_row_page_or_listed_file(tmp_path):
    root = tmp_path / "class"
    for name in ("Jane Doe.ipynb", "Jane_Doe.ipynb", "a/b.ipynb", "a__b.ipynb", ".c.ipynb"):
        touch(root / name)
    touch(root / "__MACOSX" / "._x.ipynb")
    touch(root / ".DS_Store")
    found = collect_all(root, tmp_path / "unpack")
    out = tmp_path / "out"
    text = write_results(out, found)
    assert "2 more file(s) found, not graded and not in grades.csv" in text
    assert "1 added by macOS (__MACOSX)" in text
    review = (out / "review.md").read_text()
    assert "## Files not graded (2)" in review and "`__MACOSX/._x.ipynb`" in review
    assert accounted(len(found.graded), out, found.listed) == []
    assert accounted(len(found.graded) + 1, out, found.listed) == [
        "grades.csv has 5 row(s), expected one per submission found: 6"
    ]
    extra = Submission("z", root / "z", "skipped: x", source="z.txt")
    assert accounted(5, out, [*found.listed, extra]) == [
        "review.md does not list 'z.txt', found and not graded"
    ]
    page = next((out / "feedback").glob("Jane_Doe~*.md"))
    page.unlink()
    problems = accounted(5, out, found.listed)
    assert any("holds 4 feedback page(s), expected one per row" in p for p in problems)
    assert any(p.startswith(f"no feedback page {page.name}") for p in problems)


def test_accounted_finds_two_rows_for_one_student_and_a_missing_gradebook(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    rows = [graded_row("ada"), graded_row("Ada")]
    write_gradebook(out / "grades.csv", ASSIGNMENT, rows)
    write_feedback(out / "feedback", ASSIGNMENT, rows)
    assert accounted(2, out) == ["grades.csv has more than one row for 'ada'"]
    assert accounted(1, tmp_path / "nowhere")[0].endswith(
        "could not be read "
        "([Errno 2] No such file or directory: "
        f"'{tmp_path / 'nowhere' / 'grades.csv'}')"
    )


def test_end_to_end_a_zip_of_odd_files_is_accounted_for(tmp_path):
    """collect_all -> the gradebook, pages and review -> accounted: every member has its row
    or its line, with rows that read apart, and nothing outside the unpack folder."""
    path = tmp_path / "class.zip"
    with zipfile.ZipFile(path, "w") as archive:
        for name in ("Jane Doe.ipynb", "Jane_Doe.ipynb", f"{NFC}.ipynb", f"{NFD}.ipynb"):
            archive.writestr(name, "{}")
        archive.writestr("😀.ipynb", "{}")
        archive.writestr("🎉.ipynb", "{}")
        archive.writestr("/abs/evil.ipynb", "{}")
        archive.writestr("__MACOSX/._evil.ipynb", "junk")
        archive.writestr("deep/" + "/".join(["é" * 80] * 5) + "/hw.ipynb", "{}")
    found = collect_all(path, tmp_path / "unpack")
    assert found.found == 9
    out = tmp_path / "out"
    write_results(out, found)
    assert accounted(len(found.graded), out, found.listed) == []
    with open(out / "grades.csv", newline="", encoding="utf-8") as f:
        students = [row["student"] for row in csv.DictReader(f)]
    assert len({unicodedata.normalize("NFC", s).casefold() for s in students}) == 8
    assert not (tmp_path / "abs").exists()


def test_read_cells_never_blocks_on_a_pipe_nor_reads_a_huge_file(tmp_path, monkeypatch):
    os.mkfifo(tmp_path / "pipe.ipynb")
    assert read_cells(tmp_path / "pipe.ipynb", ASSIGNMENT) == (
        None,
        "unreadable file (not a regular file)",
    )
    import course_lib.grading.submission as submission

    monkeypatch.setattr(submission, "MAX_FILE_BYTES", 10)
    path = write_nb(tmp_path / "big.ipynb", notebook([heading()]))
    assert read_cells(path, ASSIGNMENT) == (None, "not a notebook (larger than 0 MiB)")


@pytest.mark.parametrize(
    "parts, expected",
    [
        (("hw.ipynb",), ("", True)),
        (("dave", ".hw.ipynb"), ("skipped: a hidden file (name starts with a dot)", True)),
        (("__MACOSX", "dave", "hw.ipynb"), ("skipped: added by macOS (__MACOSX)", False)),
        (("dave", ".git", "config"), ("skipped: version-control data (.git)", False)),
        (("DESKTOP.INI",), ("skipped: added by Windows (desktop.ini)", False)),
    ],
)
def test_why_not_graded_tells_rows_from_junk_by_the_path(parts, expected):
    assert why_not_graded(parts) == expected
