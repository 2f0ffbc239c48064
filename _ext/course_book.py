"""Sphinx extension of the book: execution statistics from the committed notebooks.

The site is built from the outputs committed with each notebook (no execution at build
time), so myst-nb has no execution data of its own for ``{nb-exec-table}``. ``make execute``
records each run in the notebook's metadata (``course.execution``); this extension hands
that record to myst-nb, so the "Execution statistics" page shows when and how fast every
committed output was produced.
"""

from __future__ import annotations

import json
from pathlib import Path

from myst_nb.sphinx_ import NbMetadataCollector


def _record_execution(app, doctree) -> None:
    env = app.env
    path = Path(env.doc2path(env.docname))
    if path.suffix != ".ipynb":
        return
    meta = json.loads(path.read_text(encoding="utf-8")).get("metadata", {})
    run = meta.get("course", {}).get("execution")
    if not run:
        return
    NbMetadataCollector.set_exec_data(
        env,
        env.docname,
        {
            "mtime": float(run["mtime"]),
            "runtime": float(run["runtime"]),
            "method": str(run.get("method", "make execute")),
            "succeeded": bool(run.get("succeeded", True)),
            "error": None,
            "traceback": None,
        },
    )


def setup(app):
    app.connect("doctree-read", _record_execution)
    return {"version": "1.0", "parallel_read_safe": False, "parallel_write_safe": True}
