"""Interactive views of the book's own models: self-contained HTML that works offline.

Each function returns an :class:`HtmlView`, one HTML fragment with its data, SVG and plain
JavaScript inline (no CDN, no network, no widgets, no kernel after execution), shown by the
book's pages, Jupyter, JupyterLab and Colab, and saved to a page that opens from disk.
"""

from course_lib.views._html import BUDGET_BYTES, HtmlView, book_page
from course_lib.views.attention import attention_view, encoder_decoder_view
from course_lib.views.masks import mask_view
from course_lib.views.positions import offset_view, positions_view
from course_lib.views.scores import score_view
from course_lib.views.trajectory import trajectory_view

__all__ = [
    "HtmlView",
    "BUDGET_BYTES",
    "book_page",
    "attention_view",
    "encoder_decoder_view",
    "mask_view",
    "positions_view",
    "offset_view",
    "score_view",
    "trajectory_view",
]
