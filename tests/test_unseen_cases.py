"""Inside ``unseen_cases()`` the self-checks of Chapters 1-4 and 7 draw cases the student
never saw: right answers still pass, answers that replay the outputs of the student's cases
fail, and outside the block every check runs exactly the cases it always ran."""

import itertools
import math

import pytest
import torch
from torch import nn

from course_lib.attention import scaled_dot_product_attention
from course_lib.checks import CheckFailed, unseen_cases
from course_lib.checks import attention as attention_checks
from course_lib.checks import attention_decoder as attention_decoder_checks
from course_lib.checks import modern as modern_checks
from course_lib.checks import seq2seq as seq2seq_checks
from course_lib.checks import transformer as transformer_checks
from course_lib.masking import causal_mask, masked_softmax
from course_lib.rotary import apply_rotary
from course_lib.seq2seq_attention import AttentionDecoder

MODULES = [
    attention_checks,
    attention_decoder_checks,
    seq2seq_checks,
    transformer_checks,
    modern_checks,
]
CHECKS = {name: getattr(m, name) for m in MODULES for name in m.__all__}

# --- right answers --------------------------------------------------------------------------


def attention_step(decoder, x, hidden, memory, mask):
    query, hidden = decoder.gru(x, hidden)  # (B, 1, H), (1, B, H)
    q, k = decoder.attention.q_proj(query), decoder.attention.k_proj(memory)
    scores = q @ k.transpose(1, 2) / math.sqrt(q.shape[-1])  # (B, 1, S)
    weights = scores.masked_fill(mask[:, None, :], float("-inf")).softmax(-1)
    context = weights @ memory  # (B, 1, H)
    return decoder.output(torch.cat([context, query], -1)), hidden, weights


class ContextOnlyDecoder(AttentionDecoder):
    def __init__(self, n_features, hidden_dim):
        super().__init__(n_features, hidden_dim)
        self.output = nn.Linear(hidden_dim, n_features)

    def forward(self, x, hidden, memory=None, *, memory_key_padding_mask=None):
        queries, hidden = self.gru(x, hidden)
        mask = memory_key_padding_mask
        context, weights = self.attention(queries, memory, key_padding_mask=mask)
        return self.output(context), hidden, weights


class LearnedPositions(nn.Module):
    def __init__(self, max_len, d_model):
        super().__init__()
        self.d_model = d_model
        self.embedding = nn.Embedding(max_len, d_model)

    def forward(self, x):
        return x * math.sqrt(self.d_model) + self.embedding.weight[: x.shape[1]]


def scheduled(encoder, decoder, source, target, p, generator):
    b, t_len, _ = target.shape
    _, hidden = encoder(source)
    x, outs = source[:, -1:], []
    for t in range(t_len):
        if t > 0:
            coins = torch.rand(b, generator=generator) < p  # (B,)
            x = torch.where(coins[:, None, None], target[:, t - 1 : t], outs[-1])
        out, hidden, _ = decoder(x, hidden)
        outs.append(out)
    return torch.cat(outs, 1)


def boxcar(diffs, half):
    inside = (diffs.abs() < half).float()
    return inside / inside.sum(-1, keepdim=True).clamp(min=1)


def shift_matrix(k, d):
    m = torch.zeros(d, d, dtype=torch.float64)
    for i in range(d // 2):
        angle = k / 10000 ** (2 * i / d)
        c, s = math.cos(angle), math.sin(angle)
        rotation = torch.tensor([[c, s], [-s, c]], dtype=torch.float64)
        m[2 * i : 2 * i + 2, 2 * i : 2 * i + 2] = rotation
    return m


def cache_bytes(layers, nkv, dh, size, tokens):
    return layers * 2 * nkv * dh * size * tokens


def prefix_mask(s, t):
    mask = causal_mask(s + t)
    mask[:s, :s] = False
    return mask


# the answers each check takes, in order
RIGHT = {
    "check_masked_softmax": (masked_softmax,),
    "check_scaled_dot_product_attention": (
        lambda q, k, v, m: scaled_dot_product_attention(q, k, v, attn_mask=m),
    ),
    "check_general_scores": (lambda q, k, w: q @ w @ k.transpose(-2, -1),),
    "check_kernel_weights": (lambda d: torch.softmax(-d.abs(), -1), boxcar),
    "check_attention_step": (attention_step,),
    "check_context_only_decoder": (ContextOnlyDecoder,),
    "check_gru_cell": (torch.gru_cell,),
    "check_decoder_inputs": (lambda s, t: torch.cat([s[:, -1:], t[:, :-1]], 1),),
    "check_scheduled_decode": (scheduled,),
    "check_multi_head_attention": (lambda q, k, v, mha, m: mha(q, k, v, key_padding_mask=m),),
    "check_encoder_layer": (lambda x, layer, m: layer(x, src_key_padding_mask=m),),
    "check_learned_positions": (LearnedPositions,),
    "check_shift_matrix": (shift_matrix,),
    "check_rotate_pairs": (lambda x, start: apply_rotary(x, start=start),),
    "check_repeat_kv": (lambda kv, nh: kv.repeat_interleave(nh // kv.shape[1], dim=1),),
    "check_cache_bytes": (cache_bytes,),
    "check_prefix_mask": (prefix_mask,),
}

# the line a student sees (the committed notebooks' outputs hold it), and the number of
# cases inside unseen_cases() where the check adds cases of its own
LINES = {
    "check_masked_softmax": ("masked_softmax", 4, 4),
    "check_scaled_dot_product_attention": ("scaled_dot_product_attention", 6, 6),
    "check_general_scores": ("general_scores", 5, 5),
    "check_kernel_weights": ("laplace_weights and boxcar_weights", 5, 6),
    "check_attention_step": ("attention_step", 3, 3),
    "check_context_only_decoder": ("ContextOnlyDecoder", 3, 3),
    "check_gru_cell": ("gru_cell", 4, 4),
    "check_decoder_inputs": ("decoder_inputs", 4, 4),
    "check_scheduled_decode": ("decode_scheduled", 7, 7),
    "check_multi_head_attention": ("multi_head_attention", 4, 4),
    "check_encoder_layer": ("encoder_layer", 4, 4),
    "check_learned_positions": ("LearnedPositions", 3, 3),
    "check_shift_matrix": ("shift_matrix", 4, 7),
    "check_rotate_pairs": ("rotate_pairs", 4, 4),
    "check_repeat_kv": ("repeat_kv", 4, 4),
    "check_cache_bytes": ("cache_bytes", 4, 7),
    "check_prefix_mask": ("prefix_mask", 4, 7),
}


def test_every_check_of_the_five_modules_is_covered():
    assert set(RIGHT) == set(CHECKS) == set(LINES)


@pytest.mark.parametrize("name", sorted(CHECKS))
def test_right_answers_pass_the_students_cases_and_the_unseen_ones(name, capsys):
    label, n_cases, n_unseen = LINES[name]
    CHECKS[name](*RIGHT[name])
    assert f"✓ {label}: all {n_cases} cases agree" in capsys.readouterr().out
    for v in (1, 2):
        with unseen_cases(v):
            CHECKS[name](*RIGHT[name])
        assert f"✓ {label}: all {n_unseen} cases agree" in capsys.readouterr().out
    CHECKS[name](*RIGHT[name])  # and the block leaves the students' cases as they were
    assert f"✓ {label}: all {n_cases} cases agree" in capsys.readouterr().out


# --- the cheat: replay the outputs of the students' cases -----------------------------------


def snapshot(value):
    """A detached copy of what an answer returned: a tensor, a tuple of them, a number."""
    if isinstance(value, torch.Tensor):
        return value.detach().clone()
    if isinstance(value, tuple):
        return tuple(snapshot(v) for v in value)
    return value


def recorder(answer, outputs):
    """``answer``, storing each value it returns in order."""

    def record(*args):
        value = answer(*args)
        outputs.append(snapshot(value))
        return value

    return record


def replayer(outputs):
    """The memorizing answer: ignores its arguments and returns the stored values in order
    (starting over when they run out, so that it never crashes, it is only wrong)."""
    calls = itertools.count()

    def replay(*args):
        return snapshot(outputs[next(calls) % len(outputs)])

    return replay


# the checks that take plain functions; the other three take classes or need gradients
FUNCTION_CHECKS = sorted(
    set(CHECKS)
    - {"check_context_only_decoder", "check_learned_positions", "check_scheduled_decode"}
)


def record_and_replay(name):
    """Run check ``name`` on the right answers, recording; return the replaying answers."""
    stores = [[] for _ in RIGHT[name]]
    CHECKS[name](*[recorder(a, s) for a, s in zip(RIGHT[name], stores, strict=True)])
    return [replayer(s) for s in stores]


def fails_on_the_values(check, *answers):
    """``check(*answers)`` raises CheckFailed inside unseen_cases(), not because the answer
    crashed."""
    with unseen_cases(), pytest.raises(CheckFailed) as err:
        check(*answers)
    assert "raised " not in str(err.value), err.value
    return str(err.value)


@pytest.mark.parametrize("name", FUNCTION_CHECKS)
def test_replayed_outputs_pass_the_students_cases_and_fail_the_unseen_ones(name):
    CHECKS[name](*record_and_replay(name))  # it really is the cheat
    fails_on_the_values(CHECKS[name], *record_and_replay(name))


def replaying_class(right_cls, outputs, record):
    """``right_cls`` (built, so with its parameters, exactly as the check builds it) whose
    forward pass either records its outputs or replays them, ignoring its inputs."""
    calls = itertools.count()

    class Answer(right_cls):
        def forward(self, *args, **kwargs):
            if record:
                outputs.append(snapshot(super().forward(*args, **kwargs)))
            return snapshot(outputs[next(calls) % len(outputs)])

    return Answer


@pytest.mark.parametrize("name", ["check_context_only_decoder", "check_learned_positions"])
def test_replayed_modules_pass_the_students_cases_and_fail_the_unseen_ones(name):
    # The check builds the answer's module under a seed and compares with that module's own
    # layers, so the module must be right; its forward pass can still be memorized.
    outputs = []
    CHECKS[name](replaying_class(RIGHT[name][0], outputs, record=True))
    CHECKS[name](replaying_class(RIGHT[name][0], outputs, record=False))
    fails_on_the_values(CHECKS[name], replaying_class(RIGHT[name][0], outputs, record=False))


def _recording_scheduled(outputs, states):
    """The right answer, storing its predictions and the generator's state afterwards."""

    def record(encoder, decoder, source, target, p, generator):
        got = scheduled(encoder, decoder, source, target, p, generator)
        outputs.append(got.detach().clone())
        states.append(generator.get_state())
        return got

    return record


def _replaying_scheduled(outputs, states):
    """The memorizing answer: the stored predictions and generator states, in order. The
    check wants gradients that reach the encoder and a generator advanced by T - 1 draws, so
    it also sets the generator's state and adds a zero that carries the encoder's gradient."""
    calls = itertools.count()

    def replay(encoder, decoder, source, target, p, generator):
        i = next(calls) % len(outputs)
        generator.set_state(states[i])
        final = encoder(source)[1]  # (1, B, H)
        return outputs[i] + (final - final.detach()).sum()  # the value is outputs[i]

    return replay


def test_replayed_scheduled_decoding_passes_the_students_cases_and_fails_the_unseen_ones():
    check = CHECKS["check_scheduled_decode"]
    outputs, states = [], []
    check(_recording_scheduled(outputs, states))
    check(_replaying_scheduled(outputs, states))
    fails_on_the_values(check, _replaying_scheduled(outputs, states))


# --- the checks with written-out cases: answers hard-coded for those cases ------------------


def key(args):
    """The arguments of a call, as a dictionary key."""
    return tuple(
        (tuple(a.shape), str(a.dtype), a.numpy().tobytes()) if isinstance(a, torch.Tensor) else a
        for a in args
    )


def memorized(name, position, wrong):
    """Answer number ``position`` of check ``name``, hard-coded: the right outputs for the
    arguments of the students' cases, looked up, and ``wrong`` for any other arguments."""
    table = {}

    def record(*args):
        value = RIGHT[name][position](*args)
        table[key(args)] = snapshot(value)
        return value

    answers = list(RIGHT[name])
    CHECKS[name](*answers[:position], record, *answers[position + 1 :])

    def lookup(*args):
        return snapshot(table[key(args)]) if key(args) in table else wrong(*args)

    answers[position] = lookup
    return answers


@pytest.mark.parametrize(
    "name, position, wrong, message",
    [
        (
            "check_kernel_weights",
            1,  # NaN for a query with no point in its window
            lambda d, h: (d.abs() < h).float() / (d.abs() < h).float().sum(-1, keepdim=True),
            "returned NaN",
        ),
        (
            "check_kernel_weights",
            1,  # a point exactly half_width away counts
            lambda d, h: boxcar(d.abs() - (d.abs() == h).float() * 1e-3, h),
            "strictly",
        ),
        ("check_shift_matrix", 0, lambda k, d: shift_matrix(k, d).T, "transpose of M_k"),
        ("check_cache_bytes", 0, lambda *a: cache_bytes(*a) // 2, "a key AND a value"),
        ("check_prefix_mask", 0, lambda s, t: causal_mask(s + t), "plain causal mask"),
    ],
)
@pytest.mark.parametrize("v", [1, 2, 3])
def test_answers_hard_coded_for_the_written_cases_fail_the_drawn_ones(
    name, position, wrong, message, v
):
    answers = memorized(name, position, wrong)
    CHECKS[name](*answers)  # right on every case a student sees
    with unseen_cases(v), pytest.raises(CheckFailed, match=message):
        CHECKS[name](*answers)


# --- the block itself -----------------------------------------------------------------------


@pytest.mark.parametrize("bad", [0, -1, True, False, 1.0, "1"])
def test_unseen_cases_wants_a_positive_integer(bad):
    with pytest.raises(ValueError, match="positive integer"), unseen_cases(bad):
        pass


def fingerprint(value):
    """Everything a case is made of, flattened to comparable tensors and numbers."""
    if isinstance(value, torch.Tensor):
        return [value.detach().clone()]
    if isinstance(value, torch.Generator):
        return [value.get_state()]
    if isinstance(value, nn.Module):
        return [p.detach().clone() for p in value.state_dict().values()]
    if isinstance(value, (tuple, list)):
        return [x for v in value for x in fingerprint(v)]
    return [value]


def cases_of(name):
    """What check ``name`` hands the right answers: arguments, modules, parameters."""
    seen = []
    answers = []
    for answer in RIGHT[name]:
        if isinstance(answer, type):

            class Seen(answer):
                def __init__(self, *args):
                    super().__init__(*args)
                    seen.append(fingerprint(args) + fingerprint(self))

                def forward(self, *args, **kwargs):
                    seen.append(fingerprint(args))
                    return super().forward(*args, **kwargs)

            answers.append(Seen)
        else:
            answers.append(
                lambda *args, answer=answer: seen.append(fingerprint(args)) or answer(*args)
            )
    CHECKS[name](*answers)
    return [x for case in seen for x in case]


def same(a, b):
    """Two fingerprints agree, entry by entry."""

    def equal(x, y):
        if isinstance(x, torch.Tensor) and isinstance(y, torch.Tensor):
            return x.dtype == y.dtype and torch.equal(x, y)
        return type(x) is type(y) and x == y

    return len(a) == len(b) and all(equal(x, y) for x, y in zip(a, b, strict=True))


@pytest.mark.parametrize("name", sorted(CHECKS))
def test_each_variant_has_cases_of_its_own_and_keeps_them(name):
    students = cases_of(name)
    with unseen_cases(1):
        first = cases_of(name)
    with unseen_cases(1):
        again = cases_of(name)
    with unseen_cases(2):
        second = cases_of(name)
    assert same(first, again), "the unseen cases are not reproducible"
    assert not same(students, first) and not same(first, second)
    assert same(students, cases_of(name))


@pytest.mark.parametrize("name", sorted(CHECKS))
def test_unseen_cases_leave_the_students_random_numbers_alone(name):
    torch.manual_seed(1234)
    expected = torch.rand(3)
    torch.manual_seed(1234)
    with unseen_cases():
        CHECKS[name](*RIGHT[name])
    assert torch.equal(torch.rand(3), expected), "the check drew from the global generator"
