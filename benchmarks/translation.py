"""Test BLEU against training CPU seconds: the course's Transformer next to a reference.

    OMP_NUM_THREADS=1 python benchmarks/translation.py [--budget 600]
        [--models course,reference,gru,bahdanau]

The protocol is fixed (shared/ISSUE-NOTES.md): the tutorial filter (11,445 pairs),
French -> English, the seeded 80/10/10 split, a vocabulary from the training split only,
greedy decoding, sacrebleu corpus BLEU (13a) on the test split. Training time is CPU time
(``time.process_time()``) on one thread; evaluation time is not counted. Both models train
in the same run, so their curves compare on whatever machine runs this.

The reference is ``nn.Transformer`` (d_model 256, 2+2 layers, 4 heads, feed-forward 512,
dropout 0.1, embeddings x sqrt(d) + sinusoidal positions, Adam lr 1e-3 betas 0.9/0.98,
warm-up 300 steps then inverse square root, batches of 64 length-bucketed, label smoothing
0.1, clipping 1.0, seed 0). The course's model is :class:`TranslationTransformer` with the
settings in ``COURSE`` below, chosen on the *validation* split. ``gru`` and ``bahdanau`` are
the recurrent models of Chapters 1 and 2 (:class:`RecurrentTranslator`, embeddings and GRUs of
256, tied output layer) trained with the same recipe, for Chapter 5's comparison table.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time

import torch
from torch import nn

from course_lib.decoding import greedy_decode
from course_lib.metrics import corpus_bleu
from course_lib.positional import PositionalEncoding
from course_lib.recurrent_translation import RecurrentConfig, RecurrentTranslator
from course_lib.schedules import warmup_inverse_sqrt
from course_lib.tatoeba import load_pairs, split_pairs
from course_lib.translation import TranslationConfig, TranslationTransformer, translation_loss
from course_lib.vocab import PAD, Vocab, pad, pair_batches

CHECKPOINTS = (50, 100, 150, 200, 250, 300, 400, 500, 600, 800, 1000)


class Reference(nn.Module):
    """``nn.Transformer`` with embeddings x sqrt(d) + sinusoidal positions and an output layer;
    the same ``encode`` / ``forward`` surface as the course's model, so one decoder serves."""

    def __init__(self, src_vocab: int, tgt_vocab: int, d_model: int = 256) -> None:
        super().__init__()
        self.config = TranslationConfig(src_vocab, tgt_vocab, d_model=d_model)
        self.src_embed = nn.Embedding(src_vocab, d_model, padding_idx=PAD)
        self.tgt_embed = nn.Embedding(tgt_vocab, d_model, padding_idx=PAD)
        self.positional = PositionalEncoding(64, d_model)
        self.transformer = nn.Transformer(d_model, 4, 2, 2, 512, 0.1, batch_first=True)
        self.output = nn.Linear(d_model, tgt_vocab)

    def forward(self, src, tgt_in):
        T = tgt_in.shape[1]
        causal = torch.ones(T, T, dtype=torch.bool).triu(1)
        h = self.transformer(
            self.positional(self.src_embed(src)), self.positional(self.tgt_embed(tgt_in)),
            tgt_mask=causal, src_key_padding_mask=src == PAD, tgt_key_padding_mask=tgt_in == PAD,
            memory_key_padding_mask=src == PAD,
        )
        return self.output(h)


def reference_greedy(model: Reference, src: torch.Tensor, max_len: int = 20) -> torch.Tensor:
    """Greedy decoding by recomputation (``nn.Transformer`` has no cache)."""
    return greedy_decode(model, src, max_len=max_len, use_cache=False)


# The course's settings, chosen on the validation split (see the chapter for what each buys).
COURSE = {
    "config": {"d_model": 256, "num_heads": 4, "d_ff": 512, "num_encoder_layers": 2,
               "num_decoder_layers": 2, "dropout": 0.1, "add_norm": "post",
               "tie_embeddings": True},
    "lr": 1e-3, "warmup": 300, "batch_size": 64, "label_smoothing": 0.1, "clip": 1.0,
}


def data():
    split = split_pairs(load_pairs(), seed=0)
    src_vocab = Vocab(s for s, _ in split.train)
    tgt_vocab = Vocab(t for _, t in split.train)

    def encode(pairs):
        return [(src_vocab.encode(s), tgt_vocab.encode(t)) for s, t in pairs]

    return split, src_vocab, tgt_vocab, encode(split.train)


def bleu(model, decode, pairs, src_vocab, tgt_vocab) -> float:
    hypotheses = []
    for k in range(0, len(pairs), 256):
        chunk = pairs[k : k + 256]
        src = pad([src_vocab.encode(s) for s, _ in chunk])
        hypotheses += [tgt_vocab.decode(row) for row in decode(model, src)]
    return corpus_bleu(hypotheses, [t for _, t in pairs]).score


def run(name, model, decode, settings, budget, split, src_vocab, tgt_vocab, train):
    torch.manual_seed(0)
    optimizer = torch.optim.Adam(model.parameters(), lr=settings["lr"], betas=(0.9, 0.98))
    scheduler = warmup_inverse_sqrt(optimizer, settings["warmup"])
    checkpoints = [c for c in CHECKPOINTS if c <= budget]
    curve, spent, epoch = [], 0.0, 0
    generator = torch.Generator().manual_seed(0)
    print(f"{name}: {sum(p.numel() for p in model.parameters()):,} parameters", flush=True)
    while checkpoints:
        epoch += 1
        model.train()
        for batch in pair_batches(train, settings["batch_size"], shuffle=True, generator=generator):
            if not checkpoints:
                break  # the budget is spent: stop training where it was measured
            start = time.process_time()
            loss = translation_loss(model(batch.src, batch.tgt_in), batch.tgt_out,
                                    settings["label_smoothing"])
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), settings["clip"])
            optimizer.step()
            scheduler.step()
            spent += time.process_time() - start
            if spent >= checkpoints[0]:
                score = bleu(model, decode, split.test, src_vocab, tgt_vocab)
                curve.append((checkpoints.pop(0), epoch, score))
                print(f"  {name:9} {curve[-1][0]:5d} CPU s  epoch {epoch:3d}  "
                      f"test BLEU {score:5.1f}", flush=True)
                model.train()
    return curve


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=int, default=600, help="training CPU seconds per model")
    parser.add_argument("--models", default="course,reference",
                        help="comma-separated: course, reference, gru, bahdanau")
    args = parser.parse_args()
    models = args.models.split(",")
    unknown = sorted(set(models) - {"course", "reference", "gru", "bahdanau"})
    if unknown:
        parser.error(f"unknown models {unknown}")
    torch.set_num_threads(1)
    split, src_vocab, tgt_vocab, train = data()
    print(f"{platform.processor() or platform.machine()}, torch {torch.__version__}, "
          f"1 thread; pairs {len(split.train)}/{len(split.validation)}/{len(split.test)}, "
          f"vocab fr {len(src_vocab)} en {len(tgt_vocab)}", flush=True)
    curves = {}
    for name in models:
        torch.manual_seed(0)
        if name == "course":
            config = TranslationConfig(len(src_vocab), len(tgt_vocab), **COURSE["config"])
            model, decode = TranslationTransformer(config), greedy_decode
        elif name == "reference":
            model, decode = Reference(len(src_vocab), len(tgt_vocab)), reference_greedy
        else:
            config = RecurrentConfig(len(src_vocab), len(tgt_vocab), embed_dim=256,
                                     hidden_dim=256, dropout=0.1, tie_embeddings=True,
                                     attention="none" if name == "gru" else "bahdanau")
            model, decode = RecurrentTranslator(config), greedy_decode
        curves[name] = run(name, model, decode, COURSE, args.budget, split, src_vocab,
                           tgt_vocab, train)
    print("\nCPU s  " + "  ".join(f"{name:>9}" for name in curves))
    for i, c in enumerate(x for x in CHECKPOINTS if x <= args.budget):
        row = [f"{curve[i][2]:9.1f}" if i < len(curve) else f"{'-':>9}" for curve in curves.values()]
        print(f"{c:5d}  " + "  ".join(row))
    for name, curve in curves.items():
        print(f"best {name}: {max(s for _, _, s in curve):.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
