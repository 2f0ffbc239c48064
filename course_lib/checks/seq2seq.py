"""Self-checks for Chapter 1 (sequence to sequence)."""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor, nn

from course_lib.checks._core import ATOL, CheckFailed, call_student, compare, passed
from course_lib.seq2seq import Decoder, Encoder, EncoderDecoder

__all__ = ["check_gru_cell", "check_decoder_inputs", "check_greedy_decode"]

def _gru_variants(x, h, w_ih, w_hh, b_ih, b_hh):
    """The GRU update and three classic mistakes, as tensors."""
    gi = x @ w_ih.T + b_ih  # (B, 3H)
    gh = h @ w_hh.T + b_hh  # (B, 3H)
    i_r, i_z, i_n = gi.chunk(3, dim=-1)
    h_r, h_z, h_n = gh.chunk(3, dim=-1)
    r, z = torch.sigmoid(i_r + h_r), torch.sigmoid(i_z + h_z)
    n = torch.tanh(i_n + r * h_n)
    right = (1 - z) * n + z * h
    swapped_rz = (1 - r) * torch.tanh(i_n + z * h_n) + r * h
    flipped_z = z * n + (1 - z) * h
    hb = h @ w_hh.T  # the reset gate applied before the hidden bias is added
    r_no_bias = torch.tanh(i_n + r * hb.chunk(3, dim=-1)[2] + b_hh.chunk(3)[2])
    bias_outside = (1 - z) * r_no_bias + z * h
    return right, [
        (swapped_rz, "the reset and update gates look swapped: PyTorch stacks the gate "
         "weights in the order (r, z, n), so chunk(3) gives r first"),
        (flipped_z, "the update gate is used the other way round: PyTorch keeps the old "
         "state with weight z, h' = (1 - z) * n + z * h"),
        (bias_outside, "the reset gate must multiply the whole hidden term including its "
         "bias: n = tanh(W_in x + b_in + r * (W_hn h + b_hn))"),
    ]


def check_gru_cell(gru_cell: Callable) -> None:
    """Check ``gru_cell(x, h, weight_ih, weight_hh, bias_ih, bias_hh) -> h_new``.

    Shapes: x ``(B, F)``, h ``(B, H)``, weight_ih ``(3H, F)``, weight_hh ``(3H, H)``,
    biases ``(3H,)``; returns ``(B, H)``. Reference: ``nn.GRUCell``.
    """
    __tracebackhide__ = True
    g = torch.Generator().manual_seed(0)
    sizes = [(1, 2, 2), (3, 2, 5), (4, 3, 1), (2, 1, 3)]
    for b, f, hdim in sizes:
        with torch.random.fork_rng(devices=[]):  # leave the student's generator alone
            cell = nn.GRUCell(f, hdim)
        with torch.no_grad():
            for p in cell.parameters():
                p.copy_(torch.randn(p.shape, generator=g))
        x, h = torch.randn(b, f, generator=g), torch.randn(b, hdim, generator=g)
        params = [cell.weight_ih, cell.weight_hh, cell.bias_ih, cell.bias_hh]
        params = [p.detach().clone() for p in params]
        with torch.no_grad():
            expected = cell(x, h)
            right, mistakes = _gru_variants(x, h, *params)
        assert torch.allclose(right, expected, atol=ATOL)  # the reference agrees with itself
        got = call_student(gru_cell, "gru_cell", x.clone(), h.clone(), *[p.clone() for p in params])
        compare(got, expected, "gru_cell", f"B={b}, F={f}, H={hdim}", mistakes)
    passed("gru_cell", len(sizes))


def check_decoder_inputs(decoder_inputs: Callable) -> None:
    """Check ``decoder_inputs(source, target) -> inputs`` under full teacher forcing.

    Shapes: source ``(B, S, F)``, target ``(B, T, F)``; returns ``(B, T, F)``: the last source
    point followed by every target point but the last.
    """
    __tracebackhide__ = True
    g = torch.Generator().manual_seed(1)
    cases = [(1, 2, 2, 2), (5, 2, 2, 2), (3, 4, 3, 2), (2, 3, 1, 3)]
    for b, s, t, f in cases:
        source, target = torch.randn(b, s, f, generator=g), torch.randn(b, t, f, generator=g)
        expected = torch.cat([source[:, -1:], target[:, :-1]], dim=1)  # (B, T, F)
        mistakes = [
            (target, "this is the target itself; the decoder's inputs are shifted one step "
             "right: they start with the last source point and stop before the last target"),
            (torch.cat([source[:, :1], target[:, :-1]], dim=1), "the first input should be "
             "the LAST source point (source[:, -1:]), not the first"),
        ]
        got = call_student(decoder_inputs, "decoder_inputs", source.clone(), target.clone())
        if isinstance(got, Tensor) and got.shape == (b, t + 1, f):
            raise CheckFailed(
                f"decoder_inputs returned T + 1 = {t + 1} steps: drop the last target point, "
                f"which is only ever predicted, never fed in (B={b}, S={s}, T={t})"
            )
        compare(got, expected, "decoder_inputs", f"B={b}, S={s}, T={t}, F={f}", mistakes)
    passed("decoder_inputs", len(cases))


def check_greedy_decode(greedy_decode: Callable) -> None:
    """Check ``greedy_decode(encoder, decoder, source, target_len) -> predictions``.

    ``encoder`` and ``decoder`` are the library's :class:`~course_lib.seq2seq.Encoder` and
    :class:`~course_lib.seq2seq.Decoder`; predictions are ``(B, T, F)``, each step fed with
    the previous prediction. Reference: :class:`~course_lib.seq2seq.EncoderDecoder` in eval
    mode.
    """
    __tracebackhide__ = True
    cases = [(1, 2, 2, 2, 2), (4, 2, 2, 3, 3), (3, 3, 4, 2, 5)]
    for seed, (b, s, t, f, hdim) in enumerate(cases):
        # the cases draw their own random numbers; the student's generator is left as it was
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(100 + seed)
            encoder, decoder = Encoder(f, hdim), Decoder(f, hdim)
            source = torch.randn(b, s, f)
        model = EncoderDecoder(encoder, decoder, target_len=t).eval()
        with torch.no_grad():
            expected = model(source)
            states, final = encoder(source)
            same_input = torch.cat(
                [decoder(source[:, -1:], final)[0] for _ in range(t)], dim=1
            )  # every step restarted from the encoder's state and the last source point
            x, stale = source[:, -1:], []
            for _ in range(t):
                out, _, _ = decoder(x, final)  # the state is never carried forward
                stale.append(out)
                x = out
            stale = torch.cat(stale, dim=1)
        mistakes = [
            (same_input, "every step produced the same point: feed each prediction back as "
             "the next input and carry the returned hidden state forward"),
            (stale, "the inputs are fed back, but the hidden state is not: use the hidden "
             "state the decoder returns as the state of the next step"),
        ]
        with torch.no_grad():
            got = call_student(greedy_decode, "greedy_decode", encoder, decoder, source.clone(), t)
        compare(got, expected, "greedy_decode", f"B={b}, S={s}, T={t}, F={f}", mistakes)
    passed("greedy_decode", len(cases))
