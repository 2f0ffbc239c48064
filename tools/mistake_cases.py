"""The catalogue of realistic mistakes that ``tools/probe_mistakes.py`` runs against course_lib.

Each :class:`Case` is one slip a student (or an instructor) makes with the public API as the
chapters and exercises use it: a snippet executed in a fresh namespace (:func:`namespace`:
the usual imports, every public name of the library, and a few small ready-made objects),
and the rule that judges what the library answers, fixed *before* the probe is run:

* ``expect="error"``: the library must raise; ``expect="warn"``: it must at least warn (an
  error whose message fits counts too);
* ``keywords``: lowercase regular expressions that a clear message must all contain --
  normally the name of what the user actually passed, in their words, and something about
  what was expected or the fix. They say what a helpful message must say, not what the
  library happens to print.

The mistakes named in the issue that asked for this probe are tested elsewhere and are left
out of it (a float 0/1 causal mask, an inverted key padding mask, ``Vocab("a string")``, a
Dataset where a DataLoader is expected, and so on).

The cases live in one module per part of the library (``mistake_cases_*.py``);
:func:`all_cases` gathers them.
"""

from __future__ import annotations

import contextlib
import io
import re
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "Case",
    "case",
    "all_cases",
    "namespace",
    "CliError",
    "PAIRS",
    "POSITIVE",
    "NON_NEGATIVE",
    "PROBABILITY",
]

#: Keywords for "it must be positive", however the message words it.
POSITIVE = r"positive|> ?0\b|>= ?1\b|at least 1\b|greater than (0|zero)"
#: ... "it must not be negative".
NON_NEGATIVE = r"non-negative|negative|>= ?0\b"
#: ... "it is a probability".
PROBABILITY = r"probability|\[0, 1[)\]]|between 0 and 1"


@dataclass(frozen=True)
class Case:
    """One mistake: where it happens, what it is, the code, and how to judge the answer."""

    id: str
    module: str
    slip: str
    code: str
    keywords: tuple[str, ...]
    expect: str = "error"  # or "warn"

    def __post_init__(self) -> None:
        if self.expect not in ("error", "warn"):
            raise ValueError(f"{self.id}: expect must be 'error' or 'warn', got {self.expect!r}")
        if not self.keywords:
            raise ValueError(f"{self.id}: give at least one keyword")
        for keyword in self.keywords:
            if keyword != keyword.lower():
                raise ValueError(f"{self.id}: keywords are lowercase, got {keyword!r}")
            re.compile(keyword)


def case(
    id: str, slip: str, code: str, keywords: tuple[str, ...] | list[str], expect: str = "error"
) -> Case:
    """A :class:`Case` whose module is the first part of its ``id`` (``"masking.lengths"``)."""
    return Case(id, id.split(".")[0], slip, textwrap.dedent(code).strip(), tuple(keywords), expect)


#: The sentence pairs of the ready-made vocabularies: ``(french, english)``, normalised.
PAIRS = [
    ("je suis content", "i am happy"),
    ("je suis fatigue", "i am tired"),
    ("il est grand", "he is tall"),
    ("elle est petite", "she is small"),
    ("nous sommes prets", "we are ready"),
    ("vous etes en retard", "you are late"),
    ("ils sont ici", "they are here"),
    ("je suis ici", "i am here"),
]


class CliError(Exception):
    """What ``run_cli`` raises when the grading command exits with an error: its output."""


def _run_cli(argv: list[str]) -> str:
    """Run ``python -m course_lib.grading`` in-process; its output, or :class:`CliError`
    with what it printed when it exits with a non-zero status."""
    from course_lib.grading.__main__ import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(argv)
        except SystemExit as exit_:  # argparse's usage errors
            status = exit_.code
    if status:
        raise CliError((err.getvalue() + out.getvalue()).strip())
    return out.getvalue()


_IMPORTS = """
import math
import os
from functools import partial
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, TensorDataset
"""

#: Modules whose public names (``__all__``) the namespace holds; later ones win a clash.
MODULES = (
    "masking",
    "attention",
    "multihead",
    "rotary",
    "modern_block",
    "positional",
    "seq2seq",
    "seq2seq_attention",
    "transformer",
    "squares",
    "points_transformer",
    "datafiles",
    "tatoeba",
    "vocab",
    "translation",
    "recurrent_translation",
    "decoder_only",
    "decoding",
    "geo",
    "gps",
    "trajectories",
    "train",
    "schedules",
    "metrics",
    "multiple_comparisons",
    "plots",
    "checks",
    "lecture.training",
)

_READY = """
# squares (Chapters 1-4)
points, directions = make_squares(16, seed=0)  # (16, 4, 2) float64, (16,)
source, target = split_source_target(points)  # (16, 2, 2) float32 each
encoder, decoder = Encoder(2, 4), Decoder(2, 4)
attn_decoder = AttentionDecoder(2, 4)
seq2seq = EncoderDecoder(encoder, decoder, target_len=2)
sa_model = SelfAttentionEncoderDecoder(SelfAttentionConfig())
train_set, val_set = seq2seq_datasets(points, points[:8])
train_loader = DataLoader(train_set, batch_size=8, shuffle=True, generator=torch.Generator())
val_loader = DataLoader(val_set, batch_size=8)
optimizer = torch.optim.Adam(seq2seq.parameters(), lr=0.01)
trainer = Trainer(seq2seq, nn.MSELoss(), optimizer, "cpu")

# attention (Chapters 2-4)
scores = torch.randn(2, 3, 5)  # (B, T, S)
q, k, v = torch.randn(2, 3, 4), torch.randn(2, 5, 4), torch.randn(2, 5, 6)
x = torch.randn(2, 5, 8)  # (B, T, D)
mha = MultiHeadAttention(8, 2)
lengths = torch.tensor([2, 4])

# translation (Chapter 5)
pairs = list(PAIRS)
src_vocab = Vocab(fr for fr, _ in pairs)
tgt_vocab = Vocab(en for _, en in pairs)
ids = encode_pairs(pairs, src_vocab, tgt_vocab)
batch = next(iter(PairBatches(ids[:2], 2)))  # src (2, S), tgt_in (2, T), tgt_out (2, T)
src = pad([src_vocab.encode(fr) for fr, _ in pairs[:2]])  # (2, 4)
tcfg = TranslationConfig(
    len(src_vocab), len(tgt_vocab), d_model=8, num_heads=2, d_ff=16,
    num_encoder_layers=1, num_decoder_layers=1, dropout=0.0, max_len=32,
)
transformer = TranslationTransformer(tcfg)
rcfg = RecurrentConfig(
    len(src_vocab), len(tgt_vocab), embed_dim=8, hidden_dim=8, attention="bahdanau",
    dropout=0.0, max_len=32,
)
gru_translator = RecurrentTranslator(rcfg)
dcfg = DecoderOnlyConfig(
    len(src_vocab), len(tgt_vocab), d_model=8, num_heads=2, d_ff=16, num_layers=1,
    dropout=0.0, max_len=32, max_src_len=16,
)
deconly = DecoderOnlyTranslator(dcfg)
hyps = ["i am happy", "he is tall", "we are late", "she is here"]
refs = ["i am happy", "he is big", "we are late", "she is small"]

# trajectories (Chapter 6)
rng = np.random.default_rng(0)
observed, future = lecture_trajectories(20, rng=rng)  # (20, 5, 3), (20, 3, 3)
features = TrajectoryFeatures.fit(observed, future)
"""


def namespace(tmp: Path) -> dict:
    """A fresh namespace for one case: imports, the library's public names, ready objects,
    ``tmp`` (an empty folder of the case's own) and ``run_cli(argv)``."""
    import importlib

    ns: dict = {"__name__": "__probe__", "tmp": Path(tmp), "run_cli": _run_cli}
    ns["CliError"] = CliError
    exec(_IMPORTS, ns)
    for name in MODULES:
        module = importlib.import_module(f"course_lib.{name}")
        for public in module.__all__:
            ns[public] = getattr(module, public)
    ns["PAIRS"] = PAIRS
    exec(_READY, ns)
    return ns


def all_cases() -> list[Case]:
    """Every case of the catalogue, in the order of the library's reference page."""
    here = str(Path(__file__).resolve().parent)
    if here not in sys.path:
        sys.path.insert(0, here)
    import mistake_cases_attention
    import mistake_cases_checks
    import mistake_cases_decoding
    import mistake_cases_gps
    import mistake_cases_models
    import mistake_cases_training
    import mistake_cases_translation

    cases = [
        *mistake_cases_attention.CASES,
        *mistake_cases_models.CASES,
        *mistake_cases_translation.CASES,
        *mistake_cases_decoding.CASES,
        *mistake_cases_gps.CASES,
        *mistake_cases_training.CASES,
        *mistake_cases_checks.CASES,
    ]
    seen: set[str] = set()
    for c in cases:
        if c.id in seen:
            raise ValueError(f"two cases have the id {c.id!r}")
        seen.add(c.id)
    return cases
