# The course's entry points. Each target creates the environment it needs.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# nbgrader calls alembic through PATH, so the venv's bin/ comes first for every recipe.
export PATH := $(abspath $(BIN)):$(PATH)

.PHONY: help venv test test-fast book lab bench lint typecheck lock clean

help:  ## List the targets
	@grep -E '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/' | sort

$(STAMP): requirements.lock pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -qq --upgrade pip
	$(BIN)/python -m pip install -qq -r requirements.lock
	$(BIN)/python -m pip install -qq --no-deps -e .
	touch $@

venv: $(STAMP)  ## Create .venv with the pinned dependencies

test: $(STAMP)  ## Run every test
	$(BIN)/python -m pytest

test-fast: $(STAMP)  ## Run the tests that take seconds, not minutes
	$(BIN)/python -m pytest -m "not slow and not browser"

lint: $(STAMP)  ## ruff and mypy
	$(BIN)/ruff check rooflinekit tests benchmarks
	$(BIN)/mypy

bench: $(STAMP)  ## Run every benchmark
	for script in benchmarks/bench_*.py; do $(BIN)/python $$script || exit 1; done

book: $(STAMP)  ## Build the site into _build/html
	@echo "The book does not exist yet: its chapters land with the book issue." && exit 1

lab: $(STAMP)  ## Open JupyterLab in the course's environment
	$(BIN)/jupyter lab

lock:  ## Re-pin requirements.lock from requirements.in in a scratch venv
	rm -rf /tmp/rooflinekit-lock && $(PYTHON) -m venv /tmp/rooflinekit-lock
	/tmp/rooflinekit-lock/bin/pip install -qq -r requirements.in
	/tmp/rooflinekit-lock/bin/pip freeze --exclude-editable > requirements.lock

clean:  ## Remove build outputs (keeps .venv)
	rm -rf _build .pytest_cache .mypy_cache .hypothesis

# --- Graded exercises (nbgrader). See book/instructor-guide.md for a whole grading round.
# COURSE is the nbgrader course directory: this checkout by default. To keep student work out of
# the repository, copy nbgrader_config.py, solutions/ and exercises/ elsewhere and pass COURSE=that/dir.
ASSIGNMENT ?= roofline
COURSE ?= .
GRADES ?= grades.csv
NBGRADER = cd $(COURSE) && $(abspath $(BIN))/nbgrader
.PHONY: exercises collect autograde feedback grades grading-round

exercises: $(STAMP)  ## Regenerate the student version exercises/ from solutions/ (nbgrader generate_assignment)
	$(NBGRADER) generate_assignment $(ASSIGNMENT) --force

collect: $(STAMP)  ## Collect submissions from LMS zips: make collect ZIP="a.zip b.zip"
	@test -n "$(ZIP)" || { echo "collect: name the downloaded submissions, e.g. make collect ZIP=submissions.zip" >&2; exit 2; }
	rm -rf $(COURSE)/downloaded/$(ASSIGNMENT)/archive && mkdir -p $(COURSE)/downloaded/$(ASSIGNMENT)/archive
	cp $(ZIP) $(COURSE)/downloaded/$(ASSIGNMENT)/archive/
	$(NBGRADER) zip_collect $(ASSIGNMENT) --force --strict

autograde: $(STAMP)  ## Autograde every collected submission (students are added to the gradebook)
	$(NBGRADER) autograde $(ASSIGNMENT) --create --force

feedback: $(STAMP)  ## Write each student's HTML feedback to feedback/<student>/roofline/
	$(NBGRADER) generate_feedback $(ASSIGNMENT) --force

grades: $(STAMP)  ## Export the gradebook to grades.csv (GRADES=path to change), one row per student
	cd $(COURSE) && mkdir -p "$$(dirname '$(GRADES)')" && $(abspath $(BIN))/nbgrader export --to '$(GRADES)'

grading-round: $(STAMP)  ## collect, autograde, feedback and grades in one go (needs ZIP=...)
	$(MAKE) -o $(STAMP) collect
	$(MAKE) -o $(STAMP) autograde
	$(MAKE) -o $(STAMP) feedback
	$(MAKE) -o $(STAMP) grades
