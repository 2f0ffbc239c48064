"""What each setting of the course's Transformer buys: one change at a time, on validation.

    OMP_NUM_THREADS=1 python benchmarks/ablations.py [--budget 240] [--only baseline,pre_ln]

Every variant starts from ``COURSE`` in ``benchmarks/recipe.py``, changes one thing,
trains for ``--budget`` CPU seconds on one thread (seed 0, the same protocol, the library's
``Trainer``) and prints greedy BLEU on the **validation** split (the test split is for the
final figure only) at the last epoch end within half the budget and at the last epoch (the
one that spent the budget). The baseline is also evaluated two more ways:
``checkpoint_avg`` averages the weights of the three epoch ends before the last with the
last one before decoding;
``beam4`` decodes with a beam of 4. Every variant is then compared with the baseline at the
full budget by a paired bootstrap on the validation sentences (BLEU difference, its 95 %
interval and p-value), resampling whole groups of pairs that share a sentence (the split keeps
them together), and the p-values of the table's comparisons with the baseline are
Holm-adjusted as one family: "significant" means the adjusted p-value is at most 0.05. The
paired tests draw ``N_SAMPLES`` = 10,000 resamples, so that the smallest adjusted p-value of
the 16 comparisons (16 x 2 / 10,001 = 0.0032) lies far below 0.05; the 2026-11-26 record was
made with the earlier 1,000, whose floor, 0.032 after Holm, is the beam's "0.032" there (its
translations were not kept, so it cannot be recomputed). One seed: the interval covers the
sentences' sampling, not the training run's own variation between seeds.

The variants' epochs are interleaved (``recipe.interleaved``: one epoch of each in turn), so
that whatever else the machine does falls on all of them alike. Each row's figures are read
at epoch ends: "BLEU@half" after the last epoch that ended within half the budget, "BLEU@full"
after the epoch that spent the budget (so a variant may train a little past it; its epochs
are printed). The record is ``benchmarks/results/<date>_ablations.txt``.
"""

from __future__ import annotations

import argparse
import copy
import functools
import sys

import recipe
import torch
from recipe import Record

from course_lib.decoding import beam_search, greedy_decode, translate
from course_lib.metrics import corpus_bleu, paired_bootstrap
from course_lib.multiple_comparisons import holm
from course_lib.tatoeba import group_labels
from course_lib.translation import TranslationConfig, TranslationTransformer

VARIANTS = {
    "baseline": {},
    "untied": {"config": {"tie_embeddings": False}},
    "pre_ln": {"config": {"add_norm": "pre"}},
    "no_label_smoothing": {"label_smoothing": 0.0},
    "no_clipping": {"clip": None},
    "lr_5e-4": {"lr": 5e-4},
    "lr_2e-3": {"lr": 2e-3},
    "warmup_100": {"warmup": 100},
    "warmup_1000": {"warmup": 1000},
    "batch_32": {"batch_size": 32},
    "batch_128": {"batch_size": 128},
    "dropout_0": {"config": {"dropout": 0.0}},
    "dropout_0.2": {"config": {"dropout": 0.2}},
    "d_model_128": {"config": {"d_model": 128, "d_ff": 256}},
    "layers_3+3": {"config": {"num_encoder_layers": 3, "num_decoder_layers": 3}},
}
EXTRAS = ("checkpoint_avg", "beam4")  # the baseline's training, evaluated differently
N_SAMPLES = 10_000  # paired-bootstrap resamples: p-values down to 2 / 10,001


def settings_for(name: str) -> dict:
    change = VARIANTS[name]
    settings = {
        **copy.deepcopy(recipe.COURSE),
        **{k: v for k, v in change.items() if k != "config"},
    }
    settings["config"] = {**recipe.COURSE["config"], **change.get("config", {})}
    return settings


def average(states: list[dict]) -> dict:
    return {k: sum(s[k].float() for s in states) / len(states) for k in states[0]}


def train(name, budget, split, src_vocab, tgt_vocab, train_ids, turns=None):
    """Train one variant (taking ``turns`` with the others); returns ``({evaluation:
    [validation translations at half, at the full budget]}, epochs, parameters)``."""
    settings = settings_for(name)
    torch.manual_seed(0)
    config = TranslationConfig(len(src_vocab), len(tgt_vocab), **settings["config"])
    model = TranslationTransformer(config)
    val_fr = [s for s, _ in split.validation]
    decoders = {name: greedy_decode}
    if name == "baseline":
        decoders.update(
            checkpoint_avg=greedy_decode, beam4=functools.partial(beam_search, beam_size=4)
        )
    ends, half = [], {}

    def outputs(model_for):
        return {
            n: translate(model_for(n), val_fr, src_vocab, tgt_vocab, decode=d)
            for n, d in decoders.items()
        }

    def averaged(n):
        if n != "checkpoint_avg" or len(ends) < 2:
            return model
        evaluated = copy.deepcopy(model)
        evaluated.load_state_dict(average(ends[-4:]))  # three earlier epoch ends and the last
        return evaluated

    def end_of_epoch(trainer):
        ends.append(copy.deepcopy(model.state_dict()))
        if trainer.seconds[-1] <= budget / 2 or "state" not in half:
            half["state"] = ends[-1]
        del ends[:-4]  # the averaging needs the last four

    trainer = recipe.train(model, settings, train_ids, budget, end_of_epoch, turns=turns, name=name)
    full = outputs(averaged)
    last = copy.deepcopy(model.state_dict())
    model.load_state_dict(half["state"])
    at_half = outputs(lambda n: model)  # no averaging before the half-way epoch
    model.load_state_dict(last)
    return (
        {n: (at_half[n], full[n]) for n in decoders},
        trainer.epochs,
        sum(p.numel() for p in model.parameters()),
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=int, default=240, help="training CPU seconds")
    parser.add_argument("--only", help="comma-separated variant names")
    parser.add_argument("--record", default="ablations", help="record name ('' for none)")
    args = parser.parse_args()
    torch.set_num_threads(1)
    names = args.only.split(",") if args.only else list(VARIANTS)
    unknown = sorted(set(names) - set(VARIANTS))
    if unknown:
        parser.error(f"--only names unknown variants {unknown}; known: {', '.join(VARIANTS)}")
    with Record(args.record or "ablations", enabled=bool(args.record)):
        run_all(names, args.budget)
    return 0


def run_all(names, budget) -> None:
    split, src_vocab, tgt_vocab, train_ids = recipe.data()
    refs = [t for _, t in split.validation]
    groups = group_labels(split.validation)
    print(
        f"validation BLEU (greedy unless named), {budget} CPU s of training, 1 thread, "
        f"epochs interleaved; validation: {len(refs)} pairs in {len(set(groups))} groups"
    )
    results = {}
    recipe.interleaved(
        {
            name: (
                lambda turns, name=name: results.__setitem__(
                    name, train(name, budget, split, src_vocab, tgt_vocab, train_ids, turns)
                )
            )
            for name in names
        }
    )
    rows = []  # (name, params, epochs, half, full)
    for name in names:
        outputs, epochs, params = results[name]
        rows += [(n, params, epochs, half, full) for n, (half, full) in outputs.items()]
    baseline = next((full for n, _, _, _, full in rows if n == "baseline"), None)
    versus = {}
    if baseline is not None:
        compared = {
            n: paired_bootstrap(full, baseline, refs, groups=groups, n_samples=N_SAMPLES)
            for n, _, _, _, full in rows
            if n != "baseline"
        }
        adjusted = holm({n: r.p_value for n, r in compared.items()})
        for n, r in compared.items():
            versus[n] = (
                f"{r.delta:+5.1f} [{r.low:+5.1f}, {r.high:+5.1f}]  p {r.p_value:.4f}  "
                f"Holm {adjusted[n]:.4f}{'  significant' if adjusted[n] <= 0.05 else ''}"
            )
    print(
        f"\n{'variant':20} {'params':>10} {'epochs':>6} {'BLEU@' + str(budget // 2):>9} "
        f"{'BLEU@' + str(budget):>9}   vs. baseline at {budget} s (paired bootstrap, "
        f"{N_SAMPLES:,} resamples of groups; Holm over {len(versus)})"
    )
    for n, params, epochs, half, full in rows:
        print(
            f"{n:20} {params:10,d} {epochs:6d} {corpus_bleu(half, refs).score:9.1f} "
            f"{corpus_bleu(full, refs).score:9.1f}   {versus.get(n, '')}",
            flush=True,
        )


if __name__ == "__main__":
    sys.exit(main())
