# The course's entry points. Each target creates the environment it needs.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# nbgrader calls alembic through PATH, so the venv's bin/ comes first for every recipe.
export PATH := $(abspath $(BIN)):$(PATH)

.PHONY: help venv test test-fast book translations vendor lab lab-ko bench compare-peers lint typecheck lock clean FORCE

help:  ## List the targets
	@grep -E '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/' | sort

# Two packages from this repository: rooflinekit (the library readers and students install) and
# roofline-grading in grading/ (the answer key and the autograde driver, for instructors), over
# the whole lock (the student environment of requirements.txt and the instructor's tools).
# JupyterLab in .venv opens a chapter (MyST Markdown) as a notebook on a double click: rooflinekit
# installs the setting in jupyter-config/ where JupyterLab reads defaults (pyproject.toml).
LAB_SETTINGS := jupyter-config/labconfig/default_setting_overrides.json

$(STAMP): requirements.lock pyproject.toml grading/pyproject.toml $(LAB_SETTINGS)
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -qq --upgrade pip
	$(BIN)/python -m pip install -qq -r requirements.lock
	$(BIN)/python -m pip install -qq --no-deps -e . -e grading
	touch $@

venv: $(STAMP)  ## Create .venv with the pinned dependencies

test: $(STAMP)  ## Run every test
	$(BIN)/python -m pytest

test-fast: $(STAMP)  ## Run the tests that take seconds, not minutes
	$(BIN)/python -m pytest -m "not slow and not browser"

# The site ships its browser assets (MathJax, RequireJS, the ipywidgets embedder) so it works
# offline: npm installs the versions pinned in package-lock.json, tools/vendor_assets.py copies
# them into book/_static/vendor, and node_modules goes again (Sphinx would walk its 12,000
# files on every build).
VENDOR_STAMP := book/_static/vendor/.vendored
# The one command that builds the site (jupyter-book build . --builder html -W -n --keep-going,
# see tools/build_book.py); tests/conftest.py runs `make book` too.
BOOK_BUILD := $(BIN)/python tools/build_book.py

$(VENDOR_STAMP): package.json package-lock.json tools/vendor_assets.py
	npm ci --no-audit --no-fund --ignore-scripts --loglevel=error
	$(PYTHON) tools/vendor_assets.py
	rm -rf node_modules

vendor: $(VENDOR_STAMP)  ## Install the site's browser assets from npm

# Everything the site is built from. With none of it newer than the last successful build,
# `make book` has nothing to do (Sphinx and the execution cache handle partial changes).
# (book/ and exercises/ themselves are left out: their names are also targets.)
BOOK_INPUTS := _config.yml _toc.yml requirements.lock pyproject.toml tools/build_book.py \
	tools/book_cache.py $(shell find book/* exercises/* rooflinekit locale -name __pycache__ -prune \
	-o -name .ipynb_checkpoints -prune -o -name '*.mo' -prune -o -print 2>/dev/null)
BOOK_STAMP := _build/html/.built
# The list itself, so that a removed file counts as a change. When the list changes, the site
# is written afresh (chapters come from the execution cache): Sphinx never deletes the page of
# a document that is gone, and no such page may linger in _build/html.
BOOK_MANIFEST := _build/.book-inputs

$(BOOK_MANIFEST): FORCE
	@mkdir -p _build
	@echo '$(sort $(BOOK_INPUTS))' | cmp -s - $@ || { rm -rf _build/html _build/.doctrees; \
		echo '$(sort $(BOOK_INPUTS))' > $@; }

$(BOOK_STAMP): $(STAMP) $(VENDOR_STAMP) $(BOOK_MANIFEST) $(BOOK_INPUTS)
	$(BOOK_BUILD)
	touch $@

book: $(BOOK_STAMP)  ## Build the site into _build/html (Korean edition in _build/html/ko); fails on any warning or cell error

# The Korean edition's catalogs (locale/ko): new and changed English sentences become empty and
# fuzzy entries to translate; then `python tools/translations.py done PAGE` (see its docstring).
# The explorers' labels too (locale/ko/LC_MESSAGES/explorer-labels.po, from the code; the
# translations ship in rooflinekit/explorer/assets/labels.json: tools/explorer_labels.py).
translations: $(STAMP)  ## Update locale/ko/LC_MESSAGES/*.po from the English pages and the explorers' code; list what is left to translate
	$(BIN)/python tools/translations.py update

FORCE:

lint: $(STAMP)  ## ruff, mypy and the import contracts (the package's layers, pyproject.toml)
	$(BIN)/ruff check rooflinekit grading tests benchmarks
	$(BIN)/mypy
	$(BIN)/lint-imports

bench: $(STAMP)  ## Run every benchmark
	for script in benchmarks/bench_*.py; do $(BIN)/python $$script || exit 1; done

# A published tool (GenZ, pinned in benchmarks/requirements-peers.txt) in an environment of its
# own, so that its many dependencies never meet the course's; not part of `make test`.
PEERS_VENV := .venv-peers
PEERS_STAMP := $(PEERS_VENV)/.installed

$(PEERS_STAMP): benchmarks/requirements-peers.txt pyproject.toml
	test -x $(PEERS_VENV)/bin/python || $(PYTHON) -m venv $(PEERS_VENV)
	$(PEERS_VENV)/bin/python -m pip install -qq --upgrade pip
	$(PEERS_VENV)/bin/python -m pip install -qq -r benchmarks/requirements-peers.txt
	$(PEERS_VENV)/bin/python -m pip install -qq --no-deps -e .
	touch $@

compare-peers: $(PEERS_STAMP)  ## Answer the same transformer questions with rooflinekit and GenZ, side by side
	$(PEERS_VENV)/bin/python benchmarks/compare_peers.py

# JupyterLab refuses to run as root unless told --allow-root (containers, CI machines): lab, lab-ko
# and formgrader tell it so when make runs as root.
ALLOW_ROOT := $(if $(filter 0,$(shell id -u)),--allow-root)
# Both write the chapters in Korean first (locale/ko/chapters/, from the catalogs; git ignores them).
LAB := $(BIN)/jupyter lab $(ALLOW_ROOT)
KO_CHAPTERS := $(BIN)/python tools/chapter_translations.py --language ko
lab: $(STAMP)  ## Open JupyterLab in the course's environment (chapters open as notebooks)
	$(KO_CHAPTERS)
	$(LAB)

# The same JupyterLab with its interface in Korean (its language pack, jupyterlab-language-pack-ko-KR):
# jupyter-config/ko/labconfig sets the default of the setting Settings > Language writes, for this
# run only (a language chosen in that menu, a user setting, still wins).
lab-ko: $(STAMP)  ## Open JupyterLab with its interface in Korean (한국어)
	$(KO_CHAPTERS)
	JUPYTER_CONFIG_PATH='$(abspath jupyter-config/ko)'$${JUPYTER_CONFIG_PATH:+:$$JUPYTER_CONFIG_PATH} $(LAB)

lock:  ## Re-pin requirements.lock from requirements.in in a scratch venv
	rm -rf /tmp/rooflinekit-lock && $(PYTHON) -m venv /tmp/rooflinekit-lock
	/tmp/rooflinekit-lock/bin/pip install -qq -r requirements.in
	/tmp/rooflinekit-lock/bin/pip freeze --exclude-editable > requirements.lock

clean:  ## Remove build outputs (keeps .venv)
	rm -rf _build .pytest_cache .mypy_cache .import_linter_cache .hypothesis book/_static/vendor node_modules

# --- Graded exercises (nbgrader). See book/instructor-guide.md for a whole grading round.
# COURSE is the nbgrader course directory: this checkout by default. To keep student work out of
# the repository, copy nbgrader_config.py, solutions/ and exercises/ elsewhere and pass COURSE=that/dir.
ASSIGNMENT ?= roofline
COURSE ?= .
GRADES ?= grades.csv
NBGRADER = cd $(COURSE) && $(abspath $(BIN))/nbgrader
.PHONY: fingerprints exercises roster collect autograde feedback grades grading-round formgrader

# Each exercise's locked "known mistakes" cell: fingerprints of the answer key's known mistakes, so
# the checks under each answer name a mistake before submission (roofline_grading/fingerprints.py).
fingerprints: $(STAMP)  ## Rewrite the solutions' known-mistakes cells from the answer key
	$(abspath $(BIN))/python -m roofline_grading.fingerprints '$(COURSE)/solutions/$(ASSIGNMENT)'

exercises: fingerprints  ## Regenerate the student versions exercises/ (and exercises/ko/, the Korean release) from solutions/
	$(NBGRADER) generate_assignment $(ASSIGNMENT) --force
	$(BIN)/python tools/exercise_translations.py build --language ko --course '$(COURSE)'

# The class list, so that a student who submits nothing still gets a row (with 0) in grades.csv.
# ROSTER is a CSV file with a header line and an `id` column (first_name, last_name, email optional).
roster: $(STAMP)  ## Import the class list into the gradebook: make roster ROSTER=students.csv
	@test -n "$(ROSTER)" || { echo "roster: name the class list, e.g. make roster ROSTER=students.csv (a CSV file with an id column; first_name, last_name, email optional)" >&2; exit 2; }
	@test -f "$(ROSTER)" && head -1 "$(ROSTER)" | tr -d '\r' | tr ',' '\n' | grep -qx id || { echo "roster: $(ROSTER) is not a CSV file whose first line names an id column (id,first_name,last_name,email)" >&2; exit 2; }
	$(NBGRADER) db student import '$(abspath $(ROSTER))'

# Reads the zips itself (python -m roofline_grading.autograde.collect): an entry it cannot take is
# skipped and named, every other student collected; late markers and submission times become
# timestamp.txt. One line per student, per skipped entry, then a summary; VERBOSE=1 says what
# happens to every entry.
collect: $(STAMP)  ## Collect submissions from LMS zips into submitted/: make collect ZIP="a.zip b.zip" (VERBOSE=1: every entry)
	@test -n "$(ZIP)" || { echo "collect: name the downloaded submissions, e.g. make collect ZIP=submissions.zip" >&2; exit 2; }
	$(abspath $(BIN))/python -m roofline_grading.autograde.collect $(ASSIGNMENT) --course '$(COURSE)' $(if $(filter-out 0,$(VERBOSE)),--verbose) -- $(ZIP)

# JOBS: students graded at once (default: one per core). AUTOGRADE_OPTIONS: more options of
# python -m roofline_grading.autograde (--timeout S, --notebook-budget S, --memory-gb G,
# --processes N, --student ID, --sandbox off).
autograde: $(STAMP)  ## Autograde every collected submission, sandboxed and in parallel (JOBS=n); report in autograded/
	$(abspath $(BIN))/python -m roofline_grading.autograde $(ASSIGNMENT) --course '$(COURSE)' $(if $(JOBS),--jobs $(JOBS)) $(AUTOGRADE_OPTIONS)

feedback: $(STAMP)  ## Write each student's HTML feedback to feedback/<student>/roofline/
	$(NBGRADER) generate_feedback $(ASSIGNMENT) --force

grades: $(STAMP)  ## Export the gradebook to grades.csv (GRADES=path to change), one row per student
	cd $(COURSE) && mkdir -p "$$(dirname '$(GRADES)')" && $(abspath $(BIN))/nbgrader export --to '$(GRADES)'

# nbgrader's formgrader, in JupyterLab in the course directory (menu Nbgrader, Formgrader): grade
# by hand the parts `make autograde` left for you (failed notebooks), look at flagged ones.
formgrader: $(STAMP)  ## Open JupyterLab in the course directory for nbgrader's formgrader
	cd $(COURSE) && $(abspath $(BIN))/jupyter lab $(ALLOW_ROOT)

grading-round: $(STAMP)  ## collect, autograde, feedback and grades in one go (needs ZIP=...)
	$(MAKE) -o $(STAMP) collect
	$(MAKE) -o $(STAMP) autograde
	$(MAKE) -o $(STAMP) feedback
	$(MAKE) -o $(STAMP) grades
