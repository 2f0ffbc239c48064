import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from course_lib.squares import (
    CLOCKWISE,
    CORNERS,
    corner_accuracy,
    make_squares,
    nearest_corner,
    plot_squares,
    seq2seq_datasets,
    signed_area,
    split_source_target,
    square_walks,
)


def test_shapes_and_types():
    points, directions = make_squares(n=7, seed=3)
    assert points.shape == (7, 4, 2) and points.dtype == np.float64
    assert directions.shape == (7,) and directions.dtype == np.int64
    assert set(np.unique(directions)) <= {0, 1}


def test_same_seed_same_data_other_seed_other_data():
    a, da = make_squares(n=50, seed=5)
    b, db = make_squares(n=50, seed=5)
    c, _ = make_squares(n=50, seed=6)
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(da, db)
    assert not np.allclose(a, c)


def test_reproduces_the_lecture_points():
    # The lecture prints full_train[1:2, :2] for generate_sequences(n=256, seed=13).
    points, _ = make_squares(n=256, seed=13)
    expected = np.array([[-1.0442, -0.9045], [-0.9980, 1.0863]])
    np.testing.assert_allclose(points[1, :2], expected, atol=5e-5)


def test_does_not_touch_numpy_global_state():
    np.random.seed(123)
    before = np.random.get_state()[1].copy()
    make_squares(n=10, seed=1)
    assert np.array_equal(np.random.get_state()[1], before)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n=st.integers(1, 40), modern=st.booleans())
def test_every_sequence_turns_in_its_labelled_direction(seed, n, modern):
    by = {"rng": np.random.default_rng(seed)} if modern else {"seed": seed}
    points, directions = make_squares(n=n, **by)
    clockwise = signed_area(points) < 0  # the shoelace area is negative for clockwise polygons
    np.testing.assert_array_equal(clockwise, directions == CLOCKWISE)
    # every point is a noisy corner, and the four corners are all visited
    corners = nearest_corner(points)
    assert all(len(set(row)) == 4 for row in corners)


def test_generator_api_is_deterministic_and_differs_from_legacy():
    a, _ = make_squares(n=20, rng=np.random.default_rng(7))
    b, _ = make_squares(n=20, rng=np.random.default_rng(7))
    legacy, _ = make_squares(n=20, seed=7)
    np.testing.assert_array_equal(a, b)
    assert not np.allclose(a, legacy)


def test_noise_zero_gives_exact_corners():
    points, _ = make_squares(n=30, seed=2, noise=0.0)
    assert np.all(np.isin(points, [-1.0, 1.0]))


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"n": 0}, "positive number"),
        ({"noise": -0.1}, "cannot be negative"),
        ({"rng": 42}, "np.random.Generator"),
    ],
)
def test_bad_arguments(kwargs, message):
    with pytest.raises((ValueError, TypeError), match=message):
        make_squares(**kwargs)


def test_square_walks_are_the_eight_sequences():
    walks, directions = square_walks()
    assert walks.shape == (8, 4, 2)
    assert len({w.tobytes() for w in walks}) == 8
    steps = np.abs(np.diff(walks, axis=1)).sum(-1)  # neighbours differ in one coordinate by 2
    assert np.all(steps == 2)
    np.testing.assert_array_equal(signed_area(walks) < 0, directions == CLOCKWISE)


def test_split_source_target():
    points, _ = make_squares(n=5)
    source, target = split_source_target(points)
    assert source.shape == (5, 2, 2) and target.shape == (5, 2, 2)
    assert source.dtype == torch.float32
    torch.testing.assert_close(torch.cat([source, target], 1), torch.as_tensor(points).float())
    with pytest.raises(ValueError, match="source_len"):
        split_source_target(points, source_len=4)
    with pytest.raises(ValueError, match=r"\(N, L, F\)"):
        split_source_target(points[0])


def test_datasets_hide_the_target_from_validation_inputs():
    train, val = seq2seq_datasets(make_squares(8, 1)[0], make_squares(4, 2)[0])
    source, target_in, target = train[0]
    assert torch.equal(target_in, target)
    assert len(val[0]) == 2  # (source, target): the model only ever gets the source


def test_corner_metrics():
    assert list(nearest_corner(CORNERS * 0.9)) == [0, 1, 2, 3]
    truth = torch.tensor([[[-1.0, -1.0], [1.0, 1.0]]])
    assert corner_accuracy(truth * 0.8, truth) == 1.0
    assert corner_accuracy(-truth, truth) == 0.0
    with pytest.raises(ValueError, match="same shape"):
        corner_accuracy(truth[:, :1], truth)
    with pytest.raises(ValueError, match="2 coordinates"):
        nearest_corner(np.zeros((3, 3)))
    with pytest.raises(ValueError, match=r"\(N, L, 2\)"):
        signed_area(np.zeros((3, 2)))


# -- the figure


def test_plot_squares_panels_and_prediction_scores():
    points, directions = make_squares(n=7, seed=0)
    predicted = torch.as_tensor(points[:, 2:]).float()  # perfect predictions
    fig = plot_squares(points, directions, predicted=predicted, n_cols=3, title="S")
    assert fig._suptitle.get_text() == "S"
    titles = [ax.get_title() for ax in fig.axes if ax.get_visible() and ax.axison]
    assert len(titles) == 7 and all(t.endswith("2/2 right") for t in titles)
    assert any(ax.get_xlabel() == "$x_0$" for ax in fig.axes)


def test_plot_squares_without_predictions():
    walks, directions = square_walks()
    fig = plot_squares(walks, directions, n_cols=4)
    names = {ax.get_title() for ax in fig.axes}
    assert names == {"clockwise", "counter-clockwise"}


def test_plot_squares_errors():
    points, directions = make_squares(n=3)
    with pytest.raises(ValueError, match=r"\(N, L, 2\)"):
        plot_squares(points[0], directions)
    with pytest.raises(ValueError, match="3 sequences but 2 directions"):
        plot_squares(points, directions[:2])
    with pytest.raises(ValueError, match="predicted must have shape"):
        plot_squares(points, directions, predicted=np.zeros((3, 1, 2)))


@pytest.mark.parametrize("seed, error", [(1.5, TypeError), ("13", TypeError), (-1, ValueError)])
def test_seeds_must_be_integers(seed, error):
    with pytest.raises(error, match="seed"):
        make_squares(4, seed=seed)


def test_overlapping_predictions_share_one_label():
    from course_lib.squares import PREDICTED_COLOR

    walks, directions = square_walks()
    apart = torch.as_tensor(walks[:1, 2:]).float()  # (1, 2, 2): two distinct corners
    together = torch.full((1, 2, 2), 0.5)  # both predictions on the same spot
    for predicted, expected in [(apart, ["3", "4"]), (together, ["3,4"])]:
        fig = plot_squares(walks[:1], directions[:1], predicted=predicted, n_cols=1)
        labels = [t.get_text() for t in fig.axes[0].texts if t.get_color() == PREDICTED_COLOR]
        assert sorted(labels) == expected


# -- the slips a notebook makes, each with an error that names it ------------------------


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"n": 8.0}, TypeError, "n must be the number of sequences, an int, got float"),
        ({"noise": "0.1"}, TypeError, "noise must be a number"),
        ({"noise": float("nan")}, ValueError, "noise is NaN"),
    ],
)
def test_make_squares_wants_numbers(kwargs, error, message):
    with pytest.raises(error, match=message):
        make_squares(**kwargs)


@pytest.mark.parametrize(
    "call",
    [
        lambda pair: split_source_target(pair),
        lambda pair: signed_area(pair),
        lambda pair: seq2seq_datasets(pair, pair[0]),
    ],
)
def test_the_pair_make_squares_returns_must_be_unpacked(call):
    with pytest.raises(TypeError, match=r"make_squares returns \(points, directions\), unpack"):
        call(make_squares(8))


def test_the_pair_is_named_by_the_argument():
    points, _ = make_squares(8)
    with pytest.raises(TypeError, match="test_points is a pair of arrays"):
        seq2seq_datasets(points, make_squares(8))


def test_source_len_must_be_an_integer():
    points, _ = make_squares(8)
    with pytest.raises(ValueError, match="source_len must be a positive integer, got 2.0"):
        split_source_target(points, 2.0)


def test_metrics_accept_predictions_that_require_grad():
    points, _ = make_squares(8)
    _, target = split_source_target(points)
    predicted = target.clone().requires_grad_()
    assert corner_accuracy(predicted, target) == 1.0
    assert nearest_corner(predicted).shape == (8, 2)


def test_whole_sequences_for_the_target_are_explained():
    points, _ = make_squares(8)
    _, target = split_source_target(points)
    with pytest.raises(ValueError, match=r"target points only: _, target = split_source_target"):
        corner_accuracy(target, points)


def test_nearest_corner_of_a_number_is_explained():
    with pytest.raises(ValueError, match="points must end with 2 coordinates, got shape"):
        nearest_corner(0.5)


def test_predictions_passed_as_directions_are_explained():
    points, _ = make_squares(4)
    with pytest.raises(ValueError, match=r"directions must be \(N,\) labels.*predicted="):
        plot_squares(points, points[:, 2:])


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"points": np.zeros((0, 4, 2)), "directions": np.zeros(0)}, r"points is empty \(N = 0\)"),
        ({"directions": np.array([0, 1, 2, 1])}, r"directions must be 1 \(clockwise\) or 0"),
        ({"source_len": 4}, "source_len=4 leaves no target"),
        ({"source_len": 2.0}, "source_len must be a positive integer"),
        ({"n_cols": 0}, "n_cols must be a positive integer"),
    ],
)
def test_plot_squares_explains_bad_arguments(change, message):
    points, directions = make_squares(4)
    args = {"points": points, "directions": directions} | change
    with pytest.raises(ValueError, match=message):
        plot_squares(**args)


def test_sequences_of_different_lengths_are_named_ragged():
    with pytest.raises(ValueError, match="points is a ragged list"):
        signed_area([np.zeros((4, 2)), np.zeros((3, 2))])


def test_datasets_of_an_already_split_source_and_target_are_named():
    from course_lib.squares import seq2seq_datasets

    points, _ = make_squares(8, seed=0)
    source, target = points[:, :2], points[:, 2:]
    with pytest.raises(
        ValueError, match=r"train_points holds sequences of 2 points.*whole sequences"
    ):
        seq2seq_datasets(source, target)


def test_input_len_names_source_len():
    from course_lib.squares import split_source_target

    with pytest.raises(TypeError, match=r"'input_len'.*source_len="):
        split_source_target(np.zeros((3, 4, 2)), input_len=2)


def test_an_empty_training_selection_is_named():
    points, directions = make_squares(16, seed=0)
    with pytest.raises(ValueError, match=r"train_points is empty, 0 sequences.*np\.unique"):
        seq2seq_datasets(points[directions == 7], points[:4])


def test_make_squares_names_rng_for_a_generator_seed_and_warns_when_both_are_given():
    with pytest.raises(TypeError, match=r"seed must be an integer.*Generator.*rng="):
        make_squares(8, seed=np.random.default_rng(13))
    with pytest.warns(UserWarning, match=r"both seed=17 and rng=.*seed is ignored"):
        points, _ = make_squares(8, seed=17, rng=np.random.default_rng(17))
    np.testing.assert_array_equal(points, make_squares(8, rng=np.random.default_rng(17))[0])


def test_plot_squares_refuses_a_number_as_predicted():
    points, directions = make_squares(4)
    with pytest.raises(TypeError, match=r"predicted must be .*got int 4.*n_cols=4"):
        plot_squares(points, directions, 4)


def test_corner_accuracy_names_the_predictions_weights_pair():
    _, target = split_source_target(make_squares(4)[0])
    pair = (target.clone(), torch.rand(4, 2, 2))
    with pytest.raises(TypeError, match=r"tuple of 2.*need_weights=True.*Unpack it"):
        corner_accuracy(pair, target)
