"""The wheel that Colab installs holds all of course_lib, and it works without the source tree.

`make` installs course_lib in editable mode, which finds every subpackage through the source
tree; the setup cell of every notebook instead builds a wheel from the repository. This test
builds that wheel offline (the pinned setuptools, no build isolation, no index), checks that
every module under course_lib/ is in it, installs it into a folder of its own and imports
each module from there with the source tree and the editable install off the path.
"""

import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LIBRARY = ROOT / "course_lib"


def library_modules() -> list[str]:
    names = []
    for path in sorted(LIBRARY.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


def pip(*args: str, cwd: Path) -> None:
    env = {**os.environ, "PIP_NO_INDEX": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    subprocess.run(
        [sys.executable, "-m", "pip", *args],
        cwd=cwd,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """Build course_lib's wheel from a copy of the project's packaging files."""
    src = tmp_path_factory.mktemp("src")
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, src / name)
    shutil.copytree(LIBRARY, src / "course_lib", ignore=shutil.ignore_patterns("__pycache__"))
    out = tmp_path_factory.mktemp("wheel")
    pip("wheel", "--no-build-isolation", "--no-deps", "-w", str(out), str(src), cwd=src)
    (built,) = out.glob("course_lib-*.whl")
    return built


def test_the_wheel_holds_every_module(wheel):
    with zipfile.ZipFile(wheel) as archive:
        files = set(archive.namelist())
    expected = {str(p.relative_to(ROOT).as_posix()) for p in LIBRARY.rglob("*.py")}
    missing = sorted(expected - files)
    assert not missing, f"the wheel lacks {missing}: check [tool.setuptools.packages.find]"
    assets = {
        str(p.relative_to(ROOT).as_posix())
        for pattern in ("*.js", "*.css")
        for p in (LIBRARY / "views").glob(pattern)
    }
    assert assets and not assets - files, "the views' assets: [tool.setuptools.package-data]"


def test_the_wheel_carries_the_licence(wheel):
    """The MIT licence travels with every copy of the library (its one condition)."""
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        (dist_info,) = {name.split("/")[0] for name in names if ".dist-info/" in name}
        licence = f"{dist_info}/licenses/LICENSE"
        assert licence in names, f"the wheel has no {licence}: check pyproject.toml's license"
        assert archive.read(licence) == (ROOT / "LICENSE").read_bytes()
        metadata = archive.read(f"{dist_info}/METADATA").decode()
    assert "License-Expression: MIT" in metadata.splitlines()
    assert "License-File: LICENSE" in metadata.splitlines()
    assert (ROOT / "LICENSE").read_text().startswith("MIT License\n")


def test_a_view_builds_from_the_installed_wheel(wheel, tmp_path):
    target = tmp_path / "site"
    pip("install", "--no-deps", "--target", str(target), str(wheel), cwd=tmp_path)
    site_packages = sysconfig.get_paths()["purelib"]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(target), site_packages])}
    script = (
        "import torch\n"
        "from course_lib.views import attention_view\n"
        "view = attention_view(torch.eye(2), ['a', 'b'])\n"
        "assert 'boot(start)' in view.html and '.clv{' in view.html\n"
    )
    result = subprocess.run(
        [sys.executable, "-S", "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr[-2000:]


def test_every_module_imports_from_the_installed_wheel(wheel, tmp_path):
    target = tmp_path / "site"
    pip("install", "--no-deps", "--target", str(target), str(wheel), cwd=tmp_path)
    # -S: no site processing, so neither the editable install's finder nor the source tree
    # is on the path -- only the installed wheel and the third-party packages it needs.
    site_packages = sysconfig.get_paths()["purelib"]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(target), site_packages])}
    modules = library_modules()
    script = (
        "import importlib, sys\n"
        f"for name in {modules!r}:\n"
        "    module = importlib.import_module(name)\n"
        f"    assert module.__file__.startswith({str(target)!r}), module.__file__\n"
        "print(len(sys.modules))\n"
    )
    result = subprocess.run(
        [sys.executable, "-S", "-c", script],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert "course_lib.checks" in modules
