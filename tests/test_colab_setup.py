"""The Colab path end to end: a Python without course_lib runs a notebook's setup cell.

On Colab the first cell of every notebook installs course_lib with
``%pip install "course-lib @ git+<repository>"``. Here the repository address points at a
local git repository holding the working tree's packaging files, and the environment is a
fresh virtual environment that has the pinned third-party packages (linked from .venv, so
nothing is downloaded) but not course_lib. In it, the setup cell installs the library, then a
chapter and a student notebook (with its solutions, so every self-check runs) execute
without errors -- in a folder where the source tree is not importable.
"""

import os
import shutil
import subprocess
import sysconfig
import venv
from pathlib import Path

import pytest
from nbclient import NotebookClient

import make_student
import nbtools

ROOT = Path(__file__).resolve().parents[1]
CHAPTER = ROOT / "chapters" / "02a_attention_pooling.ipynb"  # the quickest chapter
NOT_LINKED = ("course_lib", "__editable__", "course-lib")


def git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


@pytest.fixture(scope="module")
def repository(tmp_path_factory) -> str:
    """A git repository with the working tree's package, on branch main: the address."""
    repo = tmp_path_factory.mktemp("repo")
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, repo / name)
    shutil.copytree(
        ROOT / "course_lib", repo / "course_lib", ignore=shutil.ignore_patterns("__pycache__")
    )
    git("init", "-q", "-b", "main", cwd=repo)
    git("add", ".", cwd=repo)
    git(
        "-c",
        "user.name=test",
        "-c",
        "user.email=test@example.org",
        "commit",
        "-q",
        "-m",
        "package",
        cwd=repo,
    )
    return f"file://localhost{repo}@main"  # pip 23 rejects file:/// in a requirement


@pytest.fixture(scope="module")
def bare_python(tmp_path_factory) -> str:
    """A new virtual environment with every pinned package of .venv except course_lib."""
    env_dir = tmp_path_factory.mktemp("bare-venv")
    venv.EnvBuilder(with_pip=False, symlinks=True).create(env_dir)
    python = env_dir / "bin" / "python"
    target = Path(
        subprocess.run(
            [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
    )
    source = Path(sysconfig.get_paths()["purelib"])
    for entry in source.iterdir():
        if not entry.name.startswith(NOT_LINKED):
            (target / entry.name).symlink_to(entry)
    check = subprocess.run([python, "-c", "import course_lib"], cwd=env_dir, capture_output=True)
    assert check.returncode != 0, "course_lib is importable before the setup cell ran"
    return str(python)


def run_in(python: str, nb, workdir: Path) -> None:
    NotebookClient(
        nb,
        km=nbtools.kernel_manager(python),
        timeout=600,
        resources={"metadata": {"path": str(workdir)}},
    ).execute()


def with_setup_cell(nb, repository: str):
    nb.cells[0].source = nbtools.setup_cell_source(repository)
    return nb


@pytest.fixture(scope="module")
def offline(tmp_path_factory):
    """pip without an index and without build isolation: nothing leaves the machine."""
    saved = {k: os.environ.get(k) for k in ("PIP_NO_INDEX", "PIP_NO_BUILD_ISOLATION")}
    os.environ["PIP_NO_INDEX"] = "1"
    os.environ["PIP_NO_BUILD_ISOLATION"] = "0"  # pip's spelling of --no-build-isolation
    yield
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


def test_setup_cell_installs_the_library_and_the_notebooks_run(
    repository, bare_python, offline, tmp_path
):
    chapter = with_setup_cell(nbtools.read(CHAPTER), repository)
    run_in(bare_python, chapter, tmp_path)

    errors = [
        o
        for c in chapter.cells
        if c.cell_type == "code"
        for o in c.outputs
        if o.output_type == "error"
    ]
    assert not errors, errors[0]
    # after installing, the setup cell prints the doctor's one-line summary
    printed = "".join(o.get("text", "") for o in chapter.cells[0].outputs)
    summary = [line for line in printed.splitlines() if line.startswith("course_lib ")]
    assert len(summary) == 1 and "| torch " in summary[0], printed
    where = subprocess.run(
        [bare_python, "-c", "import course_lib.checks as c; print(c.__file__)"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "site-packages" in where and str(ROOT) not in where, where

    student = with_setup_cell(make_student.build_student(CHAPTER, keep_solutions=True), repository)
    run_in(bare_python, student, tmp_path)
    checks = [c for c in student.cells if c.cell_type == "code" and c.source.startswith("check_")]
    assert checks
    for cell in checks:
        text = "".join(o.get("text", "") for o in cell.outputs)
        assert text.startswith("✓"), f"{cell.source!r} printed {text!r}"
