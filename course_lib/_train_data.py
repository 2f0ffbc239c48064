"""The Trainer's data: the checks of a loader that is not one (a dataset, a tensor, one batch,
an iterator read twice, pairs its collate cannot pad, no batch at all), of a first batch of
lists or with a target the loss cannot read, of an output the loss would broadcast against
its target, and of ``predict``'s inputs -- each named in the user's words with the fix -- and
:func:`to_device`, which moves a batch (package-private; see :mod:`course_lib.train`)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from numbers import Real

import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset

from course_lib._validate_basics import shape_str, type_name, warn_user


def check_loader(loader: object, name: str, passes: int) -> None:
    """Batches ``(*inputs, target)`` to iterate ``passes`` times: a DataLoader, a
    PairBatches, a list of batches -- not a dataset, a tensor or one batch."""
    if isinstance(loader, Dataset):
        shuffle = ", shuffle=True" if name == "train_loader" else ""
        fix = f"Wrap it in batches: DataLoader(dataset, batch_size=32{shuffle})"
        raise TypeError(f"{name} must be a DataLoader, got {type_name(loader)}. {fix}")
    if isinstance(loader, (Tensor, np.ndarray)):
        raise TypeError(
            f"{name} must be a DataLoader of (*inputs, target) batches, got "
            f"{type_name(loader)}: build one, DataLoader(TensorDataset(x, y), batch_size=32)"
        )
    one_batch = isinstance(loader, (tuple, list)) and len(loader) >= 2
    if one_batch and all(isinstance(b, Tensor) for b in loader):
        raise TypeError(
            f"{name} must be batches (*inputs, target), got {type_name(loader)}: that is one "
            f"batch; pass a list of batches, [{name}], or a DataLoader"
        )
    if isinstance(loader, (str, bytes, Real)) or not isinstance(loader, Iterable):
        hint = (
            f" Did you mean epochs={loader}? fit(train_loader, val_loader=None, epochs=1)"
            if isinstance(loader, int) and name == "val_loader"
            else ""
        )
        raise TypeError(f"{name} must be a DataLoader, got {type_name(loader)}.{hint}")
    _refuse_unpadded_ids(loader, name)
    if passes > 1 and isinstance(loader, Iterator):
        raise TypeError(
            f"{name} is an iterator ({type_name(loader)}), which is used up after one pass: "
            f"it would be read {passes} times. Pass a DataLoader or a list of batches"
        )
    _check_not_empty(loader, name)


def _refuse_unpadded_ids(loader: object, name: str) -> None:
    """A DataLoader over encoded ``(source ids, target ids)`` pairs with the default collate:
    it cannot pad sentences of different lengths (an error at the first uneven batch) and
    turns even ones into lists of one tensor per position. Translation pairs go in
    :class:`~course_lib.vocab.PairBatches`. Looks at the dataset's first item only."""
    if not isinstance(loader, DataLoader):
        return
    if getattr(loader.collate_fn, "__name__", "") != "default_collate":
        return
    dataset = loader.dataset
    if not isinstance(dataset, (list, tuple)) or not dataset:
        return
    first = dataset[0]
    if not (
        isinstance(first, (tuple, list))
        and len(first) == 2
        and all(
            isinstance(ids, (list, tuple))
            and ids
            and all(isinstance(i, (int, np.integer)) and not isinstance(i, bool) for i in ids)
            for ids in first
        )
    ):
        return
    size = loader.batch_size or 1
    raise TypeError(
        f"{name} is a DataLoader over {type_name(dataset)}: encoded (source ids, target ids) "
        "pairs, which its default collate cannot pad into batches (sentences differ in "
        "length) -- it would hand the model lists of one tensor per position. Batch them "
        f"with PairBatches (course_lib.vocab), which pads each batch into (src, tgt_in, "
        f"tgt_out): PairBatches(ids, batch_size={size}"
        + (", shuffle=True)" if name == "train_loader" else ")")
    )


def _check_not_empty(loader: object, name: str) -> None:
    """A loader with a length of 0 yields no batch: say so before any epoch runs (a loader
    without a length, an iterator or an iterable dataset, is checked after its epoch)."""
    try:
        batches = len(loader)  # type: ignore[arg-type]
    except TypeError:
        return
    if batches:
        return
    dataset = getattr(loader, "dataset", None)
    try:
        items = len(dataset) if dataset is not None else None  # type: ignore[arg-type]
    except TypeError:
        items = None
    if items:  # items, but fewer than a batch, all dropped
        size = getattr(loader, "batch_size", None)
        why = (
            f"its dataset holds {items} item(s), fewer than batch_size={size}, and "
            "drop_last=True drops the incomplete batch: lower batch_size, or leave "
            "drop_last out"
        )
    elif items == 0:
        why = (
            "its dataset is empty, 0 items: the data it was built from holds nothing (a "
            "selection or filter that kept no rows? check it, e.g. len(...), before building "
            "the datasets)"
        )
    else:
        why = f"{type_name(loader)} is empty: give it at least one batch (*inputs, target)"
    raise ValueError(f"{name} has no batches, so there is nothing to train on: {why}")


def check_batch_items(inputs: tuple, target) -> None:
    """An epoch's first batch holds tensors, not lists of numbers."""
    for name, item in [*((f"input {k}", x) for k, x in enumerate(inputs)), ("target", target)]:
        if isinstance(item, (list, tuple)) and item and isinstance(item[0], (Real, list)):
            raise TypeError(
                f"the batch's {name} is {type_name(item)}, not a tensor: build the "
                "batches from tensors, DataLoader(TensorDataset(torch.tensor(x), "
                "torch.tensor(y)), batch_size=32)"
            )


def check_class_target(loss_fn: object, target: object) -> None:
    """PyTorch's cross-entropy reads a float target as class probabilities (soft labels):
    one with values below 0 or above 1 -- coordinates, a regression target -- cannot be
    that. Reads the first batch's target once per fit."""
    ce = isinstance(loss_fn, nn.CrossEntropyLoss) or loss_fn is F.cross_entropy
    if not ce or not isinstance(target, Tensor) or not torch.is_floating_point(target):
        return
    if not target.numel():
        return
    low, high = float(target.min()), float(target.max())
    if low >= 0.0 and high <= 1.0:
        return
    name = "nn.CrossEntropyLoss()" if isinstance(loss_fn, nn.Module) else "F.cross_entropy"
    raise ValueError(
        f"loss_fn={name} is a classification loss, and it reads a float target as class "
        f"probabilities, but the target {shape_str(target)} {target.dtype} holds values from "
        f"{low:.3g} to {high:.3g}, not probabilities in [0, 1]: a regression target "
        "(coordinates, points). For a regression pass loss_fn=nn.MSELoss(); for a "
        "classification the target holds class indices (torch.long) and the model's output "
        "the class scores"
    )


def warn_ignore_index_on_floats(ignore_index: int | None, target: object) -> None:
    """``ignore_index`` names a padding token id; a float target (a regression) has none,
    and the epoch's mean would then weight each batch by its values that differ from it."""
    if ignore_index is None or not isinstance(target, Tensor):
        return
    if torch.is_floating_point(target):
        warn_user(
            f"Trainer(ignore_index={ignore_index}) is for targets of token ids (integer "
            f"class indices, e.g. ignore_index=PAD), but the target is {type_name(target)}, "
            f"a float regression target: the epoch's loss would weight each batch by its "
            f"values != {ignore_index}, ordinary numbers here. Leave ignore_index out "
            "(None) for a regression",
            UserWarning,
        )


def check_inputs(inputs: tuple) -> None:
    """``predict``'s inputs: tensors (other arguments pass), not a loader or a list, nor a
    bool (a keyword's value passed positionally: ``predict(source, True)``)."""
    for k, x in enumerate(inputs):
        if isinstance(x, (bool, np.bool_)) and k > 0:
            raise TypeError(
                f"predict passes its positional arguments to the model as inputs, but input "
                f"{k} is {x!r}: a setting passed positionally (it would reach the model as "
                f"an input, e.g. its target). Pass it by name, trainer.predict(source, "
                f"need_weights={x!r}): keyword arguments go to the model's forward as they are"
            )
        if isinstance(x, (DataLoader, Dataset)):
            raise TypeError(
                f"predict takes the model's input tensors, but input {k} is "
                f"{type_name(x)}: pass the tensors, trainer.predict(test_source); for the "
                "loss over a loader, trainer.evaluate(loader)"
            )
        if isinstance(x, np.ndarray):
            raise TypeError(
                f"predict takes tensors, but input {k} is a NumPy array {x.shape}: convert "
                "it, torch.from_numpy(x).float()"
            )
        if isinstance(x, (list, tuple)):
            if len(inputs) == 1 and len(x) >= 2 and all(isinstance(t, Tensor) for t in x):
                fix = (
                    "if it is a batch (*inputs, target) from a loader, pass its inputs "
                    "without the target, trainer.predict(*batch[:-1]) (for a (source, "
                    "target) batch, trainer.predict(source)); if it holds only the model's "
                    "inputs, unpack it, trainer.predict(*inputs)"
                )
            elif x and all(isinstance(t, Tensor) for t in x):
                fix = "pass them as separate arguments, trainer.predict(*inputs)"
            else:
                fix = "convert it to a tensor, torch.tensor(x)"
            raise TypeError(f"predict takes tensors, but input {k} is {type_name(x)}: {fix}")


def check_output(output: Tensor, target: Tensor) -> None:
    """Refuse output/target pairs a loss would silently broadcast.

    A floating-point target (regression, soft labels) must have the output's shape: a
    loss would broadcast ``(B, 1)`` against ``(B,)`` into ``(B, B)`` and pair the wrong
    elements, with a warning only. An integer target holds class indices: the output has
    one more dimension (the classes) and the same batch size.
    """
    if not (isinstance(output, Tensor) and isinstance(target, Tensor)):
        return
    if torch.is_floating_point(target):
        if output.shape != target.shape:
            raise ValueError(
                f"the model's output {shape_str(output)} and the target "
                f"{shape_str(target)} differ in shape: the loss would broadcast them and "
                "compare the wrong elements. Make the model return the target's shape "
                "(e.g. output.squeeze(-1) for one value per sample)."
            )
    elif output.ndim != target.ndim + 1 or output.shape[0] != target.shape[0]:
        raise ValueError(
            f"the target {shape_str(target)} holds class indices, so the model's output "
            f"must have one more dimension (the class scores) and the same batch size, "
            f"got {shape_str(output)}"
        )


def to_device(obj, device: torch.device):
    """Move tensors, also inside tuples, lists and dicts, to ``device``."""
    if isinstance(obj, Tensor):
        return obj.to(device)
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):  # a NamedTuple batch
        return type(obj)(*(to_device(o, device) for o in obj))
    if isinstance(obj, (tuple, list)):
        return type(obj)(to_device(o, device) for o in obj)
    if isinstance(obj, dict):
        return {key: to_device(value, device) for key, value in obj.items()}
    return obj
