"""Several runs of one model: one after the other, or together as one ensemble.

    python benchmarks/ensemble.py [--device cpu|cuda] [--epochs 3] [--record ensemble]

For each repeated training of the chapters (the model, batch size, data size and number of
runs of the chapter's cell), trains the runs one by one with the course's ``Trainer`` and
then together with ``EnsembleTrainer`` for a few epochs, and prints the seconds of each
(wall clock on the device, one CPU thread) and the speed-up. The chapters' own totals are
in ``make test``'s summary; this isolates the training loops.
"""

from __future__ import annotations

import argparse

import recipe
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from course_lib.ensemble import EnsembleTrainer
from course_lib.points_transformer import SelfAttentionConfig, SelfAttentionEncoderDecoder
from course_lib.seq2seq import Decoder, Encoder, EncoderDecoder
from course_lib.seq2seq_attention import AttentionDecoder, BahdanauDecoder
from course_lib.train import Trainer, clock


def squares_like(n: int, source_len: int, target_len: int, seed: int = 0) -> TensorDataset:
    g = torch.Generator().manual_seed(seed)
    source = torch.rand(n, source_len, 2, generator=g) * 2 - 1  # (N, S, 2)
    target = torch.rand(n, target_len, 2, generator=g) * 2 - 1  # (N, T, 2)
    return TensorDataset(source, target, target)


def gru(decoder, hidden, target_len):
    return lambda: EncoderDecoder(Encoder(2, hidden), decoder(2, hidden), target_len)


def self_attention(**settings):
    return lambda: SelfAttentionEncoderDecoder(SelfAttentionConfig(**settings))


# name: (build, runs, training sequences, source length, target length, batch, own order)
CASES = {
    "Ch1 GRU, width 2, 5 seeds": (gru(Decoder, 2, 2), 5, 256, 2, 2, 16, False),
    "Ch1 GRU, width 8, 5 seeds": (gru(Decoder, 8, 2), 5, 256, 2, 2, 16, False),
    "Ch2c attention, 5 seeds": (gru(AttentionDecoder, 2, 2), 5, 256, 2, 2, 16, False),
    "Ch2c Bahdanau, 5 seeds": (gru(BahdanauDecoder, 2, 2), 5, 256, 2, 2, 16, False),
    "Ch2c reversal GRU, S=16, 3 seeds": (gru(Decoder, 14, 16), 3, 1024, 16, 16, 64, True),
    "Ch2c reversal attention, S=16, 3 seeds": (
        gru(AttentionDecoder, 12, 16), 3, 1024, 16, 16, 64, True,
    ),
    "Ch3/4 self-attention, 8 seeds": (
        self_attention(positional=True, start="last", add_norm=None), 8, 256, 2, 2, 16, False,
    ),
    "Ch6 GRU + attention (city size), 3 seeds": (
        gru(AttentionDecoder, 64, 3), 3, 4096, 10, 3, 128, True,
    ),
    "Ch6 self-attention (city size), 3 seeds": (
        self_attention(n_features=2, d_model=32, num_heads=4, d_ff=64, target_len=3,
                       num_layers=2),
        3, 4096, 10, 3, 128, True,
    ),
}  # fmt: skip


def optimizer(params):
    return torch.optim.Adam(params, lr=0.01)


def measure(case, device: torch.device, epochs: int) -> tuple[float, float]:
    build, runs, n, source_len, target_len, batch, own_order = case
    data = squares_like(n, source_len, target_len)

    def loader():
        return DataLoader(data, batch_size=batch, shuffle=True, generator=torch.Generator())

    def models():
        out = []
        for seed in range(runs):
            torch.manual_seed(seed)
            out.append(build())
        return out

    start = clock(device)
    for seed, model in enumerate(models()):
        trainer = Trainer(model, nn.MSELoss(), optimizer(model.parameters()), device)
        trainer.fit(loader(), epochs=epochs, seed=seed if own_order else 42, progress=False)
    alone = clock(device) - start
    start = clock(device)
    ensemble = EnsembleTrainer(models(), nn.MSELoss(), optimizer, device)
    if own_order:
        ensemble.fit([loader() for _ in range(runs)], epochs=epochs, seed=list(range(runs)),
                     progress=False)  # fmt: skip
    else:
        ensemble.fit(loader(), epochs=epochs, seed=42, progress=False)
    together = clock(device) - start
    return alone, together


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--record", default="ensemble", help="record name ('' for none)")
    args = parser.parse_args()
    torch.set_num_threads(1)
    device = torch.device(args.device)
    with recipe.Record(args.record or "ensemble", enabled=bool(args.record)):
        print(f"device {device}, {args.epochs} epochs per run, torch {torch.__version__}")
        measure(CASES["Ch1 GRU, width 2, 5 seeds"], device, 1)  # warm-up, not reported
        print(f"{'case':42}{'one by one':>12}{'together':>10}{'speed-up':>10}")
        for name, case in CASES.items():
            alone, together = measure(case, device, args.epochs)
            print(f"{name:42}{alone:10.2f} s{together:8.2f} s{alone / together:9.1f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
