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

from course_lib._foreign_names import explains_bad_calls
from course_lib._validate_basics import check_positive_int, check_type, type_name, warn_user

__all__ = ["plot_losses", "attention_heatmap", "attention_heatmaps", "plot_query_keys", "to_numpy"]


@explains_bad_calls()
def to_numpy(x) -> np.ndarray:
    """A NumPy array of a tensor (detached, on the CPU) or of anything array-like (a list
    of tensors too)."""
    if isinstance(x, torch.Tensor):
        return x.detach().cpu().numpy()
    if isinstance(x, (list, tuple)) and any(isinstance(v, torch.Tensor) for v in x):
        return np.asarray([to_numpy(v) for v in x])
    return np.asarray(x)


def _curve(name, values) -> list[float]:
    """One loss curve as floats (tensors and NumPy numbers too), or a clear error."""
    fix = "pass one number per epoch, e.g. {'training': trainer.losses}"
    if isinstance(values, (str, bytes, Mapping)) or not hasattr(values, "__iter__"):
        raise TypeError(
            f"the curve {name!r} must be a sequence of numbers, got {type_name(values)}: {fix}"
        )
    try:
        return [float(v.detach()) if isinstance(v, torch.Tensor) else float(v) for v in values]
    except (TypeError, ValueError, RuntimeError) as err:
        raise TypeError(
            f"the curve {name!r} must hold one number per epoch, got {type_name(values)}: "
            f"{fix}; store loss.item(), not the loss tensor"
        ) from err


def _labels(labels, name: str, count: int, what: str, whats: str) -> None:
    """``count`` labels for the ``what``, or a clear error (a str is one label per letter)."""
    if labels is None:
        return
    if isinstance(labels, str):
        raise TypeError(
            f"{name} must be a list of {count} labels, one per {what}, got {type_name(labels)}; "
            f"for a sentence, {name}=sentence.split()"
        )
    if len(labels) != count:
        raise ValueError(f"{len(labels)} {name} for {count} {whats}")


def _figsize(figsize, default: str) -> tuple[float, float]:
    """``figsize`` as a (width, height) pair of positive inches, or a clear error: one
    number (``figsize=6``) is not a size."""
    fix = f"pass a (width, height) pair in inches, e.g. figsize={default}"
    if isinstance(figsize, (str, bytes)) or not hasattr(figsize, "__len__") or len(figsize) != 2:
        raise TypeError(f"figsize must be a (width, height) pair, got {figsize!r}: {fix}")
    try:
        width, height = (float(v) for v in figsize)
    except (TypeError, ValueError):
        raise TypeError(
            f"figsize must be a (width, height) pair of numbers, got {figsize!r}: {fix}"
        ) from None
    if not (np.isfinite(width) and np.isfinite(height) and width > 0 and height > 0):
        raise ValueError(
            f"figsize must be a (width, height) pair of positive inches, got {figsize!r}: {fix}"
        )
    return width, height


def _check_scale(w: np.ndarray, name: str, top: float | None) -> None:
    """Warn about weights a heatmap would draw wrongly: NaN (blank cells) and values outside
    the colour scale ``[0, top]`` (drawn as its end colours)."""
    if np.isnan(w).any():
        warn_user(
            f"{name} contains NaN, drawn as blank cells: a query whose every key is masked?",
            UserWarning,
        )
    low, high = np.nanmin(w, initial=0.0), np.nanmax(w, initial=0.0)
    if low < -1e-6 or (top is not None and high > top * (1 + 1e-6) + 1e-6):
        scale = f"[0, {top:g}]" if top is not None else "[0, max]"
        warn_user(
            f"{name} holds values from {low:.3g} to {high:.3g}, outside the colour scale "
            f"{scale}: they are drawn as its end colours. Attention weights lie in [0, 1]; "
            "are these scores before the softmax?",
            UserWarning,
        )


@explains_bad_calls(
    yscale="plot_losses takes logy=: logy=False for a linear loss axis, logy=True (the default) for a log one"
)
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

    Raises:
        TypeError: ``curves`` that is not a dict (one list of losses: name it), a curve
            that is not numbers (loss tensors of many elements, a str), a ``title`` or
            ``ylabel`` that is not a str (``logy`` passed positionally), or a ``figsize``
            that is not a (width, height) pair.
        ValueError: no curves, or a curve without values.

    Warns about values a log axis cannot draw (zero or negative: ``logy=False``) and about
    NaN or infinite losses (a run that diverged), which leave gaps.
    """
    check_type(
        curves,
        "curves",
        Mapping,
        "a dict of named loss curves",
        "Name them: plot_losses({'training': trainer.losses, 'validation': trainer.val_losses}).",
    )
    if not curves:
        raise ValueError("curves is empty: pass e.g. {'training': trainer.losses}")
    for name, label, what in (("title", title, "the title"), ("ylabel", ylabel, "the axis label")):
        if isinstance(label, str):
            continue
        flag = ""
        if isinstance(label, (bool, np.bool_)):
            before = f"{title!r}, " if name == "ylabel" else ""
            flag = (
                f" A switch given positionally? The order is plot_losses(curves, title, "
                f"ylabel, logy): pass logy by name, plot_losses(curves, {before}"
                f"logy={bool(label)})"
            )
        raise TypeError(f"{name} must be a str, {what}, got {type_name(label)} {label!r}.{flag}")
    checked = {name: _curve(name, values) for name, values in curves.items()}
    for name, values in checked.items():
        if not values:
            raise ValueError(f"the curve {name!r} has no values: train for an epoch first")
        a = np.asarray(values)
        if not np.all(np.isfinite(a)):
            warn_user(
                f"the curve {name!r} holds NaN or infinite losses (did the run diverge?): "
                "they are not drawn",
                UserWarning,
            )
        if logy and np.any(a[np.isfinite(a)] <= 0):
            warn_user(
                f"the curve {name!r} holds values <= 0, which a log axis cannot draw: pass "
                "logy=False",
                UserWarning,
            )
    fig, ax = plt.subplots(figsize=_figsize(figsize, "(8, 4)"))
    for name, values in checked.items():
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


_PICK = {
    3: " Pick one matrix, e.g. weights[0] (the first sentence), or average: weights.mean(0).",
    4: " For (B, Nh, T, S) pick one, e.g. weights[0, 0] (first sentence, first head), or "
    "average the heads: weights[0].mean(0).",
    5: " A list of per-layer weights: pick a layer first, e.g. weights[-1][0, 0].",
}


def _weights_not_none(weights, name: str = "weights") -> None:
    """``None`` where attention weights belong: say where such a ``None`` comes from."""
    if weights is None:
        raise TypeError(
            f"{name} is None, not a tensor of attention weights: whatever produced it returned "
            "no weights -- a model without attention (attention='none'), a call without "
            "need_weights=True, or a function of yours that forgot its return statement. "
            "Pass the weights tensor itself."
        )


def _weights_2d(weights, name: str = "weights") -> np.ndarray:
    _weights_not_none(weights, name)
    if (
        isinstance(weights, tuple)
        and len(weights) == 2
        and all(isinstance(t, torch.Tensor) for t in weights)
    ):
        raise TypeError(
            f"{name} is a pair of tensors, shapes {tuple(weights[0].shape)} and "
            f"{tuple(weights[1].shape)}: an attention returns (output, weights); unpack it, "
            "output, weights = attention(...), and pass the weights"
        )
    w = to_numpy(weights).astype(float)
    if w.ndim == 3 and w.shape[0] == 1:
        w = w[0]
    if w.ndim != 2:
        raise ValueError(
            f"{name} must be one (T, S) matrix, got shape {w.shape}.{_PICK.get(w.ndim, '')}"
        )
    return w


@explains_bad_calls(
    xticklabels="course_lib calls seaborn's xticklabels x_labels= and its yticklabels y_labels=",
    yticklabels="course_lib calls seaborn's xticklabels x_labels= and its yticklabels y_labels=",
)
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

    Raises:
        ValueError: ``weights`` that are not one matrix (a batch, heads: the message says
            how to pick one), label counts that do not match it, ``label_every`` below 1.
        TypeError: ``weights`` None (a model without attention, or a missing ``return``);
            labels given as one str (a sentence: split it); a ``figsize`` that is not a
            (width, height) pair (one number).

    Warns about NaN weights and values outside the colour scale ``[0, vmax]`` (scores
    before the softmax).
    """
    if isinstance(label_every, bool) or not isinstance(label_every, (int, np.integer)):
        raise ValueError(f"label_every must be an integer, at least 1, got {label_every!r}")
    if label_every < 1:
        raise ValueError(f"label_every must be at least 1, got {label_every}")
    w = _weights_2d(weights)
    _labels(x_labels, "x_labels", w.shape[1], "key", "keys")
    _labels(y_labels, "y_labels", w.shape[0], "query", "queries")
    _check_scale(w, "weights", vmax)
    if figsize is None:
        figsize = (min(1.2 * w.shape[1] + 2.5, 12), min(0.8 * w.shape[0] + 1.8, 10))
    fig, ax = plt.subplots(figsize=_figsize(figsize, "(6, 4)"))
    top = float(w.max()) if vmax is None else vmax
    image = _heatmap(ax, w, x_labels, y_labels, annotate, vmax=top, label_every=label_every)
    fig.colorbar(image, ax=ax, label=cbar_label)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    fig.tight_layout()
    return fig


@explains_bad_calls(
    xticklabels="course_lib calls seaborn's xticklabels x_labels= and its yticklabels y_labels=",
    yticklabels="course_lib calls seaborn's xticklabels x_labels= and its yticklabels y_labels=",
    ncols="course_lib calls it n_cols=",
    nrows="attention_heatmaps takes no nrows: the rows follow from n_cols= and the number of matrices",
)
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

    Raises:
        ValueError: ``weights`` that are not ``(N, T, S)`` (for ``(B, Nh, T, S)`` the
            message says how to pick), empty, label or title counts that do not match,
            ``n_cols`` below 1.
        TypeError: ``weights`` None; labels or titles given as one str.

    Warns about NaN weights and weights outside ``[0, 1]``.
    """
    _weights_not_none(weights)
    w = to_numpy(weights).astype(float)
    if w.ndim != 3:
        hint = (
            " For (B, Nh, T, S), the heads of one sentence are weights[0]; every head of "
            "every sentence is weights.flatten(0, 1)."
            if w.ndim == 4
            else ""
        )
        raise ValueError(f"weights must be (N, T, S), got shape {w.shape}.{hint}")
    if len(w) == 0:
        raise ValueError(f"weights is empty, shape {w.shape}: nothing to draw")
    check_positive_int(n_cols, "n_cols")
    _labels(x_labels, "x_labels", w.shape[2], "key", "keys")
    _labels(y_labels, "y_labels", w.shape[1], "query", "queries")
    if isinstance(titles, str):
        raise TypeError(f"titles must be a list of {len(w)} titles, got {type_name(titles)}")
    if titles is not None and len(titles) != len(w):
        raise ValueError(f"{len(titles)} titles for {len(w)} matrices")
    _check_scale(w, "weights", 1.0)
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


@explains_bad_calls()
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

    Raises:
        ValueError: shapes other than these, or a label count that is not ``S``.
        TypeError: ``key_labels`` given as one str, or a ``figsize`` that is not a (width,
            height) pair.
    """
    q = to_numpy(query).astype(float).reshape(-1)
    k = to_numpy(keys).astype(float)
    if q.shape != (2,) or k.ndim != 2 or k.shape[1] != 2:
        raise ValueError(f"query must be (2,) and keys (S, 2), got {q.shape} and {k.shape}")
    if context is not None and to_numpy(context).size != 2:
        raise ValueError(f"context must be (2,), got {to_numpy(context).shape}")
    _labels(key_labels, "key_labels", len(k), "key", "keys")
    labels = key_labels or [f"$k_{i}$" for i in range(len(k))]
    fig, ax = plt.subplots(figsize=_figsize(figsize, "(5.5, 5.5)"))
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
