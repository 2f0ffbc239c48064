"""Chapter 6, exercise 10: a GRU with attention in the heading frame, over three seeds,
paired against the chapter's Transformer on the same test trajectories.

    OMP_NUM_THREADS=1 python benchmarks/gps_heading_frame.py [--seeds 0,1,2]

The exercise's solution lives in Chapter 6 (``chapters/06_gps_trajectories.ipynb``, the
solution of exercise 10, "Give a network the baselines' frame") as a code block a reader
runs; :func:`heading_frame`, :func:`as_xy` and :func:`heading_frame_gru` below are that code,
with the seed as a parameter (the solution fixes it at 0). :func:`chapter_model` is the
chapter's own recipe for its table's networks (its ``make_model``, ``train`` and ``predict``
cells): the same data, features and training.

For each seed it trains

* the GRU with attention, free-running, in the **heading frame** (the exercise);
* the same network in metres east and north, as in the chapter's table (*GRU + attention,
  FR*): the pair isolates the input frame;
* the chapter's Transformer (*self-attention*), in metres east and north;

and prints each network's ADE on the chapter's 2000 city test trajectories, with the linear
and quadratic heading-frame baselines, and paired differences of per-trajectory ADE with
their standard errors (the chapter's method: the same trajectories for both, so the
trajectories' difficulty cancels). The comparisons with the Transformer, one per seed, are
Holm-adjusted together (normal two-sided p-values, as the chapter's cell does). About 110 CPU
seconds per seed on one thread. The record is
``benchmarks/results/<date>_gps_heading_frame.txt``.
"""

from __future__ import annotations

import argparse
import sys
import time
from statistics import NormalDist

import numpy as np
import torch
from recipe import Record
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from course_lib.geo import from_local
from course_lib.gps import city_trajectories
from course_lib.multiple_comparisons import holm
from course_lib.points_transformer import SelfAttentionConfig, SelfAttentionEncoderDecoder
from course_lib.seq2seq import Encoder, EncoderDecoder
from course_lib.seq2seq_attention import AttentionDecoder
from course_lib.train import Trainer
from course_lib.trajectories import (
    HeadingFrameLinear,
    HeadingFrameQuadratic,
    Standardizer,
    TrajectoryFeatures,
    displacement_errors,
    relative_metres,
    trajectory_datasets,
)

HIDDEN, EPOCHS, BATCH, PEAK_LR = 64, 30, 128, 2e-3  # the chapter's recipe
DEVICE = torch.device("cpu")


def city_data() -> dict:
    """The chapter's city splits: random streams [2025, k], k = 0 train, 1 validation, 3 test."""
    r = {k: np.random.default_rng([2025, k]) for k in (0, 1, 3)}
    return {
        "train": city_trajectories(10000, rng=r[0]),
        "valid": city_trajectories(1000, rng=r[1]),
        "test": city_trajectories(2000, rng=r[3]),
    }


# -- the solution of exercise 10 (Chapter 6), the seed made a parameter --------------------


def heading_frame(observed, future):
    """Metres from the last fix as complex numbers, turned so that each last
    step points east, and each trajectory's turn (N, 1) to undo it."""
    seen, ahead = (xy[..., 0] + 1j * xy[..., 1] for xy in relative_metres(observed, future))
    turn = np.exp(-1j * np.angle(-seen[:, -2:-1]))  # last step -> east
    return seen * turn, ahead * turn, turn


def as_xy(z):
    return np.stack([z.real, z.imag], axis=-1)  # (N, L) complex -> (N, L, 2)


def heading_frame_gru(data: dict, seed: int) -> np.ndarray:
    """Exercise 10's network: GRU + attention, free-running, in the heading frame; its test
    predictions as ``[lat, lon]`` ``(2000, 3, 2)``."""
    frames = {name: heading_frame(*split) for name, split in data.items()}
    scaler = Standardizer.fit(as_xy(np.concatenate(frames["train"][:2], 1)))

    def tensors(name):
        return [
            torch.tensor(scaler.transform(as_xy(z)), dtype=torch.float32) for z in frames[name][:2]
        ]

    torch.manual_seed(seed)  # the chapter's recipe for GRU + attention, FR
    model = EncoderDecoder(Encoder(2, HIDDEN), AttentionDecoder(2, HIDDEN), 3, 0.0)
    loader = DataLoader(
        TensorDataset(*tensors("train")),
        batch_size=BATCH,
        shuffle=True,
        generator=torch.Generator(),
    )
    optimizer = torch.optim.Adam(model.parameters(), lr=PEAK_LR)
    schedule = torch.optim.lr_scheduler.OneCycleLR(
        optimizer, max_lr=PEAK_LR, total_steps=EPOCHS * len(loader)
    )
    trainer = Trainer(model, nn.MSELoss(), optimizer, DEVICE, scheduler=schedule)
    trainer.fit(
        loader,
        DataLoader(TensorDataset(*tensors("valid")), batch_size=1000),
        epochs=EPOCHS,
        seed=seed,
        progress=False,
    )
    metres = scaler.inverse_transform(trainer.predict(tensors("test")[0]))
    turned_back = (metres[..., 0] + 1j * metres[..., 1]) / frames["test"][2]
    observed = data["test"][0]
    return from_local(as_xy(turned_back), observed[:, -1:, :2])


# -- the chapter's own networks, in metres east and north ----------------------------------


def chapter_model(kind: str, data: dict, features: TrajectoryFeatures, seed: int) -> np.ndarray:
    """The chapter's ``train`` and ``predict`` for ``kind`` ("GRU + attention, FR" or
    "self-attention"), both free-running; test predictions as ``[lat, lon]``."""
    torch.manual_seed(seed)
    if kind == "GRU + attention, FR":
        model = EncoderDecoder(Encoder(2, HIDDEN), AttentionDecoder(2, HIDDEN), 3, 0.0)
    else:
        model = SelfAttentionEncoderDecoder(
            SelfAttentionConfig(
                n_features=2, d_model=32, num_heads=4, d_ff=64, target_len=3, num_layers=2
            )
        )
    train_set, valid_set = trajectory_datasets(
        features, data["train"], data["valid"], teacher_forcing=False
    )
    loader = DataLoader(train_set, batch_size=BATCH, shuffle=True, generator=torch.Generator())
    optimizer = torch.optim.Adam(model.parameters(), lr=PEAK_LR)
    schedule = torch.optim.lr_scheduler.OneCycleLR(
        optimizer, max_lr=PEAK_LR, total_steps=EPOCHS * len(loader)
    )
    trainer = Trainer(model, nn.MSELoss(), optimizer, DEVICE, scheduler=schedule)
    trainer.fit(
        loader, DataLoader(valid_set, batch_size=1000), epochs=EPOCHS, seed=seed, progress=False
    )
    seen = data["test"][0]
    return features.to_latlon(trainer.predict(features.encode(seen)), seen)


def mean_se(x) -> tuple[float, float]:
    x = np.asarray(x, dtype=np.float64)
    return x.mean(), x.std(ddof=1) / len(x) ** 0.5


NETWORKS = ("GRU + attention, FR, heading frame", "GRU + attention, FR", "self-attention")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="0,1,2", help="comma-separated training seeds")
    parser.add_argument("--record", default="gps_heading_frame", help="record name ('' for none)")
    args = parser.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    torch.set_num_threads(1)
    with Record(args.record or "gps_heading_frame", enabled=bool(args.record)):
        run(seeds)
    return 0


def run(seeds: list[int]) -> None:
    data = city_data()
    observed, future = data["test"]
    features = TrajectoryFeatures.fit(*data["train"])
    ade = {}  # name or (name, seed) -> per-trajectory ADE (2000,)
    for baseline in (HeadingFrameLinear, HeadingFrameQuadratic):
        ade[baseline.__name__] = displacement_errors(
            baseline.fit(*data["train"])(observed), future
        ).mean(1)
    print(
        f"city data, {len(observed)} test trajectories; {EPOCHS} epochs, batches of {BATCH}, "
        f"one-cycle to {PEAK_LR:g}, free-running; seeds {', '.join(map(str, seeds))}"
    )
    for name in ("HeadingFrameLinear", "HeadingFrameQuadratic"):
        m, se = mean_se(ade[name])
        print(f"  {name:36} ADE {m:5.2f} ± {se:.2f} m")
    for seed in seeds:
        for name in NETWORKS:
            start = time.process_time()
            if name.endswith("heading frame"):
                predicted = heading_frame_gru(data, seed)
            else:
                predicted = chapter_model(name, data, features, seed)
            ade[name, seed] = displacement_errors(predicted, future).mean(1)
            m, se = mean_se(ade[name, seed])
            print(
                f"  seed {seed}  {name:36} ADE {m:5.2f} ± {se:.2f} m  "
                f"({time.process_time() - start:.0f} CPU s)",
                flush=True,
            )
    frame = NETWORKS[0]
    print("\npaired differences of ADE (m), mean ± SE over the same test trajectories")
    rows = [
        ("HeadingFrameLinear", frame),
        ("HeadingFrameQuadratic", frame),
        (NETWORKS[1], frame),
        ("self-attention", frame),
    ]
    family = {}
    for seed in seeds:
        for a, b in rows:
            d = ade.get((a, seed), ade.get(a)) - ade[b, seed]
            m, se = mean_se(d)
            if a == "self-attention":
                family[seed] = 2 * NormalDist().cdf(-abs(m / se))
            print(f"  seed {seed}  {a + ' - ' + b:70}{m:+6.2f} ± {se:.2f}  (z {m / se:+5.1f})")
    adjusted = holm(family)
    print(
        f"\nTransformer - heading-frame GRU, two-sided p (normal), Holm-adjusted over the "
        f"{len(family)} seeds:"
    )
    for seed, p in family.items():
        verdict = "significant" if adjusted[seed] <= 0.05 else "not significant"
        print(f"  seed {seed}  p {p:.4f}  Holm {adjusted[seed]:.4f}  ({verdict})")
    frame_ades = [ade[frame, s].mean() for s in seeds]
    sa_ades = [ade["self-attention", s].mean() for s in seeds]
    print(
        f"\nADE over the seeds: heading-frame GRU {min(frame_ades):.1f}-{max(frame_ades):.1f} m, "
        f"Transformer {min(sa_ades):.1f}-{max(sa_ades):.1f} m; the heading-frame GRU lower in "
        f"{sum(f < s for f, s in zip(frame_ades, sa_ades, strict=True))} of {len(seeds)} seeds"
    )


if __name__ == "__main__":
    sys.exit(main())
