"""Where the course's data files live, and how they are fetched and verified.

Lookup order for a file such as ``eng-fra.txt.gz``:

1. the folder named by the environment variable ``COURSE_DATA_DIR``, when it is set
   (CI points it at a local copy, so tests never touch the network);
2. otherwise a per-user cache folder (``$XDG_CACHE_HOME/attention-step-by-step`` or
   ``~/.cache/attention-step-by-step``).

A file that is missing there is downloaded from its original source, and every file --
local or downloaded -- is checked against the SHA-256 of its uncompressed text before it is
used. A damaged copy raises :class:`DataFileError` saying which file and what to do.

:func:`load_text` is the one call most code needs: the verified text, with the file read,
decompressed and checksummed once. :func:`fetch` gives the path instead (verified once per
process: a copy already checked and not modified since is not read again).
"""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import urllib.request
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

__all__ = ["DataFile", "DataFileError", "ENG_FRA", "data_dir", "fetch", "read_text", "load_text"]


class DataFileError(RuntimeError):
    """A data file is missing, damaged, or could not be downloaded."""


@dataclass(frozen=True)
class DataFile:
    """A data file the course uses, stored locally as ``filename`` (gzip-compressed text).

    Args:
        filename: local name, ending in ``.gz``.
        sha256: SHA-256 of the *uncompressed* UTF-8 text.
        url: where the original is published (a zip archive).
        member: path of the text file inside that archive.
    """

    filename: str
    sha256: str
    url: str
    member: str


#: Tatoeba English-French pairs, as packaged for PyTorch's seq2seq tutorial.
ENG_FRA = DataFile(
    filename="eng-fra.txt.gz",
    sha256="6b0f3decdb78600485b58efb541f5a2ab69ba888742ac04180e013084e40de7c",
    url="https://download.pytorch.org/tutorial/data.zip",
    member="data/eng-fra.txt",
)  # Tatoeba Project (tatoeba.org) via www.manythings.org/anki, CC-BY 2.0 FR: see README


def data_dir() -> Path:
    """The folder data files are read from (and downloaded into), as an absolute path.

    Raises:
        DataFileError: ``COURSE_DATA_DIR`` names no existing folder. A relative value is
            read from the current directory -- for a notebook, its own folder -- so the
            message prints the absolute path it was resolved to. (``make`` turns a relative
            value into an absolute one before any notebook starts.)
    """
    env = os.environ.get("COURSE_DATA_DIR")
    if env:
        folder = Path(env).expanduser().resolve()
        if not folder.is_dir():
            raise DataFileError(
                f"COURSE_DATA_DIR={env!r} resolves to {folder}, which is not a folder. Set "
                f"it to the absolute path of the folder that holds {ENG_FRA.filename}, or "
                "unset it to download the data into the per-user cache."
            )
        return folder
    cache = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(cache) / "attention-step-by-step"


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# Copies verified in this process: path -> (checksum, size, modification time) when checked.
_verified: dict[Path, tuple[str, int, int]] = {}


def _stamp(path: Path, spec: DataFile) -> tuple[str, int, int]:
    stat = path.stat()
    return spec.sha256, stat.st_size, stat.st_mtime_ns


def read_text(path: str | os.PathLike, spec: DataFile) -> str:
    """Read a local gzip copy of ``spec`` and verify its checksum; return the text."""
    path = Path(path)
    remedy = f"Delete {path} and run again to download a fresh copy from {spec.url}."
    try:
        with gzip.open(path, "rb") as f:
            raw = f.read()
    except (OSError, EOFError, zlib.error) as err:
        raise DataFileError(f"{path} is not a readable gzip file ({err}). {remedy}") from err
    digest = _sha256(raw)
    if digest != spec.sha256:
        raise DataFileError(
            f"{path} is damaged or a different version: the SHA-256 of its text is "
            f"{digest[:12]}..., expected {spec.sha256[:12]}.... {remedy}"
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:  # unreachable when the checksum matched
        raise DataFileError(f"{path} is not UTF-8 text. {remedy}") from err
    _verified[path.resolve()] = _stamp(path, spec)
    return text


def _download(spec: DataFile, opener: Callable) -> bytes:
    try:
        with opener(spec.url) as response:
            archive = response.read()
    except OSError as err:
        raise DataFileError(
            f"could not download {spec.url} ({err}). Download it by hand, unzip "
            f"{spec.member}, gzip it as {spec.filename} into {data_dir()} (or set "
            f"COURSE_DATA_DIR to a folder that holds it)."
        ) from err
    try:
        with zipfile.ZipFile(io.BytesIO(archive)) as zf:
            raw = zf.read(spec.member)
    except (zipfile.BadZipFile, KeyError) as err:
        raise DataFileError(
            f"the download from {spec.url} is not a zip archive holding {spec.member} ({err})"
        ) from err
    digest = _sha256(raw)
    if digest != spec.sha256:
        raise DataFileError(
            f"the download from {spec.url} has SHA-256 {digest[:12]}..., expected "
            f"{spec.sha256[:12]}...: the published file changed or the download was damaged"
        )
    return raw


def fetch(
    spec: DataFile = ENG_FRA, *, download: bool = True, opener: Callable | None = None
) -> Path:
    """Path of a verified local copy of ``spec``, downloading it first if needed.

    Args:
        spec: which file.
        download: allow a download when no local copy exists.
        opener: ``opener(url)`` returning a response with ``read()``; defaults to
            ``urllib.request.urlopen`` (tests pass a fake one).
    """
    folder = data_dir()
    path = folder / spec.filename
    if path.exists():
        if _verified.get(path.resolve()) != _stamp(path, spec):
            read_text(path, spec)  # raises DataFileError when damaged
        return path
    if not download:
        raise DataFileError(
            f"{spec.filename} is not in {folder}. Set COURSE_DATA_DIR to the folder that "
            f"holds it, or call fetch(download=True)."
        )
    raw = _download(spec, opener or urllib.request.urlopen)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(path.name + ".partial")
        with gzip.GzipFile(partial, "wb", mtime=0) as f:
            f.write(raw)
        partial.replace(path)
    except OSError as err:
        raise DataFileError(
            f"could not write {path} ({err}). Set COURSE_DATA_DIR to a writable folder."
        ) from err
    _verified[path.resolve()] = _stamp(path, spec)  # _download checked its checksum
    return path


def load_text(
    spec: DataFile = ENG_FRA, *, download: bool = True, opener: Callable | None = None
) -> str:
    """The verified text of ``spec``: downloaded first if needed (see :func:`fetch`), then
    read, decompressed and checksummed once.

    Raises:
        DataFileError: the file is missing and may not be downloaded, the download failed,
            or the copy is damaged -- the message says which and what to do.
    """
    path = data_dir() / spec.filename
    if not path.exists():
        path = fetch(spec, download=download, opener=opener)
    return read_text(path, spec)
