"""Draw the book's schematic figures as SVG files, deterministically.

    python tools/draw_schematics.py            write chapters/figures/<name>.svg and refresh
                                               the copies embedded in the chapters
    python tools/draw_schematics.py --check    exit 1 and name the stale files or cells
    python tools/draw_schematics.py --png DIR  also write PNG previews into DIR (for authors)

Nine diagrams, one function each (``encoder_decoder``, ``attention_context``, ``multi_head``,
``transformer_encoder_decoder``, ``three_attentions``, ``attention_decoders``,
``scoring_functions``, ``transformer_families``, ``sinusoidal_positions``), drawn with
matplotlib alone: boxes are ``FancyBboxPatch``, arrows ``FancyArrowPatch``, formulas mathtext. ``SCHEMATICS`` maps each name (the SVG's file stem)
to its alt text, one sentence for screen readers.

The output is byte-identical from run to run, so that ``--check`` and the tests can compare
the committed files with what the script draws now: the SVG ids come from a fixed hash salt
(``svg.hashsalt``), text is written as paths (``svg.fonttype = "path"``, no font needed to
view them) in the DejaVu fonts that ship with matplotlib, and the date and the creator's
version are left out of the metadata. Every setting is applied with ``rc_context`` on top
of matplotlib's defaults, and figures are ``Figure`` objects, not pyplot ones, so neither a
user's matplotlibrc nor a notebook's backend changes the bytes. A different *matplotlib
version* may (the book pins one in requirements.txt): if ``--check`` fails right after an
upgrade, re-run the script and commit the new files. (``main`` also selects the Agg backend.)

Style, for the book's light and dark themes alike: a white background with a thin grey
rounded border, dark text (#222), 11-15 pt type, and one palette throughout -- source and
encoder blue, target and decoder green, predictions red, attention and weights orange,
everything else light grey.

``markdown_image(name, alt)`` returns an ``<img>`` tag with the SVG inline as a ``data:`` URI:
as the whole source of a notebook's markdown cell it renders the same on Jupyter, Colab and
Sphinx (myst-nb), with no file to ship next to the notebook.
"""

from __future__ import annotations

import argparse
import base64
import html
import io
import math
import sys
from dataclasses import dataclass
from pathlib import Path

import matplotlib
import matplotlib.style
from matplotlib.colors import to_rgb
from matplotlib.figure import Figure
from matplotlib.patches import Circle, FancyArrowPatch, FancyBboxPatch, Rectangle, Wedge
from matplotlib.path import Path as MplPath

ROOT = Path(__file__).resolve().parents[1]
FIGURES_DIR = ROOT / "chapters" / "figures"

SCHEMATICS: dict[str, str] = {
    "encoder_decoder": (
        "An encoder GRU reads the source points x0 and x1 and hands its final hidden state "
        "h_f to a decoder GRU, which reads x1 and predicts x2-hat through a linear layer, "
        "then reads its own prediction (or the true x2 with teacher forcing) to predict x3-hat."
    ),
    "attention_context": (
        "A query q is scored against the keys k0, k1 and k2, a softmax turns the scores into "
        "weights alpha0 to alpha2 that sum to 1, and the weighted sum of the values v0 to v2 "
        "is the context vector c."
    ),
    "multi_head": (
        "Multi-head attention projects Q, K and V with linear layers, splits them into Nh "
        "heads of width Dh = D / Nh that run scaled dot-product attention in parallel, "
        "concatenates the heads and applies an output projection, returning the output "
        "(B, T, D) and the weights (B, Nh, T, S)."
    ),
    "transformer_encoder_decoder": (
        "An encoder layer (self-attention and feed-forward, each followed by add and norm) "
        "turns the source points plus positional encoding into a memory, which a decoder "
        "layer over the shifted target reads through cross-attention between its masked "
        "self-attention and its feed-forward sublayer, with residual connections around "
        "every sublayer and a linear layer predicting x2-hat and x3-hat."
    ),
    "three_attentions": (
        "Three query-by-key grids: in encoder self-attention every source position sees "
        "every source position but the padding key, in decoder self-attention a causal mask "
        "blocks every cell above the diagonal, and in cross-attention three target queries "
        "see every source key but the padding."
    ),
    "attention_decoders": (
        "Two ways to attend in one GRU decoder step: on the left, the lecture's decoder, the "
        "GRU reads x_t and the previous state s_(t-1) first, its new state s_t is the query "
        "that attends over the encoder states h0 and h1, and a linear layer turns the "
        "concatenation of the context c_t and s_t into the prediction x_(t+1)-hat, while on "
        "the right, Bahdanau's decoder, the previous state s_(t-1) is the query of an additive "
        "attention over the encoder states, the context c_t is concatenated with the input "
        "x_t before the GRU, and a linear layer turns the new state s_t into x_(t+1)-hat, "
        "with s_t going on to the next step in both."
    ),
    "scoring_functions": (
        "Side by side, scaled dot-product attention multiplies Q (B, T, E) by K (B, S, E) "
        "transposed and scales by 1/sqrt(E), while additive attention projects q (B, T, Eq) "
        "and k (B, S, Ek) with W_q and W_k, adds them by broadcasting to (B, T, S, h) and "
        "applies tanh and w_v; both give scores (B, T, S) that an optional mask (True = "
        "blocked) sets to minus infinity, a softmax over the S keys turns into weights alpha "
        "(B, T, S), and the weighted sum of the values V (B, S, Ev) is the context (B, T, Ev)."
    ),
    "transformer_families": (
        "Four query-by-key grids over the tokens il, dort, <sos>, he: an encoder-only model "
        "lets every token see every token; an encoder-decoder lets the French tokens see "
        "each other and the English tokens see all the French and the English so far, in "
        "two stacks joined by cross-attention; a decoder-only model with a causal mask lets "
        "every token see itself and the tokens before it, in one stack; and a decoder-only "
        "model with a prefix mask gives the encoder-decoder's pattern in one stack."
    ),
    "sinusoidal_positions": (
        "Four dials, one per pair of dimensions of an 8-wide sinusoidal encoding, turning at "
        "1, 0.1, 0.01 and 0.001 radian per position, each with a hand for position p = 2 and "
        "one for position p + k = 5, which the fast dial has turned by 3 radians and the "
        "slowest by hardly anything; below, PE(p + k) = M_k PE(p), where M_k is block "
        "diagonal with one 2-by-2 rotation block per dial, rows cos k omega_i, sin k omega_i "
        "and minus sin k omega_i, cos k omega_i, acting on the interleaved sine and cosine "
        "of each dial."
    ),
}

INK, GREY_EDGE, GREY_FILL, BORDER = "#222222", "#555555", "#f0f0f0", "#d0d0d0"
BLUE, GREEN, RED, ORANGE = "#1f77b4", "#2ca02c", "#d62728", "#ff7f0e"
FONT, SMALL, TITLE = 12, 11, 15
RC = {
    "svg.hashsalt": "attention-step-by-step",
    "svg.fonttype": "path",
    "text.color": INK,
    "font.family": "DejaVu Sans",
    "mathtext.fontset": "dejavusans",
    "hatch.linewidth": 0.8,
}


# ---------------------------------------------------------------- helpers (1 unit = 1 inch)
@dataclass
class Box:
    x: float
    y: float
    w: float
    h: float

    def left(self, dy=0.0):
        return (self.x - self.w / 2, self.y + dy)

    def right(self, dy=0.0):
        return (self.x + self.w / 2, self.y + dy)

    def top(self, dx=0.0):
        return (self.x + dx, self.y + self.h / 2)

    def bottom(self, dx=0.0):
        return (self.x + dx, self.y - self.h / 2)


def _tint(color, amount=0.14):
    return tuple(1 - amount * (1 - c) for c in to_rgb(color))


def _canvas(width, height, title):
    """A white figure with a rounded border, a title, and axes measured in inches."""
    fig = Figure(figsize=(width, height), facecolor="white")
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, width)
    ax.set_ylim(0, height)
    ax.set_axis_off()
    ax.add_patch(
        FancyBboxPatch(
            (0.05, 0.05),
            width - 0.1,
            height - 0.1,
            lw=1,
            ec=BORDER,
            fc="none",
            boxstyle="round,pad=0,rounding_size=0.12",
        )
    )
    _text(ax, width / 2, height - 0.32, title, TITLE, weight="bold")
    return fig, ax


def _box(ax, x, y, w, h, text="", color=GREY_EDGE, size=FONT, lw=1.5, **kw):
    """A rounded box centred on (x, y): tinted fill of ``color``, grey when neutral."""
    fill = GREY_FILL if color == GREY_EDGE else _tint(color)
    ax.add_patch(
        FancyBboxPatch(
            (x - w / 2, y - h / 2),
            w,
            h,
            fc=fill,
            ec=color,
            lw=lw,
            boxstyle="round,pad=0,rounding_size=0.07",
        )
    )
    _text(ax, x, y, text, size, **kw)
    return Box(x, y, w, h)


def _pill(ax, x, y, text, color, w=0.62, h=0.4, size=FONT):
    """A small box holding one variable: an input, an output, a tensor."""
    return _box(ax, x, y, w, h, text, color=color, size=size, lw=1.3)


def _arrow(ax, *points, color=INK, lw=1.4, ls="-", head=True):
    """An arrow along the polyline through ``points``; a plain line when not ``head``."""
    ax.add_patch(
        FancyArrowPatch(
            path=MplPath(points),
            arrowstyle="-|>" if head else "-",
            mutation_scale=12,
            color=color,
            lw=lw,
            ls=ls,
        )
    )


def _text(ax, x, y, text, size=FONT, **kw):
    ax.text(x, y, text, fontsize=size, linespacing=1.3, **{"ha": "center", "va": "center", **kw})


# ---------------------------------------------------------------- the nine diagrams
def encoder_decoder() -> Figure:
    fig, ax = _canvas(10, 4.9, "An encoder\N{EN DASH}decoder, unrolled")
    y_in, y_gru, y_lin, y_out = 1.05, 2.1, 3.1, 3.8
    _text(ax, 2.5, 4.2, "encoder", color=BLUE, weight="bold")
    _text(ax, 7.25, 4.2, "decoder", color=GREEN, weight="bold")
    enc = [_box(ax, x, y_gru, 1.0, 0.7, "GRU", BLUE) for x in (1.6, 3.4)]
    for cell, name in zip(enc, ("$x_0$", "$x_1$"), strict=True):
        _pill(ax, cell.x, y_in, name, BLUE)
        _arrow(ax, (cell.x, y_in + 0.2), cell.bottom(), color=BLUE)
    _arrow(ax, enc[0].right(), enc[1].left(), color=BLUE)
    _text(ax, 2.5, y_gru + 0.2, "$h_0$")
    dec = [_box(ax, x, y_gru, 1.0, 0.7, "GRU", GREEN) for x in (6.1, 8.4)]
    _arrow(ax, enc[1].right(), dec[0].left(), color=BLUE, lw=3.2)
    _text(ax, 4.75, y_gru + 0.27, "$h_1 = h_f$")
    _text(ax, 4.75, y_gru - 0.27, "hand-over", weight="bold", color=BLUE)
    _arrow(ax, dec[0].right(), dec[1].left(), color=GREEN)
    for cell, name in zip(dec, (r"$\hat{x}_2$", r"$\hat{x}_3$"), strict=True):
        lin = _box(ax, cell.x, y_lin, 0.9, 0.42, "Linear", size=SMALL)
        _arrow(ax, cell.top(), lin.bottom(), color=GREEN)
        _pill(ax, cell.x, y_out, name, RED)
        _arrow(ax, lin.top(), (cell.x, y_out - 0.2), color=RED)
    _pill(ax, dec[0].x, y_in, "$x_1$", BLUE)
    _arrow(ax, (dec[0].x, y_in + 0.2), dec[0].bottom(), color=BLUE)
    _pill(ax, dec[1].x, y_in, r"$\hat{x}_2$", RED)
    _arrow(ax, (dec[1].x, y_in + 0.2), dec[1].bottom(), color=RED)
    x_back = (dec[0].x + dec[1].x) / 2
    _arrow(
        ax,
        (dec[0].x + 0.31, y_out),
        (x_back, y_out),
        (x_back, y_in),
        (dec[1].x - 0.31, y_in),
        color=RED,
        ls=(0, (4, 3)),
    )
    _text(
        ax, dec[1].x, 0.45, "own prediction (or the true $x_2$\nwith teacher forcing)", size=SMALL
    )
    return fig


def attention_context() -> Figure:
    fig, ax = _canvas(11, 4.9, "Queries, keys, values \N{RIGHTWARDS ARROW} context")
    rows, up, down, bus = (3.3, 2.25, 1.2), 0.2, -0.2, 1.4
    q = _pill(ax, 0.8, rows[1] + down, "$q$", GREEN)
    _text(ax, 0.8, 0.45, "query: a\ndecoder state", size=SMALL)
    _arrow(ax, q.right(), (bus, q.y), color=GREEN, head=False)
    _arrow(ax, (bus, rows[0] + down), (bus, rows[2] + down), color=GREEN, head=False)
    softmax = _box(ax, 5.2, rows[1], 1.0, rows[0] - rows[2] + 0.8, "softmax")
    total = _box(
        ax,
        8.6,
        rows[1],
        1.5,
        rows[0] - rows[2] + 0.8,
        "weighted\nsum\n\n" + r"$c = \sum_j \alpha_j v_j$",
    )
    for j, y in enumerate(rows):
        key = _pill(ax, 1.95, y + up, f"$k_{j}$", BLUE, w=0.55, h=0.36)
        score = _box(ax, 3.25, y, 1.45, 0.8, rf"score$(q, k_{j})$")
        _arrow(ax, key.right(), score.left(up), color=BLUE)
        _arrow(ax, (bus, y + down), score.left(down), color=GREEN)
        _arrow(ax, score.right(), softmax.left(y - softmax.y))
        _text(ax, 4.32, y + 0.17, f"$s_{j}$")
        _arrow(
            ax, softmax.right(y + up - softmax.y), total.left(y + up - total.y), color=ORANGE, lw=2
        )
        _text(ax, 6.3, y + up + 0.19, rf"$\alpha_{j}$")
        value = _pill(ax, 7.2, y + down, f"$v_{j}$", BLUE, w=0.55, h=0.36)
        _arrow(ax, value.right(), total.left(y + down - total.y), color=BLUE)
    _text(ax, 1.95, 4.1, "keys\n(encoder states)", size=SMALL)
    _text(ax, 7.2, 0.5, "values\n(encoder states)", size=SMALL)
    _text(ax, 4.3, 4.1, "scores\n(before softmax)", size=SMALL)
    _text(ax, 6.75, 4.1, "weights (after softmax),\nsum to 1", size=SMALL, color="#b35300")
    c = _pill(ax, 10.2, rows[1], "$c$", ORANGE, w=0.5)
    _arrow(ax, total.right(), c.left(), color=ORANGE, lw=2)
    _text(ax, c.x, rows[1] - 0.55, "context\nvector", size=SMALL)
    return fig


def multi_head() -> Figure:
    fig, ax = _canvas(11, 4.9, "Multi-head attention")
    rows = (3.45, 2.4, 1.35)
    split = _box(
        ax,
        3.9,
        rows[1],
        1.8,
        2.9,
        "split into\n$N_h$ heads\nof width\n$D_h = D\\,/\\,N_h$\n\n"
        "$Q$: (B, $N_h$, T, $D_h$)\n$K, V$: (B, $N_h$, S, $D_h$)",
        size=SMALL,
    )
    inputs = (("$Q$", "(B, T, D)", GREEN), ("$K$", "(B, S, D)", BLUE), ("$V$", "(B, S, D)", BLUE))
    for (name, shape, color), y in zip(inputs, rows, strict=True):
        x = _box(ax, 0.72, y, 1.05, 0.7, f"{name}\n{shape}", color, size=SMALL)
        lin = _box(ax, 2.2, y, 0.95, 0.6, "Linear")
        _arrow(ax, x.right(), lin.left(), color=color)
        _arrow(ax, lin.right(), split.left(y - split.y), color=color)
    heads = [
        _box(ax, 6.05, y, 2.05, 0.78, f"{label}\nscaled dot-product\nattention", ORANGE, size=SMALL)
        for label, y in zip(("head 1", "head 2", "head $N_h$"), rows, strict=True)
    ]
    _text(ax, 6.05, (rows[1] + rows[2]) / 2, r"$\vdots$", size=SMALL)
    concat = _box(
        ax,
        8.25,
        rows[1],
        1.3,
        2.9,
        "concatenate\n\n(B, T,\n"
        r"$N_h{\cdot}D_h = D$)",
        size=SMALL,
    )
    for head in heads:
        _arrow(ax, split.right(head.y - split.y), head.left())
        _arrow(ax, head.right(), concat.left(head.y - concat.y), color=ORANGE)
    out = _box(ax, 9.85, rows[1], 1.15, 1.1, "Linear\n(output\nprojection)", size=SMALL)
    _arrow(ax, concat.right(), out.left())
    _arrow(ax, out.top(), (out.x, 4.05))
    _text(ax, out.x, 4.27, "output (B, T, D)")
    _arrow(ax, heads[2].bottom(), (heads[2].x, 0.6), color=ORANGE, ls=(0, (4, 3)))
    _text(ax, heads[2].x, 0.36, "weights (B, $N_h$, T, S): returned, not stored", size=SMALL)
    return fig


def _residual(ax, start_y, box, side, color=GREY_EDGE):
    """A thin arrow from the main line at ``start_y`` around a sublayer into ``box``."""
    edge = box.left() if side < 0 else box.right()
    x_out = edge[0] + side * 0.32
    ax.add_patch(Circle((box.x, start_y), 0.035, color=INK))
    _arrow(ax, (box.x, start_y), (x_out, start_y), (x_out, box.y), edge, color=color, lw=1.1)


def _layer(ax, x, y0, step, names, side, colors):
    """One Transformer layer: a column of sublayers, each followed by Add & Norm."""
    boxes = []
    for i, (name, color) in enumerate(zip(names, colors, strict=True)):
        sub = _box(ax, x, y0 + 2 * i * step, 2.5, 0.32, name, color, size=SMALL)
        norm = _box(ax, x, sub.y + step, 2.5, 0.32, "Add & Norm", size=SMALL)
        _residual(ax, sub.y - 0.37, norm, side)
        if boxes:
            _arrow(ax, boxes[-1].top(), sub.bottom())
        _arrow(ax, sub.top(), norm.bottom())
        boxes += [sub, norm]
    return boxes


def _embed(ax, x, y_in, step, label, color, side):
    """Input pill, positional encoding added at a circled plus, arrow into the layer."""
    _pill(ax, x, y_in, label, color, w=1.05, h=0.36)
    plus = y_in + step
    ax.add_patch(Circle((x, plus), 0.12, fc="white", ec=INK, lw=1.3))
    _text(ax, x, plus, "+", size=FONT)
    pe = _box(ax, x + side * 0.85, plus, 0.55, 0.3, "PE", size=SMALL)
    _arrow(ax, pe.right() if side < 0 else pe.left(), (x + side * 0.12, plus))
    _arrow(ax, (x, y_in + 0.18), (x, plus - 0.12), color=color)
    return (x, plus + 0.12)


def transformer_encoder_decoder() -> Figure:
    fig, ax = _canvas(10.5, 6.0, "Self-attention encoder, cross-attention decoder")
    step, y0, xe, xd = 0.58, 0.4, 2.65, 7.05
    y1 = y0 + step + 0.72  # the first sublayer
    top = _embed(ax, xe, y0, step, "$x_0,\\ x_1$", BLUE, -1)
    enc = _layer(
        ax, xe, y1, step, ("multi-head self-attention", "feed-forward"), -1, (ORANGE, GREY_EDGE)
    )
    _arrow(ax, top, enc[0].bottom())
    mem = _pill(ax, xe, enc[-1].y + step, "memory (B, S, D)", BLUE, w=1.75, h=0.36)
    _arrow(ax, enc[-1].top(), mem.bottom(), color=BLUE)
    top = _embed(ax, xd, y0, step, "[$x_1$, $x_2$]", GREEN, 1)
    _text(ax, xd - 0.68, y0, "shifted target", size=SMALL, ha="right")
    dec = _layer(
        ax,
        xd,
        y1,
        step,
        ("masked (causal) self-attention", "cross-attention", "feed-forward"),
        1,
        (ORANGE, ORANGE, GREY_EDGE),
    )
    _arrow(ax, top, dec[0].bottom())
    cross, x_turn = dec[2], xe + 1.85
    _arrow(ax, mem.right(), (x_turn, mem.y), (x_turn, cross.y), cross.left(), color=BLUE, lw=1.8)
    _text(ax, x_turn + 0.12, cross.y + 0.2, "keys, values", size=SMALL, ha="left")
    _text(ax, xd - 0.1, cross.y - step / 2, "queries", size=SMALL, ha="right")
    lin = _box(ax, xd, dec[-1].y + step, 1.2, 0.32, "Linear", size=SMALL)
    _arrow(ax, dec[-1].top(), lin.bottom())
    out = _pill(ax, xd + 1.55, lin.y, r"$\hat{x}_2,\ \hat{x}_3$", RED, w=1.05, h=0.36)
    _arrow(ax, lin.right(), out.left(), color=RED)
    for x, boxes, name, color, side in (
        (xe, enc, "encoder layer", BLUE, -1),
        (xd, dec, "decoder layer", GREEN, 1),
    ):
        lo, hi = boxes[0].y - 0.47, boxes[-1].y + 0.27
        left = x - 1.75 if side < 0 else x - 1.4
        ax.add_patch(
            FancyBboxPatch(
                (left, lo),
                3.15,
                hi - lo,
                fc="none",
                ec=color,
                lw=1.2,
                ls=(0, (5, 3)),
                boxstyle="round,pad=0,rounding_size=0.1",
            )
        )
        _text(ax, x + side * 1.98, (lo + hi) / 2, name, color=color, weight="bold", rotation=90)
    return fig


def _cell(ax, x, y, size, blocked):
    """One query-key square: hatched grey when blocked, orange when allowed."""
    ax.add_patch(
        Rectangle(
            (x, y),
            size,
            size,
            ec="#8a8a8a",
            lw=0.8,
            fc="#e4e4e4" if blocked else _tint(ORANGE, 0.45),
            hatch="///" if blocked else None,
        )
    )


def _grid(ax, x0, y_top, blocked, keys, queries, cell=0.42, label_gap=0.62):
    """Queries (rows) x keys (columns) as squares; ``blocked[i][j]`` hatched grey."""
    for i, row in enumerate(blocked):
        for j, is_blocked in enumerate(row):
            _cell(ax, x0 + j * cell, y_top - (i + 1) * cell, cell, is_blocked)
    for j, name in enumerate(keys):
        _text(ax, x0 + (j + 0.5) * cell, y_top + 0.16, name, size=SMALL)
    for i, name in enumerate(queries):
        _text(ax, x0 - 0.16, y_top - (i + 0.5) * cell, name, size=SMALL, ha="right")
    width, height = len(keys) * cell, len(queries) * cell
    _text(ax, x0 + width / 2, y_top + 0.45, "keys", size=SMALL, style="italic")
    _text(
        ax, x0 - label_gap, y_top - height / 2, "queries", size=SMALL, style="italic", rotation=90
    )


def three_attentions() -> Figure:
    fig, ax = _canvas(11, 5.0, "Three kinds of attention")
    src = ["0", "1", "2", "pad"]
    panels = (
        (
            "encoder self-attention",
            "every source position sees\nevery source position\n(padding blocked)",
            src,
            src,
            [[j == 3 for j in range(4)] for _ in range(4)],
        ),
        (
            "decoder self-attention",
            "causal mask,\nno peeking ahead",
            list("0123"),
            list("0123"),
            [[j > i for j in range(4)] for i in range(4)],
        ),
        (
            "cross-attention",
            "each target query sees\nthe whole source",
            src,
            list("012"),
            [[j == 3 for j in range(4)] for _ in range(3)],
        ),
    )
    for k, (name, caption, keys, queries, blocked) in enumerate(panels):
        centre = 11 / 6 * (2 * k + 1)
        _text(ax, centre, 4.2, name, weight="bold")
        _grid(ax, centre - 0.84 + 0.25, 3.4, blocked, keys, queries)
        _text(ax, centre, 1.45, caption, size=SMALL, va="top")
    for x, blocked, label in ((3.7, False, "allowed"), (5.3, True, "blocked (True in the mask)")):
        _cell(ax, x, 0.2, 0.28, blocked)
        _text(ax, x + 0.4, 0.34, label, size=SMALL, ha="left")
    return fig


def _memory(ax, x, y, side):
    """The encoder states h0, h1 as a small stack of blue boxes, joined by a bus on ``side``
    (-1 left, +1 right); returns the point where the bus leaves towards the attention."""
    bus = x + side * 0.45
    for i, dy in enumerate((0.18, -0.18)):
        h = _pill(ax, x, y + dy, f"$h_{i}$", BLUE, w=0.55, h=0.32)
        _arrow(ax, h.left() if side < 0 else h.right(), (bus, y + dy), color=BLUE, head=False)
    _arrow(ax, (bus, y + 0.18), (bus, y - 0.18), color=BLUE, head=False)
    return (bus, y)


def attention_decoders() -> Figure:
    fig, ax = _canvas(11, 5.0, "Two ways to attend in a GRU decoder")
    y_in, y1, y2, y3, y_out = 0.45, 1.25, 2.1, 3.1, 3.8
    ax.plot((5.5, 5.5), (0.3, 4.1), color=BORDER, lw=1, ls=(0, (4, 3)))
    # Left: the GRU steps first, its new state s_t queries the encoder states.
    _text(ax, 2.75, 4.27, "attend after the step (the lecture's decoder)", weight="bold")
    gru = _box(ax, 1.55, y1, 1.0, 0.6, "GRU", GREEN)
    x_t = _pill(ax, gru.x, y_in, "$x_t$", GREEN)
    _arrow(ax, x_t.top(), gru.bottom(), color=GREEN)
    _arrow(ax, (0.3, y1), gru.left(), color=GREEN)
    _text(ax, 0.55, y1 + 0.2, "$s_{t-1}$")
    att = _box(ax, 3.0, y2, 1.25, 0.5, "attention", ORANGE)
    ax.add_patch(Circle((att.x, y1), 0.035, color=INK))
    _arrow(ax, gru.right(), (5.25, y1), color=GREEN)
    _text(ax, 2.45, y1 + 0.2, "$s_t$")
    _text(ax, 4.85, y1 - 0.22, "next step", size=SMALL)
    _arrow(ax, (att.x, y1), att.bottom(), color=GREEN)
    _text(ax, att.x + 0.1, (y1 + att.bottom()[1]) / 2, "query", size=SMALL, ha="left")
    _arrow(ax, _memory(ax, 4.6, y2, -1), att.right(), color=BLUE)
    _text(ax, 4.6, y2 - 0.57, "encoder states\n(keys, values)", size=SMALL)
    cat = _box(ax, 2.3, y3, 1.7, 0.62, "concatenate\n$[c_t, s_t]$", size=SMALL)
    _arrow(ax, gru.top(), (gru.x, cat.bottom()[1]), color=GREEN)
    _text(ax, gru.x - 0.1, (gru.top()[1] + cat.bottom()[1]) / 2, "$s_t$", ha="right")
    _arrow(ax, att.top(), (att.x, cat.bottom()[1]), color=ORANGE, lw=2)
    _text(ax, att.x + 0.1, (att.top()[1] + cat.bottom()[1]) / 2, "$c_t$", ha="left")
    lin = _box(ax, 4.0, y3, 0.9, 0.42, "Linear", size=SMALL)
    _arrow(ax, cat.right(), lin.left())
    out = _pill(ax, lin.x, y_out, r"$\hat{x}_{t+1}$", RED, w=0.7)
    _arrow(ax, lin.top(), out.bottom(), color=RED)
    # Right: the previous state s_{t-1} queries first, the context goes into the GRU.
    _text(ax, 8.25, 4.27, "attend before the step (Bahdanau)", weight="bold")
    gru = _box(ax, 9.0, y2, 1.0, 0.6, "GRU", GREEN)
    att = _box(ax, 7.35, y1, 1.25, 0.6, "additive\nattention", ORANGE, size=SMALL)
    _arrow(ax, (5.8, y2), gru.left(), color=GREEN)
    _text(ax, 6.05, y2 + 0.2, "$s_{t-1}$")
    ax.add_patch(Circle((att.x, y2), 0.035, color=INK))
    _arrow(ax, (att.x, y2), att.top(), color=GREEN)
    _text(ax, att.x + 0.1, (y2 + att.top()[1]) / 2, "query", size=SMALL, ha="left")
    _arrow(ax, _memory(ax, 6.1, y1, 1), att.left(), color=BLUE)
    _text(ax, 6.1, y1 - 0.62, "encoder states\n(keys, values)", size=SMALL)
    cat = _box(ax, gru.x, y1, 0.95, 0.42, "$[x_t, c_t]$", size=SMALL)
    _arrow(ax, att.right(), cat.left(), color=ORANGE, lw=2)
    _text(ax, (att.right()[0] + cat.left()[0]) / 2, y1 + 0.2, "$c_t$")
    x_t = _pill(ax, gru.x, y_in, "$x_t$", GREEN)
    _arrow(ax, x_t.top(), cat.bottom(), color=GREEN)
    _arrow(ax, cat.top(), gru.bottom())
    _arrow(ax, gru.right(), (10.75, y2), color=GREEN)
    _text(ax, 10.0, y2 + 0.2, "$s_t$")
    _text(ax, 10.35, y2 - 0.22, "next step", size=SMALL)
    lin = _box(ax, gru.x, y3, 0.9, 0.42, "Linear", size=SMALL)
    _arrow(ax, gru.top(), lin.bottom(), color=GREEN)
    _text(ax, gru.x - 0.1, (gru.top()[1] + lin.bottom()[1]) / 2, "$s_t$", ha="right")
    out = _pill(ax, lin.x, y_out, r"$\hat{x}_{t+1}$", RED, w=0.7)
    _arrow(ax, lin.top(), out.bottom(), color=RED)
    return fig


def scoring_functions() -> Figure:
    fig, ax = _canvas(11, 5.8, "Two scoring functions, one masked softmax")
    rows = (4.4, 3.65, 2.9, 2.15, 1.4, 0.65)
    xl, xm, xr = 2.2, 5.5, 8.8
    # Left: scaled dot-product scores, Q K^T / sqrt(E).
    _text(ax, xl, 5.0, "scaled dot-product attention", weight="bold")
    q = _pill(ax, xl - 0.9, rows[0], "$Q$ (B, T, E)", GREEN, w=1.4, size=SMALL)
    k = _pill(ax, xl + 0.9, rows[0], "$K$ (B, S, E)", BLUE, w=1.4, size=SMALL)
    dot = _box(ax, xl, rows[1], 2.4, 0.42, r"matmul $QK^\top$", size=SMALL)
    _arrow(ax, q.bottom(), dot.top(-0.9), color=GREEN)
    _arrow(ax, k.bottom(), dot.top(0.9), color=BLUE)
    scale = _box(ax, xl, rows[2], 1.8, 0.42, "scale by 1/\N{SQUARE ROOT}$E$", size=SMALL)
    _arrow(ax, dot.bottom(), scale.top())
    # Middle: the part both share, masked softmax and weighted sum.
    _text(ax, xm, 5.0, "shared", weight="bold")
    mask = _box(
        ax,
        xm,
        rows[3],
        1.9,
        0.6,
        "mask (optional):\nblocked \N{RIGHTWARDS ARROW} \N{MINUS SIGN}\N{INFINITY}",
        size=SMALL,
    )
    _arrow(ax, scale.bottom(), (xl, mask.y), mask.left())
    _text(ax, (xl + mask.left()[0]) / 2 + 0.1, mask.y + 0.2, "scores (B, T, S)", size=SMALL)
    x0, top = xm - 0.6, 4.15
    for i in range(3):
        for j in range(4):
            _cell(ax, x0 + j * 0.3, top - (i + 1) * 0.3, 0.3, j == 3)
    _text(ax, xm, top + 0.22, "mask: True = blocked", size=SMALL)
    _text(ax, xm, top - 1.12, "(B, T, S) or (B, S)", size=SMALL)
    _arrow(ax, (xm, top - 1.3), mask.top(), ls=(0, (4, 3)))
    soft = _box(ax, xm, rows[4], 1.9, 0.42, "softmax over S", size=SMALL)
    _arrow(ax, mask.bottom(), soft.top())
    total = _box(ax, xm, rows[5], 1.9, 0.42, r"weighted sum $\alpha V$", size=SMALL)
    _arrow(ax, soft.bottom(), total.top(), color=ORANGE, lw=2)
    _text(
        ax,
        xm + 0.12,
        (rows[4] + rows[5]) / 2,
        r"weights $\alpha$ (B, T, S)",
        size=SMALL,
        ha="left",
        color="#b35300",
    )
    v = _pill(ax, xm - 2.05, rows[5], "$V$ (B, S, $E_v$)", BLUE, w=1.5, size=SMALL)
    _arrow(ax, v.right(), total.left(), color=BLUE)
    c = _pill(ax, xm + 2.25, rows[5], "context (B, T, $E_v$)", ORANGE, w=1.85, size=SMALL)
    _arrow(ax, total.right(), c.left(), color=ORANGE, lw=2)
    # Right: additive scores, w_v^T tanh(W_q q + W_k k).
    _text(ax, xr, 5.0, "additive attention", weight="bold")
    q = _pill(ax, xr - 0.9, rows[0], "$q$ (B, T, $E_q$)", GREEN, w=1.4, size=SMALL)
    k = _pill(ax, xr + 0.9, rows[0], "$k$ (B, S, $E_k$)", BLUE, w=1.4, size=SMALL)
    hidden = _box(ax, xr, rows[2], 2.5, 0.42, "broadcast sum (B, T, S, h)", size=SMALL)
    for pill, name, shape, color in (
        (q, "$W_q$", "(B, T, h)", GREEN),
        (k, "$W_k$", "(B, S, h)", BLUE),
    ):
        lin = _box(ax, pill.x, rows[1], 0.8, 0.42, name, size=SMALL)
        _arrow(ax, pill.bottom(), lin.top(), color=color)
        _arrow(ax, lin.bottom(), hidden.top(lin.x - xr))
        _text(ax, lin.x + 0.1, (rows[1] + rows[2]) / 2, shape, size=SMALL, ha="left")
    tanh = _box(ax, xr + 0.85, rows[3], 0.8, 0.42, "tanh", size=SMALL)
    _arrow(ax, hidden.bottom(0.85), tanh.top())
    w_v = _box(ax, xr - 0.55, rows[3], 0.8, 0.42, "$w_v$", size=SMALL)
    _arrow(ax, tanh.left(), w_v.right())
    _arrow(ax, w_v.left(), mask.right())
    _text(ax, (w_v.left()[0] + mask.right()[0]) / 2, mask.y + 0.2, "scores (B, T, S)", size=SMALL)
    return fig


def transformer_families() -> Figure:
    fig, ax = _canvas(11, 5.2, "What each token sees in the three families")
    tokens = ["il", "dort", "<sos>", "he"]  # two French tokens, then the English side
    prefix = [[j >= 2 and j > i for j in range(4)] for i in range(4)]
    panels = (
        ("encoder-only", "one stack, no mask:\nunderstands a text\n(BERT)", [[False] * 4] * 4),
        (
            "encoder-decoder",
            "two stacks joined by\ncross-attention (2017, T5):\nthe prefix pattern",
            prefix,
        ),
        (
            "decoder-only",
            "one causal stack reads\nFrench, then writes English\n(GPT, Llama)",
            [[j > i for j in range(4)] for i in range(4)],
        ),
        (
            "decoder-only + prefix",
            "one stack, the French\npart sees both ways:\nthe prefix pattern",
            prefix,
        ),
    )
    for k, (name, caption, blocked) in enumerate(panels):
        centre = 2.75 * k + 1.5
        _text(ax, centre, 4.45, name, weight="bold")
        _grid(ax, centre - 0.84 + 0.3, 3.5, blocked, tokens, tokens, label_gap=0.85)
        _text(ax, centre, 1.3, caption, size=SMALL, va="top")
    for x, blocked, label in ((3.7, False, "allowed"), (5.3, True, "blocked (True in the mask)")):
        _cell(ax, x, 0.2, 0.28, blocked)
        _text(ax, x + 0.4, 0.34, label, size=SMALL, ha="left")
    return fig


def _dial(ax, x, y, r, angle, turn):
    """A dial centred on (x, y): a blue hand at ``angle`` (radians, from the cosine axis,
    anticlockwise as in Chapter 4's dial plots), a green one ``turn`` further, the turn an
    orange wedge between them."""
    ax.add_patch(Circle((x, y), r, fc="white", ec="#9a9a9a", lw=1.2))
    for dx, dy in ((1, 0), (0, 1)):
        ax.plot((x - dx * r, x + dx * r), (y - dy * r, y + dy * r), color=BORDER, lw=0.8)
    start, end = math.degrees(angle), math.degrees(angle + turn)
    ax.add_patch(Wedge((x, y), 0.72 * r, start, end, fc=_tint(ORANGE, 0.45), ec=ORANGE, lw=1))
    for a, color, lw in ((angle, BLUE, 3.2), (angle + turn, GREEN, 1.6)):
        tip = (x + r * math.cos(a), y + r * math.sin(a))
        ax.plot((x, tip[0]), (y, tip[1]), color=color, lw=lw, solid_capstyle="round")
        ax.add_patch(Circle(tip, 0.055 if color == BLUE else 0.04, color=color))
    ax.add_patch(Circle((x, y), 0.04, color=INK))


def _bracket(ax, x, y, h, side, w=0.07):
    """A square bracket of height ``h`` centred on (x, y), opening to the right (side -1,
    a left bracket) or to the left (side +1)."""
    ax.plot(
        (x - side * w, x, x, x - side * w),
        (y - h / 2, y - h / 2, y + h / 2, y + h / 2),
        color=INK,
        lw=1.2,
    )


def _matrix(ax, x, y, rows, widths, row_h=0.36, size=FONT):
    """``rows`` of mathtext entries in brackets, the left bracket at ``x``, centred on ``y``;
    returns the x of the right bracket."""
    h = len(rows) * row_h
    _bracket(ax, x, y, h, -1)
    left = x + 0.08
    for i, row in enumerate(rows):
        cy = y + h / 2 - (i + 0.5) * row_h
        cx = left
        for entry, w in zip(row, widths, strict=True):
            _text(ax, cx + w / 2, cy, entry, size)
            cx += w
    right = left + sum(widths) + 0.08
    _bracket(ax, right, y, h, 1)
    return right


def sinusoidal_positions() -> Figure:
    fig, ax = _canvas(11, 5.9, "Sinusoidal positions: dials, and a shift is a rotation")
    p, k, d = 2, 3, 8
    speeds = [1 / 10000 ** (2 * i / d) for i in range(d // 2)]
    # Top: one dial per pair of dimensions, hands for positions p and p + k.
    _text(
        ax,
        5.5,
        5.1,
        "one dial per pair of dimensions $(2i,\\, 2i{+}1)$, turning "
        "$\\omega_i = 1\\,/\\,10000^{2i/d}$ radian per position ($d = 8$)",
        weight="bold",
    )
    names = ("1", "0.1", "0.01", "0.001")
    xs, y, r = [1.15 + 2.2 * i for i in range(d // 2)], 3.55, 0.62
    for i, (x, speed, name) in enumerate(zip(xs, speeds, names, strict=True)):
        _text(ax, x, 4.78, f"dims {2 * i}, {2 * i + 1}", size=SMALL)
        _text(ax, x, 4.48, f"$\\omega_{i} = {name}$")
        _dial(ax, x, y, r, p * speed, k * speed)
        turn = f"{k * speed:g}"
        _text(ax, x, 2.75, f"turns $k\\omega_{i} = {turn}$ rad", size=SMALL, color="#b35300")
        if i:
            _arrow(ax, (xs[i - 1] + 0.6, 4.48), (x - 0.6, 4.48), color=GREY_EDGE, lw=1)
            _text(ax, (xs[i - 1] + x) / 2, 4.64, "10\N{MULTIPLICATION SIGN} slower", size=SMALL)
    _text(ax, xs[0] + r + 0.05, y, "cos", size=SMALL, ha="left")
    _text(ax, xs[0] + 0.05, y + r - 0.12, "sin", size=SMALL, ha="left")
    legend = (
        (BLUE, 3.2, "position $p = 2$:\nangle $p\\,\\omega_i$"),
        (GREEN, 1.6, "position $p + k = 5$:\nangle $(p + k)\\,\\omega_i$"),
    )
    for j, (color, lw, label) in enumerate(legend):
        ly = 4.05 - 0.62 * j
        ax.plot((8.8, 9.15), (ly, ly), color=color, lw=lw, solid_capstyle="round")
        _text(ax, 9.25, ly, label, size=SMALL, ha="left")
    ax.add_patch(Wedge((8.8, 2.68), 0.36, 0, 35, fc=_tint(ORANGE, 0.45), ec=ORANGE, lw=1))
    _text(
        ax,
        9.25,
        2.83,
        "the offset $k = 3$\nturns every hand\nby $k\\,\\omega_i$",
        size=SMALL,
        ha="left",
    )
    ax.plot((0.3, 10.7), (2.5, 2.5), color=BORDER, lw=1, ls=(0, (4, 3)))
    # Bottom left: PE(p + k) = M_k PE(p), M_k block diagonal.
    _text(
        ax,
        2.75,
        2.24,
        "$\\mathrm{PE}(p + k) = M_k\\,\\mathrm{PE}(p)$ for every $p$",
        weight="bold",
    )
    cell, top = 0.2, 1.98
    rows = ["sin", "cos"] * (d // 2)

    def column(x0, color, label):
        for j, name in enumerate(rows):
            ax.add_patch(
                Rectangle((x0, top - (j + 1) * cell), 0.42, cell, fc=_tint(color), ec=color, lw=0.8)
            )
            _text(ax, x0 + 0.21, top - (j + 0.5) * cell, name, size=SMALL)
        _text(ax, x0 + 0.21, top - d * cell - 0.15, label, size=SMALL)

    column(0.55, GREEN, "$\\mathrm{PE}(p{+}k)$")
    _text(ax, 1.2, top - d * cell / 2, "=", size=TITLE)
    x0 = 1.45
    for j in range(d):
        for m in range(d):
            block = j // 2 == m // 2
            ax.add_patch(
                Rectangle(
                    (x0 + m * cell, top - (j + 1) * cell),
                    cell,
                    cell,
                    fc=_tint(ORANGE, 0.45) if block else "white",
                    ec="#c8c8c8",
                    lw=0.6,
                )
            )
    for i in range(d // 2):
        ax.add_patch(
            Rectangle(
                (x0 + 2 * i * cell, top - (2 * i + 2) * cell),
                2 * cell,
                2 * cell,
                fc="none",
                ec=ORANGE,
                lw=1.4,
            )
        )
        _text(ax, x0 + (2 * i + 1) * cell, top - (2 * i + 1) * cell, f"$R_{i}$", size=SMALL)
    _text(ax, x0 + 6 * cell, top - 2 * cell, "0", size=TITLE, color="#8a8a8a")
    _text(ax, x0 + 2 * cell, top - 6 * cell, "0", size=TITLE, color="#8a8a8a")
    _text(ax, x0 + d * cell / 2, top - d * cell - 0.15, "$M_k$", size=SMALL)
    column(x0 + d * cell + 0.15, BLUE, "$\\mathrm{PE}(p)$")
    _text(
        ax,
        4.0,
        top - d * cell / 2,
        "block diagonal:\none rotation $R_i$\nper dial, zeros\nelsewhere",
        size=SMALL,
        ha="left",
    )
    ax.plot((5.45, 5.45), (0.3, 2.35), color=BORDER, lw=1, ls=(0, (4, 3)))
    # Bottom right: one block, the rotation of dial i by k omega_i.
    _text(ax, 8.1, 2.24, "one block: dial $i$, rows $2i$ and $2i{+}1$", weight="bold")
    y = 1.35
    right = _matrix(
        ax,
        5.65,
        y,
        [["$\\sin\\,(p{+}k)\\omega_i$"], ["$\\cos\\,(p{+}k)\\omega_i$"]],
        [1.3],
    )
    _text(ax, right + 0.2, y, "=", size=TITLE)
    right = _matrix(
        ax,
        right + 0.4,
        y,
        [
            ["$\\cos k\\omega_i$", "$\\sin k\\omega_i$"],
            ["$-\\sin k\\omega_i$", "$\\cos k\\omega_i$"],
        ],
        [0.85, 0.8],
    )
    right = _matrix(
        ax,
        right + 0.2,
        y,
        [["$\\sin p\\omega_i$"], ["$\\cos p\\omega_i$"]],
        [0.8],
    )
    _text(
        ax,
        8.1,
        0.55,
        "$R_i$: a rotation by the angle $k\\,\\omega_i$, which depends on\n"
        "the offset $k$ but not on the position $p$",
        size=SMALL,
    )
    return fig


DRAWINGS = {
    f.__name__: f
    for f in (
        encoder_decoder,
        attention_context,
        multi_head,
        transformer_encoder_decoder,
        three_attentions,
        attention_decoders,
        scoring_functions,
        transformer_families,
        sinusoidal_positions,
    )
}


# ---------------------------------------------------------------- files, check, markdown
def _render(name: str, **savefig_kw) -> bytes:
    with matplotlib.style.context("default"), matplotlib.rc_context(RC):
        buffer = io.BytesIO()
        DRAWINGS[name]().savefig(buffer, facecolor="white", **savefig_kw)
    return buffer.getvalue()


def draw_svg(name: str) -> bytes:
    """The SVG bytes of one schematic, the same on every run."""
    return _render(name, format="svg", metadata={"Date": None, "Creator": None})


def draw_png(name: str, dpi: int = 100) -> bytes:
    """A PNG preview of one schematic, for looking at it (PNGs are not committed)."""
    return _render(name, format="png", dpi=dpi)


def svg_path(name: str) -> Path:
    return FIGURES_DIR / f"{name}.svg"


def check() -> list[Path]:
    """The committed SVGs that are missing or differ from what the script draws now."""
    return [
        svg_path(n)
        for n in SCHEMATICS
        if not svg_path(n).exists() or svg_path(n).read_bytes() != draw_svg(n)
    ]


def write_all() -> list[Path]:
    """Write every SVG whose bytes changed; return the paths written."""
    FIGURES_DIR.mkdir(parents=True, exist_ok=True)
    written = []
    for name in SCHEMATICS:
        data, path = draw_svg(name), svg_path(name)
        if not path.exists() or path.read_bytes() != data:
            path.write_bytes(data)
            written.append(path)
    return written


def markdown_image(name: str, alt: str | None = None) -> str:
    """An HTML ``<img>`` with ``chapters/figures/<name>.svg`` inline as a ``data:`` URI.

    Raw HTML, not Markdown's ``![alt](...)``: markdown-it (and so MyST and the book) refuses
    ``data:image/svg+xml`` links, which may carry scripts, while an ``<img>`` never runs one.
    Jupyter, Colab and the book all render the tag. ``alt`` defaults to the schematic's entry
    in ``SCHEMATICS``.
    """
    alt = SCHEMATICS[name] if alt is None else alt
    alt = html.escape(" ".join(alt.split()), quote=True)
    data = base64.b64encode(svg_path(name.removesuffix(".svg")).read_bytes()).decode("ascii")
    return (
        f'<img alt="{alt}" style="width: 100%; max-width: 860px; display: block; '
        f'margin: 0 auto;" src="data:image/svg+xml;base64,{data}">'
    )


def embedded_cells(notebook: Path) -> list[tuple[int, str, bool]]:
    """``(index, name, up_to_date)`` for every markdown cell of ``notebook`` that embeds a
    schematic: such a cell has ``"schematic": name`` in its metadata and its whole source
    is ``markdown_image(name)``."""
    import nbformat

    def fresh(cell) -> bool:
        try:
            return cell.source == markdown_image(cell.metadata["schematic"])
        except (KeyError, FileNotFoundError):  # an unknown name, or no SVG drawn yet
            return False

    nb = nbformat.read(notebook, as_version=4)
    return [
        (i, c.metadata["schematic"], fresh(c))
        for i, c in enumerate(nb.cells)
        if c.cell_type == "markdown" and "schematic" in c.metadata
    ]


def embed(notebook: Path) -> int:
    """Refresh the embedded schematics of ``notebook``; return how many cells changed."""
    import nbformat

    stale = [i for i, _, fresh in embedded_cells(notebook) if not fresh]
    if stale:
        nb = nbformat.read(notebook, as_version=4)
        for i in stale:
            nb.cells[i].source = markdown_image(nb.cells[i].metadata["schematic"])
        nbformat.write(nb, notebook)
    return len(stale)


def _shown(path: Path) -> Path:
    return path.relative_to(ROOT) if path.is_relative_to(ROOT) else path


def main(argv: list[str] | None = None) -> int:
    matplotlib.use("Agg")
    parser = argparse.ArgumentParser(description="Draw the book's schematic SVG figures.")
    parser.add_argument("--check", action="store_true", help="only check they are up to date")
    parser.add_argument("--png", type=Path, metavar="DIR", help="also write PNG previews")
    args = parser.parse_args(argv)
    notebooks = sorted((ROOT / "chapters").glob("*.ipynb"))
    if args.check:
        stale = check()
        for path in stale:
            print(
                f"{'stale' if path.exists() else 'missing'}: {_shown(path)} "
                "(run `python tools/draw_schematics.py`)",
                file=sys.stderr,
            )
        cells = [(nb, i) for nb in notebooks for i, _, fresh in embedded_cells(nb) if not fresh]
        for nb, i in cells:
            print(
                f"stale: {_shown(nb)} cell {i} embeds an old schematic "
                "(run `python tools/draw_schematics.py`)",
                file=sys.stderr,
            )
        return 1 if stale or cells else 0
    for path in write_all():
        print(f"wrote {_shown(path)}")
    for nb in notebooks:
        if embed(nb):
            print(f"refreshed the schematics embedded in {_shown(nb)}")
    if args.png:
        args.png.mkdir(parents=True, exist_ok=True)
        for name in SCHEMATICS:
            (args.png / f"{name}.png").write_bytes(draw_png(name))
    return 0


if __name__ == "__main__":
    sys.exit(main())
