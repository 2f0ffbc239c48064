"""The score view in a real browser: headless Chromium (Debian's ``chromium``) driven by
Playwright's Python package pointed at that executable (no browser is downloaded).

It boots without a network request; focusing each query shows the embedded numbers rounded;
the arrow keys move between the queries, which are one tab stop; a blocked key reads
"blocked"; with JavaScript off the picture shows; at 360 px nothing overflows.

Skipped, with the reason, where Chromium or Playwright is missing; ``COURSE_REQUIRE_BROWSER=1``
(CI sets it) turns that skip into a failure.
"""

from __future__ import annotations

import pytest
import torch

from course_lib.views import book_page, score_view
from course_lib.views.scores import shown
from test_views_scores import data_of, example


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    q, k, mask = example()
    view = score_view(q, k, mask=mask, link=book_page("02b_scoring_functions"))
    path = view.save(tmp_path_factory.mktemp("scores") / "scores.html")
    return path, data_of(view)


def _open(browser, path, width=1000, **context):
    ctx = browser.new_context(viewport={"width": width, "height": 900}, **context)
    page = ctx.new_page()
    requests, errors = [], []
    page.on("request", lambda r: requests.append(r.url))
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(path.as_uri())
    return page, requests, errors


def _cells(page, step: str) -> list[str]:
    cells = page.locator(f'tr[data-step="{step}"] td')
    return [cells.nth(i).inner_text().strip() for i in range(cells.count())]


def test_each_query_shows_the_embedded_numbers_offline(browser, saved):
    path, data = saved
    page, requests, errors = _open(browser, path)
    assert page.locator(".clv").get_attribute("data-clv-ready") == "1"
    assert not page.locator(".clv-fallback").is_visible()
    for t in range(len(data["queries"])):
        page.locator(f'.clv-token[data-q="{t}"]').focus()
        assert page.locator(f'.clv-token[data-q="{t}"]').get_attribute("aria-checked") == "true"
        blocked = [c == "1" for c in data["blocked"][t]]
        assert _cells(page, "dot") == [shown(v, 4) for v in data["dots"][t]]
        assert _cells(page, "score") == [shown(v, 4) for v in data["scores"][t]]
        assert _cells(page, "masked") == [
            "\u2212\u221e" if b else shown(v, 4)
            for b, v in zip(blocked, data["scores"][t], strict=True)
        ]
        assert _cells(page, "weight") == [
            "blocked" if b else shown(w, 4)
            for b, w in zip(blocked, data["weights"][t], strict=True)
        ]
        vectors = _cells(page, "vectors")  # q, then every key: d numbers each
        assert vectors[0].split() == [shown(v, 3) for v in data["q"][t]]
        assert vectors[1].split() == [shown(v, 3) for v in data["k"][0]]
        readout = page.locator(".clv-readout").text_content()
        assert readout.startswith(data["queries"][t]) and "k3 blocked" in readout
        assert "0.0000" not in " ".join(_cells(page, "weight"))
    assert errors == []
    assert requests == [path.as_uri()], "the view must not touch the network"


def test_arrows_move_between_queries_with_one_tab_stop(browser, saved):
    path, data = saved
    page, _, errors = _open(browser, path)
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.getAttribute('data-q')") == "0"
    assert page.locator('.clv-token[tabindex="0"]').count() == 1
    page.keyboard.press("ArrowRight")
    assert page.evaluate("document.activeElement.getAttribute('data-q')") == "1"
    assert _cells(page, "weight")[0] == shown(data["weights"][1][0], 4)
    page.keyboard.press("End")
    assert page.evaluate("document.activeElement.getAttribute('data-q')") == "2"
    page.keyboard.press("ArrowDown")  # the last one stays
    assert page.evaluate("document.activeElement.getAttribute('data-q')") == "2"
    page.keyboard.press("ArrowLeft")
    assert page.locator('.clv-token[data-q="1"]').get_attribute("aria-checked") == "true"
    assert page.locator('.clv-token[tabindex="0"]').get_attribute("data-q") == "1"
    page.keyboard.press("Tab")  # out of the queries: one tab stop for all three
    assert page.evaluate("document.activeElement.getAttribute('data-q')") is None
    page.locator('.clv-token[data-q="0"]').hover()
    assert _cells(page, "dot") == [shown(v, 4) for v in data["dots"][0]]
    blocked = page.locator('tr[data-step="weight"] td[data-blocked="1"]')
    assert blocked.count() == 2 and blocked.first.inner_text().strip() == "blocked"
    assert errors == []


def test_the_picture_shows_without_javascript(browser, saved):
    path, data = saved
    page, requests, _ = _open(browser, path, java_script_enabled=False)
    picture = page.locator(".clv-fallback img.clv-picture")
    assert page.locator(".clv-fallback").is_visible() and picture.is_visible()
    assert picture.evaluate("img => img.complete && img.naturalWidth > 150")  # drawn
    src = picture.get_attribute("src").split(",", 1)[1]
    text = __import__("base64").b64decode(src).decode("utf-8")
    assert "blocked" in text and shown(data["weights"][0][0], 4) in text
    assert "02b_scoring_functions.html" in page.locator(".clv-fallback figcaption").inner_text()
    assert requests == [path.as_uri()]


def test_no_overflow_at_a_phones_width(browser, saved):
    path, _ = saved
    page, _, _ = _open(browser, path, width=360)
    page.locator('.clv-token[data-q="1"]').focus()
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    box = page.locator(".clv-table-box")
    assert box.evaluate("b => b.scrollWidth <= b.clientWidth"), "the table scrolls sideways"
    smallest = page.evaluate(
        "Math.min(...Array.from(document.querySelectorAll('.clv-scores td, .clv-scores th'))"
        ".map(e => parseFloat(getComputedStyle(e).fontSize)))"
    )
    assert smallest >= 11


def test_wide_vectors_and_no_mask(browser, tmp_path):
    gen = torch.Generator().manual_seed(0)
    q = torch.randn(3, 32, generator=gen)
    path = score_view(q, q, query_tokens=["a", "b", "c"]).save(tmp_path / "wide.html")
    page, requests, errors = _open(browser, path, width=360)
    page.locator('.clv-token[data-q="2"]').click()
    assert page.locator(".clv-strip").count() == 2 * 3 + 1  # q, 3 keys, 3 products
    assert page.locator('td[data-blocked="1"]').count() == 0
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    assert errors == [] and requests == [path.as_uri()]
