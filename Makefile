# "Attention, step by step" -- the one entry point.
#
#   make book      build the site from the committed notebook outputs (_build/html)
#   make test      ruff, library tests, nbval over every chapter, notebook checks, book build
#   make execute   (authors) re-execute every chapter in place, then regenerate exercises
#   make student   (authors) regenerate the student exercise notebooks
#
# Each target creates .venv and installs requirements.txt on first use.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp

# One thread: identical results, and 10-100x faster than two threads on a busy 2-core machine.
export OMP_NUM_THREADS ?= 1

.PHONY: setup book test execute student clean

setup: $(STAMP)

$(STAMP): requirements.txt pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.txt
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps -e .
	@touch $(STAMP)

book: setup
	@$(BIN)/python tools/vendor_mathjax.py
	$(BIN)/jupyter-book build . --all -W -n --keep-going
	@echo "The book's landing page: $(CURDIR)/_build/html/index.html"

test: setup
	@tools/run_tests.sh

execute: setup
	$(BIN)/python tools/execute.py
	$(BIN)/python tools/make_student.py

student: setup
	$(BIN)/python tools/make_student.py

clean:
	rm -rf _build _mathjax .pytest_cache .ruff_cache .hypothesis
