"""The trajectory view in a real browser: headless Chromium (Debian's ``chromium``) driven by
Playwright's Python package pointed at that executable (no browser is downloaded).

A bare page saved from disk: the view boots without a network request, focusing a fix reads
its weight as embedded, the pickers change trajectory, point, layer and head, the picture
shows where JavaScript is off, and a phone's width does not scroll the page sideways.

Skipped, with the reason, where Chromium or Playwright is missing; ``COURSE_REQUIRE_BROWSER=1``
(CI sets it) turns that skip into a failure.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from course_lib.views import book_page, trajectory_view
from test_views_trajectory import NH, S, tracks


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """The view of three trajectories saved as a page, and its weights (N, L, Nh, T, S)."""
    observed, future, predicted, weights = tracks()
    view = trajectory_view(
        observed,
        future,
        predicted,
        weights,
        labels=["first", "second", "third"],
        captions=["caption one", "caption two", "caption three"],
        link=book_page("06_gps_trajectories"),
    )
    path = view.save(tmp_path_factory.mktemp("trajectory") / "t.html")
    return path, torch.stack(weights, dim=1).numpy()


def _open(browser, url: str, width: int = 1000, **context):
    ctx = browser.new_context(viewport={"width": width, "height": 900}, **context)
    page = ctx.new_page()
    requests, errors = [], []
    page.on("request", lambda r: requests.append(r.url))
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url)
    return page, requests, errors


def _expected(w: np.ndarray, item: int, layer: int, head: int | None, step: int) -> list[str]:
    q = np.rint(w[item].astype(np.float64) * 100)  # what the view embeds, (L, Nh, T, S)
    row = q[layer, :, step].mean(axis=0) if head is None else q[layer, head, step]
    return [f"{v / 100:.2f}" for v in row]


def _shown(page) -> list[str]:
    fixes = page.locator(".clv-map .clv-fix")
    return [fixes.nth(s).get_attribute("data-w") for s in range(fixes.count())]


def test_the_view_boots_offline_and_focusing_a_fix_reads_its_weight(browser, saved):
    path, w = saved
    page, requests, errors = _open(browser, path.as_uri())
    assert page.locator(".clv").get_attribute("data-clv-ready") == "1"
    assert not page.locator(".clv-fallback").is_visible()
    assert page.locator(".clv-map .clv-fix").count() == S
    expected = _expected(w, 0, 0, None, 0)  # trajectory 1, layer 1, mean of heads, point 1
    assert _shown(page) == expected
    # One tab stop for the fixes (roving tabindex): the last fix, the one models start from.
    stops = page.locator('.clv-map .clv-fix[tabindex="0"]')
    assert stops.count() == 1 and stops.get_attribute("data-s") == str(S - 1)

    page.locator('.clv-map .clv-fix[data-s="2"]').focus()  # as by Tab and the arrows
    readout = page.locator(".clv-readout").text_content()
    assert readout.startswith("fix 3 of 5") and f"weight {expected[2]} " in readout
    page.keyboard.press("ArrowLeft")  # the fix before, still from the keyboard
    assert page.evaluate("document.activeElement.getAttribute('data-s')") == "1"
    assert f"weight {expected[1]} " in page.locator(".clv-readout").text_content()
    assert page.locator('.clv-map .clv-fix[tabindex="0"]').get_attribute("data-s") == "1"
    page.keyboard.press("End")
    assert page.evaluate("document.activeElement.getAttribute('data-s')") == str(S - 1)

    page.locator('.clv-map .clv-fix[data-s="0"]').hover()
    assert page.locator(".clv-readout").text_content().startswith("fix 1 of 5")
    links = page.locator(".clv-map line.clv-link")
    assert [links.nth(s).get_attribute("data-w") for s in range(S)] == expected

    assert errors == []
    assert [u for u in requests if not u.startswith(("file:", "data:", "about:"))] == []
    assert requests == [path.as_uri()]  # not even a local file besides the page
    page.context.close()


def test_the_pickers_change_trajectory_point_layer_and_head(browser, saved):
    path, w = saved
    page, _, errors = _open(browser, path.as_uri())
    first = page.locator(".clv-map .clv-fix").first.get_attribute("aria-label")
    page.get_by_label("Trajectory", exact=True).select_option(label="second")
    assert page.locator(".clv-caption").text_content() == "caption two"
    assert _shown(page) == _expected(w, 1, 0, None, 0)
    assert page.locator(".clv-map .clv-fix").first.get_attribute("aria-label") != first
    page.get_by_label("Predicted point", exact=True).select_option(label="predicted point 3")
    assert _shown(page) == _expected(w, 1, 0, None, 2)
    page.get_by_label("Layer", exact=True).select_option(label="layer 2")
    assert _shown(page) == _expected(w, 1, 1, None, 2)
    page.get_by_label("Head", exact=True).select_option(label=f"head {NH}")
    assert _shown(page) == _expected(w, 1, 1, NH - 1, 2)
    page.locator('.clv-map .clv-fix[data-s="3"]').focus()
    readout = page.locator(".clv-readout").text_content()
    assert f"weight {_expected(w, 1, 1, NH - 1, 2)[3]} from predicted point 3" in readout
    assert errors == []
    page.context.close()


def test_the_picture_shows_where_javascript_is_off(browser, saved):
    path, _ = saved
    page, _, _ = _open(browser, path.as_uri(), java_script_enabled=False)
    assert page.locator(".clv-fallback").is_visible()
    assert page.locator(".clv-fallback img.clv-picture").is_visible()
    caption = page.locator(".clv-fallback figcaption").text_content()
    assert "06_gps_trajectories.html" in caption
    assert page.locator(".clv-map").count() == 0
    page.context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_no_overflow_at_a_phones_width(browser, saved, scheme):
    path, _ = saved
    page, _, errors = _open(browser, path.as_uri(), width=360, color_scheme=scheme)
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    box = page.locator(".clv-map").bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 360
    assert errors == []
    page.context.close()
