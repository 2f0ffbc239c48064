"""Describe this machine for a bug report: ``python -m course_lib.doctor``.

Prints plain text to paste into an issue (in a notebook: ``!python -m course_lib.doctor``).
Nothing is sent anywhere and nothing is downloaded. It reports

* which course_lib runs: a checkout's source tree or an installed wheel, its path and version;
* Python and the library's packages, against the ranges course_lib declares (and, in a
  checkout, the exact pins of ``requirements.txt`` that reproduce the book's outputs);
* the devices: CUDA, Apple MPS, the CPU's kernels and threads, and the one the course uses;
* in a checkout, the platform fingerprint and whether ``make test`` verifies each chapter in
  the reference or the portable mode (``tools/verification.py`` decides; it is reused here);
* where the data file would be read from, and whether it is there and intact;
* the operating system and the date.

The doctor never raises on a broken environment: each check that fails prints its own
problem, and the rest still run.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import os
import platform
import sys
from collections import Counter
from collections.abc import Callable, Mapping
from datetime import datetime, timezone
from pathlib import Path

from course_lib._foreign_names import explains_bad_calls
from course_lib._versions import (
    declared_ranges,
    installed_versions,
    normalize,
    pin_lines,
    read_pins,
    version_status,
)

__all__ = [
    "checkout_root",
    "course_lib_lines",
    "package_lines",
    "device_lines",
    "verification_lines",
    "data_lines",
    "platform_lines",
    "summary_line",
    "report",
    "main",
]


def _failed(err: BaseException) -> str:
    return f"check failed ({type(err).__name__}: {err})"


def _safe(label: str, fn: Callable[[], object]) -> str:
    """``"label: value"``, or the check's own error in place of the value."""
    try:
        return f"{label}: {fn()}"
    except Exception as err:  # the doctor reports a broken environment, it never raises
        return f"{label}: {_failed(err)}"


# -- course_lib itself ----------------------------------------------------------------


@explains_bad_calls()
def checkout_root(package_file: str | os.PathLike | None = None) -> Path | None:
    """The repository that holds course_lib, when it is imported from a checkout.

    Args:
        package_file: course_lib's ``__init__.py``; defaults to the imported one.

    Returns:
        The folder above the package when it has ``tools/verification.py`` and ``chapters/``,
        else ``None`` (an installed wheel, Colab's copy).
    """
    if package_file is None:
        import course_lib

        package_file = course_lib.__file__
    root = Path(package_file).resolve().parent.parent
    if (root / "tools" / "verification.py").is_file() and (root / "chapters").is_dir():
        return root
    return None


def _installed_as() -> str:
    """Which installed ``course-lib`` distribution the imported course_lib belongs to."""
    import course_lib

    imported = Path(course_lib.__file__).resolve()
    root = checkout_root()
    found = []
    # a checkout's course_lib.egg-info, a build leftover on sys.path, is not an install
    for dist in importlib.metadata.distributions(name="course-lib"):
        where = Path(dist.locate_file("")).resolve()
        if where == root:
            continue
        direct = json.loads(dist.read_text("direct_url.json") or "{}")
        if direct.get("dir_info", {}).get("editable"):
            what = f"editable install of {direct.get('url', '?')}, version {dist.version}"
            mine = root is not None and direct.get("url") == root.as_uri()
        else:
            what = f"installed distribution in {where}, version {dist.version}"
            mine = Path(dist.locate_file("course_lib/__init__.py")).resolve() == imported
        found.append((mine, what))
    if not found:
        return "no installed course-lib distribution (imported through sys.path)"
    others = [what for mine, what in found if not mine]
    for mine, what in found:
        if mine:
            return what + (f"; also on the path: {'; '.join(others)}" if others else "")
    return f"none of the installed ones ({'; '.join(others)}): another copy shadows them"


@explains_bad_calls()
def course_lib_lines() -> list[str]:
    """Which course_lib runs: its version, its folder, a checkout's or an installed one.

    Returns:
        The section's lines.
    """
    import course_lib

    package = Path(course_lib.__file__).resolve().parent
    root = checkout_root()
    if root is not None:
        origin = f"the source tree of the checkout {root}"
    elif {"site-packages", "dist-packages"} & set(package.parts):
        origin = "an installed wheel (site-packages), not a checkout"
    else:
        origin = "an installed copy, not a checkout"
    return [
        f"version: {course_lib.__version__}",
        f"imported from: {package}",
        f"which: {origin}",
        _safe("installed as", _installed_as),
    ]


# -- packages -------------------------------------------------------------------------


@explains_bad_calls()
def package_lines(
    versions: Mapping[str, str | None],
    ranges: Mapping[str, str],
    pins: Mapping[str, str] | None = None,
) -> list[str]:
    """One line per package with its status, then the comparison with the book's pins.

    Args:
        versions: installed version per package, ``None`` when missing.
        ranges: declared range per normalized name (see :func:`declared_ranges`); empty
            when course-lib's metadata is missing.
        pins: ``requirements.txt``'s pins (see :func:`read_pins`); ``None`` outside a checkout.
    """
    lines = [f"python: {platform.python_version()} ({sys.executable})"]
    for name, version in versions.items():
        spec = ranges.get(normalize(name)) if ranges else None
        lines.append(f"{name:11} {version or '-':14} {version_status(version, spec)}")
    if pins is None:
        lines.append("requirements.txt: not a checkout, no pins to compare")
    else:
        all_versions = installed_versions(tuple(pins))
        lines += pin_lines(pins, {**all_versions, **{normalize(k): v for k, v in versions.items()}})
    return lines


def _packages() -> list[str]:
    root = checkout_root()
    pins = read_pins(root / "requirements.txt") if root else None
    return package_lines(installed_versions(), declared_ranges(), pins)


# -- devices --------------------------------------------------------------------------


def _cuda() -> str:
    import torch

    if not torch.cuda.is_available():
        built = (
            f"torch built with CUDA {torch.version.cuda}" if torch.version.cuda else "a CPU build"
        )
        return f"not available ({built})"
    gpus = []
    for i in range(torch.cuda.device_count()):
        props = torch.cuda.get_device_properties(i)
        gpus.append(f"cuda:{i} {props.name}, {props.total_memory / 2**30:.1f} GiB")
    return f"{'; '.join(gpus)} (CUDA {torch.version.cuda})"


def _mps() -> str:
    import torch

    mps = getattr(torch.backends, "mps", None)
    if mps is None or not mps.is_available():
        return "not available"
    return "available, not used: the course runs on the CPU on a Mac"


def _cpu() -> str:
    import torch

    forced = os.environ.get("ATEN_CPU_CAPABILITY")
    capability = torch.backends.cpu.get_cpu_capability()
    return (
        f"{capability} kernels{f' (ATEN_CPU_CAPABILITY={forced})' if forced else ''}, "
        f"{os.cpu_count()} cores, OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}, "
        f"torch threads {torch.get_num_threads()}"
    )


def _course_device() -> str:
    from course_lib.train import default_device

    requested = os.environ.get("COURSE_DEVICE")
    why = (
        f"COURSE_DEVICE={requested}"
        if requested
        else "COURSE_DEVICE unset: a GPU if any, else the CPU"
    )
    try:
        return f"{default_device()} ({why})"
    except ValueError as err:
        return f"none -- {err}"


@explains_bad_calls()
def device_lines() -> list[str]:
    """CUDA, Apple MPS, the CPU's kernels and threads, and the device the course uses.

    Returns:
        The section's lines; one line saying why when torch cannot be imported.
    """
    try:
        import torch
    except Exception as err:
        return [f"torch: cannot be imported ({type(err).__name__}: {err})"]
    return [
        f"torch: {torch.__version__}",
        _safe("CUDA", _cuda),
        _safe("Apple MPS", _mps),
        _safe("CPU", _cpu),
        _safe("course device", _course_device),
    ]


# -- verification mode (make test) ----------------------------------------------------


def _load_verification(root: Path):
    """``tools/verification.py`` of the checkout, loaded by path (it is not a package)."""
    spec = importlib.util.spec_from_file_location(
        "_course_verification", root / "tools" / "verification.py"
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[spec.name]
        raise
    return module


@explains_bad_calls()
def verification_lines(root: Path | None) -> tuple[list[str], str | None]:
    """The platform fingerprint and the mode ``make test`` verifies each chapter in here.

    The decision is ``tools/verification.py``'s own, loaded from the checkout.

    Args:
        root: the checkout (see :func:`checkout_root`); ``None`` outside one.

    Returns:
        The section's lines, and the modes in short (``"portable x1, reference x8"``), or
        ``None`` when they are unknown.

    Raises:
        Exception: whatever the verification module raises (an invalid ``COURSE_VERIFY``,
            an unreadable notebook); :func:`report` prints it in the section.
    """
    if root is None:
        return ["not a checkout: make test does not apply"], None
    try:
        verification = _load_verification(root)
    except ImportError as err:
        return [f"tools/verification.py cannot be loaded ({err}): run `make setup`"], None
    current = verification.fingerprint()
    lines = ["fingerprint:"] + [f"  {key}: {value}" for key, value in current.items()]
    notebooks = sorted((root / "chapters").glob("*.ipynb"))
    plans = [verification.plan(path, current) for path in notebooks]
    lines += verification.format_plans(plans).splitlines()
    modes = Counter(p.mode for p in plans)
    return lines, ", ".join(f"{mode} x{n}" for mode, n in sorted(modes.items())) or None


# -- data -----------------------------------------------------------------------------


@explains_bad_calls()
def data_lines() -> list[str]:
    """Where the translation data would be read from, and whether it is there and intact.

    Never downloads: a missing folder, a missing file or a damaged copy is reported.

    Returns:
        The section's lines.
    """
    from course_lib import datafiles

    try:
        folder = datafiles.data_dir()
    except datafiles.DataFileError as err:
        return [f"folder: PROBLEM -- {err}"]
    source = "COURSE_DATA_DIR" if os.environ.get("COURSE_DATA_DIR") else "the per-user cache"
    exists = "" if folder.is_dir() else "; does not exist yet"
    lines = [f"folder: {folder} ({source}{exists})"]
    name = datafiles.ENG_FRA.filename
    path = folder / name
    if not path.exists():
        return [*lines, f"{name}: missing (the translation chapter downloads it on first use)"]
    try:
        datafiles.read_text(path, datafiles.ENG_FRA)
    except datafiles.DataFileError as err:
        return [*lines, f"{name}: DAMAGED -- {err}"]
    sha = datafiles.ENG_FRA.sha256[:12]
    return [*lines, f"{name}: present, checksum ok ({sha}..., {path.stat().st_size:,} bytes)"]


# -- platform -------------------------------------------------------------------------


@explains_bad_calls()
def platform_lines() -> list[str]:
    """The operating system, the machine, Python, the date (and Colab's release, on Colab).

    Returns:
        The section's lines.
    """
    lines = [
        f"os: {platform.platform()}",
        f"machine: {platform.machine()}",
        f"python: {platform.python_implementation()} {sys.version.split()[0]}",
        f"date: {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC",
    ]
    if os.environ.get("COLAB_RELEASE_TAG"):
        lines.append(f"colab: {os.environ['COLAB_RELEASE_TAG']}")
    return lines


# -- the report -----------------------------------------------------------------------


def _short(fn: Callable[[], object]) -> str:
    try:
        return str(fn())
    except Exception as err:
        return f"unknown ({type(err).__name__})"


def _summary(mode: str | None) -> str:
    import course_lib

    def torch_version() -> str:
        import torch

        return torch.__version__

    def device() -> str:
        from course_lib.train import default_device

        try:
            return str(default_device())
        except ValueError:
            return f"refused (COURSE_DEVICE={os.environ.get('COURSE_DEVICE')!r})"

    def capability() -> str:
        import torch

        return torch.backends.cpu.get_cpu_capability()

    parts = [
        f"course_lib {course_lib.__version__}",
        f"Python {platform.python_version()}",
        f"torch {_short(torch_version)}",
        f"device {_short(device)}",
        f"CPU {_short(capability)}",
    ]
    if mode:
        parts.append(f"make test: {mode}")
    return " | ".join(parts)


def _verification_safe(root: Path | None) -> tuple[list[str], str | None]:
    try:
        return verification_lines(root)
    except Exception as err:
        return [_failed(err)], None


@explains_bad_calls()
def summary_line() -> str:
    """One line: course_lib, Python, torch, device, CPU capability, and make test's modes."""
    try:
        return _summary(_verification_safe(checkout_root())[1])
    except Exception as err:
        return f"summary: {_failed(err)}"


def _section(title: str, fn: Callable[[], list[str]]) -> list[str]:
    try:
        body = fn()
    except Exception as err:
        body = [_failed(err)]
    return [f"== {title} ==", *body, ""]


@explains_bad_calls()
def report() -> str:
    """The whole description, as text to paste into a bug report."""
    try:
        root = checkout_root()
    except Exception:
        root = None
    verification, mode = _verification_safe(root)
    try:
        summary = _summary(mode)
    except Exception as err:
        summary = f"summary: {_failed(err)}"
    lines = [
        "course_lib doctor -- paste all of this into the bug report (nothing was sent anywhere)",
        summary,
        "",
        *_section("course_lib", course_lib_lines),
        *_section("Python and packages", _packages),
        *_section("devices", device_lines),
        *_section("make test (verification mode)", lambda: verification),
        *_section("data", data_lines),
        *_section("platform", platform_lines),
    ]
    return "\n".join(lines).rstrip() + "\n"


@explains_bad_calls()
def main() -> int:
    """Print the report; the exit status is 0 whatever it found."""
    sys.stdout.write(report())
    return 0


if __name__ == "__main__":
    sys.exit(main())
