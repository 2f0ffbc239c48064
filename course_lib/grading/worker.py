"""The process that runs one submission: its code cells, then the library's checks.

Started by :mod:`course_lib.grading.run` (``python -I``, given the library's path by
:func:`course_lib.grading.sandbox.worker_command`) in a sandbox whose only writable folder
holds the submission. It reads its steps (JSON) from stdin and
writes one JSON line per event to the file descriptor ``FD``: ``{"id", "event": "start"}``
when a step starts, ``{"id", "event": "end", "outcome", "message", "seconds"}`` when it ends.
What the student's code prints goes to the worker's own stdout and stderr (a log file).

Steps:
* ``cell``: run a code cell of the submission, as Jupyter would (IPython, magics included);
* ``prepare``: put back whatever the submission replaced in ``course_lib`` (its modules,
  their functions and classes, the functions' code), ``torch``, ``builtins`` and ``math``,
  as they were before the first cell ran (and say what), and run the assignment's own data
  cells in a namespace of their own;
* ``check``: run a check cell of the assignment -- never the submission's copy -- with the
  fresh checks, the data from ``prepare`` and the submission's own functions, inside
  ``unseen_cases``.

This is the only part of the grader that runs students' code; see the README's "What the
grader does about cheating" for what it cannot prevent.
"""

from __future__ import annotations

import builtins
import contextlib
import importlib
import io
import json
import math
import os
import pkgutil
import signal
import sys
import time
import types

import torch
import torch._dynamo  # noqa: F401 -- imported lazily by an optimizer's first step, it rebinds
import torch.nn.functional  # torch.manual_seed and others: import it before the snapshot

import course_lib
import course_lib.checks

# Every module of the library is imported before any student code runs, and what the
# submission might patch to fool a check is recorded: the attributes of these objects and
# the code of every function of the library.
for _module in pkgutil.walk_packages(course_lib.__path__, "course_lib."):
    if not _module.name.startswith("course_lib.grading"):
        importlib.import_module(_module.name)


def _watched() -> dict[str, object]:
    watched = {
        "builtins": builtins,
        "math": math,
        "torch": torch,
        "torch.Tensor": torch.Tensor,
        "torch.nn.Module": torch.nn.Module,
        "torch.nn.functional": torch.nn.functional,
        "torch.testing": torch.testing,
    }
    for name, module in sorted(sys.modules.items()):
        if name.split(".")[0] != "course_lib" or name.startswith("course_lib.grading"):
            continue
        watched[name] = module
        for key, value in vars(module).items():
            if isinstance(value, type) and value.__module__ == name:
                watched[f"{name}.{key}"] = value
    return watched


def _code(function: types.FunctionType) -> tuple:
    return (function.__code__, function.__defaults__, function.__kwdefaults__)


WATCHED = _watched()
SNAPSHOT = {name: dict(vars(obj)) for name, obj in WATCHED.items()}
FUNCTIONS = {
    (name, key): (value, _code(value))
    for name, attributes in SNAPSHOT.items()
    if name.startswith("course_lib")
    for key, value in attributes.items()
    if isinstance(value, types.FunctionType)
}
MODULES = {name: obj for name, obj in WATCHED.items() if isinstance(obj, types.ModuleType)}
CHECK_NAMES = tuple(course_lib.checks.__all__)
SKIP = ("__dict__", "__weakref__", "__doc__", "__builtins__", "__loader__", "__spec__")


def restore_snapshot() -> list[str]:
    """Put back every watched attribute, function and module the submission replaced or
    rewrote; return their names."""
    changed = []
    for name, module in MODULES.items():
        if sys.modules.get(name) is not module:
            changed.append(f"sys.modules[{name!r}]")
            sys.modules[name] = module
    for name, obj in WATCHED.items():
        now = vars(obj)
        for key, value in SNAPSHOT[name].items():
            if key in SKIP or now.get(key, value) is value:
                continue
            changed.append(f"{name}.{key}")
            with contextlib.suppress(AttributeError, TypeError):
                setattr(obj, key, value)
        if isinstance(obj, type):  # a class: a new attribute overrides an inherited one
            for key in [k for k in now if k not in SNAPSHOT[name]]:
                changed.append(f"{name}.{key}")
                with contextlib.suppress(AttributeError, TypeError):
                    delattr(obj, key)
    for function, code in FUNCTIONS.values():
        if _code(function) != code:  # named where it is defined, not where it is imported
            changed.append(f"{function.__module__}.{function.__qualname__}.__code__")
            function.__code__, function.__defaults__, function.__kwdefaults__ = code
    return changed


def message_of(err: BaseException) -> str:
    return f"{type(err).__name__}: {err}"


class Worker:
    def __init__(self, events) -> None:
        self.events = events
        self.shell = None
        self.checks = None
        self.data: dict = {}

    def emit(self, **event) -> None:
        self.events.write(json.dumps(event) + "\n")
        self.events.flush()

    def user_namespace(self) -> dict:
        return self.shell.user_ns if self.shell is not None else self._plain_ns

    def run_cell(self, source: str) -> tuple[str, str]:
        try:
            from IPython.core.interactiveshell import InteractiveShell
        except ImportError:  # plain Python: magics and shell escapes are skipped
            InteractiveShell = None
        if InteractiveShell is None:
            self._plain_ns = getattr(self, "_plain_ns", {"__name__": "__main__"})
            lines = [ln for ln in source.splitlines() if not ln.lstrip().startswith(("%", "!"))]
            try:
                exec(compile("\n".join(lines), "<cell>", "exec"), self._plain_ns)
            except KeyboardInterrupt:
                return "interrupted", "interrupted"
            except BaseException as err:  # noqa: BLE001 -- a student's cell may raise anything
                return "error", message_of(err)
            return "ok", ""
        if self.shell is None:
            self.shell = InteractiveShell.instance()
        result = self.shell.run_cell(source, store_history=False)
        err = result.error_before_exec or result.error_in_exec
        if isinstance(err, KeyboardInterrupt):
            return "interrupted", "interrupted"
        if err is not None:
            return "error", message_of(err)
        return "ok", ""

    def prepare(self, data_cells: list[str]) -> tuple[str, str]:
        changed = restore_snapshot()
        self.checks = MODULES["course_lib.checks"]
        self.data = {"__name__": "__grader_data__"}
        for source in data_cells:
            exec(compile(source, "<assignment data cell>", "exec"), self.data)
        note = ("the submission changed " + ", ".join(changed)) if changed else ""
        return ("changed" if changed else "ok"), note

    def check(self, source: str, student_names: list[str], variant: int) -> tuple[str, str]:
        if self.checks is None:
            return "error", "the checks were not prepared (the grader's own fault)"
        user = self.user_namespace()
        namespace = dict(self.data)
        for name in student_names:
            if name in user:
                namespace[name] = user[name]
            else:
                namespace.pop(name, None)
        for name in CHECK_NAMES:
            namespace[name] = getattr(self.checks, name)
        printed = io.StringIO()
        changed = restore_snapshot()  # what an earlier check's call of a function changed
        try:
            with contextlib.redirect_stdout(printed), self.checks.unseen_cases(variant):
                exec(compile(source, "<check cell>", "exec"), namespace)
        except KeyboardInterrupt:
            restore_snapshot()
            return "interrupted", "interrupted"
        except BaseException as err:  # noqa: BLE001 -- judged below, once the library is back
            outcome = err
        else:
            outcome = None
        changed += restore_snapshot()  # what the student's function changed while checked
        if changed:
            return "changed", (
                "your code changed " + ", ".join(sorted(set(changed))) + " while it was "
                "being checked: a function must not replace library code, so this check "
                "counts as failed"
            )
        if outcome is None:
            return "ok", printed.getvalue().strip()
        if isinstance(outcome, self.checks.CheckFailed):
            return "failed", str(outcome)
        if isinstance(outcome, NameError):
            missing = getattr(outcome, "name", None) or str(outcome)
            return "failed", (
                f"the notebook defines no `{missing}`: keep the name the exercise gives "
                "(did its cell raise, or was it renamed?)"
            )
        return "failed", f"the check could not run: {message_of(outcome)}"

    def run(self, steps: list[dict]) -> None:
        for step in steps:
            self.emit(id=step["id"], event="start")
            start = time.perf_counter()
            try:
                if step["kind"] == "cell":
                    outcome, message = self.run_cell(step["source"])
                elif step["kind"] == "prepare":
                    outcome, message = self.prepare(step["data_cells"])
                else:
                    outcome, message = self.check(
                        step["source"], step["student_names"], step["variant"]
                    )
            except KeyboardInterrupt:
                outcome, message = "interrupted", "interrupted"
            except BaseException as err:  # noqa: BLE001
                outcome, message = "error", message_of(err)
            seconds = time.perf_counter() - start
            with contextlib.suppress(KeyboardInterrupt):
                self.emit(
                    id=step["id"], event="end", outcome=outcome, message=message, seconds=seconds
                )


def main() -> None:
    events = os.fdopen(int(sys.argv[1]), "w", buffering=1, encoding="utf-8")
    steps = json.loads(sys.stdin.read())
    sys.stdin = open(os.devnull, encoding="utf-8")  # input() ends at once, not never
    os.environ.setdefault("MPLBACKEND", "Agg")
    signal.signal(signal.SIGINT, signal.default_int_handler)
    Worker(events).run(steps)


if __name__ == "__main__":
    main()
