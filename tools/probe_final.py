"""The final probe: a last measure of course_lib's answers to mistakes it was never tuned on.

    python tools/probe_final.py [--only ID_OR_MODULE ...] [--record PATH]

``tools/probe_mistakes.py`` (``tools/mistake_cases_*.py``), ``tools/probe_heldout.py``
(``tools/mistake_cases_heldout_*.py``) and ``tools/probe_fresh.py``
(``tools/mistake_cases_fresh_*.py``) were all used to improve the library's messages, so all
three are development sets now. This script runs a fourth catalogue,
``tools/mistake_cases_final_*.py``: mistakes written afterwards by going through the chapters
and the exercises in order (and the README's ``make grade``) and noting, for each cell a
student runs or adapts, the slips it invites -- from the notebooks, ``api.md`` and the public
signatures and docstrings alone, each with its expected answer and keywords fixed before any
of them ran, none a repeat of a case of the three earlier catalogues or of a mistake the issue
names. Every slip starts with the chapter and cell it comes from (``[Ch. 5, cell 38]``,
``[README, make grade]``). Each case runs exactly as in ``probe_mistakes.py`` (its
``run_case``: a fresh namespace, a seeded generator, one thread, warnings recorded) and is
judged by the same rules (clear, confusing, silent).

Prints the table and the summary (with the cases per chapter); ``--record PATH`` writes them
to a text file, and every case's outcome to ``PATH`` with the suffix ``.json``.
``--from-json JSON`` summarises such a file again without running any case (after a case is
moved to ``DROPPED``, say), so the measure comes from the one run. Exit status 1 when a case is
silent or fewer than 98 % are clear.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import torch  # noqa: E402

import probe_fresh  # noqa: E402
import probe_heldout  # noqa: E402
import probe_mistakes  # noqa: E402
from mistake_cases import Case, all_cases  # noqa: E402

#: The final catalogue, in the order of the library's reference page.
FINAL_MODULES = (
    "mistake_cases_final_attention",
    "mistake_cases_final_models",
    "mistake_cases_final_translation",
    "mistake_cases_final_gps",
    "mistake_cases_final_training",
    "mistake_cases_final_checks",
)

#: Cases found, after the one run, to hold input that is in fact legitimate: left out of the
#: measure, with the reason (their keywords were never changed).
DROPPED: dict[str, str] = {
    "positional.pe_attribute": (
        "PositionalEncoding keeps its table as the buffer pe, shaped (1, max_len, D) like the "
        "lecture module's, so source_seq + lib_posenc.pe is the lecture's cell and correct"
    ),
    "recurrent_translation.tie_unequal_widths": (
        "the GRU translator's output layer reads embed_dim features (its decoder is built with "
        "n_features=embed_dim), so tied embeddings work for any hidden_dim: nothing goes wrong"
    ),
    "gps.mode_probs_sum": (
        "mode_probs are relative weights by design (city_trajectories divides them by their "
        "sum; only all zeros is refused), so (0.5, 0.3, 0.3) is a valid setting"
    ),
}

#: Where a slip comes from: ``[Ch. 2c, ...`` or ``[README, ...`` at its start.
_SOURCE = re.compile(r"^\[(Ch\. \w+|README)\b")


def chapter(c: Case) -> str:
    """The chapter (``"Ch. 2c"``) or ``"README"`` a case's slip names first."""
    found = _SOURCE.match(c.slip)
    if not found:
        raise ValueError(f"{c.id}: the slip must start with [Ch. N, ...] or [README, ...]")
    return found.group(1)


def final_cases(include_dropped: bool = False) -> list[Case]:
    """Every final case (without the dropped ones unless asked); an error if an id repeats,
    is one of the three earlier catalogues', or a slip names no chapter."""
    earlier = (
        {c.id for c in all_cases()}
        | {c.id for c in probe_heldout.heldout_cases(include_dropped=True)}
        | {c.id for c in probe_fresh.fresh_cases(include_dropped=True)}
    )
    cases = probe_mistakes.later_catalogue(FINAL_MODULES, DROPPED, earlier, "final", True)
    for c in cases:
        chapter(c)  # every slip names the chapter (or the README) it comes from
    return cases if include_dropped else [c for c in cases if c.id not in DROPPED]


def _chapter_key(name: str) -> tuple:
    if name == "README":
        return (1, 0, "")
    number = name.split()[1]
    return (0, int(re.match(r"\d+", number).group()), number)


def per_chapter(outcomes: list[probe_mistakes.Outcome]) -> str:
    """Cases per chapter: clear / probed."""
    probed = Counter(chapter(o.case) for o in outcomes)
    clear = Counter(chapter(o.case) for o in outcomes if o.result == "clear")
    lines = ["cases per chapter (clear / probed):"]
    lines += [
        f"  {name:<24} {clear[name]:>3} / {probed[name]}"
        for name in sorted(probed, key=_chapter_key)
    ]
    return "\n".join(lines)


def save_outcomes(outcomes: list[probe_mistakes.Outcome], path: Path) -> None:
    """Every case's id, result, message and seconds, as JSON."""
    rows = [
        {"id": o.case.id, "result": o.result, "message": o.message, "seconds": o.seconds}
        for o in outcomes
    ]
    path.write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")


def load_outcomes(
    path: Path, only: list[str] | None = None, cases: Callable[..., list[Case]] | None = None
) -> list[probe_mistakes.Outcome]:
    """The outcomes :func:`save_outcomes` wrote, less the cases now dropped (``cases``: the
    catalogue's function, :func:`final_cases` by default)."""
    cases = cases or final_cases
    by_id = {c.id: c for c in cases(include_dropped=True)}
    chosen = {c.id for c in probe_mistakes.select(cases(), only)}
    rows = json.loads(path.read_text(encoding="utf-8"))
    return [
        probe_mistakes.Outcome(by_id[r["id"]], r["result"], r["message"], r["seconds"])
        for r in rows
        if r["id"] in chosen
    ]


def main(
    argv: list[str] | None = None,
    cases: Callable[..., list[Case]] | None = None,
    dropped: dict[str, str] | None = None,
    doc: str | None = None,
) -> int:
    """Run (or summarise) a catalogue: the final one unless ``cases``, its ``dropped`` dict
    and the runner's ``doc`` are given (``tools/probe_measure.py`` does)."""
    cases = cases or final_cases
    dropped = DROPPED if dropped is None else dropped
    parser = argparse.ArgumentParser(description=(doc or __doc__).split("\n\n")[0])
    parser.add_argument(
        "--only", nargs="+", metavar="ID_OR_MODULE", help="run these case ids or modules only"
    )
    parser.add_argument("--record", type=Path, help="write the summary and the table here")
    parser.add_argument(
        "--from-json", type=Path, metavar="JSON", help="summarise a recorded run, running nothing"
    )
    args = parser.parse_args(argv)
    if args.from_json:
        outcomes = load_outcomes(args.from_json, args.only, cases)
    else:
        torch.set_num_threads(1)
        outcomes = []
        for c in probe_mistakes.select(cases(), args.only):
            outcome = probe_mistakes.run_case(c)
            outcomes.append(outcome)
            print(f"{outcome.result:<10} {c.id}", file=sys.stderr, flush=True)
    text = probe_mistakes.summary(outcomes) + "\n\n" + per_chapter(outcomes)
    if dropped:
        text += "\n\ndropped as legitimate input (not measured):\n" + "\n".join(
            f"  {case_id}: {reason}" for case_id, reason in dropped.items()
        )
    table = probe_mistakes.table(outcomes)
    print(table)
    print()
    print(text)
    if args.record:
        args.record.parent.mkdir(parents=True, exist_ok=True)
        head = probe_mistakes.header(sys.argv)
        if args.from_json and args.record.exists():  # keep the header of the run itself
            lines = args.record.read_text(encoding="utf-8").splitlines()
            ran = [line for line in lines[:3] if line.startswith("# ")]
            again = " ".join(["python", *sys.argv])
            head = "\n".join([*ran, f"# summarised again, no case run, by: {again}"])
        args.record.write_text(head + "\n\n" + text + "\n\n" + table + "\n", encoding="utf-8")
        if not args.from_json:
            save_outcomes(outcomes, args.record.with_suffix(".json"))
        print(f"\nrecorded in {args.record}")
    return 0 if probe_mistakes.passes(outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
