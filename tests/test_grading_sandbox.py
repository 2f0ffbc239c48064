"""The grader's sandbox and preflight (issue 44): a submission cannot reach the library, the
gradebook, another student's files or the network, nor outlive its turn; a worker's death
costs one check; a broken environment stops grading before the class.

Chapter 2b's student notebook is the fixture (three light checks)."""

from __future__ import annotations

import csv
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

import grading_fixtures as fx
from course_lib.grading import sandbox
from course_lib.grading.__main__ import main

CHAPTER = "02b"
RIGHT = {"masked_softmax": None, "scaled_dot_product_attention": None, "general_scores": None}

needs_sandbox = pytest.mark.skipif(
    sandbox.probe() is not None and not os.environ.get("COURSE_REQUIRE_SANDBOX"),
    reason=f"the sandbox cannot start here: {sandbox.probe()}",
)


def grade(tmp_path, notebooks: dict[str, object], *extra) -> dict[str, dict]:
    folder = tmp_path / "class"
    for name, nb in notebooks.items():
        fx.write(nb, folder / f"{name}.ipynb")
    out = tmp_path / "out"
    args = ["--chapter", CHAPTER, "--submissions", str(folder), "--out", str(out)]
    assert main([*args, "--timeout", "15", *extra]) == 0
    with open(out / "grades.csv", newline="", encoding="utf-8") as f:
        return {row["student"]: row for row in csv.DictReader(f)}


def points(row):
    return [row["ex1"], row["ex2"], row["ex3"]]


@needs_sandbox
def test_the_sandbox_starts_here():
    assert sandbox.probe() is None


@needs_sandbox
def test_inside_the_sandbox_only_the_private_folder_is_writable_and_hidden_folders_are_empty(
    tmp_path,
):
    private, secret = tmp_path / "private", tmp_path / "secret"
    private.mkdir()
    secret.mkdir()
    (secret / "grades.csv").write_text("alice,3")
    library = Path(sandbox.LIBRARY)
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    port = server.getsockname()[1]
    code = (
        "import os, socket\n"
        f"for path in ({str(library / 'x.py')!r}, '/etc/x', '/x', {str(secret / 'y')!r}):\n"
        "    try:\n"
        "        open(path, 'w')\n"
        "        print('WROTE', path)\n"
        "    except OSError as err:\n"
        "        print('refused', err.errno)\n"
        f"print('secret', os.path.exists({str(secret / 'grades.csv')!r}))\n"
        "open('mine.txt', 'w').write('ok')\n"
        "s = socket.socket()\n"
        "try:\n"
        f"    s.connect(('127.0.0.1', {port}))\n"
        "    print('CONNECTED')\n"
        "except OSError:\n"
        "    print('no network')\n"
    )
    command, cgroup = sandbox.sandboxed(
        [sys.executable, "-I", "-c", code], private, [secret], sandbox.Limits()
    )
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=60, env=sandbox.worker_env("/x")
        )
    finally:
        sandbox.release(cgroup)
        server.close()
    assert done.returncode == 0, done.stderr
    assert "WROTE" not in done.stdout and done.stdout.count("refused") == 4
    assert "secret False" in done.stdout
    assert "no network" in done.stdout
    assert (private / "mine.txt").read_text() == "ok"
    assert not (library / "x.py").exists()


@needs_sandbox
def test_a_python_or_checkout_under_tmp_is_seen_and_the_rest_of_tmp_is_not(tmp_path):
    """A fresh clone in a temporary folder keeps its venv under /tmp: bound over the
    sandbox's private /tmp, not hidden by it; the rest of the machine's /tmp stays out."""
    library, other = tmp_path / "clone", tmp_path / "other"
    library.mkdir()
    other.mkdir()
    (library / "module.py").write_text("X = 1")
    (other / "secret.txt").write_text("s")
    private = tmp_path / "private"
    private.mkdir()
    code = (
        "import os\n"
        f"print(open({str(library / 'module.py')!r}).read())\n"
        f"print(os.path.exists({str(other / 'secret.txt')!r}))\n"
    )
    command, cgroup = sandbox.sandboxed(
        [sys.executable, "-I", "-c", code], private, [], sandbox.Limits(), readable=[library]
    )
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    finally:
        sandbox.release(cgroup)
    assert done.stdout.split() == ["X", "=", "1", "False"], done.stderr


def sleepers() -> int:
    found = 0
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            found += cmdline.read_bytes() == b"sleep\x00987\x00"
        except OSError:
            continue
    return found


@needs_sandbox
def test_a_submission_that_attacks_reaches_no_one_and_leaves_nothing(tmp_path):
    folder, out = tmp_path / "class", tmp_path / "out"
    attack = fx.ATTACK.format(submissions=str(folder), out=str(out), library=str(sandbox.LIBRARY))
    victim = fx.write(fx.untouched(CHAPTER), folder / "b_victim.ipynb").read_bytes()
    init = (sandbox.LIBRARY / "__init__.py").read_bytes()
    rows = grade(
        tmp_path,
        {"a_attacker": fx.append_to(fx.with_answers(CHAPTER, RIGHT), "masked_softmax", attack)},
    )
    assert points(rows["a_attacker"]) == ["1", "1", "1"]  # its own answers, graded
    assert points(rows["b_victim"]) == ["0", "0", "0"]
    time.sleep(4)  # past the moment the forked process would have acted
    assert (folder / "b_victim.ipynb").read_bytes() == victim
    assert (sandbox.LIBRARY / "__init__.py").read_bytes() == init
    assert not (sandbox.LIBRARY.parent / "injected.pth").exists()
    assert not Path("/tmp/left_by_attacker").exists()
    assert (out / "feedback").is_dir()
    assert "rewritten" not in (out / "grades.csv").read_text()
    assert sleepers() == 0


@needs_sandbox
def test_a_fork_storm_and_a_memory_hog_are_stopped_by_the_limits(tmp_path):
    storm = (
        "import subprocess\n"
        "started = 0\n"
        "try:\n"
        "    for _ in range(600):\n"
        "        subprocess.Popen(['sleep', '30'])\n"
        "        started += 1\n"
        "except OSError:\n"
        "    pass\n"
        "if started >= 300:\n"
        "    del masked_softmax  # the limit did not hold\n"
    )
    hog = "hoard = bytearray(64 << 30)  # 64 GiB\n"
    nb = fx.with_answers(CHAPTER, RIGHT)
    fx.append_to(nb, "masked_softmax", storm)
    fx.append_to(nb, "general_scores", hog)
    row = grade(tmp_path, {"storm": nb})["storm"]
    assert points(row) == ["1", "1", "1"]
    assert "raised: exercise 3" in row["status"]  # MemoryError, and the rest is graded


@needs_sandbox
def test_a_workers_pids_cgroup_is_removed_after_it_with_what_it_left_behind(tmp_path):
    """As root the process limit is a pids cgroup per worker: once the worker ends (its
    namespace with it) the cgroup is emptied and removed."""
    if os.geteuid() != 0:
        pytest.skip("an ordinary user's limit is RLIMIT_NPROC: no cgroup is made")
    leaves = "import subprocess; subprocess.Popen(['sleep', '60'])"
    command, cgroup = sandbox.sandboxed(
        [sys.executable, "-I", "-c", leaves], tmp_path, [], sandbox.Limits()
    )
    if cgroup is None:
        pytest.skip("no pids cgroup can be made on this machine")
    assert Path(cgroup, "pids.max").read_text().strip() == str(sandbox.Limits().processes)
    subprocess.run(command, timeout=60, check=False)
    sandbox.release(cgroup)
    assert not Path(cgroup).exists()


@pytest.mark.parametrize("death", list(fx.DEATHS.values()), ids=list(fx.DEATHS))
def test_a_death_during_a_check_costs_that_check_alone(tmp_path, death):
    nb = fx.with_answers(CHAPTER, {**RIGHT, "scaled_dot_product_attention": death})
    row = grade(tmp_path, {"dies": nb}, *fx.isolation_args())["dies"]
    assert points(row) == ["1", "0", "1"]
    feedback = (tmp_path / "out" / "feedback" / "dies.md").read_text()
    assert "NoneType" not in feedback


def test_the_worker_imports_the_library_the_grader_imports_wherever_it_comes_from(tmp_path):
    """A library found through PYTHONPATH (which ``python -I`` ignores) is found in the
    worker too: the worker is given the grader's own import path."""
    copy = tmp_path / "elsewhere"
    copy.mkdir()
    subprocess.run(["cp", "-r", str(sandbox.LIBRARY), str(copy)], check=True)
    script = (
        "import subprocess, sys\n"
        "import course_lib\n"
        "from course_lib.grading import sandbox\n"
        "command = sandbox.worker_command(1)[:5]\n"
        "command[4] = command[4].split('from course_lib')[0] + "
        "'import course_lib; print(course_lib.__file__)'\n"
        "print(course_lib.__file__)\n"
        "print(subprocess.run(command, capture_output=True, text=True, cwd='/').stdout)\n"
    )
    # -S: no site-packages, so no installed course_lib: the library and torch come from
    # PYTHONPATH alone, as for an instructor who never installed the library
    packages = [p for p in sys.path if p.endswith("site-packages")]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(copy), *packages])}
    done = subprocess.run(
        [sys.executable, "-S", "-c", script], capture_output=True, text=True, env=env, cwd=tmp_path
    )
    expected = str(copy / "course_lib" / "__init__.py")
    assert done.stdout.split() == [expected, expected], done.stderr


def test_a_broken_environment_stops_grading_before_the_class(tmp_path, monkeypatch, capsys):
    """The preflight: where the worker cannot import the library, nothing is graded and the
    instructor reads the worker's own error."""
    broken = "import course_lib_not_installed"  # as a worker whose Python lacks the library
    monkeypatch.setattr(sandbox, "worker_command", lambda fd: [sys.executable, "-I", "-c", broken])
    folder = tmp_path / "class"
    fx.write(fx.with_answers(CHAPTER, RIGHT), folder / "alice.ipynb")
    out = tmp_path / "out"
    args = ["--chapter", CHAPTER, "--submissions", str(folder), "--out", str(out)]
    assert main([*args, "--timeout", "15", *fx.isolation_args()]) == 2
    err = capsys.readouterr().err
    assert "the preflight failed" in err
    assert "No module named 'course_lib_not_installed'" in err
    assert not (out / "grades.csv").exists()


def test_where_the_sandbox_cannot_start_the_grader_says_so_before_it_starts(
    tmp_path, monkeypatch, capsys
):
    monkeypatch.setattr(sandbox, "probe", lambda: "bubblewrap is not installed (no `bwrap`)")
    folder = tmp_path / "class"
    fx.write(fx.untouched(CHAPTER), folder / "alice.ipynb")
    args = ["--chapter", CHAPTER, "--submissions", str(folder), "--out", str(tmp_path / "out")]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "bubblewrap is not installed" in err
    assert "--unsandboxed (UNSANDBOXED=1 with make)" in err
    assert "Grading in a container" in err
    assert not (tmp_path / "out").exists()


def test_an_unsandboxed_class_is_marked_in_the_gradebook(tmp_path):
    rows = grade(tmp_path, {"alice": fx.with_answers(CHAPTER, RIGHT)}, "--unsandboxed")
    assert points(rows["alice"]) == ["1", "1", "1"]
    assert rows["alice"]["status"] == "graded; unsandboxed"
