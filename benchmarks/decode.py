"""Decoding speed: three greedy loops (what each step recomputes), and beam search.

    OMP_NUM_THREADS=1 python benchmarks/decode.py [--train 150] [--repeats 3]

Trains the course's Transformer for ``--train`` CPU seconds (the settings of
``benchmarks/translation.py``), then decodes the whole test split greedily three ways, which
must give identical outputs:

* ``everything``: ``model(src, prefix)`` at every step -- the encoder re-run as well;
* ``decoder``: the encoder once, the decoder re-run over the whole prefix at every step
  (the honest cache-free loop);
* ``cache``: the encoder once, the decoder fed the newest token only, with the key/value
  cache.

The figure that measures the cache is ``decoder`` / ``cache``; ``everything`` / ``decoder``
is what running the encoder once saves. Each variant's CPU time is the median of
``--repeats`` runs. Then beam search of width 2, 4 and 8. Prints CPU seconds, the ratios and
test BLEU.
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import sys
import time
from pathlib import Path

import torch

from course_lib.decoding import beam_search, greedy_decode
from course_lib.metrics import corpus_bleu
from course_lib.translation import TranslationConfig, TranslationTransformer
from course_lib.vocab import pad

_spec = importlib.util.spec_from_file_location(
    "translation_benchmark", Path(__file__).with_name("translation.py")
)
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)


def decode_all(decode, model, pairs, src_vocab, batch_size=128):
    outputs = []
    for k in range(0, len(pairs), batch_size):
        src = pad([src_vocab.encode(s) for s, _ in pairs[k : k + batch_size]])
        outputs += list(decode(model, src))
    return outputs


def timed(decode, model, pairs, src_vocab, repeats=1):
    """Outputs and the median CPU seconds of ``repeats`` runs."""
    seconds = []
    for _ in range(repeats):
        start = time.process_time()
        outputs = decode_all(decode, model, pairs, src_vocab)
        seconds.append(time.process_time() - start)
    return outputs, statistics.median(seconds)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--train", type=int, default=150, help="training CPU seconds")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs per variant")
    args = parser.parse_args()
    torch.set_num_threads(1)
    split, src_vocab, tgt_vocab, train = bench.data()
    torch.manual_seed(0)
    config = TranslationConfig(len(src_vocab), len(tgt_vocab), **bench.COURSE["config"])
    model = TranslationTransformer(config)
    bench.CHECKPOINTS = (args.train,)
    bench.run(
        "course", model, greedy_decode, bench.COURSE, args.train, split, src_vocab, tgt_vocab, train
    )
    model.eval()
    refs = [t for _, t in split.test]

    def score(outputs):
        return corpus_bleu([tgt_vocab.decode(o) for o in outputs], refs).score

    runs = {}
    for label, recompute in (
        ("everything", "everything"),
        ("decoder", "decoder"),
        ("cache", "nothing"),
    ):  # what each step re-runs
        runs[label] = timed(
            lambda m, s, r=recompute: greedy_decode(m, s, recompute=r),
            model,
            split.test,
            src_vocab,
            args.repeats,
        )
    same = all(
        torch.equal(a, b)
        for outputs in (runs["everything"][0], runs["decoder"][0])
        for a, b in zip(outputs, runs["cache"][0], strict=True)
    )
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
            lambda m, s, w=width: beam_search(m, s, beam_size=w), model, split.test, src_vocab
        )
        print(f"  beam {width}    {beam_s:7.2f} s   BLEU {score(beams):5.1f}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
