"""Decoding speed: three greedy loops (what each step recomputes), and beam search.

    OMP_NUM_THREADS=1 python benchmarks/decode.py [--train 150] [--repeats 3]

Trains the course's Transformer for ``--train`` CPU seconds (``benchmarks/recipe.py``: the
course's settings on the library's ``Trainer``; it stops at the first epoch end past the
budget), then decodes the whole test split greedily three ways, which
must give identical outputs:

* ``everything``: ``model(src, prefix)`` at every step -- the encoder re-run as well;
* ``decoder``: the encoder once, the decoder re-run over the whole prefix at every step
  (the honest cache-free loop);
* ``cache``: the encoder once, the decoder fed the newest token only, with the key/value
  cache.

The figure that measures the cache is ``decoder`` / ``cache``; ``everything`` / ``decoder``
is what running the encoder once saves. Each variant's CPU time is the median of
``--repeats`` runs. Then beam search of width 2, 4 and 8. Prints CPU seconds, the ratios and
test BLEU. The record is ``benchmarks/results/<date>_decode.txt``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import recipe
import torch

from course_lib.decoding import beam_search, greedy_decode, translate
from course_lib.metrics import corpus_bleu
from course_lib.translation import TranslationConfig, TranslationTransformer


def timed(decode, model, sentences, src_vocab, tgt_vocab, repeats=1):
    """Output sentences and the median CPU seconds of ``repeats`` runs (batches of 128)."""
    seconds = []
    for _ in range(repeats):
        start = time.process_time()
        outputs = translate(model, sentences, src_vocab, tgt_vocab, decode=decode, batch_size=128)
        seconds.append(time.process_time() - start)
    return outputs, statistics.median(seconds)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--train", type=int, default=150, help="training CPU seconds")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs per variant")
    parser.add_argument("--record", default="decode", help="record name ('' for none)")
    args = parser.parse_args()
    torch.set_num_threads(1)
    with recipe.Record(args.record or "decode", enabled=bool(args.record)):
        return run_all(args)


def run_all(args) -> int:
    split, src_vocab, tgt_vocab, train_ids = recipe.data()
    torch.manual_seed(0)
    config = TranslationConfig(len(src_vocab), len(tgt_vocab), **recipe.COURSE["config"])
    model = TranslationTransformer(config)
    trainer = recipe.train(model, recipe.COURSE, train_ids, args.train, lambda trainer: None)
    print(f"trained {trainer.epochs} epochs, {trainer.seconds[-1]:.0f} CPU s")
    model.eval()
    sentences = [s for s, _ in split.test]
    refs = [t for _, t in split.test]

    def score(outputs):
        return corpus_bleu(outputs, refs).score

    runs = {}
    for label, recompute in (
        ("everything", "everything"),
        ("decoder", "decoder"),
        ("cache", "nothing"),
    ):  # what each step re-runs
        runs[label] = timed(
            lambda m, s, r=recompute: greedy_decode(m, s, recompute=r),
            model,
            sentences,
            src_vocab,
            tgt_vocab,
            args.repeats,
        )
    same = runs["everything"][0] == runs["decoder"][0] == runs["cache"][0]
    print(
        f"\ngreedy, {len(split.test)} test sentences, batches of 128, CPU seconds "
        f"(median of {args.repeats}):"
    )
    for label, (outputs, seconds) in runs.items():
        name = "key/value cache" if label == "cache" else f"re-run {label}"
        print(f"  {name:20} {seconds:7.2f} s   BLEU {score(outputs):5.1f}")
    t = {label: seconds for label, (_, seconds) in runs.items()}
    print(f"  the cache:            decoder / cache      = {t['decoder'] / t['cache']:5.2f} x")
    print(f"  encoding once:        everything / decoder = {t['everything'] / t['decoder']:5.2f} x")
    print(f"  both:                 everything / cache   = {t['everything'] / t['cache']:5.2f} x")
    print(f"  identical outputs: {same}")
    for width in (2, 4, 8):
        beams, beam_s = timed(
            lambda m, s, w=width: beam_search(m, s, beam_size=w),
            model,
            sentences,
            src_vocab,
            tgt_vocab,
        )
        print(f"  beam {width}    {beam_s:7.2f} s   BLEU {score(beams):5.1f}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
