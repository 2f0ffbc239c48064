"""The container every interactive view returns: one self-contained HTML fragment.

A view is a ``<div>`` holding its style, its data (JSON in a ``<script type="application/
json">``) and its plain JavaScript, all inline: no CDN, no network request, no RequireJS, no
ipywidgets, no kernel after execution. Jupyter, JupyterLab, Colab and myst-nb show it through
``_repr_html_`` (the ``text/html`` output); :meth:`HtmlView.save` writes a page that opens
from disk.

The fragment is deterministic: the same data give the same bytes. Its id is a hash of the
kind and the data (no random ids, no counters), and the JavaScript finds its root by that
id, so two identical views on one page each come to life.
"""

from __future__ import annotations

import hashlib
import html
import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from course_lib._foreign_names import explains_class

__all__ = ["HtmlView", "build_view", "BUDGET_BYTES"]

#: The size a view should stay under (the issue's budget): 150 KB.
BUDGET_BYTES = 150_000


@explains_class
@dataclass(frozen=True)
class HtmlView:
    """One interactive view: ``html`` is the fragment, shown by Jupyter and the book.

    ``kind`` names the view (``"attention"``, ``"masks"``); ``nbytes`` is the fragment's
    size in bytes (UTF-8).
    """

    kind: str
    html: str

    def _repr_html_(self) -> str:
        return self.html

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


def _asset(name: str) -> str:
    return resources.files("course_lib.views").joinpath(name).read_text(encoding="utf-8")


def _json(data: object) -> str:
    """Compact, key-sorted JSON that is safe inside ``<script>`` (no ``</``)."""
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return text.replace("</", "<\\/")


def build_view(kind: str, data: dict, script: str, label: str) -> HtmlView:
    """The fragment of a view of ``kind``: ``data`` as JSON, the shared runtime and style,
    and ``script`` (the view's own JavaScript file in this package). ``label`` is read out
    by screen readers and shown where JavaScript does not run."""
    payload = _json(data)
    digest = hashlib.sha256(f"{kind}\n{payload}\n{script}".encode()).hexdigest()[:12]
    view_id = f"clv-{digest}"
    runtime, style, own = _asset("runtime.js"), _asset("view.css"), _asset(script)
    text = (
        f'<div class="clv clv-{kind}" id="{view_id}" role="group" '
        f'aria-label="{html.escape(label)}">\n'
        f"<style>{style}</style>\n"
        f'<p class="clv-fallback">{html.escape(label)}: an interactive view. It needs '
        "JavaScript: in JupyterLab, trust the notebook (or run the cell); on the book's "
        "pages it runs as it is.</p>\n"
        f'<script type="application/json" class="clv-data">{payload}</script>\n'
        f'<script>(function(){{\n"use strict";\nvar ROOT_ID = "{view_id}";\n'
        f"{runtime}\n{own}\n}})();</script>\n</div>"
    )
    return HtmlView(kind, text)
