"""The translation recipe the benchmarks share: data, settings, and a run on the library's loop.

``translation.py``, ``ablations.py`` and ``decode.py`` import this module (they run as scripts
from this folder, so it is on ``sys.path``). Training is :class:`course_lib.train.Trainer`
-- the loop Chapter 5 and the tests use -- stepped per optimiser step by the warm-up
schedule, clipped, with a loss per real token; its end-of-epoch hook is where a benchmark
evaluates, and where a run stops once its budget of training CPU seconds is spent
(``trainer.seconds``: CPU time on one thread, evaluation not counted). Curves are therefore
sampled at epoch ends.

Every benchmark writes what it prints to a record, ``benchmarks/results/<date>_<name>.txt``
(:class:`Record`), with the machine it ran on; Chapter 5 cites those records by name, and
``tools/prose_numbers.py`` checks that a number cited from one is in it.
"""

from __future__ import annotations

import contextlib
import datetime
import io
import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import torch
from torch import nn

from course_lib.schedules import warmup_inverse_sqrt
from course_lib.tatoeba import Split, load_pairs, split_pairs
from course_lib.train import Trainer
from course_lib.translation import translation_loss
from course_lib.vocab import PAD, PairBatches, Vocab, encode_pairs

# The course's settings, chosen on the validation split (see Chapter 5 for what each buys).
COURSE = {
    "config": {
        "d_model": 256,
        "num_heads": 4,
        "d_ff": 512,
        "num_encoder_layers": 2,
        "num_decoder_layers": 2,
        "dropout": 0.1,
        "add_norm": "post",
        "tie_embeddings": True,
    },
    "lr": 1e-3,
    "warmup": 300,
    "batch_size": 64,
    "label_smoothing": 0.1,
    "clip": 1.0,
}


def data() -> tuple[Split, Vocab, Vocab, list]:
    """Chapter 5's data: the tutorial filter, French -> English, the seeded grouped split,
    vocabularies from the training split; returns ``(split, src_vocab, tgt_vocab, train
    ids)``."""
    split = split_pairs(load_pairs(), seed=0)
    src_vocab = Vocab(s for s, _ in split.train)
    tgt_vocab = Vocab(t for _, t in split.train)
    return split, src_vocab, tgt_vocab, encode_pairs(split.train, src_vocab, tgt_vocab)


RESULTS = Path(__file__).resolve().parent / "results"


def machine() -> str:
    """The processor, its CPU kernels, torch and the thread count, as a record states them:
    the fingerprint the notebooks' verification records (``tools/verification.py``)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
    import verification

    here = verification.fingerprint()
    return (
        f"{here['cpu']}, {here['cpu_capability']}, torch {here['torch']}, "
        f"{here['threads']} thread(s), device {here['device']}"
    )


def load() -> str:
    """How busy the machine is: load averages over 1, 5 and 15 minutes against its cores, so a
    record says whether it was made on an idle machine."""
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} cores"


class Record(contextlib.AbstractContextManager):
    """Print to the terminal and to ``benchmarks/results/<date>_<name>.txt`` at once.

    The record starts with the command line, the date and the machine; it is written when the
    run ends (also when it fails, so that nothing printed is lost)."""

    def __init__(self, name: str, enabled: bool = True) -> None:
        self.path = RESULTS / f"{datetime.date.today().isoformat()}_{name}.txt"
        self.enabled = enabled
        self.buffer = io.StringIO()

    def write(self, text: str) -> int:
        self.buffer.write(text)
        return self.stdout.write(text)

    def flush(self) -> None:
        self.stdout.flush()

    def __enter__(self) -> Record:
        self.stdout, sys.stdout = sys.stdout, self
        print(f"# {' '.join(['python', *sys.argv])}")
        print(f"# {datetime.datetime.now().isoformat(timespec='minutes')}, {machine()}")
        print(f"# {load()} at the start")
        return self

    def __exit__(self, *exc) -> None:
        print(f"# {load()} at the end, {datetime.datetime.now().isoformat(timespec='minutes')}")
        sys.stdout = self.stdout
        if self.enabled:
            self.path.write_text(self.buffer.getvalue(), encoding="utf-8")
            print(f"record: {self.path.relative_to(RESULTS.parent.parent)}")


class TakeTurns:
    """Several trainings in threads that take turns, one epoch each, so that whatever else
    the machine does over the run falls on all of them alike (interleaved runs).

    Only the thread whose turn it is runs; the others wait, spending no CPU time, so each
    run's ``trainer.seconds`` (CPU time of the process) counts its own epochs alone. Each run
    keeps its own random state across the turns: a run gives the results it gives alone.
    """

    def __init__(self, names: list[str]) -> None:
        self.order = list(names)
        self.turn = 0
        self.states: dict[str, torch.Tensor] = {}
        self.changed = threading.Condition()

    def wait(self, name: str) -> None:
        """Block until it is ``name``'s turn; restore its random state."""
        with self.changed:
            self.changed.wait_for(lambda: self.order[self.turn] == name)
        if name in self.states:
            torch.set_rng_state(self.states[name])

    def done(self, name: str, finished: bool = False) -> None:
        """End ``name``'s turn (and its run, when ``finished``); the next run goes on."""
        self.states[name] = torch.get_rng_state()
        with self.changed:
            if finished:
                i = self.order.index(name)
                self.order.remove(name)
                self.turn = i % len(self.order) if self.order else 0
            else:
                self.turn = (self.turn + 1) % len(self.order)
            self.changed.notify_all()


def interleaved(runs: dict[str, Callable[[TakeTurns], None]]) -> None:
    """Run ``{name: run(turns)}`` in threads taking turns by epoch; re-raise the first error.
    Each ``run`` passes ``turns=`` and its ``name=`` to :func:`train`."""
    turns = TakeTurns(list(runs))
    errors: list[BaseException] = []

    def target(name, run):
        try:
            run(turns)
        except BaseException as error:  # noqa: BLE001 -- re-raised in the caller's thread
            errors.append(error)
            with turns.changed:  # let the others go on
                if name in turns.order:
                    turns.order.remove(name)
                    turns.turn = turns.turn % len(turns.order) if turns.order else 0
                turns.changed.notify_all()

    threads = [threading.Thread(target=target, args=item) for item in runs.items()]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]


def train(
    model: nn.Module,
    settings: dict,
    train_ids: list,
    budget: float,
    on_epoch_end: Callable[[Trainer], None],
    seed: int = 0,
    *,
    turns: TakeTurns | None = None,
    name: str = "",
) -> Trainer:
    """Train ``model`` with ``settings`` until ``budget`` training CPU seconds are spent,
    calling ``on_epoch_end(trainer)`` after every epoch. ``seed`` sets the data order and the
    dropout (the caller seeds the initial weights: a run's "seed" is both). With ``turns``
    (see :func:`interleaved`) the run ``name`` trains one epoch per turn."""
    if turns is not None:
        turns.wait(name)
    torch.manual_seed(seed)
    optimizer = torch.optim.Adam(model.parameters(), lr=settings["lr"], betas=(0.9, 0.98))
    trainer = Trainer(
        model,
        lambda logits, target: translation_loss(logits, target, settings["label_smoothing"]),
        optimizer,
        "cpu",
        clip_grad_norm=settings["clip"],
        scheduler=warmup_inverse_sqrt(optimizer, settings["warmup"]),
        ignore_index=PAD,
    )

    def hook(trainer: Trainer) -> None:
        on_epoch_end(trainer)
        trainer.stop_training = trainer.seconds[-1] >= budget
        if turns is not None:
            turns.done(name, finished=trainer.stop_training)
            if not trainer.stop_training:
                turns.wait(name)

    batches = PairBatches(train_ids, settings["batch_size"], shuffle=True)
    return trainer.fit(batches, epochs=10_000, seed=seed, progress=False, on_epoch_end=hook)
