"""Sphinx extension of the book: execution statistics, and exercises numbered per chapter.

**Exercise numbers.** Sphinx numbers enumerable nodes (sphinx-exercise's exercises among
them) with one counter for the whole book unless the table of contents is numbered, so
Chapter 3's first exercise would be "Exercise 15". The student notebooks number each
chapter's exercises from 1 and the chapters refer to them that way ("exercise 4 tries
it"); :func:`_number_exercises_per_chapter` renumbers them 1, 2, ... in every document,
after Sphinx has assigned its numbers and before anything is written, so titles and
``{ref}``/``{numref}`` links agree with the student notebooks.

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


def _number_exercises_per_chapter(app, env) -> list[str]:
    for numbers in env.toc_fignumbers.values():
        exercises = numbers.get("exercise")
        if exercises:
            in_order = sorted(exercises, key=exercises.__getitem__)
            numbers["exercise"] = {ids: (n,) for n, ids in enumerate(in_order, start=1)}
    return []


def _nitpick_pairs(app, config):
    """``nitpick_ignore`` from _config.yml arrives as lists; Sphinx looks up tuples."""
    config.nitpick_ignore = {tuple(pair) for pair in config.nitpick_ignore or ()}


def setup(app):
    app.connect("config-inited", _nitpick_pairs)
    app.connect("doctree-read", _record_execution)
    # after Sphinx's own numbering (TocTreeCollector, default priority 500)
    app.connect("env-get-updated", _number_exercises_per_chapter, priority=900)
    return {"version": "1.0", "parallel_read_safe": False, "parallel_write_safe": True}
