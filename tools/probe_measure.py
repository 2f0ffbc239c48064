"""The fifth probe, the issue's measure: mistakes written after the fixes of the fourth.

    python tools/probe_measure.py [--only ID_OR_MODULE ...] [--record PATH] [--from-json JSON]

The four earlier catalogues (``probe_mistakes.py``, ``probe_heldout.py``, ``probe_fresh.py``,
``probe_final.py``) were each used to improve the library's messages after their one run, so
all four are development sets now. This script runs a fifth catalogue,
``tools/mistake_cases_measure_a.py`` (Chapters 1-4 and their exercises) and
``tools/mistake_cases_measure_b.py`` (Chapters 5-7, their exercises and the README), written
by two writers, one per half, the way the fourth was: going through each notebook's code
cells in order and noting, for each cell a student runs or adapts, the one or two slips it
invites -- from the notebooks, ``api.md`` and the public signatures and docstrings alone
(not the library's checking code, the probe records or the history), each case with its
expected answer and keywords fixed before any case ran, none a repeat of an earlier
catalogue's case or of a mistake the issue names. The cases run and are judged exactly as in
``probe_final.py`` (same runner, same rules); the options are its options.

Exit status 1 when a case is silent or fewer than 98 % are clear.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import probe_final  # noqa: E402
import probe_fresh  # noqa: E402
import probe_heldout  # noqa: E402
import probe_mistakes  # noqa: E402
from mistake_cases import Case, all_cases  # noqa: E402

#: The fifth catalogue, Chapters 1-4 then 5-7 and the README.
MEASURE_MODULES = ("mistake_cases_measure_a", "mistake_cases_measure_b")

#: Cases found, after the one run, to hold input that is in fact legitimate: left out of the
#: measure, with the reason (their keywords were never changed).
DROPPED: dict[str, str] = {}


def measure_cases(include_dropped: bool = False) -> list[Case]:
    """Every case of the fifth catalogue (without the dropped ones unless asked); an error if
    an id repeats, is an earlier catalogue's, or a slip names no chapter."""
    earlier = (
        {c.id for c in all_cases()}
        | {c.id for c in probe_heldout.heldout_cases(include_dropped=True)}
        | {c.id for c in probe_fresh.fresh_cases(include_dropped=True)}
        | {c.id for c in probe_final.final_cases(include_dropped=True)}
    )
    cases = probe_mistakes.later_catalogue(MEASURE_MODULES, DROPPED, earlier, "measure", True)
    for c in cases:
        probe_final.chapter(c)
    return cases if include_dropped else [c for c in cases if c.id not in DROPPED]


if __name__ == "__main__":
    sys.exit(probe_final.main(None, measure_cases, DROPPED, __doc__))
