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

__all__ = ["plot_losses", "attention_heatmap", "attention_heatmaps", "plot_query_keys", "to_numpy"]


def to_numpy(x) -> np.ndarray:
    """A NumPy array of a tensor (detached, on the CPU) or of anything array-like."""
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

    With more than two curves the legend sits to the right of the axes, where it cannot hide
    one of them.
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
    if len(curves) <= 2:
        ax.legend()
    else:  # more curves than "best" can dodge: the legend goes beside the axes
        ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0)
    fig.tight_layout()
    return fig


def _heatmap(
    ax,
    w: np.ndarray,
    x_labels,
    y_labels,
    annotate: bool,
    vmax: float,
    label_every: int = 1,
    x_rotation: float = 0.0,
) -> object:
    image = ax.imshow(w, cmap="viridis", vmin=0.0, vmax=vmax, aspect="auto")
    for axis, labels, n in ((ax.xaxis, x_labels, w.shape[1]), (ax.yaxis, y_labels, w.shape[0])):
        ticks = list(range(0, n, label_every))
        axis.set_ticks(ticks)
        axis.set_ticklabels([labels[i] if labels is not None else i for i in ticks])
    if x_rotation:
        ax.tick_params(axis="x", labelrotation=x_rotation)
        for label in ax.get_xticklabels():
            label.set_horizontalalignment("right")
    if annotate:
        for (i, j), value in np.ndenumerate(w):
            color = "black" if value > 0.6 * vmax else "white"
            ax.text(j, i, f"{value:.2f}", ha="center", va="center", color=color, fontsize=9)
    return image


def _weights_2d(weights, name: str = "weights") -> np.ndarray:
    w = to_numpy(weights).astype(float)
    if w.ndim == 3 and w.shape[0] == 1:
        w = w[0]
    if w.ndim != 2:
        raise ValueError(f"{name} must be one (T, S) matrix, got shape {w.shape}")
    return w


def attention_heatmap(
    weights,
    x_labels: Sequence[str] | None = None,
    y_labels: Sequence[str] | None = None,
    title: str = "Attention weights",
    xlabel: str = "key (source)",
    ylabel: str = "query (target)",
    annotate: bool = True,
    figsize: tuple[float, float] | None = None,
    vmax: float | None = 1.0,
    label_every: int = 1,
    cbar_label: str = "weight",
) -> Figure:
    """Heatmap of one attention matrix: a row per query, a column per key.

    Args:
        weights: ``(T, S)`` (or ``(1, T, S)``) tensor or array; rows normally sum to 1.
        x_labels: names of the ``S`` keys; y_labels: names of the ``T`` queries.
        annotate: write each weight in its cell (for small matrices).
        vmax: top of the colour scale; 1.0 makes heatmaps comparable, ``None`` uses the
            largest weight (for large matrices whose weights are all small).
        label_every: label every n-th row and column (for large matrices).
        cbar_label: label of the colour bar.
    """
    if label_every < 1:
        raise ValueError(f"label_every must be at least 1, got {label_every}")
    w = _weights_2d(weights)
    if x_labels is not None and len(x_labels) != w.shape[1]:
        raise ValueError(f"{len(x_labels)} x_labels for {w.shape[1]} keys")
    if y_labels is not None and len(y_labels) != w.shape[0]:
        raise ValueError(f"{len(y_labels)} y_labels for {w.shape[0]} queries")
    if figsize is None:
        figsize = (min(1.2 * w.shape[1] + 2.5, 12), min(0.8 * w.shape[0] + 1.8, 10))
    fig, ax = plt.subplots(figsize=figsize)
    top = float(w.max()) if vmax is None else vmax
    image = _heatmap(ax, w, x_labels, y_labels, annotate, vmax=top, label_every=label_every)
    fig.colorbar(image, ax=ax, label=cbar_label)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    fig.tight_layout()
    return fig


def attention_heatmaps(
    weights,
    titles: Sequence[str] | None = None,
    x_labels: Sequence[str] | None = None,
    y_labels: Sequence[str] | None = None,
    n_cols: int = 4,
    title: str = "Attention weights",
    xlabel: str = "key (source)",
    ylabel: str = "query (target)",
    panel_size: float = 2.6,
    x_rotation: float = 0.0,
) -> Figure:
    """A grid of small annotated heatmaps, one per matrix of ``weights`` ``(N, T, S)``.

    ``x_rotation`` turns the key labels by that many degrees (for long words).
    """
    w = to_numpy(weights).astype(float)
    if w.ndim != 3:
        raise ValueError(f"weights must be (N, T, S), got shape {w.shape}")
    if titles is not None and len(titles) != len(w):
        raise ValueError(f"{len(titles)} titles for {len(w)} matrices")
    n = len(w)
    n_cols = min(n_cols, n)
    n_rows = -(-n // n_cols)
    fig, axes = plt.subplots(
        n_rows,
        n_cols,
        figsize=(panel_size * n_cols + 1.0, (panel_size * 0.8 + 0.5) * n_rows + 0.6),
        squeeze=False,
        layout="constrained",
    )
    image = None
    for i, ax in enumerate(axes.flat):
        if i >= n:
            ax.axis("off")
            continue
        image = _heatmap(
            ax, w[i], x_labels, y_labels, annotate=True, vmax=1.0, x_rotation=x_rotation
        )
        if titles is not None:
            ax.set_title(titles[i], fontsize=9)
        if i % n_cols == 0:
            ax.set_ylabel(ylabel)
        else:  # every panel has the same rows: label them once, on the left
            ax.tick_params(labelleft=False)
        if i + n_cols >= n:
            ax.set_xlabel(xlabel)
    fig.suptitle(title)
    fig.colorbar(image, ax=axes, label="weight", shrink=0.8)
    return fig


def plot_query_keys(
    query,
    keys,
    context=None,
    key_labels: Sequence[str] | None = None,
    title: str = "Query and keys",
    figsize: tuple[float, float] = (5.5, 5.5),
) -> Figure:
    """Arrows from the origin for a 2-D query, its keys and (optionally) the context vector.

    Each key is annotated with its dot product with the query, split into
    ``cos(theta) * |q| * |k|`` -- the picture behind dot-product scoring.

    Args:
        query: ``(2,)``; keys: ``(S, 2)``; context: optional ``(2,)``.
    """
    q = to_numpy(query).astype(float).reshape(-1)
    k = to_numpy(keys).astype(float)
    if q.shape != (2,) or k.ndim != 2 or k.shape[1] != 2:
        raise ValueError(f"query must be (2,) and keys (S, 2), got {q.shape} and {k.shape}")
    labels = key_labels or [f"$k_{i}$" for i in range(len(k))]
    fig, ax = plt.subplots(figsize=figsize)
    ax.add_patch(plt.Circle((0, 0), 1.0, fill=False, color="lightgray", ls="--"))
    ax.arrow(0, 0, *q, color="black", width=0.01, length_includes_head=True, head_width=0.05)
    ax.annotate("$q$", q, textcoords="offset points", xytext=(6, 6), fontsize=12)
    qn = np.linalg.norm(q)
    lines = []
    for label, key in zip(labels, k, strict=True):
        kn = np.linalg.norm(key)
        cos = float(q @ key / (qn * kn)) if qn and kn else 0.0
        ax.arrow(
            0, 0, *key, color="tab:blue", width=0.01, length_includes_head=True, head_width=0.05
        )
        ax.annotate(
            label, key, textcoords="offset points", xytext=(6, -12), fontsize=12, color="tab:blue"
        )
        lines.append(f"$q \\cdot${label} = {cos:.2f} x {qn:.2f} x {kn:.2f} = {q @ key:.2f}")
    ax.text(
        0.02,
        0.02,
        "cos x |q| x |k| = dot product\n" + "\n".join(lines),
        transform=ax.transAxes,
        fontsize=9,
        va="bottom",
        bbox={"facecolor": "white", "alpha": 0.85, "edgecolor": "lightgray"},
    )
    if context is not None:
        c = to_numpy(context).astype(float).reshape(-1)
        ax.arrow(0, 0, *c, color="tab:red", width=0.012, length_includes_head=True, head_width=0.05)
        d = c / (np.linalg.norm(c) or 1.0)  # label beyond the tip, clear of the keys' labels
        ax.annotate(
            "context",
            c,
            textcoords="offset points",
            xytext=(10 * d[0], 10 * d[1]),
            ha="left" if d[0] >= 0 else "right",
            va="center",
            fontsize=11,
            color="tab:red",
        )
    ax.set_xlim(-1.6, 1.6)
    ax.set_ylim(-2.1, 1.6)
    ax.set_aspect("equal")
    ax.axhline(0, color="gray", lw=0.5)
    ax.axvline(0, color="gray", lw=0.5)
    ax.set_xlabel("dimension 0")
    ax.set_ylabel("dimension 1")
    ax.set_title(title)
    fig.tight_layout()
    return fig
