#!/usr/bin/env bash
# `make test`: every check of the project, each with its own runner summary, then a table.
# Exits non-zero when any step fails; later steps still run so one report shows everything.
#
# The notebooks are verified in one of two modes per notebook (tools/verification.py):
# "reference" on the platform that recorded their outputs (every output compared), and
# "portable" anywhere else (platform-independent cells compared exactly, trained results
# checked by the claim cells). The nbval step prints which, why, and the cell counts.
set -u
cd "$(dirname "$0")/.."
BIN=.venv/bin
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}"
label="${COURSE_TEST_LABEL:-this machine}"

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

echo "=== platform ($label)"
"$BIN/python" tools/verification.py | tee .verification-plan.txt
step "lint (ruff)" "$BIN/ruff" check .
step "format (ruff format --check)" "$BIN/ruff" format --check .
step "workflows (actionlint)" "$BIN/actionlint" -no-color .github/workflows/*.yml
step "library, packaging and notebook-structure tests (pytest)" "$BIN/python" -m pytest tests -q \
    -n 2
# two notebooks at a time (one kernel each, one thread each); a notebook stays on one worker;
# the verification plugin starts the longest notebooks first (tools/notebook_seconds.json),
# switches nbval to lax mode for notebooks recorded elsewhere, and times each notebook
rm -f .notebook-seconds.json
step "notebook outputs and claims (nbval)" env PYTHONPATH=tools "$BIN/python" -m pytest \
    --nbval -p verification chapters/*.ipynb -q -p no:cacheprovider \
    --nbval-current-env --nbval-cell-timeout=3600 --nbval-sanitize-with tools/nbval_sanitize.cfg \
    -n 2 --dist loadfile
if [ -z "${COURSE_SKIP_BOOK:-}" ]; then
    step "MathJax for offline pages" "$BIN/python" tools/vendor_mathjax.py
    step "book build (-W -n)" "$BIN/jupyter-book" build . --all -W -n --keep-going
    step "interactive views on the built pages (headless Chromium)" env \
        COURSE_BUILT_BOOK=_build/html "$BIN/python" -m pytest tests/test_views_browser.py -q \
        -p no:cacheprovider -k built_pages
fi

echo
echo "=== summary ($label): $(( SECONDS / 60 )) min $(( SECONDS % 60 )) s"
"$BIN/python" tools/verification.py --summary
rm -f .verification-plan.txt .notebook-seconds.json
failed=0
for i in "${!names[@]}"; do
    if [ "${codes[$i]}" -eq 0 ]; then status="passed"; else status="FAILED"; failed=1; fi
    printf '%-58s %s\n' "${names[$i]}" "$status"
done
exit "$failed"
