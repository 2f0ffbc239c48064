"""Benchmark: course_lib's MultiHeadAttention against nn.MultiheadAttention.

    python benchmarks/mha_benchmark.py [--repeats 200] [--rounds 10]

Forward plus backward pass of self-attention, CPU, float32, B=64, T=12, d_model=128,
4 heads, both computing and returning the head-averaged weights (PyTorch's default).
The two implementations run in alternating rounds inside one process, so a busy machine
slows both alike; the script prints the median time per call of each and their ratio
(course_lib / PyTorch: below 1.0 means course_lib is faster). Target: ratio <= 1.0.
"""

from __future__ import annotations

import argparse
import statistics
import time

import torch
from torch import nn

from course_lib.multihead import MultiHeadAttention

B, T, D, H = 64, 12, 128, 4


def copy_weights(ours: MultiHeadAttention, ref: nn.MultiheadAttention) -> None:
    with torch.no_grad():
        ref.in_proj_weight.copy_(
            torch.cat([ours.q_proj.weight, ours.k_proj.weight, ours.v_proj.weight])
        )
        ref.in_proj_bias.copy_(torch.cat([ours.q_proj.bias, ours.k_proj.bias, ours.v_proj.bias]))
        ref.out_proj.weight.copy_(ours.out_proj.weight)
        ref.out_proj.bias.copy_(ours.out_proj.bias)


def step(module, x) -> None:
    out, weights = module(x, x, x)
    (out.sum() + weights.sum()).backward()


def time_round(module, x, repeats: int) -> float:
    start = time.perf_counter()
    for _ in range(repeats):
        step(module, x)
    return (time.perf_counter() - start) / repeats


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=200, help="calls per round")
    parser.add_argument("--rounds", type=int, default=10, help="alternating rounds")
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    ours = MultiHeadAttention(D, H)
    ref = nn.MultiheadAttention(D, H, batch_first=True)
    copy_weights(ours, ref)
    x = torch.randn(B, T, D, requires_grad=True)
    out_ours, w_ours = ours(x, x, x)
    out_ref, w_ref = ref(x, x, x)
    torch.testing.assert_close(out_ours, out_ref, rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(w_ours, w_ref, rtol=1e-4, atol=1e-5)
    for module in (ours, ref):  # warm-up
        time_round(module, x, 20)
    times = {"course_lib": [], "torch": []}
    for _ in range(args.rounds):
        times["course_lib"].append(time_round(ours, x, args.repeats))
        times["torch"].append(time_round(ref, x, args.repeats))
    med = {name: statistics.median(ts) for name, ts in times.items()}
    print(f"torch {torch.__version__}, {args.threads} thread(s), B={B} T={T} d_model={D} heads={H}")
    print(f"forward + backward, median of {args.rounds} alternating rounds x {args.repeats} calls")
    for name, value in med.items():
        print(f"  {name:<11} {value * 1e6:9.1f} us per call")
    ratio = med["course_lib"] / med["torch"]
    print(
        f"ratio course_lib / torch: {ratio:.3f} ({'meets' if ratio <= 1.0 else 'misses'} the <= 1.0 target)"
    )


if __name__ == "__main__":
    main()
