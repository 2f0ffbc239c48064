"""What a failure during the Trainer's epoch means: a model that cannot be called with the
batch's inputs, a shape error on the first batch, a loss that is not one number with a
gradient or that cannot read the model's output, a NaN loss -- each explained in the user's
words with the fix (package-private; see :mod:`course_lib.train`)."""

from __future__ import annotations

import inspect
from collections.abc import Iterable, Iterator

import torch
from torch import Tensor, nn

from course_lib._validate_basics import shape_str, type_name


def explain_model_call(err: TypeError, model: nn.Module, inputs: tuple) -> None:
    """A TypeError from ``model(*inputs)`` whose inputs do not fit ``forward``'s signature
    (Python refused the call itself): how a batch ``(*inputs, target)`` is split, and
    whether the dataset lacks its target or holds an item too many."""
    try:
        signature = inspect.signature(model.forward)
    except (AttributeError, TypeError, ValueError):  # no signature to read
        return
    if _binds(signature, inputs):  # the inputs fit: the TypeError came from inside forward
        return
    n = len(inputs)
    shown = f"{type(model).__name__}.forward{call_signature(signature)}"
    split = (
        f"every batch is (*inputs, target): the Trainer calls model(*batch[:-1]) and keeps "
        f"the last item of the batch as the target of loss_fn(output, target), so a batch of "
        f"{n + 1} items gives the model {n} input{'s' if n != 1 else ''}"
    )
    if _binds(signature, (*inputs, None)):
        names = [p.name for p in signature.parameters.values()][: n + 1]
        fix = (
            f"{shown} needs {n + 1}: the dataset lacks its target, and its last item was "
            f"taken for it. Put the target last, TensorDataset({', '.join(names)}, target)"
        )
    elif n > 1 and _binds(signature, inputs[:-1]):
        fix = (
            f"{shown} takes {n - 1}: the dataset holds an item too many. Keep only the "
            f"model's inputs and the target (last), or accept the extra input in forward"
        )
    else:
        fix = f"they do not fit {shown} ({err})"
    raise TypeError(f"the model cannot be called with the batch's inputs: {split}; {fix}") from err


def _binds(signature: inspect.Signature, args: tuple) -> bool:
    try:
        signature.bind(*args)
    except TypeError:
        return False
    return True


def call_signature(signature: inspect.Signature) -> str:
    """``(queries, keys, values)``: the parameters as a call shows them."""
    return str(
        signature.replace(
            parameters=[
                p.replace(annotation=inspect.Parameter.empty, default=inspect.Parameter.empty)
                for p in signature.parameters.values()
            ],
            return_annotation=inspect.Signature.empty,
        )
    )


def explain_model_failure(err: RuntimeError, inputs: tuple, target: object) -> None:
    """A shape error inside the model on the fit's first batch, whose batch has several
    inputs: name how the batch was split, since a dataset whose target is not its last
    item ((X, y) first, TensorDataset(x, y, keys, values)) fails just so."""
    if isinstance(err, torch.cuda.OutOfMemoryError) or len(inputs) < 2:
        return
    if not any(word in str(err).lower() for word in ("size", "shape", "dimension")):
        return
    shapes = ", ".join(shape_str(x) if isinstance(x, Tensor) else type_name(x) for x in inputs)
    kept = shape_str(target) if isinstance(target, Tensor) else type_name(target)
    raise RuntimeError(
        f"the model failed on the fit's first batch with a shape error (the error above). "
        f"The Trainer splits every batch as (*inputs, target): it called the model with the "
        f"batch's first {len(inputs)} items as inputs, {shapes}, and kept its last item, "
        f"{kept}, as the target. If the target is not the dataset's last tensor (the (X, y) "
        "habit, TensorDataset(x, y, keys, values)), put it last: TensorDataset(x, keys, "
        "values, y), in the order of the model's forward; otherwise the error is in the "
        "model's forward"
    ) from err


def check_loss(loss, train: bool) -> None:
    """An epoch's first loss is one number, with a gradient when training."""
    if not isinstance(loss, Tensor):
        raise TypeError(
            f"loss_fn must return a tensor, got {type_name(loss)}: return the loss "
            "itself, not loss.item() or a float"
        )
    if loss.ndim != 0:
        raise ValueError(
            f"loss_fn returned a tensor of shape {shape_str(loss)}, not one number: "
            "average it, with reduction='mean' (the losses' default) or loss.mean()"
        )
    if train and not loss.requires_grad:
        raise ValueError(
            "the loss has no gradient, so no weight can change: loss_fn detached it "
            "(.item(), .detach(), torch.tensor(...), numpy), or every parameter of the "
            "model is frozen (requires_grad=False)"
        )


def explain_loss_error(err: Exception, output: object, target: object = None) -> None:
    """Name the likely cause when the loss fails: a model that returns ``(output,
    weights)`` (``need_weights=True``) trained as it is, or scores ``(B, T, V)`` given to
    PyTorch's cross-entropy, which reads the classes from dimension 1."""
    if isinstance(output, (tuple, list)) and isinstance(err, (TypeError, AttributeError)):
        raise TypeError(
            f"loss_fn(output, target) failed because the model returned "
            f"{type_name(output)}, not one output tensor: does its forward return "
            "(output, weights)? Train it with need_weights=False, or make forward return the "
            "prediction alone"
        ) from err
    if (
        isinstance(err, (RuntimeError, ValueError))
        and isinstance(output, Tensor)
        and isinstance(target, Tensor)
        and output.ndim >= 3
        and not target.is_floating_point()
        and output.shape[:-1] == target.shape
    ):
        V = output.shape[-1]
        raise ValueError(
            f"loss_fn(output, target) failed on the model's output (B, T, V) = "
            f"{shape_str(output)}, class scores in the last dimension, for the target (B, T) = "
            f"{shape_str(target)} of class indices: PyTorch's cross-entropy "
            f"(nn.CrossEntropyLoss, F.cross_entropy, nn.NLLLoss) reads the classes from "
            f"dimension 1, (B, V, T). For token targets pass loss_fn=translation_loss "
            f"(course_lib.translation, <pad> ignored) with Trainer(..., ignore_index=PAD), or "
            f"flatten the positions into the batch: loss_fn=lambda output, target: "
            f"F.cross_entropy(output.reshape(-1, {V}), target.reshape(-1), ignore_index=PAD)"
        ) from err


def _nan_in_batches(loader: Iterable) -> str | None:
    """What the first batch with a NaN holds it in (``"the target"``), ``""`` when no
    batch does, ``None`` when the loader cannot be read again (an iterator, odd batches).
    Read once, only after an epoch's loss came out NaN."""
    if isinstance(loader, Iterator):  # used up by the epoch: nothing left to read
        return None
    for batch in loader:
        if not isinstance(batch, (tuple, list)) or len(batch) < 2:
            return None
        items = [*((f"input {k}", x) for k, x in enumerate(batch[:-1])), ("target", batch[-1])]
        bad = [
            name
            for name, x in items
            if isinstance(x, Tensor) and x.is_floating_point() and bool(torch.isnan(x).any())
        ]
        if bad:
            return f"the {' and the '.join(bad)}"
    return ""


def nan_loss_message(which: str, loss: float, epoch: int, loader: Iterable) -> str:
    """What a NaN (or infinite) epoch loss means, with the data scanned for NaN once."""
    found = _nan_in_batches(loader) if loss != loss else None  # NaN, not an infinity
    diverged = (
        "lower the learning rate (or clip the gradients, clip_grad_norm=1.0) if the training "
        "diverged"
    )
    if found:
        cause = (
            f"the data holds NaN, in {found} of a batch: clean it first, e.g. drop the "
            "samples where torch.isnan(target).any()"
        )
    elif found == "":
        cause = (
            f"the data holds no NaN, so the model or the loss made it: {diverged}, or look "
            "for a log of 0 or a softmax over only -inf in the model"
        )
    else:
        cause = f"check the data for NaN (torch.isnan(target).any(), and the inputs), or {diverged}"
    shown = "NaN" if loss != loss else loss
    weights = (
        "; the model's weights may be NaN now, so rebuild the model and its optimizer before "
        "training again"
        if which == "training"
        else ""
    )
    return (
        f"the {which} loss is {shown} at epoch {epoch}: {cause}. The training was stopped{weights}"
    )
