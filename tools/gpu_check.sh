#!/usr/bin/env bash
# The GPU check: library tests and every chapter executed on a CUDA device (the path a student
# on Colab takes), each notebook in the portable mode (tools/verification.py: exact cells that
# hold on any device compared exactly, trained results checked by the claim cells).
#
# Meant for a borrowed GPU machine that has torch but no Jupyter and no network:
#   - wheels for nbval and the Jupyter kernel in .whl/ (pip download ... for the machine's Python)
#   - the Tatoeba file in .devdata/ (copied from COURSE_DATA_DIR)
#   - logs go to $OUT (default /tmp/gpu-check)
# Library tests and notebooks run side by side, so the check fits a short lease.
# Usage: tools/gpu_check.sh [NOTEBOOK ...]      (default: every chapter)
set -u
cd "$(dirname "$0")/.."
OUT="${OUT:-/tmp/gpu-check}"
PY="${PY:-python3}"
mkdir -p "$OUT"
if [ -d .whl ] && [ -z "${SKIP_WHEELS:-}" ]; then
    "$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
        --target /tmp/site .whl/*.whl || exit 1
    export PYTHONPATH="/tmp/site:${PYTHONPATH:-}"
fi
# course_lib as a package (tests read its declared ranges from the installed metadata)
"$PY" -m pip install -q --no-index --no-deps --no-build-isolation --no-compile --upgrade --target /tmp/site . \
    >/dev/null || exit 1
export PYTHONPATH="/tmp/site:${PYTHONPATH:-}"
export COURSE_DATA_DIR="${COURSE_DATA_DIR:-$PWD/.devdata}" OMP_NUM_THREADS=1 PYTHONUNBUFFERED=1
export MPLBACKEND=Agg
notebooks=("$@")
[ ${#notebooks[@]} -eq 0 ] && notebooks=(chapters/*.ipynb)

{
    nvidia-smi -L 2>&1 || true
    "$PY" -c "import torch, sys; print('torch', torch.__version__, 'cuda', torch.cuda.is_available(), 'python', sys.version.split()[0])"
    "$PY" tools/verification.py
} 2>&1 | tee "$OUT/platform.log"

start=$SECONDS
# test_colab_setup builds a bare venv from this Python's site-packages: it needs make's .venv
# (it runs in `make test`), not a PYTHONPATH that already holds the wheels and the library;
# test_book_extension needs jupyter-book, which the check does not carry
timeout "${BUDGET_S:-480}" "$PY" -m pytest tests -q -n "${TEST_WORKERS:-6}" -p no:cacheprovider \
    --ignore tests/test_colab_setup.py --ignore tests/test_book_extension.py >"$OUT/pytest.log" 2>&1 &
tests_pid=$!
timeout "${BUDGET_S:-480}" env PYTHONPATH="tools:$PYTHONPATH" "$PY" -m pytest --nbval -p verification "${notebooks[@]}" \
    -v -p no:cacheprovider --nbval-current-env --nbval-cell-timeout=900 \
    --nbval-sanitize-with tools/nbval_sanitize.cfg -n "${NOTEBOOK_WORKERS:-9}" --dist loadfile \
    >"$OUT/nbval.log" 2>&1
nbval_rc=$?
wait "$tests_pid"
tests_rc=$?
echo "library tests: rc=$tests_rc; notebooks: rc=$nbval_rc; $((SECONDS - start)) s" \
    | tee -a "$OUT/platform.log"
tail -n 30 "$OUT/pytest.log"
grep -E "FAILED|ERROR|passed|failed" "$OUT/nbval.log" | tail -n 40
[ -f .notebook-seconds.json ] && cp .notebook-seconds.json "$OUT/notebook-seconds.json"
exit $((tests_rc || nbval_rc))
