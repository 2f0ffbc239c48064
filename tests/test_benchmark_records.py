"""Benchmark figures a chapter copies into its code match the recorded benchmark run.

Chapter 7 plots the test-BLEU curves of ``benchmarks/modern.py translation`` from a
``BENCHMARK`` dict in one of its cells (a reader on Colab has no ``benchmarks/`` folder).
This test reads that dict and the record in ``benchmarks/results/`` it names, so a new
record or an edited cell cannot drift apart unnoticed. A record holds several runs, each
opened by a line ``<model>, lr <rate>, seed <seed>: <n> parameters``; a curve is named by
that label.
"""

import ast
import re
from pathlib import Path

import nbtools

ROOT = Path(__file__).resolve().parents[1]
LINE = re.compile(
    r"^  (?P<name>\S.*?)\s+(?P<seconds>\d+) CPU s  epoch\s+\d+  validation .* test\s+(?P<test>[\d.]+)$"
)


def copied_curves(notebook: Path) -> tuple[str, dict]:
    nb = nbtools.read(notebook)
    cell = next(c for c in nb.cells if c.cell_type == "code" and "BENCHMARK = {" in c.source)
    record = re.search(r"benchmarks/results/\S+\.txt", cell.source).group(0)
    tree = ast.parse(cell.source)
    assign = next(
        n for n in tree.body if isinstance(n, ast.Assign) and n.targets[0].id == "BENCHMARK"
    )
    return record, ast.literal_eval(assign.value)


HEADER = re.compile(r"^(?P<label>\S.*): [\d,]+ parameters$")


def recorded_curves(path: Path) -> dict:
    curves: dict = {}
    label = None
    for line in path.read_text().splitlines():
        if h := HEADER.match(line):
            label = h["label"]
        elif m := LINE.match(line):
            seconds, test = curves.setdefault(label or m["name"].strip(), ([], []))
            seconds.append(int(m["seconds"]))
            test.append(float(m["test"]))
    return curves


def test_chapter_7_curves_are_the_recorded_ones():
    record, copied = copied_curves(ROOT / "chapters" / "07_modern_transformers.ipynb")
    recorded = recorded_curves(ROOT / record)
    assert copied, f"no curves copied from {record}"
    for name, (seconds, test) in copied.items():
        assert name in recorded, f"{name!r} is not a run of {record}: {sorted(recorded)}"
        want_seconds, want_test = recorded[name]
        assert list(seconds) == want_seconds, f"{name}: CPU seconds differ from {record}"
        assert list(test) == want_test, f"{name}: test BLEU differs from {record}"
