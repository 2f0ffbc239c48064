"""Re-execute chapter notebooks in place, top to bottom, in a fresh kernel.

    python tools/execute.py [NOTEBOOK ...]      (default: every notebook in chapters/)

Before running, each notebook gets the current setup cell (from _config.yml). Afterwards its
stream outputs are coalesced as nbval does (a tqdm bar keeps its final line) and the run's
timing is stored in the notebook metadata (``course.execution``), which the book's
"Execution statistics" page shows, with the platform fingerprint (``course.platform``) that
decides where ``make test`` compares every output (see ``verification.py``). Notebooks run in
a kernel of the interpreter that runs this script, never another installed ``python3``.
A cell that raises stops the run with a non-zero exit.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

sys.path.insert(0, str(Path(__file__).resolve().parent))
import nbtools  # noqa: E402
import verification  # noqa: E402


def execute(path: Path, timeout: int) -> float:
    nb = nbtools.read(path)
    nbtools.sync_setup_cell(nb)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    client = NotebookClient(
        nb,
        km=nbtools.kernel_manager(),
        timeout=timeout,
        resources={"metadata": {"path": str(path.parent)}},
        record_timing=False,
    )
    start = time.time()
    client.execute()
    runtime = time.time() - start
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = nbtools.coalesce_streams(cell.outputs)
            cell.metadata.pop("execution", None)
    nb.metadata.setdefault("course", {})["execution"] = {
        "mtime": round(start, 1),
        "runtime": round(runtime, 1),
        "method": "make execute",
        "succeeded": True,
    }
    # the machine that produced these outputs: `make test` compares every output here only
    nb.metadata["course"]["platform"] = verification.fingerprint()
    nbtools.write(nb, path)
    return runtime


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", type=Path)
    parser.add_argument("--timeout", type=int, default=3600, help="seconds per cell")
    args = parser.parse_args()
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    paths = args.notebooks or nbtools.chapter_notebooks()
    for path in paths:
        print(f"executing {path} ...", flush=True)
        try:
            runtime = execute(path.resolve(), args.timeout)
        except CellExecutionError as err:
            print(f"FAILED: {path}\n{err}", file=sys.stderr)
            return 1
        print(f"  done in {runtime:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
