"""How the book's notebooks are verified on the machine at hand: exactly, or by their claims.

Two kinds of output live in a chapter:

* **platform-independent** ones -- data, worked examples with fixed seeds and untrained
  modules, shapes, tables a formula produces -- are printed rounded, run on the CPU and must
  match on every machine. Their cells carry the tag ``nbval-check-output``.
* **trained results** (tag ``platform-dependent``) differ in their low bits between CPU
  kernels, BLAS builds, thread counts and GPUs, and a small chaotic training can amplify that.
  What the chapter concludes from them is stated in **claim cells** (tag ``claim``): plain
  assertions with honest tolerances, which run everywhere.

``make execute`` records the *platform fingerprint* of the machine that produced the outputs
in each notebook (``metadata.course.platform``). ``make test`` then verifies each notebook in
one of two modes:

``reference``
    the fingerprint matches: nbval compares every output, as it was recorded;
``portable``
    anywhere else: every cell still runs, the ``nbval-check-output`` cells are compared
    exactly, and the claim cells must pass (nbval's lax mode, per notebook).

``COURSE_VERIFY=portable`` (or ``reference``) forces a mode. Used as a pytest plugin
(``-p verification``) this module switches nbval per notebook and prints the plan.

    python tools/verification.py            # print this machine's fingerprint and the plan
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

MODE_VARIABLE = "COURSE_VERIFY"
EXACT, PLATFORM, IGNORE, CLAIM = (
    "nbval-check-output",
    "platform-dependent",
    "nbval-ignore-output",
    "claim",
)
CLASSES = (EXACT, PLATFORM, IGNORE)


def _cpu_name() -> str:
    """Vendor, model and instruction sets of the CPU: MKL and oneDNN pick code paths by them.

    The instruction-set flags enter as a short hash, so the record stays readable.
    """
    try:
        info = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return platform.processor() or "unknown"
    fields = {}
    for line in info.splitlines():
        key, _, value = line.partition(":")
        fields.setdefault(key.strip(), value.strip())
    parts = [fields.get("vendor_id", ""), fields.get("model name", "")]
    if "cpu family" in fields:
        parts.append(f"(family {fields['cpu family']}, model {fields.get('model', '?')})")
    if "flags" in fields:
        flags = " ".join(sorted(fields["flags"].split()))
        parts.append(f"flags {hashlib.sha256(flags.encode()).hexdigest()[:8]}")
    return " ".join(p for p in parts if p) or platform.processor() or "unknown"


def fingerprint() -> dict[str, str]:
    """What decides the low bits of a trained result on this machine.

    Measured in the environment of the caller, which the notebook kernels inherit
    (``ATEN_CPU_CAPABILITY``, ``MKL_ENABLE_INSTRUCTIONS``, ``OMP_NUM_THREADS``, ...).
    """
    import torch

    blas = re.search(r"Math Kernel Library Version ([\d.]+)", torch.__config__.show())
    requested = os.environ.get("COURSE_DEVICE")
    device = requested or ("cuda" if torch.cuda.is_available() else "cpu")
    if device.startswith("cuda") and torch.cuda.is_available():
        device = f"{device} ({torch.cuda.get_device_name(torch.device(device))})"
    return {
        "torch": torch.__version__,
        "device": device,
        "cpu": _cpu_name(),
        "machine": platform.machine(),
        "cpu_capability": torch.backends.cpu.get_cpu_capability(),
        "blas": f"MKL {blas.group(1)}" if blas else "other (no MKL)",
        "blas_instructions": os.environ.get("MKL_ENABLE_INSTRUCTIONS", "auto"),
        "threads": str(torch.get_num_threads()),
    }


def recorded_fingerprint(nb: dict) -> dict[str, str] | None:
    return nb.get("metadata", {}).get("course", {}).get("platform")


def cell_tags(cell: dict) -> list[str]:
    return list(cell.get("metadata", {}).get("tags", []))


def code_cells(nb: dict) -> list[dict]:
    return [c for c in nb["cells"] if c["cell_type"] == "code" and "".join(c["source"]).strip()]


@dataclass(frozen=True)
class Plan:
    """How one notebook is verified here."""

    notebook: Path
    mode: str  # "reference" or "portable"
    reason: str
    exact_cells: int  # cells whose outputs nbval compares exactly
    claim_cells: int  # assertion cells that state the chapter's claims

    @property
    def portable(self) -> bool:
        return self.mode == "portable"


def plan(path: Path, current: dict[str, str] | None = None) -> Plan:
    """Decide the mode for one notebook and count what it compares."""
    nb = json.loads(Path(path).read_text(encoding="utf-8"))
    recorded = recorded_fingerprint(nb)
    forced = os.environ.get(MODE_VARIABLE, "").strip().lower()
    if forced not in ("", "auto", "reference", "portable"):
        raise ValueError(
            f"{MODE_VARIABLE}={forced!r}: use 'reference', 'portable' or leave it unset"
        )
    current = fingerprint() if current is None else current
    if forced in ("reference", "portable"):
        mode, reason = forced, f"forced by {MODE_VARIABLE}={forced}"
    elif recorded is None:
        mode, reason = "portable", "the notebook records no platform (run `make execute`)"
    elif recorded == current:
        mode, reason = "reference", "this machine is the one that recorded the outputs"
    else:
        diffs = [
            f"{key} {recorded.get(key)!r} here {current.get(key)!r}"
            for key in sorted(set(recorded) | set(current))
            if recorded.get(key) != current.get(key)
        ]
        mode, reason = "portable", "recorded on another platform: " + "; ".join(diffs)
    cells = code_cells(nb)
    if mode == "reference":
        exact = sum(IGNORE not in cell_tags(c) for c in cells)
    else:
        exact = sum(EXACT in cell_tags(c) for c in cells)
    claims = sum(CLAIM in cell_tags(c) for c in cells)
    return Plan(Path(path), mode, reason, exact, claims)


def format_plans(plans: list[Plan], seconds: dict[str, float] | None = None) -> str:
    """The plan as a table; with ``seconds`` (measured per notebook name), a time column."""
    timed = seconds is not None

    def minutes(name: str) -> str:
        return f"{seconds[name] / 60:8.1f}" if timed and name in seconds else " " * 8 * timed

    head = f"{'notebook':36} {'mode':10} {'exact':>6} {'claims':>7}"
    lines = [head + (f" {'minutes':>8}" if timed else "")]
    for p in plans:
        row = f"{p.notebook.name:36} {p.mode:10} {p.exact_cells:6d} {p.claim_cells:7d}"
        lines.append(row + (f" {minutes(p.notebook.name)}" if timed else ""))
    total = (
        f"{'total':36} {'':10} {sum(p.exact_cells for p in plans):6d} "
        f"{sum(p.claim_cells for p in plans):7d}"
    )
    if timed:
        total += f" {sum(seconds.values()) / 60:8.1f}"
    lines.append(total)
    reasons = sorted({p.reason for p in plans})
    lines += [f"why: {r}" for r in reasons]
    return "\n".join(lines)


# -- pytest plugin: `pytest --nbval -p verification chapters/*.ipynb` ----------------------

#: Seconds each notebook took in a recent `make test` (its summary prints the minutes; these
#: are from a fresh clone's run on 2026-11-26, Intel Xeon, 2 cores, with other runs beside
#: it): the plugin starts the longest first, so the longest chapter never starts last.
EXPECTED_SECONDS = Path(__file__).with_name("notebook_seconds.json")
#: Where the plugin writes the seconds it measured, for run_tests.sh's summary.
MEASURED_SECONDS = Path(__file__).resolve().parents[1] / ".notebook-seconds.json"

_PLANS: dict[str, Plan] = {}


def _plan_for(path: Path) -> Plan:
    key = str(Path(path).resolve())
    if key not in _PLANS:
        _PLANS[key] = plan(Path(path), _current())
    return _PLANS[key]


_CURRENT: dict[str, str] = {}


def _current() -> dict[str, str]:
    if not _CURRENT:
        _CURRENT.update(fingerprint())
    return _CURRENT


@pytest.hookimpl(hookwrapper=True)
def pytest_collect_file(file_path, parent):
    outcome = yield
    if file_path.suffix != ".ipynb":
        return
    for collector in outcome.get_result() or []:
        if hasattr(collector, "compare_outputs") and _plan_for(file_path).portable:
            collector.compare_outputs = False  # nbval's lax mode, for this notebook only


def longest_first(names: list[str], expected: dict[str, float]) -> list[str]:
    """Notebook names by expected seconds, longest first; unknown ones (new) go first."""
    return sorted(names, key=lambda n: -expected.get(n, float("inf")))


def pytest_collection_modifyitems(session, config, items):
    try:
        expected = json.loads(EXPECTED_SECONDS.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return
    names = list(dict.fromkeys(Path(item.nodeid.split("::")[0]).name for item in items))
    rank = {name: i for i, name in enumerate(longest_first(names, expected))}
    # stable: the cells of a notebook keep their order; xdist --dist loadfile hands out the
    # notebooks in this order
    items.sort(key=lambda item: rank[Path(item.nodeid.split("::")[0]).name])


_SECONDS: dict[str, float] = {}


def pytest_runtest_logreport(report):
    path = report.nodeid.split("::")[0]
    if path.endswith(".ipynb"):
        name = Path(path).name
        _SECONDS[name] = _SECONDS.get(name, 0.0) + report.duration


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    paths = [Path(a) for a in config.args if a.endswith(".ipynb")]
    if not paths:
        return
    plans = [_plan_for(p) for p in sorted(paths)]
    if _SECONDS:
        MEASURED_SECONDS.write_text(json.dumps(_SECONDS, indent=1), encoding="utf-8")
    terminalreporter.section("verification mode")
    terminalreporter.write_line(
        "reference: every output compared as recorded; portable: the nbval-check-output "
        "cells compared exactly, trained results checked by the claim cells"
    )
    for line in format_plans(plans).splitlines():
        terminalreporter.write_line(line)


def same_as_laptop() -> bool:
    """Whether this machine's own kernels are the ones `make test-laptop` simulates (AVX2):
    then the simulated-laptop run would repeat `make test` exactly."""
    import torch

    simulated = os.environ.get("ATEN_CPU_CAPABILITY") or os.environ.get("MKL_ENABLE_INSTRUCTIONS")
    return not simulated and torch.backends.cpu.get_cpu_capability() == "AVX2"


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(description="this machine's fingerprint and plan")
    parser.add_argument(
        "--summary", action="store_true", help="the plan with the minutes each notebook took"
    )
    parser.add_argument(
        "--same-as-laptop",
        action="store_true",
        help="exit 0 when this machine's kernels already are the simulated laptop's (AVX2)",
    )
    args = parser.parse_args(argv)
    root = Path(__file__).resolve().parents[1]
    plans = [plan(p) for p in sorted((root / "chapters").glob("*.ipynb"))]
    if args.same_as_laptop:
        same = same_as_laptop()
        print(
            "this machine's CPU kernels are AVX2 already: `make test` ran what `make test-laptop` "
            "simulates"
            if same
            else "this machine's kernels differ from the simulated laptop's"
        )
        return 0 if same else 1
    if args.summary:
        try:
            seconds = json.loads(MEASURED_SECONDS.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            seconds = {}
        print(format_plans(plans, seconds))
        return 0
    print(json.dumps(fingerprint(), indent=2))
    print(format_plans(plans))
    return 0


if __name__ == "__main__":
    sys.exit(main())
