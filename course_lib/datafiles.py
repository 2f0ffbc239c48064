"""Where the course's data files live, and how they are fetched and verified.

Lookup order for a file such as ``eng-fra.txt.gz``:

1. the folder named by the environment variable ``COURSE_DATA_DIR``, when it is set
   (CI points it at a local copy, so tests never touch the network);
2. otherwise a per-user cache folder (``$XDG_CACHE_HOME/attention-step-by-step`` or
   ``~/.cache/attention-step-by-step``).

A file that is missing there is downloaded from its sources (:class:`Source`) in order --
the original publisher first, then the course's own mirror -- and every file, local or
downloaded, is checked against the SHA-256 of its uncompressed text before it is used. A
source that fails or serves other text is skipped for the next; the first verified copy is
written under a temporary name and renamed, so a half-written file never takes the real
name. A damaged local copy is never overwritten or deleted: it raises :class:`DataFileError`
saying which file and what to do.

:func:`load_text` is the one call most code needs: the verified text, with the file read,
decompressed and checksummed once. :func:`fetch` gives the path instead (verified once per
process: a copy already checked and not modified since is not read again).
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import http.client
import io
import os
import re
import secrets
import urllib.request
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from course_lib._foreign_names import explains_bad_calls, explains_class
from course_lib._validate_basics import check_type, type_name

__all__ = [
    "DataFile",
    "DataFileError",
    "ENG_FRA",
    "ENG_FRA_MIRROR",
    "Source",
    "data_dir",
    "fetch",
    "read_text",
    "load_text",
]

#: Seconds a download may stall before its source counts as failed and the next is tried.
TIMEOUT = 60


class DataFileError(RuntimeError):
    """A data file is missing, damaged, or could not be downloaded."""


@explains_class
@dataclass(frozen=True)
class Source:
    """One place a data file is published.

    Args:
        url: where to download it.
        member: the path of the text file inside a zip archive at ``url``; ``None`` (the
            default) when ``url`` serves a gzip-compressed copy of the text itself.

    Raises:
        ValueError: ``url`` is not an address such as ``https://...``, or ``member`` is
            empty.
    """

    url: str
    member: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.url, str) or "://" not in self.url:
            raise ValueError(f"url must be an address such as 'https://...', got {self.url!r}")
        if self.member is not None and (not isinstance(self.member, str) or not self.member):
            got = "an empty string" if self.member == "" else repr(self.member)
            raise ValueError(
                f"member must be the path of a file inside the zip archive at {self.url}, "
                f"e.g. member='data/eng-fra.txt', got {got}; leave member out (None) when "
                f"the url serves a gzip copy of the text itself"
            )


@explains_class
@dataclass(frozen=True)
class DataFile:
    """A data file the course uses, stored locally as ``filename`` (gzip-compressed text).

    Args:
        filename: local name, ending in ``.gz``.
        sha256: SHA-256 of the *uncompressed* UTF-8 text, 64 lowercase hex digits; every
            source must serve this same text.
        sources: where it is published, tried in order (a list is stored as a tuple).

    Raises:
        ValueError: a malformed ``filename`` or ``sha256``, or no sources.
        TypeError: a source that is not a :class:`Source`.
    """

    filename: str
    sha256: str
    sources: tuple[Source, ...]

    def __post_init__(self) -> None:
        if not isinstance(self.filename, str) or not re.fullmatch(r"[\w.-]+\.gz", self.filename):
            raise ValueError(
                f"filename must be a plain file name ending in .gz, got {self.filename!r}"
            )
        if not isinstance(self.sha256, str) or not re.fullmatch(r"[0-9a-f]{64}", self.sha256):
            raise ValueError(
                f"sha256 must be 64 lowercase hex digits (hashlib's hexdigest()), got "
                f"{self.sha256!r}"
            )
        sources = (self.sources,) if isinstance(self.sources, Source) else tuple(self.sources)
        if not sources:
            raise ValueError(
                f"sources is empty: DataFile({self.filename!r}, ...) needs at least one "
                f"Source to download it from, e.g. sources=(Source('https://.../"
                f"{self.filename}'),)"
            )
        for source in sources:
            if not isinstance(source, Source):
                raise TypeError(
                    f"sources must hold Source(url, member) objects, got {source!r}; "
                    f"wrap a URL as Source(url) or Source(url, member='path/in/archive')"
                )
        object.__setattr__(self, "sources", sources)


#: The course's own copy of ``eng-fra.txt.gz``: a release asset of the repository named in
#: ``_config.yml``, published by ``tools/publish_data.py`` (text unchanged, gzip-compressed).
ENG_FRA_MIRROR = (
    "https://github.com/attention-step-by-step/course/releases/download/data-v1/eng-fra.txt.gz"
)

#: Tatoeba English-French pairs, as packaged for PyTorch's seq2seq tutorial.
ENG_FRA = DataFile(
    filename="eng-fra.txt.gz",
    sha256="6b0f3decdb78600485b58efb541f5a2ab69ba888742ac04180e013084e40de7c",
    sources=(
        Source("https://download.pytorch.org/tutorial/data.zip", member="data/eng-fra.txt"),
        Source(ENG_FRA_MIRROR),
    ),
)  # Tatoeba Project (tatoeba.org) via www.manythings.org/anki, CC-BY 2.0 FR: see README


@explains_bad_calls()
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
        if folder.is_file():
            raise DataFileError(
                f"COURSE_DATA_DIR={env!r} names the file {folder}, not a folder: set it to "
                f"the folder that holds the file, COURSE_DATA_DIR={folder.parent}"
            )
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


def _check_spec(spec: object, call: str) -> None:
    """``spec`` must be a :class:`DataFile`; a path in its place gets the call that reads it."""
    if isinstance(spec, (str, os.PathLike)):
        inside = Path(spec) / ENG_FRA.filename
        path = inside if Path(spec).is_dir() else Path(spec)
        fix = (
            f"It names which data file, not where it is: {call}(ENG_FRA) gives the course's "
            f"verified copy; to read a copy of your own, read_text({str(path)!r}, ENG_FRA) "
            f"or load_pairs({str(path)!r})"
        )
    else:
        fix = f"Pass the course's file, {call}(ENG_FRA), or leave it out"
    check_type(spec, "spec", DataFile, "a DataFile such as ENG_FRA", fix)


def _remedy(path: Path, spec: DataFile, folder: Path | None) -> str:
    """What to do about a damaged or foreign file: safe to follow, nothing deleted."""
    shown = folder or "the data folder (COURSE_DATA_DIR)"
    if folder is not None and path.resolve() == (folder / spec.filename).resolve():
        return (
            f"Move it aside (rename it, e.g. to {path.name}.bad): fetch() then downloads a "
            f"verified copy into {shown}, from {spec.sources[0].url} or its mirrors."
        )
    return (
        f"Check that it is a copy of the course's {spec.filename}, or pass no path (e.g. "
        f"load_pairs()) to use the verified copy in {shown}, downloaded if needed."
    )


def _not_gzip(path: Path, spec: DataFile, err: Exception, remedy: str) -> DataFileError:
    """The error for a file gzip cannot read; the right text, uncompressed, is named so."""
    plain = None
    with contextlib.suppress(OSError):
        if path.stat().st_size < 100_000_000:  # hash small files only: the course's is 9 MB
            plain = _sha256(path.read_bytes()) == spec.sha256
    if plain:
        return DataFileError(
            f"{path} holds the right text, but uncompressed: the course reads the gzip copy "
            f"{spec.filename}. Compress it (python -m gzip {path} writes {path}.gz next to "
            f"it) and pass that, or pass no path to use the verified copy."
        )
    return DataFileError(f"{path} is not a readable gzip file ({err}). {remedy}")


@explains_bad_calls()
def read_text(path: str | os.PathLike, spec: DataFile) -> str:
    """Read a local gzip copy of ``spec`` and verify its checksum.

    Args:
        path: the gzip file itself (not the folder that holds it).
        spec: which data file it should be, e.g. :data:`ENG_FRA`.

    Returns:
        The text.

    Raises:
        TypeError: ``path`` is not a path, or ``spec`` is not a :class:`DataFile` (e.g.
            the two swapped).
        DataFileError: ``path`` is missing, a folder, empty, not gzip, or holds other text. The
            file is left as it is; the message says what to do, and never to delete
            anything.
    """
    if isinstance(path, DataFile):
        raise TypeError(
            f"path must be the path of a gzip copy of {path.filename}, got the DataFile "
            f"itself: the order is read_text(path, spec)"
        )
    check_type(path, "path", (str, os.PathLike), "a file path (a str or Path)")
    _check_spec(spec, "read_text")
    path = Path(path)
    try:
        folder = data_dir()
    except DataFileError:
        folder = None
    remedy = _remedy(path, spec, folder)
    if not path.exists():
        raise DataFileError(
            f"{path} does not exist. Pass the path of a gzip copy of {spec.filename}, or "
            f"let fetch() find or download the verified copy in "
            f"{folder or 'the data folder (COURSE_DATA_DIR)'}."
        )
    if path.is_dir():
        inside = path / spec.filename
        found = f"; it holds {inside}" if inside.is_file() else ""
        raise DataFileError(
            f"{path} is a folder, not the data file{found}. Pass the file inside it, e.g. "
            f"{inside}, or pass no path to use the verified copy."
        )
    if path.stat().st_size == 0:
        raise DataFileError(
            f"{path} is empty (0 bytes): the download or copy that made it wrote nothing. {remedy}"
        )
    try:
        with gzip.open(path, "rb") as f:
            raw = f.read()
    except (OSError, EOFError, zlib.error) as err:
        raise _not_gzip(path, spec, err, remedy) from err
    if not raw:
        raise DataFileError(
            f"{path} is a gzip file of no text (it decompresses to 0 bytes): not a copy of "
            f"{spec.filename}. {remedy}"
        )
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


class _Unusable(Exception):
    """A source that failed; the message is the reason, for the final report."""


def _text_from(source: Source, opener: Callable) -> bytes:
    """The uncompressed text ``source`` serves (not yet verified)."""
    try:
        with opener(source.url) as response:
            payload = response.read()
    except (OSError, http.client.HTTPException) as err:  # HTTPError and URLError are OSErrors
        raise _Unusable(f"download failed ({err})") from err
    if source.member is None:
        try:
            return gzip.decompress(payload)
        except (OSError, EOFError, zlib.error) as err:
            raise _Unusable(f"not a readable gzip file ({err})") from err
    try:
        with zipfile.ZipFile(io.BytesIO(payload)) as zf:
            return zf.read(source.member)
    except KeyError as err:
        raise _Unusable(f"the zip archive holds no {source.member}") from err
    # zipfile raises NotImplementedError for a compression method it cannot read
    except (zipfile.BadZipFile, OSError, EOFError, zlib.error, NotImplementedError) as err:
        raise _Unusable(f"not a readable zip archive holding {source.member} ({err})") from err


def _download(spec: DataFile, opener: Callable, folder: Path) -> bytes:
    """The verified text of ``spec`` from its first source that serves it."""
    failures = []
    for source in spec.sources:
        try:
            raw = _text_from(source, opener)
        except _Unusable as err:
            failures.append(f"{source.url}: {err}")
            continue
        digest = _sha256(raw)
        if digest == spec.sha256:
            return raw
        failures.append(
            f"{source.url}: its text has SHA-256 {digest[:12]}..., not the expected one (the "
            "published file changed or the download was damaged)"
        )
    tried = "\n".join(f"  {i}. {failure}" for i, failure in enumerate(failures, 1))
    by_hand = "\n".join(
        f"  - {s.url} (already {spec.filename}: save it under that name)"
        if s.member is None
        else f"  - {s.url} (unzip {s.member} from it, then gzip it as {spec.filename})"
        for s in spec.sources
    )
    raise DataFileError(
        f"could not download {spec.filename}: every source failed.\n{tried}\n"
        f"Expected SHA-256 of the uncompressed text: {spec.sha256}\n"
        f"To place the file by hand, get it from one of\n{by_hand}\n"
        f"and put {spec.filename} in {folder} (the folder it is read from; create it if "
        f"needed), or set COURSE_DATA_DIR to a folder that holds it. It is verified when read."
    )


def _store(path: Path, raw: bytes) -> None:
    """Write ``raw`` gzip-compressed as ``path``: under a temporary name, then renamed."""
    partial = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.partial")
    done = False
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(partial, "xb") as f:  # mtime 0 and no name in the header: deterministic
            with gzip.GzipFile(fileobj=f, mode="wb", mtime=0, filename="") as gz:
                gz.write(raw)
        os.replace(partial, path)
        done = True
    except OSError as err:
        raise DataFileError(
            f"could not write {path} ({err}). Set COURSE_DATA_DIR to a writable folder."
        ) from err
    finally:
        if not done:  # nothing half-written stays behind, whatever stopped the write
            with contextlib.suppress(OSError):
                partial.unlink(missing_ok=True)


def _urlopen(url: str):
    return urllib.request.urlopen(url, timeout=TIMEOUT)


@explains_bad_calls()
def fetch(
    spec: DataFile = ENG_FRA, *, download: bool = True, opener: Callable | None = None
) -> Path:
    """Path of a verified local copy of ``spec``, downloading it first if needed.

    Args:
        spec: which file.
        download: allow a download when no local copy exists.
        opener: ``opener(url)`` returning a response with ``read()``, used as a context
            manager; defaults to ``urllib.request.urlopen`` with a timeout of ``TIMEOUT``
            seconds (tests pass a fake one).

    Returns:
        ``data_dir() / spec.filename``, its text verified.

    Raises:
        TypeError: ``spec`` is not a :class:`DataFile` (a path, say: see :func:`read_text`),
            or ``opener`` is not callable.
        DataFileError: the local copy is damaged (it is left untouched); it is missing and
            ``download`` is false; every source failed (the message names each with its
            reason and says how to place the file by hand); or it could not be written.
    """
    _check_spec(spec, "fetch")
    if opener is not None and not callable(opener):
        raise TypeError(f"opener must be a function opener(url), got {type_name(opener)}")
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
    raw = _download(spec, opener or _urlopen, folder)
    _store(path, raw)
    _verified[path.resolve()] = _stamp(path, spec)  # _download checked its checksum
    return path


@explains_bad_calls()
def load_text(
    spec: DataFile = ENG_FRA, *, download: bool = True, opener: Callable | None = None
) -> str:
    """The verified text of ``spec``: downloaded first if needed (see :func:`fetch`), then
    read, decompressed and checksummed once.

    Raises:
        TypeError: ``spec`` is not a :class:`DataFile`: a path to a file of your own goes
            to :func:`read_text` instead.
        DataFileError: the file is missing and may not be downloaded, the download failed,
            or the copy is damaged -- the message says which and what to do.
    """
    _check_spec(spec, "load_text")
    path = data_dir() / spec.filename
    if not path.exists():
        path = fetch(spec, download=download, opener=opener)
    return read_text(path, spec)
