"""The project's tools run notebooks in the venv's own kernel, whatever kernelspecs exist.

A user may have a ``python3`` kernelspec that points at another Python (a conda base, a
system interpreter without torch). ``tools/execute.py`` and the student-notebook tests must
not pick it up: they start ``nbtools.kernel_manager()``, a kernel of the running interpreter.
"""

import json
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

import nbtools

ROOT = Path(__file__).resolve().parents[1]


def test_a_broken_python3_kernelspec_is_not_used(tmp_path, monkeypatch):
    spec = tmp_path / "kernels" / "python3"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(
        json.dumps(
            {
                "argv": [
                    "/nonexistent/python",
                    "-m",
                    "ipykernel_launcher",
                    "-f",
                    "{connection_file}",
                ],
                "display_name": "someone else's Python",
                "language": "python",
            }
        )
    )
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path))
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("import sys; print(sys.executable)")]
    NotebookClient(nb, km=nbtools.kernel_manager(), timeout=60).execute()
    assert nb.cells[0].outputs[0]["text"].strip() == sys.executable


def test_the_tools_never_ask_for_a_kernel_by_name():
    needle = "kernel_name=" + '"python3"'
    for path in [*(ROOT / "tools").glob("*.py"), *(ROOT / "tests").glob("test_*.py")]:
        text = path.read_text(encoding="utf-8")
        assert needle not in text, f"{path.name} asks for the python3 kernel"
