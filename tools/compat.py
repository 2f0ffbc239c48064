"""Do the version ranges course_lib promises hold? Test the newest or the oldest releases.

    python3 tools/compat.py latest     # `make test-latest`: the newest releases the ranges allow
    python3 tools/compat.py oldest     # `make test-oldest`: every range's floor
    make test-latest PYTHON=python3.12  # another interpreter (Colab's), its own environment

``pyproject.toml`` gives course_lib's dependencies as ranges (so Colab keeps its own torch);
``requirements.txt`` pins the exact versions that reproduce the book. This script checks the
ranges themselves, in a separate environment (``.venv-latest-py3.11``,
``.venv-oldest-py3.10``, ...: one per kind and Python, chosen with ``--python``):

1. install course_lib's own dependencies first -- ``latest``: the newest releases inside the
   ranges, with everything they pull in at its newest too (what a fresh Colab gets next
   month); ``oldest``: ``name==floor`` for every ``name>=floor``;
2. add the test tooling at requirements.txt's pins, leaving the packages of step 1 as they are
   (a pin that clashes with them is left to pip to resolve);
3. check that what got installed is what was asked: for ``latest``, each dependency is the
   newest release the package index lists inside its range (a pip constraint or cache can
   silently hold one back: the message says how to lift it);
4. run the library tests, then every notebook in the portable mode (exact cells compared,
   claim cells checked), and write a record to
   ``benchmarks/results/<date>_compat_<kind>-py<X.Y>.txt``. The notebooks need the data file
   as ``make test`` does (``COURSE_DATA_DIR``, or the per-user cache).

Downloads are large (torch with its CUDA libraries, a few GB) but happen once per environment;
``--skip-install`` reuses an existing one. Nothing here runs in ``make test`` or CI: the newest
releases change from day to day, and CI checks the pinned environment.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.util
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
#: What the tests and notebooks need directly (requirements.txt's header names them), for a
#: Python on which requirements.txt's exact pins have no release.
DIRECT_TOOLING = [
    "jupyter-book>=1,<2",
    "sphinx-exercise",
    "sphinxcontrib-bibtex",
    "sphinx-mathjax-offline",
    "nbval",
    "nbclient",
    "nbformat",
    "ipykernel",
    "pytest",
    "pytest-xdist",
    "hypothesis",
    "PyYAML",
    "setuptools",
    "wheel",
]


def ranges() -> dict[str, str]:
    """course_lib's dependencies as written in pyproject.toml: ``{"torch": ">=2.1", ...}``."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    block = re.search(r"^dependencies = \[(.*?)^\]", text, re.S | re.M).group(1)
    found = re.findall(r'^\s*"([A-Za-z0-9_.-]+)\s*([^"]*)"', block, re.M)
    return {name: spec.replace(" ", "") for name, spec in found}


def floor(spec: str) -> str:
    match = re.search(r">=([\d.]+)", spec)
    if not match:
        raise SystemExit(f"no floor (>=) in {spec!r}: add one to pyproject.toml")
    return match.group(1)


def _key(version: str) -> tuple:
    """``"2.1"`` -> ``(2, 1, 0, 0)``: release numbers compared as numbers, padded."""
    parts = tuple(int(p) if p.isdigit() else -1 for p in re.split(r"[.+]", version)[:4])
    return parts + (0,) * (4 - len(parts))


def _load_versions():
    """course_lib/_versions.py by path (standard library only): the doctor's range check,
    without importing course_lib, which this interpreter may not have installed."""
    path = ROOT / "course_lib" / "_versions.py"
    spec = importlib.util.spec_from_file_location("course_lib_versions", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_VERSIONS = _load_versions()


def admits(spec: str, version: str) -> bool:
    """Whether the release ``version`` satisfies ``spec`` (``>=2.3,<2.7``), judged as the
    doctor judges it; pre-releases and local builds are not releases on the index."""
    if "+" in version or re.search(r"[a-z]", version):
        return False
    return _VERSIONS._contains(spec, version)


def newest_on_index(pip: list[str], name: str, spec: str) -> str | None:
    out = subprocess.run(
        [*pip, "index", "versions", name], capture_output=True, text=True, check=False
    ).stdout
    match = re.search(r"Available versions: (.*)", out)
    if not match:
        return None
    candidates = [v.strip() for v in match.group(1).split(",")]
    allowed = [v for v in candidates if admits(spec, v)]
    return max(allowed, key=_key) if allowed else None


def run(cmd: list[str], **kw) -> int:
    print("+", " ".join(cmd), flush=True)
    return subprocess.run(cmd, check=False, **kw).returncode


def install(kind: str, venv: Path, deps: dict[str, str], python: str) -> None:
    if not (venv / "bin" / "python").exists():
        if run([python, "-m", "venv", str(venv)]) != 0:
            raise SystemExit(f"--python {python}: could not create a virtual environment")
    pip = [str(venv / "bin" / "python"), "-m", "pip", "--disable-pip-version-check"]
    run([*pip, "install", "--quiet", "--upgrade", "pip"])
    if kind == "latest":
        wanted = [f"{n}{s}" for n, s in deps.items()]
        step1 = [*pip, "install", "--upgrade", "--upgrade-strategy", "eager", *wanted]
    else:
        step1 = [*pip, "install", *[f"{n}=={floor(s)}" for n, s in deps.items()]]
    if run(step1) != 0:
        raise SystemExit(f"installing course_lib's dependencies ({kind}) failed: see above")
    frozen = subprocess.run([*pip, "freeze"], capture_output=True, text=True, check=True).stdout
    have = {re.split(r"==| @ ", line)[0].lower().replace("_", "-") for line in frozen.split()}
    keep = [line for line in frozen.split() if line.split("==")[0].lower() in deps]
    tooling = []
    for line in (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            name = line.split("==")[0].lower().replace("_", "-")
            if name not in have:
                tooling.append(line)
    constraints = venv / "course-deps-constraints.txt"
    constraints.write_text("\n".join(keep) + "\n", encoding="utf-8")
    if tooling and run([*pip, "install", "--quiet", *tooling, "-c", str(constraints)]) != 0:
        # requirements.txt's pins are for the book's Python; another Python (3.10, say) may
        # have no release of some of them: let pip choose the tooling's versions there
        print("the pinned tooling does not install on this Python: trying it unpinned")
        if run([*pip, "install", "--quiet", *DIRECT_TOOLING, "-c", str(constraints)]) != 0:
            raise SystemExit("installing the test tooling failed: see above")
        (venv / "tooling-unpinned").write_text("yes\n", encoding="utf-8")
    if run([*pip, "install", "--quiet", "--no-deps", "-e", str(ROOT)]) != 0:
        raise SystemExit("installing course_lib (editable) failed: see above")


def installed(venv: Path, names) -> dict[str, str]:
    code = (
        "import importlib.metadata as m, json, sys;"
        "print(json.dumps({n: m.version(n) for n in sys.argv[1:]}))"
    )
    out = subprocess.run(
        [str(venv / "bin" / "python"), "-c", code, *names],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return json.loads(out)


def check_versions(kind: str, venv: Path, deps: dict[str, str]) -> list[str]:
    """Lines for the record; raises SystemExit when a version is not the one asked for."""
    pip = [str(venv / "bin" / "python"), "-m", "pip", "--disable-pip-version-check"]
    got = installed(venv, deps)
    lines, wrong = [], []
    for name, spec in deps.items():
        version = got[name].split("+")[0]
        target = floor(spec) if kind == "oldest" else newest_on_index(pip, name, spec)
        ok = target is None or _key(version) == _key(target)
        lines.append(
            f"  {name:<10} {got[name]:<14} range {spec:<12} "
            f"{kind} allowed: {target or 'index not reachable'}"
        )
        if not ok:
            wrong.append(f"{name} {got[name]} (wanted {target})")
    if wrong:
        raise SystemExit(
            f"{venv.name} does not hold the {kind} releases: {', '.join(wrong)}. A pip "
            "constraint (PIP_CONSTRAINT, or `constraint =` in a pip.conf: `pip config list`) "
            "may be holding a release back; run with PIP_CONFIG_FILE=/dev/null to ignore pip's "
            "configuration files, or remove the environment folder and try again."
        )
    return lines


def cpu() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    import platform

    return platform.processor() or platform.machine()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("kind", choices=["latest", "oldest"])
    parser.add_argument(
        "--python",
        default=sys.executable,
        help="interpreter of the environment (default: this one), e.g. python3.12",
    )
    parser.add_argument("--skip-install", action="store_true", help="reuse the environment")
    parser.add_argument("--no-notebooks", action="store_true", help="library tests only")
    parser.add_argument("--no-record", action="store_true", help="write no record")
    args = parser.parse_args(argv)
    version = subprocess.run(
        [args.python, "-c", "import sys; print(f'{sys.version_info[0]}.{sys.version_info[1]}')"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    if not version:
        raise SystemExit(f"--python {args.python!r}: not a Python interpreter here")
    suffix = f"{args.kind}-py{version}"
    venv = ROOT / f".venv-{suffix}"
    deps = ranges()
    start = time.time()
    if not args.skip_install:
        install(args.kind, venv, deps, args.python)
    lines = check_versions(args.kind, venv, deps)
    installed_s = time.time() - start
    python = str(venv / "bin" / "python")
    env = dict(
        os.environ, OMP_NUM_THREADS=os.environ.get("OMP_NUM_THREADS", "1"), COURSE_VERIFY="portable"
    )
    steps = [("library tests", [python, "-m", "pytest", "tests", "-q", "-p", "no:cacheprovider"])]
    if not args.no_notebooks:
        steps.append(
            (
                "notebooks, portable mode",
                [
                    python,
                    "-m",
                    "pytest",
                    "--nbval",
                    "-p",
                    "verification",
                    *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "chapters").glob("*.ipynb")),
                    "-q",
                    "-p",
                    "no:cacheprovider",
                    "--nbval-current-env",
                    "--nbval-cell-timeout=3600",
                    "--nbval-sanitize-with",
                    "tools/nbval_sanitize.cfg",
                    "-n",
                    "2",
                    "--dist",
                    "loadfile",
                ],
            )
        )
    results = []
    failed_items: list[str] = []
    for name, cmd in steps:
        t0 = time.time()
        proc = subprocess.run(
            cmd,
            cwd=ROOT,
            env=dict(env, PYTHONPATH="tools"),
            capture_output=True,
            text=True,
            check=False,
        )
        sys.stdout.write(proc.stdout[-6000:])
        sys.stderr.write(proc.stderr[-3000:])
        tail = [ln for ln in proc.stdout.splitlines() if re.search(r"passed|failed|error", ln)]
        summary = tail[-1].strip("= ") if tail else "no summary"
        results.append((name, proc.returncode, summary, time.time() - t0))
        failed_items += [
            "    " + re.sub(r"\x1b\[[0-9;]*m", "", ln).split(" - ")[0]
            for ln in proc.stdout.splitlines()
            if ln.startswith("FAILED ")
        ]
    ok = all(code == 0 for _, code, _, _ in results)
    py = subprocess.run(
        [python, "-c", "import platform; print(platform.python_version())"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    record = [
        f"# make test-{args.kind} on {datetime.date.today().isoformat()}: "
        f"{'PASSED' if ok else 'FAILED'}",
        f"machine: {cpu()}, {os.cpu_count()} cores; Python {py}; OMP_NUM_THREADS="
        f"{env['OMP_NUM_THREADS']}; "
        + ("environment reused" if args.skip_install else f"install {installed_s / 60:.1f} min"),
        "test tooling: "
        + (
            "requirements.txt's pins do not install on this Python; pip's choice of versions"
            if (venv / "tooling-unpinned").exists()
            else "requirements.txt's pins"
        ),
        f"course_lib's dependencies ({args.kind}):",
        *lines,
        "results:",
        *[
            f"  {n:<26} {'passed' if c == 0 else 'FAILED'}  {s}  ({t / 60:.1f} min)"
            for n, c, s, t in results
        ],
        *(["  notebooks                  not run (--no-notebooks)"] if args.no_notebooks else []),
        *(["failed:", *failed_items] if failed_items else []),
    ]
    print("\n".join(record))
    if not args.no_record:
        path = RESULTS / f"{datetime.date.today().isoformat()}_compat_{suffix}.txt"
        path.write_text("\n".join(record) + "\n", encoding="utf-8")
        print(f"record written to {path.relative_to(ROOT)}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
