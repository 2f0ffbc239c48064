"""The fresh probe: the final measure of course_lib's answers to mistakes it was never tuned on.

    python tools/probe_fresh.py [--only ID_OR_MODULE ...] [--record PATH]

``tools/probe_mistakes.py`` (the catalogue ``tools/mistake_cases_*.py``) and
``tools/probe_heldout.py`` (``tools/mistake_cases_heldout_*.py``) were both used to improve the
library's messages, so both are development sets now. This script runs a third catalogue,
``tools/mistake_cases_fresh_*.py``: mistakes written afterwards from the chapters, the
exercises, ``api.md`` and the public signatures and docstrings alone -- each with its expected
answer and keywords fixed before any of them ran, none a repeat of a case of the two earlier
catalogues or of a mistake the issue names. Each case runs exactly as in
``probe_mistakes.py`` (its ``run_case``: a fresh namespace, a seeded generator, one thread,
warnings recorded) and is judged by the same rules (clear, confusing, silent).

Prints the table and the summary; ``--record PATH`` writes them to a text file. Exit status 1
when a case is silent or fewer than 98 % are clear.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import torch  # noqa: E402

import probe_heldout  # noqa: E402
import probe_mistakes  # noqa: E402
from mistake_cases import Case, all_cases  # noqa: E402

#: The fresh catalogue, in the order of the library's reference page.
FRESH_MODULES = (
    "mistake_cases_fresh_attention",
    "mistake_cases_fresh_models",
    "mistake_cases_fresh_translation",
    "mistake_cases_fresh_gps",
    "mistake_cases_fresh_training",
    "mistake_cases_fresh_checks",
)

#: Cases found, after the one run, to hold input that is in fact legitimate: left out of the
#: measure, with the reason (their keywords were never changed).
DROPPED: dict[str, str] = {
    "vocab.generator_without_shuffle": (
        "PairBatches(ids, 2, generator=g) with shuffle=False is a valid call, as it is for a "
        "DataLoader: code that passes shuffle=flag with one generator is correct, and the "
        "order it gets (sorted by length) is the documented one"
    ),
    "geo.haversine_requires_grad": (
        "haversine detaches a tensor that requires grad itself and returns the right "
        "distances (checked against the same positions as an array): nothing goes wrong"
    ),
    "plots.heatmap_id_labels": (
        "integer labels are legitimate (key positions 0, 1, 2, ...); nothing in the input "
        "tells token ids from them"
    ),
    "plots.query_keys_batched_query": (
        "plot_query_keys flattens a (1, 2) query to the one 2-D vector it holds and draws "
        "the right figure"
    ),
    "grading.out_is_submissions": (
        "the grader reads only *.ipynb files, so its outputs (grades.csv, feedback/*.md, ...) "
        "beside the notebooks overwrite and mislead nothing: a layout choice, not an error"
    ),
}


def fresh_cases(include_dropped: bool = False) -> list[Case]:
    """Every fresh case (without the dropped ones unless asked); an error if an id repeats or
    is one of the development or held-out catalogues'."""
    cases = [c for name in FRESH_MODULES for c in importlib.import_module(name).CASES]
    earlier = {c.id for c in all_cases()} | {
        c.id for c in probe_heldout.heldout_cases(include_dropped=True)
    }
    seen: set[str] = set()
    for c in cases:
        if c.id in seen:
            raise ValueError(f"two fresh cases have the id {c.id!r}")
        if c.id in earlier:
            raise ValueError(f"fresh case {c.id!r} has the id of an earlier probe's case")
        seen.add(c.id)
    unknown = set(DROPPED) - seen
    if unknown:
        raise ValueError(f"DROPPED names no fresh case: {sorted(unknown)}")
    return cases if include_dropped else [c for c in cases if c.id not in DROPPED]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--only", nargs="+", metavar="ID_OR_MODULE", help="run these case ids or modules only"
    )
    parser.add_argument("--record", type=Path, help="write the summary and the table here")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    outcomes = []
    for c in probe_mistakes.select(fresh_cases(), args.only):
        outcome = probe_mistakes.run_case(c)
        outcomes.append(outcome)
        print(f"{outcome.result:<10} {c.id}", file=sys.stderr, flush=True)
    text = probe_mistakes.summary(outcomes)
    if DROPPED:
        text += "\n\ndropped as legitimate input (not measured):\n" + "\n".join(
            f"  {case_id}: {reason}" for case_id, reason in DROPPED.items()
        )
    table = probe_mistakes.table(outcomes)
    print(table)
    print()
    print(text)
    if args.record:
        args.record.parent.mkdir(parents=True, exist_ok=True)
        head = probe_mistakes.header(sys.argv)
        args.record.write_text(head + "\n\n" + text + "\n\n" + table + "\n", encoding="utf-8")
        print(f"\nrecorded in {args.record}")
    return 0 if probe_mistakes.passes(outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
