#!/usr/bin/env bash
# `make test`: every check of the project, each with its own runner summary, then a table.
# Exits non-zero when any step fails; later steps still run so one report shows everything.
set -u
cd "$(dirname "$0")/.."
BIN=.venv/bin
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}"

names=()
codes=()
step() {
    local name=$1
    shift
    echo
    echo "=== $name"
    echo "+ $*"
    "$@"
    local rc=$?
    names+=("$name")
    codes+=("$rc")
}

step "lint (ruff)" "$BIN/ruff" check .
step "library and notebook-structure tests (pytest)" "$BIN/python" -m pytest tests -q
# two notebooks at a time (one kernel each, one thread each); a notebook stays on one worker
step "notebook outputs (nbval)" "$BIN/python" -m pytest --nbval chapters/*.ipynb -q \
    --nbval-current-env --nbval-cell-timeout=3600 --nbval-sanitize-with tools/nbval_sanitize.cfg \
    -n 2 --dist loadfile
step "MathJax for offline pages" "$BIN/python" tools/vendor_mathjax.py
step "book build (-W -n)" "$BIN/jupyter-book" build . --all -W -n --keep-going

echo
echo "=== summary"
failed=0
for i in "${!names[@]}"; do
    if [ "${codes[$i]}" -eq 0 ]; then status="passed"; else status="FAILED"; failed=1; fi
    printf '%-50s %s\n' "${names[$i]}" "$status"
done
exit "$failed"
