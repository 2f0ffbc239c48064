import pytest
import torch

from course_lib.plots import plot_losses


def test_plot_losses_titles_labels_and_legend():
    fig = plot_losses({"training": [1.0, 0.5, 0.25], "validation": [1.2, 0.7, 0.4]}, title="T")
    ax = fig.axes[0]
    assert ax.get_title() == "T" and ax.get_xlabel() == "epoch" and ax.get_ylabel() == "MSE loss"
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["training (last 0.2500)", "validation (last 0.4000)"]
    assert ax.get_yscale() == "log"


def test_plot_losses_errors():
    with pytest.raises(ValueError, match="empty"):
        plot_losses({})
    with pytest.raises(ValueError, match="no values"):
        plot_losses({"training": []})


def test_attention_heatmap_labels_and_values():
    from course_lib.plots import attention_heatmap

    w = torch.tensor([[0.9, 0.1], [0.2, 0.8]])
    fig = attention_heatmap(w, ["p1", "p2"], ["p3", "p4"], title="H")
    ax = fig.axes[0]
    assert ax.get_title() == "H" and ax.get_xlabel() == "key (source)"
    assert [t.get_text() for t in ax.get_xticklabels()] == ["p1", "p2"]
    assert sorted(t.get_text() for t in ax.texts) == ["0.10", "0.20", "0.80", "0.90"]
    with pytest.raises(ValueError, match="3 x_labels for 2 keys"):
        attention_heatmap(w, ["a", "b", "c"])
    with pytest.raises(ValueError, match=r"one \(T, S\) matrix"):
        attention_heatmap(torch.rand(2, 2, 2))


def test_attention_heatmaps_grid():
    from course_lib.plots import attention_heatmaps

    fig = attention_heatmaps(torch.rand(5, 2, 3).softmax(-1), titles=list("abcde"), n_cols=3)
    titled = [ax.get_title() for ax in fig.axes if ax.get_title()]
    assert titled == list("abcde")
    with pytest.raises(ValueError, match=r"\(N, T, S\)"):
        attention_heatmaps(torch.rand(2, 3))


def test_attention_heatmaps_can_turn_long_key_labels():
    from course_lib.plots import attention_heatmaps

    words = ["une", "fille", "intelligente"]
    fig = attention_heatmaps(torch.rand(2, 2, 3).softmax(-1), x_labels=words, x_rotation=45)
    labels = fig.axes[0].get_xticklabels()
    assert [t.get_text() for t in labels] == words
    assert all(t.get_rotation() == 45 and t.get_horizontalalignment() == "right" for t in labels)


def test_plot_query_keys():
    from course_lib.plots import plot_query_keys

    q, k = torch.tensor([0.55, 0.95]), torch.tensor([[0.65, 0.2], [0.85, -0.4], [-0.95, -0.75]])
    fig = plot_query_keys(q, k, context=torch.tensor([0.57, -0.1]))
    text = "\n".join(t.get_text() for t in fig.axes[0].texts)
    assert "0.73 x 1.10 x 0.68 = 0.55" in text and "= -1.23" in text
    with pytest.raises(ValueError, match=r"query must be \(2,\)"):
        plot_query_keys(torch.zeros(3), k)


def test_attention_heatmap_scale_and_sparse_labels():
    from course_lib.plots import attention_heatmap

    w = torch.full((20, 20), 0.05)
    labels = [str(i) for i in range(20)]
    fig = attention_heatmap(w, labels, labels, annotate=False, vmax=None, label_every=5)
    ax = fig.axes[0]
    assert ax.images[0].get_clim() == (0.0, pytest.approx(0.05))
    assert [t.get_text() for t in ax.get_xticklabels()] == ["0", "5", "10", "15"]
    assert attention_heatmap(w, annotate=False).axes[0].images[0].get_clim() == (0.0, 1.0)
    with pytest.raises(ValueError, match="label_every"):
        attention_heatmap(w, label_every=0)


# -- the slips a notebook makes, each with an error (or warning) that names it ------------


def test_plot_losses_wants_named_curves():
    with pytest.raises(TypeError, match=r"curves must be a dict of named loss curves, got list"):
        plot_losses([1.0, 0.5])


def test_a_curve_must_be_numbers_one_per_epoch():
    with pytest.raises(TypeError, match="the curve 'training' must be a sequence of numbers"):
        plot_losses({"training": 0.5})
    with pytest.raises(TypeError, match=r"one number per epoch.*loss\.item\(\)"):
        plot_losses({"training": [torch.ones(3), torch.ones(3)]})


def test_loss_tensors_are_plotted_as_numbers(recwarn):
    loss = torch.tensor(0.5, requires_grad=True) * 2
    fig = plot_losses({"training": [loss, loss / 2]})
    assert list(fig.axes[0].lines[0].get_ydata()) == [1.0, 0.5]
    assert not recwarn.list


def test_values_a_log_axis_cannot_draw_are_warned_about():
    with pytest.warns(UserWarning, match="the curve 'accuracy' holds values <= 0.*logy=False"):
        plot_losses({"accuracy": [0.0, 0.5, 0.9]})
    with pytest.warns(UserWarning, match="NaN or infinite losses.*diverge"):
        plot_losses({"training": [1.0, float("nan")]}, logy=False)


@pytest.mark.parametrize(
    ("shape", "hint"),
    [
        ((2, 3, 4), r"weights\[0\] \(the first sentence\)"),
        ((2, 3, 4, 4), r"weights\[0, 0\] \(first sentence, first head\)"),
    ],
)
def test_attention_heatmap_says_how_to_pick_one_matrix(shape, hint):
    from course_lib.plots import attention_heatmap

    with pytest.raises(ValueError, match=hint):
        attention_heatmap(torch.rand(shape))


def test_a_sentence_is_not_a_list_of_labels():
    from course_lib.plots import attention_heatmap

    with pytest.raises(TypeError, match=r"x_labels must be a list of 7 labels.*split\(\)"):
        attention_heatmap(torch.rand(2, 7).softmax(-1), x_labels="je suis")


def test_scores_before_the_softmax_and_nan_weights_are_warned_about():
    from course_lib.plots import attention_heatmap, attention_heatmaps

    with pytest.warns(UserWarning, match=r"outside the colour scale \[0, 1\].*before the softmax"):
        attention_heatmap(torch.tensor([[2.5, -1.0], [0.3, 0.7]]))
    with pytest.warns(UserWarning, match="contains NaN.*every key is masked"):
        attention_heatmaps(torch.tensor([[[0.5, 0.5], [float("nan"), float("nan")]]]))


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda w: w.view(1, 2, 3, 4), ValueError, r"weights\.flatten\(0, 1\)"),
        (lambda w: w[:0], ValueError, "weights is empty"),
        (lambda w: (w, {"x_labels": ["a"]}), ValueError, "1 x_labels for 4 keys"),
        (lambda w: (w, {"y_labels": "abc"}), TypeError, "y_labels must be a list of 3"),
        (lambda w: (w, {"titles": "ab"}), TypeError, "titles must be a list of 2 titles"),
        (lambda w: (w, {"n_cols": 0}), ValueError, "n_cols must be a positive integer"),
    ],
)
def test_attention_heatmaps_explains_bad_arguments(call, error, message):
    from course_lib.plots import attention_heatmaps

    got = call(torch.rand(2, 3, 4).softmax(-1))
    weights, kwargs = got if isinstance(got, tuple) else (got, {})
    with pytest.raises(error, match=message):
        attention_heatmaps(weights, **kwargs)


def test_plot_query_keys_explains_labels_and_context():
    from course_lib.plots import plot_query_keys

    q, k = torch.tensor([0.6, 0.8]), torch.tensor([[1.0, 0.0], [0.0, 1.0]])
    with pytest.raises(ValueError, match="3 key_labels for 2 keys"):
        plot_query_keys(q, k, key_labels=["a", "b", "c"])
    with pytest.raises(ValueError, match=r"context must be \(2,\)"):
        plot_query_keys(q, k, context=torch.zeros(3))


def test_to_numpy_takes_a_list_of_tensors_that_require_grad():
    from course_lib.plots import to_numpy

    rows = [torch.ones(2, requires_grad=True), torch.zeros(2, requires_grad=True)]
    assert to_numpy(rows).tolist() == [[1.0, 1.0], [0.0, 0.0]]


def test_label_every_must_be_an_integer():
    from course_lib.plots import attention_heatmap

    with pytest.raises(ValueError, match="label_every must be an integer"):
        attention_heatmap(torch.eye(2), label_every=1.5)


def test_a_heatmap_of_the_output_weights_pair_says_unpack_it():
    from course_lib.plots import attention_heatmap

    pair = (torch.zeros(1, 3, 4), torch.full((1, 3, 5), 0.2))
    with pytest.raises(
        TypeError, match=r"weights is a pair of tensors.*output, weights = attention"
    ):
        attention_heatmap(pair)


@pytest.mark.parametrize("draw", ["attention_heatmap", "attention_heatmaps"])
def test_weights_that_are_none_say_where_none_comes_from(draw):
    from course_lib import plots

    with pytest.raises(TypeError) as info:
        getattr(plots, draw)(None)
    message = str(info.value)
    assert "weights is None" in message
    assert "attention='none'" in message
    assert "return" in message


def _heatmap_of_size(figsize):
    from course_lib.plots import attention_heatmap

    return attention_heatmap(torch.softmax(torch.randn(3, 4), dim=-1), figsize=figsize)


def _losses_of_size(figsize):
    return plot_losses({"training": [1.0, 0.5]}, figsize=figsize)


def _query_keys_of_size(figsize):
    from course_lib.plots import plot_query_keys

    return plot_query_keys(torch.tensor([1.0, 0.0]), torch.eye(2), figsize=figsize)


@pytest.mark.parametrize("draw", [_heatmap_of_size, _losses_of_size, _query_keys_of_size])
def test_a_figsize_of_one_number_asks_for_a_width_height_pair(draw):
    with pytest.raises(
        TypeError, match=r"figsize must be a \(width, height\) pair, got 6: .*e\.g\."
    ):
        draw(6)
    with pytest.raises(ValueError, match=r"positive inches, got \(0, 4\)"):
        draw((0, 4))
    fig = draw([5, 3])  # a list is a pair too
    assert tuple(fig.get_size_inches()) == (5, 3)


def test_plot_losses_names_logy_given_in_ylabel_place():
    curves = {"training": [0.9, 0.5, 0.45]}
    with pytest.raises(TypeError, match=r"ylabel must be a str.*got bool False.*logy=False"):
        plot_losses(curves, "Kernel width", False)
    with pytest.raises(TypeError, match=r"title must be a str.*plot_losses\(curves, logy=False\)"):
        plot_losses(curves, False)
