"""Make a release of the book: a tag, the wheel, the site archive, the data mirror, checksums.

    make release VERSION=0.1.0              a dry run: builds everything, prints the commands
    make release VERSION=0.1.0 DRY_RUN=0    tags, pushes and uploads (a maintainer, once)

``make release`` runs this script twice around ``make book``: first with ``--check-only``,
then to build. It

1. **checks** that ``VERSION`` (``X.Y.Z``) is the version ``pyproject.toml`` and
   ``CITATION.cff`` give; that every place naming the book's repository names the one in
   ``_config.yml`` (:func:`repository_disagreements`); that the working tree is clean, the
   branch is ``_config.yml``'s, the tag ``vX.Y.Z`` is new and the remote ``origin`` is the
   book's repository. A dry run reports the last four and goes on (so that it can be tried in
   any working copy); ``--publish`` stops on any of them;
2. **builds** into ``_build/release/vX.Y.Z/``: the wheel of ``course_lib`` (``pip wheel``,
   offline, from a copy of the packaging files), the site archive (``_build/html``, built by
   ``make book``, as a reproducible ``.tar.gz``), the Tatoeba mirror asset and its
   ``ATTRIBUTION.md`` (``tools/publish_data.py``, from the verified local copy: set
   ``COURSE_DATA_DIR``), ``SHA256SUMS`` for all four (``sha256sum -c SHA256SUMS`` checks them)
   and ``RELEASE_NOTES.md``;
3. **prints** (dry run) or **runs** (``--publish``): ``git tag -a``, ``git push origin``,
   ``gh release create vX.Y.Z`` with the wheel, the site archive and ``SHA256SUMS``, and, once,
   ``gh release create data-v1`` with the data asset (the address ``ENG_FRA_MIRROR`` in
   ``course_lib/datafiles.py`` names; skipped when that release exists).

Nothing here touches the network except the commands ``--publish`` runs.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import os
import re
import shlex
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

import yaml

from course_lib.datafiles import ENG_FRA, ENG_FRA_MIRROR, DataFileError

sys.path.insert(0, str(Path(__file__).resolve().parent))
import publish_data  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SLUG = "attention-step-by-step"
RELEASES = ROOT / "_build" / "release"
VERSION = re.compile(r"(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)")
#: Other projects' repositories that the files checked by :func:`repository_disagreements`
#: may name; any other GitHub address there must be the book's own.
THIRD_PARTY = {
    "containers/bubblewrap",
    "citation-file-format/citation-file-format",
    "computationalmodelling/nbval",
    "kjanat/actionlint",
    "rhysd/actionlint",
}
#: The files that name the book's repository in prose or metadata (globs, from the root).
#: README.md is read down to its "Grading a class" section, where other engineers' prose starts.
NAMING_FILES = [
    "README.md",
    "CITATION.cff",
    "_config.yml",
    "teaching.md",
    "intro.md",
    "LICENSES/README.md",
    ".github/**/*.yml",
]
GITHUB = re.compile(
    r"(?:colab\.research\.google\.com/github/|(?<![A-Za-z0-9.-])github\.com/)"
    r"([A-Za-z0-9-]+)/([A-Za-z0-9_.-]+)"
)
PAGES = re.compile(r"(?<![A-Za-z0-9.-])([A-Za-z0-9-]+)\.github\.io/([A-Za-z0-9_.-]*)")
SETUP_CELL = re.compile(r"git\+https://github\.com/([A-Za-z0-9-]+/[A-Za-z0-9_.-]+?)(?:\.git)?@")


class ReleaseError(RuntimeError):
    """A release cannot be made as asked; the message says why and what to do."""


def config(root: Path = ROOT) -> dict:
    return yaml.safe_load((root / "_config.yml").read_text(encoding="utf-8"))


def repository(root: Path = ROOT) -> str:
    """``owner/name`` of the book's repository (``_config.yml``'s ``repository: url``).

    Raises:
        ReleaseError: the address is not a GitHub repository's.
    """
    url = str(config(root)["repository"]["url"]).rstrip("/")
    match = re.fullmatch(r"https://github\.com/([A-Za-z0-9-]+)/([A-Za-z0-9_.-]+?)(?:\.git)?", url)
    if not match:
        raise ReleaseError(
            f"_config.yml's repository url is {url!r}: a release is made on GitHub, so it "
            "must read https://github.com/OWNER/NAME"
        )
    return f"{match[1]}/{match[2]}"


def site_url(repo: str) -> str:
    """Where GitHub Pages serves the site of ``repo`` (``owner/name``)."""
    owner, name = repo.split("/")
    if name.lower() == f"{owner.lower()}.github.io":  # a user or organisation site
        return f"https://{name.lower()}/"
    return f"https://{owner.lower()}.github.io/{name}/"


def _readme_top(text: str) -> str:
    head, sep, _ = text.partition("\n## Grading a class")
    return head if sep else text


def repository_disagreements(root: Path = ROOT) -> list[str]:
    """Every place that names another repository than ``_config.yml`` does, as messages.

    The places: the notebooks' setup cells (``git+https://github.com/OWNER/NAME@``), the
    data mirror (``ENG_FRA_MIRROR`` in ``course_lib/datafiles.py``), and every GitHub,
    Colab or GitHub Pages address in :data:`NAMING_FILES` (other projects' repositories
    listed in :data:`THIRD_PARTY` aside).
    """
    repo = repository(root)
    site = site_url(repo)
    found: list[str] = []

    def wrong(where: str, named: str) -> None:
        found.append(
            f"{where} names {named}, but _config.yml's repository is {repo} "
            f"(site {site}): update it to the configured address"
        )

    notebooks = sorted((root / "chapters").glob("*.ipynb")) + sorted(
        (root / "exercises").glob("*.ipynb")
    )
    for path in notebooks:
        text = path.read_text(encoding="utf-8")
        for match in SETUP_CELL.finditer(text):
            if match[1] != repo:
                wrong(f"{path.relative_to(root)} (setup cell)", match[1])
    datafiles = (root / "course_lib" / "datafiles.py").read_text(encoding="utf-8")
    mirrors = re.findall(r"https://github\.com/([^/\s\"]+/[^/\s\"]+)/releases/download/", datafiles)
    if not mirrors:
        found.append("course_lib/datafiles.py names no release of the book's repository")
    for named in mirrors:
        if named != repo:
            wrong("course_lib/datafiles.py (ENG_FRA_MIRROR)", named)

    paths = sorted({p for pattern in NAMING_FILES for p in root.glob(pattern) if p.is_file()})
    for path in paths:
        text = path.read_text(encoding="utf-8")
        if path.name == "README.md" and path.parent == root:
            text = _readme_top(text)
        for number, line in enumerate(text.splitlines(), start=1):
            where = f"{path.relative_to(root)}:{number}"
            for match in GITHUB.finditer(line):
                named = f"{match[1]}/{match[2].removesuffix('.git').rstrip('.')}"
                if named != repo and named not in THIRD_PARTY:
                    wrong(where, named)
            for match in PAGES.finditer(line):
                named = f"https://{match[1].lower()}.github.io/" + (
                    f"{match[2]}/" if match[2] else ""
                )
                if named != site:
                    wrong(where, named)
    return found


def project_version(root: Path = ROOT) -> str:
    text = (root / "pyproject.toml").read_text(encoding="utf-8")
    match = re.search(r'^version = "([^"]+)"', text, re.M)
    if not match:
        raise ReleaseError('pyproject.toml has no version = "..." line in [project]')
    return match[1]


def citation(root: Path = ROOT) -> dict:
    return yaml.safe_load((root / "CITATION.cff").read_text(encoding="utf-8"))


def version_problems(version: str, root: Path = ROOT) -> list[str]:
    """Why ``version`` cannot be released (empty: it can)."""
    if not VERSION.fullmatch(version):
        return [f"VERSION={version!r} is not a version X.Y.Z (e.g. 0.1.0)"]
    cff = citation(root)
    given = {
        "pyproject.toml (version)": project_version(root),
        "CITATION.cff (version)": str(cff.get("version")),
        "CITATION.cff (preferred-citation: edition)": str(
            cff.get("preferred-citation", {}).get("edition")
        ),
    }
    return [
        f"VERSION={version}, but {where} says {value}: set the version there first "
        "(pyproject.toml and CITATION.cff say the same)"
        for where, value in given.items()
        if value != version
    ]


def git(*args: str, root: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True)


def tree_status(root: Path = ROOT) -> list[str]:
    """``git status --porcelain``: what is modified, added or not tracked (ignored files aside)."""
    result = git("status", "--porcelain", root=root)
    if result.returncode != 0:
        raise ReleaseError(f"git status failed: {result.stderr.strip()}")
    return result.stdout.splitlines()


def repository_problems(version: str, root: Path = ROOT) -> list[str]:
    """What stops a real release in this working copy: dirty tree, branch, tag, remote."""
    problems = []
    status = tree_status(root)
    if status:
        shown = ", ".join(line[3:] for line in status[:5]) + (" ..." if len(status) > 5 else "")
        problems.append(
            f"the working tree is not clean ({len(status)} paths in git status: {shown}): "
            "commit or remove them, so that the release is the tagged commit"
        )
    branch = str(config(root)["repository"].get("branch", "main"))
    current = git("rev-parse", "--abbrev-ref", "HEAD", root=root).stdout.strip()
    if current != branch:
        problems.append(f"on branch {current or '(none)'}, not {branch} (_config.yml)")
    tag = f"v{version}"
    if git("rev-parse", "-q", "--verify", f"refs/tags/{tag}", root=root).returncode == 0:
        problems.append(f"the tag {tag} exists already: a version is released once")
    origin = git("remote", "get-url", "origin", root=root)
    repo = repository(root)
    if origin.returncode != 0:
        problems.append(
            f'no git remote "origin" to push the tag to '
            f"(git remote add origin https://github.com/{repo}.git)"
        )
    elif not re.search(rf"github\.com[:/]{re.escape(repo)}(\.git)?/?$", origin.stdout.strip()):
        problems.append(f"the remote origin is {origin.stdout.strip()}, not {repo} (_config.yml)")
    return problems


def build_wheel(out: Path, root: Path = ROOT, mtime: int | None = None) -> Path:
    """course_lib's wheel, built offline from a copy of the packaging files, into ``out``
    (with ``mtime``, its files' timestamps: the same bytes for the same sources)."""
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "src"
        src.mkdir()
        for name in ("pyproject.toml", "README.md", "LICENSE"):
            shutil.copy(root / name, src / name)
        shutil.copytree(
            root / "course_lib",
            src / "course_lib",
            ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info"),
        )
        built = Path(tmp) / "wheel"
        env = {**os.environ, "PIP_NO_INDEX": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
        if mtime is not None:
            env["SOURCE_DATE_EPOCH"] = str(max(mtime, 315532800))  # zip's epoch is 1980
        command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation"]
        result = subprocess.run(
            [*command, "-w", str(built), str(src)], env=env, capture_output=True, text=True
        )
        if result.returncode != 0:
            raise ReleaseError(f"building the wheel failed:\n{result.stdout}{result.stderr}")
        (wheel,) = built.glob("course_lib-*.whl")
        out.mkdir(parents=True, exist_ok=True)
        return Path(shutil.copy(wheel, out / wheel.name))


def source_date(root: Path = ROOT) -> int:
    """The archive's timestamps: ``SOURCE_DATE_EPOCH``, else the last commit's time."""
    if os.environ.get("SOURCE_DATE_EPOCH", "").isdigit():
        return int(os.environ["SOURCE_DATE_EPOCH"])
    stamp = git("log", "-1", "--format=%ct", root=root).stdout.strip()
    return int(stamp) if stamp.isdigit() else 0


def site_archive(html: Path, out: Path, version: str, mtime: int) -> Path:
    """``html`` as ``attention-step-by-step-VERSION-site.tar.gz``: the same bytes for the same
    files (sorted, one timestamp, no owners, gzip without a name or time in its header).

    Raises:
        ReleaseError: ``html`` holds no built site, or a link.
    """
    if not (html / "index.html").is_file():
        raise ReleaseError(f"{html} holds no built site (no index.html): run `make book` first")
    top = f"{SLUG}-{version}-site"
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{top}.tar.gz"
    entries = sorted(html.rglob("*"), key=lambda p: p.relative_to(html).as_posix())
    with open(path, "wb") as raw:
        with gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=9, mtime=0, filename="") as gz:
            with tarfile.open(fileobj=gz, mode="w", format=tarfile.GNU_FORMAT) as tar:
                for entry in [html, *entries]:
                    if entry.is_symlink():
                        raise ReleaseError(f"{entry} is a link: the site archive holds files only")
                    name = top if entry == html else f"{top}/{entry.relative_to(html).as_posix()}"
                    info = tarfile.TarInfo(name)
                    info.mtime, info.uid, info.gid, info.uname, info.gname = mtime, 0, 0, "", ""
                    if entry.is_dir():
                        info.type, info.mode = tarfile.DIRTYPE, 0o755
                        tar.addfile(info)
                    else:
                        info.size, info.mode = entry.stat().st_size, 0o644
                        with open(entry, "rb") as f:
                            tar.addfile(info, f)
    return path


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def write_sha256sums(paths: list[Path], out: Path) -> Path:
    """``SHA256SUMS`` in ``out`` for ``paths``, as ``sha256sum`` writes it (``-c`` checks it)."""
    sums = out / "SHA256SUMS"
    lines = [f"{sha256(p)}  {p.name}\n" for p in sorted(paths, key=lambda p: p.name)]
    sums.write_text("".join(lines), encoding="utf-8")
    return sums


def notes_text(version: str, repo: str, assets: list[Path], data_tag: str) -> str:
    listed = "\n".join(f"- `{p.name}` ({p.stat().st_size:,} bytes)" for p in assets)
    return f"""\
# Attention, step by step {version}

The book as published at {site_url(repo)} for this version.

{listed}

Check the downloads with `sha256sum -c SHA256SUMS` (the data asset is published once, as the
release `{data_tag}`, where `course_lib.datafiles` downloads it when the original source fails).

- The site archive: the book's pages, as `make book` builds them; open `index.html`.
- The wheel: `pip install course_lib-{version}-py3-none-any.whl` (the library the notebooks
  import; Colab installs it from the repository).

**Licences.** The book's text, figures and notebooks: CC BY 4.0. The code (course_lib, the
tools, the tests and the notebooks' code cells): MIT (`LICENSE`). The Tatoeba sentence pairs:
CC BY 2.0 FR, © the Tatoeba Project's contributors (`ATTRIBUTION.md`). See `LICENSES/README.md`.
"""


def publish_commands(
    version: str, repo: str, wheel: Path, site: Path, sums: Path, notes: Path
) -> list[list[str]]:
    tag = f"v{version}"
    title = f"Attention, step by step {version}"
    return [
        ["git", "tag", "-a", tag, "-m", title],
        ["git", "push", "origin", tag],
        ["gh", "release", "create", tag, str(wheel), str(site), str(sums), "--repo", repo]
        + ["--title", title, "--notes-file", str(notes), "--verify-tag"],
    ]


def execute(command: list[str], root: Path = ROOT) -> None:
    """Run one publishing command (``--publish`` only); stop the release when it fails."""
    print("+ " + shlex.join(command), flush=True)
    if subprocess.run(command, cwd=root).returncode != 0:
        raise ReleaseError(f"{command[0]} failed: the release stopped at {shlex.join(command)}")


def checks(version: str, publish: bool, root: Path = ROOT) -> bool:
    """Print every check; whether the release may go on (hard problems stop both modes)."""
    hard = version_problems(version, root)
    if not hard:
        print(f"  ok   version {version}: pyproject.toml's and CITATION.cff's")
        hard = repository_disagreements(root)
    if not hard:
        print(f"  ok   every place names the repository {repository(root)}")
    soft = [] if hard else repository_problems(version, root)
    if not hard and not soft:
        print("  ok   a clean tree, the book's branch, a new tag, origin the book's repository")
    for problem in hard:
        print(f"  FAIL {problem}")
    for problem in soft:
        print(f"  FAIL {problem}" + ("" if publish else " (a dry run goes on; a release stops)"))
    return not hard and not (publish and soft)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("version", help="X.Y.Z: pyproject.toml's and CITATION.cff's version")
    parser.add_argument("--publish", action="store_true", help="tag, push and upload")
    parser.add_argument("--check-only", action="store_true", help="only the checks")
    parser.add_argument("--html", type=Path, default=ROOT / "_build" / "html")
    parser.add_argument("--out", type=Path, default=None, help="default _build/release/vX.Y.Z")
    args = parser.parse_args(argv)
    if not VERSION.fullmatch(args.version):
        print(
            f"release: VERSION={args.version!r} is not a version X.Y.Z (e.g. 0.1.0)\n"
            "usage: make release VERSION=x.y.z [DRY_RUN=0]",
            file=sys.stderr,
        )
        return 2
    mode = "publish" if args.publish else "dry run: nothing is tagged, pushed or uploaded"
    try:
        repo = repository()
        print(f"release {args.version} of {repo} ({mode})")
        if not checks(args.version, args.publish):
            print("release: stopped by the checks above", file=sys.stderr)
            return 1
        if args.check_only:
            return 0
        out = args.out or RELEASES / f"v{args.version}"
        if out.is_dir() and any(out.iterdir()):
            if not out.resolve().is_relative_to(RELEASES.resolve()):
                raise ReleaseError(f"{out} is not empty: name a new folder with --out")
            shutil.rmtree(out)  # an earlier build of this release
        try:
            data, attribution = publish_data.build_release(out, ENG_FRA, ENG_FRA_MIRROR)
        except (DataFileError, ValueError) as err:
            raise ReleaseError(
                f"the data mirror asset: {err}\nIt is made from the verified local copy: set "
                "COURSE_DATA_DIR to the folder that holds eng-fra.txt.gz, or download it first "
                "with  python -c 'from course_lib.datafiles import fetch; print(fetch())'"
            ) from err
        site = site_archive(args.html, out, args.version, source_date())
        wheel = build_wheel(out, mtime=source_date())
        assets = [wheel, site, data, attribution]
        sums = write_sha256sums(assets, out)
        data_tag = publish_data.release_of(ENG_FRA_MIRROR, ENG_FRA)[1]
        notes = out / "RELEASE_NOTES.md"
        notes.write_text(notes_text(args.version, repo, assets, data_tag), encoding="utf-8")
        print(f"\nbuilt in {out}:")
        for path in [*assets, sums]:
            print(f"  {path.name:<44} {path.stat().st_size:>12,} bytes  sha256 {sha256(path)}")
        commands = publish_commands(args.version, repo, wheel, site, sums, notes)
        data_command = shlex.split(
            publish_data.release_command([data, attribution], ENG_FRA, ENG_FRA_MIRROR)
        )
        if not args.publish:
            print("\nto publish, a maintainer runs (make release VERSION=... DRY_RUN=0 runs them):")
            for command in commands:
                print("  " + shlex.join(command))
            print(f"  # once, unless the release {data_tag} exists (gh release view {data_tag}):")
            print("  " + shlex.join(data_command))
            return 0
        for command in commands:
            execute(command)
        view = ["gh", "release", "view", data_tag, "--repo", repo]
        if subprocess.run(view, cwd=ROOT, capture_output=True).returncode == 0:
            print(f"the release {data_tag} exists: the data asset is not uploaded again")
        else:
            execute(data_command)
        print(f"released {args.version}: https://github.com/{repo}/releases/tag/v{args.version}")
        return 0
    except ReleaseError as err:
        print(f"release: {err}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
