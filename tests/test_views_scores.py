"""The score view (course_lib.views.score_view): its fragment is self-contained and
deterministic, its numbers are the library's, blocked keys are blocked, and bad input is
named. The browser side: test_views_scores_browser.py."""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pytest
import torch

from course_lib.attention import scaled_dot_product_attention
from course_lib.masking import causal_mask, padding_mask
from course_lib.views import book_page, score_view
from course_lib.views.scores import shown
from test_views import assert_self_contained, picture_of


def data_of(view) -> dict:
    found = re.search(r'<script type="application/json" class="clv-data">(.*?)</script>', view.html)
    return json.loads(found.group(1).replace("<\\/", "</"))


def example(seed: int = 2):
    """Chapter 2b's example: one sequence of 3 queries and 4 keys of width 5, the last two
    keys padding."""
    gen = torch.Generator().manual_seed(seed)
    query = torch.randn(2, 3, 5, generator=gen)
    key = torch.randn(2, 4, 5, generator=gen)
    mask = padding_mask(torch.tensor([2, 4]), total_length=4)[:, None]  # (B, 1, S)
    return query[0], key[0], mask[0]


def test_self_contained_no_url_deterministic_small():
    q, k, mask = example()
    view = score_view(q, k, mask=mask, title="Scores", link=book_page("02b_scoring_functions"))
    text = view.html
    assert_self_contained(view, "scores")
    again = score_view(
        q.clone(),
        k.clone(),
        mask=mask.clone(),
        title="Scores",
        link=book_page("02b_scoring_functions"),
    )
    assert again.html == text  # same data, same bytes
    assert "<svg" in picture_of(view) and "02b_scoring_functions.html" in text  # picture, page


def test_the_numbers_are_the_librarys_in_float64():
    q, k, mask = example()
    data = data_of(score_view(q, k, mask=mask))
    q64, k64 = q.double(), k.double()
    _, weights = scaled_dot_product_attention(q64[None], k64[None], k64[None], attn_mask=mask[None])
    np.testing.assert_allclose(data["weights"], weights[0].numpy(), rtol=0, atol=1e-12)
    np.testing.assert_array_equal(data["q"], q64.numpy())
    np.testing.assert_array_equal(data["k"], k64.numpy())
    dots = (q64 @ k64.T).numpy()
    # q.k, the scores and exp travel with 11 significant digits
    np.testing.assert_allclose(data["dots"], dots, rtol=1e-10, atol=0)
    np.testing.assert_allclose(data["scores"], dots / math.sqrt(5), rtol=1e-10, atol=0)
    exps = np.array(data["exps"])
    np.testing.assert_allclose(
        exps / exps.sum(axis=1, keepdims=True), data["weights"], rtol=0, atol=1e-10
    )
    # ... and the float32 model's own weights to float32's precision
    _, w32 = scaled_dot_product_attention(q[None], k[None], k[None], attn_mask=mask[None])
    np.testing.assert_allclose(data["weights"], w32[0].numpy(), atol=1e-6)


def test_a_machines_last_bits_do_not_change_the_bytes(monkeypatch):
    """Another BLAS or exp may differ in the last bit: the embedded numbers are rounded."""
    from course_lib.views import scores

    q, k, mask = example()
    view = score_view(q, k, mask=mask)
    exact = scores.pipeline

    def one_ulp_off(*args):
        numbers = exact(*args)
        for name in ("dots", "scores", "exps", "weights"):
            value = numbers[name]  # a blocked key's exp and weight stay exactly 0
            numbers[name] = np.where(value == 0, 0.0, np.nextafter(value, np.inf))
        return numbers

    monkeypatch.setattr(scores, "pipeline", one_ulp_off)
    assert score_view(q, k, mask=mask).html == view.html


def test_blocked_keys_have_no_weight_and_read_blocked():
    q, k, mask = example()
    view = score_view(q, k, mask=mask)
    data = data_of(view)
    assert data["blocked"] == ["0011"] * 3 and data["masked"] is True
    w = np.array(data["weights"])
    assert (w[:, 2:] == 0).all() and np.allclose(w.sum(axis=1), 1.0, atol=1e-12)
    assert (np.array(data["exps"])[:, 2:] == 0).all()
    # the picture (the first query) reads "blocked" for both padding keys, never 0.0000
    picture = picture_of(view)
    assert picture.count(">blocked<") == 4  # the mask row and the weight row, two keys each
    assert ">0.0000<" not in picture and "\u2212\u221e" in picture


def test_the_picture_shows_the_first_querys_numbers_rounded():
    q, k, mask = example()
    view = score_view(q, k, mask=mask)
    data = data_of(view)
    picture = picture_of(view)
    for s in range(2):
        for name, decimals in (("dots", 4), ("scores", 4), ("weights", 4)):
            assert f">{shown(data[name][0][s], decimals)}<" in picture, (name, s)
    for value in data["q"][0]:
        assert f">{shown(value, 3)}<" in picture


def test_a_causal_mask_a_batch_of_one_and_tokens():
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(1, 4, 3, generator=gen)
    data = data_of(
        score_view(
            x, x, mask=causal_mask(4), query_tokens="a b c d".split(), key_tokens=list("abcd")
        )
    )
    assert data["blocked"] == ["0111", "0011", "0001", "0000"]
    assert data["queries"] == ["a", "b", "c", "d"] and data["d"] == 3
    no_mask = data_of(score_view(x[0], x[0]))
    assert no_mask["masked"] is False and no_mask["blocked"] == ["0000"] * 4
    assert no_mask["queries"] == ["q1", "q2", "q3", "q4"] and no_mask["keys"][0] == "k1"


def test_wide_vectors_are_drawn_as_bars_and_large_scores_shifted():
    gen = torch.Generator().manual_seed(0)
    q = torch.randn(3, 64, generator=gen) * 20
    data = data_of(score_view(q, q))
    assert data["numbers"] is False and max(data["shift"]) > 0
    exps = np.array(data["exps"])
    assert np.isfinite(exps).all()
    np.testing.assert_allclose(exps / exps.sum(1, keepdims=True), data["weights"], atol=1e-10)


def test_bad_input_is_named():
    q, k, mask = example()
    with pytest.raises(ValueError, match=r"queries must be \(T, d\).*got shape \(2, 3, 5\)"):
        score_view(torch.randn(2, 3, 5), k)
    with pytest.raises(ValueError, match=r"keys must be \(S, d\).*queries\[b, h\]|keys\[b, h\]"):
        score_view(q, torch.randn(1, 2, 4, 5))
    with pytest.raises(ValueError, match=r"width d = 5 but keys 4"):
        score_view(q, torch.randn(4, 4))
    with pytest.raises(ValueError, match="NaN or inf"):
        score_view(q, k.masked_fill(mask.T, float("nan")))
    with pytest.raises(TypeError, match="mask must be boolean"):
        score_view(q, k, mask=mask.float())
    with pytest.raises(TypeError, match="mask must be boolean"):
        score_view(q, k, mask=np.zeros((3, 4)))
    with pytest.raises(ValueError, match=r"mask must be \(T, S\) = \(3, 4\).*\(3, 3\)"):
        score_view(q, k, mask=causal_mask(3))
    with pytest.raises(ValueError, match="blocks every key of query 1"):
        score_view(q, k, mask=torch.ones(4, dtype=torch.bool))
    with pytest.raises(ValueError, match="query_tokens has 2 tokens"):
        score_view(q, k, query_tokens=["a", "b"])
    with pytest.raises(TypeError, match="key_tokens must be a list"):
        score_view(q, k, key_tokens="a b c d")
    with pytest.raises(TypeError, match="queries must be numbers"):
        score_view("abc", k)
