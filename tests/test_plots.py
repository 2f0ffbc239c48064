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
