"""Shared helpers for the book's notebook tooling (execute, student notebooks, setup cells).

These tools serve the *book*, not the library, so they live here and not in course_lib.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import nbformat
import yaml
from jupyter_client.kernelspec import KernelSpec, KernelSpecManager
from jupyter_client.manager import KernelManager

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = ROOT / "chapters"
EXERCISES = ROOT / "exercises"
SETUP_TAG = "course-setup"
NB_VERSION = 4


def repository_url() -> str:
    """The book's repository, from ``_config.yml`` -- the one place it is written."""
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    url = config["repository"]["url"].rstrip("/")
    branch = config["repository"].get("branch", "main")
    return f"{url}@{branch}" if branch else url


def setup_cell_source(repository: str | None = None) -> str:
    """Source of the cell every notebook starts with (``repository``: pip's ``git+`` target)."""
    return (
        "# Setup: on Colab (or any Python without the course library) install course_lib\n"
        "# from the book's repository and print one line about this machine (paste it into\n"
        "# a bug report). Where it is already installed this does nothing. The magic makes\n"
        "# figures appear in the cell that draws them with older matplotlib releases too.\n"
        "%matplotlib inline\n"
        "import importlib.util\n"
        "\n"
        'if importlib.util.find_spec("course_lib") is None:\n'
        f'    %pip install --quiet "course-lib @ git+{repository or repository_url()}"\n'
        "    importlib.invalidate_caches()\n"
        "    from course_lib.doctor import summary_line\n"
        "\n"
        "    print(summary_line())"
    )


def new_setup_cell() -> nbformat.NotebookNode:
    cell = nbformat.v4.new_code_cell(setup_cell_source())
    cell.metadata["tags"] = [SETUP_TAG, "remove-cell"]
    return cell


def has_current_setup_cell(nb: nbformat.NotebookNode) -> bool:
    return (
        bool(nb.cells)
        and nb.cells[0].cell_type == "code"
        and (
            nb.cells[0].source == setup_cell_source()
            and SETUP_TAG in nb.cells[0].metadata.get("tags", [])
        )
    )


def sync_setup_cell(nb: nbformat.NotebookNode) -> bool:
    """Make the first cell the current setup cell; return True if anything changed."""
    if has_current_setup_cell(nb):
        return False
    first = nb.cells[0] if nb.cells else None
    if first is not None and SETUP_TAG in first.metadata.get("tags", []):
        first.source = setup_cell_source()
        first.metadata["tags"] = [SETUP_TAG, "remove-cell"]
    else:
        nb.cells.insert(0, new_setup_cell())
    return True


class _ThisInterpreter(KernelSpecManager):
    """Kernel specs that always name one interpreter (by default the one running the tools)."""

    def __init__(self, python: str | None = None, **kwargs):
        super().__init__(**kwargs)
        self.python = python or sys.executable

    def get_kernel_spec(self, kernel_name: str) -> KernelSpec:
        return KernelSpec(
            argv=[self.python, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
            display_name=f"Python ({self.python})",
            language="python",
        )


def kernel_manager(python: str | None = None) -> KernelManager:
    """A kernel manager for this interpreter, whatever ``python3`` kernelspec is installed.

    Pass it to ``nbclient.NotebookClient(nb, km=kernel_manager())``: notebooks then run with
    the packages of the environment that runs the tools, never a user's other Python.
    ``python`` names another interpreter (the tests use a bare environment).
    """
    return KernelManager(
        kernel_name="course-venv", kernel_spec_manager=_ThisInterpreter(python=python)
    )


def chapter_notebooks() -> list[Path]:
    return sorted(CHAPTERS.glob("*.ipynb"))


def student_notebooks() -> list[Path]:
    return sorted(EXERCISES.glob("*.ipynb"))


def read(path: Path) -> nbformat.NotebookNode:
    return nbformat.read(path, as_version=NB_VERSION)


def write(nb: nbformat.NotebookNode, path: Path) -> None:
    nbformat.validate(nb)
    path.write_text(nbformat.writes(nb) + "\n", encoding="utf-8")


# -- stream clean-up, the same rules nbval applies before comparing ------------------------

_CARRIAGE_RETURN = re.compile(r"^.*\r(?=[^\n])", re.MULTILINE)


def coalesce_streams(outputs: list) -> list:
    """Merge stream outputs per name and drop text overwritten by ``\\r``, as nbval does.

    A tqdm bar then keeps only its final state, so the committed output is exactly what
    nbval compares against.
    """
    merged, streams = [], {}
    for out in outputs:
        if out.get("output_type") == "stream":
            if out["name"] in streams:
                streams[out["name"]]["text"] += out["text"]
                continue
            streams[out["name"]] = out
        merged.append(out)
    for out in streams.values():
        out["text"] = _CARRIAGE_RETURN.sub("", out["text"])
    return merged
