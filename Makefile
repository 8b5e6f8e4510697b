# The course's entry points, in both editions of the repository: the student environment, the
# site and JupyterLab. Each target creates the environment it needs. The instructor's targets
# (tests, lint, the lock, translations, the graded exercises, a grading round and the public
# edition) are in instructor.mk, which this Makefile includes when it is there: the public edition
# (`make public-edition`) is written without it.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# nbgrader calls alembic through PATH, so the venv's bin/ comes first for every recipe.
export PATH := $(abspath $(BIN)):$(PATH)

.PHONY: help venv book vendor lab clean FORCE

help:  ## List the targets
	@grep -hE '^[a-zA-Z0-9_%-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/' | sort

# .venv holds the student environment, made by the README's one recipe: a fresh virtual
# environment and `pip install -r requirements.txt` (rooflinekit with its course extra, every
# version pinned by requirements.lock; rooflinekit installs the JupyterLab setting in
# jupyter-config/ that opens a chapter as a notebook on a double click). In the instructor's
# edition, instructor.mk makes it the instructor's environment instead.
# The JupyterLab settings rooflinekit installs (pyproject.toml's shared-data): chapters open as
# notebooks, and nbgrader offers a student its Validate button only.
LAB_CONFIG := jupyter-config/labconfig/default_setting_overrides.json jupyter-config/labconfig/page_config.json \
	jupyter-config/jupyter_server_config.d/rooflinekit.json \
	jupyter-config/labextensions/roofline-course/package.json \
	jupyter-config/labextensions/roofline-course/static/remoteEntry.js
ENVIRONMENT := requirements.txt requirements.lock pyproject.toml $(LAB_CONFIG)
INSTALL = $(BIN)/pip install -qq -r requirements.txt
# (instructor.mk's test target needs the tests' axe-core, named here before it is included.)
VENDOR_STAMP := book/_static/vendor/.vendored
AXE := tests/vendor/axe-core/axe.min.js
-include instructor.mk

$(STAMP): $(ENVIRONMENT)
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(INSTALL)
	touch $@

venv: $(STAMP)  ## Create .venv with the README's one recipe (every version pinned)

# The site ships its browser assets (MathJax, RequireJS, the ipywidgets embedder) so it works
# offline: npm installs the versions pinned in package-lock.json, tools/vendor_assets.py copies
# them into book/_static/vendor, and node_modules goes again (Sphinx would walk its 12,000
# files on every build). The browser tests' axe-core (a dev dependency) goes to tests/vendor,
# outside the site; both come from one `npm ci`.
# The one command that builds the site (jupyter-book build . --builder html -W -n --keep-going,
# see tools/build_book.py); tests/conftest.py runs `make book` too. It prints its progress and
# every problem (tools/build_log.py); VERBOSE=1 prints the tools' whole output.
BOOK_BUILD := $(BIN)/python tools/build_book.py $(if $(filter-out 0,$(VERBOSE)),--verbose)

$(VENDOR_STAMP) $(AXE) &: package.json package-lock.json tools/vendor_assets.py
	npm ci --no-audit --no-fund --ignore-scripts --loglevel=error
	$(PYTHON) tools/vendor_assets.py
	rm -rf node_modules

vendor: $(VENDOR_STAMP) $(AXE)  ## Install the site's browser assets (and the tests' axe-core) from npm

# Everything the site is built from. With none of it newer than the last successful build,
# `make book` has nothing to do (Sphinx and the execution cache handle partial changes).
# (book/ and exercises/ themselves are left out: their names are also targets. The grading package,
# in the instructor's edition, makes the guide's tables.)
# Files the tools write are not inputs: the vendored assets (their stamp is a prerequisite below;
# listed, the first build of a fresh clone would add 130 files to the list, and the second would
# start afresh), the compiled catalogs (*.mo, written by the build) and the chapters in Korean
# (locale/<lang>/chapters, written by `make lab`). tests/book/test_book_tools.py checks that no input
# is a file git ignores. (requirements.txt, student/README.md and the JupyterLab setting go into
# the student environment's zip, tools/student_environment.py.)
BOOK_INPUTS := _config.yml _toc.yml requirements.txt requirements.lock pyproject.toml student/README.md \
	$(LAB_CONFIG) tools/build_book.py tools/book_cache.py \
	tools/student_environment.py $(shell find book/* exercises/* rooflinekit locale $(wildcard grading/roofline_grading) -path book/_static/vendor -prune \
	-o -regex 'locale/[^/]*/chapters' -prune -o -name __pycache__ -prune -o -name .ipynb_checkpoints -prune \
	-o -name '*.mo' -prune -o -print 2>/dev/null)
BOOK_STAMP := _build/html/.built
# The list itself, so that a removed file counts as a change. When the list changes, the site
# is written afresh (chapters come from the execution cache): Sphinx never deletes the page of
# a document that is gone, and no such page may linger in _build/html.
BOOK_MANIFEST := _build/.book-inputs

$(BOOK_MANIFEST): FORCE
	@mkdir -p _build
	@echo '$(sort $(BOOK_INPUTS))' | cmp -s - $@ || { rm -rf _build/html _build/.doctrees; \
		echo '$(sort $(BOOK_INPUTS))' > $@; }

# The build says what it does and, last, where to open the site (tools/build_book.py), so
# neither its command nor the stamp is echoed.
$(BOOK_STAMP): $(STAMP) $(VENDOR_STAMP) $(BOOK_MANIFEST) $(BOOK_INPUTS)
	@$(BOOK_BUILD)
	@touch $@

book: $(BOOK_STAMP)  ## Build the site into _build/html (Korean edition in _build/html/ko); fails on any warning or cell error

FORCE:

# JupyterLab refuses to run as root unless told --allow-root (containers, CI machines): lab, lab-ko
# and formgrader tell it so when make runs as root.
ALLOW_ROOT := $(if $(filter 0,$(shell id -u)),--allow-root)
# Both write the chapters in each language of the course first (locale/<lang>/chapters/, from the
# catalogs; git ignores them; the languages are rooflinekit/languages.py's).
# The environment's JupyterLab is the student's: nbgrader's Validate button and no instructor tool.
# In the instructor's edition, instructor.mk names in INSTRUCTOR_CONFIG the folder that turns
# nbgrader's Create Assignment and Formgrader back on; `lab_config` puts the folders it is given
# first on JUPYTER_CONFIG_PATH, for this run only.
LAB := $(BIN)/jupyter lab $(ALLOW_ROOT)
empty :=
space := $(empty) $(empty)
lab_config = $(if $(strip $(1)),JUPYTER_CONFIG_PATH='$(subst $(space),:,$(strip $(1)))'$${JUPYTER_CONFIG_PATH:+:$$JUPYTER_CONFIG_PATH})
CHAPTERS := $(BIN)/python tools/chapter_translations.py
lab: $(STAMP)  ## Open JupyterLab in the course's environment (chapters open as notebooks)
	$(CHAPTERS)
	$(call lab_config,$(INSTRUCTOR_CONFIG)) $(LAB)

# The same JupyterLab with its interface in a language of the course: `make lab-ko` in Korean (its
# language pack, jupyterlab-language-pack-ko-KR). jupyter-config/<lang>/labconfig sets the default
# of the setting Settings > Language writes, for this run only (a language chosen in that menu, a
# user setting, still wins); a language without that folder gets its chapters, not the interface.
lab-%: $(STAMP)  ## Open JupyterLab with its interface in a language of the course: lab-ko in Korean (한국어)
	$(CHAPTERS) --language $*
	$(call lab_config,$(wildcard $(abspath jupyter-config/$*)) $(INSTRUCTOR_CONFIG)) $(LAB)

clean:  ## Remove build outputs (keeps .venv)
	rm -rf _build .pytest_cache .mypy_cache .import_linter_cache .hypothesis book/_static/vendor tests/vendor node_modules
