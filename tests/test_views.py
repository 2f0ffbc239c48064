"""The interactive views' HTML fragments (course_lib.views): self-contained, deterministic,
faithful to the data, and clear about bad input. The browser side: test_views_browser.py."""

from __future__ import annotations

import base64
import json
import re

import numpy as np
import pytest
import torch

from course_lib.masking import causal_mask, sliding_window_mask
from course_lib.views import (
    BUDGET_BYTES,
    HtmlView,
    attention_view,
    encoder_decoder_view,
    mask_view,
    offset_view,
    positions_view,
)
from course_lib.views.attention import quantize

TOKENS = "le chat est noir".split()
KEYS = "the cat is black .".split()


def weights(*shape, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.softmax(torch.randn(*shape, generator=g), dim=-1)


def data_of(view: HtmlView) -> dict:
    found = re.search(r'<script type="application/json" class="clv-data">(.*?)</script>', view.html)
    return json.loads(found.group(1).replace("<\\/", "</"))


def embedded(item: dict, shape) -> np.ndarray:
    return np.frombuffer(base64.b64decode(item["w"]), dtype=np.uint8).reshape(shape)


def assert_self_contained(view: HtmlView, kind: str) -> None:
    """No URL, no source but the picture's own data, no loader: a view makes no request
    (the views' budget; every view's tests call it)."""
    text = view.html
    assert not re.search(r"https?:", text), "a URL would be a network request"
    # the one source is the picture's own data (data:, no request)
    assert not re.search(r'\ssrc\s*=\s*"(?!data:image/svg\+xml;base64,)', text)
    assert "<link" not in text
    for banned in ("require(", "requirejs", "ipywidgets", "import(", "fetch(", "XMLHttp"):
        assert banned not in text
    assert text.startswith(f'<div class="clv clv-{kind}"') and text.endswith("</div>")
    assert view._repr_html_() == text and view.nbytes == len(text.encode())
    assert view.nbytes < BUDGET_BYTES and view.kind == kind


def picture_of(view: HtmlView) -> str:
    """The picture's SVG document, decoded from its image's data: source."""
    found = re.search(
        r'<figure class="clv-fallback"[^>]*><img class="clv-picture"[^>]*'
        r'src="data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)"',
        view.html,
    )
    assert found, "the view carries no picture of its first state"
    return base64.b64decode(found.group(1)).decode("utf-8")


@pytest.fixture
def views():
    return [
        attention_view(weights(2, 3, 4, 5), TOKENS, KEYS, title="Cross-attention"),
        attention_view([weights(4, 4), weights(3, 3, seed=1)], [TOKENS, TOKENS[:3]]),
        mask_view({"causal": causal_mask(4), "window": {2: sliding_window_mask(4, 2)}}, TOKENS),
    ]


def test_self_contained_no_url_no_external_script(views):
    for view in views:
        assert_self_contained(view, view.kind)


def test_the_embedded_weights_are_the_weights_rounded_to_two_decimals():
    w = weights(2, 3, 4, 5)
    item = data_of(attention_view(w, TOKENS, KEYS))["kinds"][0]["items"][0]
    got = embedded(item, (2, 3, 4, 5)) / 100
    np.testing.assert_allclose(got, w.numpy(), atol=0.005 + 1e-9)
    np.testing.assert_array_equal(got, np.round(w.numpy().astype(np.float64) * 100) / 100)
    assert item["queries"] == TOKENS and item["keys"] == KEYS


def test_every_shape_of_one_sentence_becomes_layers_and_heads():
    for shape, (n_layers, n_heads) in [
        ((4, 4), (1, 1)),
        ((3, 4, 4), (1, 3)),
        ((2, 3, 4, 4), (2, 3)),
    ]:
        data = data_of(attention_view(weights(*shape), TOKENS))
        kind = data["kinds"][0]
        assert len(kind["layers"]) == n_layers and kind["heads"] == n_heads
        assert data["head"] == (-1 if n_heads > 1 else 0)  # the mean of heads first
        assert kind["items"][0]["keys"] == TOKENS  # self-attention by default


def test_identical_input_gives_identical_bytes_and_ids_follow_the_data():
    a = attention_view(weights(3, 4, 5), TOKENS, KEYS)
    b = attention_view(weights(3, 4, 5).clone(), list(TOKENS), list(KEYS))
    c = attention_view(weights(3, 4, 5, seed=1), TOKENS, KEYS)
    assert a.html == b.html
    ids = [re.search(r'id="(clv-[0-9a-f]{12})"', v.html).group(1) for v in (a, c)]
    assert ids[0] != ids[1]


def test_several_sentences_each_with_their_tokens_and_captions():
    w = [weights(2, 4, 5), weights(2, 3, 2, seed=1)]
    data = data_of(attention_view(w, [TOKENS, TOKENS[:3]], [KEYS, KEYS[:2]], captions=["a", "b"]))
    assert data["captions"] == ["a", "b"] and data["labels"][1] == "2: le chat est"
    np.testing.assert_array_equal(
        embedded(data["kinds"][0]["items"][1], (1, 2, 3, 2)), quantize(w[1].numpy()[None])
    )


@pytest.mark.parametrize(
    ("call", "error", "words"),
    [
        (
            lambda: attention_view(weights(5, 4), TOKENS, KEYS),
            ValueError,
            r"swapped\? Rows are queries",
        ),
        (
            lambda: attention_view(weights(4, 6), TOKENS, KEYS),
            ValueError,
            r"\(4, 6\).*5 key tokens",
        ),
        (lambda: attention_view(weights(4, 4), "le chat est noir"), TypeError, r"\.split\(\)"),
        (lambda: attention_view(torch.randn(4, 4) * 3, TOKENS), ValueError, "not the scores"),
        (lambda: attention_view(weights(2, 2, 3, 4, 4), TOKENS), ValueError, r"weights\[i\]"),
        (lambda: attention_view(weights(4, 4), torch.arange(4)), TypeError, "vocab.words"),
        (
            lambda: attention_view([weights(2, 4, 4), weights(3, 3, 3)], [TOKENS, TOKENS[:3]]),
            ValueError,
            r"same \(num_layers, num_heads\)",
        ),
        (lambda: attention_view(weights(2, 4, 4), [TOKENS, TOKENS]), TypeError, "list of 2 arrays"),
        (lambda: attention_view([weights(4, 4)], [TOKENS, TOKENS]), ValueError, "2 sentences"),
        (lambda: mask_view(causal_mask(4)), TypeError, r"dict \{name: \(T, T\) mask\}"),
        (lambda: mask_view({"c": causal_mask(4).float()}), TypeError, "boolean mask"),
        (lambda: mask_view({"c": causal_mask(5)}, TOKENS), ValueError, r"T = 4"),
    ],
)
def test_bad_input_is_named(call, error, words):
    with pytest.raises(error, match=words):
        call()


def test_mask_bits_follow_the_library_polarity():
    data = data_of(mask_view({"window": {w: sliding_window_mask(4, w) for w in (1, 2, 3)}}))
    family = data["families"][0]
    assert family["values"] == ["1", "2", "3"] and data["tokens"] == ["0", "1", "2", "3"]
    bits = np.array([int(b) for b in family["masks"][1]]).reshape(4, 4).astype(bool)
    np.testing.assert_array_equal(bits, sliding_window_mask(4, 2).numpy())


def test_an_oversized_view_warns():
    long = [f"w{i}" for i in range(40)]
    with pytest.warns(UserWarning, match="over the 150,000"):
        attention_view([weights(4, 8, 40, 40, seed=i) for i in range(4)], [long] * 4)


def test_save_writes_a_page_that_opens_from_disk(tmp_path):
    view = attention_view(weights(4, 4), TOKENS)
    page = view.save(tmp_path / "view.html").read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and view.html in page
    with pytest.raises(ValueError, match=r"end in \.html"):
        view.save(tmp_path / "view.txt")


def translator_weights():
    """A small translator's weights for a padded batch of two, and the batch's tokens."""
    from course_lib.translation import TranslationConfig, TranslationTransformer
    from course_lib.vocab import PairBatches, Vocab, encode_pairs

    pairs = [("je suis tres content .", "i am very happy ."), ("il dort .", "he sleeps .")]
    sv, tv = Vocab(f for f, _ in pairs), Vocab(e for _, e in pairs)
    batch = next(iter(PairBatches(encode_pairs(pairs, sv, tv), 2)))
    torch.manual_seed(0)
    config = TranslationConfig(
        len(sv),
        len(tv),
        d_model=16,
        num_heads=2,
        d_ff=32,
        num_encoder_layers=2,
        num_decoder_layers=1,
        dropout=0.0,
    )
    model = TranslationTransformer(config).eval()
    with torch.no_grad():
        _, w = model(batch.src, batch.tgt_in, need_weights=True)
    src = [sv.decode([i for i in row.tolist() if i != 0], strip=False).split() for row in batch.src]
    tgt = [
        tv.decode([i for i in row.tolist() if i != 0], strip=False).split() for row in batch.tgt_in
    ]
    return w, src, tgt


def test_encoder_decoder_view_cuts_each_sentence_to_its_tokens():
    w, src, tgt = translator_weights()
    data = data_of(encoder_decoder_view(w, src, tgt, captions=["a", "b"]))
    names = [k["name"] for k in data["kinds"]]
    assert names == ["encoder self-attention", "decoder self-attention", "cross-attention"]
    encoder, _, cross = data["kinds"]
    assert len(encoder["layers"]) == 2 and len(cross["layers"]) == 1 and cross["heads"] == 2
    short = min(range(2), key=lambda b: len(src[b]))
    item = cross["items"][short]
    assert item["queries"] == tgt[short] and item["keys"] == src[short]
    T, S = len(tgt[short]), len(src[short])
    expected = torch.stack(w["cross"])[:, short, :, :T, :S].numpy()
    np.testing.assert_array_equal(embedded(item, (1, 2, T, S)), quantize(expected))


def test_encoder_decoder_view_names_bad_input():
    w, src, tgt = translator_weights()
    with pytest.raises(ValueError, match=r"'decoder'.*\['encoder', 'self', 'cross'\]"):
        encoder_decoder_view({"decoder": w["self"]}, src, tgt)
    with pytest.raises(ValueError, match="src_tokens has 2 sentences but tgt_tokens 1"):
        encoder_decoder_view(w, src, tgt[:1])
    with pytest.raises(ValueError, match="tokens of another batch"):
        encoder_decoder_view(w, [s + ["x"] * 9 for s in src], tgt)
    with pytest.raises(TypeError, match="the dict model"):
        encoder_decoder_view(w["cross"], src, tgt)


def test_encoder_decoder_view_labels_decoder_rows_by_the_written_words():
    w, src, tgt = translator_weights()
    out = [t[1:] + ["<eos>"] for t in tgt]
    data = data_of(encoder_decoder_view(w, src, tgt, out_tokens=out))
    _, self_attention, cross = data["kinds"]
    assert cross["items"][0]["queries"] == out[0] and cross["items"][0]["keys"] == src[0]
    assert self_attention["items"][0]["queries"] == out[0]
    assert self_attention["items"][0]["keys"] == tgt[0]
    with pytest.raises(ValueError, match="one written word per decoder input"):
        encoder_decoder_view(w, src, tgt, out_tokens=[o[:-1] for o in out])


def test_positions_view_embeds_the_table_in_thousandths():
    from course_lib.positional import sinusoidal_encoding

    table = sinusoidal_encoding(12, 8)
    data = data_of(positions_view(table, position=2, offset=3))
    got = np.array(data["table"]).reshape(12, 8) / 1000
    np.testing.assert_allclose(got, table.numpy(), atol=0.0005 + 1e-9)
    assert (data["length"], data["width"], data["p"], data["k"]) == (12, 8, 2, 3)
    with pytest.raises(ValueError, match="even d_model"):
        positions_view(torch.zeros(12, 7))
    with pytest.raises(ValueError, match="inside the table's 12 positions"):
        positions_view(table, position=10, offset=5)
    with pytest.raises(ValueError, match=r"in \[-1, 1\]"):
        positions_view(table * 3)


def test_offset_view_holds_every_curve_and_names_bad_input():
    scores = {"rotary": torch.randn(6, 6), "added": torch.randn(6, 6)}
    data = data_of(offset_view(scores, position=2))
    assert [c["name"] for c in data["curves"]] == ["rotary", "added"] and data["m"] == 2
    np.testing.assert_array_equal(
        np.array(data["curves"][1]["scores"]).reshape(6, 6),
        np.rint(scores["added"].numpy().astype(np.float64) * 1000),
    )
    with pytest.raises(TypeError, match=r"dict \{name: \(L, L\) scores\}"):
        offset_view(torch.randn(6, 6))
    with pytest.raises(ValueError, match="square"):
        offset_view({"a": torch.randn(6, 5)})
    with pytest.raises(ValueError, match=r"every matrix must be \(6, 6\)"):
        offset_view({"a": torch.randn(6, 6), "b": torch.randn(5, 5)})


# Positions and offsets (issue 48)


def test_positions_view_embeds_one_exact_dot_product_per_offset():
    from course_lib.positional import sinusoidal_encoding

    data = data_of(positions_view(sinusoidal_encoding(32, 16), position=3, offset=2))
    speeds = 10000.0 ** (-np.arange(8) / 8)  # 1 / 10000^(2i/d), d = 16
    np.testing.assert_array_equal(data["speeds"], speeds)
    exact = np.cos(np.arange(32)[:, None] * speeds).sum(axis=1)  # sum_i cos(k w_i)
    assert data["dots"] == [int(v) for v in np.rint(exact * 1000)]
    assert data["dots"][0] == 8000 and data["dots"][2] == 6368  # d / 2 at k = 0
    assert data["speed_labels"][:3] == ["\u03c9 = 1", "\u03c9 = 0.32", "\u03c9 = 0.1"]
    # Another base: the speeds are read off the table, and every p agrees with the one number.
    table = sinusoidal_encoding(20, 8, base=100.0).numpy().astype(np.float64)
    dots = np.array(data_of(positions_view(table))["dots"]) / 1000
    for k in range(20):
        np.testing.assert_allclose(
            np.einsum("pd,pd->p", table[: 20 - k], table[k:]), dots[k], atol=5e-4 + 1e-5
        )
    with pytest.raises(ValueError, match="must be a sinusoidal table"):
        positions_view(torch.rand(12, 8))


def test_positions_and_offset_views_draw_their_first_state_and_name_their_page():
    from course_lib.positional import sinusoidal_encoding
    from course_lib.views import book_page

    link = book_page("04_positional_encoding")
    view = positions_view(sinusoidal_encoding(32, 16), position=3, offset=2, link=link)
    picture = picture_of(view)
    assert "PE(3) \u00b7 PE(5) = 6.368" in picture and "\u03c9 = 0.32" in picture
    assert 'stroke="#1f77b4"' in picture and 'stroke="#2a8a2a"' in picture  # p blue, p+k green
    # The hand of p = 3 on the fastest dial: x = cos 3 (left), y = sin 3 (up, SVG y down).
    hands = re.findall(
        r'<line x1="([\d.]+)" y1="([\d.]+)" x2="([\d.-]+)" y2="([\d.-]+)" stroke="#1f77b4" '
        r'stroke-width="4"',
        picture,
    )
    x1, y1, x2, y2 = map(float, hands[0])
    assert x2 - x1 == pytest.approx(26 * np.cos(3), abs=0.2)
    assert y1 - y2 == pytest.approx(26 * np.sin(3), abs=0.2)
    assert link in view.html and view.link == link

    L = 6
    scores = {"rotary": torch.randn(L, L), "added": torch.randn(L, L)}
    offsets = offset_view(scores, position=2, link=book_page("07_modern_transformers"))
    picture = picture_of(offsets)
    assert picture.count('stroke-opacity="0.15"') == 2 * L  # every m, faint
    assert picture.count('stroke-width="2.2"') == 2  # the start's m
    assert "07_modern_transformers.html" in offsets.html
    # Legend and labels in the page's colour (AA on light and dark), colours on lines only.
    assert set(re.findall(r'<text[^>]*fill="([^"]+)"', picture)) == {"currentColor"}
    for made in (view, offsets):
        assert not re.search(r"https?:", made.html) and made.nbytes < BUDGET_BYTES
    again = offset_view(scores, position=2, link=book_page("07_modern_transformers"))
    assert again.html == offsets.html  # deterministic bytes


def test_places_without_html_get_the_title_and_where_the_view_runs():
    """A terminal or a LaTeX/PDF export shows text/plain (review L13)."""
    from IPython.lib.pretty import pretty

    from course_lib.views import book_page

    view = attention_view(weights(4, 4), TOKENS, title="Self-attention", link=book_page("x"))
    assert pretty(view) == (
        "Self-attention: an interactive view (the book's page, "
        "attention-step-by-step.github.io/course/chapters/x.html)"
    )
    assert repr(view).startswith("HtmlView('attention', ")
