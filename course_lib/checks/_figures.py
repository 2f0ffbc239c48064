"""How the figure checks of ``checks.gps_pipeline`` read a returned figure back: its visible
axes, the lines through given points, metric axes, and what a missing track likely means."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import torch
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from course_lib.checks._core import CheckFailed, case_generator, variant
from course_lib.checks._describe import describe

FIG = "the matplotlib Figure (fig)"


def figure_axes(got, name: str) -> list[Axes]:
    """The visible axes of the figure a plotting answer returned; the figure is closed."""
    if not isinstance(got, Figure):
        raise CheckFailed(f"{name} should return {FIG}, got {describe(got)}")
    plt.close(got)  # read back, not shown a second time
    return [ax for ax in got.axes if ax.get_visible()]


def has_line_through(ax: Axes, xy: np.ndarray, atol: float = 0.5) -> bool:
    """Whether a line of ``ax`` passes through the points ``xy`` ``(L, 2)``, in order."""
    for line in ax.get_lines():
        try:
            data = np.column_stack([np.asarray(v, dtype=np.float64) for v in line.get_data()])
        except (TypeError, ValueError):  # a line of labels or dates: not a track
            continue
        for start in range(len(data) - len(xy) + 1):  # the points may follow other ones
            if np.allclose(data[start : start + len(xy)], xy, atol=atol):
                return True
    return False


def metric_map(ax: Axes, name: str) -> None:
    """Equal axes, labelled in metres."""
    if ax.get_aspect() not in ("equal", 1.0):
        raise CheckFailed(
            f"{name}: use equal axes (ax.set_aspect('equal')), or a metre east "
            "and a metre north look different"
        )
    if "m" not in ax.get_xlabel() or "m" not in ax.get_ylabel():
        raise CheckFailed(f"{name}: label both axes with their unit, e.g. 'east (m)'")


def missing_track(
    ax: Axes, xy: np.ndarray, degrees: np.ndarray, what: str, name: str
) -> CheckFailed:
    """The error for a track that is not on the map, naming the likely cause."""
    if has_line_through(ax, xy[:, ::-1]):
        return CheckFailed(
            f"{name}: the {what} are drawn with east and north swapped: "
            "x is east (metres), y is north"
        )
    if has_line_through(ax, degrees, atol=1e-9) or has_line_through(
        ax, degrees[:, ::-1], atol=1e-9
    ):
        return CheckFailed(
            f"{name}: the {what} are drawn in degrees: convert them to metres with to_local first"
        )
    return CheckFailed(
        f"{name}: no line of the figure passes through the {what} "
        f"(expected these metres:\n{np.round(xy, 1)})"
    )


def maybe_shuffled(seed: int, observed, future):
    """``observed`` and ``future`` as given, or inside ``unseen_cases`` with their
    trajectories in a random order, so the first ``n`` are other ones."""
    if not variant():
        return observed, future
    order = torch.randperm(len(observed), generator=case_generator(seed)).numpy()
    return observed[order], future[order]
