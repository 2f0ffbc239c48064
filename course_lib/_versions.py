"""Installed versions against the ranges course_lib declares and the book's exact pins.

The doctor's package checks (:mod:`course_lib.doctor`), kept apart so each piece can be fed
made-up versions and ranges: nothing here imports the packages it checks, it reads their
installed metadata. ``packaging`` judges the ranges when it is installed; a small fallback
that compares release numbers does otherwise.
"""

from __future__ import annotations

import importlib.metadata
import operator
import re
from collections.abc import Mapping
from pathlib import Path

__all__ = [
    "PACKAGES",
    "normalize",
    "declared_ranges",
    "installed_versions",
    "version_status",
    "read_pins",
    "pin_lines",
]

#: The packages course_lib needs, in the order the report lists them.
PACKAGES = ("torch", "numpy", "sacrebleu", "matplotlib", "tqdm")


def normalize(name: str) -> str:
    """A distribution's name as the registries compare them: ``PyYAML`` -> ``pyyaml``."""
    return re.sub(r"[-_.]+", "-", name).lower()


def declared_ranges() -> dict[str, str]:
    """The version ranges course_lib declares for its packages, from the installed
    distribution's metadata: ``{"torch": ">=2.1", ...}``; empty when it is not installed."""
    try:
        requirements = importlib.metadata.requires("course-lib") or []
    except importlib.metadata.PackageNotFoundError:
        return {}
    ranges = {}
    for line in requirements:
        if ";" in line:  # an extra or a platform marker: not a requirement of every install
            continue
        match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*\(?([^)]*)", line)
        if match:
            ranges[normalize(match.group(1))] = match.group(2).strip()
    return ranges


def installed_versions(names: tuple[str, ...] = PACKAGES) -> dict[str, str | None]:
    """The installed version of each distribution in ``names``, ``None`` for a missing one."""
    versions: dict[str, str | None] = {}
    for name in names:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = None
    return versions


_OPERATORS = {
    ">=": operator.ge,
    "<=": operator.le,
    "==": operator.eq,
    "!=": operator.ne,
    ">": operator.gt,
    "<": operator.lt,
    "~=": operator.ge,
}


def _release(version: str) -> tuple[int, ...]:
    match = re.match(r"\s*v?(\d+(?:\.\d+)*)", version)
    if not match:
        raise ValueError(f"cannot read the version {version!r}")
    return tuple(int(part) for part in match.group(1).split("."))


def _fallback_contains(specifier: str, version: str) -> bool:
    """``version`` in ``specifier``, comparing release numbers only (without ``packaging``)."""
    have = _release(version)
    for clause in filter(None, (c.strip() for c in specifier.split(","))):
        match = re.fullmatch(r"(>=|<=|==|!=|~=|>|<)\s*(\S+)", clause)
        if not match:
            raise ValueError(f"cannot read the version range {clause!r}")
        op, wildcard = match.group(1), match.group(2).endswith(".*")
        want = _release(match.group(2).removesuffix(".*"))
        if wildcard and op in ("==", "!="):  # ==2.1.* : the release starts with 2.1
            if (have[: len(want)] == want) != (op == "=="):
                return False
            continue
        width = max(len(have), len(want))
        pad = (0,) * width
        if not _OPERATORS[op]((have + pad)[:width], (want + pad)[:width]):
            return False
    return True


def _contains(specifier: str, version: str) -> bool:
    try:
        from packaging.specifiers import SpecifierSet
    except ImportError:
        return _fallback_contains(specifier, version)
    # a nightly or release candidate is judged by its release number
    return SpecifierSet(specifier).contains(version, prereleases=True)


def version_status(version: str | None, specifier: str | None) -> str:
    """Judge an installed version against the range course_lib declares for it.

    Args:
        version: the installed version, ``None`` when the package is missing.
        specifier: the declared range (``">=2.1"``); ``None`` when none is known.

    Returns:
        ``"ok (>=2.1)"``, ``"OUTSIDE the tested range >=2.1"``, ``"missing"``, or a note
        when there is no range to compare with or it cannot be read.
    """
    if version is None:
        return "missing"
    if specifier is None:
        return "no tested range known (course-lib's metadata is not installed)"
    if not specifier:
        return "ok (any version)"
    try:
        inside = _contains(specifier, version)
    except Exception as err:
        return f"cannot compare with {specifier} ({err})"
    return f"ok ({specifier})" if inside else f"OUTSIDE the tested range {specifier}"


def _public(version: str) -> str:
    return version.split("+")[0]  # "2.13.0+cpu" is the pinned 2.13.0, a CPU build


def read_pins(path: Path) -> dict[str, str]:
    """The exact pins ``name==version`` of a requirements file, by normalized name."""
    pins = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        match = re.fullmatch(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*==\s*(\S+)\s*", line)
        if match:
            pins[normalize(match.group(1))] = match.group(2)
    return pins


def pin_lines(pins: Mapping[str, str], versions: Mapping[str, str | None]) -> list[str]:
    """Compare the installed versions with the book's exact pins.

    A local build label does not count: torch ``2.13.0+cpu`` matches the pin ``2.13.0``.

    Args:
        pins: ``requirements.txt``'s pins by normalized name (see :func:`read_pins`).
        versions: the installed versions by normalized name, ``None`` for a missing one.

    Returns:
        One line: "matches the book's pins", or how many differ and which (the library's
        own packages first).
    """
    first = sorted(pins, key=lambda name: name not in PACKAGES)  # the library's own first
    differ = [
        f"{name} {versions.get(name) or 'missing'} (book: {pins[name]})"
        for name in first
        if versions.get(name) is None or _public(versions[name]) != _public(pins[name])
    ]
    if not differ:
        return [f"requirements.txt: matches the book's pins (all {len(pins)})"]
    shown = "; ".join(differ[:12]) + (f"; and {len(differ) - 12} more" if len(differ) > 12 else "")
    return [f"requirements.txt: {len(differ)} of {len(pins)} pins differ: {shown}"]
