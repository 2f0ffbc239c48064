"""The same grading as a Gradescope autograder.

``python -m course_lib.grading --chapter 05 --gradescope autograder.zip`` writes a zip with,
at its root (Gradescope's autograder specification):

* ``setup.sh`` -- run once when Gradescope builds the image: installs bubblewrap, a CPU build
  of torch and ``course_lib`` (from the copy in the zip) and fetches the course's data;
* ``run_autograder`` -- run for every submission: grades the assignment's notebook in
  ``/autograder/submission`` (the file named as the assignment, or the only notebook outside
  the folders and copies editors and operating systems add; several candidates are refused
  with a result that says so) with :func:`course_lib.grading.grade.grade_submission`, in
  the sandbox where bubblewrap can start in Gradescope's container, and only then, once the
  submission's processes are gone, writes ``/autograder/results/results.json``;
* ``exercises/<chapter>_exercises.ipynb`` -- the assignment;
* ``course_lib/`` (its modules and the views' scripts and styles) and ``pyproject.toml`` --
  the library that holds the checks.

``results.json`` has one test per autograded exercise (``name``, ``score``, ``max_score``,
``status``, ``output``: the checks' own words); exercises graded by hand are listed in the
top-level ``output``: grade them as Gradescope questions of their own.
"""

from __future__ import annotations

import argparse
import json
import os
import stat
import sys
import zipfile
from pathlib import Path

from course_lib._foreign_names import explains_bad_calls
from course_lib.grading.assignment import Assignment, load_assignment
from course_lib.grading.grade import DEFAULT_TIMEOUT_S, Graded, Options, grade_submission
from course_lib.grading.sandbox import probe
from course_lib.grading.submission import Submission, why_not_graded

__all__ = ["choose_notebook", "results_json", "write_autograder", "main"]

LIBRARY = Path(__file__).resolve().parents[1]
SETUP_SH = """#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's image.
set -euo pipefail
apt-get install -y python3 python3-pip python3-venv bubblewrap
python3 -m venv /opt/course
/opt/course/bin/pip install --quiet torch --index-url https://download.pytorch.org/whl/cpu
/opt/course/bin/pip install --quiet "/autograder/source[grading]"
# The course's data (Tatoeba, CC-BY 2.0 FR), fetched and verified once.
/opt/course/bin/python -c "from course_lib.datafiles import ENG_FRA, fetch; fetch(ENG_FRA)"
"""
RUN_AUTOGRADER = """#!/usr/bin/env bash
# Gradescope runs this for every submission.
export OMP_NUM_THREADS=1
cd /autograder/source
exec /opt/course/bin/python -m course_lib.grading.gradescope \\
    --template "exercises/{template}" --timeout {timeout:g} --variant {variant} \\
    --submission /autograder/submission --results /autograder/results/results.json
"""


@explains_bad_calls()
def results_json(assignment: Assignment, graded: Graded | None, problem: str = "") -> dict:
    """Gradescope's ``results.json`` for one graded submission (or none, with ``problem``)."""
    tests = []
    by_number = {e.number: e for e in graded.exercises} if graded else {}
    for exercise in assignment.exercises:
        if not exercise.autograded:
            continue
        result = by_number.get(exercise.number)
        score = (result.points or 0.0) if result else 0.0
        output = "\n\n".join(result.messages) if result else (problem or graded.status)
        if result and result.status == "passed":
            output = output or "All checks passed on cases you did not see."
        tests.append(
            {
                "name": exercise.label,
                "number": str(exercise.number),
                "score": score,
                "max_score": exercise.points,
                "status": "passed" if result and result.status == "passed" else "failed",
                "output": output,
            }
        )
    by_hand = [e.label for e in assignment.exercises if not e.autograded]
    lines = []
    if problem or (graded and graded.status != "graded"):
        lines.append(f"Status: {problem or graded.status}.")
    if by_hand:
        lines.append("Graded by your instructor: " + "; ".join(by_hand) + ".")
    return {
        "score": sum(t["score"] for t in tests),
        "output": " ".join(lines),
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "tests": tests,
    }


@explains_bad_calls()
def write_autograder(path: Path, template: Path, options: Options | None = None) -> None:
    """The autograder zip for the assignment ``template`` (a student notebook).

    Raises:
        ValueError: ``path`` does not end in ``.zip`` (Gradescope takes a zip archive).
    """
    path = Path(path)
    if path.suffix.lower() != ".zip":
        raise ValueError(
            f"path={str(path)!r}: the autograder is a zip archive, as Gradescope takes it, "
            f"so its name must end in .zip, e.g. {str(path.with_name('autograder.zip'))!r}"
        )
    load_assignment(template)  # a clear error now rather than on Gradescope
    options = options or Options()

    def add(archive: zipfile.ZipFile, name: str, data: bytes, executable: bool = False):
        info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
        mode = 0o755 if executable else 0o644
        info.external_attr = (stat.S_IFREG | mode) << 16
        info.compress_type = zipfile.ZIP_DEFLATED
        archive.writestr(info, data)

    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w") as archive:
        add(archive, "setup.sh", SETUP_SH.encode(), executable=True)
        run = RUN_AUTOGRADER.format(
            template=template.name, timeout=options.timeout_s, variant=options.variant
        )
        add(archive, "run_autograder", run.encode(), executable=True)
        add(archive, f"exercises/{template.name}", template.read_bytes())
        for name in ("pyproject.toml", "README.md"):  # pip needs both to install course_lib
            add(archive, name, (LIBRARY.parent / name).read_bytes())
        for file in sorted(LIBRARY.rglob("*")):  # modules, and the views' .js and .css
            if file.is_file() and "__pycache__" not in file.parts and file.suffix != ".pyc":
                add(archive, str(file.relative_to(LIBRARY.parent)), file.read_bytes())


@explains_bad_calls()
def choose_notebook(folder: Path, name: str) -> tuple[Path | None, str]:
    """The notebook to grade in a Gradescope submission ``folder`` and ``""``, or ``None`` and
    why none: the file called ``name`` (the assignment's), else the only notebook outside
    the folders and copies editors and operating systems add (``.ipynb_checkpoints``,
    ``__MACOSX``, dot-files); several candidates are refused, never guessed between."""
    files = sorted(p for p in folder.rglob("*") if p.is_file())
    candidates = [
        p
        for p in files
        if p.suffix.lower() == ".ipynb"
        and why_not_graded(p.relative_to(folder).parts) == ("", True)
    ]
    named = [p for p in candidates if p.name == name]
    if len(named) == 1:
        return named[0], ""
    if len(candidates) == 1 and not named:
        return candidates[0], ""
    if not candidates:
        shown = ", ".join(str(p.relative_to(folder)) for p in files) or "nothing"
        return None, (
            f"no .ipynb file was submitted (got: {shown}); submit the notebook {name} with "
            "your answers"
        )
    shown = ", ".join(str(p.relative_to(folder)) for p in candidates)
    return None, (
        f"several notebooks were submitted ({shown}) and none alone is called {name}: "
        f"submit only your {name}, so that the notebook graded is the one you meant"
    )


@explains_bad_calls()
def main(argv: list[str] | None = None) -> int:
    """``run_autograder``'s entry point: grade the one notebook in ``--submission``."""
    parser = argparse.ArgumentParser(prog="python -m course_lib.grading.gradescope")
    parser.add_argument("--template", type=Path, required=True)
    parser.add_argument("--submission", type=Path, required=True)
    parser.add_argument("--results", type=Path, required=True)
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT_S)
    parser.add_argument("--variant", type=int, default=1)
    args = parser.parse_args(argv)
    assignment = load_assignment(args.template)
    notebook, problem = choose_notebook(args.submission, args.template.name)
    if notebook is not None:
        reason = probe()
        options = Options(timeout_s=args.timeout, variant=args.variant, sandbox=reason is None)
        graded = grade_submission(Submission("submission", notebook), assignment, options)
        results = results_json(assignment, graded)
        if reason is not None:
            results["extra_data"] = {"unsandboxed": reason}
    else:
        results = results_json(assignment, None, problem)
    # written here, by the parent, once the submission's worker and its processes are gone
    args.results.parent.mkdir(parents=True, exist_ok=True)
    temporary = args.results.with_name(args.results.name + ".tmp")
    temporary.write_text(json.dumps(results, indent=2), encoding="utf-8")
    os.replace(temporary, args.results)
    print(json.dumps({k: results[k] for k in ("score", "output")}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
