"""What each setting of the course's Transformer buys: one change at a time, on validation.

    OMP_NUM_THREADS=1 python benchmarks/ablations.py [--budget 240] [--only baseline,pre_ln]

Every variant starts from ``COURSE`` in ``benchmarks/translation.py``, changes one thing,
trains for ``--budget`` CPU seconds on one thread (seed 0, the same protocol) and prints
greedy BLEU on the **validation** split (the test split is for the final figure only) at half
and at the full budget. The baseline is also evaluated two more ways: ``checkpoint_avg``
averages the weights of the last three epoch ends with the final ones before decoding;
``beam4`` decodes with a beam of 4. Every variant is then compared with the baseline at the
full budget by a paired bootstrap on the validation sentences (BLEU difference, its 95 %
interval, and whether the interval excludes 0). One seed: the interval covers the
sentences' sampling, not the training run's own variation between seeds.
"""

from __future__ import annotations

import argparse
import copy
import importlib.util
import sys
import time
from pathlib import Path

import torch
from torch import nn

from course_lib.decoding import beam_search, greedy_decode
from course_lib.metrics import corpus_bleu, paired_bootstrap
from course_lib.schedules import warmup_inverse_sqrt
from course_lib.translation import TranslationConfig, TranslationTransformer, translation_loss
from course_lib.vocab import pair_batches

_spec = importlib.util.spec_from_file_location(
    "translation_benchmark", Path(__file__).with_name("translation.py")
)
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)

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


def settings_for(name: str) -> dict:
    change = VARIANTS[name]
    settings = {**copy.deepcopy(bench.COURSE), **{k: v for k, v in change.items() if k != "config"}}
    settings["config"] = {**bench.COURSE["config"], **change.get("config", {})}
    return settings


def average(states: list[dict]) -> dict:
    return {k: sum(s[k].float() for s in states) / len(states) for k in states[0]}


def train(name, budget, split, src_vocab, tgt_vocab, train_pairs):
    settings = settings_for(name)
    torch.manual_seed(0)
    config = TranslationConfig(len(src_vocab), len(tgt_vocab), **settings["config"])
    model = TranslationTransformer(config)
    optimizer = torch.optim.Adam(model.parameters(), lr=settings["lr"], betas=(0.9, 0.98))
    scheduler = warmup_inverse_sqrt(optimizer, settings["warmup"])
    generator = torch.Generator().manual_seed(0)
    checkpoints, spent, epoch, ends = [budget // 2, budget], 0.0, 0, []
    outputs = {n: [] for n in (name, *(EXTRAS if name == "baseline" else ()))}  # translations
    while checkpoints:
        epoch += 1
        model.train()
        for batch in pair_batches(
            train_pairs, settings["batch_size"], shuffle=True, generator=generator
        ):
            start = time.process_time()
            loss = translation_loss(
                model(batch.src, batch.tgt_in), batch.tgt_out, settings["label_smoothing"]
            )
            optimizer.zero_grad()
            loss.backward()
            if settings["clip"]:
                nn.utils.clip_grad_norm_(model.parameters(), settings["clip"])
            optimizer.step()
            scheduler.step()
            spent += time.process_time() - start
            if spent >= checkpoints[0]:
                checkpoints.pop(0)
                for n in outputs:
                    evaluated, decode = model, greedy_decode
                    if n == "checkpoint_avg" and ends:
                        evaluated = copy.deepcopy(model)
                        evaluated.load_state_dict(average(ends[-3:] + [model.state_dict()]))
                    if n == "beam4":

                        def decode(m, s):
                            return beam_search(m, s, beam_size=4)

                    outputs[n].append(
                        bench.translate(evaluated, decode, split.validation, src_vocab, tgt_vocab)
                    )
                model.train()
                if not checkpoints:
                    break
        ends.append(copy.deepcopy(model.state_dict()))
    return outputs, epoch, sum(p.numel() for p in model.parameters())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=int, default=240, help="training CPU seconds")
    parser.add_argument("--only", help="comma-separated variant names")
    args = parser.parse_args()
    torch.set_num_threads(1)
    split, src_vocab, tgt_vocab, train_pairs = bench.data()
    names = args.only.split(",") if args.only else list(VARIANTS)
    refs = [t for _, t in split.validation]
    print(f"validation BLEU (greedy unless named), {args.budget} CPU s of training, 1 thread")
    print(
        f"{'variant':20} {'params':>10} {'epochs':>6} {'BLEU@' + str(args.budget // 2):>9} "
        f"{'BLEU@' + str(args.budget):>9}   vs. baseline at {args.budget} s (paired bootstrap)",
        flush=True,
    )
    baseline = None
    for name in names:
        outputs, epochs, params = train(name, args.budget, split, src_vocab, tgt_vocab, train_pairs)
        baseline = outputs["baseline"][1] if "baseline" in outputs else baseline
        for n, (half, full) in outputs.items():
            versus = ""
            if baseline is not None and n != "baseline":
                result = paired_bootstrap(full, baseline, refs)
                versus = (
                    f"{result.delta:+5.1f} [{result.low:+5.1f}, {result.high:+5.1f}]"
                    f"{'  significant' if result.significant else ''}"
                )
            print(
                f"{n:20} {params:10,d} {epochs:6d} {corpus_bleu(half, refs).score:9.1f} "
                f"{corpus_bleu(full, refs).score:9.1f}   {versus}",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
