"""Chapter 7's probes: *why* the length test fails, and what each variant costs per step.

    OMP_NUM_THREADS=1 python benchmarks/modern_probes.py lengths [--budget 150] [--seed 0]
        [--kinds rotary,sinusoidal,none] [--control-budget 300]
    OMP_NUM_THREADS=1 python benchmarks/modern_probes.py timing [--rounds 8] [--batches 15]

* ``lengths``: each position kind trained as ``modern.py lengths`` trains it (only pairs
  whose joined sequence ends by position ``--max-position``; its best validation epoch kept),
  then, on the test pairs by group (within / 1-3 / 4 and more positions beyond any training
  sequence): greedy BLEU; **forced-length** BLEU (``<eos>`` suppressed until the reference's
  word count, then the output stops: what BLEU would be if the model only stopped too early);
  **teacher-forced word accuracy** by the position of the token read (positions a training
  sequence reached, and those none did); the mean probability of ``<eos>`` where a word is
  due; the share of greedy outputs that read past the last trained position. The control:
  a rotary model trained on every length (``--control-budget``), probed alike.
* ``timing``: CPU time of training steps (forward, backward, Adam) of the variants Chapter 7
  compares -- rotary with 4, 2 and 1 key/value heads, the sinusoidal table, today's block --
  on the same fixed batches, in alternating rounds, so that the machine's load falls on all
  alike; the median per round relative to the rotary 4-head model.
"""

from __future__ import annotations

import argparse
import copy
import json
import platform
import re
import statistics
import sys
import time

import recipe
import sacrebleu
import torch
from modern import decoder_only, last_position

from course_lib.decoding import evaluating, translate
from course_lib.metrics import corpus_bleu
from course_lib.tatoeba import Split
from course_lib.vocab import EOS, PAD, SOS, PairBatches, encode_pairs, pad


def train_best(model, data, budget, seed):
    """Train with the recipe for ``budget`` CPU s; return the model at its best validation
    epoch, the epoch, and the CPU seconds it had trained."""
    split, src_vocab, tgt_vocab, train_ids = data
    val_fr, val_en = [s for s, _ in split.validation], [t for _, t in split.validation]
    kept = {"bleu": -1.0}

    def hook(trainer):
        bleu = corpus_bleu(translate(model, val_fr, src_vocab, tgt_vocab), val_en).score
        print(f"    epoch {trainer.epochs}: {trainer.seconds[-1]:.0f} CPU s, validation {bleu:.1f}")
        if bleu > kept["bleu"]:
            kept.update(bleu=bleu, epoch=trainer.epochs, state=copy.deepcopy(model.state_dict()))

    recipe.train(model, recipe.COURSE, train_ids, budget, hook, seed=seed)
    model.load_state_dict(kept["state"])
    return model.eval(), kept["epoch"]


def forced_length(model, src_ids, lengths):
    """Greedy decoding with ``<eos>`` suppressed until ``lengths[i]`` words, then stopped."""
    out = []
    with evaluating(model), torch.no_grad():
        for k in range(0, len(src_ids), 128):
            src = pad(src_ids[k : k + 128])  # (B, S)
            want = torch.tensor(lengths[k : k + 128])  # (B,)
            cache = model.init_cache(src)
            tokens = torch.full((src.shape[0], 1), SOS)
            words = []
            for _ in range(int(want.max())):
                logits, cache, _ = model.step(tokens, cache)
                logits = logits[:, -1]  # (B, V)
                logits[:, EOS] = float("-inf")
                logits[:, PAD] = float("-inf")
                tokens = logits.argmax(-1, keepdim=True)  # (B, 1)
                words.append(tokens[:, 0])
            ids = torch.stack(words, dim=1)  # (B, T)
            out += [row[:n].tolist() for row, n in zip(ids, want.tolist(), strict=True)]
    return out


def teacher_forced(model, pair_ids, max_position):
    """Per pair: (correct, eos probability) for each word of the target, with the position
    of the token read: lists of ``(position, correct, p_eos)``."""
    rows = []
    with evaluating(model), torch.no_grad():
        for k in range(0, len(pair_ids), 128):
            chunk = pair_ids[k : k + 128]
            src = pad([s for s, _ in chunk])  # (B, S)
            tgt_in = pad([[SOS] + t[:-1] for _, t in chunk])  # (B, T): <sos> y1 ...
            logits = model(src, tgt_in)  # (B, T, V)
            p_eos = logits.softmax(-1)[..., EOS]  # (B, T)
            guess = logits.argmax(-1)  # (B, T)
            for b, (s, t) in enumerate(chunk):
                for j, word in enumerate(t[:-1]):  # the words, not the final <eos>
                    rows.append((len(s) + j, bool(guess[b, j] == word), float(p_eos[b, j])))
    return rows


def probe(name, model, data, max_position) -> None:
    split, src_vocab, tgt_vocab, _ = data
    refs = [t for _, t in split.test]
    ids = encode_pairs(split.test, src_vocab, tgt_vocab)
    excess = [last_position(i) - max_position for i in ids]
    groups = {
        "within": [i for i, e in enumerate(excess) if e <= 0],
        "+1..3": [i for i, e in enumerate(excess) if 1 <= e <= 3],
        "+4..": [i for i, e in enumerate(excess) if e >= 4],
    }
    greedy = translate(model, [s for s, _ in split.test], src_vocab, tgt_vocab)
    forced_ids = forced_length(model, [s for s, _ in ids], [len(t) - 1 for _, t in ids])
    forced = [tgt_vocab.decode(row) for row in forced_ids]
    for group, rows in groups.items():
        scores = []
        for hyps in (greedy, forced):
            got = sacrebleu.corpus_bleu([hyps[i] for i in rows], [[refs[i] for i in rows]])
            scores.append(got)
        past = sum(len(ids[i][0]) + len(greedy[i].split()) > max_position for i in rows)
        print(
            f"  {name:24} {group:6} ({len(rows):3d} pairs): greedy BLEU {scores[0].score:5.1f} "
            f"(length ratio {scores[0].sys_len / scores[0].ref_len:.3f}, BP {scores[0].bp:.3f})"
            f"; forced length {scores[1].score:5.1f}; greedy outputs that read past position "
            f"{max_position}: {100 * past / len(rows):.0f} %",
            flush=True,
        )
    rows = teacher_forced(model, ids, max_position)
    for label, keep in (
        (f"<= {max_position}", lambda p: p <= max_position),
        (f"{max_position + 1}-{max(r[0] for r in rows)}", lambda p: p > max_position),
    ):
        mine = [r for r in rows if keep(r[0])]
        print(
            f"  {name:24} teacher-forced words read at positions {label}: {len(mine):5d} words, "
            f"accuracy {statistics.mean(r[1] for r in mine):.3f}, mean P(<eos>) where a word "
            f"is due {statistics.mean(r[2] for r in mine):.3f}",
            flush=True,
        )


def lengths(args) -> None:
    data = recipe.data()
    split, src_vocab, tgt_vocab, _ = data

    def fits(pairs):
        ids = encode_pairs(pairs, src_vocab, tgt_vocab)
        return [p for p, i in zip(pairs, ids, strict=True) if last_position(i) <= args.max_position]

    short_split = Split(fits(split.train), fits(split.validation), split.test)
    short = (
        short_split,
        src_vocab,
        tgt_vocab,
        encode_pairs(short_split.train, src_vocab, tgt_vocab),
    )
    print(
        f"trained on the {len(short[3])} of {len(split.train)} training pairs whose joined "
        f"sequence ends by position {args.max_position}; {args.budget} CPU s, seed {args.seed}"
    )
    for kind in args.kinds.split(","):
        print(f"{kind}, trained on short sequences", flush=True)
        model, epoch = train_best(
            decoder_only(data, args.seed, positions=kind), short, args.budget, args.seed
        )
        probe(f"{kind} (short, epoch {epoch})", model, data, args.max_position)
    print(f"control: rotary, trained on every length, {args.control_budget} CPU s", flush=True)
    model, epoch = train_best(decoder_only(data, args.seed), data, args.control_budget, args.seed)
    probe(f"rotary (all, epoch {epoch})", model, data, args.max_position)


def timing(args) -> None:
    data = recipe.data()
    _, src_vocab, tgt_vocab, train_ids = data
    variants = {
        "rotary, 4 key/value heads": {},
        "sinusoidal, added": {"positions": "sinusoidal"},
        "rotary, 2 key/value heads": {"num_kv_heads": 2},
        "rotary, 1 key/value head": {"num_kv_heads": 1},
        "RMSNorm + SwiGLU (rotary)": {"norm": "rms", "feed_forward": "swiglu", "d_ff": 341},
    }
    torch.manual_seed(0)
    batches = list(PairBatches(train_ids, recipe.COURSE["batch_size"], shuffle=True))[
        : args.batches
    ]
    setups = {}
    for name, changes in variants.items():
        model = decoder_only(data, 0, **changes).train()
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, betas=(0.9, 0.98))
        setups[name] = (model, optimizer)

    def one_round(model, optimizer) -> float:
        start = time.process_time()
        for batch in batches:
            logits = model(batch.src, batch.tgt_in)  # (B, T, V)
            loss = torch.nn.functional.cross_entropy(
                logits.flatten(0, 1), batch.tgt_out.flatten(), ignore_index=PAD
            )
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        return time.process_time() - start

    for setup in setups.values():  # a first round, not counted: allocations, caches
        one_round(*setup)
    seconds = {name: [] for name in setups}
    for _ in range(args.rounds):
        for name, setup in setups.items():
            seconds[name].append(one_round(*setup))
    base = statistics.median(seconds["rotary, 4 key/value heads"])
    print(
        f"{len(batches)} batches of {recipe.COURSE['batch_size']} pairs, forward + backward + "
        f"Adam, {args.rounds} alternating rounds; CPU s per round (median, range) and "
        "relative to rotary with 4 key/value heads"
    )
    for name, got in seconds.items():
        ratios = [g / b for g, b in zip(got, seconds["rotary, 4 key/value heads"], strict=True)]
        print(
            f"  {name:28} {statistics.median(got):6.2f} s ({min(got):.2f}-{max(got):.2f})  "
            f"relative {statistics.median(got) / base:.3f} (round by round "
            f"{min(ratios):.3f}-{max(ratios):.3f})"
        )


CURVE = re.compile(
    r"^\s+.+?\s+([\d.]+) CPU s\s+epoch\s+(\d+)\s+validation\s+([\d.]+)\s+test\s+([\d.]+)"
)
RUN = re.compile(r"^(\S.*?), seed (\d+)(?::.*)?$")


def curves(record: str) -> dict[tuple[str, int], dict[int, tuple[float, float, float]]]:
    """A record's training curves: ``{(run name, seed): {epoch: (CPU s, validation, test)}}``."""
    found, current = {}, None
    for line in (recipe.RESULTS / record).read_text(encoding="utf-8").splitlines():
        run, point = RUN.match(line), CURVE.match(line)
        if run:
            current = (run.group(1), int(run.group(2)))
            found[current] = {}
        elif point and current:
            seconds, epoch, val, test = point.groups()
            found[current][int(epoch)] = (float(seconds), float(val), float(test))
    return found


def derived(args) -> None:
    """The differences Chapter 7 states, computed from the 2026-11-25 records: seed by seed
    at equal epochs, and epoch by epoch for the width-128 pair."""
    epoch = args.epoch
    rotary = curves("2026-11-25_modern_positions.txt")
    kv = curves("2026-11-25_modern_kv_heads.txt")
    blocks = curves("2026-11-25_modern_blocks.txt")
    base = {s: rotary[("rotary", s)][epoch][2] for s in (0, 1, 2)}
    rows = {
        "sinusoidal": {s: rotary[("sinusoidal", s)][epoch][2] for s in (0, 1, 2)},
        "none": {s: rotary[("none", s)][epoch][2] for s in (0, 1, 2)},
        "2 key/value heads": {s: kv[("2 key/value heads", s)][epoch][2] for s in (0, 1, 2)},
        "1 key/value head": {s: kv[("1 key/value heads", s)][epoch][2] for s in (0, 1, 2)},
        "RMSNorm + SwiGLU": {s: blocks[("RMSNorm + SwiGLU", s)][epoch][2] for s in (0, 1, 2)},
    }
    print(f"test BLEU after {epoch} epochs minus the rotary 4-head 2017 block's, seeds 0 / 1 / 2")
    for name, got in rows.items():
        diffs = [got[s] - base[s] for s in (0, 1, 2)]
        print(
            f"  {name:20} "
            + " / ".join(f"{d:+.1f}" for d in diffs)
            + f"   ({sum(d < 0 for d in diffs)} of 3 below); median "
            + f"{statistics.median(got.values()):.1f} against "
            + f"{statistics.median(base.values()):.1f}: "
            + f"{statistics.median(got.values()) - statistics.median(base.values()):+.1f}"
        )
    none_vs_sin = [rows["none"][s] - rows["sinusoidal"][s] for s in (0, 1, 2)]
    print("  none - sinusoidal    " + " / ".join(f"{d:+.1f}" for d in none_vs_sin))
    runs = {
        (r["model"], r["lr"]): r
        for r in json.loads(
            (recipe.RESULTS / "2026-11-25_modern_lr_width128.json").read_text(encoding="utf-8")
        )
    }
    enc, dec = runs[("encoder-decoder, small", 0.002)], runs[("decoder-only, small", 0.002)]
    e = {c[1]: c for c in enc["curve"]}
    d = {c[1]: c for c in dec["curve"]}
    for name, run in (("encoder-decoder, small", enc), ("decoder-only, small", dec)):
        last = run["curve"][-1]
        print(
            f"{name}, lr 0.002, seed 0: {last[1]} epochs in {last[0]:.0f} CPU s, {last[0] / last[1]:.1f} s per epoch"
        )
    diffs = {k: d[k][2] - e[k][2] for k in sorted(d) if k in e}
    late = [v for k, v in diffs.items() if k >= 10]
    print(
        "validation BLEU, decoder-only minus encoder-decoder (width 128, lr 0.002, seed 0), "
        f"epochs 10-{max(diffs)}: mean {statistics.mean(late):+.1f}, from {min(late):+.1f} to "
        f"{max(late):+.1f}, ahead at {sum(v > 0 for v in late)} of {len(late)}; ahead at "
        f"epochs {[k for k, v in diffs.items() if v > 0]} of 1-{max(diffs)}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=["lengths", "timing", "derived"])
    parser.add_argument("--epoch", type=int, default=4, help="derived: the equal-epoch column")
    parser.add_argument("--budget", type=int, default=150)
    parser.add_argument("--control-budget", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--kinds", default="rotary,sinusoidal,none")
    parser.add_argument("--max-position", type=int, default=12)
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--batches", type=int, default=15)
    parser.add_argument("--record", default="", help="record name under benchmarks/results")
    args = parser.parse_args()
    torch.set_num_threads(1)
    with recipe.Record(args.record or "modern_probes", enabled=bool(args.record)):
        print(f"{platform.processor() or platform.machine()}, torch {torch.__version__}, 1 thread")
        {"lengths": lengths, "timing": timing, "derived": derived}[args.what](args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
