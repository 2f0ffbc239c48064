"""Advice that is right (issue 47): a hint names a cause only when the evidence decides it;
otherwise the message states the difference plainly -- what was expected, what came, where.

Each heuristic gets a pair: the case it is meant for (the hint is given) and a near miss
that produces similar evidence for another reason (the hint must be absent, and the message
still says plainly what differs). The last tests keep messages short: a few lines, tensors
shown by their shape and first values."""

from __future__ import annotations

import math
import re

import pytest
import torch

from course_lib.checks import CheckFailed
from course_lib.checks._core import call_student, compare
from course_lib.checks._describe import nan_problem, preview, shape_hint
from course_lib.checks._diagnose import mask_hint, unused_hint, value_hint
from course_lib.checks._masks import dtype_problem, polarity_problem

# --- the messages of compare and call_student ---------------------------------------------


def failure(got, expected) -> str:
    """The message ``compare`` raises for ``got`` (it must raise)."""
    with pytest.raises(CheckFailed) as info:
        compare(got, expected, "f", "a case")
    return str(info.value)


def raised(fn, *args) -> str:
    """The message ``call_student`` raises for ``fn(*args)``, which must raise."""
    with pytest.raises(CheckFailed) as info:
        call_student(fn, "f", *args)
    return str(info.value)


def states_plainly(message: str) -> None:
    """The message says where the values differ and what was expected and came there."""
    assert re.search(r"at \[[\d, ]*\]", message), message
    assert "\nExpected (" in message and "\ngot      (" in message, message


def grid(*shape: int) -> torch.Tensor:
    """Distinct values, none a shift or reversal of the others: a tensor with no symmetry."""
    n = math.prod(shape)
    return (torch.arange(n, dtype=torch.float64) ** 1.5 / n - 0.3).reshape(shape)


# --- value_hint: a sign flipped ------------------------------------------------------------


def test_opposite_sign_is_named():
    e = grid(2, 3)
    assert "opposite sign" in value_hint(-e, e)


def test_opposite_sign_of_an_antisymmetric_reference_names_both_relations():
    """Near miss: pairwise differences x_i - x_j computed as x_j - x_i are minus the
    reference AND its transpose; the values cannot tell a sign from a transpose."""
    x = torch.tensor([0.0, 1.0, 3.0, 7.0])
    e = x[:, None] - x[None, :]
    hint = value_hint(-e, e)
    assert "a minus sign too many" not in hint and "a transpose (transpose(-2, -1)) too" not in hint
    assert "opposite sign" in hint and "last two axes swapped" in hint
    assert "cannot tell which" in hint


def test_a_constant_reference_gets_no_sign_factor_or_offset_guess():
    """Near miss: a constant reference (uniform weights 0.25) and a constant answer fit a
    sign flip, a factor and an offset alike: only what came is said."""
    e = torch.full((2, 4), 0.25)
    for got in (-e, 2 * e, e + 0.5):
        hint = value_hint(got, e)
        assert hint.startswith("Every value is ") and "where every value of the reference" in hint
        assert not re.search(r"minus sign|times the reference|a constant added", hint)
    states_plainly(failure(2 * e, e))


# --- value_hint: a transpose ---------------------------------------------------------------


def test_swapped_axes_are_named():
    e = grid(2, 3, 3)
    assert "last two axes swapped" in value_hint(e.transpose(-2, -1), e)


def test_a_two_valued_reference_gets_no_transpose_guess():
    """Near miss: a 0/1 pattern (a float causal mask) answered with its transpose -- with
    two values any wrong answer is some reordering of them."""
    e = torch.triu(torch.ones(4, 4), diagonal=1)
    message = failure(e.T.contiguous(), e)
    assert "axes swapped" not in message and "transpose" not in message
    states_plainly(message)


# --- value_hint: an order reversed ---------------------------------------------------------


def test_reversed_order_is_named():
    e = grid(2, 5)
    assert "reverse order along axis 1" in value_hint(e.flip(1), e)


def test_weights_of_one_hot_rows_get_no_reversal_guess():
    """Near miss (the first wrong hint of issue 47): (1, 2) attention weights [1, 0] where
    [0, 1] is expected are a reversal of the axis only because two values fit anything."""
    e = torch.tensor([[[1.0, 0.0]]])
    message = failure(e.flip(-1), e)
    assert "reverse order" not in message
    states_plainly(message)


def test_a_shift_that_is_also_a_reversal_is_not_called_a_reversal():
    """Near miss: [0, 1, 2, 1] shifted by one position is [1, 2, 1, 0], its reversal too:
    an off-by-one is as likely, and the values cannot tell."""
    e = torch.tensor([[0.0, 1.0, 2.0, 1.0]])
    got = e.roll(-1, dims=1)
    assert torch.equal(got, e.flip(1))
    message = failure(got, e)
    assert "reverse order" not in message
    states_plainly(message)


def test_a_palindromic_reference_gets_no_reversal_hint():
    e = torch.tensor([[0.1, 0.7, 2.0, 0.7, 0.1], [0.3, 0.2, 0.9, 0.2, 0.3]])
    assert "reverse" not in value_hint(e + 1.5 * (torch.arange(5) == 2), e)


# --- value_hint: softmax weights of scaled scores ------------------------------------------


def test_softmax_of_scaled_scores_is_named():
    scores = grid(2, 3, 4) * 3
    e = scores.softmax(-1)
    assert "scores are scaled wrong" in value_hint((scores * 1.5).softmax(-1), e)


def test_two_weights_in_one_row_get_no_temperature_guess():
    """Near miss: any two distributions over two keys are softmaxes of scores some factor
    apart -- [0.7, 0.3] for [0.6, 0.4] says nothing about a temperature."""
    e = torch.tensor([[0.6, 0.4]])
    message = failure(torch.tensor([[0.7, 0.3]]), e)
    assert "softmax" not in message and "scaled wrong" not in message
    states_plainly(message)


def test_nearly_uniform_weights_get_no_temperature_guess():
    """Near miss: weights within a hair of uniform (some other quantity that happens to sum
    to one per row) fit any factor on the log scale's tolerance."""
    e = torch.tensor([[0.2502, 0.2499, 0.2500, 0.2499], [0.2498, 0.2501, 0.2500, 0.2501]])
    got = torch.tensor([[0.2510, 0.2495, 0.2500, 0.2495], [0.2490, 0.2505, 0.2500, 0.2505]])
    assert "softmax" not in value_hint(got.double(), e.double())


# --- value_hint: a factor, an offset ------------------------------------------------------


def test_a_factor_and_an_offset_are_named():
    e = grid(3, 4)
    assert "times the reference's" in value_hint(2 * e, e)
    assert "plus 1" in value_hint(e + 1, e)


def test_one_nonzero_reference_value_gets_no_factor_guess():
    """Near miss: a reference with one nonzero value: any other value there is "a factor
    times it"; that one entry differs is all the values say."""
    e = torch.tensor([0.0, 0.0, 3.0, 0.0])
    message = failure(torch.tensor([0.0, 0.0, 5.0, 0.0]), e)
    assert "times the reference" not in message
    assert "3 of its 4 values agree" in message
    states_plainly(message)


# --- value_hint: each feature scaled and shifted -------------------------------------------


def test_features_scaled_and_shifted_are_named():
    e = grid(8, 3)
    got = e * torch.tensor([2.0, 0.5, 3.0]) + torch.tensor([1.0, -1.0, 0.25])
    assert "scaled and shifted" in value_hint(got, e)


def test_zeros_get_no_scaled_and_shifted_guess():
    """Near miss: an answer of zeros (nothing filled in) is "0 times the reference plus 0"
    -- not standardised with another mean and std."""
    e = grid(8, 3)
    message = failure(torch.zeros(8, 3, dtype=torch.float64), e)
    assert "scaled and shifted" not in message and "standardised" not in message
    assert "Every value it returned is 0" in message
    states_plainly(message)


def test_a_constant_feature_gets_no_scaled_and_shifted_guess():
    """Near miss: one feature left constant (a column never computed)."""
    e = grid(8, 2)
    got = torch.stack([e[:, 0] * 2 + 1, torch.full((8,), 0.5, dtype=torch.float64)], dim=1)
    assert "scaled and shifted" not in failure(got, e)


def test_two_valued_features_get_no_scaled_and_shifted_guess():
    """Near miss: a feature of two values (a flag) answered with another flag -- a line fits
    any two points, so "the same values scaled and shifted" is no evidence."""
    e = torch.tensor([[0.0, 1.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [0.0, 0.0]])
    got = torch.tensor([[5.0, 2.0], [7.0, 3.0], [5.0, 2.0], [7.0, 2.0], [5.0, 3.0]])
    message = failure(got, e)
    assert "scaled and shifted" not in message
    states_plainly(message)


# --- mask_hint and the polarity of a boolean mask ------------------------------------------


def test_a_mask_that_only_blocks_too_much_is_named():
    e = torch.triu(torch.ones(4, 4, dtype=torch.bool), diagonal=1)
    assert "blocks 4 entries the reference leaves open" in mask_hint(e | torch.eye(4).bool(), e)


def test_a_mask_wrong_both_ways_gets_no_one_way_hint():
    e = torch.triu(torch.ones(4, 4, dtype=torch.bool), diagonal=1)
    got = e.clone()
    got[0, 1], got[1, 0] = False, True
    assert mask_hint(got, e) == ""
    message = failure(got, e)
    assert "2 entries differ" in message and "expected True, got False" in message


def test_an_inverted_mask_is_named():
    e = torch.triu(torch.ones(4, 4, dtype=torch.bool), diagonal=1)
    assert "return ~mask" in polarity_problem(~e, e)


def test_a_transposed_causal_mask_is_not_called_inverted():
    """Near miss: a causal mask transposed (each query sees the future) disagrees with the
    reference on most entries, yet ~mask would not fix it: it is a transpose."""
    e = torch.triu(torch.ones(4, 4, dtype=torch.bool), diagonal=1)
    problem = polarity_problem(e.T.contiguous(), e)
    assert "polarity" not in problem and "~mask" not in problem
    assert "last two axes swapped" in problem


def test_a_mask_that_blocks_nothing_is_not_called_inverted():
    """Near miss: an all-False mask (never built) where the reference blocks most keys
    disagrees on most entries whatever its polarity."""
    e = torch.tensor([[True, True, True, False]])
    assert polarity_problem(torch.zeros(1, 4, dtype=torch.bool), e) is None
    message = failure(torch.zeros(1, 4, dtype=torch.bool), e)
    assert "polarity" not in message and "3 entries differ" in message


def test_a_zero_one_mask_of_the_allowed_keys_is_named_inverted():
    e = torch.triu(torch.ones(4, 4, dtype=torch.bool), diagonal=1)
    assert "MAY be attended" in dtype_problem((~e).float(), e)


def test_a_zero_one_mask_of_zeros_is_not_called_inverted():
    """Near miss: a float mask of zeros where the reference blocks most entries."""
    e = torch.tensor([[True, True, True, False]])
    problem = dtype_problem(torch.zeros(1, 4), e)
    assert "MAY be attended" not in problem and "mask == 0" not in problem


def test_an_additive_mask_is_told_mask_below_zero():
    e = torch.triu(torch.ones(4, 4, dtype=torch.bool), diagonal=1)
    additive = torch.zeros(4, 4).masked_fill(e, float("-inf"))
    assert "return mask < 0" in dtype_problem(additive, e)


def test_an_additive_mask_of_other_entries_is_not_told_mask_below_zero():
    """Near miss: a 0/-inf mask whose -inf are not the blocked entries (transposed)."""
    e = torch.triu(torch.ones(4, 4, dtype=torch.bool), diagonal=1)
    additive = torch.zeros(4, 4).masked_fill(e.T, float("-inf"))
    problem = dtype_problem(additive, e)
    assert "return mask < 0" not in problem and "12 of 16 differ" in problem


# --- NaN and infinities, shapes -------------------------------------------------------------


def test_nan_names_what_gives_nan():
    assert "0 / 0" in nan_problem(torch.tensor([float("nan"), 1.0]), torch.ones(2))


def test_an_infinity_is_not_told_what_gives_nan():
    """Near miss: inf comes from a division by 0 or a -inf fill, never from 0 / 0 or the
    square root of a negative number, which give NaN."""
    problem = nan_problem(torch.tensor([1.0, float("-inf")]), torch.ones(2))
    assert problem.startswith("returned -inf at [1]")
    assert "0 / 0" not in problem and "square root" not in problem
    assert "division by 0" in problem


def test_permuted_sizes_are_called_a_transpose_or_permute():
    assert "transpose or permute" in shape_hint(torch.Size([3, 2, 4]), torch.Size([2, 3, 4]))


def test_the_same_number_of_entries_in_other_sizes_gets_no_reshape_guess():
    """Near miss: (2, 2, 10, 3) for (2, 4, 5, 3) -- a repeat along the wrong axis -- holds
    as many entries only by chance: a reshape is not what went wrong."""
    hint = shape_hint(torch.Size([2, 2, 10, 3]), torch.Size([2, 4, 5, 3]))
    assert "reshape" not in hint and "transpose" not in hint
    assert hint == "It holds as many entries as the expected shape (120), in other sizes."


# --- errors raised: x.T on a batch ---------------------------------------------------------


def test_dot_t_on_a_batch_is_named():
    def f(query, key):
        return query @ key.T

    message = raised(f, torch.randn(2, 3, 4), torch.randn(2, 5, 4))
    assert "Likely cause: key.T reverses ALL 3 axes" in message


def test_dot_t_of_a_matrix_before_it_became_a_batch_is_not_named():
    """Near miss: ``.T`` ran on the 2-D weight, and only then was the name given a batch
    axis; the error has another cause (the weight's sizes)."""

    def f(x, weight):
        weight = weight.T  # (4, 3): right
        weight = weight[None].expand(2, 4, 3)
        return x @ weight  # (2, 5, 5) @ (2, 4, 3): the weight's sizes are wrong

    message = raised(f, torch.randn(2, 5, 5), torch.randn(3, 4))
    assert ".T reverses" not in message and "cause" not in message


def test_dot_t_after_the_line_that_raised_is_not_named():
    """Near miss: a ``.T`` the function never reached before the error."""

    def f(x, y):
        z = x @ y  # raises: (2, 3, 4) @ (2, 5, 4)
        return x.T @ z

    message = raised(f, torch.randn(2, 3, 4), torch.randn(2, 5, 4))
    assert ".T reverses" not in message


# --- errors raised: masked_fill and torch.cat ----------------------------------------------


def test_a_mask_that_does_not_broadcast_in_masked_fill_is_named():
    def f(scores, mask):
        return scores.masked_fill(mask, float("-inf"))

    message = raised(f, torch.randn(2, 3, 4), torch.zeros(3, 2, dtype=torch.bool))
    assert "Likely cause: the mask given to masked_fill, mask (3, 2), does not broadcast" in message
    assert "scores (2, 3, 4)" in message


def test_another_operation_on_the_masked_fill_line_is_not_blamed_on_the_mask():
    """Near miss: the line adds a bias of the wrong size before masked_fill; the mask fits."""

    def f(scores, bias, mask):
        return (scores + bias).masked_fill(mask, float("-inf"))

    args = torch.randn(2, 3, 4), torch.randn(5), torch.zeros(2, 1, 4, dtype=torch.bool)
    message = raised(f, *args)
    assert "mask given to masked_fill" not in message and "Likely cause" not in message


def test_a_mask_that_fits_is_not_blamed_when_the_result_is_added_to_a_misfit():
    """Near miss: both names known, the mask broadcasts; the error is the addition's."""

    def f(scores, mask, bias):
        return scores.masked_fill(mask, -1e9) + bias

    args = torch.randn(2, 3, 4), torch.zeros(2, 1, 4, dtype=torch.bool), torch.randn(5)
    assert "mask given to masked_fill" not in raised(f, *args)


def test_torch_cat_along_an_axis_where_the_others_differ_names_the_axis_that_joins():
    def f(cache, new):
        return torch.cat([cache, new], dim=2)

    message = raised(f, torch.randn(2, 3, 4), torch.randn(2, 1, 4))
    assert "Likely cause: torch.cat joined the tensors along dim=2" in message
    assert "(2, 3, 4), (2, 1, 4), agree on every axis except dim=1" in message


def test_torch_cat_of_tensors_no_axis_joins_names_no_axis():
    """Near miss: the dim is right, the tensors' other sizes are wrong: no dim joins them,
    so asking "is dim=1 the axis?" would send the student after the wrong thing."""

    def f(a, b):
        return torch.cat([a, b], dim=1)

    message = raised(f, torch.randn(2, 3, 4), torch.randn(3, 1, 5))
    assert "Likely cause" not in message and "axis to join along" not in message
    assert "shapes (2, 3, 4), (3, 1, 5): they differ in more than one axis" in message


# --- what the student's function never reads ----------------------------------------------


def test_an_unused_parameter_is_named():
    def f(x, mask):
        return x * 2

    assert "never uses its parameter mask" in unused_hint(f, "f")


def test_a_parameter_read_only_inside_a_nested_function_is_used():
    """Near miss: the parameter is read in a lambda, a comprehension and a nested function,
    not in the body itself."""

    def f(x, scale, offset, mask):
        def shift(v):
            return v + offset

        weigh = lambda v: v * scale  # noqa: E731
        return [shift(weigh(v)) for v in x if mask is None]

    assert unused_hint(f, "f") == ""


# --- the foreign-name rewriter: only calls and lookups the user wrote ---------------------


def _tiny_translator():
    from course_lib.translation import TranslationConfig, TranslationTransformer

    torch.manual_seed(0)
    config = TranslationConfig(
        12, 12, d_model=8, num_heads=2, num_encoder_layers=1, num_decoder_layers=1, d_ff=16
    )
    return TranslationTransformer(config)


def test_a_call_the_user_wrote_is_answered_in_the_courses_words():
    model = _tiny_translator()
    src, tgt_in = torch.randint(3, 12, (2, 5)), torch.randint(3, 12, (2, 4))
    with pytest.raises(TypeError) as info:
        model(src, tgt_in, True)
    assert (
        "keyword-only: name them, e.g. TranslationTransformer.forward(..., need_weights=True)"
        in (str(info.value))
    )


def test_a_call_the_trainer_made_gets_no_advice_on_how_to_write_it():
    """Near miss: the Trainer calls model(*batch[:-1]) with a batch of one item too many;
    "name them, e.g. forward(..., need_weights=...)" would be advice about a call the user
    never wrote (and would pass a tensor as a flag). The Trainer's own explanation stays."""
    from torch.utils.data import DataLoader, TensorDataset

    from course_lib.train import Trainer

    model = _tiny_translator()
    src, tgt = torch.randint(3, 12, (4, 5)), torch.randint(3, 12, (4, 6))
    items = TensorDataset(src, tgt[:, :-1], src, src, tgt[:, 1:])  # 4 inputs for 2
    trainer = Trainer(model, torch.nn.CrossEntropyLoss(), torch.optim.SGD(model.parameters()))
    with pytest.raises(TypeError) as info:
        trainer.fit(DataLoader(items, batch_size=2), DataLoader(items), epochs=1, progress=False)
    message = str(info.value)
    assert "the Trainer calls model(*batch[:-1])" in message
    assert "name them" not in message and "need_weights=..." not in message


def test_a_keyword_the_library_passed_on_is_still_the_users():
    """The Trainer's predict passes the user's keywords on (**kwargs): a misspelt one is
    the user's, and gets its close match."""
    from course_lib.train import Trainer

    model = _tiny_translator()
    trainer = Trainer(model, torch.nn.CrossEntropyLoss(), torch.optim.SGD(model.parameters()))
    src, tgt_in = torch.randint(3, 12, (2, 5)), torch.randint(3, 12, (2, 4))
    with pytest.raises(TypeError, match=r"'need_weight'; did you mean need_weights=\?"):
        trainer.predict(src, tgt_in, need_weight=True)


def test_a_close_match_is_a_near_spelling():
    from course_lib._foreign_names import closest_name, explains_bad_calls

    @explains_bad_calls()
    def trajectories(n, *, rng, observed=5, future=3):
        return n

    with pytest.raises(TypeError) as info:
        trajectories(3, seed=0)  # Near miss: 'seed' is no misspelling of 'observed'
    assert "did you mean" not in str(info.value) and "accepts: n, rng, observed" in str(info.value)
    assert closest_name("beam", ["model", "src", "beam_size"]) == "beam_size"
    assert closest_name("hidden_size", ["n_features", "hidden_dim"]) == "hidden_dim"
    assert closest_name("mask", ["attn_mask", "key_padding_mask"]) is None  # two fit


def test_a_keyword_a_callback_refused_is_not_answered_as_the_library_functions():
    """Near miss: a library function with **kwargs passes them to the user's callback, which
    refuses 'is_causal'; the hint for the library function's own keyword is not the answer."""
    from course_lib._foreign_names import explains_bad_calls

    @explains_bad_calls(is_causal="course_lib writes attn_mask=causal_mask(T)")
    def run(x, callback, **options):
        return callback(x, **options)

    def strict(x):
        return x

    def checking(x, **options):
        if options:
            raise TypeError(f"checking does not take {next(iter(options))!r}")
        return x

    for callback in (strict, checking):
        with pytest.raises(TypeError) as info:
            run(1, callback, is_causal=True)
        assert "attn_mask=causal_mask" not in str(info.value) and "run()" not in str(info.value)

    @explains_bad_calls(is_causal="course_lib writes attn_mask=causal_mask(T)")
    def forward(x, **unknown):  # the case the rule is for: its own body refuses the keyword
        if unknown:
            raise TypeError(f"forward got an unexpected keyword argument {next(iter(unknown))!r}")
        return x

    with pytest.raises(TypeError, match="'is_causal': course_lib writes attn_mask=causal_mask"):
        forward(1, is_causal=True)


def test_a_property_that_fails_inside_raises_its_own_error():
    """Near miss: a property whose getter reads a missing attribute: Python then asks
    __getattr__ for the property's name, and "has no 'double'; did you mean 'double'?"
    would deny an attribute that exists. Its own error comes through instead."""
    from course_lib._foreign_names import explains_class

    @explains_class
    class Tool:
        def __init__(self):
            self.size = 2

        @property
        def double(self):
            return 2 * self.sise  # the slip is in here

    with pytest.raises(AttributeError) as info:
        _ = Tool().double
    assert "'sise'" in str(info.value) and "did you mean 'size'" in str(info.value)
    assert "has no 'double'" not in str(info.value)
    with pytest.raises(AttributeError, match="Tool has no 'doubel'; did you mean 'double'"):
        _ = Tool().doubel


def test_a_lookup_course_lib_made_gets_no_guess():
    """Near miss: course_lib's own code reads an attribute the user's object lacks; "did
    you mean" would guess at a name the user never wrote."""
    import course_lib
    from course_lib._foreign_names import explains_class

    @explains_class
    class Tool:
        def method(self):
            return 1

    library = {}
    here = course_lib.__file__.replace("__init__.py", "_a_library_function.py")
    exec(compile("def read(obj):\n    return obj.methd\n", here, "exec"), library)
    with pytest.raises(AttributeError) as info:
        library["read"](Tool())
    assert "did you mean" not in str(info.value)
    assert (
        str(info.value) == "Tool has no 'methd' (read by course_lib's code, not by a line of yours)"
    )
    with pytest.raises(AttributeError, match="did you mean 'method'"):
        _ = Tool().methd  # the user's own lookup


# --- messages stay short -------------------------------------------------------------------


def _short(message: str) -> None:
    lines = message.splitlines()
    assert len(lines) <= 12 and len(message) <= 1000, message
    assert "tensor(" not in message, message  # no printed tensors, only shapes and values


@pytest.mark.parametrize(
    "spoil",
    [
        lambda e: -e,
        lambda e: e.transpose(-2, -1),
        lambda e: e.flip(0),
        lambda e: 2 * e,
        lambda e: e + 1,
        lambda e: torch.zeros_like(e),
        lambda e: e.roll(1, dims=-1),
        lambda e: (e * 1.7).softmax(-1),
        lambda e: torch.where(torch.rand_like(e) < 0.5, e, e + 1),
    ],
)
def test_a_value_failure_on_a_large_tensor_is_a_few_short_lines(spoil):
    torch.manual_seed(0)
    e = torch.randn(64, 50, 50).softmax(-1)
    message = failure(spoil(e), e)
    _short(message)
    states_plainly(message)
    assert "(64, 50, 50) [" in message


def test_a_mask_failure_on_a_large_mask_is_a_few_short_lines():
    e = torch.rand(64, 50, 50, generator=torch.Generator().manual_seed(0)) < 0.3
    for got in (~e, e.transpose(-2, -1), e | (torch.rand(64, 50, 50) < 0.1), e.roll(1, -1)):
        message = failure(got, e)
        _short(message)


def test_an_error_raised_on_large_tensors_is_a_few_short_lines():
    def f(scores, mask):
        return scores.masked_fill(mask, float("-inf"))

    _short(raised(f, torch.randn(64, 50, 50), torch.zeros(50, 64, dtype=torch.bool)))


def test_preview_shows_the_shape_and_the_first_values():
    assert preview(torch.arange(10.0).reshape(2, 5)) == "(2, 5) [0, 1, 2, 3, 4, 5, ...]"
    assert preview(torch.tensor([True, False])) == "(2) [True, False]"
