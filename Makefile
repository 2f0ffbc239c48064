# "Attention, step by step" -- the one entry point.
#
#   make book      build the site from the committed notebook outputs (_build/html)
#   make test      ruff, library tests, nbval over every chapter, notebook checks, book build
#   make test-laptop   the same tests on a typical laptop's CPU kernels (AVX2), simulated
#   make doctor    describe this machine (versions, device, data, test mode) for a bug report
#   make test-latest   library tests and every notebook on the newest releases pyproject.toml
#                  allows, in .venv-latest (downloads a few GB once; not part of `make test`)
#   make test-oldest   the same on the oldest releases it allows (every range's floor)
#   make execute   (authors) re-execute every chapter in place, then regenerate exercises
#   make student   (authors) regenerate the student exercise notebooks
#   make grade CHAPTER=05 SUBMISSIONS=folder-or-zip OUT=folder
#                  (instructors) grade a class's exercise notebooks: OUT/grades.csv,
#                  OUT/feedback/<student>.md, OUT/answers.md (README: "Grading a class")
#   make system-packages  (Debian, Ubuntu; root or sudo) install Chromium and bubblewrap, which
#                  the browser tests and the grader's sandbox need (as .ci/run does)
#   make linkcheck (maintainers; needs the network) check every external link of the book
#   make release VERSION=x.y.z   (maintainers) build the site, the wheel, the data mirror and
#                  SHA256SUMS into _build/release/vx.y.z and print the tag and upload commands;
#                  DRY_RUN=0 runs them (tools/release.py)
#
# Each target creates .venv and installs requirements.txt on first use.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp

# A relative COURSE_DATA_DIR means relative to where make runs, not to each notebook's folder.
ifneq ($(strip $(COURSE_DATA_DIR)),)
export COURSE_DATA_DIR := $(abspath $(COURSE_DATA_DIR))
endif

# One thread: identical results, and 10-100x faster than two threads on a busy 2-core machine.
export OMP_NUM_THREADS ?= 1

.PHONY: setup book test test-laptop test-latest test-oldest doctor execute student grade clean \
	system-packages linkcheck release

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

# The kernels a laptop uses (AVX2 instead of AVX-512, in torch and in MKL): the notebooks run
# in the portable mode, where the book's claims -- not one machine's low bits -- are checked.
test-laptop: setup
	@ATEN_CPU_CAPABILITY=avx2 MKL_ENABLE_INSTRUCTIONS=AVX2 COURSE_SKIP_BOOK=1 \
		COURSE_TEST_LABEL="simulated laptop: AVX2 kernels" tools/run_tests.sh

# Do the ranges course_lib promises in pyproject.toml hold? (tools/compat.py; writes a record
# to benchmarks/results/). A pip constraint that holds back a release is reported, not hidden.
test-latest:
	$(PYTHON) tools/compat.py latest

test-oldest:
	$(PYTHON) tools/compat.py oldest

# No `setup` prerequisite: the doctor must run even when the install is what is broken.
doctor:
	@if [ -x $(BIN)/python ]; then $(BIN)/python -m course_lib.doctor; \
	else $(PYTHON) -m course_lib.doctor; fi

execute: setup
	$(BIN)/python tools/execute.py
	$(BIN)/python tools/make_student.py

student: setup
	$(BIN)/python tools/make_student.py

# Paths as given on the command line (relative to where make runs); JOBS=2 submissions at a
# time, TIMEOUT=120 seconds per cell and per check, ALL_CELLS=1 to run every code cell,
# VARIANT=1 which unseen cases the checks run on, UNSANDBOXED=1 where bubblewrap cannot run
# (students' code then runs as your user; the gradebook says so).
grade: setup
	@if [ -z "$(CHAPTER)" ] || [ -z "$(SUBMISSIONS)" ] || [ -z "$(OUT)" ]; then \
		echo "usage: make grade CHAPTER=05 SUBMISSIONS=folder-or-zip OUT=folder" >&2; exit 2; fi
	$(BIN)/python -m course_lib.grading --chapter "$(CHAPTER)" --submissions "$(SUBMISSIONS)" \
		--out "$(OUT)" --jobs "$(or $(JOBS),2)" --timeout "$(or $(TIMEOUT),120)" \
		--variant "$(or $(VARIANT),1)" $(if $(ALL_CELLS),--all-cells) \
		$(if $(UNSANDBOXED),--unsandboxed)

# The two system packages `make test` uses where they exist (and CI installs): Debian's
# Chromium for the browser tests of the interactive views, bubblewrap for the grader's sandbox.
system-packages:
	@if [ "$$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi; \
	$$sudo apt-get update -qq && $$sudo apt-get install -y -qq chromium bubblewrap

# External links (papers, tools, the repository) as Sphinx's linkcheck sees them: needs the
# network, so it is not part of `make test`; the publish workflow runs it.
linkcheck: setup
	$(BIN)/jupyter-book build . --builder linkcheck

# A release (tools/release.py): VERSION must be pyproject.toml's and CITATION.cff's version.
# The checks run first (a dry run reports a dirty tree, another branch or an existing tag and
# goes on; DRY_RUN=0 stops), then the site is built, then the assets and their checksums.
DRY_RUN ?= 1
RELEASE_FLAGS = $(if $(filter 0,$(DRY_RUN)),--publish)
ifneq ($(filter release,$(MAKECMDGOALS)),)
ifeq ($(strip $(VERSION)),)
$(error usage: make release VERSION=x.y.z [DRY_RUN=0])
endif
endif
release: setup
	$(BIN)/python tools/release.py "$(VERSION)" --check-only $(RELEASE_FLAGS)
	$(MAKE) book
	$(BIN)/python tools/release.py "$(VERSION)" $(RELEASE_FLAGS)

clean:
	rm -rf _build _mathjax .pytest_cache .ruff_cache .hypothesis .notebook-seconds.json
