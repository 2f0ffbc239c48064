"""Shared test settings: offline, CPU, one thread, no windows."""

import os
import shutil
import sys
from pathlib import Path

import matplotlib
import pytest
import torch

matplotlib.use("Agg")
torch.set_num_threads(1)

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    import matplotlib.pyplot as plt

    plt.close("all")


@pytest.fixture
def reversal_task():
    """A real training of a translation model, shared by the Transformer's and the GRU's
    tests: reverse sentences of 2-5 random words (vocabulary of 12, ids 4-11), trained with
    the library's one loop (:class:`~course_lib.train.Trainer` over re-shuffled
    :class:`~course_lib.vocab.PairBatches`). Returns ``run(model, optimizer, **trainer_options)
    -> how many of 100 held-out sentences came out exactly reversed``."""
    from course_lib.decoding import greedy_decode
    from course_lib.train import Trainer
    from course_lib.translation import translation_loss
    from course_lib.vocab import EOS, PAD, PairBatches, pad

    def pairs(n, seed):
        g = torch.Generator().manual_seed(seed)
        out = []
        for length in torch.randint(2, 6, (n,), generator=g).tolist():
            words = torch.randint(4, 12, (length,), generator=g).tolist()
            out.append((words + [EOS], words[::-1] + [EOS]))
        return out

    def run(model, optimizer, epochs=40, **options):
        trainer = Trainer(model, translation_loss, optimizer, "cpu", ignore_index=PAD, **options)
        batches = PairBatches(pairs(512, 0), 32, shuffle=True, generator=torch.Generator())
        trainer.fit(batches, epochs=epochs, seed=0, progress=False)
        held_out = pairs(100, 1)
        out = greedy_decode(model, pad([s for s, _ in held_out]), max_new_tokens=8)
        return sum(out[i, : len(t)].tolist() == t for i, (_, t) in enumerate(held_out))

    return run


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def _missing(reason: str):
    if os.environ.get("COURSE_REQUIRE_BROWSER"):
        pytest.fail(f"COURSE_REQUIRE_BROWSER is set but {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def browser():
    """Debian's Chromium driven by Playwright (no browser downloaded), for the views' browser
    tests; skipped, saying why, where either is missing, and a failure under
    ``COURSE_REQUIRE_BROWSER=1`` (CI)."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("Playwright's Python package is not installed (pip install -r requirements.txt)")
    if CHROMIUM is None:
        _missing("no Chromium on this machine (Debian: apt-get install chromium)")
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"]
        )
        yield browser
        browser.close()
