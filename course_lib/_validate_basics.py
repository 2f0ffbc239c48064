"""The basics of the library's input checks: how a message names what the user passed
(:func:`type_name`, :func:`shape_str`), checks of types, integers, seeds, probabilities and
the ``COURSE_DEVICE`` device, the warnings shown at the user's line (:func:`warn_user`), and
the nesting that checks a call's inputs once, at the outermost public call.

Every message says what was wrong *and* what to do about it (package-private; see
``course_lib._validate``).
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import sys
import warnings
from collections.abc import Iterator

import numpy as np
import torch
from torch import Tensor


def shape_str(x: Tensor | tuple[int, ...] | torch.Size) -> str:
    """``"(2, 3)"`` for a tensor or a shape, as the error messages print shapes."""
    shape = x.shape if isinstance(x, Tensor) else x
    return "(" + ", ".join(str(s) for s in shape) + ")"


def type_name(value: object) -> str:
    """How a message names what the user passed: ``"str 'je suis'"``, ``"list of 3 tuple"``,
    ``"the class CrossEntropyLoss"`` (not an instance), ``"Trainer"``."""
    if isinstance(value, type):
        return f"the class {value.__name__} (not an instance of it)"
    name = type(value).__name__
    if isinstance(value, str):
        short = value if len(value) <= 30 else value[:27] + "..."
        return f"str {short!r}"
    if isinstance(value, (list, tuple)) and value:
        return f"{name} of {len(value)} {type(value[0]).__name__}"
    if isinstance(value, Tensor):
        return f"Tensor {shape_str(value)} {value.dtype}"
    return name


def check_type(
    value: object, name: str, expected: type | tuple[type, ...], what: str, fix: str = ""
) -> None:
    """Raise ``TypeError("name must be <what>, got <type_name(value)>. <fix>")`` unless
    ``value`` is an instance of ``expected``: the wrong kind of object, named in the user's
    words (``what``: ``"a torch.optim optimizer"``), with the likely fix."""
    if not isinstance(value, expected):
        raise TypeError(
            f"{name} must be {what}, got {type_name(value)}." + (f" {fix}" if fix else "")
        )


def check_seed(seed: object, name: str = "seed") -> int:
    """``seed`` as a Python int, or a clear error (``torch.manual_seed(1.5)`` silently uses 1).

    Raises:
        TypeError: a float, string or bool seed.
        ValueError: a negative seed.
    """
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"{name} must be an integer, got {seed!r} ({type(seed).__name__})")
    if seed < 0:
        raise ValueError(f"{name} must be non-negative, got {seed}")
    return int(seed)


def _check_int(value: object, name: str, least: int, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < least:
        raise ValueError(f"{name} must be {what}, got {value!r}")
    return int(value)


def check_positive_int(value: object, name: str) -> int:
    """``value`` as a Python int ``>= 1`` (a size, a count), or a ValueError naming it.

    ``True``, ``2.0`` and ``"2"`` are refused, NumPy integers accepted.
    """
    return _check_int(value, name, 1, "a positive integer")


def check_non_negative_int(value: object, name: str) -> int:
    """``value`` as a Python int ``>= 0`` (a position, an offset), or a ValueError naming it."""
    return _check_int(value, name, 0, "a non-negative integer")


def check_dropout(p: float, name: str = "dropout") -> None:
    if not 0.0 <= p < 1.0:
        raise ValueError(f"{name} is a probability in [0, 1), got {p}")


def check_course_device(value: str, name: str = "COURSE_DEVICE") -> torch.device:
    """The device named by the environment variable ``COURSE_DEVICE``: ``cpu``, ``cuda`` or
    ``cuda:N`` (case and surrounding spaces ignored), checked against this machine.

    Apple's MPS is refused on purpose: the book's outputs and claims are verified on the CPU
    and on CUDA GPUs only, and MPS has no float64 and lacks some kernels the chapters use.

    Args:
        value: the variable's value, as set.
        name: the variable's name, for the message.

    Returns:
        The device.

    Raises:
        ValueError: a value torch cannot parse, ``mps`` or another device type, ``cuda``
            where no CUDA device is available, or ``cuda:N`` with no GPU number ``N``.
    """
    fix = f"Set {name}=cpu, {name}=cuda or {name}=cuda:N, or unset it"
    try:
        device = torch.device(value.strip().lower())
    except (RuntimeError, ValueError) as err:
        raise ValueError(f"{name}={value!r} is not a device name. {fix}.") from err
    if device.type == "mps":
        raise ValueError(
            f"{name}={value!r} asks for Apple's GPU (MPS), which the course does not support: "
            "its outputs and claims are verified on the CPU and on CUDA GPUs only, and MPS "
            "has no float64 and lacks some kernels the chapters use. On a Mac, set "
            f"{name}=cpu or unset it: the chapters then run on the CPU, and nothing else "
            "changes."
        )
    if device.type == "cpu":
        return device
    if device.type != "cuda":
        raise ValueError(
            f"{name}={value!r} names a {device.type!r} device; the course runs on the CPU "
            f"or a CUDA GPU only. {fix}."
        )
    count = torch.cuda.device_count() if torch.cuda.is_available() else 0
    if count == 0:
        built = f"built with CUDA {torch.version.cuda}" if torch.version.cuda else "a CPU build"
        raise ValueError(
            f"{name}={value!r} asks for a CUDA GPU, but none is available here (torch "
            f"{torch.__version__}, {built}). Set {name}=cpu or unset it."
        )
    if device.index is not None and device.index >= count:
        raise ValueError(
            f"{name}={value!r} asks for GPU number {device.index}, but this machine has "
            f"{count} (cuda:0 to cuda:{count - 1}). {fix} with N < {count}."
        )
    return device


class MaskWarning(UserWarning):
    """A mask that attention accepts but that is probably not what was meant."""


_LIBRARY = os.path.dirname(os.path.abspath(__file__))
_TORCH = os.path.dirname(os.path.abspath(torch.__file__))


def _user_stacklevel() -> int:
    """The ``stacklevel`` that points a warning at the first frame outside course_lib and
    torch: the user's line, so that Python shows it once per line of the user's code. The
    ``__init__`` that ``@dataclass`` generates for a course_lib config (its file is
    ``<string>``) counts as the library's."""
    frame, level = sys._getframe(1), 1
    while frame is not None and (
        frame.f_code.co_filename.startswith((_LIBRARY, _TORCH))
        or (
            frame.f_code.co_filename == "<string>"
            and str(frame.f_globals.get("__name__", "")).startswith("course_lib.")
        )
    ):
        frame, level = frame.f_back, level + 1
    return level


def warn_user(message: str, category: type[Warning] = MaskWarning) -> None:
    """A warning (a :class:`MaskWarning` unless ``category`` says otherwise) shown at the
    user's line (once per line, Python's default)."""
    warnings.warn(message, category, stacklevel=_user_stacklevel())


# -- checked once, at the outermost public call --------------------------------------------
#
# A layer checks its inputs in the user's words (``tgt_mask``, ``memory``), then calls
# multi-head attention, which calls ``scaled_dot_product_attention``: inside the outer call
# the inner ones skip their checks, so a message never names an argument the user did not
# pass, and a value scan (which synchronises a GPU) runs once per call, never per layer or
# per decoded token.

_NESTED: contextvars.ContextVar[bool] = contextvars.ContextVar("course_lib_nested", default=False)


def nested() -> bool:
    """True inside a library call that has checked its inputs: skip the checks."""
    return _NESTED.get()


@contextlib.contextmanager
def checked() -> Iterator[None]:
    """The block of a public call whose inputs are checked: inner calls skip their checks."""
    token = _NESTED.set(True)
    try:
        yield
    finally:
        _NESTED.reset(token)
