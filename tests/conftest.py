"""Shared test settings: offline, CPU, one thread, no windows."""

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
