"""The likely cause of an error the student's own function raised, read from the
traceback's frames (their code and variables, no source needed): ``x.T`` on a batch, a mask
that does not broadcast in ``masked_fill``, ``torch.cat`` along the wrong axis. A cause is
named only where the frames decide it -- the ``.T`` ran before the error on the value the name
still holds, the mask's shape does not fit, the tensors join along another axis -- and
otherwise what the failing call needs is said plainly. Each function returns a sentence, or
``""``."""

from __future__ import annotations

import dis
import re
import types

import numpy as np
import torch
from torch import Tensor

from course_lib._frames import users_code
from course_lib._validate_basics import shape_str

_LOADS = {"LOAD_FAST", "LOAD_FAST_CHECK", "LOAD_DEREF", "LOAD_NAME", "LOAD_GLOBAL"}
_STORES = {
    "STORE_FAST",
    "STORE_NAME",
    "STORE_DEREF",
    "STORE_GLOBAL",
    "DELETE_FAST",
    "STORE_FAST_STORE_FAST",
    "STORE_FAST_LOAD_FAST",
}


def _lookup(frame: types.FrameType, name: str):
    if name in frame.f_locals:
        return frame.f_locals[name]
    return frame.f_globals.get(name)


def _stored(instructions: list[dis.Instruction]) -> dict[str, list[int]]:
    """The offsets at which each name is assigned (or deleted)."""
    stores: dict[str, list[int]] = {}
    for i in instructions:
        if i.opname in _STORES:
            for name in i.argval if isinstance(i.argval, tuple) else (i.argval,):
                stores.setdefault(str(name), []).append(i.offset)
    return stores


def _dot_t(frame: types.FrameType, line: int, lasti: int) -> str:
    """The hint for ``name.T`` on a tensor of more than two axes in ``frame``'s code: on
    the line that raised first, elsewhere in the function else. Only a ``.T`` that ran
    before the error (its offset before ``lasti``) on a name not assigned again after it
    counts: only then is the value the name holds now the one ``.T`` reversed."""
    found: list[tuple[bool, str, object]] = []
    instructions = list(dis.get_instructions(frame.f_code))
    stores = _stored(instructions)
    for load, attr in zip(instructions, instructions[1:], strict=False):
        if attr.opname != "LOAD_ATTR" or attr.argval != "T" or load.opname not in _LOADS:
            continue
        name = str(load.argval)
        if attr.offset > lasti or any(o > attr.offset for o in stores.get(name, ())):
            continue
        value = _lookup(frame, name)
        if isinstance(value, (Tensor, np.ndarray)) and value.ndim > 2:
            lineno = attr.positions.lineno if attr.positions else None
            found.append((lineno != line, name, value))
    if not found:
        return ""
    elsewhere, name, value = min(found, key=lambda f: f[0])
    shape = tuple(value.shape)
    swap = (
        f"{name}.transpose(-2, -1) (or {name}.mT)"
        if isinstance(value, Tensor)
        else f"np.swapaxes({name}, -2, -1)"
    )
    return (
        f"{'A possible' if elsewhere else 'Likely'} cause: {name}.T reverses ALL "
        f"{len(shape)} axes of {name}, {shape_str(shape)} -> {shape_str(shape[::-1])}, batch "
        f"axis included; to swap only its last two axes write {swap}."
    )


def _on_line(frame: types.FrameType, line: int) -> list[dis.Instruction]:
    """The instructions of ``frame``'s code that belong to source line ``line``."""
    return [
        i
        for i in dis.get_instructions(frame.f_code)
        if i.positions
        and i.positions.lineno is not None
        and i.positions.lineno <= line <= (i.positions.end_lineno or i.positions.lineno)
    ]


def _attributes(instructions: list[dis.Instruction]) -> set[str]:
    return {str(i.argval) for i in instructions if i.opname in ("LOAD_ATTR", "LOAD_METHOD")}


def _value(frame: types.FrameType, instruction: dis.Instruction) -> object:
    """The value a name load reads (None for anything else)."""
    return _lookup(frame, str(instruction.argval)) if instruction.opname in _LOADS else None


_BROADCAST = ("must match the size of tensor", "is not broadcastable", "does not broadcast")
#: Calls that broadcast their tensors, as masked_fill does.
_BROADCASTING = {"where", "add", "sub", "mul", "div", "matmul", "bmm", "maximum", "minimum"}


def _other_broadcasts(instructions: list[dis.Instruction], fill: dis.Instruction) -> bool:
    """Whether the line holds another operation than ``fill`` that broadcasts tensors: an
    operator or comparison whose right operand is not a constant, or a broadcasting call."""
    for before, i in zip(instructions, instructions[1:], strict=False):
        if i.opname in ("BINARY_OP", "COMPARE_OP") and before.opname != "LOAD_CONST":
            return True
        if i is not fill and i.opname in ("LOAD_ATTR", "LOAD_METHOD"):
            if i.argval in _BROADCASTING or i.argval in ("masked_fill", "masked_fill_"):
                return True
    return False


def _passed_as_is(instructions: list[dis.Instruction], k: int) -> bool:
    """Whether the name loaded at ``instructions[k]`` is an argument as it is (inverted, or
    compared with a constant, at most), not indexed or reshaped first."""
    ops = [i.opname for i in instructions[k + 1 : k + 3]]
    if ops[:1] in (["UNARY_INVERT"], ["UNARY_NOT"]) or ops == ["LOAD_CONST", "COMPARE_OP"]:
        return True
    if ops[:1] and ops[0] in ("LOAD_ATTR", "LOAD_METHOD", "BINARY_SUBSCR", "BINARY_OP"):
        return False
    shaped = ("BUILD_TUPLE", "BINARY_SUBSCR", "LOAD_CONST", "BINARY_OP", "BUILD_SLICE")
    return not (ops[:1] == ["LOAD_CONST"] and ops[1:] and ops[1] in shaped)


def _mask_broadcast(frame: types.FrameType, line: int, err: BaseException) -> str:
    """The hint for a mask that does not broadcast against the tensor ``masked_fill`` fills,
    on the line that raised -- where that is decided: the mask's and the tensor's shapes
    (when both are plain names) do not broadcast, or nothing else on the line broadcasts."""
    if not isinstance(err, RuntimeError) or not any(m in str(err) for m in _BROADCAST):
        return ""
    instructions = _on_line(frame, line)
    at = next(
        (
            k
            for k, attr in enumerate(instructions)
            if k > 0
            and attr.opname in ("LOAD_ATTR", "LOAD_METHOD")
            and attr.argval in ("masked_fill", "masked_fill_")
        ),
        None,
    )
    if at is None:
        return ""
    load, attr = instructions[at - 1], instructions[at]
    value = _value(frame, load)
    mask = _value(frame, instructions[at + 1]) if at + 1 < len(instructions) else None
    if (
        isinstance(value, Tensor)
        and isinstance(mask, Tensor)
        and _passed_as_is(instructions, at + 1)
    ):
        if _expands(mask.shape, value.shape):
            return ""  # this mask fits: something else on the line raised
        target = f"{load.argval} {shape_str(value.shape)}"
        given = f", {instructions[at + 1].argval} {shape_str(mask.shape)},"
    elif _other_broadcasts(instructions, attr):
        return ""  # another operation on the line may have raised: the error says which sizes
    else:
        given = ""
        target = (
            f"{load.argval} {shape_str(tuple(value.shape))}"
            if isinstance(value, Tensor)
            else "the tensor it fills"
        )
    return (
        f"Likely cause: the mask given to {attr.argval}{given} does not broadcast against "
        f"{target}. Give the mask as many axes as the tensor it fills, with size 1 on the "
        "axes it repeats along (broadcasting lines axes up from the right): a (B, S) key "
        "padding mask over (B, T, S) scores is mask[:, None, :], over the (B, Nh, T, S) "
        "scores of several heads it is mask[:, None, None, :], shape (B, 1, 1, S)."
    )


def _expands(shape: torch.Size, target: torch.Size) -> bool:
    try:
        return tuple(torch.broadcast_shapes(shape, target)) == tuple(target)
    except RuntimeError:
        return False


_CAT = re.compile(r"Sizes of tensors must match except in dimension (-?\d+)")


_CATS = {"cat", "concat", "concatenate"}


def _cat_call(instructions: list[dis.Instruction]) -> tuple[int, dis.Instruction] | None:
    """Where ``torch.cat`` is loaded on the line, and the call of it (same position)."""
    for k, i in enumerate(instructions):
        if i.opname in ("LOAD_ATTR", "LOAD_METHOD") and i.argval in _CATS and i.positions:
            start = (i.positions.lineno, i.positions.col_offset)
            for j in instructions[k + 1 :]:
                if j.opname.startswith("CALL") and j.positions:
                    if (j.positions.lineno, j.positions.col_offset) == start:
                        return k, j
    return None


def _joined(instructions: list[dis.Instruction], k: int, frame: types.FrameType) -> list:
    """The tensors of ``torch.cat([a, b, ...])`` loaded at ``k``, where the list is written
    as plain names (``[]`` else)."""
    names = []
    for j in instructions[k + 1 :]:
        if j.opname in _LOADS:
            names.append(j)
            continue
        if j.opname in ("BUILD_LIST", "BUILD_TUPLE") and j.arg == len(names) >= 2:
            values = [_value(frame, n) for n in names]
            return values if all(isinstance(v, Tensor) for v in values) else []
        break
    return []


def _cat_axis(frame: types.FrameType, line: int, err: BaseException) -> str:
    """What ``torch.cat`` on tensors whose other axes differ was given, on the line that
    raised: where the tensors are plain names, their shapes and the axis they join along;
    a dim left to its default (0) as the likely cause; else what the call needs."""
    found = _CAT.search(str(err)) if isinstance(err, RuntimeError) else None
    instructions = _on_line(frame, line)
    call = _cat_call(instructions) if found is not None else None
    if call is None:
        return ""
    dim = int(found.group(1))
    default = dim == 0 and call[1].arg == 1  # one argument: the tensors, no dim
    said = f"dim={dim}" + (" -- its default when no dim= is given" if default else "")
    tensors = _joined(instructions, call[0], frame)
    if not tensors or len({t.ndim for t in tensors}) > 1:
        if default:
            return (
                f"Likely cause: torch.cat joined the tensors along {said}; all their other "
                "axes must have the same size. Is dim=0 the axis to join along (for (B, T, "
                "F) sequences, the time axis is dim=1)?"
            )
        return f"torch.cat joined the tensors along {said}: all their other axes must agree."
    shapes = [tuple(t.shape) for t in tensors]
    fits = [d for d in range(len(shapes[0])) if len({s[:d] + s[d + 1 :] for s in shapes}) == 1]
    listed = ", ".join(shape_str(s) for s in shapes)
    if dim in fits:
        return ""  # these join along dim: another call on the line raised
    if not fits:
        return (
            f"torch.cat was given tensors of shapes {listed}: they differ in more than one "
            f"axis, so no dim joins them as they are (it joined along {said})."
        )
    return (
        f"Likely cause: torch.cat joined the tensors along {said}, but their shapes, "
        f"{listed}, agree on every axis except dim={fits[0]}: is dim={fits[0]} the axis to "
        "join along?"
    )


def raised_hint(err: BaseException) -> str:
    """The likely cause of an error raised inside the student's own code, as a sentence, or
    ``""``: read from the traceback's frames (their code and variables), no source needed."""
    frames = []
    tb = err.__traceback__
    while tb is not None:
        frames.append((tb.tb_frame, tb.tb_lineno, tb.tb_lasti))
        tb = tb.tb_next
    for depth, (frame, line, lasti) in enumerate(reversed(frames)):  # the innermost first
        try:
            hint = ""
            if users_code(frame.f_code):
                hint = _dot_t(frame, line, lasti)
                if not hint and depth == 0:  # raised by a PyTorch operation on this line
                    hint = _mask_broadcast(frame, line, err) or _cat_axis(frame, line, err)
        except Exception:  # a diagnosis must never hide the student's own error
            hint = ""
        if hint:
            return hint
    return ""
