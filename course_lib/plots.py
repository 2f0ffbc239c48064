"""Figures used across the book. Every function takes data (arrays, tensors, lists), never a
model, and returns a ``matplotlib.figure.Figure`` with a title and labelled axes.

Nothing here changes matplotlib's global style. In a notebook, assign the result
(``fig = plot_losses(...)``) so the inline backend shows the figure once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
import torch
from matplotlib.figure import Figure

from course_lib.data import CLOCKWISE, CORNERS, nearest_corner

__all__ = ["plot_losses", "plot_squares"]

SOURCE_COLOR, TARGET_COLOR, PREDICTED_COLOR = "tab:blue", "tab:green", "tab:red"


def _numpy(x) -> np.ndarray:
    if isinstance(x, torch.Tensor):
        return x.detach().cpu().numpy()
    return np.asarray(x)


def plot_losses(
    curves: Mapping[str, Sequence[float]],
    title: str = "Loss per epoch",
    ylabel: str = "MSE loss",
    logy: bool = True,
    figsize: tuple[float, float] = (8, 4),
) -> Figure:
    """Plot named loss curves against the epoch number.

    Args:
        curves: ``{"training": trainer.losses, "validation": trainer.val_losses, ...}``.
        title: figure title.
        ylabel: label of the loss axis.
        logy: use a logarithmic loss axis (losses often fall by orders of magnitude).
        figsize: figure size in inches.
    """
    if not curves:
        raise ValueError("curves is empty: pass e.g. {'training': trainer.losses}")
    fig, ax = plt.subplots(figsize=figsize)
    for name, values in curves.items():
        values = list(values)
        if not values:
            raise ValueError(f"the curve {name!r} has no values: train for an epoch first")
        ax.plot(range(1, len(values) + 1), values, label=f"{name} (last {values[-1]:.4f})")
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel("epoch")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    return fig


def _draw_square(ax, source, target, predicted, direction, source_len: int) -> None:
    ax.plot(*np.vstack([CORNERS, CORNERS[:1]]).T, color="lightgray", ls="--", lw=1, zorder=0)
    ax.plot(*source.T, "o-", color=SOURCE_COLOR, ms=7, label="source")
    if target is not None and len(target):
        path = np.vstack([source[-1:], target])  # continue the line from the last source point
        ax.plot(*path.T, "-", color=TARGET_COLOR, alpha=0.5)
        ax.plot(*target.T, "s", color=TARGET_COLOR, ms=7, label="target")
    if predicted is not None:
        path = np.vstack([source[-1:], predicted])
        ax.plot(*path.T, ":", color=PREDICTED_COLOR)
        ax.plot(*predicted.T, "X", color=PREDICTED_COLOR, ms=8, label="predicted")
    for i, point in enumerate(np.vstack([source] + ([target] if target is not None else []))):
        ax.annotate(str(i + 1), point, textcoords="offset points", xytext=(6, 6), fontsize=9)
    name = "clockwise" if direction == CLOCKWISE else "counter-clockwise"
    ax.set_title(name, fontsize=10)
    ax.set_xlim(-1.7, 1.7)
    ax.set_ylim(-1.7, 1.7)
    ax.set_aspect("equal")
    ax.set_xticks([-1, 0, 1])
    ax.set_yticks([-1, 0, 1])


def plot_squares(
    points,
    directions,
    predicted=None,
    source_len: int = 2,
    n_cols: int = 5,
    title: str = "Square sequences",
    panel_size: float = 2.4,
) -> Figure:
    """One panel per sequence: source points, target points and (optionally) predictions.

    Points are numbered in the order they are visited. With ``predicted``, each panel title
    also says how many predicted points landed nearest the right corner.

    Args:
        points: full sequences ``(N, L, 2)`` (source followed by target).
        directions: ``(N,)`` labels, 1 = clockwise, 0 = counter-clockwise.
        predicted: optional predicted targets ``(N, L - source_len, 2)``.
        source_len: how many leading points are the source.
        n_cols: panels per row.
        title: figure title.
        panel_size: size of one panel in inches.
    """
    pts, dirs = _numpy(points).astype(float), _numpy(directions)
    if pts.ndim != 3 or pts.shape[-1] != 2:
        raise ValueError(f"points must have shape (N, L, 2), got {pts.shape}")
    if len(dirs) != len(pts):
        raise ValueError(f"got {len(pts)} sequences but {len(dirs)} directions")
    pred = None if predicted is None else _numpy(predicted).astype(float)
    if pred is not None and pred.shape != (len(pts), pts.shape[1] - source_len, 2):
        raise ValueError(
            f"predicted must have shape (N, L - source_len, 2) = "
            f"{(len(pts), pts.shape[1] - source_len, 2)}, got {pred.shape}"
        )
    n = len(pts)
    n_cols = min(n_cols, n)
    n_rows = -(-n // n_cols)
    fig, axes = plt.subplots(
        n_rows, n_cols, figsize=(panel_size * n_cols, (panel_size + 0.35) * n_rows + 0.7),
        squeeze=False,
    )
    for i, ax in enumerate(axes.flat):
        if i >= n:
            ax.axis("off")
            continue
        source, target = pts[i, :source_len], pts[i, source_len:]
        p = None if pred is None else pred[i]
        _draw_square(ax, source, target, p, dirs[i], source_len)
        if p is not None:
            right = int(np.sum(nearest_corner(p) == nearest_corner(target)))
            ax.set_title(f"{ax.get_title()}: {right}/{len(target)} right", fontsize=10)
        if i % n_cols == 0:
            ax.set_ylabel("$x_1$")
        if i // n_cols == n_rows - 1 or i + n_cols >= n:
            ax.set_xlabel("$x_0$")
    handles, labels = axes.flat[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=len(labels), frameon=False)
    fig.suptitle(title)
    fig.tight_layout(rect=(0, 0.05, 1, 1), h_pad=1.2)
    return fig
