"""Decoding speed: greedy with the key/value cache against recomputation, and beam search.

    OMP_NUM_THREADS=1 python benchmarks/decode.py [--train 150]

Trains the course's Transformer for ``--train`` CPU seconds (the settings of
``benchmarks/translation.py``), then decodes the whole test split: greedy by recomputing the
decoder over the growing prefix, greedy with the cache (the outputs must be identical), and
beam search of width 2, 4 and 8. Prints CPU seconds, the speed-up and test BLEU.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path

import torch

from course_lib.decoding import beam_search, greedy_decode
from course_lib.metrics import corpus_bleu
from course_lib.translation import TranslationConfig, TranslationTransformer
from course_lib.vocab import pad

_spec = importlib.util.spec_from_file_location(
    "translation_benchmark", Path(__file__).with_name("translation.py"))
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)


def decode_all(decode, model, pairs, src_vocab, batch_size=128):
    outputs = []
    for k in range(0, len(pairs), batch_size):
        src = pad([src_vocab.encode(s) for s, _ in pairs[k : k + batch_size]])
        outputs += list(decode(model, src))
    return outputs


def timed(decode, model, pairs, src_vocab):
    start = time.process_time()
    outputs = decode_all(decode, model, pairs, src_vocab)
    return outputs, time.process_time() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--train", type=int, default=150, help="training CPU seconds")
    args = parser.parse_args()
    torch.set_num_threads(1)
    split, src_vocab, tgt_vocab, train = bench.data()
    torch.manual_seed(0)
    config = TranslationConfig(len(src_vocab), len(tgt_vocab), **bench.COURSE["config"])
    model = TranslationTransformer(config)
    bench.CHECKPOINTS = (args.train,)
    bench.run("course", model, greedy_decode, bench.COURSE, args.train, split, src_vocab,
              tgt_vocab, train)
    model.eval()
    refs = [t for _, t in split.test]

    def score(outputs):
        return corpus_bleu([tgt_vocab.decode(o) for o in outputs], refs).score

    slow, slow_s = timed(lambda m, s: greedy_decode(m, s, use_cache=False), model, split.test,
                         src_vocab)
    fast, fast_s = timed(greedy_decode, model, split.test, src_vocab)
    same = all(torch.equal(a, b) for a, b in zip(slow, fast, strict=True))
    print(f"\ngreedy, {len(split.test)} test sentences, batches of 128, CPU seconds:")
    print(f"  recompute {slow_s:7.2f} s   BLEU {score(slow):5.1f}")
    print(f"  cached    {fast_s:7.2f} s   BLEU {score(fast):5.1f}")
    print(f"  speed-up  {slow_s / fast_s:7.2f} x   identical outputs: {same}")
    for width in (2, 4, 8):
        beams, beam_s = timed(lambda m, s, w=width: beam_search(m, s, beam_size=w), model,
                              split.test, src_vocab)
        print(f"  beam {width}    {beam_s:7.2f} s   BLEU {score(beams):5.1f}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
