"""Finding, downloading and verifying data files -- offline: downloads are faked."""

import gzip
import hashlib
import io
import os
import random
import re
import zipfile
from pathlib import Path

import pytest

from course_lib import datafiles
from course_lib.datafiles import (
    ENG_FRA,
    DataFile,
    DataFileError,
    data_dir,
    fetch,
    load_text,
    read_text,
)

TEXT = "Go.\tVa !\nRun!\tCours !\n"
SPEC = DataFile(
    filename="tiny.txt.gz",
    sha256=hashlib.sha256(TEXT.encode()).hexdigest(),
    url="https://example.invalid/data.zip",
    member="data/tiny.txt",
)


class FakeResponse(io.BytesIO):
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def zipped(text: str, member: str = SPEC.member) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr(member, text)
    return buf.getvalue()


def opener_for(payload: bytes, calls: list):
    def opener(url):
        calls.append(url)
        return FakeResponse(payload)

    return opener


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
    assert calls == [SPEC.url]
    assert read_text(path, SPEC) == TEXT
    assert not list(data_home.glob("*.partial"))
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
    with pytest.raises(DataFileError, match="not a readable gzip file.*Delete"):
        fetch(SPEC, download=False)


def test_wrong_content_fails_the_checksum(data_home):
    with gzip.open(data_home / SPEC.filename, "wt", encoding="utf-8") as f:
        f.write(TEXT + "one more line\n")
    with pytest.raises(DataFileError, match="damaged or a different version"):
        fetch(SPEC)


def test_truncated_gzip_is_reported(data_home):
    raw = gzip.compress(TEXT.encode() * 50)
    (data_home / SPEC.filename).write_bytes(raw[: len(raw) // 2])
    with pytest.raises(DataFileError, match="Delete"):
        fetch(SPEC)


def test_gzip_damaged_in_the_middle_is_reported(data_home):
    rng = random.Random(0)  # text that compresses poorly, so the middle is deflate data
    text = "".join(f"{rng.random()}\t{rng.random()}\n" for _ in range(2000))
    payload = bytearray(gzip.compress(text.encode(), mtime=0))
    middle = len(payload) // 2
    payload[middle : middle + 16] = b"\xff" * 16  # zlib: "invalid block type"
    (data_home / SPEC.filename).write_bytes(bytes(payload))
    with pytest.raises(DataFileError, match="not a readable gzip file.*Delete"):
        fetch(SPEC, download=False)


@pytest.mark.parametrize(
    "payload, message",
    [
        (b"<html>not a zip</html>", "not a zip archive"),
        (zipped(TEXT, member="other.txt"), "not a zip archive holding"),
        (zipped("tampered"), "published file changed"),
    ],
)
def test_bad_downloads(data_home, payload, message):
    with pytest.raises(DataFileError, match=message):
        fetch(SPEC, opener=opener_for(payload, []))
    assert not (data_home / SPEC.filename).exists()


def test_network_failure_explains_the_manual_route(data_home):
    def offline(url):
        raise OSError("Network is unreachable")

    with pytest.raises(DataFileError, match="Download it by hand"):
        fetch(SPEC, opener=offline)


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
