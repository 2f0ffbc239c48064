"""The lecture's "squares" data and its figure: noisy corners of a square, walked in one direction.

Every sequence visits the four corners of the square ``[-1, 1] x [-1, 1]``. It starts at
any corner and turns either clockwise or counter-clockwise; Gaussian noise moves each
corner a little. The sequence-to-sequence task of Chapters 1-4 sees the first two corners
(the *source*) and predicts the next two (the *target*), so the order matters: from the
same two source corners, the right answer depends on the direction the sequence turns.

Shapes (batch first throughout the library):

* ``N`` -- number of sequences
* ``L`` -- sequence length (4 corners)
* ``F`` -- features per point (2 coordinates)

Seeds: by default the generator is a *local* ``np.random.RandomState(seed)``, which draws
exactly what the lecture's ``np.random.seed(seed)`` did, so ``make_squares(256, seed=13)``
reproduces the lecture's training points to the last digit -- without touching NumPy's
global random state. Pass ``rng=np.random.default_rng(...)`` to use the modern
``np.random.Generator`` API instead (different numbers, same distribution).
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import torch
from matplotlib.figure import Figure
from torch.utils.data import TensorDataset

from course_lib._foreign_names import explains_bad_calls
from course_lib._validate_basics import check_positive_int, check_seed, type_name, warn_user
from course_lib.plots import to_numpy

__all__ = [
    "CORNERS",
    "CLOCKWISE",
    "COUNTER_CLOCKWISE",
    "make_squares",
    "square_walks",
    "signed_area",
    "split_source_target",
    "nearest_corner",
    "corner_accuracy",
    "seq2seq_datasets",
    "plot_squares",
]

#: The corners of the square in clockwise order (x right, y up), starting bottom-left.
CORNERS = np.array([[-1.0, -1.0], [-1.0, 1.0], [1.0, 1.0], [1.0, -1.0]])
#: Direction label of a clockwise sequence (as in the lecture).
CLOCKWISE = 1
#: Direction label of a counter-clockwise sequence.
COUNTER_CLOCKWISE = 0


def _points(x, name: str) -> np.ndarray:
    """``x`` as a float array (a tensor detached, on the CPU), or a clear error for the
    ``(points, directions)`` pair that :func:`make_squares` returns and for ragged lists."""
    if isinstance(x, tuple) and len(x) == 2 and np.ndim(x[1]) == 1 and np.ndim(x[0]) == 3:
        raise TypeError(
            f"{name} is a pair of arrays {np.shape(x[0])} and {np.shape(x[1])}: make_squares "
            f"returns (points, directions), unpack it first: points, directions = "
            "make_squares(...)"
        )
    if (
        isinstance(x, tuple)
        and len(x) == 2
        and np.ndim(x[0]) == 3
        and (x[1] is None or isinstance(x[1], (torch.Tensor, dict)))
    ):
        second = "None" if x[1] is None else type_name(x[1])
        raise TypeError(
            f"{name} is a tuple of 2, a tensor {tuple(np.shape(x[0]))} and {second}: the "
            "(predictions, weights) pair that a model or trainer.predict returns with "
            "need_weights=True. Unpack it first: predictions, weights = "
            f"trainer.predict(source, need_weights=True), and pass predictions as {name}"
        )
    try:
        return to_numpy(x).astype(float)
    except ValueError as err:
        if "inhomogeneous" in str(err) or "sequence" in str(err):
            raise ValueError(
                f"{name} is a ragged list: its sequences have different lengths, so they do "
                "not make one array (N, L, 2)"
            ) from err
        raise TypeError(f"{name} must hold numbers, got {type_name(x)}: {err}") from err


@explains_bad_calls()
def make_squares(
    n: int = 128,
    seed: int = 13,
    *,
    noise: float = 0.1,
    rng: np.random.Generator | np.random.RandomState | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Draw ``n`` noisy square sequences.

    Args:
        n: number of sequences.
        seed: seed of the local ``RandomState`` used when ``rng`` is not given.
        noise: standard deviation of the Gaussian noise added to every coordinate.
        rng: a NumPy ``Generator`` or ``RandomState`` to draw from instead of ``seed``.

    Shape:
        points ``(N, 4, 2)`` float64, directions ``(N,)`` int64 (1 = clockwise).

    Returns:
        ``(points, directions)``.

    Raises:
        TypeError: ``n`` or ``noise`` that is not a number, ``rng`` that is not a NumPy
            generator, a ``seed`` that is not an integer (a NumPy generator goes to ``rng=``).
        ValueError: ``n`` below 1, a negative or NaN ``noise``, a negative ``seed``.

    Warns:
        UserWarning: both ``seed`` (other than its default) and ``rng`` given: ``rng`` draws
            the numbers and ``seed`` is ignored.
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"n must be the number of sequences, an int, got {type_name(n)}")
    if n < 1:
        raise ValueError(f"n must be a positive number of sequences, got {n}")
    if isinstance(noise, bool) or not isinstance(noise, (int, float, np.integer, np.floating)):
        raise TypeError(f"noise must be a number (a standard deviation), got {type_name(noise)}")
    if np.isnan(noise):
        raise ValueError("noise is NaN")
    if noise < 0:
        raise ValueError(f"noise is a standard deviation and cannot be negative, got {noise}")
    generators = (np.random.Generator, np.random.RandomState)
    if isinstance(seed, generators):
        raise TypeError(
            f"seed must be an integer, got a NumPy {type(seed).__name__}: a generator goes to "
            f"rng=, make_squares({n}, rng=np.random.default_rng(13)); seed= takes the "
            f"integer of the lecture's RandomState, make_squares({n}, seed=13)"
        )
    if rng is None:
        rng = np.random.RandomState(check_seed(seed))
    elif isinstance(rng, generators) and seed != 13:  # 13: seed's default, not given
        warn_user(
            f"make_squares got both seed={seed!r} and rng=: the numbers are drawn from rng, "
            f"and seed is ignored (it does not seed rng). Pass one of them: seed={seed!r} "
            f"alone (the lecture's RandomState), or rng=np.random.default_rng({seed!r}) alone",
            UserWarning,
        )
    if isinstance(rng, np.random.Generator):
        starts = rng.integers(4, size=n)
        directions = rng.integers(2, size=n)
        normal = rng.standard_normal
    elif isinstance(rng, np.random.RandomState):
        starts = rng.randint(4, size=n)
        directions = rng.randint(2, size=n)
        normal = rng.standard_normal
    else:
        raise TypeError(
            f"rng must be np.random.Generator or np.random.RandomState, got {type(rng).__name__}"
        )
    points = np.empty((n, 4, 2))
    for i, (start, direction) in enumerate(zip(starts, directions, strict=True)):
        walk = CORNERS[(start + np.arange(4)) % 4]  # (4, 2) clockwise from `start`
        if direction == COUNTER_CLOCKWISE:
            walk = walk[::-1]  # (4, 2) the same corners walked the other way
        points[i] = walk + normal((4, 2)) * noise
    return points, directions.astype(np.int64)


@explains_bad_calls()
def square_walks() -> tuple[np.ndarray, np.ndarray]:
    """The 8 noise-free sequences: 4 starting corners, clockwise then counter-clockwise.

    Shape:
        points ``(8, 4, 2)``, directions ``(8,)``.
    """
    clockwise = [CORNERS[(start + np.arange(4)) % 4] for start in range(4)]
    counter = [walk[::-1] for walk in clockwise]
    directions = np.array([CLOCKWISE] * 4 + [COUNTER_CLOCKWISE] * 4, dtype=np.int64)
    return np.stack(clockwise + counter), directions


@explains_bad_calls()
def signed_area(points: np.ndarray | torch.Tensor) -> np.ndarray:
    """Shoelace area of each closed polygon: positive counter-clockwise, negative clockwise.

    Shape:
        points ``(N, L, 2)`` -> ``(N,)``.

    Raises:
        TypeError: the ``(points, directions)`` pair instead of the points.
        ValueError: points that are not ``(N, L, 2)``.
    """
    p = _points(points, "points")
    if p.ndim != 3 or p.shape[-1] != 2:
        raise ValueError(f"points must have shape (N, L, 2), got {tuple(p.shape)}")
    x, y = p[..., 0], p[..., 1]  # (N, L) each
    return 0.5 * np.sum(x * np.roll(y, -1, axis=1) - np.roll(x, -1, axis=1) * y, axis=1)


@explains_bad_calls(
    input_len="course_lib calls it source_len: split_source_target(points, source_len=2)"
)
def split_source_target(
    points: np.ndarray | torch.Tensor, source_len: int = 2
) -> tuple[torch.Tensor, torch.Tensor]:
    """Split full sequences into source (first ``source_len`` points) and target (the rest).

    Shape:
        points ``(N, L, F)`` -> source ``(N, S, F)``, target ``(N, L - S, F)`` as float32.

    Raises:
        TypeError: the ``(points, directions)`` pair instead of the points.
        ValueError: points that are not ``(N, L, F)``, a ``source_len`` that is not an
            integer leaving a point on each side.
    """
    seq = torch.as_tensor(_points(points, "points"), dtype=torch.float32)
    if seq.ndim != 3:
        raise ValueError(f"points must have shape (N, L, F), got {tuple(seq.shape)}")
    check_positive_int(source_len, "source_len")
    if not 0 < source_len < seq.shape[1]:
        raise ValueError(
            f"source_len must leave at least one point on each side: 0 < {source_len} < "
            f"{seq.shape[1]} (the sequence length)"
        )
    return seq[:, :source_len], seq[:, source_len:]


@explains_bad_calls()
def seq2seq_datasets(
    train_points: np.ndarray, test_points: np.ndarray, source_len: int = 2
) -> tuple[TensorDataset, TensorDataset]:
    """Training and validation datasets for the Trainer.

    Training items are ``(source, target, target)``: the model receives the source and the
    target (a recurrent decoder may use it for teacher forcing) and the loss compares its
    output with the last element. Validation items are ``(source, target)``: the model
    receives the source alone, so it cannot peek at the answer.

    Raises:
        TypeError, ValueError: as :func:`split_source_target`, naming ``train_points`` or
            ``test_points``.
    """
    train_points = _points(train_points, "train_points")
    if train_points.ndim >= 1 and train_points.shape[0] == 0:
        raise ValueError(
            f"train_points is empty, 0 sequences (shape {train_points.shape}): there is "
            "nothing to train on. The selection that built it kept no rows -- e.g. "
            "points[directions == k] for a label the data does not hold (np.unique(directions) "
            "lists them) -- and a shuffling DataLoader cannot even be built on it"
        )
    if isinstance(source_len, int) and 0 < train_points.shape[1] <= source_len:
        raise ValueError(
            f"train_points holds sequences of {train_points.shape[1]} points, too short to "
            f"split at source_len={source_len}: pass the whole sequences (make_squares' "
            "points), not a source and a target already split -- seq2seq_datasets splits "
            "them itself"
        )
    train_source, train_target = split_source_target(train_points, source_len)
    test_source, test_target = split_source_target(_points(test_points, "test_points"), source_len)
    return (
        TensorDataset(train_source, train_target, train_target),
        TensorDataset(test_source, test_target),
    )


@explains_bad_calls()
def nearest_corner(points: np.ndarray | torch.Tensor) -> np.ndarray:
    """Index (0-3, into :data:`CORNERS`) of the corner nearest to each point.

    Shape:
        points ``(..., 2)`` -> ``(...)``.

    Raises:
        ValueError: points whose last dimension is not 2.
    """
    p = _points(points, "points")
    if p.ndim == 0 or p.shape[-1] != 2:
        raise ValueError(f"points must end with 2 coordinates, got shape {tuple(p.shape)}")
    dist = np.linalg.norm(p[..., None, :] - CORNERS, axis=-1)  # (..., 4)
    return dist.argmin(axis=-1)


@explains_bad_calls()
def corner_accuracy(
    predicted: np.ndarray | torch.Tensor, target: np.ndarray | torch.Tensor
) -> float:
    """Fraction of predicted points that are nearest to the same corner as the true point.

    A readable companion to the MSE: 1.0 means every predicted point landed nearest the
    right corner, 0.25 is what guessing a corner at random would give.

    Raises:
        TypeError: the ``(predictions, weights)`` pair of ``need_weights=True`` not unpacked.
        ValueError: ``predicted`` and ``target`` of different shapes (the whole sequences
            instead of the target: :func:`split_source_target` gives the target).
    """
    pred = _points(predicted, "predicted")
    true = _points(target, "target")
    if pred.shape != true.shape:
        hint = (
            " Compare with the target points only: _, target = split_source_target(points)."
            if pred.ndim == true.ndim == 3 and pred.shape[1] < true.shape[1]
            else ""
        )
        raise ValueError(
            f"predicted and target must have the same shape, got {pred.shape} and "
            f"{true.shape}.{hint}"
        )
    return float(np.mean(nearest_corner(pred) == nearest_corner(true)))


# -- the figure ----------------------------------------------------------------------------

SOURCE_COLOR, TARGET_COLOR, PREDICTED_COLOR = "tab:blue", "tab:green", "tab:red"


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
    if predicted is not None:  # a prediction carries the number of the point it predicts
        labels: list[list] = []  # [point, text]: predictions that overlap share one label
        for i, point in enumerate(predicted, start=source_len + 1):
            near = [label for label in labels if np.linalg.norm(label[0] - point) < 0.3]
            if near:
                near[0][1] += f",{i}"
            else:
                labels.append([point, str(i)])
        for point, text in labels:
            ax.annotate(
                text,
                point,
                textcoords="offset points",
                xytext=(-12, -13),
                fontsize=9,
                color=PREDICTED_COLOR,
                fontweight="bold",
                ha="right",
            )
    name = "clockwise" if direction == CLOCKWISE else "counter-clockwise"
    ax.set_title(name, fontsize=10)
    ax.set_xlim(-1.7, 1.7)
    ax.set_ylim(-1.7, 1.7)
    ax.set_aspect("equal")
    ax.set_xticks([-1, 0, 1])
    ax.set_yticks([-1, 0, 1])


@explains_bad_calls()
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

    Points are numbered in the order they are visited; a predicted point carries the number
    of the target point it predicts, so the order stays readable where points overlap. With
    ``predicted``, each panel title also says how many predicted points landed nearest the
    right corner.

    Args:
        points: full sequences ``(N, L, 2)`` (source followed by target).
        directions: ``(N,)`` labels, 1 = clockwise, 0 = counter-clockwise.
        predicted: optional predicted targets ``(N, L - source_len, 2)``.
        source_len: how many leading points are the source.
        n_cols: panels per row.
        title: figure title.
        panel_size: size of one panel in inches.

    Raises:
        TypeError: the ``(points, directions)`` pair as ``points``; a number as ``predicted``
            (``n_cols`` passed third, positionally).
        ValueError: points that are not ``(N, L, 2)`` or are empty, directions that are not
            ``(N,)`` labels 0 and 1 (predictions go in ``predicted=``), predictions of the
            wrong shape, a ``source_len`` that leaves no target, or ``n_cols`` below 1.
    """
    pts, dirs = _points(points, "points"), to_numpy(directions)
    if pts.ndim != 3 or pts.shape[-1] != 2:
        raise ValueError(f"points must have shape (N, L, 2), got {pts.shape}")
    if len(pts) == 0:
        raise ValueError("points is empty (N = 0): nothing to draw")
    if dirs.ndim != 1:
        raise ValueError(
            f"directions must be (N,) labels (1 = clockwise, 0 = counter-clockwise), got "
            f"shape {dirs.shape}; predictions go in predicted=..."
        )
    if len(dirs) != len(pts):
        raise ValueError(f"got {len(pts)} sequences but {len(dirs)} directions")
    if not np.all(np.isin(dirs, (CLOCKWISE, COUNTER_CLOCKWISE))):
        raise ValueError(
            f"directions must be 1 (clockwise) or 0 (counter-clockwise), got values "
            f"{np.unique(dirs).tolist()[:5]}"
        )
    check_positive_int(source_len, "source_len")
    check_positive_int(n_cols, "n_cols")
    if source_len >= pts.shape[1]:
        raise ValueError(
            f"source_len={source_len} leaves no target in sequences of {pts.shape[1]} points"
        )
    if isinstance(predicted, (bool, int, float, np.integer, np.floating)):
        raise TypeError(
            f"predicted must be the predicted targets, an array or tensor (N, L - source_len, "
            f"2), got {type_name(predicted)} {predicted!r}: the third positional argument of "
            f"plot_squares(points, directions, predicted) is predicted. Pass the other "
            f"settings by keyword, e.g. plot_squares(points, directions, n_cols={predicted!r})"
        )
    pred = None if predicted is None else _points(predicted, "predicted")
    if pred is not None and pred.shape != (len(pts), pts.shape[1] - source_len, 2):
        raise ValueError(
            f"predicted must have shape (N, L - source_len, 2) = "
            f"{(len(pts), pts.shape[1] - source_len, 2)}, got {pred.shape}"
        )
    n = len(pts)
    n_cols = min(n_cols, n)
    n_rows = -(-n // n_cols)
    fig, axes = plt.subplots(
        n_rows,
        n_cols,
        figsize=(panel_size * n_cols, (panel_size + 0.35) * n_rows + 0.7),
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
