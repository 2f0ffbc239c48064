"""Numbers in a chapter's prose, checked against the chapter's own executed outputs.

    python tools/prose_numbers.py [NOTEBOOK ...]    (default: every chapter)

The rule (README, "For authors"): every number that a markdown cell states is

1. **found in the outputs** of the notebook's code cells, as printed or as a longer printed
   number rounds to it (prose ``75.6`` is found in an output ``75.62``; ``0.07`` in
   ``+0.07``; signs are not compared, so ranges such as ``0.07–0.66`` read naturally);
2. or a **constant of its code**: a literal in one of its code cells (``EPOCHS = 30``);
3. or **marked as coming from elsewhere**: a visible tag ``[source: ...]`` naming the
   lecture, a paper, another chapter or a benchmark run and its date covers its paragraph
   (and a table right after it); a citation (``{cite}`key```) covers its sentence. The tag
   is plain text, so a reader sees it in Jupyter and on Colab as well as on the rendered
   page.

**A benchmark's numbers are checked against its record.** A tag that names anything under
``benchmarks/`` must name the committed record(s) the numbers come from, in
``benchmarks/results/``: ``benchmarks/results/2026-11-26_translation.txt``, or ``record(s)
2026-11-25_modern_blocks and _positions`` (``_positions`` is short for the record of the same
date and benchmark). Every number of the paragraph (and of a table right after it) must then be
found in those records -- printed there as the prose rounds it -- or in the notebook's own
outputs or code. A tag that says ``the same record(s)`` reuses the records of the tag before
it in the notebook (``the same run(s)`` too). A tag that names a benchmark but no record, or
a record that does not exist, is reported too.

**A run is checked like a benchmark.** A tag that names a *run* rather than a publication --
its words say so: run, rerun, seed, solution, exercise, trained, training, measured, timed,
executed (``[source: this solution run with seed 0 on the CPU, 2026-11-26]``) -- must name
the committed record that run wrote, and its numbers are then checked against that record as
above. A run that left no committed file is no source: commit its output as a record
(``benchmarks/recipe.py``'s ``Record``), or compute the number in a cell of the notebook.
Sentences that cite an exercise or a solution without a tag ("in exercise 10", "one seed")
are checked against the outputs like any other.

**What a record supports** (stricter than the outputs, because a record is long):

* the record's **text**: ``<name>.txt``; its ``.json`` (curves and translations for
  programs to read) only where there is no ``.txt``. A number the prose quotes from a
  record is one the record prints for a reader;
* its **numbers as tokens**: the digits of dates (``2026-11-25``), clock times (``19:53``)
  and version strings (``2.13.0``) are not numbers, so ``11`` is not found in
  ``2026-11-25``;
* a prose **integer** only as the same integer printed (``11`` is found in ``11 CPU s`` but
  not in ``10.6`` or ``11.4``); a prose decimal as printed or as a longer printed decimal
  rounds to it, as in the outputs.

A number the prose *derives* from a record -- a cost per epoch, a difference, a ratio -- is
found only if the record prints it (or a notebook cell computes it); where the same integer
happens to be printed for something else, the check cannot tell, so derived figures are best
printed by the benchmark itself.

Not checked: numbers inside inline code, maths, links and directive lines; chapter,
exercise, section and figure numbers ("Chapter 3", "exercise 7"); years (1900-2099), dates,
clock times and version strings ("torch 2.13.0"); and the integers 0 to 10, which the prose
uses as words ("5 fixes", "2 layers").

Orderings and words ("beats", "a third") cannot be checked this way: those sentences get a
claim cell. A number that fails is reported with the notebook, the markdown cell (its
0-based index) and the sentence, so a stale sentence is found before a reader finds it.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import nbtools  # noqa: E402

#: A number as prose and outputs write it: 1,234.5  0.0137  26,242  1e-3  3.5e+02
# a number may end in "x" (times: "1.4x"), but not run on into a word ("0x1f", "3rd")
NUMBER = re.compile(r"(?<![\w.])(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?:[eE]([-+]?\d+))?(?![^\Wx]|x\w)")
SOURCE_TAG = re.compile(r"\[source:[^\]]+\]")
#: Words by which a tag names a run (a training, a measurement) rather than a publication.
RUN = re.compile(
    r"\b(?:runs?|re-?runs?|ran|seeds?|solutions?|exercises?|trained|training|measured|timed|"
    r"executed)\b",
    re.I,
)
RESULTS = Path(__file__).resolve().parent.parent / "benchmarks" / "results"
RECORD = re.compile(
    r"(\d{4}-\d{2}-\d{2})_([A-Za-z0-9]+)((?:_[\w-]+?)*)(?:\.(?:txt|json))?(?![\w.])"
)
RECORD_SHORT = re.compile(r"(?<=[\s,])_([\w-]+?)(?:\.(?:txt|json))?(?![\w.])")
#: Digits that are not numbers, in a record or in the prose: dates (and a time after one),
#: clock times, version strings.
NOT_NUMBERS = re.compile(
    r"\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2})?)?|(?<![\w.])\d{1,2}:\d{2}(?::\d{2})?(?![\w.])"
    r"|(?<![\w.])\d+(?:\.\d+){2,}(?:\+\w+)?"
)
CITATION = re.compile(r"\{cite(?::\w+)?\}`[^`]*`")
# Parts of markdown whose numbers are not prose: maths, code, roles, links' targets, HTML.
HIDDEN = [
    re.compile(r"\[source:[^\]]+\]"),  # a tag's dates and versions are not prose numbers
    re.compile(r"\$\$.*?\$\$", re.S),
    re.compile(r"\$[^$\n]+\$"),
    re.compile(r"```.*?```", re.S),
    re.compile(r"`[^`\n]*`"),
    re.compile(r"\]\([^)]*\)"),
    re.compile(r"<[^>\n]+>"),
    re.compile(r"^:\w[\w-]*:.*$", re.M),  # directive options (:label:, :class:)
    re.compile(r"!\[[^\]]*\]"),
    NOT_NUMBERS,  # dates, clock times and versions ("torch 2.13.0")
]
STRUCTURE = re.compile(
    r"\b(?:[Cc]hapters?|[Ee]xercises?|[Ss]ections?|[Ff]igures?|[Ss]eeds?|[Cc]ells?|[Ii]ssues?|"
    r"[Ss]teps?|[Ll]ayers?|[Hh]eads?|[Ee]pochs?)\s+((?:\d+[a-c]?(?:\s*(?:[-–,]|and|to|or)\s*)?)+)"
)
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(*_])|\n\s*\n|\n\s*[-*] ")


@dataclass(frozen=True)
class Stale:
    """A prose number that is neither in the outputs nor in the code, nor marked."""

    notebook: str
    cell: int
    number: str
    sentence: str
    records: tuple[str, ...] = ()  # the records its tag names, where it has one
    problem: str = ""  # a tag that cannot be checked: no record named, or none found

    def __str__(self) -> str:
        where = f"{self.notebook}, markdown cell {self.cell}"
        if self.problem:
            return f"{where}: {self.problem}: {self.sentence!r}"
        if self.records:
            return (
                f"{where}: {self.number!r} is not in the record(s) its tag names "
                f"({', '.join(self.records)}) nor in the outputs or the code: {self.sentence!r}"
            )
        return (
            f"{where}: {self.number!r} is not in the "
            f"outputs or the code, and has no [source: ...] tag: {self.sentence!r}"
        )


def _value(match: re.Match) -> tuple[float, int]:
    """The number and its count of decimals."""
    whole, frac, exp = match.group(1), match.group(2) or "", match.group(3)
    text = whole.replace(",", "") + frac
    value = float(text) * (10 ** int(exp) if exp else 1)
    decimals = max(len(frac) - 1, 0) - (int(exp) if exp else 0)
    return value, max(decimals, 0)


def numbers_in(text: str) -> list[tuple[float, int]]:
    """Every number of ``text`` with its decimals (commas as thousands separators)."""
    return [_value(m) for m in NUMBER.finditer(text)]


def _hide(text: str) -> str:
    for pattern in HIDDEN:
        text = pattern.sub(lambda m: " " * len(m.group(0)), text)
    return text


def _structural(text: str) -> set[tuple[int, int]]:
    """Character spans of chapter / exercise / ... numbers."""
    spans = set()
    for m in STRUCTURE.finditer(text):
        for n in NUMBER.finditer(m.group(1)):
            spans.add((m.start(1) + n.start(), m.start(1) + n.end()))
    return spans


class Evidence:
    """What a notebook's prose may quote: its outputs' numbers and its code's constants."""

    def __init__(self, nb=None, *, printed: str = "", exact_integers: bool = False) -> None:
        self.exact_integers = exact_integers  # a record: an integer only as printed
        outputs, code = [printed], []
        for cell in nb.cells if nb is not None else []:
            if cell.cell_type != "code":
                continue
            code.append(cell.source)
            for out in cell.get("outputs", []):
                outputs.append(out.get("text", ""))
                outputs.append(out.get("data", {}).get("text/plain", ""))
        self.printed = numbers_in("\n".join(outputs))
        self.constants = {v for v, _ in numbers_in("\n".join(code))}

    def supports(self, value: float, decimals: int) -> bool:
        if value in self.constants:
            return True
        if decimals == 0 and self.exact_integers:
            return any(d == 0 and v == value for v, d in self.printed)
        scale = 10**decimals
        return any(
            round(v * scale) == round(value * scale)
            and d >= decimals
            or (d < decimals and v == value)
            for v, d in self.printed
        )


def named_records(tag: str, previous: tuple[str, ...] = ()) -> tuple[str, ...] | None:
    """The record names a ``[source: ...]`` tag gives (``None``: it names neither a
    benchmark nor a run, e.g. a paper or the lecture)."""
    if re.search(r"\bthe same (?:records?|runs?)\b", tag):
        return previous
    names = []
    for m in RECORD.finditer(tag):
        prefix = f"{m.group(1)}_{m.group(2)}"
        names.append(prefix + m.group(3))
        rest = tag[m.end() :]
        stop = RECORD.search(rest)
        for short in RECORD_SHORT.finditer(rest[: stop.start() if stop else len(rest)]):
            names.append(f"{prefix}_{short.group(1)}")
    if names or "benchmarks/" in tag or RUN.search(_hide_record_names(tag)):
        return tuple(dict.fromkeys(names))
    return None


def _hide_record_names(tag: str) -> str:
    return RECORD.sub(" ", tag)


def record_files(names: tuple[str, ...]) -> tuple[list[Path], list[str]]:
    """The file each record name stands for (its ``.txt``, else its ``.json``), and the
    names that have neither."""
    files, missing = [], []
    for name in names:
        found = [f for f in (RESULTS / f"{name}.txt", RESULTS / f"{name}.json") if f.exists()]
        if found:
            files.append(found[0])
        else:
            missing.append(name)
    return files, missing


def _record_text(names: tuple[str, ...]) -> tuple[str, list[str]]:
    """The records' text, with the digits that are not numbers (dates, times, versions)
    blanked, and the names not found."""
    files, missing = record_files(names)
    text = "\n".join(f.read_text(encoding="utf-8") for f in files)
    return NOT_NUMBERS.sub(lambda m: " " * len(m.group(0)), text), missing


def check(path: Path) -> list[Stale]:
    """The unsupported numbers of one notebook's prose."""
    return check_cells(nbtools.read(path), Path(path).name)


def check_cells(nb, name: str) -> list[Stale]:
    """The unsupported numbers of a notebook already read (``name`` for the messages)."""
    evidence = Evidence(nb)
    stale = []
    last_records: tuple[str, ...] = ()
    reported = set()  # blocks whose tag was reported once
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "markdown":
            continue
        text = _hide(cell.source)
        skip = _structural(text)
        covered = []  # (start, end, records or None)
        for start, end, tag in _tagged_blocks(cell.source):
            records = named_records(tag, last_records)
            if records:
                last_records = records
            covered.append((start, end, records))
        for sentence in _sentences(text):
            start, body = sentence
            words = " ".join(cell.source[start : start + len(body)].split())[:160]
            if CITATION.search(cell.source[start : start + len(body)]):
                continue
            block = next((c for c in covered if c[0] <= start < c[1]), None)
            quoted, records = evidence, ()
            if block is not None:
                if block[2] is None:  # a source that is not a benchmark: the tag is the rule
                    continue
                records = block[2]
                problem = ""
                if not records:
                    problem = (
                        "its [source: ...] tag names a benchmark or a run but no record "
                        "committed in benchmarks/results/ (name the record, e.g. "
                        "2026-11-26_translation; a run that left none is no source: commit "
                        "its output as a record, or compute the number in a cell)"
                    )
                text_of, missing = _record_text(records)
                if missing and not problem:
                    problem = (
                        f"its [source: ...] tag names record(s) {', '.join(missing)}, which "
                        "benchmarks/results/ does not hold"
                    )
                if problem:
                    if (index, block[0]) not in reported:
                        reported.add((index, block[0]))
                        stale.append(Stale(name, index, "", words, problem=problem))
                    continue
                quoted = _Either(evidence, Evidence(printed=text_of, exact_integers=True))
            for m in NUMBER.finditer(body):
                span = (start + m.start(), start + m.end())
                value, decimals = _value(m)
                if span in skip or _exempt(value, decimals, m.group(0)):
                    continue
                if not quoted.supports(value, decimals):
                    stale.append(Stale(name, index, m.group(0), words, records))
    return stale


class _Either:
    def __init__(self, *evidence: Evidence) -> None:
        self.evidence = evidence

    def supports(self, value: float, decimals: int) -> bool:
        return any(e.supports(value, decimals) for e in self.evidence)


def _tagged_blocks(source: str) -> list[tuple[int, int, str]]:
    """The paragraphs (and list items) that carry a source tag, and a table after one:
    ``(start, end, tag)``."""
    spans, previous, offset = [], "", 0
    for block in re.split(r"(\n\s*\n|\n(?=[-*] ))", source):  # paragraphs and list items
        tag = SOURCE_TAG.search(block) or (
            block.lstrip().startswith("|") and SOURCE_TAG.search(previous)
        )
        if tag:
            spans.append(
                (offset, offset + len(block), " ".join(SOURCE_TAG.findall(block)) or tag.group(0))
            )
        if block.strip():
            previous = block
        offset += len(block)
    return spans


def _sentences(text: str) -> list[tuple[int, str]]:
    parts, start = [], 0
    for m in SENTENCE_END.finditer(text):
        parts.append((start, text[start : m.start()]))
        start = m.end()
    parts.append((start, text[start:]))
    return parts


def _exempt(value: float, decimals: int, text: str) -> bool:
    """The integers 0 to 10 (words in the prose) and years."""
    if decimals == 0 and value <= 10:
        return True
    return decimals == 0 and 1900 <= value <= 2099 and "," not in text


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0].strip(),
        epilog="The rules: this script's docstring, and the README's 'For authors'.",
    )
    parser.add_argument(
        "notebooks", nargs="*", type=Path, help="notebooks to check (default: every chapter)"
    )
    paths = parser.parse_args(argv).notebooks or nbtools.chapter_notebooks()
    failures = [s for p in paths for s in check(p)]
    for s in failures:
        print(s)
    print(f"{len(failures)} unsupported prose numbers in {len(paths)} notebooks")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
