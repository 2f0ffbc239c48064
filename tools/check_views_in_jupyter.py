"""Check the book's interactive views inside JupyterLab and Jupyter Notebook 7, offline.

    python tools/check_views_in_jupyter.py [--jupyter PATH] [--notebook NB] [--record PATH]

The views' browser tests (``tests/test_views_browser.py``) load a bare page and the built
book. Jupyter renders outputs its own way (a trusted notebook's ``text/html`` with its
scripts, inside the application's page), so this script checks there too, with no kernel:
it copies every chapter cell whose stored output is a view into one notebook, signs it
(``jupyter trust``), starts a Jupyter server on a free local port, and in Debian's Chromium
(Playwright, no downloaded browser) opens it in JupyterLab (``/lab/tree/...``) and in
Notebook 7 (``/notebooks/...``). For each it checks that every view comes to life, that the
keyboard reaches a query token (Tab from the first picker) and the readout then names it,
that keys pressed on a view's controls (arrows, letters that are Jupyter shortcuts, Enter)
change the view and not the notebook (no cell added, removed or entered, the active cell
kept), and that no request leaves the local server. A second copy, not trusted (as a
download or a clone arrives), must show every view's picture; trusting it by the command
palette's *Trust Notebook*, as the picture's caption says, and reopening it brings the views
to life. ``requirements.txt`` installs JupyterLab and Notebook 7 (``make test`` runs this
check on a notebook of every kind of view: ``tests/test_views_jupyter.py``); ``--jupyter``
names another environment's. Colab
cannot be reached from here (no network); it shows ``text/html`` outputs with their scripts
in an iframe, as these pages do.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]


def view_cells(notebook: Path | None = None) -> list[nbformat.NotebookNode]:
    """Every chapter code cell (or ``notebook``'s) whose stored output is a course_lib view."""
    cells = []
    paths = [notebook] if notebook else sorted((ROOT / "chapters").glob("*.ipynb"))
    for path in paths:
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


def dismiss_dialogs(page, seconds: float = 10) -> None:
    """Close what the front end asks on opening (a kernel to choose, news): the views need
    no kernel. Waits up to ``seconds`` for a dialog to appear."""
    end = time.time() + seconds
    while time.time() < end:
        dialog = page.locator(".jp-Dialog")
        if dialog.count() and dialog.first.is_visible():
            no_kernel = dialog.get_by_role("button", name="No Kernel")
            if no_kernel.count():
                no_kernel.first.click()
            else:
                page.keyboard.press("Escape")
            time.sleep(0.5)
            end = min(end, time.time() + 2)  # a second dialog comes soon or not at all
        time.sleep(0.25)


def check(page, url: str, n_views: int) -> dict:
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(url)
    page.wait_for_function(
        f"document.querySelectorAll('.clv[data-clv-ready=\"1\"]').length >= {n_views}",
        timeout=90_000,
    )
    dismiss_dialogs(page)
    first = page.locator(".clv select, .clv input").first
    first.focus()
    page.keyboard.press("Tab")
    for _ in range(4):  # past the other pickers, to the first query token
        if page.evaluate("document.activeElement.classList.contains('clv-token')"):
            break
        page.keyboard.press("Tab")
    token = page.evaluate("document.activeElement.getAttribute('aria-label')")
    readout = page.locator(".clv-readout").first.text_content()
    keys = press_keys(page)
    base = url.split("/", 3)[:3]
    local = "/".join(base)
    outside = [u for u in requests if not u.startswith((local, "data:", "blob:", "about:"))]
    return {
        "url": url,
        "views ready": page.locator('.clv[data-clv-ready="1"]').count(),
        "keyboard reached": token,
        "readout": readout,
        **keys,
        "requests outside the local server": outside,
    }


NOTEBOOK_STATE = """() => {
  const cells = [...document.querySelectorAll('.jp-Notebook .jp-Cell')];
  return {cells: cells.length,
          active: cells.findIndex(c => c.classList.contains('jp-mod-active')),
          editing: !!document.querySelector('.jp-Notebook.jp-mod-editMode')};
}"""

#: What is pressed on each kind of control: arrows and Enter move in the view; "a", "b",
#: "x", "m" and "d" are Jupyter's command-mode shortcuts (insert, cut, to markdown, ...).
KEYS = ["ArrowDown", "ArrowUp", "ArrowRight", "a", "b", "x", "m", "d", "Enter"]


def press_keys(page) -> dict:
    """Press KEYS on a picker, a query token, a key token and a small multiple of each view,
    one at a time; after each the notebook must be as it was once the control had focus
    (focusing a control inside a cell makes that cell the active one), and the view must
    have taken ArrowDown (a picker's value or the focused token changes)."""
    pressed, moved, changed = 0, 0, []
    for v, root in enumerate(page.locator('.clv[data-clv-ready="1"]').all()):
        for selector in ("select", ".clv-grid .clv-token[data-q]", ".clv-token", ".clv-thumb"):
            target = root.locator(f'{selector}[tabindex="0"], {selector}').first
            if target.count() == 0:
                continue
            target.focus()
            before = page.evaluate(NOTEBOOK_STATE)
            start = page.evaluate(FOCUSED)
            for key in KEYS:
                page.keyboard.press(key)
                pressed += 1
                state = page.evaluate(NOTEBOOK_STATE)
                if state != before:
                    changed.append(f"view {v + 1}, {selector}, {key}: {before} -> {state}")
                    before = state
                if key == "ArrowDown":
                    moved += page.evaluate(FOCUSED) != start
                if not root.evaluate("r => r.contains(document.activeElement)"):
                    break
    return {
        "keys pressed": pressed,
        "view moved on ArrowDown": moved,
        "notebook changed by": changed,
        "notebook unchanged": not changed,
    }


FOCUSED = "[document.activeElement.outerHTML.length, document.activeElement.value]"


def check_untrusted(page, url: str, n_views: int) -> dict:
    """The notebook as downloaded: pictures, no script; then Trust Notebook and reopen."""
    page.goto(url)
    page.wait_for_selector(".clv-fallback img.clv-picture", state="attached", timeout=90_000)
    dismiss_dialogs(page)
    pictures = page.locator(".clv-fallback img.clv-picture")
    shown = sum(p.is_visible() for p in pictures.all())
    captions = page.locator(".clv-fallback figcaption").count()
    ready = page.locator('.clv[data-clv-ready="1"]').count()
    page.keyboard.press("Escape")
    page.keyboard.press("Control+Shift+C")  # the command palette
    page.keyboard.type("Trust Notebook")
    page.keyboard.press("Enter")
    try:
        page.get_by_role("dialog").get_by_role("button", name="Trust").click(timeout=8000)
        trusted = True
    except Exception:
        trusted = False
    time.sleep(2)
    ready_after_trust = page.locator('.clv[data-clv-ready="1"]').count()
    page.reload()
    dismiss_dialogs(page, 5)
    try:
        page.wait_for_function(
            f"document.querySelectorAll('.clv[data-clv-ready=\"1\"]').length >= {n_views}",
            timeout=60_000,
        )
    except Exception:
        pass
    return {
        "url": url,
        "pictures shown (untrusted)": shown,
        "captions": captions,
        "views running (untrusted)": ready,
        "trusted by the palette": trusted,
        "views running after trust": ready_after_trust,
        "views running after reopening": page.locator('.clv[data-clv-ready="1"]').count(),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--jupyter",
        default=str(Path(sys.executable).with_name("jupyter")),
        help="a jupyter with jupyterlab and notebook (default: this Python's)",
    )
    parser.add_argument("--record", type=Path, help="write the results here (JSON)")
    parser.add_argument(
        "--notebook", type=Path, help="check this notebook's view cells instead of the chapters'"
    )
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    chromium = shutil.which("chromium")
    if chromium is None:
        print("no Chromium (Debian: apt-get install chromium)", file=sys.stderr)
        return 2
    cells = view_cells(args.notebook)
    with tempfile.TemporaryDirectory() as tmp:
        nb = nbformat.v4.new_notebook()
        nb.cells = cells
        nbformat.write(nb, Path(tmp, "views.ipynb"))
        for front in ("lab", "notebook"):  # one each: trusting one trusts its file
            copy = nbformat.from_dict(json.loads(json.dumps(nb)))
            copy.metadata["course"] = {"copy": f"as downloaded, for {front}"}  # not trusted
            nbformat.write(copy, Path(tmp, f"untrusted-{front}.ipynb"))
        # Jupyter's own folders inside the run's: the signatures of trusted notebooks, the
        # settings and the workspaces of this check touch nothing of the user's.
        env = {
            **os.environ,
            **{f"JUPYTER_{d}_DIR": f"{tmp}/jupyter-{d.lower()}" for d in ("DATA", "CONFIG")},
            "JUPYTER_RUNTIME_DIR": f"{tmp}/jupyter-runtime",
        }
        subprocess.run(
            [args.jupyter, "trust", "views.ipynb"],
            cwd=tmp,
            check=True,
            env=env,
            stdout=subprocess.DEVNULL,
        )
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
                f"--LabApp.workspaces_dir={tmp}/workspaces",  # no tabs of earlier runs
                f"--LabApp.user_settings_dir={tmp}/settings",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=env,
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
                for path in (
                    "lab/workspaces/untrusted/tree/untrusted-lab.ipynb",
                    "notebooks/untrusted-notebook.ipynb",
                ):
                    page = browser.new_page(viewport={"width": 1300, "height": 900})
                    url = f"http://127.0.0.1:{port}/{path}"
                    results.append(check_untrusted(page, url, len(cells)))
                    page.close()
                browser.close()
        finally:
            server.terminate()
            server.wait(timeout=30)
    ok = all(
        r["views ready"] == len(cells)
        and r["keyboard reached"]
        and r["notebook unchanged"]
        and not r["requests outside the local server"]
        for r in results[:2]
    ) and all(
        r["pictures shown (untrusted)"] == len(cells)
        and r["views running (untrusted)"] == 0
        and r["views running after reopening"] == len(cells)
        for r in results[2:]
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
