"""Write the example class the README grades: one Chapter 2b submission per threat the
grader must withstand (the same fixtures tests/test_grading.py grades).

    .venv/bin/python tools/example_class.py /tmp/example-class
    make grade CHAPTER=02b SUBMISSIONS=/tmp/example-class OUT=/tmp/example-graded
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tools"), str(ROOT / "tests")]

import grading_fixtures  # noqa: E402


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    folder = Path(sys.argv[1])
    if folder.exists() and any(folder.iterdir()):
        print(f"{folder} is not empty: give a new folder", file=sys.stderr)
        return 2
    grading_fixtures.threat_class(folder)
    print(f"wrote {len(list(folder.iterdir()))} submissions to {folder}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
