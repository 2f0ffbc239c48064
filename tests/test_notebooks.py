"""The committed notebooks are complete, fresh and consistent.

nbval compares outputs, but it silently skips cells that were never executed -- a notebook
committed without outputs would "pass". These tests close that gap and check the
conventions every notebook shares.
"""

import pytest

import nbtools
import verification

CHAPTERS = nbtools.chapter_notebooks()
ALL = CHAPTERS + nbtools.student_notebooks()
MAX_LINE = 80  # longer code lines are cut off on the rendered page
SETUP = nbtools.SETUP_TAG


def ids(paths):
    return [p.name for p in paths]


def test_there_are_chapters():
    assert CHAPTERS, "no notebooks in chapters/"


@pytest.mark.parametrize("path", CHAPTERS, ids=ids(CHAPTERS))
def test_every_code_cell_ran_in_order_without_errors(path):
    nb = nbtools.read(path)
    code = [c for c in nb.cells if c.cell_type == "code" and c.source.strip()]
    counts = [c.execution_count for c in code]
    assert None not in counts, (
        f"{path.name}: unexecuted cells at {[i for i, n in enumerate(counts) if n is None]}"
    )
    assert counts == list(range(1, len(code) + 1)), (
        f"{path.name}: execution counts {counts} are not 1..{len(code)}: run `make execute`"
    )
    for cell in code:
        errors = [o for o in cell.outputs if o.output_type == "error"]
        assert not errors, f"{path.name}, cell [{cell.execution_count}] raised {errors[0].ename}"
        streams = [o for o in cell.outputs if o.output_type == "stream" and o.name == "stderr"]
        assert not streams, (
            f"{path.name}, cell [{cell.execution_count}] wrote to stderr: {streams[0].text[:200]}"
        )
    run = nb.metadata.get("course", {}).get("execution")
    assert run and run["succeeded"], f"{path.name} has no record of `make execute`"


@pytest.mark.parametrize("path", ALL, ids=ids(ALL))
def test_starts_with_the_current_setup_cell(path):
    nb = nbtools.read(path)
    assert nbtools.has_current_setup_cell(nb), (
        f"{path.name} does not start with the current setup cell: run `make execute` "
        "(chapters) or `make student` (exercises)"
    )
    assert nbtools.repository_url() in nb.cells[0].source


@pytest.mark.parametrize("path", CHAPTERS, ids=ids(CHAPTERS))
def test_chapter_structure(path):
    nb = nbtools.read(path)
    headings = [c.source.splitlines()[0] for c in nb.cells if c.cell_type == "markdown"]
    assert headings[0].startswith("# "), f"{path.name} must open with a title"
    assert "Learning goals" in nb.cells[1].source, f"{path.name}: learning goals come first"
    assert "## Exercises" in headings and "## Summary" in headings


@pytest.mark.parametrize("path", ALL, ids=ids(ALL))
def test_code_lines_fit_the_page(path):
    nb = nbtools.read(path)
    for cell in nb.cells[1:]:  # the setup cell is hidden on the page
        if cell.cell_type != "code":
            continue
        for line in cell.source.splitlines():
            assert len(line) <= MAX_LINE, f"{path.name}: line longer than {MAX_LINE}: {line!r}"


@pytest.mark.parametrize("path", nbtools.student_notebooks(), ids=ids(nbtools.student_notebooks()))
def test_student_notebooks_have_no_outputs_and_no_solutions(path):
    nb = nbtools.read(path)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert not cell.outputs and cell.execution_count is None
        for marker in ("BEGIN SOLUTION", "solution-start", "{solution", "{exercise"):
            assert marker not in cell.source, f"{path.name} still contains {marker!r}"


@pytest.mark.parametrize("path", CHAPTERS, ids=ids(CHAPTERS))
def test_every_output_is_classified_for_verification(path):
    """Each cell with output says how it is verified: exactly everywhere, on the reference
    platform only (trained results), or never (timings); claims are compared exactly."""
    nb = nbtools.read(path)
    for cell in nb.cells:
        if cell.cell_type != "code" or not cell.outputs or SETUP in cell.metadata.get("tags", []):
            continue
        tags = cell.metadata.get("tags", [])
        classes = [t for t in tags if t in verification.CLASSES]
        assert len(classes) == 1, (
            f"{path.name}, cell [{cell.execution_count}] has {classes or 'no class'}: tag it "
            f"with exactly one of {verification.CLASSES}\n{cell.source[:200]}"
        )
        if verification.CLAIM in tags:
            assert classes == [verification.EXACT], f"{path.name}: a claim must print fixed text"
            assert "assert " in cell.source, f"{path.name}: a claim cell asserts its claim"
    trained = sum(verification.PLATFORM in c.metadata.get("tags", []) for c in nb.cells)
    claims = sum(verification.CLAIM in c.metadata.get("tags", []) for c in nb.cells)
    assert claims or not trained, f"{path.name} shows trained results but checks no claim"


@pytest.mark.parametrize("path", CHAPTERS, ids=ids(CHAPTERS))
def test_the_recording_platform_is_known(path):
    recorded = verification.recorded_fingerprint(nbtools.read(path))
    assert recorded, f"{path.name} records no platform: run `make execute`"
    assert set(recorded) == set(verification.fingerprint()), "re-run `make execute`"
