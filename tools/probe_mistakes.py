"""Probe course_lib with realistic mistakes and measure how clearly it answers them.

    python tools/probe_mistakes.py [--only ID_OR_MODULE ...] [--record PATH]

Runs every case of ``tools/mistake_cases*.py``, each in a fresh namespace with PyTorch's
generator seeded, one thread, warnings recorded and output captured, and classifies what
the library did:

* **clear** -- it raised (for ``expect="warn"``: warned, or raised) with a message that holds
  every keyword of the case and does not read like a PyTorch, NumPy or Python internal;
* **confusing** -- it raised (or warned), but the message misses a keyword or reads like an
  internal ("mat1 and mat2", "object has no attribute", ...);
* **silent** -- no exception and no warning: the wrong input went through.

Prints a table (id, module, result, the first 100 characters of the message) and a summary:
the counts, the share that is clear, and every confusing and silent case. ``--record PATH``
writes the summary and the table to a text file. Exit status 1 when a case is silent or
fewer than 98 % are clear (the issue's measure).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import re
import signal
import sys
import tempfile
import time
import warnings
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MPLBACKEND", "Agg")

sys.path.insert(0, str(Path(__file__).resolve().parent))

import matplotlib  # noqa: E402

matplotlib.use("Agg")

import torch  # noqa: E402

from mistake_cases import Case, all_cases, namespace  # noqa: E402

#: The share of clear answers the issue asks for.
TARGET = 0.98
#: Seconds one case may run before it counts as hanging (a confusing answer).
CASE_TIMEOUT_S = 30

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


def select(cases: list[Case], only: list[str] | None) -> list[Case]:
    """The cases whose id or module is named in ``only`` (an id prefix ending in ``.`` or
    ``*`` selects a group); all of them when ``only`` is empty."""
    if not only:
        return cases
    chosen = [
        c
        for c in cases
        if any(
            key in (c.id, c.module)
            or (key.endswith(("*", ".")) and c.id.startswith(key.rstrip("*")))
            for key in only
        )
    ]
    if not chosen:
        raise SystemExit(f"--only {' '.join(only)} matches no case id or module")
    return chosen


def probe(only: list[str] | None = None, progress=None) -> list[Outcome]:
    """Run the catalogue (or the cases ``only`` names); one :class:`Outcome` per case."""
    torch.set_num_threads(1)
    outcomes = []
    for c in select(all_cases(), only):
        outcome = run_case(c)
        outcomes.append(outcome)
        if progress:
            progress(outcome)
    return outcomes


def _row(o: Outcome) -> str:
    message = " ".join(o.message.split())[:100]
    return f"{o.case.id:<44} {o.case.module:<22} {o.result:<10} {message}"


def table(outcomes: list[Outcome]) -> str:
    """One line per case: id, module, result, the first 100 characters of the message."""
    header = f"{'id':<44} {'module':<22} {'result':<10} message"
    return "\n".join([header, "-" * len(header), *(_row(o) for o in outcomes)])


def clear_share(outcomes: list[Outcome]) -> float:
    return sum(o.result == "clear" for o in outcomes) / max(len(outcomes), 1)


def passes(outcomes: list[Outcome]) -> bool:
    """The issue's measure: none silent, at least 98 % clear."""
    silent = any(o.result == "silent" for o in outcomes)
    return not silent and clear_share(outcomes) >= TARGET


def summary(outcomes: list[Outcome]) -> str:
    """The counts, the share clear, cases per module, and every confusing and silent case."""
    counts = Counter(o.result for o in outcomes)
    n = len(outcomes)
    per_module = Counter(o.case.module for o in outcomes)
    clear_by_module = Counter(o.case.module for o in outcomes if o.result == "clear")
    lines = [
        f"{n} mistakes probed: {counts['clear']} clear, {counts['confusing']} confusing, "
        f"{counts['silent']} silent; {100 * clear_share(outcomes):.1f} % clear "
        f"(target: at least {100 * TARGET:.0f} % clear, none silent) -> "
        f"{'PASS' if passes(outcomes) else 'FAIL'}",
        f"seconds: {sum(o.seconds for o in outcomes):.1f}",
        "",
        "cases per module (clear / probed):",
        *(
            f"  {module:<24} {clear_by_module[module]:>3} / {count}"
            for module, count in per_module.items()
        ),
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


def later_catalogue(
    modules: tuple[str, ...],
    dropped: dict[str, str],
    earlier: set[str],
    label: str,
    include_dropped: bool = False,
) -> list[Case]:
    """The cases of a later probe's catalogue ``modules`` (without ``dropped`` unless asked):
    an error if an id repeats, is one of the ``earlier`` probes' ids, or if ``dropped`` names
    no case of it."""
    import importlib

    cases = [c for name in modules for c in importlib.import_module(name).CASES]
    seen: set[str] = set()
    for c in cases:
        if c.id in seen:
            raise ValueError(f"two {label} cases have the id {c.id!r}")
        if c.id in earlier:
            raise ValueError(f"{label} case {c.id!r} has the id of an earlier probe's case")
        seen.add(c.id)
    unknown = set(dropped) - seen
    if unknown:
        raise ValueError(f"DROPPED names no {label} case: {sorted(unknown)}")
    return cases if include_dropped else [c for c in cases if c.id not in dropped]


def run_later_probe(cases: list[Case], dropped: dict[str, str], doc: str, argv=None) -> int:
    """The command line of a later probe: run ``cases`` (``--only``), print the table and
    the summary with the dropped cases, write a record (``--record``)."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument(
        "--only", nargs="+", metavar="ID_OR_MODULE", help="run these case ids or modules only"
    )
    parser.add_argument("--record", type=Path, help="write the summary and the table here")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    outcomes = []
    for c in select(cases, args.only):
        outcome = run_case(c)
        outcomes.append(outcome)
        print(f"{outcome.result:<10} {c.id}", file=sys.stderr, flush=True)
    text = summary(outcomes)
    if dropped:
        text += "\n\ndropped as legitimate input (not measured):\n" + "\n".join(
            f"  {case_id}: {reason}" for case_id, reason in dropped.items()
        )
    rows = table(outcomes)
    print(rows)
    print()
    print(text)
    if args.record:
        args.record.parent.mkdir(parents=True, exist_ok=True)
        args.record.write_text(
            header(sys.argv) + "\n\n" + text + "\n\n" + rows + "\n", encoding="utf-8"
        )
        print(f"\nrecorded in {args.record}")
    return 0 if passes(outcomes) else 1


def header(argv: list[str]) -> str:
    """When, where and how a record was made."""
    import datetime
    import platform

    import torch

    import course_lib

    cpu = platform.processor() or platform.machine()
    with contextlib.suppress(OSError):
        names = [x for x in Path("/proc/cpuinfo").read_text().splitlines() if "model name" in x]
        cpu = names[0].split(":", 1)[1].strip() if names else cpu
    return "\n".join(
        [
            f"# {' '.join(['python', *argv])}",
            f"# {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, "
            f"{cpu}, {os.cpu_count()} cores, {platform.platform()}",
            f"# python {platform.python_version()}, torch {torch.__version__}, "
            f"course_lib {course_lib.__version__}",
        ]
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--only", nargs="+", metavar="ID_OR_MODULE", help="run these case ids or modules only"
    )
    parser.add_argument("--record", type=Path, help="write the summary and the table here")
    args = parser.parse_args(argv)
    outcomes = probe(args.only)
    text = summary(outcomes)
    print(table(outcomes))
    print()
    print(text)
    if args.record:
        args.record.parent.mkdir(parents=True, exist_ok=True)
        args.record.write_text(
            header(sys.argv) + "\n\n" + text + "\n\n" + table(outcomes) + "\n", encoding="utf-8"
        )
        print(f"\nrecorded in {args.record}")
    return 0 if passes(outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
