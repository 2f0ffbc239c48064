"""tools/publish_data.py: the course's mirror of the Tatoeba pairs, prepared offline."""

import gzip
import hashlib
import io
import os
import subprocess

import pytest

import nbtools
import publish_data
from course_lib import datafiles
from course_lib.datafiles import ENG_FRA_MIRROR, DataFile, Source, fetch, read_text

TEXT = "Go.\tVa !\nÇa alors\u202f!\tWow!\n"
ORIGINAL = Source("https://example.invalid/data.zip", member="data/eng-fra.txt")
SPEC = DataFile(
    filename="eng-fra.txt.gz",  # the mirror's asset name
    sha256=hashlib.sha256(TEXT.encode()).hexdigest(),
    sources=(ORIGINAL, Source(ENG_FRA_MIRROR)),
)


class FakeResponse(io.BytesIO):
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


@pytest.fixture
def local_copy(tmp_path, monkeypatch):
    """A verified local copy, gzipped as by hand (a file name and a time in its header)."""
    folder = tmp_path / "data"
    folder.mkdir()
    with open(folder / SPEC.filename, "wb") as f:
        with gzip.GzipFile("eng-fra.txt", "wb", fileobj=f, mtime=1_700_000_000) as gz:
            gz.write(TEXT.encode())
    monkeypatch.setenv("COURSE_DATA_DIR", str(folder))
    return folder


@pytest.fixture
def offline(monkeypatch):
    """Fail the test if anything downloads or runs a command."""

    def refuse(*args, **kwargs):
        raise AssertionError(f"publish_data must not download or run anything: {args}")

    monkeypatch.setattr(datafiles.urllib.request, "urlopen", refuse)
    monkeypatch.setattr(subprocess, "Popen", refuse)
    monkeypatch.setattr(os, "system", refuse)


def test_the_asset_round_trips_through_the_mirror_source(local_copy, tmp_path, monkeypatch):
    asset, _ = publish_data.build_release(tmp_path / "out", SPEC)
    served = asset.read_bytes()
    assert served != (local_copy / SPEC.filename).read_bytes()  # compressed afresh

    monkeypatch.setenv("COURSE_DATA_DIR", str(tmp_path))  # a folder without the file
    calls = []

    def opener(url):  # the original is gone; the mirror serves the asset
        calls.append(url)
        if url == ORIGINAL.url:
            raise OSError("HTTP Error 404: Not Found")
        assert url == ENG_FRA_MIRROR
        return FakeResponse(served)

    path = fetch(SPEC, opener=opener)
    assert calls == [ORIGINAL.url, ENG_FRA_MIRROR]
    assert path == tmp_path / SPEC.filename and read_text(path, SPEC) == TEXT


def test_the_asset_is_the_text_unchanged_and_deterministic(local_copy, tmp_path):
    first, _ = publish_data.build_release(tmp_path / "a", SPEC)
    second, _ = publish_data.build_release(tmp_path / "b", SPEC)
    payload = first.read_bytes()
    assert payload == second.read_bytes()
    assert gzip.decompress(payload) == TEXT.encode()
    assert payload[3] == 0  # no flags: no file name in the header
    assert payload[4:8] == b"\0\0\0\0"  # modification time 0


def test_the_attribution_names_the_licence_source_and_checksum(local_copy, tmp_path):
    _, notes = publish_data.build_release(tmp_path / "out", SPEC)
    text = notes.read_text(encoding="utf-8")
    assert notes.name == "ATTRIBUTION.md"
    for expected in [
        "CC-BY 2.0 FR",
        "https://creativecommons.org/licenses/by/2.0/fr/",
        "Tatoeba Project (https://tatoeba.org)",
        "www.manythings.org/anki",
        f"`{ORIGINAL.member}`",
        ORIGINAL.url,
        SPEC.sha256,
        "Republished unchanged",
        "(2 lines, ",
    ]:
        assert expected in text, expected


def test_main_writes_both_files_and_prints_the_release_command(
    local_copy, tmp_path, monkeypatch, capsys, offline
):
    monkeypatch.setattr(publish_data, "ENG_FRA", SPEC)
    out = tmp_path / "release"
    assert publish_data.main(["--out", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["ATTRIBUTION.md", "eng-fra.txt.gz"]
    printed = capsys.readouterr().out
    command = next(line.strip() for line in printed.splitlines() if "gh release" in line)
    assert command.startswith(f"gh release create data-v1 {out / 'eng-fra.txt.gz'} ")
    assert "--repo attention-step-by-step/course" in command
    assert f"--notes-file {out / 'ATTRIBUTION.md'}" in command and "--latest=false" in command


def test_main_without_a_local_copy_says_so_and_downloads_nothing(
    tmp_path, monkeypatch, capsys, offline
):
    monkeypatch.setenv("COURSE_DATA_DIR", str(tmp_path))
    monkeypatch.setattr(publish_data, "ENG_FRA", SPEC)
    assert publish_data.main(["--out", str(tmp_path / "release")]) == 1
    error = capsys.readouterr().err
    assert f"eng-fra.txt.gz is not in {tmp_path}" in error and "download it first" in error
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_the_mirror_is_a_release_of_the_books_repository():
    book = nbtools.repository_url().split("@")[0]
    assert ENG_FRA_MIRROR.startswith(f"{book}/releases/download/"), (
        "_config.yml names another repository: update ENG_FRA_MIRROR in course_lib/datafiles.py"
    )
    assert publish_data.release_of(ENG_FRA_MIRROR, SPEC) == (
        "attention-step-by-step/course",
        "data-v1",
    )


@pytest.mark.parametrize(
    "mirror, message",
    [
        ("https://example.org/eng-fra.txt.gz", "not a GitHub release asset"),
        ("https://github.com/a/b/releases/download/data-v1/other.gz", "named eng-fra.txt.gz"),
        (
            "https://github.com/a/b/releases/download/data-v1/eng-fra.txt.gz",
            "update ENG_FRA_MIRROR",
        ),
    ],
)
def test_a_mirror_elsewhere_is_refused(local_copy, tmp_path, mirror, message):
    with pytest.raises(ValueError, match=message):
        publish_data.build_release(tmp_path / "out", SPEC, mirror)
    assert not (tmp_path / "out").exists()
