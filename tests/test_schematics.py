"""tools/draw_schematics.py: the committed SVGs are current, deterministic and embeddable."""

import base64
import html
import re

import pytest

import draw_schematics as ds
from draw_schematics import FIGURES_DIR, SCHEMATICS, check, draw_svg, main, markdown_image


def pinned_matplotlib() -> str:
    text = (FIGURES_DIR.parents[1] / "requirements.txt").read_text(encoding="utf-8")
    return re.search(r"^matplotlib==(\S+)$", text, re.M).group(1)


def test_every_schematic_is_committed_and_up_to_date():
    missing = [n for n in SCHEMATICS if not (FIGURES_DIR / f"{n}.svg").is_file()]
    assert not missing, f"run `python tools/draw_schematics.py`: missing {missing}"
    import matplotlib

    if matplotlib.__version__ != pinned_matplotlib():
        # the committed bytes are what requirements.txt's matplotlib draws; another release
        # (make test-latest / test-oldest) lays out text differently. That drawing still
        # works is checked by the tests below.
        pytest.skip(
            f"byte-identical drawings are promised with matplotlib {pinned_matplotlib()} "
            f"(requirements.txt), not {matplotlib.__version__}"
        )
    stale = check()
    assert not stale, f"run `python tools/draw_schematics.py`: stale {[p.name for p in stale]}"


def test_every_drawing_is_registered_with_an_alt_text():
    assert list(ds.DRAWINGS) == list(SCHEMATICS)  # one function per figure, in the same order


def test_check_names_a_stale_file(tmp_path, monkeypatch, capsys):
    import draw_schematics

    monkeypatch.setattr(draw_schematics, "FIGURES_DIR", tmp_path)
    (tmp_path / "multi_head.svg").write_bytes(draw_svg("multi_head") + b"\n")
    assert main(["--check"]) == 1
    err = capsys.readouterr().err
    assert "multi_head.svg" in err and "encoder_decoder.svg" in err  # stale and missing


@pytest.mark.parametrize("name", SCHEMATICS)
def test_drawing_twice_gives_identical_bytes(name):
    assert draw_svg(name) == draw_svg(name)


@pytest.mark.parametrize("name", SCHEMATICS)
def test_markdown_image_round_trips(name):
    alt = SCHEMATICS[name]
    text = markdown_image(name, alt)
    match = re.fullmatch(
        r'<img alt="([^"]+)" style="[^"]*" src="data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)">',
        text,
    )
    assert match, text[:120]
    assert html.unescape(match[1]) == " ".join(alt.split())
    assert base64.b64decode(match[2]) == (FIGURES_DIR / f"{name}.svg").read_bytes()
    assert markdown_image(name) == text  # the alt text defaults to SCHEMATICS[name]


def test_markdown_image_escapes_quotes_in_the_alt_text():
    assert markdown_image("multi_head", 'a "b" <c>').startswith(
        '<img alt="a &quot;b&quot; &lt;c&gt;"'
    )


@pytest.mark.parametrize("name", SCHEMATICS)
def test_svg_is_small_untitled_on_white_with_dejavu_glyphs(name):
    svg = (FIGURES_DIR / f"{name}.svg").read_text(encoding="utf-8")
    assert len(svg.encode()) < 150_000
    assert "<title" not in svg
    assert "<text" not in svg  # text is drawn as paths: no font needed to view the file
    width, height = (float(v) for v in re.search(r'viewBox="0 0 ([\d.]+) ([\d.]+)"', svg).groups())
    # The figure's background: a white rectangle over the whole view box, drawn first.
    background = re.search(r'<g id="patch_1">\s*<path d="([^"]*)"\s+style="([^"]*)"', svg)
    assert background and background[2] == "fill: #ffffff"
    corners = {tuple(map(float, p)) for p in re.findall(r"([\d.]+) ([\d.]+)", background[1])}
    assert corners == {(0, 0), (width, 0), (0, height), (width, height)}
    assert 9 * 72 <= width <= 11 * 72 and 3 * 72 <= height <= 6 * 72
    glyphs = set(re.findall(r'<path id="([A-Za-z-]+)-[0-9a-f]+"', svg))
    assert glyphs and all(g.startswith("DejaVuSans") for g in glyphs), glyphs


def test_alt_texts_are_single_sentences():
    for name, alt in SCHEMATICS.items():
        assert alt.endswith(".") and alt.count(". ") == 0 and "$" not in alt, name


def test_the_chapters_embed_the_current_schematics():
    embedded = {}
    for notebook in sorted((ds.ROOT / "chapters").glob("*.ipynb")):
        for i, name, fresh in ds.embedded_cells(notebook):
            assert name in ds.SCHEMATICS, f"{notebook.name} cell {i}: unknown schematic {name!r}"
            assert fresh, f"{notebook.name} cell {i}: run `python tools/draw_schematics.py`"
            embedded[name] = notebook.name
    assert set(embedded) == set(ds.SCHEMATICS), "every schematic appears in a chapter"
