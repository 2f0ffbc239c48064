"""Chapter 7's measurements: today's Transformer parts on the book's data, one at a time.

    OMP_NUM_THREADS=1 python benchmarks/modern.py attention [--repeats 30]
    OMP_NUM_THREADS=1 python benchmarks/modern.py memory
    OMP_NUM_THREADS=1 python benchmarks/modern.py cache [--repeats 3]
    OMP_NUM_THREADS=1 python benchmarks/modern.py translation [--budget 600]
    OMP_NUM_THREADS=1 python benchmarks/modern.py positions [--budget 300] [--seeds 0,1,2]
    OMP_NUM_THREADS=1 python benchmarks/modern.py kv-heads [--budget 300]
    OMP_NUM_THREADS=1 python benchmarks/modern.py lengths [--budget 150] [--seeds 0,1,2]

* ``attention``: the course's ``scaled_dot_product_attention`` against PyTorch's fused
  ``F.scaled_dot_product_attention``, forward plus backward, CPU float32, causal mask, median
  time per call in alternating rounds and their ratio, for three lengths.
* ``memory``: the extra peak resident memory of one forward call (no gradients) of each,
  for lengths 1024 to 8192, each call in a fresh process: the course's function holds the
  ``(B, Nh, T, T)`` weights, a fused kernel never materialises them -- memory quadratic
  against linear in ``T``, measured on the CPU.
* ``cache``: the decoder-only model at Chapter 5's width with 1, 2 and 4 (= all) key/value
  heads -- the cache's bytes per token (formula and measured) and the CPU seconds of 20
  greedy steps over the test sentences (decoding speed does not depend on training).
* ``translation``: decoder-only against Chapter 5's encoder-decoder, parameters matched, both
  trained with ``recipe.py`` (the library's ``Trainer``, the course's recipe, seed 0) for
  ``--budget`` CPU seconds; validation and test BLEU at every epoch end; the best epoch of
  each (chosen on validation) compared on test by a paired bootstrap.
* ``positions``: the decoder-only model with rotary, sinusoidal and no positions, over
  ``--seeds``; test BLEU of the best validation epoch.
* ``kv-heads``: the decoder-only model with 1, 2 and 4 key/value heads, over ``--seeds``:
  the quality cost.
* ``lengths``: the three position kinds trained only on pairs whose English has at most
  ``--max-words`` words (validation likewise), then scored on the short test sentences and
  on the longer ones -- target lengths and positions never seen in training.

Greedy decoding and sacrebleu corpus BLEU throughout, on Chapter 5's grouped split.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time

import recipe
import torch
import torch.nn.functional as F

from course_lib.attention import scaled_dot_product_attention
from course_lib.decoder_only import DecoderOnlyConfig, DecoderOnlyTranslator
from course_lib.decoding import translate
from course_lib.masking import causal_mask
from course_lib.metrics import corpus_bleu, paired_bootstrap
from course_lib.tatoeba import Split
from course_lib.translation import TranslationConfig, TranslationTransformer
from course_lib.vocab import SOS, encode_pairs, pad

# Chapter 5's width; the decoder-only stack gets the layers that match its parameters.
DECODER_ONLY = {"d_model": 256, "num_heads": 4, "d_ff": 512, "dropout": 0.1, "num_layers": 5}
SMALL = {"d_model": 128, "d_ff": 256, "num_layers": 3}
SMALL_ENC_DEC = {"d_model": 128, "d_ff": 256}  # 2 + 2 layers, as Chapter 5


def parameters(model: torch.nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())


def timed_rounds(calls: dict, repeats: int, rounds: int = 5) -> dict[str, float]:
    """Median seconds per call of each entry, run in alternating rounds."""
    times = {name: [] for name in calls}
    for _ in range(rounds):
        for name, call in calls.items():
            start = time.perf_counter()
            for _ in range(repeats):
                call()
            times[name].append((time.perf_counter() - start) / repeats)
    return {name: statistics.median(t) for name, t in times.items()}


def attention(args) -> None:
    print("forward + backward, B=32, 4 heads of 64, float32, causal; median s per call")
    for T in (32, 128, 512):
        q, k, v = (torch.randn(32, 4, T, 64, requires_grad=True) for _ in range(3))
        mask = causal_mask(T)

        def course(q=q, k=k, v=v, mask=mask):
            out, _ = scaled_dot_product_attention(q, k, v, attn_mask=mask)
            out.sum().backward()

        def fused(q=q, k=k, v=v):
            F.scaled_dot_product_attention(q, k, v, is_causal=True).sum().backward()

        t = timed_rounds({"course": course, "fused": fused}, args.repeats)
        print(
            f"  T={T:4d}  course {t['course'] * 1e3:8.2f} ms  fused {t['fused'] * 1e3:8.2f} ms"
            f"  course / fused = {t['course'] / t['fused']:5.2f}"
        )


MEMORY_PROBE = """
import resource, sys, torch, torch.nn.functional as F
from course_lib.attention import scaled_dot_product_attention
torch.set_num_threads(1)
kind, T = sys.argv[1], int(sys.argv[2])
def call(q, k, v):
    if kind == "course":
        return scaled_dot_product_attention(q, k, v)[0]
    return F.scaled_dot_product_attention(q, k, v)
with torch.no_grad():
    call(*(torch.randn(1, 4, 8, 64) for _ in range(3)))  # load the kernels
    q, k, v = (torch.randn(1, 4, T, 64) for _ in range(3))
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    out = call(q, k, v)
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print((after - before) / 1024)  # ru_maxrss is in KiB on Linux
"""


def memory(args) -> None:
    import subprocess

    print("extra peak memory of one forward call, B=1, 4 heads of 64, float32, no mask (MiB)")
    print(f"  {'T':>5}  {'course':>8}  {'fused':>8}  weights (B, Nh, T, T) alone")
    for T in (1024, 2048, 4096, 8192):
        got = {
            kind: float(
                subprocess.run(
                    [sys.executable, "-c", MEMORY_PROBE, kind, str(T)],
                    capture_output=True,
                    text=True,
                    check=True,
                ).stdout
            )
            for kind in ("course", "fused")
        }
        print(f"  {T:5d}  {got['course']:8.1f}  {got['fused']:8.1f}  {4 * T * T * 4 / 2**20:8.1f}")


def cache(args, data) -> None:
    split, src_vocab, tgt_vocab, _ = data
    src = [src_vocab.encode(s) for s, _ in split.test]
    print("decoder-only, d_model 256, 4 heads of 64, 5 layers; 20 greedy steps, test split")
    for kv_heads in (1, 2, 4):
        torch.manual_seed(0)
        config = DecoderOnlyConfig(
            len(src_vocab), len(tgt_vocab), **DECODER_ONLY, num_kv_heads=kv_heads
        )
        model = DecoderOnlyTranslator(config).eval()
        formula = config.num_layers * 2 * kv_heads * (config.d_model // config.num_heads) * 4
        seconds, measured = [], 0
        for _ in range(args.repeats):
            start = time.process_time()
            with torch.no_grad():
                for k in range(0, len(src), 128):
                    c = model.init_cache(pad(src[k : k + 128]))
                    tokens = torch.full((c.pads.shape[0], 1), SOS)
                    for _ in range(20):
                        logits, c, _ = model.step(tokens, c)
                        tokens = logits[:, -1:].argmax(-1)
                    # bytes of one token's keys and values, all layers: (Nkv, Dh) each
                    measured = sum(
                        kv.key[0, :, 0].nbytes + kv.value[0, :, 0].nbytes for kv in c.layers
                    )
            seconds.append(time.process_time() - start)
        print(
            f"  {kv_heads} key/value heads: {formula:6,d} bytes per token (measured {measured:,})"
            f"  {parameters(model):,} parameters  decode {statistics.median(seconds):6.2f} CPU s"
        )


def train_and_score(name, model, budget, data, settings=recipe.COURSE):
    """Train with the recipe; returns ``[(seconds, epoch, validation BLEU, test outputs)]``."""
    split, src_vocab, tgt_vocab, train_ids = data
    val_fr, val_en = [s for s, _ in split.validation], [t for _, t in split.validation]
    test_fr, test_en = [s for s, _ in split.test], [t for _, t in split.test]
    curve = []

    def evaluate(trainer):
        val = corpus_bleu(translate(model, val_fr, src_vocab, tgt_vocab), val_en).score
        hyps = translate(model, test_fr, src_vocab, tgt_vocab)
        curve.append((trainer.seconds[-1], trainer.epochs, val, hyps))
        print(
            f"  {name:22} {trainer.seconds[-1]:6.0f} CPU s  epoch {trainer.epochs:3d}  "
            f"validation {val:5.1f}  test {corpus_bleu(hyps, test_en).score:5.1f}",
            flush=True,
        )

    recipe.train(model, settings, train_ids, budget, evaluate)
    return curve


def best(curve):
    return max(curve, key=lambda point: point[2])  # chosen on validation BLEU


def decoder_only(data, seed=0, **changes) -> DecoderOnlyTranslator:
    _, src_vocab, tgt_vocab, _ = data
    torch.manual_seed(seed)
    return DecoderOnlyTranslator(
        DecoderOnlyConfig(len(src_vocab), len(tgt_vocab), **{**DECODER_ONLY, **changes})
    )


def translation(args, data) -> None:
    split, src_vocab, tgt_vocab, _ = data
    refs = [t for _, t in split.test]
    torch.manual_seed(0)
    builders = {
        "encoder-decoder": lambda: TranslationTransformer(
            TranslationConfig(len(src_vocab), len(tgt_vocab), **recipe.COURSE["config"])
        ),
        "decoder-only": lambda: decoder_only(data),
        "decoder-only, prefix": lambda: decoder_only(data, prefix_mask=True),
        # Chapter 7's in-notebook model: a third of the parameters, twice the learning rate
        "decoder-only, small": lambda: decoder_only(data, **SMALL),
        # Chapter 5's encoder-decoder at the same width and rate, for a like-for-like pair
        "encoder-decoder, small": lambda: TranslationTransformer(
            TranslationConfig(
                len(src_vocab), len(tgt_vocab), **{**recipe.COURSE["config"], **SMALL_ENC_DEC}
            )
        ),
    }
    names = args.models.split(";") if args.models else list(builders)[:3]
    curves = {}
    for name in names:
        torch.manual_seed(0)
        model = builders[name]()
        settings = {**recipe.COURSE, "lr": 2e-3} if name.endswith("small") else recipe.COURSE
        print(f"{name}: {parameters(model):,} parameters, lr {settings['lr']}", flush=True)
        curves[name] = train_and_score(name, model, args.budget, data, settings)
    print("\nbest epoch on validation, scored on test:")
    for name, curve in curves.items():
        seconds, epoch, val, hyps = best(curve)
        print(
            f"  {name:22} {seconds:5.0f} s, epoch {epoch}: {corpus_bleu(hyps, refs, n_bootstrap=1000)}"
        )
    names = list(curves)
    for other in names[1:]:
        print(
            f"  {other} - {names[0]}: {paired_bootstrap(best(curves[other])[3], best(curves[names[0]])[3], refs)}"
        )


def positions(args, data) -> None:
    refs = [t for _, t in data[0].test]
    for kind in ("rotary", "sinusoidal", "none"):
        scores = []
        for seed in args.seeds:
            print(f"{kind}, seed {seed}", flush=True)
            model = decoder_only(data, seed, positions=kind)
            hyps = best(train_and_score(kind, model, args.budget, data))[3]
            scores.append(corpus_bleu(hyps, refs).score)
        print(
            f"  {kind:10} test BLEU by seed {[round(s, 1) for s in scores]}, "
            f"median {statistics.median(scores):.1f}",
            flush=True,
        )


def lengths(args, data) -> None:
    split, src_vocab, tgt_vocab, _ = data

    def short(pairs):
        return [(s, t) for s, t in pairs if len(t.split()) <= args.max_words]

    short_split = Split(short(split.train), short(split.validation), split.test)
    train_ids = encode_pairs(short_split.train, src_vocab, tgt_vocab)
    short_data = (short_split, src_vocab, tgt_vocab, train_ids)
    refs = [t for _, t in split.test]
    groups = {
        "short": [i for i, t in enumerate(refs) if len(t.split()) <= args.max_words],
        "long": [i for i, t in enumerate(refs) if len(t.split()) > args.max_words],
    }
    print(
        f"training on {len(train_ids)} pairs with <= {args.max_words} English words "
        f"(longest target {max(len(t) for _, t in train_ids)} tokens with <eos>); test: "
        f"{len(groups['short'])} short, {len(groups['long'])} long sentences"
    )
    for kind in ("rotary", "sinusoidal", "none"):
        scores = {"short": [], "long": []}
        for seed in args.seeds:
            print(f"{kind}, seed {seed}", flush=True)
            model = decoder_only(data, seed, positions=kind)
            hyps = best(train_and_score(kind, model, args.budget, short_data))[3]
            for group, rows in groups.items():
                got = corpus_bleu([hyps[i] for i in rows], [refs[i] for i in rows]).score
                scores[group].append(got)
        print(
            "  "
            + "; ".join(
                f"{kind} {group} BLEU by seed {[round(s, 1) for s in got]}, "
                f"median {statistics.median(got):.1f}"
                for group, got in scores.items()
            ),
            flush=True,
        )


def kv_heads(args, data) -> None:
    refs = [t for _, t in data[0].test]
    for seed in args.seeds:
        for heads in (4, 2, 1):
            model = decoder_only(data, seed, num_kv_heads=heads)
            print(
                f"{heads} key/value heads, seed {seed}: {parameters(model):,} parameters",
                flush=True,
            )
            hyps = best(train_and_score(f"kv heads {heads}", model, args.budget, data))[3]
            print(
                f"  {heads} key/value heads, seed {seed}: test "
                f"{corpus_bleu(hyps, refs, n_bootstrap=1000)}"
            )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "what",
        choices=["attention", "memory", "cache", "translation", "positions", "kv-heads", "lengths"],
    )
    parser.add_argument("--max-words", type=int, default=6, help="lengths: training cut")
    parser.add_argument("--repeats", type=int, default=None)
    parser.add_argument("--budget", type=int, default=600, help="training CPU seconds per model")
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument(
        "--models",
        default=None,
        help="translation: separated by semicolons, from encoder-decoder, decoder-only, "
        "'decoder-only, prefix', 'decoder-only, small' (default: the first three)",
    )
    args = parser.parse_args()
    args.seeds = [int(s) for s in args.seeds.split(",")]
    torch.set_num_threads(1)
    print(f"{platform.processor() or platform.machine()}, torch {torch.__version__}, 1 thread")
    if args.what == "attention":
        args.repeats = args.repeats or 30
        attention(args)
        return 0
    if args.what == "memory":
        memory(args)
        return 0
    args.repeats = args.repeats or 3
    data = recipe.data()
    run = {
        "cache": cache,
        "translation": translation,
        "positions": positions,
        "kv-heads": kv_heads,
        "lengths": lengths,
    }
    run[args.what](args, data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
