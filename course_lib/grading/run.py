"""Running a list of steps in a worker process, with a time limit on each step.

The worker runs in a sandbox of its own (``course_lib.grading.sandbox``) unless told not to.
A step that runs past its limit is interrupted (``KeyboardInterrupt``, as Jupyter's stop
button); if the worker does not answer within ``GRACE_S`` it is killed. A worker that dies
(``os._exit``, a crash, a kill, a time-out it did not answer) is replaced: the new one first
runs again, silently, the cells that had run to their end or to an error (not those that
timed out or killed it) and the preparation of the checks, then goes on after the step that
killed the old one, so a death costs that step alone. What the worker sends back is checked:
an event that is not one of the steps asked for, or not in the expected form, is ignored.
The grader itself never waits longer than the limits allow and never raises because of a
submission.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from course_lib._foreign_names import explains_bad_calls, explains_class
from course_lib.grading import sandbox as box

__all__ = ["Isolation", "StepResult", "run_steps"]

GRACE_S = 5.0
MAX_WORKERS = 6  # a submission that kills Python every time is not retried forever
MAX_MESSAGE = 4000  # characters of a message kept (a check's words, an error)
OUTCOMES = {"ok", "error", "failed", "changed", "interrupted"}


@explains_class
@dataclass(frozen=True)
class StepResult:
    """How a step ended.

    Attributes:
        outcome: ``ok``, ``error`` (a cell raised), ``failed`` (a check failed), ``changed``
            (prepare found patched library functions), ``timed out``, ``kernel died``, or
            ``not run`` (after too many deaths).
        message: the error's or the check's message, or what was put back.
        seconds: wall-clock time of the step.
    """

    outcome: str
    message: str = ""
    seconds: float = 0.0


@explains_class
@dataclass(frozen=True)
class Isolation:
    """Where the worker runs.

    Attributes:
        sandbox: in a bubblewrap sandbox (``course_lib.grading.sandbox``); ``False`` runs it
            as the grader's own user, with the limits only (``--unsandboxed``).
        hidden: folders the worker must never see (SUBMISSIONS, OUT).
        limits: memory, processes, file size and CPU time.
    """

    sandbox: bool = True
    hidden: tuple[Path, ...] = ()
    limits: box.Limits = field(default_factory=box.Limits)


class _Worker:
    """One worker process and the read end of its event pipe."""

    def __init__(self, steps: list[dict], workdir: Path, log, isolation: Isolation) -> None:
        read_fd, write_fd = os.pipe()
        # -I: the submission's folder is not on sys.path, so a file it writes there (a fake
        # course_lib, say) is never imported in place of the library.
        command = box.worker_command(write_fd)
        self.cgroup = None
        if isolation.sandbox:
            command, self.cgroup = box.sandboxed(
                command, workdir, list(isolation.hidden), isolation.limits
            )
            env = box.worker_env(box.HOME)
        else:
            command = box.unsandboxed(command, isolation.limits)
            env = box.worker_env(str(workdir))
        self.log = log
        self.log_start = log.tell()
        self.process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=log,
            stderr=subprocess.STDOUT,
            cwd=workdir,
            env=env,
            pass_fds=(write_fd,),
            start_new_session=True,
        )
        os.close(write_fd)
        self.fd = read_fd
        self.buffer = b""
        self.process.stdin.write(json.dumps(steps).encode())
        self.process.stdin.close()

    def next_event(self, deadline: float) -> dict | None:
        """The next event, ``None`` at the deadline; ``{"event": "eof"}`` if the worker died."""
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([self.fd], [], [], left)
            if not ready:
                return None
            chunk = os.read(self.fd, 65536)
            if not chunk:
                return {"event": "eof"}
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        try:
            return json.loads(line)
        except json.JSONDecodeError:
            return self.next_event(deadline)

    def interrupt(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)

    def kill(self) -> int:
        if self.process.poll() is None:
            try:
                os.killpg(self.process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        code = self.process.wait()
        os.close(self.fd)
        box.release(self.cgroup)
        return code

    def death(self) -> str:
        """How the worker ended, and the last line it printed (its own error, if any)."""
        code = self.process.wait()
        if code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            said = f"Python was killed by {name}"
        else:
            said = f"Python exited with code {code}"
        self.log.flush()
        with open(self.log.name, "rb") as f:
            f.seek(self.log_start)
            lines = f.read()[-4000:].decode("utf-8", "replace").strip().splitlines()
        return f"{said}; its last line: {lines[-1][:300]}" if lines else said


@explains_bad_calls()
def run_steps(
    steps: list[dict],
    workdir: Path,
    log_path: Path,
    timeout: dict[str, float],
    isolation: Isolation | None = None,
) -> dict[str, StepResult]:
    """Run ``steps`` (each a dict with ``id`` and ``kind``; see ``worker``) in ``workdir``.

    Args:
        steps: what to run, in order.
        workdir: the worker's current folder (it holds the submission alone).
        log_path: where the submission's own printed output goes.
        timeout: seconds each step may take, by its ``kind``.
        isolation: where the worker runs (default: a sandbox, ``Isolation()``).

    Returns:
        One :class:`StepResult` per step id.
    """
    isolation = isolation or Isolation()
    results: dict[str, StepResult] = {}
    pending = list(steps)
    workers = 0
    with open(log_path, "ab") as log:
        while pending:
            if workers == MAX_WORKERS:
                for step in pending:
                    results[step["id"]] = StepResult(
                        "not run", f"the submission stopped Python {workers} times"
                    )
                break
            replay = [
                {**s, "id": "replay:" + s["id"]}
                for s in steps
                if s["kind"] in ("cell", "prepare")
                and results.get(s["id"], StepResult("")).outcome in ("ok", "error", "changed")
            ]
            workers += 1
            pending = _run_worker(
                replay + pending, workdir, log, timeout, results, pending, isolation
            )
    return results


def _valid(event: object, by_id: dict, current: str | None) -> bool:
    """Whether an event is one the grader asked for, in the form it expects: a ``start`` of
    a step of this worker, or the ``end`` of the step that started."""
    if not isinstance(event, dict) or event.get("id") not in by_id:
        return False
    if event.get("event") == "start":
        return current is None
    if event.get("event") != "end" or event["id"] != current:
        return False
    return event.get("outcome") in OUTCOMES and isinstance(event.get("message", ""), str)


def _run_worker(to_run, workdir, log, timeout, results, pending, isolation) -> list[dict]:
    """Run ``to_run`` in one worker; return the steps of ``pending`` still to run after it
    ended (empty when all ran)."""
    worker = _Worker(to_run, workdir, log, isolation)
    by_id = {s["id"]: s for s in to_run}
    left = list(pending)
    current, started = None, time.monotonic()
    try:
        while left:
            limit = timeout[by_id[current]["kind"]] if current else timeout["start"]
            event = worker.next_event(started + limit)
            if event is None:  # past the limit: interrupt, then kill
                worker.interrupt()
                end = worker.next_event(time.monotonic() + GRACE_S)
                if current is None:
                    _record(results, left, left[0]["id"], "timed out", "Python did not start")
                    return left[1:]
                if current.startswith("replay:"):  # a replay that now hangs: give up on it
                    _record(results, left, left[0]["id"], "timed out", "replaying the cells")
                    return left[1:]
                if end is not None and end.get("event") == "end":
                    _record(results, left, current, "timed out", f"after {limit:.0f} s", limit)
                    current, started = None, time.monotonic()
                    continue
                _record(results, left, current, "timed out", f"after {limit:.0f} s", limit)
                return [s for s in left if s["id"] != current]
            if event.get("event") == "eof":
                step_id = current or left[0]["id"]
                if step_id.startswith("replay:"):  # it died replaying: give up on that cell
                    step_id = left[0]["id"]
                _record(results, left, step_id, "kernel died", worker.death())
                return [s for s in left if s["id"] != step_id]
            if not _valid(event, by_id, current):
                continue
            if event.get("event") == "start":
                current, started = event["id"], time.monotonic()
            elif event.get("event") == "end":
                outcome = event.get("outcome", "error")
                if outcome == "interrupted":  # interrupted by the student's own code
                    outcome = "error"
                seconds = event.get("seconds", 0.0)
                if not isinstance(seconds, (int, float)) or not 0 <= seconds < 1e6:
                    seconds = time.monotonic() - started
                _record(
                    results,
                    left,
                    event["id"],
                    outcome,
                    str(event.get("message", ""))[:MAX_MESSAGE],
                    float(seconds),
                )
                current, started = None, time.monotonic()
        return left
    finally:
        worker.kill()


def _record(results, left, step_id, outcome, message, seconds=0.0) -> None:
    """Store a result for a step of ``left`` (replays are not stored) and drop it from
    ``left``; a result that arrives for a step already timed out is ignored."""
    if step_id.startswith("replay:") or step_id in results:
        return
    results[step_id] = StepResult(outcome, message, seconds)
    left[:] = [s for s in left if s["id"] != step_id]
