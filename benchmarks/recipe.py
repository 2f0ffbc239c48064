"""The translation recipe the benchmarks share: data, settings, and a run on the library's loop.

``translation.py``, ``ablations.py`` and ``decode.py`` import this module (they run as scripts
from this folder, so it is on ``sys.path``). Training is :class:`course_lib.train.Trainer`
-- the loop Chapter 5 and the tests use -- stepped per optimiser step by the warm-up
schedule, clipped, with a loss per real token; its end-of-epoch hook is where a benchmark
evaluates, and where a run stops once its budget of training CPU seconds is spent
(``trainer.seconds``: CPU time on one thread, evaluation not counted). Curves are therefore
sampled at epoch ends.
"""

from __future__ import annotations

from collections.abc import Callable

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


def train(
    model: nn.Module,
    settings: dict,
    train_ids: list,
    budget: float,
    on_epoch_end: Callable[[Trainer], None],
    seed: int = 0,
) -> Trainer:
    """Train ``model`` with ``settings`` until ``budget`` training CPU seconds are spent,
    calling ``on_epoch_end(trainer)`` after every epoch. ``seed`` sets the data order and the
    dropout (the caller seeds the initial weights: a run's "seed" is both)."""
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

    batches = PairBatches(train_ids, settings["batch_size"], shuffle=True)
    return trainer.fit(batches, epochs=10_000, seed=seed, progress=False, on_epoch_end=hook)
