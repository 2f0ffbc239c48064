"""Chapter 7's measurements: today's Transformer parts on the book's data, one at a time.

    OMP_NUM_THREADS=1 python benchmarks/modern.py attention [--repeats 30]
    OMP_NUM_THREADS=1 python benchmarks/modern.py memory
    OMP_NUM_THREADS=1 python benchmarks/modern.py cache [--repeats 3]
    OMP_NUM_THREADS=1 python benchmarks/modern.py translation [--budget 300] [--models "a;b"]
        [--lrs 0.0005,0.001,0.002] [--seeds 0] [--save runs.json]
    OMP_NUM_THREADS=1 python benchmarks/modern.py compare runs.json [more.json ...]
    OMP_NUM_THREADS=1 python benchmarks/modern.py positions [--budget 150] [--seeds 0,1,2]
    OMP_NUM_THREADS=1 python benchmarks/modern.py kv-heads [--budget 150] [--heads 4,2,1]
        [--epoch 4]
    OMP_NUM_THREADS=1 python benchmarks/modern.py lengths [--budget 150] [--max-position 12]
    OMP_NUM_THREADS=1 python benchmarks/modern.py blocks [--budget 150] [--seeds 0,1,2]

* ``attention``: the course's ``scaled_dot_product_attention`` against PyTorch's fused
  ``F.scaled_dot_product_attention``, forward plus backward, CPU float32, causal mask, median
  time per call in alternating rounds and their ratio, for three lengths.
* ``memory``: the extra peak resident memory of one forward call (no gradients) of each,
  for lengths 1024 to 8192, each call in a fresh process: the course's function holds the
  ``(B, Nh, T, T)`` weights, a fused kernel never materialises them -- memory quadratic
  against linear in ``T``, measured (approximately: whole pages) on the CPU.
* ``cache``: the decoder-only model at Chapter 5's width with 1, 2 and 4 (= all) key/value
  heads -- the cache's bytes per token (formula, and read from the cache tensors) and the
  CPU seconds of 20 greedy steps over the test sentences (decoding speed does not depend
  on training).
* ``translation``: each of ``--models`` at each of ``--lrs`` and ``--seeds``, trained with
  ``recipe.py`` (the library's ``Trainer``, the course's recipe) for ``--budget`` CPU
  seconds; validation and test BLEU at every epoch end; the best epoch of each run chosen on
  validation. ``--save`` keeps every run's curve and test outputs for ``compare``.
* ``compare``: per model, the learning rate with the best mean validation BLEU (the test
  set chooses nothing); then each model's chosen runs against the first model's, seed by
  seed, by a paired bootstrap on the same test sentences.
* ``positions``: the decoder-only model with rotary, sinusoidal and no positions
  (``--kinds``), over ``--seeds``; test BLEU of the best validation epoch.
* ``kv-heads``: the decoder-only model with ``--heads`` key/value heads, over ``--seeds``:
  the quality cost at equal time (best validation epoch in the budget) and at equal
  epochs (``--epoch``).
* ``lengths``: positional extrapolation -- each kind trained (and validated) only on pairs
  whose joined sequence (French, separator, English) ends by position ``--max-position``
  (from 0), then
  scored on the test pairs that fit and on those that need 1-3 or 4 and more positions
  beyond any training sequence; BLEU, length ratio and brevity penalty per group.
* ``blocks``: the rotary decoder-only model with today's block parts (RMSNorm, SwiGLU) at
  about the same parameters, over ``--seeds``; compare with ``positions``' rotary rows.

A run's seed sets its initial weights, data order and dropout. Greedy decoding and
sacrebleu corpus BLEU throughout, on Chapter 5's grouped split.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time

import recipe
import sacrebleu
import torch
import torch.nn.functional as F
from seed_statistics import permutation_p, seed_interval

from course_lib.attention import scaled_dot_product_attention
from course_lib.decoder_only import DecoderOnlyConfig, DecoderOnlyTranslator
from course_lib.decoding import translate
from course_lib.masking import causal_mask
from course_lib.metrics import corpus_bleu, paired_bootstrap
from course_lib.tatoeba import Split, sentence_groups
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


def train_and_score(name, model, budget, data, settings=recipe.COURSE, seed=0):
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

    recipe.train(model, settings, train_ids, budget, evaluate, seed=seed)
    return curve


def best(curve):
    return max(curve, key=lambda point: point[2])  # chosen on validation BLEU


def at_epoch(curve, epoch, refs):
    """Test BLEU at the end of ``epoch`` (equal-epoch comparisons); nan if the run stopped
    before it."""
    point = next((p for p in curve if p[1] == epoch), None)
    return float("nan") if point is None else corpus_bleu(point[3], refs).score


def report(label, curve, refs, epoch) -> None:
    """One run's line: its best validation epoch scored on test, and test BLEU at ``epoch``."""
    seconds, best_epoch, _, hyps = best(curve)
    print(
        f"  {label}: best epoch {best_epoch} ({seconds:.0f} s): test "
        f"{corpus_bleu(hyps, refs, n_bootstrap=1000)}; at epoch {epoch}: test BLEU "
        f"{at_epoch(curve, epoch, refs):.1f}",
        flush=True,
    )


def decoder_only(data, seed=0, **changes) -> DecoderOnlyTranslator:
    _, src_vocab, tgt_vocab, _ = data
    torch.manual_seed(seed)
    return DecoderOnlyTranslator(
        DecoderOnlyConfig(len(src_vocab), len(tgt_vocab), **{**DECODER_ONLY, **changes})
    )


def encoder_decoder(data, seed=0, **changes) -> TranslationTransformer:
    _, src_vocab, tgt_vocab, _ = data
    torch.manual_seed(seed)
    return TranslationTransformer(
        TranslationConfig(len(src_vocab), len(tgt_vocab), **{**recipe.COURSE["config"], **changes})
    )


MODELS = {
    "encoder-decoder": lambda data, seed: encoder_decoder(data, seed),
    "decoder-only": lambda data, seed: decoder_only(data, seed),
    "decoder-only, prefix": lambda data, seed: decoder_only(data, seed, prefix_mask=True),
    # Chapter 7's in-notebook model, and Chapter 5's encoder-decoder at its width
    "decoder-only, small": lambda data, seed: decoder_only(data, seed, **SMALL),
    "encoder-decoder, small": lambda data, seed: encoder_decoder(data, seed, **SMALL_ENC_DEC),
}


def translation(args, data) -> None:
    """Every model at every learning rate and seed; the rate of each model chosen on
    validation (mean over seeds of the best validation BLEU); the runs' test outputs saved
    with ``--save`` for paired comparisons across runs (``compare``)."""
    refs = [t for _, t in data[0].test]
    names = args.models.split(";") if args.models else list(MODELS)[:3]
    runs = []
    for name in names:
        for lr in args.lrs:
            for seed in args.seeds:
                model = MODELS[name](data, seed)
                label = f"{name}, lr {lr:g}, seed {seed}"
                print(f"{label}: {parameters(model):,} parameters", flush=True)
                curve = train_and_score(
                    name, model, args.budget, data, {**recipe.COURSE, "lr": lr}, seed
                )
                seconds, epoch, val, hyps = best(curve)
                runs.append(
                    {
                        "model": name,
                        "lr": lr,
                        "seed": seed,
                        "parameters": parameters(model),
                        "budget": args.budget,
                        "curve": [[round(p[0], 1), p[1], round(p[2], 2)] for p in curve],
                        "best": {"seconds": round(seconds, 1), "epoch": epoch, "validation": val},
                        "test": hyps,
                    }
                )
    print("\nbest epoch on validation, scored on test:")
    for run in runs:
        b = run["best"]
        print(
            f"  {run['model']:22} lr {run['lr']:<6g} seed {run['seed']}  {b['seconds']:5.0f} s, "
            f"epoch {b['epoch']:2d}, validation {b['validation']:5.1f}: "
            f"test {corpus_bleu(run['test'], refs, n_bootstrap=1000)}"
        )
    if args.save:
        with open(args.save, "w") as f:
            json.dump(runs, f)
        print(f"runs saved to {args.save}")


def holm(p_values):
    """Holm's step-down adjustment: a family of tests at one overall error rate."""
    order = sorted(range(len(p_values)), key=p_values.__getitem__)
    adjusted, running = [0.0] * len(p_values), 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(p_values) - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted


def compare(args, data) -> None:
    """Load saved runs; per model, the learning rate with the best mean validation BLEU over
    the seeds run at every rate;
    then every other model's chosen runs against the first model's: seed by seed (the
    library's paired bootstrap over sentences), and, where each side has two seeds or more,
    over all seeds by a small-sample t interval (seed term plus test-group term,
    ``seed_statistics.seed_interval``) and the exact permutation test, Holm-adjusted over
    those comparisons. A pair with one seed a side compares two runs, not two models: it is
    printed, and left out of the family."""
    split = data[0]
    refs = [t for _, t in split.test]
    groups = sentence_groups(split.test)
    runs = [run for path in args.runs for run in json.load(open(path))]
    chosen = {}
    for name in dict.fromkeys(run["model"] for run in runs):
        mine = [run for run in runs if run["model"] == name]
        by_lr = {}
        for run in mine:
            by_lr.setdefault(run["lr"], []).append(run)
        # the grid: the seeds run at every rate (more seeds of the chosen rate come later)
        grid = set.intersection(*({r["seed"] for r in rs} for rs in by_lr.values()))
        means = {
            lr: statistics.mean(r["best"]["validation"] for r in rs if r["seed"] in grid)
            for lr, rs in by_lr.items()
        }
        lr = max(means, key=means.get)
        print(
            f"{name} ({mine[0]['parameters']:,} parameters): best validation BLEU by learning "
            f"rate, seeds {sorted(grid)}: "
            + ", ".join(f"{k:g}: {v:.1f}" for k, v in sorted(means.items()))
            + f" -> lr {lr:g}"
        )
        chosen[name] = {r["seed"]: r for r in by_lr[lr]}
        for seed, r in sorted(chosen[name].items()):
            b = r["best"]
            print(
                f"  seed {seed}: epoch {b['epoch']} ({b['seconds']:.0f} s), validation "
                f"{b['validation']:.1f}, test {corpus_bleu(r['test'], refs, n_bootstrap=1000)}"
            )
    print(f"test set: {len(refs)} pairs in {len(groups)} groups that share a sentence")
    names = list(chosen)
    if args.pairs:  # "other|baseline;other|baseline": the family of comparisons
        pairs = [tuple(pair.split("|")) for pair in args.pairs.split(";")]
    else:
        pairs = [(other, names[0]) for other in names[1:]]
    results = []
    for other, base in pairs:
        for seed in sorted(set(chosen[other]) & set(chosen[base])):
            a, b = chosen[other][seed]["test"], chosen[base][seed]["test"]
            print(f"  seed {seed}: {other} - {base}: {paired_bootstrap(a, b, refs)}")
        if min(len(chosen[other]), len(chosen[base])) < 2:
            print(f"  {other} - {base}: one seed a side: two runs, not two models; no test")
            continue
        got = seed_interval(
            [r["test"] for r in chosen[other].values()],
            [r["test"] for r in chosen[base].values()],
            refs,
            groups,
        )
        results.append((other, base, got, permutation_p(got["scores_a"], got["scores_b"])))
    for (other, base, got, exact), p_holm in zip(
        results, holm([r[2]["p"] for r in results]), strict=True
    ):
        wins = sum(a > b for a, b in zip(got["scores_a"], got["scores_b"], strict=False))
        print(
            f"  {other} ({len(chosen[other])} seeds) - {base} ({len(chosen[base])} seeds): "
            f"mean BLEU {got['a']:.1f} - {got['b']:.1f} = {got['difference']:+.1f} "
            f"[95 % CI {got['low']:+.1f}, {got['high']:+.1f}], t interval (seed term SE "
            f"{got['seed_sd']:.2f} + test-group term SE {got['test_sd']:.2f}, df "
            f"{got['df']:.1f}), p = {got['p']:.3f}, Holm-adjusted over {len(results)}: "
            f"{p_holm:.3f}; exact permutation p over the runs = {exact:.2f}; seed by seed "
            f"{wins} of {min(len(got['scores_a']), len(got['scores_b']))} in favour of "
            f"{other}",
            flush=True,
        )


def positions(args, data) -> None:
    refs = [t for _, t in data[0].test]
    for kind in args.kinds:
        scores, equal = [], []
        for seed in args.seeds:
            print(f"{kind}, seed {seed}", flush=True)
            model = decoder_only(data, seed, positions=kind)
            curve = train_and_score(kind, model, args.budget, data, seed=seed)
            scores.append(corpus_bleu(best(curve)[3], refs).score)
            equal.append(at_epoch(curve, args.epoch, refs))
        print(
            f"  {kind:10} test BLEU by seed {[round(s, 1) for s in scores]}, "
            f"median {statistics.median(scores):.1f}; at epoch {args.epoch} "
            f"{[round(s, 1) for s in equal]}, median {statistics.median(equal):.1f}",
            flush=True,
        )


def last_position(pair_ids) -> int:
    """The position (counted from 0) of the last token the decoder-only model reads to write
    a whole reference: the source tokens with ``<eos>``, ``<sos>``, then the target words,
    the last of which predicts ``<eos>`` -- ``len(src) + len(tgt) - 1`` (``tgt`` holds the
    words and ``<eos>``; ``<sos>`` takes ``<eos>``'s place in the input). For "je suis
    fatigue maintenant" / "i m tired now" it is 9: positions 0 to 9."""
    src, tgt = pair_ids
    return len(src) + len(tgt) - 1


def lengths(args, data) -> None:
    """Positional extrapolation: train (and validate) only on pairs whose *joined* sequence
    -- French, separator, English -- ends at position ``--max-position`` or before (counted
    from 0); score the test pairs that do and those that need positions no training
    sequence reached. Per group: BLEU, and
    sacrebleu's length ratio and brevity penalty (a short output loses BLEU
    through the penalty, not through its words)."""
    split, src_vocab, tgt_vocab, _ = data

    def fits(pairs):
        ids = encode_pairs(pairs, src_vocab, tgt_vocab)
        return [p for p, i in zip(pairs, ids, strict=True) if last_position(i) <= args.max_position]

    short_split = Split(fits(split.train), fits(split.validation), split.test)
    train_ids = encode_pairs(short_split.train, src_vocab, tgt_vocab)
    short_data = (short_split, src_vocab, tgt_vocab, train_ids)
    refs = [t for _, t in split.test]
    test_positions = [last_position(i) for i in encode_pairs(split.test, src_vocab, tgt_vocab)]
    excess = [n - args.max_position for n in test_positions]
    groups = {
        "within": [i for i, e in enumerate(excess) if e <= 0],
        "+1..3": [i for i, e in enumerate(excess) if 1 <= e <= 3],
        "+4..": [i for i, e in enumerate(excess) if e >= 4],
    }
    beyond = [e for e in excess if e > 0]
    print(
        f"training on {len(train_ids)} of {len(split.train)} pairs whose joined sequence ends "
        f"at position {args.max_position} or before (counted from 0; the latest "
        f"{max(map(last_position, train_ids))}); "
        f"test: {len(groups['within'])} within, {len(beyond)} beyond (by 1-3 positions "
        f"{len(groups['+1..3'])}, by 4-{max(beyond)} {len(groups['+4..'])})"
    )
    for kind in args.kinds:
        scores = {group: [] for group in groups}
        for seed in args.seeds:
            print(f"{kind}, seed {seed}", flush=True)
            model = decoder_only(data, seed, positions=kind)
            hyps = best(train_and_score(kind, model, args.budget, short_data, seed=seed))[3]
            for group, rows in groups.items():
                got = sacrebleu.corpus_bleu([hyps[i] for i in rows], [[refs[i] for i in rows]])
                scores[group].append(got)
                print(
                    f"  {kind} seed {seed} {group:6}: BLEU {got.score:5.1f}  length ratio "
                    f"{got.sys_len / got.ref_len:.3f}  brevity penalty {got.bp:.3f}",
                    flush=True,
                )
        for group, got in scores.items():
            print(
                f"  {kind:10} {group:6} BLEU by seed {[round(g.score, 1) for g in got]}, "
                f"median {statistics.median(g.score for g in got):.1f}; length ratio median "
                f"{statistics.median(g.sys_len / g.ref_len for g in got):.3f}",
                flush=True,
            )


def kv_heads(args, data) -> None:
    """The quality cost of fewer key/value heads: test BLEU of the best validation epoch in
    the time budget, and at the end of ``--epoch`` (equal epochs)."""
    refs = [t for _, t in data[0].test]
    for seed in args.seeds:
        for heads in args.heads:
            model = decoder_only(data, seed, num_kv_heads=heads)
            print(
                f"{heads} key/value heads, seed {seed}: {parameters(model):,} parameters",
                flush=True,
            )
            curve = train_and_score(f"kv heads {heads}", model, args.budget, data, seed=seed)
            report(f"{heads} key/value heads, seed {seed}", curve, refs, args.epoch)


def blocks(args, data) -> None:
    """Today's block (RMSNorm, SwiGLU without biases, hidden width 341 for about the 2017
    block's parameters) in the rotary decoder-only model, over ``--seeds``; the 2017 block
    is the rotary row of ``positions`` (same seeds and budget)."""
    refs = [t for _, t in data[0].test]
    for seed in args.seeds:
        model = decoder_only(data, seed, norm="rms", feed_forward="swiglu", d_ff=341)
        print(f"RMSNorm + SwiGLU, seed {seed}: {parameters(model):,} parameters", flush=True)
        curve = train_and_score("rmsnorm + swiglu", model, args.budget, data, seed=seed)
        report(f"RMSNorm + SwiGLU, seed {seed}", curve, refs, args.epoch)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "what",
        choices=[
            "attention",
            "memory",
            "cache",
            "translation",
            "compare",
            "positions",
            "kv-heads",
            "lengths",
            "blocks",
        ],
    )
    parser.add_argument("runs", nargs="*", help="compare: files written by translation --save")
    parser.add_argument(
        "--max-position",
        "--max-positions",
        dest="max_position",
        type=int,
        default=12,
        help="lengths: the last position (from 0) a training sequence may reach",
    )
    parser.add_argument("--lrs", default="0.001", help="translation: learning rates")
    parser.add_argument("--save", default=None, help="translation: write the runs (JSON)")
    parser.add_argument(
        "--pairs",
        default=None,
        help="compare: the family, 'model|baseline' separated by semicolons (default: every "
        "model against the first)",
    )
    parser.add_argument("--heads", default="4,2,1", help="kv-heads: key/value head counts")
    parser.add_argument(
        "--kinds", default="rotary,sinusoidal,none", help="positions, lengths: position codes"
    )
    parser.add_argument(
        "--epoch", type=int, default=4, help="kv-heads, positions, blocks: equal-epoch column"
    )
    parser.add_argument("--repeats", type=int, default=None)
    parser.add_argument("--budget", type=int, default=600, help="training CPU seconds per model")
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument(
        "--record", default="", help="also write benchmarks/results/<date>_NAME.txt"
    )
    parser.add_argument(
        "--models",
        default=None,
        help="translation: names separated by semicolons, from " + ", ".join(MODELS),
    )
    args = parser.parse_args()
    args.seeds = [int(s) for s in args.seeds.split(",")]
    args.lrs = [float(s) for s in args.lrs.split(",")]
    args.heads = [int(s) for s in args.heads.split(",")]
    args.kinds = args.kinds.split(",")
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
    with recipe.Record(args.record or "modern", enabled=bool(args.record)):
        data = recipe.data()
        _COMMANDS[args.what](args, data)
    return 0


_COMMANDS = {
    "cache": cache,
    "translation": translation,
    "compare": compare,
    "positions": positions,
    "kv-heads": kv_heads,
    "lengths": lengths,
    "blocks": blocks,
}

if __name__ == "__main__":
    sys.exit(main())
