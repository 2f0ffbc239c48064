"""The mistake catalogues' runner: realistic slips with course_lib, and how its answers are judged.

The catalogues are data, ``tests/mistakes/<catalogue>_<area>.toml``, and
``tests/test_mistakes.py`` runs them. Each ``[[case]]`` is one slip a student (or an
instructor) makes with the public API as the chapters and exercises use it:

* ``id`` (``"masking.lengths_float"``: the library module, then the slip), ``slip`` (what it
  is, in words) and ``code``, run in a fresh namespace (:func:`namespace`: the usual imports,
  every public name of the library, a few small ready-made objects, ``tmp`` and ``run_cli``);
* ``expect``: ``"error"`` (the library must raise) or ``"warn"`` (it must at least warn; an
  error whose message fits counts too);
* ``keywords``: lowercase regular expressions that a clear message must all contain --
  normally the name of what the user passed, in their words, and something about what was
  expected or the fix. They were fixed before the case first ran;
* ``outcome``: the class the case had when it was recorded -- **clear** (it raised, or warned
  where a warning is enough, with a message that holds every keyword and reads like no
  PyTorch, NumPy or Python internal), **confusing** (it raised or warned, but the message
  misses a keyword or reads like an internal) or **silent** (no exception, no warning). The
  suite fails when a case gets worse than its recorded class;
* ``dropped`` (optional): why the case, found to be legitimate input after its one run, is
  not measured (it stays, with the reason, and is not run);
* ``needs`` and ``needs_reason`` (optional): what the machine must offer for the case to be
  judged (:data:`NEEDS`); elsewhere it is skipped, with the reason.

The outcomes were recorded from one run of every case on the library of commit 7a1c8b9
(Linux, bubblewrap's sandbox available, no GPU). A case that answers better than recorded
passes with a warning that names the line to change; a better message is the only reason to
change an outcome. The mistakes named in the issue that asked for the first catalogue are
tested elsewhere and are left out (a float 0/1 causal mask, an inverted key padding mask,
``Vocab("a string")``, a Dataset where a DataLoader is expected, and so on).

The five catalogues, each written before it first ran and each then used to improve the
messages (all five are development sets now): ``dev`` (309 cases), ``heldout`` (165, and one
dropped), ``fresh`` (126, five dropped), ``final`` (130, three dropped) and ``measure`` (136).
No further rounds are run here: the measure of this area is a fixed frame (every code cell of
the student notebooks, the most likely slips each) held by the book's maintainers outside the
repository.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import signal
import tempfile
import time
import warnings
from collections import Counter
from dataclasses import dataclass, fields
from pathlib import Path

import matplotlib
import torch

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: pytest's own dependency reads TOML there
    import tomli as tomllib

matplotlib.use("Agg")

#: Where the catalogues live.
DATA = Path(__file__).resolve().parent / "mistakes"
#: The catalogues, oldest first.
CATALOGUES = ("dev", "heldout", "fresh", "final", "measure")
#: The areas of the library a catalogue's files cover, in the order of the reference page
#: (``ch1-4`` and ``ch5-7``: the last catalogue, one file per half of the book).
AREAS = (
    "attention",
    "models",
    "translation",
    "decoding",
    "gps",
    "training",
    "checks",
    "ch1-4",
    "ch5-7",
)
#: The classes of an answer, worst first.
CLASSES = ("silent", "confusing", "clear")
#: The share of clear answers the development catalogue is held to.
TARGET = 0.98
#: Seconds one case may run before it counts as hanging (a confusing answer).
CASE_TIMEOUT_S = 30


@dataclass(frozen=True)
class Case:
    """One mistake: what it is, the code, how to judge the answer, and its recorded class."""

    id: str
    slip: str
    code: str
    keywords: tuple[str, ...]
    expect: str = "error"  # or "warn"
    catalogue: str = ""
    area: str = ""
    outcome: str = "clear"
    dropped: str | None = None
    needs: str | None = None
    needs_reason: str | None = None

    def __post_init__(self) -> None:
        if self.expect not in ("error", "warn"):
            raise ValueError(f"{self.id}: expect must be 'error' or 'warn', got {self.expect!r}")
        if self.outcome not in CLASSES:
            raise ValueError(f"{self.id}: outcome must be one of {CLASSES}, got {self.outcome!r}")
        if not self.keywords:
            raise ValueError(f"{self.id}: give at least one keyword")
        for keyword in self.keywords:
            if keyword != keyword.lower():
                raise ValueError(f"{self.id}: keywords are lowercase, got {keyword!r}")
            re.compile(keyword)
        if self.needs is not None and (self.needs not in NEEDS or not self.needs_reason):
            raise ValueError(
                f"{self.id}: needs must be one of {sorted(NEEDS)}, with a needs_reason"
            )

    @property
    def module(self) -> str:
        """The part of the library the slip is made with: the first part of the id."""
        return self.id.split(".")[0]


#: The fields a case gives in a file (its catalogue and area are the file's).
_FIELDS = {f.name for f in fields(Case)} - {"catalogue", "area"}


def load(path: Path) -> list[Case]:
    """The cases of one catalogue file; an error if the file is not as described above."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    catalogue, area = data.get("catalogue"), data.get("area")
    if catalogue not in CATALOGUES or area not in AREAS or path.stem != f"{catalogue}_{area}":
        raise ValueError(f"{path.name}: name it <catalogue>_<area>.toml, as its keys say")
    cases = []
    for row in data.get("case", []):
        unknown = set(row) - _FIELDS
        if unknown:
            raise ValueError(f"{path.name}: {row.get('id')}: unknown fields {sorted(unknown)}")
        row = {**row, "keywords": tuple(row["keywords"])}
        cases.append(Case(**row, catalogue=catalogue, area=area))
    return cases


def all_cases(catalogue: str | None = None) -> list[Case]:
    """Every case (of one ``catalogue``, or of all), the dropped ones too; an error if an id
    repeats."""
    paths = sorted(
        DATA.glob("*.toml"),
        key=lambda p: (CATALOGUES.index(p.stem.split("_")[0]), AREAS.index(p.stem.split("_")[1])),
    )
    cases = [c for p in paths for c in load(p) if catalogue in (None, c.catalogue)]
    seen: set[str] = set()
    for c in cases:
        if c.id in seen:
            raise ValueError(f"two cases have the id {c.id!r}")
        seen.add(c.id)
    return cases


def _no_gpu() -> str | None:
    if torch.cuda.is_available():
        return "this machine has a CUDA GPU"
    return None


def _at_most_one_gpu() -> str | None:
    count = torch.cuda.device_count() if torch.cuda.is_available() else 0
    return f"this machine has {count} CUDA GPUs" if count > 1 else None


def _sandbox() -> str | None:
    from course_lib.grading.sandbox import probe

    reason = probe()
    return f"the grader's sandbox cannot start here: {reason}" if reason else None


#: What a case may need of the machine, and why it is not there (``None`` where it is).
NEEDS = {"sandbox": _sandbox, "no-gpu": _no_gpu, "at-most-one-gpu": _at_most_one_gpu}


def unmet(c: Case) -> str | None:
    """Why ``c`` cannot be judged on this machine (its ``needs`` is not met), or ``None``."""
    if c.needs is None:
        return None
    why = NEEDS[c.needs]()
    return f"{c.id}: {why}; {c.needs_reason}" if why else None


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


#: What PyTorch, NumPy and Python say from deep inside: a message that reads like one of these
#: tells a student where the code broke, not what they did.
INTERNAL = (
    r"mat1 and mat2",
    r"size of tensor a",
    r"must match the size of tensor",
    r"index out of range in self",
    r"expected scalar type",
    r"not enough values to unpack",
    r"too many values to unpack",
    r"object has no attribute",
    r"unsupported operand",
    r"'nonetype'",
    r"is not subscriptable",
    r"object is not callable",
    r"object is not iterable",
    r"has no len\(\)",
    r"only one element tensors",
    r"only integer tensors of a single element",
    r"cannot be interpreted as an integer",
    r"operands could not be broadcast",
    r"could not broadcast",
    r"shape '\[.*\]' is invalid for input of size",
    r"dimension out of range",
    r"sizes of tensors must match",
    r"not implemented for '",
    r"expected all tensors to be on the same device",
    r"is ambiguous",
    r"can only concatenate",
    r"invalid literal for int",
    r"could not convert string to float",
    r"not supported between instances of",
    r"input must have the type",
    r"must have the same dtype",
    r"expected (floating point|object of scalar) type",
    r"torch not compiled with cuda",
    r"invalid device ordinal",
    r"list index out of range",
    r"tuple index out of range",
    r"is out of bounds for",
    r"division by zero",
    r"math domain error",
    r"'a' and 'p' must have same size",
    r"argument 'input' \(position",
    r"expected str, bytes or os\.pathlike object",
    r"grad can be implicitly created only for scalar outputs",
    r"does not match format",
)
_INTERNAL = re.compile("|".join(INTERNAL))

#: Warnings that say nothing about the user's input (a library's own deprecations).
_IGNORED_WARNINGS = (DeprecationWarning, PendingDeprecationWarning, FutureWarning)


@dataclass(frozen=True)
class Outcome:
    """What one case gave: ``clear``, ``confusing`` or ``silent``, and the message."""

    case: Case
    result: str
    message: str
    seconds: float


class _Timeout(BaseException):
    """A case ran past ``CASE_TIMEOUT_S``."""


#: A self-check reporting that the student's own function raised: what follows is the
#: student's error, quoted on purpose (``"masked_softmax raised TypeError: ..."``).
_QUOTED = re.compile(r"\braised \w*(error|exception)\b", re.IGNORECASE)


def looks_internal(message: str) -> bool:
    """Whether ``message`` reads like a PyTorch, NumPy or Python internal. In a self-check's
    report of the student's own error, only the check's words before it count."""
    quoted = _QUOTED.search(message)
    own = message[: quoted.start()] if quoted else message
    return bool(_INTERNAL.search(own.lower()))


def judge(message: str, keywords: tuple[str, ...]) -> str:
    """``clear`` when ``message`` holds every keyword and reads like no internal, else
    ``confusing``."""
    text = message.lower()
    if looks_internal(text) or not all(re.search(k, text) for k in keywords):
        return "confusing"
    return "clear"


def _message(err: BaseException) -> str:
    text = str(err)
    if isinstance(err, KeyError) and err.args:
        text = str(err.args[0])
    return f"{type(err).__name__}: {text or repr(err)}"


def _body(message: str) -> str:
    """The message without the exception's type name (keywords are matched on the text the
    library wrote, so ``TypeError`` cannot count as the word "type")."""
    return message.split(": ", 1)[1] if ": " in message else message


@contextlib.contextmanager
def _deadline(seconds: int):
    """Raise :class:`_Timeout` in a case that runs too long (main thread, POSIX only)."""
    usable = hasattr(signal, "SIGALRM") and _main_thread()
    if usable and signal.getitimer(signal.ITIMER_REAL)[0] > 0:
        usable = False  # someone else's timer (a test runner's): leave it alone
    if not usable:
        yield
        return

    def alarm(signum, frame):
        raise _Timeout

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _main_thread() -> bool:
    import threading

    return threading.current_thread() is threading.main_thread()


def run_case(c: Case, timeout_s: int = CASE_TIMEOUT_S) -> Outcome:
    """Run one case in a fresh namespace and classify what the library did."""
    import matplotlib.pyplot as plt

    start = time.perf_counter()
    error: BaseException | None = None
    caught: list[warnings.WarningMessage] = []
    with tempfile.TemporaryDirectory(prefix="probe-") as tmp:
        env = dict(os.environ)
        state = torch.random.get_rng_state()
        torch.manual_seed(0)
        with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
            warnings.simplefilter("ignore")
            ns = namespace(Path(tmp))  # a failure here is the probe's, not the case's
        code = compile(c.code, f"<case {c.id}>", "exec")
        try:
            with (
                warnings.catch_warnings(record=True) as caught,
                contextlib.redirect_stdout(io.StringIO()),
                contextlib.redirect_stderr(io.StringIO()),
                _deadline(timeout_s),
            ):
                warnings.simplefilter("always")
                exec(code, ns)
        except _Timeout:
            error = TimeoutError(f"the case ran longer than {timeout_s} s")
        except KeyboardInterrupt:
            raise
        except BaseException as err:  # SystemExit too: a usage error of a command line
            error = err
        finally:
            os.environ.clear()
            os.environ.update(env)
            torch.random.set_rng_state(state)
            plt.close("all")
    seconds = time.perf_counter() - start
    relevant = [w for w in caught if not issubclass(w.category, _IGNORED_WARNINGS)]
    warned = [f"{w.category.__name__}: {w.message}" for w in relevant]
    if error is not None:
        message = _message(error)
        if isinstance(error, TimeoutError):
            return Outcome(c, "confusing", message, seconds)
        return Outcome(c, judge(_body(message), c.keywords), message, seconds)
    if warned:
        if c.expect == "warn":
            fits = [m for m in warned if judge(_body(m), c.keywords) == "clear"]
            if fits:
                return Outcome(c, "clear", fits[0], seconds)
        note = "" if c.expect == "warn" else " (only a warning; an error was expected)"
        return Outcome(c, "confusing", warned[0] + note, seconds)
    return Outcome(c, "silent", "(no error, no warning)", seconds)


def clear_share(outcomes: list[Outcome]) -> float:
    return sum(o.result == "clear" for o in outcomes) / max(len(outcomes), 1)


def summary(outcomes: list[Outcome]) -> str:
    """The counts, the share clear, and every confusing and silent case."""
    counts = Counter(o.result for o in outcomes)
    lines = [
        f"{len(outcomes)} mistakes: {counts['clear']} clear, {counts['confusing']} confusing, "
        f"{counts['silent']} silent; {100 * clear_share(outcomes):.1f} % clear"
    ]
    for result in ("silent", "confusing"):
        chosen = [o for o in outcomes if o.result == result]
        if chosen:
            lines += ["", f"{result} ({len(chosen)}):"]
            for o in chosen:
                lines.append(f"  {o.case.id}: {o.case.slip}")
                lines.append(f"      expected keywords {list(o.case.keywords)}")
                lines.append(f"      got: {' '.join(o.message.split())[:300]}")
    return "\n".join(lines)
