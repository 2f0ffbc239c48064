"""Test BLEU against training CPU seconds: the course's Transformer next to a reference.

    OMP_NUM_THREADS=1 python benchmarks/translation.py [--budget 600]
        [--models course,reference,gru,bahdanau]
    python benchmarks/translation.py --stats-from results/2026-11-26_translation.json

The protocol is fixed (shared/ISSUE-NOTES.md): the tutorial filter (11,445 pairs),
French -> English, the seeded **grouped** 80/10/10 split (pairs that share a sentence stay
on one side), a vocabulary from the training split only, greedy decoding, sacrebleu corpus
BLEU (13a) and chrF. Training time is CPU time (``time.process_time()``) on one thread;
evaluation time is not counted. The models train in the same run, so their curves compare
on whatever machine runs this. Every model trains with the library's ``Trainer`` through
``recipe.py`` (the loop of Chapter 5 and of the tests).

At the end of every epoch each model is scored on validation and on test, until its budget
of CPU seconds is spent. The test curve is printed; the **best** epoch of a model is the one
with the highest *validation* BLEU (the test split chooses nothing), and the closing lines
compare the models' best epochs -- and the course's model at its last epoch within 300 s
with the reference at its last epoch -- on the test split with sacrebleu's 95 % intervals
and a paired bootstrap of the difference.

The reference is ``nn.Transformer`` (d_model 256, 2+2 layers, 4 heads, feed-forward 512,
dropout 0.1, x sqrt(d) + sinusoidal positions); every model is trained with
``recipe.COURSE`` (Adam lr 1e-3 betas 0.9/0.98, warm-up 300 steps then inverse square root,
batches of 64 length-bucketed, label smoothing 0.1, clipping 1.0, seed 0). The reference is
initialised as the course's :class:`TranslationTransformer` is (:func:`course_initialisation`):
embeddings N(0, 1/d) with a zero ``<pad>`` row; Xavier-uniform on each of the query, key and
value projections as a D x D matrix (``nn.Transformer`` itself draws the packed 3D x D
``in_proj_weight`` at once, sqrt(2) smaller); ``nn.Linear``'s default for the attention
out-projection and the feed-forward layers (``nn.Transformer`` draws them Xavier); zero
biases in attention. What still differs, all of it inside ``nn.Transformer``'s structure:

* it ends the encoder and the decoder with an extra LayerNorm (the course's post-LN stacks
  have none);
* its output layer is its own matrix (``nn.Linear``'s default), where the
  course ties it to the target embedding: the reference has more parameters (both counts are
  printed; 5,070,473 against 4,379,017 at the protocol's vocabularies);
* it applies no dropout to the embeddings (the course: dropout 0.1 after the positions);
* it has no key/value cache, so it is decoded by recomputing (evaluation time is not
  counted, so this changes no figure).

The models' epochs are **interleaved** (``recipe.interleaved``: one epoch of each in turn),
so whatever else the machine does falls on all of them alike. All the comparisons of a run
are one family: their p-values are Holm-adjusted together (per metric), and the test
bootstrap resamples whole groups of pairs that share a sentence (``groups=``), as the split
keeps them together. The paired tests draw ``N_SAMPLES`` = 10,000 resamples: a bootstrap
p-value is never below 2 / (resamples + 1), and with the 1,000 of the 2026-11-26 record that
floor (0.002, 0.014 after Holm over 7) set the smallest adjusted p-values, not the data. The
run's hypotheses at the compared epochs are kept in a JSON record beside the text one, so
that any later run scored on the same test sentences can be compared with them, pair by pair,
and ``--stats-from`` recomputes a record's comparisons from them without training (into a
record ``<date>_translation_stats``).

``gru`` and ``bahdanau`` are the recurrent models of Chapters 1 and 2
(:class:`RecurrentTranslator`, embeddings and GRUs of 256, tied output layer) trained with the
same recipe, for Chapter 5's comparison.
"""

from __future__ import annotations

import argparse
import datetime
import json
import re
import sys
from pathlib import Path

import torch
from recipe import COURSE, Record, data, interleaved, train
from torch import nn

from course_lib.decoding import greedy_decode, translate
from course_lib.metrics import corpus_bleu, corpus_chrf, paired_bootstrap
from course_lib.multiple_comparisons import holm
from course_lib.positional import PositionalEncoding
from course_lib.recurrent_translation import RecurrentConfig, RecurrentTranslator
from course_lib.tatoeba import group_labels
from course_lib.translation import TranslationConfig, TranslationTransformer
from course_lib.vocab import PAD


class Reference(nn.Module):
    """``nn.Transformer`` with embeddings x sqrt(d) + sinusoidal positions and an output layer;
    the same ``forward`` surface as the course's model, so one decoding function serves.

    The embeddings start as the course's do, N(0, 1/d) with a zero ``<pad>`` row, so that
    after the x sqrt(d) scaling a word and a position vector have comparable sizes.
    (``nn.Embedding``'s own N(0, 1) would start the words 16 times larger than the positions.)
    """

    def __init__(self, src_vocab: int, tgt_vocab: int, d_model: int = 256) -> None:
        super().__init__()
        self.max_len = 64  # target positions (the decoding protocol)
        self.src_embed = nn.Embedding(src_vocab, d_model, padding_idx=PAD)
        self.tgt_embed = nn.Embedding(tgt_vocab, d_model, padding_idx=PAD)
        self.positional = PositionalEncoding(64, d_model)
        self.transformer = nn.Transformer(d_model, 4, 2, 2, 512, 0.1, batch_first=True)
        self.output = nn.Linear(d_model, tgt_vocab)
        course_initialisation(self)

    def forward(self, src, tgt_in):
        T = tgt_in.shape[1]
        causal = torch.ones(T, T, dtype=torch.bool).triu(1)
        h = self.transformer(
            self.positional(self.src_embed(src)),
            self.positional(self.tgt_embed(tgt_in)),
            tgt_mask=causal,
            src_key_padding_mask=src == PAD,
            tgt_key_padding_mask=tgt_in == PAD,
            memory_key_padding_mask=src == PAD,
        )
        return self.output(h)


def course_initialisation(model: Reference) -> None:
    """Initialise the reference as :class:`TranslationTransformer` initialises the course's."""
    d_model = model.src_embed.embedding_dim
    with torch.no_grad():
        for embedding in (model.src_embed, model.tgt_embed):
            nn.init.normal_(embedding.weight, std=d_model**-0.5)
            embedding.weight[PAD].zero_()
        layers = [*model.transformer.encoder.layers, *model.transformer.decoder.layers]
        for layer in layers:
            attentions = [layer.self_attn, getattr(layer, "multihead_attn", None)]
            for attention in filter(None, attentions):
                # (3D, D) -> three (D, D) views: Q, K and V drawn each as its own matrix
                for weight in attention.in_proj_weight.split(d_model):
                    nn.init.xavier_uniform_(weight)
                nn.init.zeros_(attention.in_proj_bias)
                attention.out_proj.reset_parameters()  # nn.Linear's default
                nn.init.zeros_(attention.out_proj.bias)
            layer.linear1.reset_parameters()
            layer.linear2.reset_parameters()


def reference_greedy(model: Reference, src: torch.Tensor) -> torch.Tensor:
    """Greedy decoding by recomputation (``nn.Transformer`` has no cache)."""
    return greedy_decode(model, src, recompute="everything")


def run(name, model, decode, budget, split, src_vocab, tgt_vocab, train_ids, turns, curve):
    """Train for ``budget`` CPU seconds, taking ``turns`` with the other models; at every
    epoch end append ``(seconds, epoch, validation BLEU, test hypotheses)`` to ``curve``."""
    val_fr, val_en = zip(*split.validation, strict=True)
    test_fr, test_en = zip(*split.test, strict=True)

    def evaluate(trainer):
        val = translate(model, val_fr, src_vocab, tgt_vocab, decode=decode)
        hyps = translate(model, test_fr, src_vocab, tgt_vocab, decode=decode)
        val_bleu = corpus_bleu(val, list(val_en)).score
        curve.append((trainer.seconds[-1], trainer.epochs, val_bleu, hyps))
        print(
            f"  {name:9} {trainer.seconds[-1]:6.0f} CPU s  epoch {trainer.epochs:3d}  "
            f"validation BLEU {val_bleu:5.1f}  "
            f"test BLEU {corpus_bleu(hyps, list(test_en)).score:5.1f}",
            flush=True,
        )

    train(model, COURSE, train_ids, budget, evaluate, turns=turns, name=name)


MARKS = (50, 100, 150, 200, 250, 300, 400, 500, 600)
N_SAMPLES = 10_000  # paired-bootstrap resamples: p-values down to 2 / 10,001


def marks_table(curves: dict[str, list[tuple[float, str]]]) -> str:
    """Test BLEU at each mark of training CPU seconds: the last epoch end at or before it
    (``curves``: model -> [(seconds, test BLEU as printed)]). '-' where none had ended."""
    lines = ["test BLEU at the last epoch end within each budget (CPU s)"]
    lines.append(f"  {'CPU s':>6}" + "".join(f"{name:>11}" for name in curves))
    for mark in MARKS:
        cells = []
        for curve in curves.values():
            within = [bleu for seconds, bleu in curve if seconds <= mark]
            cells.append(within[-1] if within else "-")
        lines.append(f"  {mark:>6}" + "".join(f"{c:>11}" for c in cells))
    return "\n".join(lines)


def curves_of_record(text: str) -> dict[str, list[tuple[float, str]]]:
    """The per-epoch test curves a record printed ("test BLEU (greedy) at each epoch end")."""
    lines = text.splitlines()
    start = lines.index("test BLEU (greedy) at each epoch end, against training CPU seconds")
    curves = {}
    for line in lines[start + 1 :]:
        if not line.strip():
            break
        name, rest = line.split(None, 1)
        curves[name] = [(float(s), b) for s, b in re.findall(r"(\d+) s (\d+\.\d)", rest)]
    return curves


def compare_all(pairs, refs, groups, n_samples: int = N_SAMPLES) -> None:
    """Every comparison ``(label_a, hyps_a, label_b, hyps_b)`` of the run, one family per
    metric: groups resampled (``n_samples`` paired resamples), p-values Holm-adjusted over
    the family."""
    for metric in ("BLEU", "chrF"):
        results = [
            paired_bootstrap(a, b, refs, metric=metric, groups=groups, n_samples=n_samples)
            for _, a, _, b in pairs
        ]
        adjusted = holm([r.p_value for r in results])
        print(
            f"\n{metric}: {len(results)} comparisons, Holm-adjusted over the {len(results)} "
            f"({n_samples:,} paired resamples)"
        )
        for (label_a, _, label_b, _), result, p in zip(pairs, results, adjusted, strict=True):
            verdict = "significant" if p <= 0.05 else "not significant"
            print(f"  {label_a} - {label_b}: {result}, Holm p = {p:.4f} ({verdict})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=int, default=600, help="training CPU seconds per model")
    parser.add_argument(
        "--models",
        default="course,reference",
        help="comma-separated: course, reference, gru, bahdanau",
    )
    parser.add_argument("--record", default="translation", help="record name ('' for none)")
    parser.add_argument(
        "--table-from",
        metavar="RECORD",
        help="append the table at fixed budgets, read off RECORD's epoch ends, to RECORD",
    )
    parser.add_argument(
        "--stats-from",
        metavar="JSON",
        help="recompute the comparisons of a run from its JSON record's hypotheses (no "
        "training) into the record <date>_translation_stats",
    )
    parser.add_argument(
        "--n-samples", type=int, default=N_SAMPLES, help="paired-bootstrap resamples"
    )
    args = parser.parse_args()
    if args.stats_from:
        name = "translation_stats" if args.record == "translation" else args.record
        with Record(name or "translation_stats", enabled=bool(name)):
            stats_from(Path(args.stats_from), args.n_samples)
        return 0
    if args.table_from:
        path = Path(args.table_from)
        table = marks_table(curves_of_record(path.read_text(encoding="utf-8")))
        note = f"(appended on {datetime.date.today()} by translation.py --table-from)"
        with path.open("a", encoding="utf-8") as record:
            record.write(f"\n{table}\n{note}\n")
        print(table)
        return 0
    models = args.models.split(",")
    unknown = sorted(set(models) - {"course", "reference", "gru", "bahdanau"})
    if unknown:
        parser.error(f"unknown models {unknown}")
    torch.set_num_threads(1)
    with Record(args.record or "translation", enabled=bool(args.record)) as record:
        run_all(models, args.budget, record, args.n_samples)
    return 0


def comparisons(kept: dict) -> list[tuple[str, list[str], str, list[str]]]:
    """The run's family: every pair of best checkpoints, in the order the models ran, then
    the course's model within 300 s against the reference's last epoch where both ran
    (``kept``: label -> {"test": hypotheses, ...}, in the order the run kept them)."""
    best = [label for label in kept if label.startswith("best ")]
    pairs = [
        (a, kept[a]["test"], b, kept[b]["test"]) for i, a in enumerate(best) for b in best[i + 1 :]
    ]
    rest = [label for label in kept if not label.startswith("best ")]
    if len(rest) == 2:
        a, b = rest
        pairs.append((a, kept[a]["test"], b, kept[b]["test"]))
    return pairs


def stats_from(path: Path, n_samples: int) -> None:
    """A record's comparisons again, from the hypotheses its JSON kept: the same family,
    the same test references and groups, ``n_samples`` paired resamples."""
    kept = json.loads(path.read_text(encoding="utf-8"))["kept"]
    split = data()[0]
    refs = [t for _, t in split.test]
    groups = group_labels(split.test)
    if any(len(k["test"]) != len(refs) for k in kept.values()):
        raise SystemExit(f"{path}: its hypotheses do not match the {len(refs)} test sentences")
    print(
        f"the comparisons of {path.name}, recomputed from the hypotheses it kept (no "
        f"training): {len(refs)} test pairs in {len(set(groups))} groups, groups resampled"
    )
    for label, k in kept.items():
        print(
            f"  {label:20} {k['seconds']:4.0f} CPU s (epoch {k['epoch']}):  "
            f"{corpus_bleu(k['test'], refs, n_bootstrap=1000, groups=groups)}  "
            f"{corpus_chrf(k['test'], refs, n_bootstrap=1000, groups=groups)}"
        )
    compare_all(comparisons(kept), refs, groups, n_samples)


def run_all(models, budget, record, n_samples: int = N_SAMPLES) -> None:
    split, src_vocab, tgt_vocab, train_ids = data()
    refs = [t for _, t in split.test]
    groups = group_labels(split.test)
    print(
        f"pairs {len(split.train)}/{len(split.validation)}/{len(split.test)} "
        f"(test: {len(set(groups))} groups that share a sentence), "
        f"vocab fr {len(src_vocab)} en {len(tgt_vocab)}; {budget} training CPU s per model, "
        "epochs interleaved",
        flush=True,
    )
    built = {}
    for name in models:
        torch.manual_seed(0)
        if name == "course":
            config = TranslationConfig(len(src_vocab), len(tgt_vocab), **COURSE["config"])
            built[name] = TranslationTransformer(config), greedy_decode
        elif name == "reference":
            built[name] = Reference(len(src_vocab), len(tgt_vocab)), reference_greedy
        else:
            config = RecurrentConfig(
                len(src_vocab),
                len(tgt_vocab),
                embed_dim=256,
                hidden_dim=256,
                dropout=0.1,
                tie_embeddings=True,
                attention="none" if name == "gru" else "bahdanau",
            )
            built[name] = RecurrentTranslator(config), greedy_decode
        model = built[name][0]
        print(f"{name}: {sum(p.numel() for p in model.parameters()):,} parameters", flush=True)
    curves = {name: [] for name in models}
    interleaved(
        {
            name: (
                lambda turns, name=name: run(
                    name,
                    *built[name],
                    budget,
                    split,
                    src_vocab,
                    tgt_vocab,
                    train_ids,
                    turns,
                    curves[name],
                )
            )
            for name in models
        }
    )
    print("\ntest BLEU (greedy) at each epoch end, against training CPU seconds")
    for name, curve in curves.items():
        points = "  ".join(f"{s:.0f} s {corpus_bleu(h, refs).score:.1f}" for s, _, _, h in curve)
        print(f"  {name:9} {points}")
    printed = {
        name: [(round(s), f"{corpus_bleu(h, refs).score:.1f}") for s, _, _, h in curve]
        for name, curve in curves.items()
    }
    print("\n" + marks_table(printed))
    print(
        "\nbest epoch of each model, chosen on validation BLEU; scored on test "
        "(95 % intervals: groups resampled):"
    )
    kept = {}
    for name, curve in curves.items():
        seconds, epoch, val, hyps = max(curve, key=lambda point: point[2])
        kept[f"best {name}"] = {"seconds": seconds, "epoch": epoch, "validation": val, "test": hyps}
        print(
            f"  {name:9} {seconds:4.0f} CPU s (epoch {epoch}, validation {val:.1f}):  "
            f"{corpus_bleu(hyps, refs, n_bootstrap=1000, groups=groups)}  "
            f"{corpus_chrf(hyps, refs, n_bootstrap=1000, groups=groups)}"
        )
    if "course" in curves and "reference" in curves:
        within = [point for point in curves["course"] if point[0] <= 300] or curves["course"][:1]
        for label, (seconds, epoch, val, hyps) in (
            (f"course at {within[-1][0]:.0f} s", within[-1]),
            (f"reference at {curves['reference'][-1][0]:.0f} s", curves["reference"][-1]),
        ):
            kept[label] = {"seconds": seconds, "epoch": epoch, "validation": val, "test": hyps}
    compare_all(comparisons(kept), refs, groups, n_samples)
    if record.enabled:
        path = record.path.with_suffix(".json")
        curves_out = {
            name: [
                {
                    "seconds": round(s, 1),
                    "epoch": e,
                    "validation": round(v, 2),
                    "test": round(corpus_bleu(h, refs).score, 2),
                }
                for s, e, v, h in curve
            ]
            for name, curve in curves.items()
        }
        path.write_text(json.dumps({"curves": curves_out, "kept": kept}, indent=1) + "\n")
        print(f"hypotheses of the compared epochs: {path.name}")


if __name__ == "__main__":
    sys.exit(main())
