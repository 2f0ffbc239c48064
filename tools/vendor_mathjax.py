"""Copy MathJax 3 from the installed PyPI package into _mathjax/ so the site renders offline.

The book serves it through ``html_extra_path: [_mathjax]`` (copied to the site root as
``mathjax/``) and ``mathjax_path``. It must not live under ``_static/``: Jupyter Book adds
every .js file found there to every page as a script tag, and MathJax's own extension files
would then all load at once.
"""

from __future__ import annotations

import shutil
import sys
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET = ROOT / "_mathjax" / "mathjax"
PACKAGE = "sphinx-mathjax-offline"
KEEP_FILES = ["tex-chtml.js"]
KEEP_DIRS = ["a11y", "adaptors", "input", "output", "sre", "ui"]


def source_dir() -> Path:
    try:
        dist = metadata.distribution(PACKAGE)
    except metadata.PackageNotFoundError:
        sys.exit(f"{PACKAGE} is not installed: run `make setup` (it is in requirements.txt)")
    path = Path(dist.locate_file("sphinx-mathjax-offline/static/mathjax"))
    if not (path / "tex-chtml.js").exists():
        sys.exit(f"{PACKAGE} {dist.version} does not ship tex-chtml.js where expected: {path}")
    return path


def main() -> int:
    src = source_dir()
    stamp = TARGET / ".source"
    if stamp.exists() and stamp.read_text() == str(src):
        return 0
    shutil.rmtree(TARGET, ignore_errors=True)
    TARGET.mkdir(parents=True)
    for name in KEEP_FILES:
        shutil.copy2(src / name, TARGET / name)
    for name in KEEP_DIRS:
        shutil.copytree(src / name, TARGET / name)
    stamp.write_text(str(src))
    print(f"MathJax copied from {src} to {TARGET.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
