"""Self-checks for Chapter 1 (sequence to sequence)."""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor, nn

from course_lib._foreign_names import explains_bad_calls
from course_lib._validate_basics import shape_str
from course_lib.checks._core import (
    ATOL,
    CheckFailed,
    call_student,
    case_generator,
    case_seed,
    compare,
    passed,
    reference_holds,
)
from course_lib.seq2seq import Decoder, Encoder, EncoderDecoder

__all__ = ["check_gru_cell", "check_decoder_inputs", "check_scheduled_decode"]


def _gru_variants(x, h, w_ih, w_hh, b_ih, b_hh):
    """The GRU update and four classic mistakes, as tensors."""
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
    no_reset = (1 - z) * torch.tanh(i_n + h_n) + z * h
    return right, [
        (
            no_reset,
            "the reset gate r is missing from the candidate: it scales the hidden part, "
            "n = tanh(W_in x + b_in + r * (W_hn h + b_hn)), with r = sigmoid(x_r + h_r)",
        ),
        (
            swapped_rz,
            "the reset and update gates look swapped: PyTorch stacks the gate "
            "weights in the order (r, z, n), so chunk(3) gives r first",
        ),
        (
            flipped_z,
            "the update gate is used the other way round: PyTorch keeps the old "
            "state with weight z, h' = (1 - z) * n + z * h",
        ),
        (
            bias_outside,
            "the reset gate must multiply the whole hidden term including its "
            "bias: n = tanh(W_in x + b_in + r * (W_hn h + b_hn))",
        ),
    ]


@explains_bad_calls()
def check_gru_cell(gru_cell: Callable) -> None:
    """Check ``gru_cell(x, h, weight_ih, weight_hh, bias_ih, bias_hh) -> h_new``.

    Shapes: x ``(B, F)``, h ``(B, H)``, weight_ih ``(3H, F)``, weight_hh ``(3H, H)``,
    biases ``(3H,)``; returns ``(B, H)``. Reference: ``nn.GRUCell``.
    """
    __tracebackhide__ = True
    g = case_generator(0)
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
        reference_holds(torch.allclose(right, expected, atol=ATOL), "GRU variants vs GRUCell")
        got = call_student(gru_cell, "gru_cell", x.clone(), h.clone(), *[p.clone() for p in params])
        compare(got, expected, "gru_cell", f"B={b}, F={f}, H={hdim}", mistakes)
    passed("gru_cell", len(sizes))


@explains_bad_calls()
def check_decoder_inputs(decoder_inputs: Callable) -> None:
    """Check ``decoder_inputs(source, target) -> inputs`` under full teacher forcing.

    Shapes: source ``(B, S, F)``, target ``(B, T, F)``; returns ``(B, T, F)``: the last source
    point followed by every target point but the last.
    """
    __tracebackhide__ = True
    g = case_generator(1)
    cases = [(1, 2, 2, 2), (5, 2, 2, 2), (3, 4, 3, 2), (2, 3, 1, 3)]
    for b, s, t, f in cases:
        source, target = torch.randn(b, s, f, generator=g), torch.randn(b, t, f, generator=g)
        expected = torch.cat([source[:, -1:], target[:, :-1]], dim=1)  # (B, T, F)
        mistakes = [
            (
                target,
                "this is the target itself; the decoder's inputs are shifted one step "
                "right: they start with the last source point and stop before the last target",
            ),
            (
                torch.cat([source[:, :1], target[:, :-1]], dim=1),
                "the first input should be the LAST source point (source[:, -1:]), not the first",
            ),
        ]
        if t == 2:  # only then do (B, 1, F) and (B, T - 1, F) join along the batch axis
            mistakes.append(
                (
                    torch.cat([source[:, -1:], target[:, :-1]]),
                    "torch.cat joined the pieces along dim=0, the batch axis (its default "
                    "when no dim= is given), stacking 2B sequences of one step: join them "
                    "along the time axis, torch.cat([source[:, -1:], target[:, :-1]], dim=1), "
                    "to get (B, T, F)",
                )
            )
        got = call_student(decoder_inputs, "decoder_inputs", source.clone(), target.clone())
        if isinstance(got, Tensor) and got.shape == (b, t + 1, f):
            raise CheckFailed(
                f"decoder_inputs returned shape {shape_str(got.shape)}, T + 1 = {t + 1} "
                f"steps, one step too many: expected (B, T, F) = {shape_str(expected.shape)}, "
                "one input per target point. Drop the last target point (target[:, :-1]), which is only ever "
                f"predicted, never fed in (B={b}, S={s}, T={t})"
            )
        compare(got, expected, "decoder_inputs", f"B={b}, S={s}, T={t}, F={f}", mistakes)
    passed("decoder_inputs", len(cases))


_SCHEDULED = "decode_scheduled"


def _scheduled_decoding(
    encoder: Encoder,
    decoder: Decoder,
    source: Tensor,
    target: Tensor,
    p: float,
    seed: int,
    mistake: str | None = None,
) -> tuple[Tensor, torch.Generator]:
    """Scheduled sampling with one coin per sequence, or one of its classic mistakes.

    Before each step ``t = 1, ..., T-1`` (never before step 0, never after the last
    step) ``coins = torch.rand(B, generator=generator) < p``; sequence ``b`` reads
    ``target[b, t - 1]`` where ``coins[b]`` is True, its own previous prediction
    otherwise.
    ``mistake``: ``"first"`` also draws before step 0, ``"features"`` lets the ``(B,)``
    coins broadcast over the feature axis (only possible when B == F). Returns the
    predictions ``(B, T, F)`` and the generator, seeded with ``seed``, as the decoding
    leaves it.
    """
    generator = torch.Generator().manual_seed(seed)
    b, t_len, _ = target.shape
    _, hidden = encoder(source)  # (1, B, H)
    x = source[:, -1:]  # (B, 1, F)
    if mistake == "first":
        torch.rand(b, generator=generator)
    outputs: list[Tensor] = []
    for t in range(t_len):
        if t > 0:
            coins = torch.rand(b, generator=generator) < p  # (B,)
            if mistake != "features":  # which broadcasts (B,) against (B, 1, F)
                coins = coins[:, None, None]  # (B, 1, 1): one decision per sequence
            x = torch.where(coins, target[:, t - 1 : t], outputs[-1])  # (B, 1, F)
        out, hidden, _ = decoder(x, hidden)  # (B, 1, F), (1, B, H)
        outputs.append(out)
    return torch.cat(outputs, dim=1), generator  # T x (B, 1, F) -> (B, T, F)


def _call_scheduled(fn: Callable, *args) -> Tensor:
    """``call_student``, with a hint for two errors that per-sequence coins provoke."""
    __tracebackhide__ = True
    try:
        return call_student(fn, _SCHEDULED, *args)
    except CheckFailed as err:
        cause = str(err.__cause__) if isinstance(err.__cause__, RuntimeError) else ""
        if "ambiguous" in cause:
            hint = (
                "the coins hold one decision per sequence, so a Python `if` cannot "
                "use them: mix the true and the predicted points with "
                "torch.where(coins[:, None, None], true_point, prediction)"
            )
        elif "must match the size" in cause:
            hint = (
                "the (B,) coins seem to be broadcast along the features of the "
                "points (B, 1, F): index them as coins[:, None, None], shape "
                "(B, 1, 1), so that each sequence takes its whole point from one side"
            )
        else:
            raise
        raise CheckFailed(f"{err}\nHint: {hint}") from err.__cause__


def _same_rows(x: Tensor) -> bool:
    return bool(torch.allclose(x, x[:1].expand_as(x), atol=ATOL))


@explains_bad_calls()
def check_scheduled_decode(decode_scheduled: Callable) -> None:
    """Check ``decode_scheduled(encoder, decoder, source, target, p, generator)``.

    Scheduled sampling with one coin per sequence: ``encoder`` and ``decoder`` are the
    library's :class:`~course_lib.seq2seq.Encoder` and
    :class:`~course_lib.seq2seq.Decoder`, source ``(B, S, F)``, target ``(B, T, F)``;
    returns the predictions ``(B, T, F)``. Step 0 starts from the encoder's final state
    and reads the last source point; before each step ``t = 1, ..., T-1`` (and at no
    other time) the answer draws ``coins = torch.rand(B, generator=generator) < p``, and
    sequence ``b`` reads the true previous point ``target[b, t - 1]`` where ``coins[b]``
    is True, its own previous prediction otherwise.

    Checked: ``p = 0`` is the free-running decoding of
    :class:`~course_lib.seq2seq.EncoderDecoder` in eval mode; ``p = 1`` is teacher
    forcing on the shifted target; other ``p`` agree, coin for coin, with the reference,
    and the sequences of a batch get coins of their own; the predictions keep their
    gradients.
    """
    __tracebackhide__ = True
    n_cases = 0
    # (B, S, T, F, H): p = 0 and p = 1 on each
    for seed, (b, s, t, f, hdim) in enumerate([(1, 2, 2, 2, 2), (3, 3, 4, 2, 5)]):
        # the cases draw their own random numbers; the global generator is left alone
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(case_seed(300 + seed))
            encoder, decoder = Encoder(f, hdim), Decoder(f, hdim)
            source, target = torch.randn(b, s, f), torch.randn(b, t, f)
        with torch.no_grad():
            free = EncoderDecoder(encoder, decoder, target_len=t).eval()(source)
            _, final = encoder(source)
            shifted = torch.cat([source[:, -1:], target[:, :-1]], dim=1)  # (B, T, F)
            forced = decoder(shifted, final)[0]  # teacher forcing: one call, T steps
            ahead = decoder(torch.cat([source[:, -1:], target[:, 1:]], 1), final)[0]
            same_input = torch.cat(
                [decoder(source[:, -1:], final)[0] for _ in range(t)], dim=1
            )  # every step restarted from the encoder's state and the last point
            x, stale = source[:, -1:], []
            for _ in range(t):
                x = decoder(x, final)[0]  # the state is never carried forward
                stale.append(x)
            stale = torch.cat(stale, dim=1)
        for p, expected, mistakes in [
            (
                0.0,
                free,
                [
                    (
                        forced,
                        "with p = 0 the decoder was teacher forced: a coin that is "
                        "True (probability p) means the TRUE previous point, so p = 0 never "
                        "reads the target -- it is the free-running decoding of the chapter",
                    ),
                    (
                        same_input,
                        "every step produced the same point: feed each prediction "
                        "back as the next input and carry the returned hidden state forward",
                    ),
                    (
                        stale,
                        "the inputs are fed back, but the hidden state is not: use the "
                        "hidden state the decoder returns as the state of the next step",
                    ),
                ],
            ),
            (
                1.0,
                forced,
                [
                    (
                        free,
                        "with p = 1 the decoder ran free: a coin that is True "
                        "(probability p) means the TRUE previous point, so p = 1 is full "
                        "teacher forcing",
                    ),
                    (
                        ahead,
                        "step t read target[:, t], the very point it must predict: the "
                        "true PREVIOUS point is target[:, t - 1]",
                    ),
                ],
            ),
        ]:
            n_cases += 1
            case = f"p={p:g}, B={b}, S={s}, T={t}, F={f}"
            generator = case_generator(7)
            got = _call_scheduled(
                decode_scheduled,
                encoder,
                decoder,
                source.clone(),
                target.clone(),
                p,
                generator,
            )
            compare(got, expected, _SCHEDULED, case, mistakes)
    # (B, S, T, F, H, p, B copies of one sequence): the coins decide. The copies come
    # first: where all rows of the answer agree, the whole batch shared its coins.
    mixed = [(6, 2, 4, 2, 3, 0.5, True), (2, 2, 3, 2, 3, 0.5, False), (5, 3, 4, 3, 4, 0.3, False)]
    for seed, (b, s, t, f, hdim, p, copies) in enumerate(mixed):
        n_cases += 1
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(case_seed(400 + seed))
            encoder, decoder = Encoder(f, hdim), Decoder(f, hdim)
            source, target = torch.randn(b, s, f), torch.randn(b, t, f)
        if copies:  # B copies of one sequence: only the coins can tell them apart
            source, target = source[:1].expand_as(source), target[:1].expand_as(target)
            source, target = source.contiguous(), target.contiguous()
        case = f"p={p:g}, B={b}, S={s}, T={t}, F={f}" + (
            ", B copies of one sequence" if copies else ""
        )
        coin_seed = case_seed(500 + seed)  # the seed of case_generator(500 + seed), below
        with torch.no_grad():
            expected, used = _scheduled_decoding(encoder, decoder, source, target, p, coin_seed)
            mistakes = [
                (
                    _scheduled_decoding(encoder, decoder, source, target, p, coin_seed, "first")[0],
                    "a coin is drawn before step 0 too: step 0 always reads the last "
                    "source point, so draw the coins only before steps 1, ..., T-1",
                ),
            ]
            if b == f:
                mistakes.append(
                    (
                        _scheduled_decoding(
                            encoder, decoder, source, target, p, coin_seed, "features"
                        )[0],
                        "the (B,) coins were broadcast along the features, not along "
                        "the batch: index them as coins[:, None, None], shape (B, 1, 1), "
                        "so that each sequence takes its whole point from one side",
                    )
                )
        if copies:
            reference_holds(not _same_rows(expected), "the coins differ between sequences")
        generator = case_generator(500 + seed)
        untouched = generator.get_state()
        with torch.enable_grad():
            got = _call_scheduled(
                decode_scheduled,
                encoder,
                decoder,
                source.clone(),
                target.clone(),
                p,
                generator,
            )
        right_shape = isinstance(got, Tensor) and got.shape == expected.shape
        if right_shape and torch.equal(generator.get_state(), untouched):
            raise CheckFailed(
                f"{_SCHEDULED} never drew from `generator` ({case}): draw the coins "
                "with torch.rand(B, generator=generator) < p, so that a seeded "
                "generator gives the same coins every time"
            )
        if right_shape and copies and _same_rows(got.detach()):
            raise CheckFailed(
                f"{_SCHEDULED}: every sequence of the batch took the same branch at "
                f"every step ({case}), so the coin is shared by the whole batch (as in "
                "the library's EncoderDecoder): draw one coin per sequence, coins = "
                "torch.rand(B, generator=generator) < p, and choose for each sequence "
                "with torch.where(coins[:, None, None], ...)"
            )
        compare(got, expected, _SCHEDULED, case, mistakes)
        if not torch.equal(generator.get_state(), used.get_state()):
            raise CheckFailed(
                f"{_SCHEDULED} gives the right predictions but did not draw exactly "
                f"T - 1 = {t - 1} times torch.rand(B, generator=generator) ({case}): "
                "draw once before each of the steps 1, ..., T-1 -- the coin after the "
                "last step decides nothing"
            )
        if not got.requires_grad:
            raise CheckFailed(
                f"{_SCHEDULED}'s predictions do not require grad ({case}), so training "
                "could not learn from them: keep the decoder's outputs as they are "
                "(no .detach(), .item(), torch.no_grad() or torch.tensor(...)) and "
                "join them with torch.cat"
            )
        encoder.zero_grad()
        try:
            got.sum().backward()
        except RuntimeError as err:
            raise CheckFailed(
                f"{_SCHEDULED}: backpropagating through the predictions raised "
                f"RuntimeError: {err} ({case}). Change no tensor in place (no +=, x[...] = "
                "..., or a method ending in _ on the outputs): join the steps' outputs with "
                "torch.cat and mix them with torch.where"
            ) from err
        if not any(w.grad is not None and w.grad.abs().sum() > 0 for w in encoder.parameters()):
            raise CheckFailed(
                f"{_SCHEDULED}: no gradient reaches the encoder ({case}): start the "
                "decoder from the encoder's final state as it is returned, not detached"
            )
    passed(_SCHEDULED, n_cases)
