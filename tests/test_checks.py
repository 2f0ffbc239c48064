"""The self-checks accept right answers and explain wrong ones in words."""

import math

import pytest
import torch

from course_lib.checks import (
    CheckFailed,
    check_decoder_inputs,
    check_gru_cell,
    check_scheduled_decode,
)


def gru_cell(x, h, w_ih, w_hh, b_ih, b_hh, order=(0, 1, 2), flip_z=False, bias_outside=False):
    gi = (x @ w_ih.T + b_ih).chunk(3, -1)
    gh_full = h @ w_hh.T
    gh = (gh_full + b_hh).chunk(3, -1)
    r_i, z_i, n_i = (order.index(k) for k in range(3))
    r = torch.sigmoid(gi[r_i] + gh[r_i])
    z = torch.sigmoid(gi[z_i] + gh[z_i])
    if bias_outside:
        n = torch.tanh(gi[n_i] + r * gh_full.chunk(3, -1)[n_i] + b_hh.chunk(3)[n_i])
    else:
        n = torch.tanh(gi[n_i] + r * gh[n_i])
    return z * n + (1 - z) * h if flip_z else (1 - z) * n + z * h


def not_implemented(*args):
    raise NotImplementedError


def test_gru_cell_right_answer_passes(capsys):
    check_gru_cell(gru_cell)
    assert "✓ gru_cell: all 4 cases agree" in capsys.readouterr().out


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"order": (1, 0, 2)}, "gates look swapped"),
        ({"flip_z": True}, "update gate is used the other way round"),
        ({"bias_outside": True}, "including its bias"),
    ],
)
def test_gru_cell_known_mistakes_are_named(kwargs, message):
    with pytest.raises(CheckFailed, match=message):
        check_gru_cell(lambda *a: gru_cell(*a, **kwargs))


def test_gru_cell_shape_and_value_errors():
    with pytest.raises(CheckFailed, match=r"returned shape \(1, 1, 2\), expected \(1, 2\)"):
        check_gru_cell(lambda *a: gru_cell(*a).unsqueeze(0))
    with pytest.raises(CheckFailed, match="largest difference"):
        check_gru_cell(lambda *a: gru_cell(*a) + 0.1)
    with pytest.raises(CheckFailed, match="should return a torch.Tensor"):
        check_gru_cell(lambda *a: gru_cell(*a).tolist())


def test_decoder_inputs():
    check_decoder_inputs(lambda s, t: torch.cat([s[:, -1:], t[:, :-1]], 1))
    with pytest.raises(CheckFailed, match="target itself"):
        check_decoder_inputs(lambda s, t: t)
    with pytest.raises(CheckFailed, match="LAST source point"):
        check_decoder_inputs(lambda s, t: torch.cat([s[:, :1], t[:, :-1]], 1))
    with pytest.raises(CheckFailed, match="T \\+ 1"):
        check_decoder_inputs(lambda s, t: torch.cat([s[:, -1:], t], 1))


def scheduled(
    encoder,
    decoder,
    source,
    target,
    p,
    generator,
    *,
    coins="sequence",
    first_coin=False,
    last_coin=False,
    use_generator=True,
    carry=True,
    look_ahead=False,
    detach=None,
):
    """Scheduled sampling with one coin per sequence, and classic ways to get it wrong.

    coins: "sequence" (right), "shared" (one per step), "first" (B drawn, the first used
    for all), "features" (the (B,) coins broadcast over the last axis), "inverted" (True
    means the prediction), "if" (a Python if on the (B,) coins).
    """
    b, t_len, _ = target.shape
    _, final = encoder(source)
    if detach == "encoder":
        final = final.detach()
    hidden, x, outs = final, source[:, -1:], []

    def draw(shape):
        return torch.rand(shape, generator=generator if use_generator else None) < p

    if first_coin:
        draw(b)
    for t in range(t_len):
        if t > 0:
            truth = target[:, t : t + 1] if look_ahead else target[:, t - 1 : t]
            if coins == "shared":
                x = truth if bool(draw(1)) else outs[-1]
            elif coins == "features":
                x = torch.where(draw(b), truth, outs[-1])
            elif coins == "inverted":
                x = torch.where(draw(b)[:, None, None], outs[-1], truth)
            elif coins == "first":  # one number per sequence, the first one for all
                x = truth if bool(draw(b)[0]) else outs[-1]
            elif coins == "if":
                x = truth if draw(b) else outs[-1]
            else:
                x = torch.where(draw(b)[:, None, None], truth, outs[-1])
        out, new_hidden, _ = decoder(x, hidden)
        outs.append(out)
        hidden = new_hidden if carry else final
    if last_coin:  # as the library does: a coin after every step, the last one unused
        draw(b)
    result = torch.cat(outs, 1)
    return result.detach() if detach == "output" else result


def test_scheduled_decode_right_answer_passes(capsys):
    check_scheduled_decode(scheduled)
    assert "✓ decode_scheduled: all 7 cases agree" in capsys.readouterr().out


def test_scheduled_decode_reference_agrees_with_the_library_at_p_0_and_1():
    from course_lib.checks.seq2seq import _scheduled_decoding
    from course_lib.seq2seq import Decoder, Encoder, EncoderDecoder

    torch.manual_seed(0)
    encoder, decoder = Encoder(2, 3), Decoder(2, 3)
    source, target = torch.randn(4, 3, 2), torch.randn(4, 5, 2)
    model = EncoderDecoder(encoder, decoder, target_len=5)
    with torch.no_grad():
        free = _scheduled_decoding(encoder, decoder, source, target, 0.0, seed=1)[0]
        forced = _scheduled_decoding(encoder, decoder, source, target, 1.0, seed=1)[0]
        assert torch.allclose(free, model.eval()(source), atol=1e-6)
        model.teacher_forcing_prob = 1.0
        assert torch.allclose(forced, model.train()(source, target), atol=1e-6)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"coins": "shared"}, "shared by the whole batch"),
        ({"coins": "features"}, r"seem to be broadcast.*coins\[:, None, None\]"),
        ({"coins": "first"}, "same branch at every step"),
        ({"coins": "inverted"}, "with p = 0 the decoder was teacher forced"),
        ({"coins": "if"}, "a Python `if` cannot use them"),
        ({"first_coin": True}, "a coin is drawn before step 0 too"),
        ({"last_coin": True}, "the coin after the last step decides nothing"),
        ({"use_generator": False}, "never drew from `generator`"),
        ({"carry": False}, "hidden state is not"),
        ({"look_ahead": True}, "the very point it must predict"),
        ({"detach": "output"}, "do not require grad"),
        ({"detach": "encoder"}, "no gradient reaches the encoder"),
    ],
)
def test_scheduled_decode_known_mistakes_are_named(kwargs, message):
    with pytest.raises(CheckFailed, match=message):
        check_scheduled_decode(lambda *a: scheduled(*a, **kwargs))


def test_scheduled_decode_features_broadcast_is_named_where_it_runs():
    # only where B == F do the (B,) coins broadcast silently along the features
    def features_if_they_fit(*a):
        b, f = a[3].shape[0], a[3].shape[2]
        return scheduled(*a, coins="features" if b == f else "sequence")

    with pytest.raises(CheckFailed, match="were broadcast along the features"):
        check_scheduled_decode(features_if_they_fit)


@pytest.mark.parametrize("check", [check_gru_cell, check_decoder_inputs, check_scheduled_decode])
def test_unimplemented_answers_fail_with_a_message(check):
    with pytest.raises(CheckFailed, match="not implemented yet"):
        check(not_implemented)


def test_student_errors_are_reported_not_hidden():
    def broken(*args):
        raise IndexError("tuple index out of range")

    with pytest.raises(CheckFailed, match="raised IndexError: tuple index out of range"):
        check_decoder_inputs(broken)
    with pytest.raises(CheckFailed, match="pass the function itself"):
        check_decoder_inputs(42)


# --- Chapter 2 ----------------------------------------------------------------------------

from course_lib.checks import (  # noqa: E402
    check_attention_step,
    check_general_scores,
    check_masked_softmax,
    check_scaled_dot_product_attention,
)


def good_masked_softmax(scores, mask):
    empty = mask.all(-1, keepdim=True)
    s = scores.masked_fill(mask, float("-inf")).masked_fill(empty, 0.0)
    return s.softmax(-1).masked_fill(empty, 0.0)


def test_masked_softmax_check():
    check_masked_softmax(good_masked_softmax)
    with pytest.raises(CheckFailed, match="NaN"):
        check_masked_softmax(lambda s, m: s.masked_fill(m, float("-inf")).softmax(-1))
    with pytest.raises(CheckFailed, match="polarity is flipped|True means BLOCKED"):
        check_masked_softmax(lambda s, m: good_masked_softmax(s, ~m))
    with pytest.raises(CheckFailed, match="in place"):
        check_masked_softmax(lambda s, m: good_masked_softmax(s.masked_fill_(m, -1e9), m))
    with pytest.raises(CheckFailed, match="weight up to"):
        check_masked_softmax(lambda s, m: s.softmax(-1))
    with pytest.raises(CheckFailed, match="sum to"):
        check_masked_softmax(lambda s, m: s.masked_fill(m, -1e9).softmax(-2).masked_fill(m, 0))
    with pytest.raises(CheckFailed, match="not implemented yet"):
        check_masked_softmax(not_implemented)


def sdpa(q, k, v, m, scale=None):
    scores = q @ k.transpose(-2, -1) * (scale if scale is not None else q.shape[-1] ** -0.5)
    w = good_masked_softmax(
        scores, m if m is not None else torch.zeros_like(scores, dtype=torch.bool)
    )
    return w @ v, w


def test_scaled_dot_product_attention_check():
    check_scaled_dot_product_attention(sdpa)
    with pytest.raises(CheckFailed, match="not scaled"):
        check_scaled_dot_product_attention(lambda *a: sdpa(*a, scale=1.0))
    with pytest.raises(CheckFailed, match="pair"):
        check_scaled_dot_product_attention(lambda *a: sdpa(*a)[0])
    with pytest.raises(CheckFailed, match="not implemented yet"):
        check_scaled_dot_product_attention(not_implemented)


def general(q, k, w, scale=None, softmax=False, transpose=False):
    scores = q @ (w.T if transpose else w) @ k.transpose(-2, -1)  # (B, T, S)
    if scale is not None:
        scores = scores / math.sqrt(q.shape[-1] if scale == "query" else k.shape[-1])
    return scores.softmax(-1) if softmax else scores


def is_identity(w):
    return w.shape[0] == w.shape[1] and torch.equal(w, torch.eye(len(w), dtype=w.dtype))


def test_general_scores_check(capsys):
    check_general_scores(general)
    out = capsys.readouterr().out
    assert "✓ general_scores: all 5 cases agree" in out
    assert "With W = I the general score is the dot product" in out
    check_general_scores(lambda q, k, w: q @ (k @ w.T).transpose(1, 2))  # q . (W k)
    check_general_scores(lambda *a: torch.einsum("bti,bsj,ij->bts", *a).float())
    for answer, message in [
        (lambda *a: general(*a, scale="query"), r"divided by sqrt\(Eq\)"),
        (lambda *a: general(*a, scale="key"), r"divided by sqrt\(Ek\)"),
        (lambda *a: general(*a, softmax=True), "these are the weights"),
        (lambda *a: general(*a, scale="query", softmax=True), "of scaled scores"),
        (lambda *a: general(*a, transpose=True), "used transposed"),  # shapes clash
        (
            lambda q, k, w: general(q, k, w, transpose=w.shape[0] == w.shape[1]),
            "used transposed",
        ),  # right only where Eq != Ek
        (
            lambda q, k, w: general(q, k, w) + 0.5 * is_identity(w),  # wrong only there
            "with W = I the general score is the dot product",
        ),
        (lambda *a: general(*a).transpose(1, 2), r"one row per query"),
        (lambda *a: general(*a)[..., :1], "returned shape"),
    ]:
        with pytest.raises(CheckFailed, match=message):
            check_general_scores(answer)
    with pytest.raises(CheckFailed, match="not implemented yet"):
        check_general_scores(not_implemented)


def test_general_scores_catches_the_plain_dot_product_after_the_identity_case():
    # q @ k^T is right for W = I: the check must fail it on the next square case
    shapes = []

    def dot_product(q, k, w):
        shapes.append(tuple(w.shape))
        return q @ k.transpose(-2, -1) if w.shape[0] == w.shape[1] else general(q, k, w)

    with pytest.raises(CheckFailed, match=r"not used.*\(B=3, T=2, S=5, Eq=4, Ek=4\)"):
        check_general_scores(dot_product)
    assert shapes == [(3, 5), (4, 4), (4, 4)]  # the identity case passed


def attention_step(decoder, x, hidden, memory, mask, scale=True, order="cq", flip=False):
    query, hidden = decoder.gru(x, hidden)  # (B, 1, H), (1, B, H)
    q = decoder.attention.q_proj(query)
    k = decoder.attention.k_proj(memory)
    scores = q @ k.transpose(1, 2)  # (B, 1, S)
    if scale:
        scores = scores / math.sqrt(q.shape[-1])
    blocked = (~mask if flip else mask)[:, None, :]
    weights = scores.masked_fill(blocked, float("-inf")).softmax(-1)
    context = weights @ memory
    pair = [context, query] if order == "cq" else [query, context]
    return decoder.output(torch.cat(pair, -1)), hidden, weights


def test_attention_step_check(capsys):
    check_attention_step(attention_step)
    assert "✓ attention_step" in capsys.readouterr().out
    with pytest.raises(CheckFailed, match="sqrt"):
        check_attention_step(lambda *a: attention_step(*a, scale=False))
    with pytest.raises(CheckFailed, match="polarity"):
        check_attention_step(lambda *a: attention_step(*a, flip=True))
    with pytest.raises(CheckFailed, match="wrong order"):
        check_attention_step(lambda *a: attention_step(*a, order="qc"))
    with pytest.raises(CheckFailed, match=r"tuple \(out, hidden, weights\)"):
        check_attention_step(lambda *a: attention_step(*a)[0])
    with pytest.raises(CheckFailed, match="not implemented yet"):
        check_attention_step(not_implemented)


# --- Chapters 3 and 4 ---------------------------------------------------------------------

from torch import nn  # noqa: E402

from course_lib.checks import check_encoder_layer, check_multi_head_attention  # noqa: E402


def mha_forward(query, key, value, mha, mask, scale_by="head", transpose=True, mean=True):
    b, t, d = query.shape
    nh = mha.num_heads
    dh = d // nh
    w_q, w_k, w_v = mha.in_proj_weight.chunk(3)
    b_q, b_k, b_v = mha.in_proj_bias.chunk(3)

    def split(x):
        if not transpose:
            return x.reshape(b, nh, x.shape[1], dh)
        return x.view(b, x.shape[1], nh, dh).transpose(1, 2)  # (B, Nh, L, Dh)

    q = split(nn.functional.linear(query, w_q, b_q))
    k = split(nn.functional.linear(key, w_k, b_k))
    v = split(nn.functional.linear(value, w_v, b_v))
    scores = q @ k.transpose(-2, -1) / math.sqrt(dh if scale_by == "head" else d)
    if mask is not None:
        scores = scores.masked_fill(mask[:, None, None, :], float("-inf"))
    weights = scores.softmax(-1)  # (B, Nh, T, S)
    context = (weights @ v).transpose(1, 2).reshape(b, t, d)
    return mha.out_proj(context), (weights.mean(1) if mean else weights)


def test_multi_head_attention_check(capsys):
    check_multi_head_attention(mha_forward)
    assert "✓ multi_head_attention" in capsys.readouterr().out
    with pytest.raises(CheckFailed, match="sqrt\\(Dh\\)"):
        check_multi_head_attention(lambda *a: mha_forward(*a, scale_by="model"))
    with pytest.raises(CheckFailed, match="transpose\\(1, 2\\)"):
        check_multi_head_attention(lambda *a: mha_forward(*a, transpose=False))
    with pytest.raises(CheckFailed, match="mean over the heads"):
        check_multi_head_attention(lambda *a: mha_forward(*a, mean=False))
    with pytest.raises(CheckFailed, match="not implemented yet"):
        check_multi_head_attention(not_implemented)


def encoder_layer(x, layer, mask, pre=None, relu=True, residual=True):
    pre = layer.norm_first if pre is None else pre

    def sa(y):
        return layer.self_attn(y, y, y, key_padding_mask=mask, need_weights=False)[0]

    def ff(y):
        hidden = layer.linear1(y)
        return layer.linear2(torch.relu(hidden) if relu else hidden)

    r = 1.0 if residual else 0.0
    if pre:
        x = r * x + sa(layer.norm1(x))
        return r * x + ff(layer.norm2(x))
    x = layer.norm1(r * x + sa(x))
    return layer.norm2(r * x + ff(x))


def test_encoder_layer_check(capsys):
    check_encoder_layer(encoder_layer)
    assert "✓ encoder_layer" in capsys.readouterr().out
    with pytest.raises(CheckFailed, match="norm_first is False"):
        check_encoder_layer(lambda *a: encoder_layer(*a, pre=True))
    with pytest.raises(CheckFailed, match="norm_first is True"):
        check_encoder_layer(lambda *a: encoder_layer(*a, pre=False))
    with pytest.raises(CheckFailed, match="no ReLU"):
        check_encoder_layer(lambda *a: encoder_layer(*a, relu=False))
    with pytest.raises(CheckFailed, match="residual"):
        check_encoder_layer(lambda *a: encoder_layer(*a, residual=False))


# --- Chapter 5 ----------------------------------------------------------------------------

from course_lib.checks import (  # noqa: E402
    check_attention_shapes,
    check_cached_attention_step,
    check_chapter_vocabulary,
    check_decoder_self_attention_mask,
    check_label_smoothed_loss,
    check_token_positions,
)
from course_lib.checks.translation import CHAPTER_IDS, CHAPTER_VOCAB_SIZE  # noqa: E402
from course_lib.positional import sinusoidal_encoding  # noqa: E402


def token_positions(
    sentence,
    vocab,
    d_model,
    eos=True,
    concatenated=False,
    start=0,
    exponent=2,
    as_list=False,
    dtype=torch.long,
):
    ids = vocab.encode(sentence, eos=eos)
    pos = torch.arange(start, start + len(ids), dtype=torch.float64)[:, None]
    angles = pos / 10000 ** (exponent * torch.arange(d_model // 2) / d_model)
    if concatenated:  # the tutorial's layout: all sines, then all cosines
        pe = torch.cat([angles.sin(), angles.cos()], 1)
    else:
        pe = torch.stack([angles.sin(), angles.cos()], -1).flatten(1)
    return (ids if as_list else torch.tensor(ids, dtype=dtype)), pe


def test_token_positions_check(capsys):
    check_token_positions(token_positions)
    assert "✓ token_positions: all 4 cases agree" in capsys.readouterr().out
    check_token_positions(
        lambda s, v, d: (torch.tensor(v.encode(s)), sinusoidal_encoding(len(v.encode(s)), d))
    )
    for kwargs, message in [
        ({"eos": False}, "<eos> that vocab.encode appends"),
        ({"concatenated": True}, r"concatenated layout.*\[0.8415, 0.5403, 0.8020, 0.5974\]"),
        ({"start": 1}, "counted from 1"),
        ({"exponent": 1}, "2i / d_model"),
        ({"as_list": True}, "ids as list.*dtype=torch.long"),
        ({"dtype": torch.int32}, "ids as torch.int32"),
        ({"dtype": torch.float32}, "ids as torch.float32"),
    ]:
        with pytest.raises(CheckFailed, match=message):
            check_token_positions(lambda *a, kw=kwargs: token_positions(*a, **kw))
    with pytest.raises(CheckFailed, match="<eos> that vocab.encode appends"):
        check_token_positions(lambda *a: (token_positions(*a)[0], token_positions(*a)[1][:-1]))
    with pytest.raises(CheckFailed, match=r"\(ids\) returned the right shape but different"):
        check_token_positions(lambda *a: (token_positions(*a)[0].clamp(max=2), None))
    with pytest.raises(CheckFailed, match="a pair"):
        check_token_positions(lambda *a: token_positions(*a)[1])


class StubVocab:
    """Encodes every sentence as ``ids`` says (a real Vocab needs the data file)."""

    def __init__(self, ids, size=CHAPTER_VOCAB_SIZE):
        self.ids, self.size = ids, size

    def encode(self, sentence):
        return list(self.ids.get(sentence, CHAPTER_IDS[sentence]))

    def __len__(self):
        return self.size


def test_chapter_vocabulary_check_names_the_way_it_was_built(capsys):
    check_chapter_vocabulary(lambda: StubVocab({}))
    assert "✓ chapter_vocabulary: all 3 sentences" in capsys.readouterr().out
    assert "[24, 2551, 7, 1986, 2]" in str(CHAPTER_IDS)
    cat = "le chat est noir"
    for ids, size, message in [
        ({cat: [24, 1875, 6, 1020, 2]}, 4603, r"got \[24, 1875, 6, 1020, 2\].*from all pairs"),
        ({cat: [24, 1728, 7, 2128, 2]}, 4357, "training and validation"),
        ({cat: [24, 598, 6, 3, 2]}, 1108, "from the validation split"),
        ({cat: [3, 3, 3, 3, 2]}, 2697, "built from the English side"),
        ({cat: [24, 2551, 7, 1986]}, 4102, "<eos> = 2"),
        ({cat: [24, 1586, 7, 1985, 2]}, 4051, "has 4051 tokens, the chapter's 4102.*seed 0"),
        ({}, 4101, "the ids agree, but the vocabulary has 4101 tokens"),
    ]:
        with pytest.raises(CheckFailed, match=message):
            check_chapter_vocabulary(lambda ids=ids, size=size: StubVocab(ids, size))
    with pytest.raises(CheckFailed, match="return the vocabulary itself.*got list"):
        check_chapter_vocabulary(lambda: [24, 2551, 7, 1986, 2])
    with pytest.raises(CheckFailed, match="not implemented yet"):
        check_chapter_vocabulary(not_implemented)


def _data_file():
    import os
    from pathlib import Path

    folder = os.environ.get("COURSE_DATA_DIR")
    path = Path(folder) / "eng-fra.txt.gz" if folder else None
    return path if path and path.exists() else None


@pytest.mark.skipif(_data_file() is None, reason="no local eng-fra.txt.gz (set COURSE_DATA_DIR)")
def test_chapter_vocabulary_constants_are_the_chapters(capsys):
    from course_lib.checks.translation import _WRONG_VOCABULARIES
    from course_lib.tatoeba import load_pairs, split_pairs
    from course_lib.vocab import Vocab

    pairs = load_pairs(_data_file())
    split = split_pairs(pairs, seed=0)
    vocab = Vocab(fr for fr, _ in split.train)
    assert {s: vocab.encode(s) for s in CHAPTER_IDS} == CHAPTER_IDS
    assert len(vocab) == CHAPTER_VOCAB_SIZE
    check_chapter_vocabulary(lambda: vocab)
    assert capsys.readouterr().out.startswith("✓")
    wrong = {
        "all pairs": Vocab(fr for fr, _ in pairs),
        "training and validation": Vocab(fr for fr, _ in split.train + split.validation),
        "validation split": Vocab(fr for fr, _ in split.validation),
        "English side": Vocab(en for _, en in split.train),
        "seed 0": Vocab(fr for fr, _ in split_pairs(pairs, seed=1).train),
    }
    for words, vocab in wrong.items():
        ids = tuple(vocab.encode("le chat est noir"))
        assert ids in _WRONG_VOCABULARIES or words in ("English side", "seed 0"), words
        with pytest.raises(CheckFailed, match=words):
            check_chapter_vocabulary(lambda vocab=vocab: vocab)


def attention_shapes(b, lq, lk, d, h):
    return (b, lq, d), (b, lq, lk), (b, h, lq, lk)


def test_attention_shapes_check(capsys):
    check_attention_shapes(attention_shapes)
    assert "✓ attention_shapes: all 4 cases agree" in capsys.readouterr().out
    check_attention_shapes(lambda *a: [list(s) for s in attention_shapes(*a)])
    check_attention_shapes(lambda *a: [torch.Size(s) for s in attention_shapes(*a)])
    for answer, message in [
        (
            lambda b, lq, lk, d, h: ((b, lq, lk), (b, lq, lk), (b, h, lq, lk)),
            r"output shape \(2, 3, 5\) is wrong: that is the shape of the head-averaged",
        ),
        (lambda b, lq, lk, d, h: ((b, lk, d), (b, lq, lk), (b, h, lq, lk)), "rows as there"),
        (lambda b, lq, lk, d, h: ((b, lq, d), (b, h, lq, lk), (b, h, lq, lk)), "removes the H"),
        (lambda b, lq, lk, d, h: ((b, lq, d), (b, lq, lk), (b, lq, h, lk)), "head axis second"),
        (lambda b, lq, lk, d, h: ((b, lq, d), (b, lq, lk), (h, b, lq, lk)), "head axis second"),
        (
            lambda b, lq, lk, d, h: ((lq, b, d), (b, lq, lk), (b, h, lq, lk)),
            r"expected \(B, Lq, D\) = \(2, 3, 8\)",
        ),
        (lambda b, lq, lk, d, h: ("B, Lq, D", (b, lq, lk), (b, h, lq, lk)), "tuple of ints"),
        (lambda *a: attention_shapes(*a)[:2], "three shapes"),
    ]:
        with pytest.raises(CheckFailed, match=message):
            check_attention_shapes(answer)


def decoder_mask(tgt_in, diagonal=1, pad_axis="key", combine="or"):
    t = tgt_in.shape[1]
    causal = torch.ones(t, t, dtype=torch.bool).triu(diagonal)[None]
    pad = (tgt_in == 0)[:, None, :] if pad_axis == "key" else (tgt_in == 0)[:, :, None]
    return causal | pad if combine == "or" else causal & pad


def test_decoder_self_attention_mask_check(capsys):
    check_decoder_self_attention_mask(decoder_mask)
    assert "✓ decoder_self_attention_mask: all 5 cases agree" in capsys.readouterr().out
    t = lambda x: x.shape[1]  # noqa: E731
    ones = lambda x: torch.ones(t(x), t(x), dtype=torch.bool)  # noqa: E731
    for answer, message in [
        (lambda x: ~decoder_mask(x), "polarity is flipped"),
        (lambda x: ones(x).triu(1)[None].expand(len(x), -1, -1), "padding is ignored"),
        (lambda x: (x == 0)[:, None, :].expand(-1, t(x), -1), "without the causal part"),
        (lambda x: decoder_mask(x, pad_axis="query"), "query axis"),
        (lambda x: decoder_mask(x, combine="and"), "AND"),
        (lambda x: decoder_mask(x, diagonal=0), "diagonal is blocked too"),
        (lambda x: ones(x).triu(1), r"\(T, T\).*broadcasts"),
        (lambda x: x == 0, r"\(B, T\).*Broadcasting"),
        (lambda x: decoder_mask(x).long(), "boolean"),
        (lambda x: decoder_mask(x).tolist(), "should return a torch.Tensor"),
        (lambda x: decoder_mask(x)[:, :1], "returned shape"),
        (lambda x: decoder_mask(x) ^ (x == 0)[:, :, None], r"is (True|False), expected"),
    ]:
        with pytest.raises(CheckFailed, match=message):
            check_decoder_self_attention_mask(answer)


def cached_step(
    q,
    k,
    v,
    cache_k,
    cache_v,
    scale=True,
    prepend=False,
    include_new=True,
    axis=-1,
    keep_cache=False,
):
    new_k = torch.cat([k, cache_k] if prepend else [cache_k, k], 1)
    new_v = torch.cat([v, cache_v] if prepend else [cache_v, v], 1)
    keys, values = (new_k, new_v) if include_new else (cache_k, cache_v)
    if not include_new and cache_k.shape[1] == 0:
        raise ValueError("max(): Expected reduction dim 2 to have non-zero size")
    scores = q @ keys.transpose(-2, -1) / (q.shape[-1] ** 0.5 if scale else 1.0)
    context = scores.softmax(axis) @ values
    return (context, cache_k, cache_v) if keep_cache else (context, new_k, new_v)


def test_cached_attention_step_check(capsys):
    check_cached_attention_step(cached_step)
    assert "✓ cached_attention_step: all 5 cases agree" in capsys.readouterr().out
    for kwargs, message in [
        ({"prepend": True}, "START of the cache"),
        ({"scale": False}, "not scaled"),
        ({"include_new": False}, "left out"),
        ({"axis": -2}, "wrong axis"),
        ({"keep_cache": True}, "cache unchanged"),
    ]:
        with pytest.raises(CheckFailed, match=message):
            check_cached_attention_step(lambda *a, kw=kwargs: cached_step(*a, **kw))
    with pytest.raises(CheckFailed, match="triple"):
        check_cached_attention_step(lambda *a: cached_step(*a)[0])


def test_cached_attention_step_reports_a_failing_first_step():
    def only_with_a_cache(q, k, v, cache_k, cache_v):
        if cache_k.shape[1] == 0:
            raise RuntimeError("cannot attend to an empty cache")
        return cached_step(q, k, v, cache_k, cache_v)

    with pytest.raises(CheckFailed, match=r"raised RuntimeError.*cache is empty \(t=0\)"):
        check_cached_attention_step(only_with_a_cache)


def smoothed_loss(logits, target, eps, others=False, logs=True, reduce="mean", sign=1.0):
    v = logits.shape[-1]
    one_hot = torch.nn.functional.one_hot(target, v).to(logits.dtype)
    q = (1 - eps) * one_hot + (eps / (v - 1) * (1 - one_hot) if others else eps / v)
    p = logits.log_softmax(-1) if logs else logits.softmax(-1)
    per_row = -sign * (q * p).sum(-1)
    return per_row.mean() if reduce == "mean" else per_row.sum() if reduce == "sum" else per_row


def test_label_smoothed_loss_check(capsys):
    check_label_smoothed_loss(smoothed_loss)
    assert "✓ label_smoothed_loss: all 6 cases agree" in capsys.readouterr().out
    check_label_smoothed_loss(
        lambda x, y, e: torch.nn.functional.cross_entropy(
            x.log_softmax(-1).log_softmax(-1), y, label_smoothing=e
        )
    )  # log_softmax is idempotent
    check_label_smoothed_loss(lambda *a: smoothed_loss(*a).item())  # a float is fine
    for kwargs, message in [
        ({"others": True}, "V - 1 other classes"),
        ({"eps": 0.0}, "smoothing is ignored"),
        ({"logs": False}, "probabilities are used"),
        ({"reduce": "sum"}, "SUM over the N"),
        ({"sign": -1.0}, "sign is flipped"),
        ({"reduce": "none"}, "average over the N predictions"),
    ]:

        def answer(x, y, e, kw=kwargs):
            kw = dict(kw)
            return smoothed_loss(x, y, kw.pop("eps", e), **kw)

        with pytest.raises(CheckFailed, match=message):
            check_label_smoothed_loss(answer)
    with pytest.raises(CheckFailed, match="0-dim tensor"):
        check_label_smoothed_loss(lambda *a: [smoothed_loss(*a).item()])


@pytest.mark.parametrize(
    "check",
    [
        check_token_positions,
        check_chapter_vocabulary,
        check_attention_shapes,
        check_decoder_self_attention_mask,
        check_cached_attention_step,
        check_label_smoothed_loss,
    ],
)
def test_chapter5_unimplemented_answers_fail_with_a_message(check):
    with pytest.raises(CheckFailed, match="not implemented yet"):
        check(not_implemented)


def test_a_wrong_answer_without_a_known_mistake_is_explained():
    def odd_step(*args):
        out, hidden, weights = attention_step(*args)
        return out + 0.01, hidden, weights

    with pytest.raises(CheckFailed, match="largest difference"):
        check_attention_step(odd_step)


def test_kernel_weights_check(capsys):
    from course_lib.checks import check_kernel_weights

    def laplace(d):
        return torch.softmax(-d.abs(), dim=-1)

    def boxcar(d, h=0.5, strict=True, normalise=True):
        inside = ((d.abs() < h) if strict else (d.abs() <= h)).float()
        return inside / inside.sum(-1, keepdim=True).clamp(min=1) if normalise else inside

    check_kernel_weights(laplace, boxcar)
    assert "✓ laplace_weights and boxcar_weights" in capsys.readouterr().out
    with pytest.raises(CheckFailed, match="Gaussian"):
        check_kernel_weights(lambda d: torch.softmax(-(d**2) / 2, -1), boxcar)
    with pytest.raises(CheckFailed, match="NaN"):
        check_kernel_weights(laplace, lambda d, h: (d.abs() < h) / (d.abs() < h).sum(-1, True))
    with pytest.raises(CheckFailed, match="indicators"):
        check_kernel_weights(laplace, lambda d, h: boxcar(d, h, normalise=False))
    with pytest.raises(CheckFailed, match="strictly"):
        check_kernel_weights(laplace, lambda d, h: boxcar(d, h, strict=False))
    with pytest.raises(CheckFailed, match="not implemented yet"):
        check_kernel_weights(not_implemented, boxcar)


# --- Chapter 2c: the context-only decoder; Chapter 4: learned positions, shift matrix ------

from course_lib.checks import (  # noqa: E402
    check_context_only_decoder,
    check_learned_positions,
    check_shift_matrix,
)
from course_lib.seq2seq_attention import AttentionDecoder  # noqa: E402


def context_only(from_query=False, width=1):
    class Decoder(AttentionDecoder):
        def __init__(self, n_features, hidden_dim):
            super().__init__(n_features, hidden_dim)
            self.output = nn.Linear(width * hidden_dim, n_features)

        def forward(self, x, hidden, memory=None, *, memory_key_padding_mask=None):
            queries, hidden = self.gru(x, hidden)  # (B, T, H), (1, B, H)
            context, weights = self.attention(
                queries, memory, key_padding_mask=memory_key_padding_mask
            )
            return self.output(queries if from_query else context), hidden, weights

    return Decoder


def test_context_only_decoder_check(capsys):
    check_context_only_decoder(context_only())
    assert "✓ ContextOnlyDecoder" in capsys.readouterr().out
    with pytest.raises(CheckFailed, match="from the query"):
        check_context_only_decoder(context_only(from_query=True))
    with pytest.raises(CheckFailed, match=r"Linear\(hidden_dim, n_features\)"):
        check_context_only_decoder(AttentionDecoder)  # still reads [context, query]
    with pytest.raises(CheckFailed, match="not implemented yet"):
        check_context_only_decoder(not_implemented)


def learned_positions(scale=True, reverse=False, shape=None):
    class Positions(nn.Module):
        def __init__(self, max_len, d_model):
            super().__init__()
            self.d_model = d_model
            self.embedding = nn.Embedding(*(shape or (max_len, d_model)))

        def forward(self, x):
            table = self.embedding.weight[: x.shape[1]]  # (T, D)
            table = table.flip(0) if reverse else table
            return (x * math.sqrt(self.d_model) if scale else x) + table

    return Positions


def test_learned_positions_check(capsys):
    check_learned_positions(learned_positions())
    assert "✓ LearnedPositions" in capsys.readouterr().out
    with pytest.raises(CheckFailed, match="not scaled"):
        check_learned_positions(learned_positions(scale=False))
    with pytest.raises(CheckFailed, match="reversed"):
        check_learned_positions(learned_positions(reverse=True))
    with pytest.raises(CheckFailed, match="one row of"):
        check_learned_positions(learned_positions(shape=(16, 4)))
    with pytest.raises(CheckFailed, match="not implemented yet"):
        check_learned_positions(not_implemented)


def shift_matrix(k, d_model, transpose=False, exponent=2, concatenated=False):
    m = torch.zeros(d_model, d_model)
    for i in range(d_model // 2):
        angle = k / 10000 ** (exponent * i / d_model)
        c, s = math.cos(angle), math.sin(angle)
        a, b = (i, i + d_model // 2) if concatenated else (2 * i, 2 * i + 1)
        m[a, a], m[a, b], m[b, a], m[b, b] = c, s, -s, c
    return m.T if transpose else m


def test_shift_matrix_check_agrees_with_the_library_table(capsys):
    from course_lib.positional import sinusoidal_encoding

    table = sinusoidal_encoding(40, 8)  # (L, D): one position per row
    assert torch.allclose(table[:-3] @ shift_matrix(3, 8).T, table[3:], atol=1e-5)
    check_shift_matrix(shift_matrix)
    assert "✓ shift_matrix: all 4 cases" in capsys.readouterr().out
    with pytest.raises(CheckFailed, match="transpose"):
        check_shift_matrix(lambda k, d: shift_matrix(k, d, transpose=True))
    with pytest.raises(CheckFailed, match="2i / d_model"):
        check_shift_matrix(lambda k, d: shift_matrix(k, d, exponent=1))
    with pytest.raises(CheckFailed, match="interleaves"):
        check_shift_matrix(lambda k, d: shift_matrix(k, d, concatenated=True))
    with pytest.raises(CheckFailed, match="not implemented yet"):
        check_shift_matrix(not_implemented)


# --- every check ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "check, answer",
    [
        (check_gru_cell, gru_cell),
        (check_scheduled_decode, scheduled),
        (check_general_scores, general),
        (check_attention_step, attention_step),
        (check_context_only_decoder, context_only()),
        (check_multi_head_attention, mha_forward),
        (check_encoder_layer, encoder_layer),
        (check_learned_positions, learned_positions()),
        (check_shift_matrix, shift_matrix),
        (check_decoder_self_attention_mask, decoder_mask),
        (check_cached_attention_step, cached_step),
        (check_label_smoothed_loss, smoothed_loss),
        (check_token_positions, token_positions),
        (check_chapter_vocabulary, lambda: StubVocab({})),
        (check_attention_shapes, attention_shapes),
    ],
)
def test_checks_leave_the_students_random_numbers_alone(check, answer):
    torch.manual_seed(1234)
    expected = torch.rand(3)
    torch.manual_seed(1234)
    check(answer)
    assert torch.equal(torch.rand(3), expected), "the check drew from the global generator"


def test_a_broken_reference_is_not_reported_as_the_students_mistake():
    from course_lib.checks._core import CheckFailed, reference_holds

    reference_holds(True, "fine")
    with pytest.raises(RuntimeError, match="not in your code") as err:
        reference_holds(False, "shapes")
    assert not isinstance(err.value, (AssertionError, CheckFailed))


# -- Chapter 7 ----------------------------------------------------------------------------


def _rotate_pairs(x, start, direction=1):
    L, dh = x.shape
    speed = 10000.0 ** (-torch.arange(0, dh, 2, dtype=x.dtype) / dh)  # (Dh / 2,)
    angle = direction * torch.arange(start, start + L, dtype=x.dtype)[:, None] * speed
    a, b = x[:, 0::2], x[:, 1::2]
    out = torch.empty_like(x)
    out[:, 0::2] = a * angle.cos() - b * angle.sin()
    out[:, 1::2] = a * angle.sin() + b * angle.cos()
    return out


def test_chapter_7_checks_pass_right_answers_and_name_the_mistakes(capsys):
    from course_lib.checks import (
        check_cache_bytes,
        check_prefix_mask,
        check_repeat_kv,
        check_rotate_pairs,
    )

    check_rotate_pairs(_rotate_pairs)
    check_repeat_kv(lambda kv, nh: kv.repeat_interleave(nh // kv.shape[1], dim=1))
    check_cache_bytes(lambda layers, nkv, dh, size, tokens: layers * 2 * nkv * dh * size * tokens)

    def prefix(s, t):
        mask = torch.ones(s + t, s + t, dtype=torch.bool).triu(1)
        mask[:s, :s] = False
        return mask

    check_prefix_mask(prefix)
    assert capsys.readouterr().out.count("✓") == 4
    with pytest.raises(CheckFailed, match="wrong way"):
        check_rotate_pairs(lambda x, start: _rotate_pairs(x, start, direction=-1))
    with pytest.raises(CheckFailed, match="starts at position 0"):
        check_rotate_pairs(lambda x, start: _rotate_pairs(x, 0))
    with pytest.raises(CheckFailed, match="repeat_interleave, not repeat"):
        check_repeat_kv(lambda kv, nh: kv.repeat(1, nh // kv.shape[1], 1, 1))
    with pytest.raises(CheckFailed, match="a key AND a value"):
        check_cache_bytes(lambda layers, nkv, dh, size, tokens: layers * nkv * dh * size * tokens)
    with pytest.raises(CheckFailed, match="True means BLOCKED"):
        check_prefix_mask(lambda s, t: ~prefix(s, t))
    with pytest.raises(CheckFailed, match="plain causal mask"):
        check_prefix_mask(lambda s, t: torch.ones(s + t, s + t, dtype=torch.bool).triu(1))
    with pytest.raises(CheckFailed, match="not implemented yet"):
        check_repeat_kv(lambda kv, nh: (_ for _ in ()).throw(NotImplementedError))


def test_chapter_7_checks_hold_the_student_to_what_the_library_accepts():
    from course_lib.checks import check_prefix_mask, check_rotate_pairs

    def prefix(s, t):
        mask = torch.ones(s + t, s + t, dtype=torch.bool).triu(1)
        mask[:s, :s] = False
        return mask

    def in_place(x, start):
        x.copy_(_rotate_pairs(x, start))  # right values, but the caller's x is lost
        return x

    def slow_speeds(x, start):
        L, dh = x.shape
        speed = 10000.0 ** (-torch.arange(dh // 2, dtype=x.dtype) / dh)  # i, not 2i
        angle = torch.arange(start, start + L, dtype=x.dtype)[:, None] * speed
        out = torch.empty_like(x)
        out[:, 0::2] = x[:, 0::2] * angle.cos() - x[:, 1::2] * angle.sin()
        out[:, 1::2] = x[:, 0::2] * angle.sin() + x[:, 1::2] * angle.cos()
        return out

    def source_sees_target(s, t):
        mask = prefix(s, t)
        mask[:s, :] = False
        return mask

    with pytest.raises(CheckFailed, match="changed its input x in place"):
        check_rotate_pairs(in_place)
    with pytest.raises(CheckFailed, match=r"10000\^\(-2i / Dh\)"):
        check_rotate_pairs(slow_speeds)
    with pytest.raises(CheckFailed, match="torch.int64 mask.*refuses"):
        check_prefix_mask(lambda s, t: prefix(s, t).long())
    with pytest.raises(CheckFailed, match="torch.float32 mask"):
        check_prefix_mask(lambda s, t: torch.zeros(s + t, s + t).masked_fill(prefix(s, t), -1e9))
    with pytest.raises(CheckFailed, match="source rows also see the target"):
        check_prefix_mask(source_sees_target)
