"""Ready to publish: licences, citation, workflows, the release, the repository address.

Offline: the citation file is validated against the Citation File Format's schema kept in
tests/data/; the release runs as a dry run into a temporary folder from a site and a data
file made here, and any command that would tag, push or upload fails the test.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import jsonschema
import pytest
import yaml

import release
from course_lib.datafiles import ENG_FRA_MIRROR, DataFile, Source

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = ROOT / "tests" / "data" / "citation-cff-1.2.0.schema.json"
WORKFLOWS = ROOT / ".github" / "workflows"
ACTIONLINT = Path(sys.executable).with_name("actionlint")


def load(path: Path) -> dict:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def config() -> dict:
    return load(ROOT / "_config.yml")


def readme_top() -> str:
    return release._readme_top((ROOT / "README.md").read_text(encoding="utf-8"))


# --- licences -----------------------------------------------------------------------------


def test_the_code_is_mit_and_the_book_cc_by_4():
    code = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert code.startswith("MIT License\n\nCopyright (c) ")
    assert "Permission is hereby granted, free of charge" in code
    text = (ROOT / "LICENSES" / "CC-BY-4.0.txt").read_text(encoding="utf-8")
    assert text.startswith("Creative Commons Attribution 4.0 International")
    assert "Creative Commons Attribution 4.0 International Public License" in text
    assert "ShareAlike" not in text and "NonCommercial" not in text
    assert 'license = "MIT"' in (ROOT / "pyproject.toml").read_text(encoding="utf-8")


def test_the_licences_page_says_what_is_under_which_and_credits_tatoeba():
    page = (ROOT / "LICENSES" / "README.md").read_text(encoding="utf-8")
    for expected in [
        "CC BY 4.0",
        "MIT",
        "code cells",
        "`course_lib/`",
        "CC BY 2.0 FR",
        "https://creativecommons.org/licenses/by/2.0/fr/",
        "Tatoeba",
        "ATTRIBUTION.md",
    ]:
        assert expected in page, expected
    for path in ("CC-BY-4.0.txt", "../LICENSE"):  # the page's links resolve
        assert (ROOT / "LICENSES" / path).is_file(), path


def test_the_readme_states_the_licences_and_why():
    top = readme_top()
    section = top[top.index("## Licences") : top.index("## Cite this book")]
    for expected in ["CC BY 4.0", "MIT", "CC BY 2.0", "Why CC BY 4.0 and not CC BY-SA 4.0"]:
        assert expected in section, expected


def test_every_page_footer_states_the_licences():
    """The footer as Jupyter Book hands it to the theme (html_theme_options.extra_footer)."""
    from jupyter_book.config import get_final_config

    sphinx, _ = get_final_config(
        user_yaml=ROOT / "_config.yml",
        cli_config={"latex_individualpages": False},
        sourcedir=ROOT,
        raise_on_invalid=True,
    )
    footer = sphinx["html_theme_options"]["extra_footer"].replace("&nbsp;", " ")
    repo = release.repository()
    for expected in [
        '<a href="https://creativecommons.org/licenses/by/4.0/">CC BY 4.0</a>',
        f'<a href="https://github.com/{repo}/blob/main/LICENSE">MIT</a>',
        '<a href="https://creativecommons.org/licenses/by/2.0/fr/">CC BY 2.0 FR</a>',
        "Tatoeba",
        f"https://github.com/{repo}/blob/main/LICENSES/README.md",
    ]:
        assert expected in footer, expected


def test_the_vendored_schema_is_the_published_one_and_credited():
    digest = hashlib.sha256(SCHEMA.read_bytes()).hexdigest()
    notes = (ROOT / "tests" / "data" / "README.md").read_text(encoding="utf-8")
    assert digest in notes, "tests/data/README.md names another checksum than the file has"
    assert "CC BY 4.0" in notes
    assert json.loads(SCHEMA.read_text())["$id"].endswith("/1.2.0/schema.json")


# --- citation -----------------------------------------------------------------------------


def cff_errors(data: dict) -> list[str]:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    validator = jsonschema.Draft7Validator(
        schema, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER
    )
    return [error.message for error in validator.iter_errors(data)]


def test_the_citation_file_is_valid_cff_1_2_0():
    data = load(ROOT / "CITATION.cff")
    assert data["cff-version"] == "1.2.0"
    assert cff_errors(data) == []


@pytest.mark.parametrize(
    "change",
    [
        lambda d: d.pop("authors"),
        lambda d: d.update(license="CC-BY-4"),  # not an SPDX identifier
        lambda d: d.update(url="attention-step-by-step.github.io"),  # not a URL
        lambda d: d["preferred-citation"].update(type="textbook"),  # not a CFF type
    ],
    ids=["no authors", "bad licence", "bad url", "bad type"],
)
def test_a_broken_citation_file_is_refused(change):
    data = load(ROOT / "CITATION.cff")
    change(data)
    assert cff_errors(data), "the schema accepted a broken CITATION.cff"


def test_the_citation_agrees_with_the_book():
    cff = load(ROOT / "CITATION.cff")
    book = config()
    repo = release.repository()
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    version = re.search(r'^version = "([^"]+)"', pyproject, re.M)[1]
    assert cff["title"] == cff["preferred-citation"]["title"] == book["title"]
    assert cff["version"] == cff["preferred-citation"]["edition"] == version
    assert cff["preferred-citation"]["year"] == int(book["copyright"])
    assert cff["repository-code"] == f"https://github.com/{repo}"
    assert cff["url"] == cff["preferred-citation"]["url"] == release.site_url(repo)
    assert cff["license"] == cff["preferred-citation"]["license"] == "CC-BY-4.0"


def test_the_readme_cites_what_the_citation_file_says():
    cff = load(ROOT / "CITATION.cff")
    top = readme_top()
    (bibtex,) = re.findall(r"```bibtex\n(.*?)```", top, re.S)
    assert f"title        = {{{cff['title']}}}" in bibtex
    assert f"year         = {{{cff['preferred-citation']['year']}}}" in bibtex
    assert f"\\url{{{cff['url']}}}" in bibtex
    assert "CITATION.cff" in top[top.index("## Cite this book") :]


# --- the repository address, the same everywhere ------------------------------------------


def test_every_place_names_the_configured_repository():
    assert release.repository_disagreements() == []


def test_a_place_left_behind_is_named(tmp_path):
    """Moving the book to another repository: every file that still names the old one."""
    for name in ("_config.yml", "README.md", "CITATION.cff", "teaching.md"):
        shutil.copy(ROOT / name, tmp_path / name)
    (tmp_path / "course_lib").mkdir()
    shutil.copy(ROOT / "course_lib" / "datafiles.py", tmp_path / "course_lib" / "datafiles.py")
    (tmp_path / "chapters").mkdir()
    shutil.copy(ROOT / "chapters" / "01_seq2seq.ipynb", tmp_path / "chapters")
    assert release.repository_disagreements(tmp_path) == []

    config_file = tmp_path / "_config.yml"
    old = f"url: https://github.com/{release.repository(tmp_path)}"
    config_file.write_text(
        config_file.read_text().replace(old, "url: https://github.com/jdoe/attention-book")
    )
    found = release.repository_disagreements(tmp_path)
    for place in [
        "README.md:",
        "CITATION.cff:",
        "teaching.md:",
        "_config.yml:",  # the footer
        "chapters/01_seq2seq.ipynb (setup cell)",
        "course_lib/datafiles.py (ENG_FRA_MIRROR)",
    ]:
        assert any(message.startswith(place) for message in found), place
    assert all("jdoe/attention-book" in message for message in found)
    assert any("https://jdoe.github.io/attention-book/" in message for message in found)


def test_the_site_address_follows_the_repository():
    assert release.site_url("attention-step-by-step/course") == (
        "https://attention-step-by-step.github.io/course/"
    )
    assert release.site_url("JDoe/JDoe.github.io") == "https://jdoe.github.io/"


# --- workflows ----------------------------------------------------------------------------


def workflow(name: str) -> dict:
    data = load(WORKFLOWS / name)
    data["on"] = data.pop(True, data.get("on"))  # YAML 1.1 reads the key `on` as true
    return data


def make_targets() -> set[str]:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    return set(re.findall(r"^([a-z][a-z-]*):", makefile, re.M))


def test_every_shell_step_is_a_makefile_target():
    """What CI runs is what a reader runs: `make TARGET [VAR=value ...]`, nothing else."""
    targets = make_targets()
    files = sorted(WORKFLOWS.glob("*.yml"))
    assert [f.name for f in files] == ["publish.yml", "test.yml"]
    for path in files:
        for job_name, job in workflow(path.name)["jobs"].items():
            for step in job["steps"]:
                if "run" not in step:
                    continue
                match = re.fullmatch(r"make ([a-z-]+)((?: [A-Z_]+=\S+)*)", step["run"].strip())
                assert match, f"{path.name} {job_name}: {step['run']!r} is not a make target"
                assert match[1] in targets, f"{path.name}: no target {match[1]} in the Makefile"


def runs(job: dict) -> list[str]:
    return [step["run"] for step in job["steps"] if "run" in step]


def uses(job: dict) -> list[str]:
    return [step["uses"].split("@")[0] for step in job["steps"] if "uses" in step]


def test_the_test_workflow_runs_make_test_on_linux_and_macos_and_latest_weekly():
    test = workflow("test.yml")
    assert {"push", "pull_request", "schedule"} <= set(test["on"])
    linux, macos, latest = (test["jobs"][name] for name in ("linux", "macos", "latest"))
    assert runs(linux) == ["make system-packages", "make test"]
    assert linux["container"]["image"].startswith("python:3.11-")
    assert linux["env"]["COURSE_REQUIRE_SANDBOX"] == linux["env"]["COURSE_REQUIRE_BROWSER"] == "1"
    pip_cache = [s for s in linux["steps"] if s.get("with", {}).get("path") == "~/.cache/pip"]
    assert pip_cache and "hashFiles('requirements.txt')" in pip_cache[0]["with"]["key"]
    assert macos["runs-on"].startswith("macos") and runs(macos) == ["make test"]
    setup = next(s for s in macos["steps"] if s.get("uses", "").startswith("actions/setup-"))
    assert setup["with"]["cache"] == "pip"
    assert setup["with"]["cache-dependency-path"] == "requirements.txt"
    assert "schedule" in latest["if"] and runs(latest) == ["make test-latest"]
    (report,) = [s for s in latest["steps"] if s.get("if") == "failure()"]
    assert report["uses"].startswith("actions/github-script@")
    assert "issues.create(" in report["with"]["script"]
    assert latest["permissions"]["issues"] == "write"
    for job in (linux, macos):
        assert "schedule" in job["if"]  # the weekly run is test-latest's alone


def test_the_publish_workflow_deploys_the_book_and_checks_links():
    publish = workflow("publish.yml")
    assert publish["on"]["push"]["branches"] == ["main"]
    book, deploy, links = (publish["jobs"][name] for name in ("book", "deploy", "linkcheck"))
    assert runs(book) == ["make book"]
    (upload,) = [s for s in book["steps"] if "upload-pages-artifact" in s.get("uses", "")]
    assert upload["with"]["path"] == "_build/html"
    assert deploy["needs"] == "book" and uses(deploy) == ["actions/deploy-pages"]
    assert deploy["permissions"] == {"pages": "write", "id-token": "write"}
    assert deploy["environment"]["name"] == "github-pages"
    assert runs(links) == ["make linkcheck"]
    assert "--builder linkcheck" in (ROOT / "Makefile").read_text(encoding="utf-8")


def test_actionlint_passes_the_workflows_and_fails_a_broken_one(tmp_path):
    """`make test` runs actionlint on the workflows; here, that it can fail at all."""
    assert ACTIONLINT.is_file(), "actionlint is not installed: make setup (requirements.txt)"
    ours = subprocess.run(
        [str(ACTIONLINT), "-no-color", *map(str, sorted(WORKFLOWS.glob("*.yml")))],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert ours.returncode == 0, ours.stdout + ours.stderr
    broken = tmp_path / ".github" / "workflows" / "broken.yml"
    broken.parent.mkdir(parents=True)
    text = (WORKFLOWS / "test.yml").read_text(encoding="utf-8")
    broken.write_text(text.replace("runs-on: macos-14", "runs-on: macos-14\n    need: linux"))
    result = subprocess.run(
        [str(ACTIONLINT), "-no-color", str(broken)], cwd=tmp_path, capture_output=True, text=True
    )
    assert result.returncode != 0 and '"need"' in result.stdout, result.stdout


# --- the README's front page and the instructors' page --------------------------------------


def toc_files() -> list[str]:
    toc = load(ROOT / "_toc.yml")
    return [entry["file"] for part in toc["parts"] for entry in part.get("chapters", [])]


def test_the_readme_is_a_landing_page():
    top = readme_top()
    headings = re.findall(r"^## (.+)$", top, re.M)
    order = [
        "The chapters",
        "Two commands",
        "Open a chapter on Colab",
        "Teaching with this book",
        "Licences",
        "Cite this book",
        "Report a problem",
    ]
    assert [h for h in headings if h in order] == order
    chapters = [f for f in toc_files() if f.startswith("chapters/")]
    listed = re.findall(r"\]\((chapters/[^)]+)\.ipynb\)", top)
    assert listed == chapters, "the README's chapter list and _toc.yml differ"
    for expected in [
        "make book",
        "make test",
        "colab.research.google.com/github/",
        "teaching.html",
        "#grading-a-class-instructors",
        "Bug report",
        "make doctor",
        release.site_url(release.repository()),
    ]:
        assert expected in top, expected
    full = (ROOT / "README.md").read_text(encoding="utf-8")
    for anchor in re.findall(r"\]\(#([a-z0-9-]+)\)", top):  # the top's links to sections below
        titles = re.findall(r"^#+ (.+)$", full, re.M)
        slugs = {re.sub(r"[^a-z0-9 -]", "", t.lower()).replace(" ", "-") for t in titles}
        assert anchor in slugs, f"the README links to #{anchor}, which no heading makes"


def test_the_teaching_page_is_in_the_book_and_covers_what_instructors_check():
    assert "teaching" in toc_files()
    page = (ROOT / "teaching.md").read_text(encoding="utf-8")
    assert page.startswith("# Teaching with this book\n")
    for expected in [
        "{doc}`exercises/05_translation_exercises`",
        "make grade CHAPTER=",
        "preflight",
        "bubblewrap",
        "What it does not do",
        "--gradescope",
        "--variant 2",
        "CC BY 4.0",
        "MIT",
        "CC BY 2.0 FR",
        "#grading-a-class-instructors",
        "make doctor",
    ]:
        assert expected in page, expected


# --- the release ----------------------------------------------------------------------------

TEXT = "Go.\tVa !\nHi.\tSalut !\n"
SPEC = DataFile(
    filename="eng-fra.txt.gz",
    sha256=hashlib.sha256(TEXT.encode()).hexdigest(),
    sources=(Source("https://example.invalid/data.zip", member="data/eng-fra.txt"),)
    + (Source(ENG_FRA_MIRROR),),
)


@pytest.fixture
def site(tmp_path) -> Path:
    html = tmp_path / "html"
    (html / "chapters").mkdir(parents=True)
    (html / "index.html").write_text("<html>book</html>")
    (html / "chapters" / "01.html").write_text("<html>chapter</html>")
    return html


@pytest.fixture
def data(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "data"
    folder.mkdir()
    (folder / SPEC.filename).write_bytes(gzip.compress(TEXT.encode()))
    monkeypatch.setenv("COURSE_DATA_DIR", str(folder))
    monkeypatch.setattr(release, "ENG_FRA", SPEC)
    return folder


@pytest.fixture
def nothing_published(monkeypatch):
    def refuse(command, root=None):
        raise AssertionError(f"a dry run ran {command}")

    monkeypatch.setattr(release, "execute", refuse)


def test_the_site_archive_is_reproducible(site, tmp_path):
    first = release.site_archive(site, tmp_path / "a", "1.2.3", mtime=1_700_000_000)
    second = release.site_archive(site, tmp_path / "b", "1.2.3", mtime=1_700_000_000)
    assert first.name == "attention-step-by-step-1.2.3-site.tar.gz"
    assert first.read_bytes() == second.read_bytes()
    assert first.read_bytes()[4:8] == b"\0\0\0\0"  # no time in the gzip header
    with tarfile.open(first) as tar:
        members = tar.getmembers()
        names = [m.name for m in members]
        page = tar.extractfile("attention-step-by-step-1.2.3-site/index.html").read()
    assert names == [
        "attention-step-by-step-1.2.3-site",
        "attention-step-by-step-1.2.3-site/chapters",
        "attention-step-by-step-1.2.3-site/chapters/01.html",
        "attention-step-by-step-1.2.3-site/index.html",
    ]
    assert {(m.mtime, m.uid, m.gid, m.uname) for m in members} == {(1_700_000_000, 0, 0, "")}
    assert page == b"<html>book</html>"


def test_the_site_archive_needs_a_built_site(tmp_path):
    with pytest.raises(release.ReleaseError, match="run `make book` first"):
        release.site_archive(tmp_path, tmp_path / "out", "1.2.3", mtime=0)


def test_sha256sums_is_what_sha256sum_checks(tmp_path):
    a, b = tmp_path / "b.whl", tmp_path / "a.tar.gz"
    a.write_bytes(b"wheel")
    b.write_bytes(b"site")
    sums = release.write_sha256sums([a, b], tmp_path)
    assert sums.read_text() == (
        f"{hashlib.sha256(b'site').hexdigest()}  a.tar.gz\n"
        f"{hashlib.sha256(b'wheel').hexdigest()}  b.whl\n"
    )
    if shutil.which("sha256sum"):
        check = subprocess.run(["sha256sum", "-c", "SHA256SUMS"], cwd=tmp_path)
        assert check.returncode == 0


def version() -> str:
    return release.project_version()


def test_the_wheel_is_reproducible_and_carries_the_licence(tmp_path):
    first = release.build_wheel(tmp_path / "a", mtime=1_764_000_000)
    second = release.build_wheel(tmp_path / "b", mtime=1_764_000_000)
    assert first.name == f"course_lib-{version()}-py3-none-any.whl"
    assert first.read_bytes() == second.read_bytes()
    with zipfile.ZipFile(first) as wheel:
        assert f"course_lib-{version()}.dist-info/licenses/LICENSE" in wheel.namelist()


def test_the_dry_run_builds_every_asset_and_publishes_nothing(
    site, data, tmp_path, capsys, nothing_published
):
    out = tmp_path / "release"
    assert release.main([version(), "--html", str(site), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    wheel = f"course_lib-{version()}-py3-none-any.whl"
    archive = f"attention-step-by-step-{version()}-site.tar.gz"
    assert sorted(p.name for p in out.iterdir()) == sorted(
        [wheel, archive, "eng-fra.txt.gz", "ATTRIBUTION.md", "SHA256SUMS", "RELEASE_NOTES.md"]
    )
    sums = dict(line.split("  ")[::-1] for line in (out / "SHA256SUMS").read_text().splitlines())
    assert set(sums) == {wheel, archive, "eng-fra.txt.gz", "ATTRIBUTION.md"}
    for name, digest in sums.items():
        assert hashlib.sha256((out / name).read_bytes()).hexdigest() == digest, name
    assert gzip.decompress((out / "eng-fra.txt.gz").read_bytes()) == TEXT.encode()
    assert "CC-BY 2.0 FR" in (out / "ATTRIBUTION.md").read_text()
    notes = (out / "RELEASE_NOTES.md").read_text()
    assert "CC BY 4.0" in notes and "sha256sum -c SHA256SUMS" in notes
    tag, repo = f"v{version()}", release.repository()
    assert f"git tag -a {tag} -m" in printed
    assert f"git push origin {tag}" in printed
    assert f"gh release create {tag} {out / wheel} {out / archive} {out / 'SHA256SUMS'}" in printed
    assert f"gh release create data-v1 {out / 'eng-fra.txt.gz'}" in printed
    assert f"--repo {repo}" in printed


def test_a_real_release_stops_on_a_dirty_tree(site, data, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(release, "tree_status", lambda root=None: [" M README.md"])
    monkeypatch.setattr(release, "execute", lambda *a, **k: pytest.fail("ran a command"))
    out = tmp_path / "release"
    assert release.main([version(), "--publish", "--html", str(site), "--out", str(out)]) == 1
    printed = capsys.readouterr()
    assert "the working tree is not clean (1 paths in git status: README.md)" in printed.out
    assert "stopped by the checks" in printed.err
    assert not out.exists()


def test_the_dry_run_reports_a_dirty_tree_and_goes_on(monkeypatch, capsys):
    monkeypatch.setattr(release, "tree_status", lambda root=None: [" M README.md"])
    assert release.main([version(), "--check-only"]) == 0
    assert "not clean" in capsys.readouterr().out


@pytest.mark.parametrize("bad", ["1.2", "v1.2.3", "01.2.3", "1.2.3rc1", ""])
def test_a_malformed_version_is_refused(bad, capsys):
    assert release.main([bad, "--check-only"]) == 2
    assert "is not a version X.Y.Z" in capsys.readouterr().err


def test_a_version_other_than_the_projects_is_refused(capsys):
    assert release.main(["99.0.0", "--check-only"]) == 1
    printed = capsys.readouterr().out
    assert f"pyproject.toml (version) says {version()}" in printed
    assert "CITATION.cff (version)" in printed


def test_a_release_without_the_data_says_where_to_put_it(
    site, tmp_path, monkeypatch, capsys, nothing_published
):
    monkeypatch.setenv("COURSE_DATA_DIR", str(tmp_path))
    monkeypatch.setattr(release, "ENG_FRA", SPEC)
    out = tmp_path / "release"
    assert release.main([version(), "--html", str(site), "--out", str(out)]) == 1
    error = capsys.readouterr().err
    assert "eng-fra.txt.gz" in error and "COURSE_DATA_DIR" in error


def test_make_release_is_a_dry_run_unless_told_otherwise():
    def plan(*variables: str) -> str:
        result = subprocess.run(
            ["make", "-n", "release", f"VERSION={version()}", *variables],
            cwd=ROOT,
            capture_output=True,
            text=True,
        )
        assert result.returncode == 0, result.stderr
        return result.stdout

    dry = plan()
    assert f'tools/release.py "{version()}" --check-only' in dry and "--publish" not in dry
    assert "jupyter-book build . --all -W -n" in dry  # the site is built before the assets
    assert f'tools/release.py "{version()}" --publish' in plan("DRY_RUN=0")
    missing = subprocess.run(["make", "release"], cwd=ROOT, capture_output=True, text=True)
    assert missing.returncode == 2 and "usage: make release VERSION=x.y.z" in missing.stderr


def test_the_gzip_of_the_site_archive_names_no_file(site, tmp_path):
    archive = release.site_archive(site, tmp_path, "1.2.3", mtime=0)
    header = archive.read_bytes()[:10]
    assert header[3] == 0  # no FNAME flag
    with gzip.open(io.BytesIO(archive.read_bytes())) as gz:
        assert gz.read(512)  # a readable tar stream
