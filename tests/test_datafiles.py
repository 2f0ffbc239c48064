"""Finding, downloading and verifying data files -- offline: downloads are faked."""

import gzip
import hashlib
import io
import os
import random
import re
import urllib.error
import zipfile
from pathlib import Path

import pytest

from course_lib import datafiles
from course_lib.datafiles import (
    ENG_FRA,
    ENG_FRA_MIRROR,
    DataFile,
    DataFileError,
    Source,
    data_dir,
    fetch,
    load_text,
    read_text,
)

TEXT = "Go.\tVa !\nRun!\tCours !\n"
ZIP = Source("https://example.invalid/data.zip", member="data/tiny.txt")
MIRROR = Source("https://mirror.example.invalid/tiny.txt.gz")
SPEC = DataFile(
    filename="tiny.txt.gz", sha256=hashlib.sha256(TEXT.encode()).hexdigest(), sources=(ZIP,)
)
BOTH = DataFile(SPEC.filename, SPEC.sha256, sources=(ZIP, MIRROR))


class FakeResponse(io.BytesIO):
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def zipped(text: str, member: str = ZIP.member) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        # a fixed date: the bytes (and so the test ids built from them) must not depend on
        # the second the tests are collected in, or pytest-xdist's workers disagree
        zf.writestr(zipfile.ZipInfo(member, date_time=(2020, 1, 1, 0, 0, 0)), text)
    return buf.getvalue()


def opener_for(payload: bytes, calls: list):
    def opener(url):
        calls.append(url)
        return FakeResponse(payload)

    return opener


def serving(payloads: dict, calls: list):
    """An opener serving ``payloads[url]``: bytes, or an exception to raise."""

    def opener(url):
        calls.append(url)
        payload = payloads[url]
        if isinstance(payload, Exception):
            raise payload
        return FakeResponse(payload)

    return opener


def names(folder: Path) -> list[str]:
    """Every entry of ``folder``, hidden ones included (a temporary file would show)."""
    return sorted(p.name for p in folder.iterdir())


@pytest.fixture
def data_home(tmp_path, monkeypatch):
    monkeypatch.setenv("COURSE_DATA_DIR", str(tmp_path))
    return tmp_path


def test_a_missing_data_dir_fails_at_once_naming_the_absolute_path(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COURSE_DATA_DIR", "../data")  # relative: read from the current dir
    with pytest.raises(DataFileError, match=re.escape(str(tmp_path.parent / "data"))):
        fetch(ENG_FRA, download=False)
    (tmp_path / "here").mkdir()
    monkeypatch.setenv("COURSE_DATA_DIR", "here")
    assert data_dir() == tmp_path / "here" and data_dir().is_absolute()


def test_data_dir_env_and_default(monkeypatch, tmp_path):
    monkeypatch.setenv("COURSE_DATA_DIR", str(tmp_path))
    assert data_dir() == tmp_path
    monkeypatch.delenv("COURSE_DATA_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert data_dir() == tmp_path / "cache" / "attention-step-by-step"


def test_local_copy_is_used_without_download(data_home):
    with gzip.open(data_home / SPEC.filename, "wt", encoding="utf-8") as f:
        f.write(TEXT)
    calls = []
    path = fetch(SPEC, opener=opener_for(b"", calls))
    assert path == data_home / SPEC.filename and calls == []
    assert read_text(path, SPEC) == TEXT


def test_download_verifies_and_stores_a_gzip(data_home):
    calls = []
    path = fetch(SPEC, opener=opener_for(zipped(TEXT), calls))
    assert calls == [ZIP.url]
    assert read_text(path, SPEC) == TEXT
    assert names(data_home) == [SPEC.filename]
    fetch(SPEC, opener=opener_for(b"", calls))  # second time: local copy, no download
    assert len(calls) == 1


def test_load_text_downloads_once_and_checks_the_copy_once(data_home, monkeypatch):
    calls, reads = [], []
    assert load_text(SPEC, opener=opener_for(zipped(TEXT), calls)) == TEXT
    real_read = datafiles.read_text
    monkeypatch.setattr(datafiles, "read_text", lambda *a: reads.append(a) or real_read(*a))
    assert load_text(SPEC, opener=opener_for(b"", calls)) == TEXT
    fetch(SPEC)
    fetch(SPEC)
    assert len(calls) == 1 and len(reads) == 1  # fetch trusts a copy verified in this process
    with gzip.open(data_home / SPEC.filename, "wt", encoding="utf-8") as f:
        f.write(TEXT + "changed\n")  # a new modification time and size: checked again
    with pytest.raises(DataFileError, match="damaged or a different version"):
        fetch(SPEC)
    with pytest.raises(DataFileError, match="damaged or a different version"):
        load_text(SPEC)


def test_corrupt_local_file_says_what_to_do(data_home):
    (data_home / SPEC.filename).write_bytes(b"this is not gzip")
    with pytest.raises(DataFileError, match="not a readable gzip file.*Move it aside"):
        fetch(SPEC, download=False)


def test_wrong_content_fails_the_checksum(data_home):
    with gzip.open(data_home / SPEC.filename, "wt", encoding="utf-8") as f:
        f.write(TEXT + "one more line\n")
    with pytest.raises(DataFileError, match="damaged or a different version"):
        fetch(SPEC)


def test_truncated_gzip_is_reported(data_home):
    raw = gzip.compress(TEXT.encode() * 50)
    (data_home / SPEC.filename).write_bytes(raw[: len(raw) // 2])
    with pytest.raises(DataFileError, match="Move it aside"):
        fetch(SPEC)


def test_gzip_damaged_in_the_middle_is_reported(data_home):
    rng = random.Random(0)  # text that compresses poorly, so the middle is deflate data
    text = "".join(f"{rng.random()}\t{rng.random()}\n" for _ in range(2000))
    payload = bytearray(gzip.compress(text.encode(), mtime=0))
    middle = len(payload) // 2
    payload[middle : middle + 16] = b"\xff" * 16  # zlib: "invalid block type"
    (data_home / SPEC.filename).write_bytes(bytes(payload))
    with pytest.raises(DataFileError, match="not a readable gzip file.*Move it aside"):
        fetch(SPEC, download=False)


@pytest.mark.parametrize(
    "payload, message",
    [
        (b"<html>not a zip</html>", "not a readable zip archive holding data/tiny.txt"),
        (zipped(TEXT, member="other.txt"), "the zip archive holds no data/tiny.txt"),
        (zipped("tampered"), "published file changed"),
    ],
)
def test_bad_downloads(data_home, payload, message):
    with pytest.raises(DataFileError, match=message):
        fetch(SPEC, opener=opener_for(payload, []))
    assert names(data_home) == []


def test_network_failure_explains_the_manual_route(data_home):
    def offline(url):
        raise OSError("Network is unreachable")

    with pytest.raises(DataFileError, match="To place the file by hand") as caught:
        fetch(SPEC, opener=offline)
    message = str(caught.value)
    assert f"unzip {ZIP.member} from it, then gzip it as {SPEC.filename}" in message
    assert f"put {SPEC.filename} in {data_home} " in message and "COURSE_DATA_DIR" in message


FAILURES = {
    "network": (OSError("Network is unreachable"), "download failed (Network is unreachable)"),
    "http": (
        urllib.error.HTTPError(ZIP.url, 404, "Not Found", None, None),
        "download failed (HTTP Error 404: Not Found)",
    ),
    "not a zip": (b"<html>moved</html>", "not a readable zip archive holding data/tiny.txt"),
    "no member": (zipped(TEXT, member="other.txt"), "the zip archive holds no data/tiny.txt"),
    "wrong text": (zipped("tampered"), "its text has SHA-256"),
}


@pytest.mark.parametrize("failure", FAILURES)
def test_a_failing_first_source_falls_back_to_the_second(data_home, failure):
    calls = []
    payload, _ = FAILURES[failure]
    opener = serving({ZIP.url: payload, MIRROR.url: gzip.compress(TEXT.encode())}, calls)
    path = fetch(BOTH, opener=opener)
    assert calls == [ZIP.url, MIRROR.url]
    assert read_text(path, BOTH) == TEXT
    assert names(data_home) == [BOTH.filename]


def test_the_first_verified_source_wins_and_the_rest_are_not_asked(data_home):
    calls = []
    opener = serving({ZIP.url: zipped(TEXT), MIRROR.url: b"unused"}, calls)
    assert read_text(fetch(BOTH, opener=opener), BOTH) == TEXT
    assert calls == [ZIP.url]


@pytest.mark.parametrize(
    "first, second",
    [
        ("network", "bad gzip"),
        ("http", "truncated gzip"),
        ("no member", "wrong text"),
        ("wrong text", "wrong text"),
    ],
)
def test_when_every_source_fails_each_is_named_with_its_reason_and_nothing_is_written(
    data_home, first, second
):
    mirror = {
        "bad gzip": (b"<html>404</html>", "not a readable gzip file"),
        "truncated gzip": (gzip.compress(TEXT.encode() * 50)[:40], "not a readable gzip file"),
        "wrong text": (gzip.compress(b"tampered"), "its text has SHA-256"),
    }
    calls = []
    opener = serving({ZIP.url: FAILURES[first][0], MIRROR.url: mirror[second][0]}, calls)
    with pytest.raises(DataFileError) as caught:
        fetch(BOTH, opener=opener)
    message = str(caught.value)
    assert calls == [ZIP.url, MIRROR.url]
    assert f"1. {ZIP.url}: {FAILURES[first][1]}" in message
    assert f"2. {MIRROR.url}: {mirror[second][1]}" in message
    assert f"Expected SHA-256 of the uncompressed text: {BOTH.sha256}" in message
    assert f"put {BOTH.filename} in {data_home} " in message
    assert "COURSE_DATA_DIR to a folder that holds it" in message
    assert names(data_home) == []  # no file, no temporary file


@pytest.mark.parametrize(
    "source, payload",
    [(ZIP, zipped(TEXT)), (MIRROR, gzip.compress(TEXT.encode(), mtime=0))],
    ids=["zip archive", "gzip mirror"],
)
def test_a_zip_archive_and_a_gzip_mirror_both_parse(data_home, source, payload):
    spec = DataFile(SPEC.filename, SPEC.sha256, sources=(source,))
    calls = []
    path = fetch(spec, opener=serving({source.url: payload}, calls))
    assert calls == [source.url] and read_text(path, spec) == TEXT
    with gzip.open(path, "rb") as f:
        assert f.read() == TEXT.encode()  # stored unchanged, whichever form it came in


def test_a_damaged_local_copy_is_kept_and_not_replaced_by_a_download(data_home):
    damaged = gzip.compress(b"an older release\n")
    (data_home / BOTH.filename).write_bytes(damaged)
    calls = []
    opener = serving({ZIP.url: zipped(TEXT), MIRROR.url: gzip.compress(TEXT.encode())}, calls)
    with pytest.raises(DataFileError, match="damaged or a different version.*Move it aside"):
        fetch(BOTH, opener=opener)
    assert calls == [] and (data_home / BOTH.filename).read_bytes() == damaged


def test_a_failed_write_leaves_no_partial_file(data_home, monkeypatch):
    def full_disk(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(datafiles.os, "replace", full_disk)
    with pytest.raises(DataFileError, match="could not write.*No space left"):
        fetch(SPEC, opener=opener_for(zipped(TEXT), []))
    assert names(data_home) == []


def test_read_text_of_a_missing_path_says_so(tmp_path):
    with pytest.raises(DataFileError, match="does not exist"):
        read_text(tmp_path / "nowhere.txt.gz", SPEC)


def test_eng_fra_tries_pytorch_first_then_the_course_mirror():
    zip_source, mirror = ENG_FRA.sources
    assert zip_source == Source(
        "https://download.pytorch.org/tutorial/data.zip", "data/eng-fra.txt"
    )
    assert mirror == Source(ENG_FRA_MIRROR) and mirror.member is None
    assert ENG_FRA_MIRROR.endswith("/releases/download/data-v1/" + ENG_FRA.filename)


@pytest.mark.parametrize(
    "build, error, message",
    [
        (lambda: Source("download.pytorch.org/data.zip"), ValueError, "an address such as"),
        (lambda: Source(ZIP.url, member=""), ValueError, "member must be the path"),
        (lambda: DataFile("tiny.txt", SPEC.sha256, (ZIP,)), ValueError, "ending in .gz"),
        (lambda: DataFile(SPEC.filename, "6B0F", (ZIP,)), ValueError, "64 lowercase hex"),
        (lambda: DataFile(SPEC.filename, SPEC.sha256, ()), ValueError, "at least one Source"),
        (lambda: DataFile(SPEC.filename, SPEC.sha256, (ZIP.url,)), TypeError, "Source\\(url\\)"),
    ],
)
def test_malformed_sources_are_refused_where_they_are_written(build, error, message):
    with pytest.raises(error, match=message):
        build()


def test_empty_sources_name_the_argument_and_show_a_source():
    with pytest.raises(ValueError, match="sources is empty") as info:
        DataFile(SPEC.filename, SPEC.sha256, ())
    assert "at least one Source" in str(info.value)
    assert f"Source('https://.../{SPEC.filename}')" in str(info.value)


def test_an_empty_member_is_called_empty_and_the_gzip_case_is_named():
    with pytest.raises(ValueError, match="member must be") as info:
        Source(ZIP.url, member="")
    message = str(info.value)
    assert "got an empty string" in message
    assert "leave member out (None)" in message and ZIP.url in message


def test_sources_given_as_a_list_are_stored_as_a_tuple():
    assert DataFile(SPEC.filename, SPEC.sha256, [ZIP, MIRROR]).sources == (ZIP, MIRROR)


def test_missing_without_download(data_home):
    with pytest.raises(DataFileError, match="Set COURSE_DATA_DIR"):
        fetch(SPEC, download=False)


def test_the_real_tatoeba_copy_when_present():
    """CI points COURSE_DATA_DIR at the course's local copy of the Tatoeba pairs."""
    folder = os.environ.get("COURSE_DATA_DIR")
    if not folder or not (Path(folder) / ENG_FRA.filename).exists():
        pytest.skip("no local eng-fra.txt.gz (set COURSE_DATA_DIR to check the real file)")
    text = read_text(Path(folder) / ENG_FRA.filename, ENG_FRA)
    lines = text.splitlines()
    assert len(lines) == 135_842
    assert lines[0] == "Go.\tVa !"
    assert all(line.count("\t") == 1 for line in lines)


# -- advice that is safe to follow: a folder, a foreign file, an uncompressed copy --------


def test_a_folder_passed_as_the_file_names_the_file_inside_and_deletes_nothing(data_home):
    (data_home / SPEC.filename).write_bytes(gzip.compress(TEXT.encode()))
    with pytest.raises(DataFileError, match=r"is a folder, not the data file") as info:
        read_text(data_home, SPEC)
    message = str(info.value)
    assert f"Pass the file inside it, e.g. {data_home / SPEC.filename}" in message
    assert "delete" not in message and "Move it aside" not in message
    assert names(data_home) == [SPEC.filename]


def test_a_foreign_file_is_never_to_be_deleted_or_moved(data_home, tmp_path_factory):
    notes = tmp_path_factory.mktemp("mine") / "notes.txt"
    notes.write_text("my notes")
    with pytest.raises(DataFileError, match="not a readable gzip file.*Check that it is") as info:
        read_text(notes, SPEC)
    assert "delete" not in str(info.value) and "Move it aside" not in str(info.value)
    assert notes.read_text() == "my notes"


def test_the_data_folders_damaged_copy_is_to_be_renamed_not_deleted(data_home):
    (data_home / SPEC.filename).write_bytes(b"this is not gzip")
    with pytest.raises(
        DataFileError, match=r"Move it aside \(rename it, e.g. to tiny.txt.gz.bad\)"
    ) as info:
        fetch(SPEC, download=False)
    assert "delete" not in str(info.value)


def test_an_uncompressed_copy_of_the_right_text_says_how_to_compress_it(tmp_path):
    plain = tmp_path / "tiny.txt"
    plain.write_text(TEXT)
    with pytest.raises(DataFileError, match=r"right text, but uncompressed.*python -m gzip"):
        read_text(plain, SPEC)
    assert plain.read_text() == TEXT


@pytest.mark.parametrize(
    "call, message",
    [
        (
            lambda p: read_text(SPEC, p),
            r"got the DataFile itself: the order is read_text\(path, spec\)",
        ),
        (
            lambda p: read_text(p, "tiny.txt.gz"),
            r"spec must be a DataFile such as ENG_FRA, got str",
        ),
        (lambda p: read_text(None, SPEC), "path must be a file path"),
        (
            lambda p: load_text(p),
            r"load_text\(ENG_FRA\) gives the course's verified copy.*read_text\(",
        ),
        (lambda p: fetch(str(p)), r"fetch\(ENG_FRA\) gives the course's verified copy"),
        (lambda p: fetch(SPEC, opener="https://example.invalid"), "opener must be a function"),
    ],
    ids=["swapped", "a name as spec", "None", "load_text of a path", "fetch of a path", "opener"],
)
def test_the_wrong_kind_of_argument_names_the_right_call(data_home, call, message):
    with pytest.raises(TypeError, match=message):
        call(data_home / SPEC.filename)


def test_course_data_dir_naming_the_file_gives_its_folder(tmp_path, monkeypatch):
    copy = tmp_path / ENG_FRA.filename
    copy.write_bytes(b"")
    monkeypatch.setenv("COURSE_DATA_DIR", str(copy))
    with pytest.raises(
        DataFileError,
        match=re.escape(f"set it to the folder that holds the file, COURSE_DATA_DIR={tmp_path}"),
    ):
        data_dir()


def test_an_empty_file_is_called_empty(data_home, tmp_path_factory):
    (data_home / SPEC.filename).write_bytes(b"")
    with pytest.raises(DataFileError, match=r"is empty \(0 bytes\).*Move it aside"):
        fetch(SPEC, download=False)
    assert (data_home / SPEC.filename).exists()  # kept
    own = tmp_path_factory.mktemp("own") / SPEC.filename
    own.write_bytes(gzip.compress(b""))  # a gzip of nothing
    with pytest.raises(DataFileError, match=r"decompresses to 0 bytes"):
        read_text(own, SPEC)
