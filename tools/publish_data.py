"""Prepare the course's own mirror of the Tatoeba pairs: a GitHub release asset.

    python tools/publish_data.py [--out FOLDER]    (default: _build/data-release)

``course_lib.datafiles`` downloads ``eng-fra.txt.gz`` from PyTorch's tutorial archive, and
when that fails from a mirror this repository publishes itself (``ENG_FRA_MIRROR``). This
script writes what that release holds, from the verified local copy (``fetch`` with no
download: set ``COURSE_DATA_DIR`` to the folder that holds it):

* ``eng-fra.txt.gz``: the text unchanged, gzip-compressed deterministically (level 9,
  modification time 0, no file name in the header), so a rerun writes the same bytes;
* ``ATTRIBUTION.md``: the licence (CC-BY 2.0 FR), the attribution and source, and the text's
  SHA-256 -- also used as the release notes.

It then prints the ``gh release create`` command a maintainer runs to publish them. It runs
nothing and touches no network.
"""

from __future__ import annotations

import argparse
import gzip
import io
import re
import shlex
import sys
from pathlib import Path

from course_lib.datafiles import ENG_FRA, ENG_FRA_MIRROR, DataFile, DataFileError, fetch, read_text

sys.path.insert(0, str(Path(__file__).resolve().parent))
import nbtools  # noqa: E402

ROOT = nbtools.ROOT

RELEASE = re.compile(r"https://github\.com/([^/]+/[^/]+)/releases/download/([^/]+)/([^/]+)")

ATTRIBUTION = """\
# {filename}: Tatoeba English-French sentence pairs

Republished unchanged as a mirror for the course "Attention, step by step"
(https://github.com/{repo}), so that the course still runs if the original link breaks.

- **Licence:** Creative Commons Attribution 2.0 France (CC-BY 2.0 FR),
  https://creativecommons.org/licenses/by/2.0/fr/
- **Attribution:** Tatoeba Project (https://tatoeba.org), sentences and translations by its
  contributors, via www.manythings.org/anki (English-French pairs, 2017-era release without
  the per-sentence attribution column).
- **Source:** `{member}` in the archive of PyTorch's seq2seq tutorial ("NLP From Scratch:
  Translation with a Sequence to Sequence Network and Attention"),
  {url}
- **Changes:** none. The text is the course's verified copy of that file, byte for byte; it
  is only gzip-compressed (level 9, modification time 0, no file name in the header).
- **SHA-256 of the uncompressed text** ({lines:,} lines, {size:,} bytes):
  `{sha256}`
  Check it with `gunzip -c {filename} | sha256sum`.

The course's code (`course_lib.datafiles`) downloads this file from
{mirror}
only when the original source fails, and verifies the checksum above before using it.
"""


def gzip_bytes(raw: bytes) -> bytes:
    """``raw`` gzip-compressed deterministically: level 9, mtime 0, no file name."""
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", compresslevel=9, mtime=0, filename="") as gz:
        gz.write(raw)
    return buf.getvalue()


def release_of(mirror: str, spec: DataFile) -> tuple[str, str]:
    """``(owner/name, tag)`` of the release that ``mirror`` names.

    Raises:
        ValueError: ``mirror`` is not a release asset named ``spec.filename``.
    """
    match = RELEASE.fullmatch(mirror)
    if not match or match[3] != spec.filename:
        raise ValueError(
            f"the mirror {mirror!r} is not a GitHub release asset named {spec.filename}: "
            "expected https://github.com/OWNER/NAME/releases/download/TAG/" + spec.filename
        )
    return match[1], match[2]


def build_release(
    out: str | Path, spec: DataFile = ENG_FRA, mirror: str = ENG_FRA_MIRROR
) -> list[Path]:
    """Write the release asset and ``ATTRIBUTION.md`` for ``spec`` into ``out``.

    Args:
        out: the output folder (created if needed; both files are replaced).
        spec: the data file; its verified local copy is read, never downloaded.
        mirror: the address the asset will have; it names the repository and tag.

    Returns:
        The paths written: the asset, then ``ATTRIBUTION.md``.

    Raises:
        DataFileError: no verified local copy (the message says where it was looked for).
        ValueError: ``mirror`` is not a release asset named ``spec.filename`` of the book's
            repository (``_config.yml``), or ``spec`` has no zip source to credit.
    """
    repo, _ = release_of(mirror, spec)
    book = nbtools.repository_url().split("@")[0]  # _config.yml's repository: url
    if book != f"https://github.com/{repo}":
        raise ValueError(
            f"the mirror {mirror} is not in the book's repository {book} (_config.yml): "
            "update ENG_FRA_MIRROR in course_lib/datafiles.py to that repository's release"
        )
    original = next((s for s in spec.sources if s.member is not None), None)
    if original is None:
        raise ValueError(f"{spec.filename} has no zip source (the original) to credit")
    raw = read_text(fetch(spec, download=False), spec).encode("utf-8")  # verified: unchanged
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    asset, notes = out / spec.filename, out / "ATTRIBUTION.md"
    asset.write_bytes(gzip_bytes(raw))
    notes.write_text(
        ATTRIBUTION.format(
            filename=spec.filename,
            repo=repo,
            member=original.member,
            url=original.url,
            sha256=spec.sha256,
            lines=raw.count(b"\n"),
            size=len(raw),
            mirror=mirror,
        ),
        encoding="utf-8",
    )
    return [asset, notes]


def release_command(
    paths: list[Path], spec: DataFile = ENG_FRA, mirror: str = ENG_FRA_MIRROR
) -> str:
    """The ``gh release create`` command that publishes ``paths`` (asset, notes) as ``mirror``."""
    repo, tag = release_of(mirror, spec)
    asset, notes = paths
    words = ["gh", "release", "create", tag, str(asset), str(notes), "--repo", repo]
    words += ["--title", f"Data: {spec.filename} (Tatoeba, CC-BY 2.0 FR)"]
    words += ["--notes-file", str(notes), "--latest=false"]
    return shlex.join(words)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=ROOT / "_build" / "data-release", type=Path)
    args = parser.parse_args(argv)
    try:
        paths = build_release(args.out, ENG_FRA, ENG_FRA_MIRROR)
    except (DataFileError, ValueError) as err:
        print(f"publish_data: {err}", file=sys.stderr)
        print(
            "It reads the verified local copy only: download it first with\n"
            "  python -c 'from course_lib.datafiles import fetch; print(fetch())'",
            file=sys.stderr,
        )
        return 1
    print(f"wrote {paths[0]} and {paths[1]}")
    print("to publish them (this script runs nothing), a maintainer runs:\n")
    print("  " + release_command(paths, ENG_FRA, ENG_FRA_MIRROR))
    print(f"\nthen checks that {ENG_FRA_MIRROR} serves the same bytes.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
