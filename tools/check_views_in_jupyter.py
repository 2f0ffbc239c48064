"""Check the book's interactive views inside JupyterLab and Jupyter Notebook 7, offline.

    python tools/check_views_in_jupyter.py --jupyter /path/to/venv/bin/jupyter [--record PATH]

The views' browser tests (``tests/test_views_browser.py``) load a bare page and the built
book. Jupyter renders outputs its own way (a trusted notebook's ``text/html`` with its
scripts, inside the application's page), so this script checks there too, with no kernel:
it copies every chapter cell whose stored output is a view into one notebook, signs it
(``jupyter trust``), starts a Jupyter server on a free local port, and in Debian's Chromium
(Playwright, no downloaded browser) opens it in JupyterLab (``/lab/tree/...``) and in
Notebook 7 (``/notebooks/...``). For each it checks that every view comes to life, that the
keyboard reaches a query token (Tab from the first picker) and the readout then names it,
and that no request leaves the local server. JupyterLab is not a dependency of the course:
pass the ``jupyter`` of an environment that has ``jupyterlab`` and ``notebook``. Colab
cannot be reached from here (no network); it shows ``text/html`` outputs with their scripts
in an iframe, as these pages do.
"""

from __future__ import annotations

import argparse
import json
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]


def view_cells() -> list[nbformat.NotebookNode]:
    """Every chapter code cell whose stored output is a course_lib view."""
    cells = []
    for path in sorted((ROOT / "chapters").glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        for cell in nb.cells:
            outputs = cell.get("outputs", []) if cell.cell_type == "code" else []
            if any(
                'class="clv' in "".join(o.get("data", {}).get("text/html", "")) for o in outputs
            ):
                copy = nbformat.from_dict(json.loads(json.dumps(cell)))
                copy["id"] = f"view-{len(cells)}"
                cells.append(copy)
    return cells


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def check(page, url: str, n_views: int) -> dict:
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(url)
    page.wait_for_function(
        f"document.querySelectorAll('.clv[data-clv-ready=\"1\"]').length >= {n_views}",
        timeout=90_000,
    )
    try:  # JupyterLab asks for a kernel; the views need none
        page.get_by_role("dialog").get_by_role("button", name="No Kernel").click(timeout=8000)
    except Exception:  # Notebook 7 does not ask
        pass
    time.sleep(0.5)
    first = page.locator(".clv select, .clv input").first
    first.focus()
    page.keyboard.press("Tab")
    for _ in range(4):  # past the other pickers, to the first query token
        if page.evaluate("document.activeElement.classList.contains('clv-token')"):
            break
        page.keyboard.press("Tab")
    token = page.evaluate("document.activeElement.getAttribute('aria-label')")
    readout = page.locator(".clv-readout").first.text_content()
    base = url.split("/", 3)[:3]
    local = "/".join(base)
    outside = [u for u in requests if not u.startswith((local, "data:", "blob:", "about:"))]
    return {
        "url": url,
        "views ready": page.locator('.clv[data-clv-ready="1"]').count(),
        "keyboard reached": token,
        "readout": readout,
        "requests outside the local server": outside,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jupyter", required=True, help="a jupyter with jupyterlab and notebook")
    parser.add_argument("--record", type=Path, help="write the results here (JSON)")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    chromium = shutil.which("chromium")
    if chromium is None:
        print("no Chromium (Debian: apt-get install chromium)", file=sys.stderr)
        return 2
    cells = view_cells()
    with tempfile.TemporaryDirectory() as tmp:
        nb = nbformat.v4.new_notebook()
        nb.cells = cells
        nbformat.write(nb, Path(tmp, "views.ipynb"))
        subprocess.run([args.jupyter, "trust", "views.ipynb"], cwd=tmp, check=True)
        port = free_port()
        server = subprocess.Popen(
            [
                args.jupyter,
                "lab",
                "--no-browser",
                f"--port={port}",
                "--ServerApp.ip=127.0.0.1",
                "--ServerApp.token=",
                "--ServerApp.password=",
                "--allow-root",
                f"--ServerApp.root_dir={tmp}",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            time.sleep(6)
            results = []
            with sync_playwright() as p:
                browser = p.chromium.launch(
                    executable_path=chromium, args=["--no-sandbox", "--disable-gpu"]
                )
                for path in ("lab/tree/views.ipynb", "notebooks/views.ipynb"):
                    page = browser.new_page(viewport={"width": 1300, "height": 900})
                    results.append(check(page, f"http://127.0.0.1:{port}/{path}", len(cells)))
                    page.close()
                browser.close()
        finally:
            server.terminate()
            server.wait(timeout=30)
    ok = all(
        r["views ready"] == len(cells)
        and r["keyboard reached"]
        and not r["requests outside the local server"]
        for r in results
    )
    lab = subprocess.run([args.jupyter, "lab", "--version"], capture_output=True, text=True)
    record = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "jupyterlab": lab.stdout.strip(),
        "chromium": subprocess.run(
            [chromium, "--version"], capture_output=True, text=True
        ).stdout.strip(),
        "views": len(cells),
        "results": results,
        "ok": ok,
    }
    text = json.dumps(record, indent=1)
    print(text)
    if args.record:
        args.record.write_text(text + "\n", encoding="utf-8")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
