"""The verification plan: which notebooks are compared exactly here, and why."""

import nbformat
import pytest

import verification


def notebook(tmp_path, platform, tags_per_cell):
    nb = nbformat.v4.new_notebook()
    nb.metadata["course"] = {"platform": platform} if platform else {}
    for tags in tags_per_cell:
        cell = nbformat.v4.new_code_cell("x = 1")
        cell.metadata["tags"] = list(tags)
        nb.cells.append(cell)
    path = tmp_path / "chapter.ipynb"
    nbformat.write(nb, path)
    return path


HERE = {"torch": "2.13.0", "cpu": "GenuineIntel Xeon", "cpu_capability": "AVX512"}
CELLS = [
    ["nbval-check-output"],
    ["platform-dependent"],
    ["claim", "nbval-check-output"],
    ["nbval-ignore-output"],
    [],
]


def test_same_platform_compares_everything_but_ignored_cells(tmp_path, monkeypatch):
    monkeypatch.delenv(verification.MODE_VARIABLE, raising=False)
    plan = verification.plan(notebook(tmp_path, HERE, CELLS), current=HERE)
    assert (plan.mode, plan.exact_cells, plan.claim_cells) == ("reference", 4, 1)


def test_another_platform_compares_the_exact_cells_and_says_why(tmp_path, monkeypatch):
    monkeypatch.delenv(verification.MODE_VARIABLE, raising=False)
    laptop = {**HERE, "cpu_capability": "AVX2"}
    plan = verification.plan(notebook(tmp_path, HERE, CELLS), current=laptop)
    assert (plan.mode, plan.exact_cells, plan.claim_cells) == ("portable", 2, 1)
    assert "cpu_capability 'AVX512' here 'AVX2'" in plan.reason


def test_a_notebook_without_a_record_is_verified_portably(tmp_path, monkeypatch):
    monkeypatch.delenv(verification.MODE_VARIABLE, raising=False)
    plan = verification.plan(notebook(tmp_path, None, CELLS), current=HERE)
    assert plan.mode == "portable" and "make execute" in plan.reason


def test_the_mode_can_be_forced_and_a_typo_is_an_error(tmp_path, monkeypatch):
    path = notebook(tmp_path, HERE, CELLS)
    monkeypatch.setenv(verification.MODE_VARIABLE, "portable")
    assert verification.plan(path, current=HERE).mode == "portable"
    monkeypatch.setenv(verification.MODE_VARIABLE, "strict")
    with pytest.raises(ValueError, match="use 'reference', 'portable'"):
        verification.plan(path, current=HERE)


def test_the_fingerprint_sees_a_laptops_kernels(monkeypatch):
    here = verification.fingerprint()
    assert {"torch", "device", "cpu", "cpu_capability", "blas", "threads"} <= set(here)
    monkeypatch.setenv("MKL_ENABLE_INSTRUCTIONS", "AVX2")
    assert verification.fingerprint()["blas_instructions"] == "AVX2"


def recorded_notebook(path, platform, tag, printed):
    """A notebook whose one cell prints 1 but whose recorded output says ``printed``."""
    nb = nbformat.v4.new_notebook()
    nb.metadata["course"] = {"platform": platform}
    cell = nbformat.v4.new_code_cell("print(1)", execution_count=1)
    cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=f"{printed}\n")]
    cell.metadata["tags"] = [tag]
    nb.cells.append(cell)
    nbformat.write(nb, path)
    return path


def run_nbval(tmp_path, *paths):
    import os
    import subprocess
    import sys
    from pathlib import Path

    tools = Path(verification.__file__).parent
    # prepended, not replaced: where Jupyter itself comes from PYTHONPATH (tools/gpu_check.sh)
    inherited = os.environ.get("PYTHONPATH")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(tools), inherited]))}
    env.pop(verification.MODE_VARIABLE, None)
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--nbval",
            "-p",
            "verification",
            "-q",
            "-p",
            "no:cacheprovider",
            "--nbval-current-env",
            *map(str, paths),
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    return result.returncode, result.stdout


def test_nbval_is_strict_on_the_reference_platform_and_lax_elsewhere(tmp_path):
    here = verification.fingerprint()
    elsewhere = {**here, "cpu": "Another CPU"}
    # a trained result that differs here: fails only where the outputs were recorded
    code, out = run_nbval(
        tmp_path, recorded_notebook(tmp_path / "ref.ipynb", here, "platform-dependent", 2)
    )
    assert code != 0 and "reference" in out, out
    code, out = run_nbval(
        tmp_path, recorded_notebook(tmp_path / "other.ipynb", elsewhere, "platform-dependent", 2)
    )
    assert code == 0 and "portable" in out and "cpu 'Another CPU'" in out, out
    # a platform-independent output that differs: fails everywhere
    code, out = run_nbval(
        tmp_path, recorded_notebook(tmp_path / "exact.ipynb", elsewhere, "nbval-check-output", 2)
    )
    assert code != 0, out


def test_the_longest_notebooks_start_first_and_new_ones_before_all():
    expected = {"a.ipynb": 10.0, "b.ipynb": 300.0, "c.ipynb": 40.0}
    order = verification.longest_first(["a.ipynb", "b.ipynb", "new.ipynb", "c.ipynb"], expected)
    assert order == ["new.ipynb", "b.ipynb", "c.ipynb", "a.ipynb"]
    # the committed table names every chapter, so none is started last by accident
    chapters = {
        p.name for p in (verification.EXPECTED_SECONDS.parents[1] / "chapters").glob("*.ipynb")
    }
    import json

    assert set(json.loads(verification.EXPECTED_SECONDS.read_text())) == chapters


def test_the_summary_gives_each_notebooks_minutes(tmp_path, monkeypatch):
    monkeypatch.delenv("COURSE_VERIFY", raising=False)
    plan = verification.plan(notebook(tmp_path, HERE, CELLS), HERE)
    table = verification.format_plans([plan], {"chapter.ipynb": 90.0})
    assert "minutes" in table.splitlines()[0]
    assert table.splitlines()[1].split()[-1] == "1.5" and table.splitlines()[2].split()[-1] == "1.5"


def test_the_laptop_run_is_redundant_only_on_an_avx2_machine(monkeypatch):
    import torch

    for capability, same in (("AVX2", True), ("AVX512", False), ("NEON", False)):
        monkeypatch.setattr(torch.backends.cpu, "get_cpu_capability", lambda c=capability: c)
        monkeypatch.delenv("ATEN_CPU_CAPABILITY", raising=False)
        monkeypatch.delenv("MKL_ENABLE_INSTRUCTIONS", raising=False)
        assert verification.same_as_laptop() is same
        # inside the simulated run itself the question does not arise
        monkeypatch.setenv("ATEN_CPU_CAPABILITY", "avx2")
        assert verification.same_as_laptop() is False
