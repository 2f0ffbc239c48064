"""Self-checks for Chapters 3 and 4: multi-head attention and the encoder layer against
PyTorch, learned positions, shifts of the sinusoidal code as rotations.

The references are PyTorch's own modules, ``nn.MultiheadAttention`` and
``nn.TransformerEncoderLayer`` (``batch_first=True``, no dropout): the answers compute their
forward passes from the modules' parameters.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from course_lib._foreign_names import explains_bad_calls
from course_lib._validate_basics import shape_str
from course_lib.checks._core import (
    CheckFailed,
    call_student,
    case_generator,
    case_seed,
    compare,
    in_order,
    passed,
    unpack,
    variant,
)
from course_lib.checks._describe import describe

__all__ = [
    "check_multi_head_attention",
    "check_encoder_layer",
    "check_learned_positions",
    "check_shift_matrix",
]


def _heads(x: Tensor, n_heads: int) -> Tensor:
    b, t, d = x.shape
    return x.view(b, t, n_heads, d // n_heads).transpose(1, 2)  # (B, Nh, T, Dh)


def _mha_variants(query, key, value, mha, mask):
    """Known mistakes, computed from the module's parameters: name -> (output, weights)."""
    b, t, d = query.shape
    nh = mha.num_heads
    w_q, w_k, w_v = mha.in_proj_weight.chunk(3)
    b_q, b_k, b_v = mha.in_proj_bias.chunk(3)
    q = F.linear(query, w_q, b_q)
    k = F.linear(key, w_k, b_k)
    v = F.linear(value, w_v, b_v)

    def attend(split, scale, polarity=True, merge_transpose=True, project=True):
        qh, kh, vh = split(q), split(k), split(v)  # (B, Nh, T|S, Dh)
        scores = qh @ kh.transpose(-2, -1) / scale  # (B, Nh, T, S)
        if mask is not None:
            scores = scores.masked_fill(
                (mask if polarity else ~mask)[:, None, None, :], float("-inf")
            )
        weights = scores.softmax(-1)
        context = weights @ vh  # (B, Nh, T, Dh)
        if merge_transpose:
            context = context.transpose(1, 2)
        merged = context.reshape(b, t, d)  # (B, T, D)
        return (mha.out_proj(merged) if project else merged), weights.mean(1)

    def no_transpose(x):
        return x.reshape(x.shape[0], nh, x.shape[1], d // nh)

    dh = d // nh
    return {
        "the scores are divided by sqrt(d_model); divide by sqrt(Dh), the width of ONE head "
        "(d_model / num_heads)": attend(lambda x: _heads(x, nh), math.sqrt(d)),
        "the mask's polarity is flipped: True marks PADDING, whose keys get weight 0": attend(
            lambda x: _heads(x, nh), math.sqrt(dh), polarity=False
        ),
        "reshaping (B, T, D) straight to (B, Nh, T, Dh) mixes steps and features: view it "
        "as (B, T, Nh, Dh) first, then transpose(1, 2)": attend(no_transpose, math.sqrt(dh)),
        "merging the heads without transposing back mixes steps: transpose (B, Nh, T, Dh) to "
        "(B, T, Nh, Dh) before reshaping to (B, T, D)": attend(
            lambda x: _heads(x, nh), math.sqrt(dh), merge_transpose=False
        ),
        "the output projection out_proj is missing: pass the merged heads (B, T, D) through "
        "mha.out_proj (its weight and bias) before returning them": attend(
            lambda x: _heads(x, nh), math.sqrt(dh), project=False
        ),
    }


@explains_bad_calls()
def check_multi_head_attention(multi_head_attention: Callable) -> None:
    """Check ``multi_head_attention(query, key, value, mha, key_padding_mask) -> (out, w)``.

    ``mha`` is an ``nn.MultiheadAttention(d_model, num_heads, batch_first=True)``; the
    answer must return what ``mha(query, key, value, key_padding_mask=...)`` returns: the
    output ``(B, T, D)`` and the weights averaged over the heads ``(B, T, S)``, computed
    from ``mha.in_proj_weight``, ``mha.in_proj_bias``, ``mha.out_proj`` and
    ``mha.num_heads``. ``key_padding_mask`` is ``(B, S)``, True = padding, or ``None``.
    """
    __tracebackhide__ = True
    name = "multi_head_attention"
    g = case_generator(3)
    # (B, T, S, D, Nh, lengths): self-attention, cross-attention, padding, one head
    cases = [
        (2, 3, 3, 8, 2, None),
        (2, 2, 4, 6, 3, [4, 2]),
        (3, 4, 5, 8, 4, [5, 1, 3]),
        (1, 2, 3, 4, 1, [2]),
    ]
    for seed, (b, t, s, d, nh, lengths) in enumerate(cases):
        with torch.random.fork_rng(devices=[]):  # leave the student's generator alone
            torch.manual_seed(case_seed(300 + seed))
            mha = nn.MultiheadAttention(d, nh, batch_first=True)
            nn.init.normal_(mha.in_proj_bias, std=0.1)  # PyTorch starts the biases at 0
        mha.eval()
        query = torch.randn(b, t, d, generator=g)
        key = query if t == s and lengths is None else torch.randn(b, s, d, generator=g)
        value = key if t == s and lengths is None else torch.randn(b, s, d, generator=g)
        mask = None if lengths is None else torch.arange(s) >= torch.tensor(lengths)[:, None]
        kind = "self-attention" if key is query else "cross-attention"
        case = f"{kind}, B={b}, T={t}, S={s}, d_model={d}, num_heads={nh}" + (
            f", key lengths {lengths}" if lengths else ", no mask"
        )
        with torch.no_grad():
            out, weights = mha(query, key, value, key_padding_mask=mask)
            got = call_student(multi_head_attention, name, query, key, value, mha, mask)
            variants = _mha_variants(query, key, value, mha, mask)
        got_out, got_w = unpack(got, ("output", "weights"), name, case, "a tuple")
        if isinstance(got_w, Tensor) and got_w.shape == (b, nh, t, s) and nh > 1:
            raise CheckFailed(
                f"{name} returned the weights of every head {shape_str(got_w.shape)}; "
                f"return their mean over the heads, {shape_str((b, t, s))} ({case})"
            )
        in_order((got_out, got_w), (out, weights), ("output", "weights"), name, case)
        compare(
            got_w,
            weights,
            f"{name}'s weights",
            case,
            [(w, why) for why, (_, w) in variants.items()],
        )
        compare(
            got_out,
            out,
            f"{name}'s output",
            case,
            [(o, why) for why, (o, _) in variants.items()]
            + [
                (
                    F.linear(out, torch.eye(d)) - mha.out_proj.bias,
                    "the output projection's bias is missing: apply mha.out_proj (weight and bias)",
                )
            ],
        )
    passed(name, len(cases))


@explains_bad_calls()
def check_encoder_layer(encoder_layer: Callable) -> None:
    """Check ``encoder_layer(x, layer, src_key_padding_mask) -> (B, T, D)``.

    ``layer`` is an ``nn.TransformerEncoderLayer(d_model, nhead, dim_feedforward,
    dropout=0.0, batch_first=True)``, post-norm or pre-norm (``layer.norm_first``); the
    answer must compute its forward pass from ``layer.self_attn``, ``layer.linear1``,
    ``layer.linear2``, ``layer.norm1`` and ``layer.norm2``, with a ReLU between the two
    linear layers. ``src_key_padding_mask`` is ``(B, T)``, True = padding, or ``None``.
    """
    __tracebackhide__ = True
    name = "encoder_layer"
    g = case_generator(4)
    # (B, T, D, Nh, FF, norm_first, lengths)
    cases = [
        (2, 3, 8, 2, 16, False, None),
        (3, 4, 6, 3, 12, False, [4, 2, 3]),
        (2, 5, 8, 4, 32, True, [5, 3]),
        (1, 2, 4, 1, 8, True, None),
    ]
    for seed, (b, t, d, nh, ff, norm_first, lengths) in enumerate(cases):
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(case_seed(400 + seed))
            layer = nn.TransformerEncoderLayer(
                d, nh, ff, dropout=0.0, batch_first=True, norm_first=norm_first
            )
            for norm in (layer.norm1, layer.norm2):  # PyTorch starts them at 1 and 0
                nn.init.normal_(norm.weight, 1.0, 0.2)
                nn.init.normal_(norm.bias, 0.0, 0.2)
        layer.eval()
        x = torch.randn(b, t, d, generator=g)
        mask = None if lengths is None else torch.arange(t) >= torch.tensor(lengths)[:, None]
        case = f"{'pre' if norm_first else 'post'}-norm, B={b}, T={t}, d_model={d}, nhead={nh}" + (
            f", lengths {lengths}" if lengths else ", no mask"
        )
        # with gradients on, PyTorch takes its reference path, not the fused fast path
        expected = layer(x, src_key_padding_mask=mask).detach()
        got = call_student(encoder_layer, name, x.clone(), layer, mask)

        def sa(y, layer=layer, mask=mask):
            return layer.self_attn(y, y, y, key_padding_mask=mask, need_weights=False)[0]

        def ffn(y, layer=layer):
            return layer.linear2(F.relu(layer.linear1(y)))

        def gelu_ffn(y, layer=layer):
            return layer.linear2(F.gelu(layer.linear1(y)))

        with torch.no_grad():
            other = (
                layer.norm2(layer.norm1(x + sa(x)) + ffn(layer.norm1(x + sa(x))))
                if norm_first
                else (lambda y: y + ffn(layer.norm2(y)))(x + sa(layer.norm1(x)))
            )
            no_relu = (
                (lambda y: y + layer.linear2(layer.linear1(layer.norm2(y))))(x + sa(layer.norm1(x)))
                if norm_first
                else (lambda y: layer.norm2(y + layer.linear2(layer.linear1(y))))(
                    layer.norm1(x + sa(x))
                )
            )
            gelu = (  # a GELU where the layer's ReLU goes
                (lambda y: y + gelu_ffn(layer.norm2(y)))(x + sa(layer.norm1(x)))
                if norm_first
                else (lambda y: layer.norm2(y + gelu_ffn(y)))(layer.norm1(x + sa(x)))
            )
            no_residual = (
                (lambda y: ffn(layer.norm2(y)))(sa(layer.norm1(x)))
                if norm_first
                else layer.norm2(ffn(layer.norm1(sa(x))))
            )
            # one of the two residual connections missing
            no_ffn_residual = (
                ffn(layer.norm2(x + sa(layer.norm1(x))))
                if norm_first
                else layer.norm2(ffn(layer.norm1(x + sa(x))))
            )
            no_sa_residual = (
                (lambda y: y + ffn(layer.norm2(y)))(sa(layer.norm1(x)))
                if norm_first
                else (lambda y: layer.norm2(y + ffn(y)))(layer.norm1(sa(x)))
            )

            one_norm = []  # both sublayers normalised by norm1, then by norm2
            for norm in (layer.norm1, layer.norm2):
                if norm_first:
                    y = x + sa(norm(x))
                    one_norm.append(y + ffn(norm(y)))
                else:
                    y = norm(x + sa(x))
                    one_norm.append(norm(y + ffn(y)))
            norm1_twice, norm2_twice = one_norm
        order = (
            "this is the post-norm layer (add, then normalise), but layer.norm_first "
            "is True: normalise the sublayer's INPUT, x + sublayer(norm(x))"
            if norm_first
            else "this is the pre-norm layer, but layer.norm_first is False: add first, then "
            "normalise, norm(x + sublayer(x))"
        )
        compare(
            got,
            expected,
            name,
            case,
            [
                (other, order),
                (no_relu, "the feed-forward network has no ReLU between linear1 and linear2"),
                (
                    gelu,
                    "the feed-forward network uses a GELU between linear1 and linear2; this "
                    "layer's activation is a ReLU (layer.activation is F.relu, the default of "
                    "nn.TransformerEncoderLayer): use F.relu",
                ),
                (
                    no_residual,
                    "the residual connections are missing: add each sublayer's input to its output",
                ),
                (
                    no_ffn_residual,
                    "the residual connection around the feed-forward block is missing: add its "
                    "input back, "
                    + (
                        "x + ffn(norm2(x))"
                        if norm_first
                        else "norm2(x + ffn(x)), ffn(x) = linear2(relu(linear1(x)))"
                    ),
                ),
                (
                    no_sa_residual,
                    "the residual connection around the self-attention is missing: add its "
                    "input back, "
                    + ("x + self_attn(norm1(x))" if norm_first else "norm1(x + self_attn(x))"),
                ),
                (
                    norm1_twice,
                    "both sublayers are normalised with layer.norm1, and layer.norm2 is never "
                    "used: each sublayer has a LayerNorm of its own, norm1 for the "
                    "self-attention and norm2 for the feed-forward block, "
                    + ("x + ffn(norm2(x))" if norm_first else "norm2(x + ffn(x))"),
                ),
                (
                    norm2_twice,
                    "both sublayers are normalised with layer.norm2, and layer.norm1 is never "
                    "used: each sublayer has a LayerNorm of its own, norm1 for the "
                    "self-attention, "
                    + ("x + self_attn(norm1(x))" if norm_first else "norm1(x + self_attn(x))")
                    + ", and norm2 for the feed-forward block",
                ),
            ],
        )
    passed(name, len(cases))


def _a_module(module_cls, name: str, *args) -> nn.Module:
    """``module_cls(*args)``, an ``nn.Module``, or :class:`CheckFailed`."""
    __tracebackhide__ = True
    if isinstance(module_cls, nn.Module):
        raise CheckFailed(
            f"pass the class {name} itself, not an instance of it: the check builds its own"
        )
    module = call_student(module_cls, name, *args)
    if not isinstance(module, nn.Module):
        raise CheckFailed(
            f"{name}(...) built {describe(module)}: make {name} a module, class "
            f"{name}(nn.Module), that calls super().__init__() first"
        )
    return module


@explains_bad_calls()
def check_learned_positions(positions_cls: Callable) -> None:
    """Check ``LearnedPositions(max_len, d_model)``: ``x * sqrt(d_model)`` plus one learned
    vector per position, ``nn.Embedding(max_len, d_model)`` stored as ``self.embedding``.

    Shape: ``x`` ``(B, T, D)`` -> ``(B, T, D)``, for any ``T <= max_len``.
    """
    __tracebackhide__ = True
    name = "LearnedPositions"
    g = case_generator(7)
    cases = [(2, 3, 4, 6), (1, 5, 5, 2), (3, 1, 8, 4)]  # (B, T, max_len, D)
    for seed, (b, t, max_len, d) in enumerate(cases):
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(case_seed(600 + seed))
            module = _a_module(positions_cls, name, max_len, d)
        embedding = getattr(module, "embedding", None)
        if not isinstance(embedding, nn.Embedding):
            raise CheckFailed(
                f"{name} needs `self.embedding = nn.Embedding(max_len, d_model)`: "
                "one learned vector per position"
            )
        if tuple(embedding.weight.shape) != (max_len, d):
            swapped = (
                ": its two sizes are swapped -- nn.Embedding takes the number of rows first "
                "(max_len, one per position), then their width (d_model)"
                if tuple(embedding.weight.shape) == (d, max_len)
                else ""
            )
            raise CheckFailed(
                f"{name}({max_len}, {d}).embedding holds "
                f"{shape_str(embedding.weight.shape)} vectors; it needs one row of "
                f"d_model={d} numbers per each of the max_len={max_len} positions, "
                f"nn.Embedding(max_len, d_model), shape ({max_len}, {d}){swapped}"
            )
        x = torch.randn(b, t, d, generator=g)
        case = f"B={b}, T={t}, max_len={max_len}, d_model={d}"
        with torch.no_grad():
            got = call_student(module, name, x)
            table = embedding.weight[:t]  # (T, D)
        compare(
            got,
            x * math.sqrt(d) + table,
            name,
            case,
            [
                (
                    x + table,
                    "the input is not scaled: multiply it by sqrt(d_model) before "
                    "adding the positions, as PositionalEncoding does (one change at a time)",
                ),
                (
                    x * math.sqrt(d) + embedding.weight[:t].flip(0),
                    "the positions are reversed: row p of the embedding belongs to position p",
                ),
            ],
        )
    passed(name, len(cases))


def _shift_matrix(k: int, d: int, exponent: str = "2i", layout: str = "interleaved") -> Tensor:
    """The rotation taking the column ``PE(pos)`` to ``PE(pos + k)``, float64; the other
    exponents and layouts are known mistakes."""
    pairs = torch.arange(d // 2, dtype=torch.float64)  # i = 0 .. D/2 - 1
    if exponent == "none":  # one speed, 1, for every pair
        speeds = torch.ones_like(pairs)
    else:
        speeds = 10000.0 ** (-(2 * pairs if exponent == "2i" else pairs) / d)  # (D/2,)
    c, s = torch.cos(k * speeds), torch.sin(k * speeds)
    m = torch.zeros(d, d, dtype=torch.float64)
    # the pair i sits in columns (2i, 2i + 1) interleaved, (i, i + D/2) concatenated
    first = 2 * pairs.long() if layout == "interleaved" else pairs.long()
    second = first + 1 if layout == "interleaved" else first + d // 2
    m[first, first], m[first, second] = c, s  # sin(a + b) = sin a cos b + cos a sin b
    m[second, first], m[second, second] = -s, c  # cos(a + b) = cos a cos b - sin a sin b
    return m


def _shift_cases() -> list[tuple[int, int]]:
    """The ``(k, D)`` of the cases: four written out and, inside ``unseen_cases``, three
    more drawn (``1 <= k <= 20``, even ``2 <= D <= 24``), none of them a written one."""
    cases = [(3, 8), (1, 4), (7, 16), (0, 6)]
    if variant() > 0:
        g = case_generator(10)
        while len(cases) < 7:
            k = int(torch.randint(1, 21, (1,), generator=g))
            d = 2 * int(torch.randint(1, 13, (1,), generator=g))
            if (k, d) not in cases:
                cases.append((k, d))
    return cases


@explains_bad_calls()
def check_shift_matrix(shift_matrix: Callable) -> None:
    """Check ``shift_matrix(k, d_model)``: the ``(D, D)`` block-diagonal matrix ``M_k`` with
    ``PE(pos + k) = M_k PE(pos)`` for the library's sinusoidal code as a column vector (sine
    in feature ``2i``, cosine in ``2i + 1``, speed ``1 / 10000^(2i / D)``), even ``D``.
    """
    __tracebackhide__ = True
    name = "shift_matrix"
    cases = _shift_cases()
    agreed: list[int] = []  # the d_model of the cases passed so far
    for k, d in cases:
        case = f"k={k}, d_model={d}"
        try:
            got = call_student(shift_matrix, name, k, d)
        except CheckFailed as err:
            other = [a for a in agreed if a != d]
            if not other or not isinstance(err.__cause__, (RuntimeError, IndexError)):
                raise
            raise CheckFailed(
                f"{err}\nHint: shift_matrix gave the right matrix for d_model={other[0]} but "
                f"raised for d_model={d} ({case}): is a size written in for one d_model (a "
                f"loop over range({other[0] // 2}), the pairs of d_model={other[0]})? M has "
                "d_model / 2 blocks, "
                "one 2x2 rotation per sine/cosine pair (dial): loop over every pair of the "
                "given d_model, for i in range(d_model // 2)"
            ) from err.__cause__
        expected = _shift_matrix(k, d)
        partial = []  # only the first n of the D/2 blocks filled, the rest left zero
        for n in range(1, d // 2):
            some = expected.clone()
            some[2 * n :, :] = 0.0
            some[:, 2 * n :] = 0.0
            partial.append(
                (
                    some,
                    f"only the first {n} of the d_model / 2 = {d // 2} diagonal blocks are "
                    "filled, the rest left zero: M has one 2x2 rotation block per sine/cosine "
                    "pair (dial) -- loop over every pair of the given d_model, for i in "
                    "range(d_model // 2)",
                )
            )
        compare(
            got,
            expected,
            name,
            case,
            [
                (
                    expected.T,
                    "this is the transpose of M_k: it shifts by -k (the rotation's "
                    "sine entries have the wrong signs), or it is the matrix for row vectors "
                    "(table @ M). Build M for a column PE(pos): row 2i gives "
                    "sin(a + b) = sin(a) cos(b) + cos(a) sin(b)",
                ),
                (
                    _shift_matrix(k, d, exponent="i"),
                    "the speeds use 10000^(i / d_model): the "
                    "exponent is 2i / d_model, with i counting the sine/cosine PAIRS",
                ),
                (
                    _shift_matrix(k, d, exponent="none"),
                    "every pair turns by the same angle k; pair i turns at its own speed, "
                    "by k / 10000^(2i / d_model) (its frequency in the sinusoidal code): "
                    "cos and sin of k * speed_i, not of k",
                ),
                (
                    _shift_matrix(k, d, layout="concatenated"),
                    "the blocks pair features i and "
                    "i + d_model/2 (all sines, then all cosines); the library interleaves them: "
                    "the sine of pair i is feature 2i, its cosine feature 2i + 1",
                ),
                *partial,
            ],
        )
        agreed.append(d)
    passed(name, len(cases))
