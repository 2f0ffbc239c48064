"""The trajectory view's HTML fragment (course_lib.views.trajectory_view): self-contained,
deterministic, faithful to the data, and clear about bad input. The browser side:
test_views_trajectory_browser.py."""

from __future__ import annotations

import base64
import json
import re

import numpy as np
import pytest
import torch

from course_lib.points_transformer import SelfAttentionConfig, SelfAttentionEncoderDecoder
from course_lib.views import HtmlView, book_page, trajectory_view
from course_lib.views.attention import quantize
from test_views import assert_self_contained, picture_of

N, L, NH, T, S = 3, 2, 4, 3, 5


def tracks(seed: int = 0):
    """Observed ``(N, S, 2)``, future and predicted ``(N, T, 2)`` metres, and cross-attention
    weights as a model returns them: a list with one ``(N, Nh, T, S)`` tensor per layer."""
    g = torch.Generator().manual_seed(seed)
    steps = torch.randn(N, S + T, 2, generator=g) * 20 + 30
    track = torch.cumsum(steps, dim=1)
    track = track - track[:, S - 1 : S]  # metres from the last observed fix
    predicted = track[:, S:] + torch.randn(N, T, 2, generator=g) * 10
    weights = [torch.softmax(torch.randn(N, NH, T, S, generator=g), dim=-1) for _ in range(L)]
    return track[:, :S], track[:, S:], predicted, weights


def data_of(view: HtmlView) -> dict:
    found = re.search(r'<script type="application/json" class="clv-data">(.*?)</script>', view.html)
    return json.loads(found.group(1).replace("<\\/", "</"))


def embedded(item: dict) -> np.ndarray:
    raw = np.frombuffer(base64.b64decode(item["w"]), dtype=np.uint8)
    return raw.reshape(L, NH, T, S)


def test_self_contained_no_url_deterministic_and_small():
    args = tracks()
    view = trajectory_view(*args, title="Cross-attention", link=book_page("06_gps_trajectories"))
    text = view.html
    assert_self_contained(view, "trajectory")
    again = trajectory_view(
        *tracks(), title="Cross-attention", link=book_page("06_gps_trajectories")
    )
    assert again.html == text, "the same data must give the same bytes"
    other = trajectory_view(*tracks(seed=1), title="Cross-attention")
    assert re.search(r'id="(clv-\w+)"', other.html)[1] != re.search(r'id="(clv-\w+)"', text)[1]
    assert "06_gps_trajectories.html" in text  # the link, named under the picture


def test_the_embedded_weights_and_positions_are_the_data_rounded_as_documented():
    observed, future, predicted, weights = tracks()
    data = data_of(trajectory_view(observed, future, predicted, weights))
    stacked = torch.stack(weights, dim=1).numpy()  # (N, L, Nh, T, S)
    assert len(data["items"]) == N and data["heads"] == NH
    assert data["layers"] == ["layer 1", "layer 2"]
    for i, item in enumerate(data["items"]):
        got = embedded(item)
        np.testing.assert_array_equal(got, np.rint(stacked[i].astype(np.float64) * 100))
        np.testing.assert_array_equal(got, quantize(stacked[i]))
        for key, points in (("o", observed), ("f", future), ("p", predicted)):
            np.testing.assert_allclose(item[key], points[i].numpy(), atol=0.05 + 1e-9)
    assert data["labels"] == ["trajectory 1", "trajectory 2", "trajectory 3"]


def test_every_shape_of_weights_becomes_layers_and_heads():
    observed, future, predicted, weights = tracks()
    one = weights[0][:, 0]  # (N, T, S): one layer, one head
    assert data_of(trajectory_view(observed, future, predicted, one))["heads"] == 1
    four = weights[0]  # (N, Nh, T, S)
    data = data_of(trajectory_view(observed, future, predicted, four.numpy()))
    assert data["heads"] == NH and len(data["layers"]) == 1
    five = torch.stack(weights, dim=1)  # (N, L, Nh, T, S)
    assert data_of(trajectory_view(observed, future, predicted, five)) == data_of(
        trajectory_view(observed, future, predicted, weights)
    )


def test_a_real_models_cross_attention_goes_in_as_it_comes_out():
    torch.manual_seed(0)
    model = SelfAttentionEncoderDecoder(
        SelfAttentionConfig(d_model=8, num_heads=2, d_ff=16, target_len=T, num_layers=2)
    ).eval()
    observed, future, _, _ = tracks()
    with torch.no_grad():
        out, attention = model(observed / 100, need_weights=True)
    view = trajectory_view(observed, future, out * 100, attention["cross"])
    data = data_of(view)
    assert data["heads"] == 2 and len(data["layers"]) == 2
    with pytest.raises(TypeError, match=r"weights\['cross'\]"):
        trajectory_view(observed, future, out * 100, attention)


def test_labels_captions_and_picture():
    observed, future, predicted, weights = tracks()
    view = trajectory_view(
        observed,
        future,
        predicted,
        weights,
        labels=["a", "b", "c"],
        captions=["one", "two", "three"],
        layer_names=["first", "second"],
    )
    data = data_of(view)
    assert data["labels"] == ["a", "b", "c"] and data["captions"][2] == "three"
    assert data["layers"] == ["first", "second"]
    picture = picture_of(view)
    assert picture.startswith("<svg ") and "east (m)" in picture
    # The first state: trajectory 1, predicted point 1, layer 1, mean of the heads.
    w = quantize(torch.stack(weights, 1).numpy()[0])[0, :, 0].mean(axis=0) / 100
    for s in range(S):
        assert f"{s + 1}: {w[s]:.2f}" in picture


BAD = [
    (lambda o, f, p, w: (o[..., :1], f, p, w), ValueError, "observed must be"),
    (lambda o, f, p, w: (torch.cat([o, o[..., :1]], -1), f, p, w), ValueError, "lat, lon"),
    (lambda o, f, p, w: (o[0], f, p, w), ValueError, r"observed\[None\]"),
    (lambda o, f, p, w: (o, f[:2], p, w), ValueError, "future holds 2 trajectories"),
    (lambda o, f, p, w: (o, f, p[:, :2], w), ValueError, "predicted has 2 points"),
    (lambda o, f, p, w: (o, f, p, [x[:2] for x in w]), ValueError, "weights covers 2"),
    (lambda o, f, p, w: (o, f, p, [x.transpose(-1, -2) for x in w]), ValueError, "swapped"),
    (lambda o, f, p, w: (o, f, p, [x * 3 - 1 for x in w]), ValueError, "not the scores"),
    (lambda o, f, p, w: (o, f, p, [x * 0.5 for x in w]), ValueError, "sum to 1"),
    (lambda o, f, p, w: (o * float("nan"), f, p, w), ValueError, "NaN"),
    (lambda o, f, p, w: (o, f, p, "weights"), TypeError, "numbers"),
    (lambda o, f, p, w: (o, f, p, [w[0], w[1][:, :2]]), ValueError, "one .N, num_heads"),
]


@pytest.mark.parametrize("change, error, words", BAD)
def test_bad_input_is_named(change, error, words):
    with pytest.raises(error, match=words):
        trajectory_view(*change(*tracks()))


def test_bad_labels_and_captions_are_named():
    args = tracks()
    with pytest.raises(ValueError, match="labels has 2 entries"):
        trajectory_view(*args, labels=["a", "b"])
    with pytest.raises(TypeError, match="captions must be a list"):
        trajectory_view(*args, captions="one caption for three")
