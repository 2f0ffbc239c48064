"""course_lib.lecture: the lecture's teaching classes, kept as the chapters build them.

The first test is the contract of the package: every class or function a chapter builds
under a name that ``course_lib.lecture`` keeps is, statement for statement (comments and
docstrings aside), the kept one -- so a later chapter that imports it runs exactly what the
reader saw built. Every kept name is built in some chapter.
"""

import ast
import importlib
import inspect
import json
from pathlib import Path

import numpy as np
import pytest
import torch

from course_lib.lecture.attention import (
    LectureAttention,
    LectureDecoderAttn,
    LectureEncoderDecoderAttn,
)
from course_lib.lecture.self_attention import (
    LectureDecoderSelfAttn,
    LectureEncoderDecoderSelfAttn,
    LectureEncoderSelfAttn,
    LectureMultiHeadAttention,
    subsequent_mask,
)
from course_lib.lecture.seq2seq import LectureDecoder, LectureEncoder, LectureEncoderDecoder
from course_lib.lecture.training import lecture_loaders, lecture_train
from course_lib.masking import causal_mask
from course_lib.squares import make_squares

ROOT = Path(__file__).resolve().parents[1]
MODULES = ["seq2seq", "attention", "self_attention", "training"]


def normalised(node: ast.AST) -> str:
    """The AST without docstrings: comments are not in it, and names of nothing change."""
    node = ast.parse(ast.unparse(node))  # a copy
    for sub in ast.walk(node):
        body = getattr(sub, "body", None)
        if (
            isinstance(sub, (ast.FunctionDef, ast.ClassDef, ast.Module))
            and body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        ):
            sub.body = body[1:] or [ast.Pass()]
    return ast.dump(node, annotate_fields=False)


def kept() -> dict[str, tuple[str, str]]:
    """name -> (module, normalised definition) for every public name of course_lib.lecture."""
    out = {}
    for short in MODULES:
        module = importlib.import_module(f"course_lib.lecture.{short}")
        tree = ast.parse(inspect.getsource(module))
        defs = {n.name: n for n in tree.body if isinstance(n, (ast.ClassDef, ast.FunctionDef))}
        for name in module.__all__:
            out[name] = (short, normalised(defs[name]))
    return out


def built_in_chapters() -> list[tuple[str, str, str]]:
    """(chapter, name, normalised definition) of every top-level def in a code cell."""
    found = []
    for path in sorted((ROOT / "chapters").glob("*.ipynb")):
        cells = json.loads(path.read_text())["cells"]
        for cell in cells:
            if cell["cell_type"] != "code":
                continue
            lines = "".join(cell["source"]).splitlines()
            # IPython magics and shell lines are not Python
            source = "\n".join(
                line.replace(line.lstrip(), "pass")
                if line.lstrip().startswith(("%", "!"))
                else line
                for line in lines
            )
            for node in ast.parse(source).body:
                if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
                    found.append((path.stem, node.name, normalised(node)))
    return found


def test_what_a_chapter_builds_is_what_the_package_keeps():
    library = kept()
    built = built_in_chapters()
    for chapter, name, definition in built:
        if name in library:
            module, expected = library[name]
            assert definition == expected, (
                f"{chapter} builds {name} differently from course_lib.lecture.{module}: "
                "change both together (the chapters teach what later chapters import)"
            )
    names = {name for _, name, _ in built}
    missing = sorted(set(library) - names)
    assert not missing, f"kept in course_lib.lecture but built in no chapter: {missing}"


def test_every_name_is_built_once():
    counts = {}
    for chapter, name, _ in built_in_chapters():
        if name in kept():
            counts.setdefault(name, []).append(chapter)
    twice = {name: where for name, where in counts.items() if len(where) > 1}
    assert not twice, f"built in more than one chapter, import it instead: {twice}"


def test_seq2seq_shapes_and_stored_state():
    torch.manual_seed(0)
    model = LectureEncoderDecoder(LectureEncoder(2, 3), LectureDecoder(2, 3), 2, 2)
    model.eval()
    out = model(torch.randn(5, 2, 2))
    assert out.shape == (5, 2, 2)
    assert model.decoder.hidden.shape == (1, 5, 3)  # the state is stored on the module


def test_attention_stores_weights_and_keeps_where_the_mask_is_true():
    torch.manual_seed(0)
    attn = LectureAttention(4, input_dim=3, proj_values=True)
    keys = torch.randn(2, 5, 3)
    attn.init_keys(keys)
    mask = torch.tensor([True, True, False, True, False]).view(1, 1, 5)
    context = attn(torch.randn(2, 1, 3), mask=mask)
    assert context.shape == (2, 1, 4) and attn.alphas.shape == (2, 1, 5)
    assert torch.all(attn.alphas[..., ~mask[0, 0]] == 0)
    torch.testing.assert_close(attn.alphas.sum(-1), torch.ones(2, 1))


def test_attention_decoder_stores_every_steps_alphas():
    torch.manual_seed(0)
    model = LectureEncoderDecoderAttn(
        LectureEncoder(2, 2), LectureDecoderAttn(2, 2), input_len=3, target_len=2
    )
    model.eval()
    assert model(torch.randn(4, 3, 2)).shape == (4, 2, 2)
    assert model.alphas.shape == (4, 2, 3)


def test_subsequent_mask_is_the_negation_of_the_librarys_causal_mask():
    assert torch.equal(subsequent_mask(4)[0], ~causal_mask(4))


def test_self_attention_model_shapes_heads_and_causality():
    torch.manual_seed(0)
    encoder = LectureEncoderSelfAttn(n_heads=3, d_model=2, ff_units=10, n_features=2)
    decoder = LectureDecoderSelfAttn(n_heads=3, d_model=2, ff_units=10, n_features=2)
    model = LectureEncoderDecoderSelfAttn(encoder, decoder, input_len=2, target_len=2)
    x = torch.randn(6, 4, 2)
    model.train()
    assert model(x).shape == (6, 2, 2)
    weights = decoder.self_attn_heads.alphas  # (Nh, B, T, T)
    assert weights.shape == (3, 6, 2, 2)
    assert torch.all(weights[..., 0, 1] == 0)  # the first step cannot see the second
    model.eval()
    assert model(x[:, :2]).shape == (6, 2, 2)
    mha = LectureMultiHeadAttention(3, 2)
    assert mha.linear_out.in_features == 6  # Nh full-width heads, concatenated


def test_lecture_loaders_and_train_reproduce_a_run():
    points, _ = make_squares(n=32, seed=0)
    val_points, _ = make_squares(n=16, seed=1)
    runs = []
    for _ in range(2):
        train_loader, val_loader = lecture_loaders(points, val_points)
        x, y = next(iter(train_loader))
        assert x.shape == (16, 4, 2) and y.shape == (16, 2, 2)
        torch.manual_seed(3)
        model = LectureEncoderDecoder(LectureEncoder(2, 2), LectureDecoder(2, 2), 2, 2)
        optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
        runs.append(lecture_train(model, optimizer, train_loader, val_loader, epochs=3))
    assert runs[0] == runs[1]
    losses, val_losses = runs[0]
    assert len(losses) == len(val_losses) == 3 and np.isfinite(val_losses).all()


def test_lecture_loaders_and_train_reject_bad_input():
    points, _ = make_squares(n=8, seed=0)
    with pytest.raises(ValueError, match="longer than source_len"):
        lecture_loaders(points[:, :2], points)
    with pytest.raises(ValueError, match=r"\(N, L, F\)"):
        lecture_loaders(points[0], points)
    loader = torch.utils.data.DataLoader(torch.zeros(4, 2), shuffle=True)
    with pytest.raises(ValueError, match="lecture_loaders"):
        lecture_train(torch.nn.Identity(), None, loader, loader, epochs=1)
