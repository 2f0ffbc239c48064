"""Whose code a frame runs: the user's (a notebook cell, a script, a test) or a library's
(course_lib itself, Python's standard library, an installed package such as PyTorch).

An answer names a cause only where the evidence decides it. A hint about a call or an
attribute lookup is right only when the user wrote that call: these helpers tell which
frames are the user's, and what the call a library frame is making passes on."""

from __future__ import annotations

import dis
import functools
import os
import sysconfig
import types

__all__ = ["course_lib_frame", "library_code", "passes_keywords_on", "users_code"]

_COURSE_LIB = os.path.join(os.path.normcase(os.path.dirname(os.path.abspath(__file__))), "")
_INSTALLED = tuple(
    os.path.join(os.path.normcase(os.path.abspath(p)), "")
    for p in {
        sysconfig.get_paths()["stdlib"],
        sysconfig.get_paths()["platstdlib"],
        sysconfig.get_paths()["purelib"],
        sysconfig.get_paths()["platlib"],
    }
)


def library_code(code: types.CodeType) -> bool:
    """Whether ``code`` is course_lib's, the standard library's or an installed package's."""
    return _library_file(code.co_filename)


@functools.lru_cache(maxsize=1024)
def _library_file(filename: str) -> bool:
    if filename.startswith("<frozen"):
        return True
    return os.path.normcase(os.path.abspath(filename)).startswith((_COURSE_LIB, *_INSTALLED))


def users_code(code: types.CodeType) -> bool:
    """Whether ``code`` is the user's (a notebook cell, a script, a test), not a library's."""
    return not library_code(code)


def course_lib_frame(frame: types.FrameType) -> bool:
    """Whether ``frame`` runs course_lib's code: a file of the package, or the ``__init__``
    that ``@dataclass`` generates for one of its classes (its file is ``<string>``)."""
    filename = frame.f_code.co_filename
    if filename == "<string>":
        return str(frame.f_globals.get("__name__", "")).startswith("course_lib.")
    return _course_lib_file(filename)


@functools.lru_cache(maxsize=1024)
def _course_lib_file(filename: str) -> bool:
    return os.path.normcase(os.path.abspath(filename)).startswith(_COURSE_LIB)


def passes_keywords_on(frame: types.FrameType) -> bool:
    """Whether the call ``frame`` is making passes a mapping of keywords on (``f(**kwargs)``):
    keywords it did not write itself. False for a call whose keywords are written out."""
    last = None
    for instruction in dis.get_instructions(frame.f_code):
        if instruction.offset > frame.f_lasti:
            break
        last = instruction
    return last is not None and last.opname == "CALL_FUNCTION_EX" and bool((last.arg or 0) & 1)
