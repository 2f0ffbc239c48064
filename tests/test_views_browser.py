"""The interactive views in a real browser: headless Chromium (Debian's ``chromium``) driven
by Playwright's Python package pointed at that executable (no browser is downloaded).

A bare page saved from disk: focus a query token and read the highlighted weights back,
switch head, layer and sentence, drive a mask view's slider; and no network request at all.
The book's built pages: ``COURSE_BUILT_BOOK=_build/html`` (``make test`` sets it after the
book build) loads every chapter page that carries a view, in light and dark theme.

Skipped, with the reason, where Chromium or Playwright is missing; ``COURSE_REQUIRE_BROWSER=1``
(CI sets it) turns that skip into a failure.
"""

from __future__ import annotations

import base64
import os
from pathlib import Path

import numpy as np
import pytest
import torch

from course_lib.masking import sliding_window_mask
from course_lib.views import attention_view, mask_view


class Page:
    """A page with every request and script error recorded."""

    def __init__(self, browser, url: str, width: int = 1000):
        self.page = browser.new_page(viewport={"width": width, "height": 800})
        self.requests: list[str] = []
        self.errors: list[str] = []
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.goto(url)

    def network(self) -> list[str]:
        """Requests that leave the machine (anything but file: and data: URLs)."""
        return [u for u in self.requests if not u.startswith(("file:", "data:", "about:"))]


def _weights(*shape, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.softmax(torch.randn(*shape, generator=g), dim=-1)


SOURCES = [["le", "chat", "est", "noir"], ["il", "dort", "."]]
TARGETS = [["the", "cat", "is", "black", "."], ["he", "sleeps"]]


def _row(page, t: int) -> list[str]:
    cells = page.locator(f'.clv-grid rect.clv-cell[data-q="{t}"]')
    return [cells.nth(i).get_attribute("data-w") for i in range(cells.count())]


def _expected(w: torch.Tensor, layer: int, head: int | None, t: int) -> list[str]:
    q = np.rint(w.numpy().astype(np.float64) * 100)  # what the view embeds
    row = q[layer, :, t].mean(axis=0) if head is None else q[layer, head, t]
    return [f"{v / 100:.2f}" for v in row]


def test_attention_view_focus_heads_layers_sentences_offline(browser, tmp_path):
    w = [_weights(2, 3, 4, 5), _weights(2, 3, 3, 2, seed=1)]
    path = attention_view(w, SOURCES, TARGETS, title="Cross-attention").save(tmp_path / "v.html")
    view = Page(browser, path.as_uri())
    p = view.page
    assert p.locator(".clv").get_attribute("data-clv-ready") == "1"
    assert not p.locator(".clv-fallback").is_visible()

    p.locator('.clv-grid .clv-token[data-q="2"]').focus()  # keyboard focus, as by Tab
    assert p.locator(".clv-grid rect.clv-row").get_attribute("data-q") == "2"
    assert _row(p, 2) == _expected(w[0], 0, None, 2)  # mean of heads, layer 1
    readout = p.locator(".clv-readout").text_content()
    assert readout.startswith("est") and "black " + _expected(w[0], 0, None, 2)[3] in readout
    links = p.locator('.clv-lines line.clv-link[data-q="2"]')
    assert links.count() == 5 and p.locator(".clv-lines line.clv-link").count() == 5

    p.keyboard.press("ArrowDown")  # the next query, still from the keyboard
    assert p.locator(".clv-grid rect.clv-row").get_attribute("data-q") == "3"
    assert p.evaluate("document.activeElement.getAttribute('data-q')") == "3"

    p.get_by_label("Head", exact=True).select_option(label="head 2")
    assert _row(p, 3) == _expected(w[0], 0, 1, 3)
    p.get_by_label("Layer", exact=True).select_option(label="layer 2")
    assert _row(p, 3) == _expected(w[0], 1, 1, 3)
    p.get_by_label("Sentence", exact=True).select_option(index=1)
    p.locator('.clv-grid .clv-token[data-q="1"]').hover()
    assert _row(p, 1) == _expected(w[1], 1, 1, 1)
    assert p.locator(".clv-grid .clv-token[data-q]").count() == 3

    assert view.errors == []
    assert view.network() == [], "the view must not touch the network"
    assert view.requests == [path.as_uri()]  # not even a local file besides the page


def test_encoder_decoder_view_switches_the_kind_of_attention(browser, tmp_path):
    from course_lib.views import encoder_decoder_view
    from test_views import translator_weights

    w, src, tgt = translator_weights()
    path = encoder_decoder_view(w, src, tgt).save(tmp_path / "ed.html")
    view = Page(browser, path.as_uri())
    p = view.page
    assert p.get_by_label("Layer", exact=True).count() == 1  # the encoder has 2 layers
    p.get_by_label("Attention", exact=True).select_option(label="cross-attention")
    assert p.get_by_label("Layer", exact=True).count() == 0  # the decoder has 1
    p.get_by_label("Head", exact=True).select_option(label="head 2")
    p.locator('.clv-grid .clv-token[data-q="1"]').focus()
    expected = torch.stack(w["cross"])[:, 0, :, : len(tgt[0]), : len(src[0])]
    assert _row(p, 1) == _expected(expected, 0, 1, 1)
    assert p.locator(".clv-grid .clv-token[data-q]").count() == len(tgt[0])
    assert view.errors == [] and view.network() == []


def test_mask_view_click_and_slider(browser, tmp_path):
    T = 6
    masks = {"sliding window": {w: sliding_window_mask(T, w) for w in range(1, T + 1)}}
    path = mask_view(masks, [f"t{i}" for i in range(T)]).save(tmp_path / "m.html")
    view = Page(browser, path.as_uri())
    p = view.page
    p.locator('.clv-token[data-q="4"]').click()
    assert "may see 1 of 6: t4" in p.locator(".clv-readout").text_content()
    p.get_by_label("window", exact=True).fill("2")  # the slider's third value: width 3
    p.get_by_label("window", exact=True).dispatch_event("input")
    p.locator('.clv-token[data-q="4"]').click()
    blocked = [
        p.locator(f'rect[data-q="4"][data-k="{s}"]').get_attribute("data-blocked") == "1"
        for s in range(T)
    ]
    assert blocked == sliding_window_mask(T, 3)[4].tolist()
    assert "may see 3 of 6: t2 t3 t4" in p.locator(".clv-readout").text_content()
    assert view.errors == [] and view.network() == []


def test_positions_view_sliders_bars_and_dials(browser, tmp_path):
    from course_lib.positional import sinusoidal_encoding
    from course_lib.views import positions_view

    table = sinusoidal_encoding(16, 8)
    path = positions_view(table, position=3, offset=2).save(tmp_path / "p.html")
    view = Page(browser, path.as_uri())
    p = view.page
    bars = p.locator('rect[data-row="1"]')  # the encoding of p + k = 5
    got = [float(bars.nth(j).get_attribute("data-v")) for j in range(bars.count())]
    np.testing.assert_allclose(got, table[5].numpy(), atol=0.0006)
    p.get_by_label("position p", exact=True).fill("7")
    p.get_by_label("position p", exact=True).dispatch_event("input")
    # Exact: sum_i cos(k w_i) in float64, not the dot product of the rounded table (M3).
    speeds = 10000.0 ** (-np.arange(4) / 4)
    expected = np.cos(2 * speeds).sum()
    assert f"PE(7) · PE(9) = {expected:.3f}" in p.locator(".clv-readout").text_content()
    assert p.locator(".clv-dials line.clv-hand").count() == 2 * 4  # two hands, 4 dials
    assert view.errors == [] and view.network() == []


def test_offset_view_moves_the_query(browser, tmp_path):
    from course_lib.views import offset_view

    scores = torch.arange(36.0).reshape(6, 6) / 10
    path = offset_view({"a": scores, "b": -scores}).save(tmp_path / "o.html")
    view = Page(browser, path.as_uri())
    p = view.page
    assert "score at offset 0: a 0.00 · b 0.00" in p.locator(".clv-readout").text_content()
    p.get_by_label("query position m", exact=True).fill("4")
    p.get_by_label("query position m", exact=True).dispatch_event("input")
    assert "m = 4, score at offset 0: a 2.80 · b -2.80" in p.locator(".clv-readout").text_content()
    assert p.locator("polyline.clv-score").count() == 2
    assert view.errors == [] and view.network() == []


def test_two_identical_views_on_one_page_both_run(browser, tmp_path):
    view = attention_view(_weights(4, 4), SOURCES[0])
    page = view.page().replace(view.html, view.html + "\n" + view.html)
    (tmp_path / "two.html").write_text(page, encoding="utf-8")
    p = Page(browser, (tmp_path / "two.html").as_uri()).page
    assert p.locator('.clv[data-clv-ready="1"]').count() == 2


def test_no_overflow_at_a_phones_width(browser, tmp_path):
    w = _weights(2, 3, 4, 5)
    path = attention_view(w, SOURCES[0], TARGETS[0]).save(tmp_path / "v.html")
    p = Page(browser, path.as_uri(), width=360).page
    assert p.evaluate("document.documentElement.scrollWidth") <= 360


BUILT = os.environ.get("COURSE_BUILT_BOOK")


@pytest.mark.skipif(
    not BUILT, reason="COURSE_BUILT_BOOK is not set (make test sets it after the book build)"
)
@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_built_pages_views_run_offline(browser, theme):
    pages = sorted(
        p
        for p in Path(BUILT, "chapters").glob("*.html")
        if 'class="clv ' in p.read_text(encoding="utf-8")
    )
    assert pages, f"no chapter page under {BUILT} carries an interactive view"
    # Errors the book's pages raise whether or not they carry a view (the theme's own
    # scripts): measured on a page without one, and not charged to the views.
    plain = next(
        p
        for p in sorted(Path(BUILT, "chapters").glob("*.html"))
        if 'class="clv ' not in p.read_text(encoding="utf-8")
    )
    baseline = set(Page(browser, plain.resolve().as_uri()).errors)
    for page in pages:
        view = Page(browser, page.resolve().as_uri())
        p = view.page
        p.evaluate(f"document.documentElement.dataset.theme = '{theme}'")
        roots = p.locator(".clv")
        assert roots.count() == p.locator('.clv[data-clv-ready="1"]').count() > 0, page.name
        for i in range(roots.count()):  # the keyboard reaches every view
            root = roots.nth(i)
            target = root.locator(".clv-token, select, input").first
            target.focus()
            assert root.evaluate("r => r.contains(document.activeElement)"), page.name
            assert root.locator(".clv-readout").text_content().strip(), page.name
        assert set(view.errors) <= baseline, (page.name, view.errors)
        assert view.network() == [], (page.name, view.network())
        # at a phone's width every view fits, and so does the page (review L7, L16, L17)
        phone = Page(browser, page.resolve().as_uri(), width=360).page
        phone.evaluate(f"document.documentElement.dataset.theme = '{theme}'")
        rights = phone.evaluate(
            "[...document.querySelectorAll('.clv')].map(r => r.getBoundingClientRect().right)"
        )
        assert rights and max(rights) <= 360, (page.name, rights)
        assert phone.evaluate("document.documentElement.scrollWidth") <= 360, page.name


# The second edition (issue 48): the picture, the keys, every head, the key side


def _strip_scripts_and_styles(html: str) -> str:
    """What GitHub does to a notebook's HTML output: scripts and styles removed."""
    import re

    html = re.sub(r"<script\b.*?</script>", "", html, flags=re.S)
    return re.sub(r"<style\b.*?</style>", "", html, flags=re.S)


def test_the_picture_shows_where_scripts_do_not_run(browser, tmp_path):
    from course_lib.views import book_page, encoder_decoder_view
    from test_views import translator_weights

    w, src, tgt = translator_weights()
    view = encoder_decoder_view(w, src, tgt, title="Demo", link=book_page("05_translation"))
    stripped = tmp_path / "stripped.html"
    stripped.write_text(_strip_scripts_and_styles(view.page()), encoding="utf-8")
    saved = view.save(tmp_path / "v.html")
    no_js = browser.new_context(java_script_enabled=False)
    for page in (Page(browser, stripped.as_uri()).page, no_js.new_page()):
        if page.url == "about:blank":
            page.goto(saved.as_uri())
        picture = page.locator(".clv-fallback img.clv-picture")
        assert picture.is_visible()
        box = picture.bounding_box()
        assert box["width"] > 150 and box["height"] > 100  # a picture, not a line
        assert picture.evaluate("img => img.complete && img.naturalWidth > 150")  # drawn
        svg = base64.b64decode(picture.get_attribute("src").split(",", 1)[1]).decode()
        assert svg.count('fill-opacity="') >= len(src[0]) ** 2  # the first sentence's grid
        caption = page.locator(".clv-fallback figcaption").text_content()
        assert "05_translation.html" in caption and "Trust Notebook" in caption
    no_js.close()
    p = Page(browser, saved.as_uri()).page  # where scripts run, the view replaces it
    assert not p.locator(".clv-fallback").is_visible()


def test_keys_pressed_in_a_view_stay_in_the_view(browser, tmp_path):
    """Jupyter's shortcuts listen on the page (ArrowDown = next cell, "a" = new cell)."""
    path = attention_view(_weights(2, 3, 4, 5), SOURCES[0], TARGETS[0]).save(tmp_path / "v.html")
    p = Page(browser, path.as_uri()).page
    p.evaluate(
        "window.heard = []; ['keydown', 'keypress', 'keyup'].forEach(type => "
        "document.addEventListener(type, e => window.heard.push(e.key)))"
    )
    p.locator('.clv-grid .clv-token[data-q="0"]').focus()
    for key in ("ArrowDown", "a", "b", "Enter", "x", "ArrowUp"):
        p.keyboard.press(key)
    p.get_by_label("Head", exact=True).focus()
    p.keyboard.press("ArrowDown")
    assert p.evaluate("window.heard") == []
    assert p.locator(".clv-grid rect.clv-row").get_attribute("data-q") == "0"  # down, up
    assert p.get_by_label("Head", exact=True).input_value() == "1"  # the picker moved
    p.evaluate("document.activeElement.blur()")
    p.keyboard.press("a")  # outside a view the page hears keys as before
    assert p.evaluate("window.heard").count("a") >= 1


def test_every_head_at_a_glance_opens_one_and_the_key_side(browser, tmp_path):
    w = _weights(2, 3, 4, 5)
    path = attention_view(w, SOURCES[0], TARGETS[0]).save(tmp_path / "v.html")
    p = Page(browser, path.as_uri()).page
    thumbs = p.locator(".clv-multiples .clv-thumb")
    assert thumbs.count() == 2 * (3 + 1)  # layers x (mean + heads)
    assert p.locator(".clv-multiples .clv-thumb[tabindex='0']").count() == 1  # one tab stop
    p.locator('.clv-thumb[data-layer="1"][data-head="2"]').click()
    assert p.get_by_label("Layer", exact=True).input_value() == "1"
    assert p.get_by_label("Head", exact=True).input_value() == "3"  # "head 3"
    p.locator('.clv-grid .clv-token[data-q="1"]').focus()
    assert _row(p, 1) == _expected(w, 1, 2, 1)
    # keyboard: from the chosen thumbnail, ArrowLeft then Enter opens head 2 of layer 2
    p.locator(".clv-multiples .clv-thumb[tabindex='0']").focus()
    p.keyboard.press("ArrowLeft")
    p.keyboard.press("Enter")
    assert p.get_by_label("Head", exact=True).input_value() == "2"
    # the key side: focusing key 3 ("black") reads out every query's weight on it
    p.locator('.clv-grid .clv-token[data-k="3"]').focus()
    readout = p.locator(".clv-readout").text_content()
    q = np.rint(w.numpy().astype(np.float64) * 100)[1, 1, :, 3] / 100
    expected = " · ".join(f"{t} {v:.2f}" for t, v in zip(SOURCES[0], q, strict=True))
    assert readout == f"attending to black: {expected}"
    assert p.locator('.clv-lines line.clv-link[data-k="3"]').count() == 4
    assert p.locator(".clv-lines line.clv-link").count() == 4


def test_one_tab_stop_per_side_and_focus_survives_the_mouse(browser, tmp_path):
    path = attention_view(_weights(4, 4), SOURCES[0]).save(tmp_path / "v.html")
    p = Page(browser, path.as_uri()).page
    stops = p.locator(".clv [tabindex='0']")
    assert stops.count() == 2  # the queries and the keys (no pickers for one head)
    p.locator('.clv-grid .clv-token[data-q="2"]').focus()
    p.locator('.clv-grid .clv-token[data-q="0"]').hover()  # the pointer passes by
    assert p.evaluate("document.activeElement.getAttribute('data-q')") == "2"
    p.keyboard.press("ArrowDown")
    assert p.evaluate("document.activeElement.getAttribute('data-q')") == "3"


def test_decoder_self_attention_reads_blocked_keys_as_blocked(browser, tmp_path):
    from course_lib.views import encoder_decoder_view
    from test_views import translator_weights

    w, src, tgt = translator_weights()
    path = encoder_decoder_view(w, src, tgt).save(tmp_path / "ed.html")
    p = Page(browser, path.as_uri()).page
    p.get_by_label("Attention", exact=True).select_option(label="decoder self-attention")
    p.locator('.clv-grid .clv-token[data-q="1"]').focus()
    cells = p.locator('.clv-grid rect[data-q="1"][data-k]')
    row = [cells.nth(i).get_attribute("data-w") for i in range(cells.count())]
    assert row[2:] == ["blocked"] * (len(tgt[0]) - 2) and "blocked" not in row[:2]
    assert p.locator('rect.clv-blocked[data-q="1"]').count() == len(tgt[0]) - 2
    assert "blocked" in p.locator(".clv-readout").text_content()
    assert "causal mask" in p.locator(".clv-legend").text_content()


def test_sliders_speak_their_value(browser, tmp_path):
    T = 6
    masks = {"sliding window": {w: sliding_window_mask(T, w) for w in range(2, T + 1)}}
    path = mask_view(masks, [f"t{i}" for i in range(T)]).save(tmp_path / "m.html")
    p = Page(browser, path.as_uri()).page
    slider = p.get_by_label("window", exact=True)
    assert slider.get_attribute("aria-valuetext") == "2"  # the first value, not index 0
    slider.fill("3")
    slider.dispatch_event("input")
    assert slider.get_attribute("aria-valuetext") == "5"


# Positions and offsets (issue 48)


def _positions_page(browser, tmp_path, width=1000, **kwargs):
    from course_lib.positional import sinusoidal_encoding
    from course_lib.views import positions_view

    path = positions_view(sinusoidal_encoding(32, 16), **kwargs).save(tmp_path / "pos.html")
    return Page(browser, path.as_uri(), width=width)


def _slider_says(p, label: str) -> str:
    """The value a slider shows, checked against what a screen reader hears."""
    wrap = p.locator("label.clv-picker").filter(has=p.get_by_label(label, exact=True))
    shown = wrap.locator("output").text_content()
    assert p.get_by_label(label, exact=True).get_attribute("aria-valuetext") == shown
    return shown


def test_positions_view_readout_is_the_same_for_every_p(browser, tmp_path):
    view = _positions_page(browser, tmp_path, position=0, offset=2)
    p = view.page
    readouts = set()
    p.get_by_label("position p", exact=True).focus()
    for pos in range(30):  # every p with p + 2 inside the table, from the keyboard
        assert _slider_says(p, "position p") == str(pos) and _slider_says(p, "offset k") == "2"
        text = p.locator(".clv-readout").text_content()
        assert text.startswith(f"PE({pos}) · PE({pos + 2}) = ")
        readouts.add(text.split(" = ")[1])
        p.keyboard.press("ArrowRight")
    assert readouts == {"6.368: the same for every p at offset k"}
    k = p.get_by_label("offset k", exact=True)
    k.focus()
    k.press("Home")  # p = 30 now: the offsets run -30 .. 1
    assert _slider_says(p, "offset k") == "-30"
    k.fill("0")
    k.dispatch_event("input")
    assert "PE(30) · PE(30) = 8.000" in p.locator(".clv-readout").text_content()  # d / 2
    assert view.errors == [] and view.network() == []


def test_positions_view_dials_follow_the_chapters_figure(browser, tmp_path):
    view = _positions_page(browser, tmp_path, width=360, position=0, offset=1)
    p = view.page
    dials = p.locator("svg.clv-dial")
    assert dials.count() == 8
    for i in range(8):  # p = 0: every hand of p points to 3 o'clock (cos 0, sin 0)
        hand = dials.nth(i).locator("line.clv-hand-p")
        x1, y1, x2, y2 = (float(hand.get_attribute(a)) for a in ("x1", "y1", "x2", "y2"))
        assert x2 > x1 and y2 == y1 and hand.get_attribute("stroke") == "#1f77b4"
    green = dials.nth(0).locator("line.clv-hand-q")  # p + k = 1: 1 radian anticlockwise
    x1, y1, x2, y2 = (float(green.get_attribute(a)) for a in ("x1", "y1", "x2", "y2"))
    assert green.get_attribute("stroke") == "#2a8a2a"
    assert x2 - x1 == pytest.approx(26 * np.cos(1), abs=0.05)
    assert y1 - y2 == pytest.approx(26 * np.sin(1), abs=0.05)  # up on the screen
    assert "ω = 1" in dials.nth(0).text_content() and "ω = 0.32" in dials.nth(1).text_content()
    legend = p.locator(".clv-dials .clv-legend").text_content()
    assert "hand of p = 0" in legend and "hand of p + k = 1" in legend
    # At a phone's width the dials wrap into rows; their text is not shrunk below 11 px.
    sizes = p.evaluate(
        """() => Array.from(document.querySelectorAll('svg.clv-dial text')).map(t =>
             t.getBoundingClientRect().height)"""
    )
    font = p.evaluate(
        "parseFloat(getComputedStyle(document.querySelector('svg.clv-dial text')).fontSize)"
    )
    scale = p.evaluate("document.querySelector('svg.clv-dial').getBoundingClientRect().width")
    assert font >= 11 and scale == pytest.approx(78) and min(sizes) > 10
    tops = {round(dials.nth(i).bounding_box()["y"]) for i in range(8)}
    assert len(tops) >= 2
    assert p.evaluate("document.documentElement.scrollWidth") <= 360
    assert view.errors == []


def test_positions_view_offset_range_follows_p(browser, tmp_path):
    view = _positions_page(browser, tmp_path, position=3, offset=2)
    p = view.page
    k = p.get_by_label("offset k", exact=True)
    assert (k.get_attribute("min"), k.get_attribute("max")) == ("-3", "28")
    ticks = p.locator(f"datalist#{k.get_attribute('list')} option")
    assert ticks.count() == 1 and ticks.get_attribute("value") == "0"  # a mark at k = 0
    pos = p.get_by_label("position p", exact=True)
    pos.fill("10")
    pos.dispatch_event("input")
    assert (k.get_attribute("min"), k.get_attribute("max")) == ("-10", "21")
    assert _slider_says(p, "offset k") == "2"
    k.fill("21")
    k.dispatch_event("input")
    pos.fill("20")  # p + 21 would leave the table: k shows the largest offset left
    pos.dispatch_event("input")
    assert _slider_says(p, "offset k") == "11" and k.get_attribute("max") == "11"
    assert "PE(20) · PE(31)" in p.locator(".clv-readout").text_content()
    pos.fill("10")  # and the k asked for comes back
    pos.dispatch_event("input")
    assert _slider_says(p, "offset k") == "21"
    assert view.errors == []


def _chapter7_like_scores(L=12):
    g = torch.Generator().manual_seed(0)
    q, k = torch.randn(2, 8, generator=g)
    from course_lib.positional import sinusoidal_encoding
    from course_lib.rotary import apply_rotary

    rotary = apply_rotary(q.expand(L, 8)) @ apply_rotary(k.expand(L, 8)).T
    table = sinusoidal_encoding(L, 8)
    return {"rotary": rotary, "added": (q + table) @ (k + table).T}


def test_offset_view_faint_curves_hover_and_offset_slider(browser, tmp_path):
    from course_lib.views import offset_view

    L, scores = 12, _chapter7_like_scores(12)
    path = offset_view(scores, position=3).save(tmp_path / "o.html")
    view = Page(browser, path.as_uri())
    p = view.page
    assert p.locator("polyline.clv-faint").count() == 2 * L
    assert p.locator("line.clv-zero").count() == 1  # the y = 0 line, with tick labels
    k = p.get_by_label("offset n - m", exact=True)
    assert (k.get_attribute("min"), k.get_attribute("max")) == ("-3", "8")
    k.focus()
    for _ in range(5):
        p.keyboard.press("ArrowRight")
    assert _slider_says(p, "offset n - m") == "5"
    expected = [
        f"{np.rint(s.numpy()[3, 8].astype(np.float64) * 1000) / 1000:.2f}" for s in scores.values()
    ]
    text = p.locator(".clv-readout").text_content()
    assert (
        text == f"m = 3, score at offset 5: rotary {expected[0]} · added {expected[1]} (key n = 8)"
    )
    # The pointer reads the offset under it (the plot's x axis: 44 .. width - 10 px).
    plot = p.locator("svg.clv-plot")
    box, width = plot.bounding_box(), float(plot.get_attribute("width"))
    x = 44 + (-2 + L - 1) / (2 * L - 2) * (width - 54)
    p.mouse.move(box["x"] + x * box["width"] / width, box["y"] + 60)
    assert "m = 3, score at offset -2: " in p.locator(".clv-readout").text_content()
    assert _slider_says(p, "offset n - m") == "-2"
    guide = float(p.locator("line.clv-guide").get_attribute("x1"))
    assert guide == pytest.approx(x, abs=0.01)
    # Another m: the offsets follow it, and the legend reads in the page's own colour.
    m = p.get_by_label("query position m", exact=True)
    m.fill("10")
    m.dispatch_event("input")
    assert (k.get_attribute("min"), k.get_attribute("max")) == ("-10", "1")
    colours = p.evaluate(
        """() => [getComputedStyle(document.querySelector('.clv-legend span span')).color,
                  getComputedStyle(document.body).color]"""
    )
    assert colours[0] == colours[1]
    assert view.errors == [] and view.network() == []


def test_positions_and_offset_pictures_show_without_javascript(browser, tmp_path):
    from course_lib.positional import sinusoidal_encoding
    from course_lib.views import offset_view, positions_view

    views = {
        "pos": positions_view(sinusoidal_encoding(32, 16)),
        "off": offset_view(_chapter7_like_scores()),
    }
    for name, made in views.items():
        path = made.save(tmp_path / f"{name}.html")
        for scripts in (False, True):
            context = browser.new_context(java_script_enabled=scripts)
            page = context.new_page()
            page.goto(path.as_uri())
            picture = page.locator(".clv-fallback img.clv-picture")
            assert picture.count() == 1
            assert picture.is_visible() is not scripts, (name, scripts)
            if not scripts:
                assert picture.bounding_box()["width"] > 200
                assert page.locator(".clv-fallback figcaption").is_visible()
            context.close()
