"""The container every interactive view returns: one self-contained HTML fragment.

A view is a ``<div>`` holding its style, its data (JSON in a ``<script type="application/
json">``) and its plain JavaScript, all inline: no CDN, no network request, no RequireJS, no
ipywidgets, no kernel after execution. Jupyter, JupyterLab, Colab and myst-nb show it through
``_repr_html_`` (the ``text/html`` output); :meth:`HtmlView.save` writes a page that opens
from disk.

Where scripts do not run (a notebook not yet trusted in JupyterLab or Notebook 7, GitHub, a
sanitized export, a browser without JavaScript) the fragment shows a picture instead: the
view's first state drawn as inline SVG by the view's own module, with a caption that says
where the interactive version is. The script hides the picture when it starts.

The fragment is deterministic: the same data give the same bytes. Its id is a hash of the
kind and the data (no random ids, no counters), and the JavaScript finds its root by that
id, so two identical views on one page each come to life.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from course_lib._foreign_names import explains_bad_calls, explains_class
from course_lib._validate_basics import warn_user

__all__ = ["HtmlView", "build_view", "book_page", "BUDGET_BYTES", "BOOK_ADDRESS"]

#: The size a view should stay under (the issue's budget): 150 KB.
BUDGET_BYTES = 150_000

#: Where the book is published, written without its scheme: a view names it as text (a view
#: holds no URL; ``tools/release.py`` checks it follows the repository in ``_config.yml``).
BOOK_ADDRESS = "attention-step-by-step.github.io/course/"


@explains_bad_calls()
def book_page(name: str) -> str:
    """The address of a chapter's page on the book's site, for a view's ``link``:
    ``book_page("05_translation")`` -> ``"attention-step-by-step.github.io/course/chapters/
    05_translation.html"``."""
    return f"{BOOK_ADDRESS}chapters/{name}.html"


@explains_class
@dataclass(frozen=True)
class HtmlView:
    """One interactive view: ``html`` is the fragment, shown by Jupyter and the book.

    ``kind`` names the view (``"attention"``, ``"masks"``); ``label`` is its title;
    ``nbytes`` is the fragment's size in bytes (UTF-8).
    """

    kind: str
    html: str
    label: str = ""
    link: str | None = None

    def _repr_html_(self) -> str:
        return self.html

    def _repr_pretty_(self, printer, cycle: bool) -> None:
        # What a terminal, a LaTeX/PDF export and other places without HTML show.
        where = f"the book's page, {self.link}" if self.link else "an HTML page"
        printer.text(f"{self.label or self.kind}: an interactive view ({where})")

    def __repr__(self) -> str:
        return f"HtmlView({self.kind!r}, {self.nbytes:,} bytes)"

    @property
    def nbytes(self) -> int:
        return len(self.html.encode("utf-8"))

    def page(self, title: str = "course_lib view") -> str:
        """A whole HTML page around the fragment, to open from disk."""
        return (
            '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{html.escape(title)}</title>\n</head>\n<body>\n{self.html}\n</body>\n"
            "</html>\n"
        )

    def save(self, path: str | Path, title: str = "course_lib view") -> Path:
        """Write :meth:`page` to ``path`` (a ``.html`` file) and return the path."""
        path = Path(path)
        if path.suffix.lower() not in (".html", ".htm"):
            raise ValueError(f"path must end in .html to open in a browser, got {str(path)!r}")
        path.write_text(self.page(title), encoding="utf-8")
        return path


def check_budget(view: HtmlView, what: str, advice: str) -> HtmlView:
    """``view``, with a warning when it is over :data:`BUDGET_BYTES` (``what``: "this
    attention view"; ``advice``: how to make it smaller)."""
    if view.nbytes > BUDGET_BYTES:
        warn_user(
            f"{what} is {view.nbytes:,} bytes, over the {BUDGET_BYTES:,} a page should carry "
            f"per view: {advice}",
            UserWarning,
        )
    return view


def _asset(name: str) -> str:
    return resources.files("course_lib.views").joinpath(name).read_text(encoding="utf-8")


def _json(data: object) -> str:
    """Compact, key-sorted JSON that is safe inside ``<script>`` (no ``</``)."""
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return text.replace("</", "<\\/")


def fallback_caption(label: str, link: str | None) -> str:
    """The line under a view's picture: what it is and where the interactive view runs."""
    page = f"on the book's page, {link}," if link else "on the book's pages,"
    return (
        f"{label}: a picture of the interactive view's first state. The view runs {page} "
        "and in Jupyter once this notebook is trusted (command palette: Trust Notebook; or "
        "jupyter trust NOTEBOOK.ipynb, then reopen it)."
    )


def picture_img(svg: str, label: str) -> str:
    """``svg`` (a standalone SVG document) as an ``<img>`` whose source is the data itself:
    sanitizers that drop inline ``<svg>`` (JupyterLab's, for a notebook not yet trusted) keep
    it, and it makes no request."""
    size = re.search(r'width="([0-9.]+)" height="([0-9.]+)"', svg)
    data = base64.b64encode(svg.encode("utf-8")).decode("ascii")
    return (
        f'<img class="clv-picture" alt="{html.escape(label)}" width="{size[1]}" '
        f'height="{size[2]}" style="max-width:100%;height:auto" '
        f'src="data:image/svg+xml;base64,{data}">'
    )


def build_view(
    kind: str, data: dict, script: str, label: str, *, picture: str = "", link: str | None = None
) -> HtmlView:
    """The fragment of a view of ``kind``: ``data`` as JSON, the shared runtime and style,
    and ``script`` (the view's own JavaScript file in this package). ``label`` is read out
    by screen readers; ``picture`` (an ``<svg>`` of the view's first state) and its caption
    are shown where JavaScript does not run, ``link`` (:func:`book_page`) named in it."""
    payload = _json(data)
    digest = hashlib.sha256(f"{kind}\n{payload}\n{script}".encode()).hexdigest()[:12]
    view_id = f"clv-{digest}"
    runtime, style, own = _asset("runtime.js"), _asset("view.css"), _asset(script)
    text = (
        f'<div class="clv clv-{kind}" id="{view_id}" role="group" '
        f'aria-label="{html.escape(label)}">\n'
        f"<style>{style}</style>\n"
        f'<figure class="clv-fallback" style="margin:0.3em 0">{picture_img(picture, label) if picture else ""}\n'
        f"<figcaption>{html.escape(fallback_caption(label, link))}</figcaption></figure>\n"
        f'<script type="application/json" class="clv-data">{payload}</script>\n'
        f'<script>(function(){{\n"use strict";\nvar ROOT_ID = "{view_id}";\n'
        f"{runtime}\n{own}\n}})();</script>\n</div>"
    )
    return HtmlView(kind, text, label, link)
