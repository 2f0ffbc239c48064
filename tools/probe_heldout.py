"""The held-out probe: course_lib's answers to mistakes it was not tuned against.

    python tools/probe_heldout.py [--only ID_OR_MODULE ...] [--record PATH]

``tools/probe_mistakes.py`` measures the library on its development set, the catalogue
``tools/mistake_cases_*.py`` that the error messages were improved against. This script runs a
second, held-out catalogue, ``tools/mistake_cases_heldout_*.py``: mistakes written afterwards
from the chapters, ``api.md`` and the public docstrings alone, each with its expected answer
and keywords fixed before it ever ran, and none a repeat of a development case or of a mistake
the issue names. Each case runs exactly as in ``probe_mistakes.py`` (its ``run_case``: a fresh
namespace, a seeded generator, one thread, warnings recorded) and is judged by the same rules
(clear, confusing, silent).

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

import probe_mistakes  # noqa: E402
from mistake_cases import Case, all_cases  # noqa: E402

#: The held-out catalogue, in the order of the library's reference page.
HELDOUT_MODULES = (
    "mistake_cases_heldout_attention",
    "mistake_cases_heldout_models",
    "mistake_cases_heldout_translation",
    "mistake_cases_heldout_gps",
    "mistake_cases_heldout_training",
    "mistake_cases_heldout_checks",
)

#: Cases found, after the one run, to hold input that is in fact legitimate: left out of the
#: measure, with the reason (their keywords were never changed).
DROPPED: dict[str, str] = {
    "masking.merge_swapped": (
        "merge_masks(padding_mask(lengths, total_length=5), causal_mask(5)) is, by the "
        "documented shapes, a valid call: attn_mask (T, S) = (2, 5) and key_padding_mask "
        "(B, S) = (5, 5); nothing in the input tells it from a correct one"
    ),
}


def heldout_cases(include_dropped: bool = False) -> list[Case]:
    """Every held-out case (without the dropped ones unless asked); an error if an id repeats
    or is one of the development catalogue's."""
    cases = [c for name in HELDOUT_MODULES for c in importlib.import_module(name).CASES]
    development = {c.id for c in all_cases()}
    seen: set[str] = set()
    for c in cases:
        if c.id in seen:
            raise ValueError(f"two held-out cases have the id {c.id!r}")
        if c.id in development:
            raise ValueError(f"held-out case {c.id!r} has a development case's id")
        seen.add(c.id)
    unknown = set(DROPPED) - seen
    if unknown:
        raise ValueError(f"DROPPED names no held-out case: {sorted(unknown)}")
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
    for c in probe_mistakes.select(heldout_cases(), args.only):
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
