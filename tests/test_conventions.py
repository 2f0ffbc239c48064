"""Conventions every model of the library keeps (notation.md, "Names in code"), and the
house rules of the code a student reads.

A model's ``forward`` returns its prediction; with ``need_weights=True`` it returns the pair
``(prediction, weights)`` -- ``weights`` may be ``None`` where the model has no attention.
(Attention modules, like ``nn.MultiheadAttention``, always return a pair.) Its last layer is
called ``output``.

No module of ``course_lib`` is longer than 600 lines, and none imports an underscore name from
another: a helper two modules share has a public name in its (possibly private) module.
"""

import ast
from pathlib import Path

import pytest
import torch
from torch import Tensor

from course_lib.decoder_only import DecoderOnlyConfig, DecoderOnlyTranslator
from course_lib.points_transformer import SelfAttentionConfig, SelfAttentionEncoderDecoder
from course_lib.recurrent_translation import RecurrentConfig, RecurrentTranslator
from course_lib.seq2seq import Encoder, EncoderDecoder, Seq2SeqConfig
from course_lib.seq2seq_attention import AttentionDecoder
from course_lib.translation import TranslationConfig, TranslationTransformer
from course_lib.vocab import SOS


def squares():
    return (torch.randn(3, 4, 2),)


def tokens():
    return torch.randint(4, 12, (3, 5)), torch.full((3, 2), SOS)


MODELS = {
    "EncoderDecoder": (lambda: EncoderDecoder.from_config(Seq2SeqConfig()), squares),
    "EncoderDecoder + attention": (
        lambda: EncoderDecoder(Encoder(2, 4), AttentionDecoder(2, 4), target_len=2),
        squares,
    ),
    "SelfAttentionEncoderDecoder": (
        lambda: SelfAttentionEncoderDecoder(SelfAttentionConfig()),
        squares,
    ),
    "TranslationTransformer": (
        lambda: TranslationTransformer(TranslationConfig(12, 12, d_model=8, num_heads=2)),
        tokens,
    ),
    "DecoderOnlyTranslator": (
        lambda: DecoderOnlyTranslator(DecoderOnlyConfig(12, 12, d_model=8, num_heads=2)),
        tokens,
    ),
    "RecurrentTranslator": (
        lambda: RecurrentTranslator(RecurrentConfig(12, 12, embed_dim=8, hidden_dim=8)),
        tokens,
    ),
}


@pytest.mark.parametrize("name", MODELS)
def test_a_model_returns_its_prediction_or_the_pair_with_weights(name):
    build, inputs = MODELS[name]
    torch.manual_seed(0)
    model = build().eval()
    args = inputs()
    with torch.no_grad():
        plain = model(*args)
        pair = model(*args, need_weights=True)
    assert isinstance(plain, Tensor)
    assert isinstance(pair, tuple) and len(pair) == 2 and torch.equal(pair[0], plain)
    assert pair[1] is None or isinstance(pair[1], (Tensor, dict))
    assert isinstance(
        model.output if hasattr(model, "output") else model.decoder.output, torch.nn.Linear
    )


LIBRARY = Path(__file__).resolve().parent.parent / "course_lib"
MODULES = sorted(LIBRARY.rglob("*.py"))
MAX_LINES = 600

#: Private names a module may import from another: (importing module, module imported from,
#: name). None.
PRIVATE_IMPORTS_ALLOWED: set[tuple[str, str, str]] = set()


def module_name(path: Path) -> str:
    parts = path.relative_to(LIBRARY.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def is_module(dotted: str) -> bool:
    """``course_lib.checks._masks``: a module or package of the library (importing a private
    module is how package-private code is shared)."""
    path = LIBRARY.parent.joinpath(*dotted.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def private_imports(source: str, importer: str, package: str) -> list[tuple[str, str, str]]:
    """``(importer, module, name)`` for every ``from <course_lib module> import _name`` of
    ``source``, the module ``importer`` of the package ``package``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.ImportFrom):
            continue
        if node.level:  # relative: from . import x, from ..views import y
            base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
            module = f"{base}.{node.module}" if node.module else base
        else:
            module = node.module or ""
        if module != "course_lib" and not module.startswith("course_lib."):
            continue
        for alias in node.names:
            name = alias.name
            private = name.startswith("_") and not name.startswith("__")
            if private and not is_module(f"{module}.{name}"):
                found.append((importer, module, name))
    return found


def private_imports_of(path: Path) -> list[tuple[str, str, str]]:
    importer = module_name(path)
    package = importer if path.name == "__init__.py" else importer.rpartition(".")[0]
    return private_imports(path.read_text(encoding="utf-8"), importer, package)


def test_the_library_has_modules_to_check():
    assert len(MODULES) > 50 and module_name(LIBRARY / "checks" / "__init__.py") == (
        "course_lib.checks"
    )


@pytest.mark.parametrize("path", MODULES, ids=lambda p: module_name(p))
def test_no_module_is_longer_than_600_lines(path):
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, (
        f"{module_name(path)} has {lines} lines, more than {MAX_LINES}: split it by concern "
        "into private modules (e.g. _validate.py -> _validate_attention.py, _validate_basics.py)"
    )


def test_no_module_imports_a_private_name_from_another():
    found = [hit for path in MODULES for hit in private_imports_of(path)]
    unexpected = [hit for hit in found if hit not in PRIVATE_IMPORTS_ALLOWED]
    assert not unexpected, (
        "a private name imported from another module: give the shared helper a public name "
        "in its (possibly private) module, or move it to where it is used: "
        + "; ".join(f"{who} imports {name} from {where}" for who, where, name in unexpected)
    )


def test_the_private_import_check_finds_what_it_should():
    source = (
        "from course_lib.geo import haversine as _haversine\n"  # a public name: fine
        "from course_lib.checks import _masks\n"  # a private module: fine
        "from course_lib import __version__\n"  # a dunder: fine
        "import numpy as np\n"
        "from numpy import _private\n"  # not the library's
        "def f():\n"
        "    from course_lib.geo import _latlon\n"  # inside a function too
        "from .attention import _private\n"
    )
    assert sorted(private_imports(source, "course_lib.views.probe", "course_lib.views")) == [
        ("course_lib.views.probe", "course_lib.geo", "_latlon"),
        ("course_lib.views.probe", "course_lib.views.attention", "_private"),
    ]
