"""Where a submission's code runs: a bubblewrap sandbox of its own.

The worker of one submission (``course_lib.grading.worker``) is started inside
`bubblewrap <https://github.com/containers/bubblewrap>`_ (``bwrap``, Debian's package
``bubblewrap``), with

* the system, Python, its packages and ``course_lib`` **read-only**, and nothing else of the
  machine: no home folder, no ``SUBMISSIONS``, no ``OUT``, no other student's files (a
  folder among them that lies inside a path the worker must read is hidden under an empty
  ``tmpfs``);
* a private writable folder holding only the submission's copy (its current folder and
  ``HOME``) and a private ``/tmp``;
* no network, its own PID, IPC and UTS namespaces (``--unshare-all``): every process the
  submission starts dies with the worker (``--die-with-parent``; the namespace goes with
  its first process), and none can see or signal a process outside;
* resource limits (:class:`Limits`): address space, processes (``RLIMIT_NPROC`` for an
  ordinary user; for root, which that limit does not bind, a ``pids`` cgroup where one can be
  made), file size, CPU time.

Results come back on a pipe the grader reads and checks (``course_lib.grading.run``). Where
``bwrap`` is missing or cannot start (macOS, Windows, a container without user namespaces)
:func:`probe` says why, and the grader refuses to start unless told ``--unsandboxed``.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import site
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import course_lib
from course_lib._foreign_names import explains_bad_calls, explains_class

__all__ = [
    "Limits",
    "probe",
    "release",
    "sandboxed",
    "unsandboxed",
    "worker_command",
    "worker_env",
    "HOME",
]

HOME = "/home/student"  # the submission's private folder, as the worker sees it
LIBRARY = Path(course_lib.__file__).resolve().parent
SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/etc")


@explains_class
@dataclass(frozen=True)
class Limits:
    """What one submission's worker may use.

    Attributes:
        memory_bytes: address space of each process (``RLIMIT_AS``).
        processes: processes and threads at once (``RLIMIT_NPROC``, or a cgroup's
            ``pids.max`` when the grader runs as root).
        file_bytes: the largest file it may write (``RLIMIT_FSIZE``), its printed output
            included.
        cpu_seconds: CPU time of each process (``RLIMIT_CPU``); the wall-clock limits of
            ``run_steps`` come first, this is the backstop.
    """

    memory_bytes: int = 8 << 30
    processes: int = 128
    file_bytes: int = 256 << 20
    cpu_seconds: int = 3600


def _search_path() -> list[str]:
    """The folders this Python imports from, ``course_lib``'s own first: the worker starts
    with ``python -I -S`` (no PYTHONPATH, no user site, not its current folder, no ``.pth``
    files or import hooks of installed packages) and is given them explicitly, so it imports
    the very library the grader imports, whether found through PYTHONPATH, a ``--user``
    install, an editable install or an uninstalled checkout."""
    paths = [str(LIBRARY.parent)]
    for entry in sys.path:
        if entry and Path(entry).is_absolute() and Path(entry).exists():
            if Path(entry).resolve() != Path.cwd().resolve() and entry not in paths:
                paths.append(entry)
    return paths


def _bootstrap(paths: list[str]) -> str:
    return (
        f"import sys; sys.path[:0] = {json.dumps(paths)}; "
        "from course_lib.grading.worker import main; main()"
    )


@explains_bad_calls()
def worker_command(event_fd: int) -> list[str]:
    """``python -I -S -c ...`` that starts the worker, which writes its events to
    ``event_fd``."""
    return [sys.executable, "-I", "-S", "-c", _bootstrap(_search_path()), str(event_fd)]


@explains_bad_calls()
def worker_env(home: str) -> dict[str, str]:
    """A clean environment: none of the instructor's variables reach a submission."""
    from course_lib.datafiles import data_dir

    env = {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": home,
        "TMPDIR": "/tmp",
        "LANG": "C.UTF-8",
        "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "1"),
        "MPLBACKEND": "Agg",
        "MPLCONFIGDIR": "/tmp/matplotlib",
        "IPYTHONDIR": "/tmp/ipython",
        "XDG_CACHE_HOME": "/tmp/cache",
        "PYTHONDONTWRITEBYTECODE": "1",
        "CUDA_VISIBLE_DEVICES": "",
    }
    if data_dir().is_dir():  # the course's data, read-only in the sandbox
        env["COURSE_DATA_DIR"] = str(data_dir())
    for name in ("ATEN_CPU_CAPABILITY", "MKL_ENABLE_INSTRUCTIONS", "COURSE_VERIFICATION"):
        if name in os.environ:
            env[name] = os.environ[name]
    return env


def _readable() -> list[Path]:
    """What the worker must read: the system, Python, its packages, the library, the data."""
    from course_lib.datafiles import data_dir

    paths = [Path(p) for p in SYSTEM if not Path(p).is_symlink()]
    paths += [Path(sys.prefix), Path(sys.base_prefix), Path(sys.executable).resolve().parent]
    paths += [Path(p) for p in site.getsitepackages()]
    paths += [Path(p) for p in _search_path()[1:]]  # not the library's parent: the library
    paths += [LIBRARY, data_dir()]
    kept: list[Path] = []
    for path in sorted({p.resolve() for p in paths if p.exists()}, key=lambda p: len(p.parts)):
        if not any(path.is_relative_to(k) for k in kept):
            kept.append(path)
    return kept


@explains_bad_calls()
def sandboxed(
    command: list[str],
    private: Path,
    hidden: list[Path],
    limits: Limits,
    readable: list[Path] = (),
) -> tuple[list[str], str | None]:
    """``command`` wrapped in bwrap and the limits; the cgroup made for it (remove it with
    :func:`release`), or ``None``.

    Args:
        command: the worker's command line (:func:`worker_command`).
        private: the submission's own folder (writable; the worker's current folder).
        hidden: folders the worker must never see (SUBMISSIONS, OUT, the grader's own
            temporary folders), hidden wherever they lie inside a readable path.
        limits: what it may use.
        readable: folders to show read-only besides the system, Python and the library.
    """
    args = ["bwrap", "--unshare-all", "--die-with-parent", "--new-session"]
    # the private /tmp first: a Python or a checkout that lives under /tmp is bound over it
    args += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]
    shown = _readable() + [Path(p).resolve() for p in readable]
    for path in shown:
        args += ["--ro-bind", str(path), str(path)]
    for link in SYSTEM:  # /bin -> usr/bin and the like, on a merged /usr
        if Path(link).is_symlink():
            args += ["--symlink", os.readlink(link), link]
    for path in hidden:  # an empty folder over anything the worker must not see
        path = path.resolve()
        if any(path.is_relative_to(r) for r in shown) and path.is_dir():
            args += ["--tmpfs", str(path)]
    args += ["--bind", str(private), HOME, "--chdir", HOME, "--remount-ro", "/"]
    cgroup = _make_cgroup(limits.processes) if os.geteuid() == 0 else None
    return _with_limits(args + command, limits, cgroup), cgroup


@explains_bad_calls()
def unsandboxed(command: list[str], limits: Limits) -> list[str]:
    """``command`` with the resource limits only (``--unsandboxed``)."""
    return _with_limits(command, limits, None)


_LIMIT_EXEC = (
    "import os, resource, sys\n"
    "a = sys.argv\n"
    "if a[5]:\n"
    "    open(a[5], 'w').write(str(os.getpid()))\n"
    "for name, value in zip(('AS', 'NPROC', 'FSIZE', 'CPU'), a[1:5]):\n"
    "    limit = getattr(resource, 'RLIMIT_' + name)\n"
    "    hard = resource.getrlimit(limit)[1]\n"
    "    value = int(value) if hard == resource.RLIM_INFINITY else min(int(value), hard)\n"
    "    resource.setrlimit(limit, (value, value))\n"
    "os.execvp(a[6], a[6:])\n"
)


def _with_limits(command: list[str], limits: Limits, cgroup: str | None) -> list[str]:
    """Set the limits, join the cgroup, then ``exec`` the command (a few milliseconds: a
    ``preexec_fn`` would do the same but is unsafe in the grader's threads)."""
    processes = limits.processes if os.geteuid() == 0 else _tasks_of_user() + limits.processes
    values = (limits.memory_bytes, processes, limits.file_bytes, limits.cpu_seconds)
    procs = f"{cgroup}/cgroup.procs" if cgroup else ""
    return [sys.executable, "-I", "-S", "-c", _LIMIT_EXEC, *map(str, values), procs, *command]


def _tasks_of_user() -> int:
    """Processes and threads this user runs now: ``RLIMIT_NPROC`` counts them all (in every
    user namespace), so the submission's share is added to them."""
    uid, total = str(os.getuid()), 0
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            fields = dict(line.split(":", 1) for line in status.read_text().splitlines())
        except (OSError, ValueError):
            continue
        if fields.get("Uid", "").split()[:1] == [uid]:
            total += int(fields.get("Threads", "1"))
    return total


def _make_cgroup(processes: int) -> str | None:
    """A ``pids`` cgroup limited to ``processes`` (v2, or v1's ``pids`` hierarchy), or
    ``None`` where none can be made here."""
    name = f"course-grader-{uuid.uuid4().hex[:12]}"
    for parent in _pids_parents():
        folder = parent / name
        try:
            folder.mkdir()
            (folder / "pids.max").write_text(str(processes))
        except OSError:
            release(str(folder))
            continue
        return str(folder)
    return None


def _pids_parents() -> list[Path]:
    parents = []
    root = Path("/sys/fs/cgroup")
    v1 = root / "pids"
    if (v1 / "cgroup.procs").exists():
        parents.append(v1)
    for v2 in (root, root / "unified"):
        try:
            if "pids" in (v2 / "cgroup.subtree_control").read_text().split():
                own = Path("/proc/self/cgroup").read_text().splitlines()
                path = next(line.split(":", 2)[2] for line in own if line.startswith("0::"))
                parents.append(v2 / path.lstrip("/"))
        except (OSError, StopIteration):
            continue
    return parents


@explains_bad_calls()
def release(cgroup: str | None) -> None:
    """Remove a cgroup of :func:`sandboxed`: any process still in it is killed first (the
    namespace's processes die a moment after its first one), then the folder goes."""
    if not cgroup:
        return
    for _ in range(500):  # up to 10 s: a storm's processes take a while to be reaped
        try:
            os.rmdir(cgroup)
            return
        except FileNotFoundError:
            return
        except OSError:
            pass
        try:
            pids = Path(cgroup, "cgroup.procs").read_text().split()
        except OSError:
            pids = []
        for pid in pids:
            try:
                os.kill(int(pid), signal.SIGKILL)
            except (OSError, ValueError):
                pass
        time.sleep(0.02)


_PROBE_CACHE: dict[str, str | None] = {}


@explains_bad_calls()
def probe() -> str | None:
    """``None`` when a sandbox can start here; otherwise why not, in a sentence."""
    if "result" not in _PROBE_CACHE:
        _PROBE_CACHE["result"] = _probe()
    return _PROBE_CACHE["result"]


def _probe() -> str | None:
    if sys.platform != "linux":
        return f"bubblewrap runs on Linux only, and this is {sys.platform}"
    if shutil.which("bwrap") is None:
        return (
            "bubblewrap is not installed (no `bwrap` on PATH): install it with "
            "`sudo apt-get install bubblewrap` (Debian, Ubuntu) or `sudo dnf install bubblewrap`"
        )
    import tempfile

    with tempfile.TemporaryDirectory(prefix="grade-probe-") as tmp:
        command, cgroup = sandboxed(
            [sys.executable, "-I", "-c", "import course_lib"], Path(tmp), [], Limits()
        )
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=120)
        except subprocess.TimeoutExpired:
            return "bubblewrap did not finish starting Python within 120 s"
        finally:
            release(cgroup)
    if done.returncode != 0:
        said = (done.stderr.strip().splitlines() or ["(it said nothing)"])[-1]
        return f"bubblewrap is installed but could not start a sandbox here: {said}"
    return None
