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

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))


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
    earlier = {c.id for c in all_cases()} | {
        c.id for c in probe_heldout.heldout_cases(include_dropped=True)
    }
    return probe_mistakes.later_catalogue(FRESH_MODULES, DROPPED, earlier, "fresh", include_dropped)


def main(argv: list[str] | None = None) -> int:
    return probe_mistakes.run_later_probe(fresh_cases(), DROPPED, __doc__, argv)


if __name__ == "__main__":
    sys.exit(main())
