"""The views inside JupyterLab 4 and Notebook 7 (``tools/check_views_in_jupyter.py``), where
students open the chapters: a notebook of every kind of view, trusted and as downloaded.

Trusted: every view runs, Tab reaches a token, and arrows, Jupyter's letter shortcuts and
Enter pressed on every kind of control change the view, never the notebook. As downloaded
(not trusted): every view shows its picture and caption and no script runs; the command
palette's *Trust Notebook*, as the caption says, brings every view to life. No request
leaves the local server. Skipped, with the reason, where Chromium, Playwright or JupyterLab
is missing; ``COURSE_REQUIRE_BROWSER=1`` (CI) turns that skip into a failure.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import sys
from pathlib import Path

import nbformat
import pytest
import torch

from course_lib.masking import causal_mask, sliding_window_mask
from course_lib.positional import sinusoidal_encoding
from course_lib.views import (
    book_page,
    encoder_decoder_view,
    mask_view,
    offset_view,
    positions_view,
    score_view,
    trajectory_view,
)

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))


def _views() -> list:
    from test_views import translator_weights
    from test_views_trajectory import tracks

    g = torch.Generator().manual_seed(0)
    w, src, tgt = translator_weights()
    T = 5
    return [
        encoder_decoder_view(w, src, tgt, title="A translator", link=book_page("05_translation")),
        mask_view(
            {"causal": causal_mask(T), "window": {k: sliding_window_mask(T, k) for k in (1, 2, 3)}},
            list("abcde"),
        ),
        positions_view(sinusoidal_encoding(32, 16)),
        offset_view({"a": torch.randn(8, 8, generator=g), "b": torch.randn(8, 8, generator=g)}),
        score_view(
            torch.randn(3, 4, generator=g),
            torch.randn(5, 4, generator=g),
            mask=torch.tensor([False, False, False, True, True]),
        ),
        trajectory_view(*tracks()),
    ]


def test_the_views_in_jupyterlab_and_notebook_7(tmp_path):
    missing = [
        name
        for name, there in [
            ("Chromium", shutil.which("chromium") or shutil.which("chromium-browser")),
            ("Playwright", importlib.util.find_spec("playwright")),
            ("JupyterLab", importlib.util.find_spec("jupyterlab")),
            ("Notebook 7", importlib.util.find_spec("notebook")),
        ]
        if not there
    ]
    if missing:
        reason = (
            f"{', '.join(missing)} missing (requirements.txt; Debian: apt-get install chromium)"
        )
        if os.environ.get("COURSE_REQUIRE_BROWSER"):
            pytest.fail(f"COURSE_REQUIRE_BROWSER is set but {reason}")
        pytest.skip(reason)
    import check_views_in_jupyter as check

    nb = nbformat.v4.new_notebook()
    views = _views()
    for i, view in enumerate(views):
        cell = nbformat.v4.new_code_cell(f"view_{i}")
        data = {"text/html": view.html, "text/plain": repr(view)}
        cell.outputs = [nbformat.v4.new_output("display_data", data=data)]
        nb.cells.append(cell)
    nbformat.write(nb, tmp_path / "views.ipynb")
    record = tmp_path / "record.json"
    status = check.main(["--notebook", str(tmp_path / "views.ipynb"), "--record", str(record)])
    found = json.loads(record.read_text(encoding="utf-8"))
    trusted, downloaded = found["results"][:2], found["results"][2:]
    for front in trusted:
        assert front["views ready"] == len(views), front
        assert front["keyboard reached"], front
        assert front["notebook changed by"] == [], front
        assert front["view moved on ArrowDown"] >= len(views) - 2, front  # sliders aside
        assert front["requests outside the local server"] == [], front
    for front in downloaded:
        assert front["pictures shown (untrusted)"] == len(views), front
        assert front["captions"] == len(views), front
        assert front["views running (untrusted)"] == 0, front
        assert front["trusted by the palette"], front
        assert front["views running after trust"] == len(views), front
    assert status == 0 and found["ok"]
