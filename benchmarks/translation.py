"""Test BLEU against training CPU seconds: the course's Transformer next to a reference.

    OMP_NUM_THREADS=1 python benchmarks/translation.py [--budget 600]
        [--models course,reference,gru,bahdanau]

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
dropout 0.1, embeddings initialised as the course's model initialises them, x sqrt(d) +
sinusoidal positions); every model is trained with ``recipe.COURSE`` (Adam lr 1e-3 betas
0.9/0.98, warm-up 300 steps then inverse square root, batches of 64 length-bucketed, label
smoothing 0.1, clipping 1.0, seed 0). What still differs between the reference and the
course's :class:`TranslationTransformer`, all of it inside ``nn.Transformer`` or chosen on
validation for the course's model:

* ``nn.Transformer`` initialises every matrix of its stacks Xavier-uniform, feed-forward
  layers included (the course: Xavier for the attention projections, PyTorch's default for
  the feed-forward layers);
* it ends the encoder and the decoder with an extra LayerNorm, post-LN or not;
* its output layer is separate, with a bias (the course ties it to the target embedding);
* it applies no dropout to the embeddings (the course: dropout 0.1 after the positions);
* it has no key/value cache, so it is decoded by recomputing (evaluation time is not
  counted, so this changes no figure).

``gru`` and ``bahdanau`` are the recurrent models of Chapters 1 and 2
(:class:`RecurrentTranslator`, embeddings and GRUs of 256, tied output layer) trained with the
same recipe, for Chapter 5's comparison.
"""

from __future__ import annotations

import argparse
import platform
import sys

import torch
from recipe import COURSE, data, train
from torch import nn

from course_lib.decoding import greedy_decode, translate
from course_lib.metrics import corpus_bleu, corpus_chrf, paired_bootstrap
from course_lib.positional import PositionalEncoding
from course_lib.recurrent_translation import RecurrentConfig, RecurrentTranslator
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
        for embedding in (self.src_embed, self.tgt_embed):
            nn.init.normal_(embedding.weight, std=d_model**-0.5)
            with torch.no_grad():
                embedding.weight[PAD].zero_()

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


def reference_greedy(model: Reference, src: torch.Tensor) -> torch.Tensor:
    """Greedy decoding by recomputation (``nn.Transformer`` has no cache)."""
    return greedy_decode(model, src, recompute="everything")


def run(name, model, decode, budget, split, src_vocab, tgt_vocab, train_ids):
    """Train for ``budget`` CPU seconds; at every epoch end keep the validation BLEU and the
    test translations. Returns ``[(seconds, epoch, validation BLEU, test hypotheses)]``."""
    curve = []
    val_fr, val_en = zip(*split.validation, strict=True)
    test_fr, test_en = zip(*split.test, strict=True)
    print(f"{name}: {sum(p.numel() for p in model.parameters()):,} parameters", flush=True)

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

    train(model, COURSE, train_ids, budget, evaluate)
    return curve


def compare(label_a, hyps_a, label_b, hyps_b, refs) -> None:
    for metric in ("BLEU", "chrF"):
        result = paired_bootstrap(hyps_a, hyps_b, refs, metric=metric)
        verdict = "significant" if result.significant else "not significant"
        print(f"  {label_a} - {label_b}: {result} ({verdict})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=int, default=600, help="training CPU seconds per model")
    parser.add_argument(
        "--models",
        default="course,reference",
        help="comma-separated: course, reference, gru, bahdanau",
    )
    args = parser.parse_args()
    models = args.models.split(",")
    unknown = sorted(set(models) - {"course", "reference", "gru", "bahdanau"})
    if unknown:
        parser.error(f"unknown models {unknown}")
    torch.set_num_threads(1)
    split, src_vocab, tgt_vocab, train_ids = data()
    print(
        f"{platform.processor() or platform.machine()}, torch {torch.__version__}, "
        f"1 thread; pairs {len(split.train)}/{len(split.validation)}/{len(split.test)}, "
        f"vocab fr {len(src_vocab)} en {len(tgt_vocab)}",
        flush=True,
    )
    curves = {}
    for name in models:
        torch.manual_seed(0)
        if name == "course":
            config = TranslationConfig(len(src_vocab), len(tgt_vocab), **COURSE["config"])
            model, decode = TranslationTransformer(config), greedy_decode
        elif name == "reference":
            model, decode = Reference(len(src_vocab), len(tgt_vocab)), reference_greedy
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
            model, decode = RecurrentTranslator(config), greedy_decode
        curves[name] = run(name, model, decode, args.budget, split, src_vocab, tgt_vocab, train_ids)
    refs = [t for _, t in split.test]
    print("\ntest BLEU (greedy) at each epoch end, against training CPU seconds")
    for name, curve in curves.items():
        points = "  ".join(f"{s:.0f} s {corpus_bleu(h, refs).score:.1f}" for s, _, _, h in curve)
        print(f"  {name:9} {points}")
    print("\nbest epoch of each model, chosen on validation BLEU; scored on test:")
    best = {}
    for name, curve in curves.items():
        seconds, epoch, val, hyps = max(curve, key=lambda point: point[2])
        best[name] = hyps
        print(
            f"  {name:9} {seconds:4.0f} CPU s (epoch {epoch}, validation {val:.1f}):  "
            f"{corpus_bleu(hyps, refs, n_bootstrap=1000)}  "
            f"{corpus_chrf(hyps, refs, n_bootstrap=1000)}"
        )
    names = list(curves)
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            compare(f"best {a}", best[a], f"best {b}", best[b], refs)
    if "course" in curves and "reference" in curves:
        within = [point for point in curves["course"] if point[0] <= 300] or curves["course"][:1]
        course, reference = within[-1], curves["reference"][-1]
        compare(
            f"course at {course[0]:.0f} s",
            course[3],
            f"reference at {reference[0]:.0f} s",
            reference[3],
            refs,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
