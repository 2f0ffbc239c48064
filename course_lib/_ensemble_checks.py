"""The argument checks of :mod:`course_lib.ensemble`, kept beside it so the module reads as
the algorithm."""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import Tensor, nn

from course_lib._train_data import check_loader
from course_lib._validate import check_positive_int, check_seed, type_name

ELEMENTWISE = (
    torch.optim.Adam,
    torch.optim.AdamW,
    torch.optim.SGD,
    torch.optim.RMSprop,
    torch.optim.Adagrad,
    torch.optim.Adamax,
    torch.optim.NAdam,
    torch.optim.RAdam,
)


def _settings(module: nn.Module) -> dict:
    """A module's own settings: its public attributes that are neither tensors nor modules."""
    return {
        k: v
        for k, v in vars(module).items()
        if not k.startswith("_") and not isinstance(v, (Tensor, nn.Module))
    }


def check_members(models, optimizer, scheduler) -> None:
    """Members that can be stacked: modules of one class and one set of settings."""
    if isinstance(models, nn.Module) or not isinstance(models, Sequence) or not models:
        raise TypeError(
            f"models must be a non-empty list of models, got {type_name(models)}: "
            "EnsembleTrainer([model_1, model_2, ...], loss_fn, optimizer)"
        )
    for i, model in enumerate(models):
        if not isinstance(model, nn.Module):
            raise TypeError(f"models[{i}] must be a model (an nn.Module), got {type_name(model)}")
    for name, module in models[0].named_modules():
        if isinstance(module, nn.GRU) and (
            module.num_layers != 1 or module.bidirectional or not module.batch_first
        ):
            raise ValueError(
                f"models[0].{name or 'gru'} is a GRU with num_layers={module.num_layers}, "
                f"bidirectional={module.bidirectional}, batch_first={module.batch_first}: "
                "the ensemble runs single-layer, one-direction, batch-first GRUs only"
            )
        if isinstance(module, (nn.LSTM, nn.RNN)):
            raise ValueError(f"models[0].{name} is an {type(module).__name__}: not supported")
    first = dict(models[0].named_modules())
    shapes = {k: v.shape for k, v in models[0].state_dict().items()}
    for i, model in enumerate(models[1:], start=1):
        modules = dict(model.named_modules())
        if type(model) is not type(models[0]) or modules.keys() != first.keys():
            raise ValueError(
                f"models[{i}] is not built like models[0] ({type(model).__name__} with "
                f"{len(modules)} modules against {type(models[0]).__name__} with {len(first)}): "
                "the members of an ensemble share one architecture"
            )
        theirs = {k: v.shape for k, v in model.state_dict().items()}
        if theirs != shapes:
            differ = sorted(
                k for k in shapes.keys() | theirs.keys() if shapes.get(k) != theirs.get(k)
            )
            raise ValueError(
                f"models[{i}]'s parameters differ in shape from models[0]'s ({differ[0]}: "
                f"{tuple(theirs.get(differ[0], ()))} against {tuple(shapes.get(differ[0], ()))}): "
                "train different sizes in separate ensembles"
            )
        for name, module in modules.items():
            if _settings(module) != _settings(first[name]):
                a, b = _settings(first[name]), _settings(module)
                key = next(k for k in a.keys() | b.keys() if a.get(k) != b.get(k))
                where = f".{name}" if name else ""
                raise ValueError(
                    f"models[{i}]{where}.{key} = {b.get(key)!r} but models[0]{where}.{key} = "
                    f"{a.get(key)!r}: the members of an ensemble differ only in their "
                    "parameter values; train other settings in a separate ensemble"
                )
    if not callable(optimizer) or isinstance(optimizer, torch.optim.Optimizer):
        raise TypeError(
            f"optimizer must build an optimizer from parameters, got {type_name(optimizer)}: "
            "optimizer=lambda params: torch.optim.Adam(params, lr=0.01)"
        )
    built = optimizer(models[0].parameters())
    if not isinstance(built, ELEMENTWISE):
        raise TypeError(
            f"optimizer built a {type_name(built)}: the ensemble needs one that acts element "
            "by element, so that one optimizer over stacked members is one per member: "
            + ", ".join(c.__name__ for c in ELEMENTWISE)
        )
    if len(built.param_groups) != 1:
        raise ValueError("optimizer must put every parameter in one parameter group")
    if scheduler is not None and not callable(scheduler):
        raise TypeError(
            f"scheduler must build a scheduler from an optimizer, got {type_name(scheduler)}: "
            "scheduler=lambda opt: torch.optim.lr_scheduler.OneCycleLR(opt, ...)"
        )


def _as_list(loader, name: str, members: int) -> list:
    if isinstance(loader, (list, tuple)):
        if len(loader) != members:
            raise ValueError(
                f"{name} is a list of {len(loader)} loaders for {members} members: pass one "
                "loader shared by every member, or one per member"
            )
        return list(loader)
    return [loader]


def check_loaders(train_loader, val_loader, seed, members: int, epochs: int):
    """The loaders as lists (one shared, or one per member) and the seeds as a list."""
    check_positive_int(epochs, "epochs")
    train = _as_list(train_loader, "train_loader", members)
    val = [] if val_loader is None else _as_list(val_loader, "val_loader", members)
    for i, loader in enumerate(train):
        check_loader(loader, "train_loader" if len(train) == 1 else f"train_loader[{i}]", epochs)
    for i, loader in enumerate(val):
        check_loader(loader, "val_loader" if len(val) == 1 else f"val_loader[{i}]", epochs)
    if seed is None:
        return train, val, None
    seeds = list(seed) if isinstance(seed, (list, tuple)) else [seed]
    if len(seeds) != len(train):
        raise ValueError(
            f"{len(seeds)} seeds for {len(train)} train loaders: one seed per loader "
            "(a single seed with a shared loader)"
        )
    return train, val, [check_seed(s) for s in seeds]


def check_stackable(batches: tuple) -> None:
    """The members' batches of one step have one shape each item (their loaders match)."""
    shapes = [tuple(tuple(item.shape) for item in batch) for batch in batches]
    if any(s != shapes[0] for s in shapes):
        m = next(i for i, s in enumerate(shapes) if s != shapes[0])
        raise ValueError(
            f"train_loader[{m}] gave a batch of shapes {shapes[m]} where train_loader[0] gave "
            f"{shapes[0]}: the members' loaders must give batches of one size at every step "
            "(one dataset size and batch_size)"
        )
