"""Train several models of one architecture at once, as one vectorised ensemble.

A course trains the same small model many times: five seeds, eight seeds, a seed per
schedule. One after the other, each step of each model is a few hundred tiny kernels and
Python calls, on a CPU and even more so on a GPU. Stacked, the ``M`` members' parameters
become one tensor per parameter with a leading member dimension, and one call runs every
member: ``torch.func.vmap`` maps the model's ``forward`` over that dimension
(``torch.func.functional_call`` runs it with the member's parameters). This is how
practitioners run seeds (PyTorch's "model ensembling" tutorial).

Nothing mixes the members: the loss is the sum of the members' losses, so each member's
gradient is its own; gradient clipping is computed per member; Adam, SGD and their kind act
element by element, so one optimizer over the stacked tensors is ``M`` optimizers. The
equivalence tests (``tests/test_ensemble.py``) train together and one by one in float64 and
compare every member's losses and weights.

Letters: ``M`` members, ``B`` batch. A stacked parameter is ``(M, *shape)``.

* Members must be the same class with the same settings; only their parameter values (and
  buffers) differ. Batches are shared when all runs use one loader (as runs that share
  ``fit``'s ``seed`` do), or each member has its own loader and seed.
* ``nn.GRU`` has no vmap rule in PyTorch: inside the ensemble a GRU runs as the same
  equations unrolled over time (:class:`UnrolledGRU`, single layer, batch first).
* Random draws inside ``forward`` (teacher-forcing coins, dropout) are one stream for the
  whole ensemble (``vmap(randomness="same")``), seeded by the first member's seed: exactly
  the separate runs' draws when the runs share one seed.
"""

from __future__ import annotations

import copy
import math
import sys
from collections.abc import Callable, Sequence

import torch
from torch import Tensor, nn
from torch.func import functional_call, stack_module_state, vmap
from tqdm.std import tqdm

from course_lib._ensemble_checks import check_loaders, check_members, check_stackable
from course_lib._name_tables import explain_names
from course_lib._train_data import to_device
from course_lib.train import Trainer, clock

__all__ = ["UnrolledGRU", "vmappable", "EnsembleTrainer"]


class UnrolledGRU(nn.GRU):
    """``nn.GRU``'s equations written out step by step, so ``vmap`` can batch them.

    The same parameters (``weight_ih_l0`` ...) and the same results as ``nn.GRU`` (one
    layer, one direction, batch first); PyTorch's fused kernel has no batching rule.

    Shape:
        x ``(B, S, F)``, hidden ``(1, B, H)`` -> states ``(B, S, H)``, final ``(1, B, H)``.
    """

    def forward(self, x: Tensor, hidden: Tensor | None = None) -> tuple[Tensor, Tensor]:
        H = self.hidden_size
        h = x.new_zeros(x.shape[0], H) if hidden is None else hidden[0]  # (B, H)
        gates_x = nn.functional.linear(x, self.weight_ih_l0, self.bias_ih_l0)  # (B, S, 3H)
        states = []
        for gates_t in gates_x.unbind(1):  # S x (B, 3H); unbind: one backward, not S
            gates_h = nn.functional.linear(h, self.weight_hh_l0, self.bias_hh_l0)  # (B, 3H)
            r_x, z_x, n_x = gates_t.split(H, dim=-1)  # 3 x (B, H)
            r_h, z_h, n_h = gates_h.split(H, dim=-1)
            r = torch.sigmoid(r_x + r_h)  # reset gate
            z = torch.sigmoid(z_x + z_h)  # update gate
            n = torch.tanh(n_x + r * n_h)  # candidate state
            h = (1 - z) * n + z * h  # (B, H)
            states.append(h)
        return torch.stack(states, dim=1), h.unsqueeze(0)  # (B, S, H), (1, B, H)


def vmappable(model: nn.Module) -> nn.Module:
    """A parameter-free copy of ``model`` (on the meta device) whose GRUs are unrolled."""
    skeleton = copy.deepcopy(model).to("meta")
    for module in skeleton.modules():
        if type(module) is nn.GRU:
            module.__class__ = UnrolledGRU
    return skeleton


class EnsembleTrainer:
    """Train ``M`` models of one architecture together; get one :class:`~course_lib.train.Trainer`
    per member.

    Args:
        models: the members, built (and seeded) as the separate runs would build them.
        loss_fn: ``loss_fn(output, target)`` of one member, as for
            :class:`~course_lib.train.Trainer`.
        optimizer: builds the optimizer from parameters, e.g.
            ``lambda params: torch.optim.Adam(params, lr=0.01)``; an element-wise one
            (Adam, AdamW, SGD, RMSprop, Adagrad, ...).
        device: where to train; defaults to :func:`~course_lib.train.default_device`.
        clip_grad_norm: clip each member's gradient norm to this value, as
            ``nn.utils.clip_grad_norm_`` does for one model.
        scheduler: builds a learning-rate scheduler from an optimizer (stepped after every
            optimiser step), e.g. ``lambda opt: OneCycleLR(opt, max_lr=2e-3, total_steps=n)``.

    After :meth:`fit`, ``trainers[m]`` is an ordinary :class:`~course_lib.train.Trainer` of member
    ``m``: its model holds the member's weights, its optimizer and scheduler the member's state,
    and ``losses``, ``val_losses``, ``learning_rates`` and ``seconds`` its history (``seconds``:
    the ensemble's time divided by ``M``). It can go on training alone.
    """

    def __init__(
        self,
        models: Sequence[nn.Module],
        loss_fn: Callable[[Tensor, Tensor], Tensor],
        optimizer: Callable,
        device: torch.device | str | None = None,
        *,
        clip_grad_norm: float | None = None,
        scheduler: Callable | None = None,
    ) -> None:
        check_members(models, optimizer, scheduler)
        self.trainers = [
            Trainer(
                model,
                loss_fn,
                opt := optimizer(model.parameters()),
                device,
                clip_grad_norm=clip_grad_norm,
                scheduler=None if scheduler is None else scheduler(opt),
            )
            for model in models
        ]
        self.device = self.trainers[0].device
        self.loss_fn = self.trainers[0].loss_fn
        self.clip_grad_norm = clip_grad_norm
        self.skeleton = vmappable(self.trainers[0].model)
        params, self.buffers = stack_module_state([t.model for t in self.trainers])
        self.params = {name: p.detach().requires_grad_() for name, p in params.items()}
        self.optimizer = optimizer(list(self.params.values()))
        self.scheduler = None if scheduler is None else scheduler(self.optimizer)

    def _forward(self, inputs: tuple, shared: bool) -> Tensor:
        """Every member's output, ``(M, *output)``, in one call."""

        def one(params, buffers, *xs):
            return functional_call(self.skeleton, (params, buffers), xs)

        in_dims = (0, 0) + (None if shared else 0,) * len(inputs)
        return vmap(one, in_dims=in_dims, randomness="same")(self.params, self.buffers, *inputs)

    def _losses(self, batch, shared: bool) -> tuple[Tensor, int]:
        """Each member's loss on its batch ``(M,)``, and the batch's weight."""
        inputs, target = tuple(batch[:-1]), batch[-1]
        output = self._forward(inputs, shared)  # (M, B, ...)
        in_dims = (0, None if shared else 0)
        losses = vmap(self.loss_fn, in_dims=in_dims)(output, target)  # (M,)
        return losses, len(target) if shared else target.shape[1]

    def _clip(self) -> None:
        """``clip_grad_norm_`` for each member: its own norm over its own gradients."""
        grads = [p.grad for p in self.params.values() if p.grad is not None]
        norms = torch.stack([g.flatten(1).norm(dim=1) for g in grads])  # (P, M)
        total = norms.norm(dim=0)  # (M,)
        scale = (self.clip_grad_norm / (total + 1e-6)).clamp(max=1.0)  # (M,)
        for g in grads:
            g.mul_(scale.view(-1, *[1] * (g.ndim - 1)))  # (M, 1, ...) broadcast

    def _step(self, losses: Tensor) -> None:
        self.optimizer.zero_grad()
        losses.sum().backward()  # member m's loss reaches only member m's parameters
        if self.clip_grad_norm is not None:
            self._clip()
        self.optimizer.step()
        if self.scheduler is not None:
            lr = self.optimizer.param_groups[0]["lr"]
            for trainer in self.trainers:
                trainer.learning_rates.append(lr)
            self.scheduler.step()

    def _epoch(self, loaders: list, train: bool) -> list[float]:
        """One pass: each member's mean loss (per sample, as
        :class:`~course_lib.train.Trainer` weighs it)."""
        shared = len(loaders) == 1
        total, count = torch.zeros(len(self.trainers), dtype=torch.float64), 0
        self.skeleton.train(train)
        with torch.set_grad_enabled(train):
            for batches in zip(*loaders, strict=True):
                if shared:
                    batch = to_device(batches[0], self.device)
                else:  # M batches (inputs..., target) -> one stacked batch (M, B, ...)
                    check_stackable(batches)
                    batch = [
                        torch.stack(items)
                        for items in zip(*to_device(batches, self.device), strict=True)
                    ]
                losses, weight = self._losses(batch, shared)
                if train:
                    self._step(losses)
                total += losses.detach().double().cpu() * weight
                count += weight
        return (total / count).tolist()

    def fit(
        self,
        train_loader,
        val_loader=None,
        epochs: int = 1,
        seed: int | Sequence[int] | None = None,
        progress: bool = True,
        desc: str = "Training together",
    ) -> list[Trainer]:
        """Train every member ``epochs`` more epochs; return the members'
        :class:`~course_lib.train.Trainer`.

        Args:
            train_loader: one loader whose batches every member trains on, or one loader per
                member (the runs of different data orders).
            val_loader: one loader (or one per member) for each member's validation loss.
            epochs: number of epochs.
            seed: as :meth:`Trainer.fit <course_lib.train.Trainer.fit>`'s: one seed for one
                loader, or one per loader. The global generator (teacher-forcing coins,
                dropout) is seeded with the first.
            progress: a progress bar over the epochs.
            desc: the progress bar's label.
        """
        train_loaders, val_loaders, seeds = check_loaders(
            train_loader, val_loader, seed, len(self.trainers), epochs
        )
        if seeds is not None:
            torch.manual_seed(seeds[0])
            for loader, s in zip(train_loaders, seeds, strict=True):
                if getattr(loader, "generator", None) is not None:
                    loader.generator.manual_seed(s)
        bar = tqdm(range(epochs), desc=desc, disable=not progress, file=sys.stdout)
        for _ in bar:
            start = clock(self.device)
            losses = self._epoch(train_loaders, train=True)
            spent = (clock(self.device) - start) / len(self.trainers)  # a member's share
            val = self._epoch(val_loaders, train=False) if val_loaders else None
            for m, trainer in enumerate(self.trainers):
                trainer.losses.append(losses[m])
                trainer.seconds.append(spent + (trainer.seconds[-1] if trainer.seconds else 0.0))
                if val is not None:
                    trainer.val_losses.append(val[m])
            if not all(math.isfinite(x) for x in losses):
                raise FloatingPointError(f"a member's training loss is not finite: {losses}")
        bar.close()
        self._unstack()
        return self.trainers

    def _unstack(self) -> None:
        """Copy each member's slice of the parameters and optimizer state to its Trainer."""
        state = self.optimizer.state_dict()
        stacked = list(self.params.values())
        for m, trainer in enumerate(self.trainers):
            with torch.no_grad():
                for p, s in zip(trainer.model.parameters(), stacked, strict=True):
                    p.copy_(s[m])
                for name, b in trainer.model.named_buffers():
                    b.copy_(self.buffers[name][m])
            member = copy.deepcopy(state)
            for i, p_state in member["state"].items():
                for key, value in p_state.items():
                    if isinstance(value, Tensor) and value.shape == stacked[i].shape:
                        p_state[key] = value[m].clone()  # (M, *shape) -> (*shape)
            trainer.optimizer.load_state_dict(member)
            if self.scheduler is not None:
                trainer.scheduler.load_state_dict(self.scheduler.state_dict())


# Calls and attributes in other libraries' words: their tables are in _name_tables.py.
explain_names(__name__)
