"""The lecture's data loaders and training loop for the squares (its ``StepByStep``).

The lecture trains every model of Chapters 2-4 with a helper class that seeds PyTorch and
the training loader's shuffling with the same number (42) before the first epoch, trains
with the mean squared error and validates after every epoch. :func:`lecture_train` does
exactly that, so that the chapters reproduce the lecture's runs number for number; Chapter
2 builds it, later chapters import it. New code trains with
:class:`course_lib.train.Trainer`.

Letters: ``N`` sequences, ``L`` points per sequence (source and target), ``F`` features.
"""

from __future__ import annotations

import sys

import numpy as np
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset
from tqdm.std import tqdm

__all__ = ["lecture_loaders", "lecture_train"]


def lecture_loaders(
    points: np.ndarray,
    val_points: np.ndarray,
    *,
    source_len: int = 2,
    batch_size: int = 16,
) -> tuple[DataLoader, DataLoader]:
    """The lecture's loaders: whole sequences to train on, sources to validate.

    Training items are ``(sequence, target)``: the model sees the whole sequence (its
    decoder may be fed the true points); validation items are ``(source, target)``. The
    training loader shuffles with a ``torch.Generator`` of its own, which
    :func:`lecture_train` seeds.

    Args:
        points: training sequences, ``(N, L, F)``.
        val_points: validation sequences, ``(N', L, F)``.
        source_len: points per source; the rest is the target.
        batch_size: sequences per batch.

    Returns:
        ``(train_loader, val_loader)``.

    Raises:
        ValueError: if the arrays are not ``(N, L, F)`` with ``0 < source_len < L``.
    """
    full_train = torch.as_tensor(points).float()  # (N, L, F)
    full_val = torch.as_tensor(val_points).float()  # (N', L, F)
    for name, seqs in (("points", full_train), ("val_points", full_val)):
        if seqs.dim() != 3 or not 0 < source_len < seqs.shape[1]:
            raise ValueError(
                f"{name} must be (N, L, F) sequences longer than source_len="
                f"{source_len}, got {tuple(seqs.shape)}"
            )
    train_loader = DataLoader(
        TensorDataset(full_train, full_train[:, source_len:]),
        batch_size=batch_size,
        shuffle=True,
        generator=torch.Generator(),
    )
    val_loader = DataLoader(
        TensorDataset(full_val[:, :source_len], full_val[:, source_len:]),
        batch_size=batch_size,
    )
    return train_loader, val_loader


def lecture_train(model, optimizer, train_loader, val_loader, epochs, seed=42):
    """Train and validate like the lecture: seed, then one pass per epoch.

    Args:
        model: maps a batch of sequences to predicted targets.
        optimizer: the optimizer of ``model``'s parameters.
        train_loader: shuffling loader with a ``generator`` (see :func:`lecture_loaders`).
        val_loader: validation loader.
        epochs: passes over the training data.
        seed: seeds ``torch`` and the training loader's generator.

    Returns:
        ``(losses, val_losses)``: the mean training and validation loss of every epoch.
    """
    if train_loader.generator is None:
        raise ValueError("train_loader has no generator to seed: build it with lecture_loaders()")
    # the lecture's StepByStep.train: seed, then train and validate
    torch.manual_seed(seed)
    train_loader.generator.manual_seed(seed)
    losses, val_losses = [], []
    for _ in tqdm(range(epochs), desc="lecture run", file=sys.stdout):
        batch_losses = []
        for x, y in train_loader:
            model.train()
            loss = F.mse_loss(model(x), y)
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
            batch_losses.append(loss.item())
        losses.append(np.mean(batch_losses))
        with torch.no_grad():
            model.eval()
            batch_losses = [F.mse_loss(model(x), y).item() for x, y in val_loader]
        val_losses.append(np.mean(batch_losses))
    return losses, val_losses
