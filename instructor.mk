# The instructor's targets, included by the Makefile of the instructor's edition (this
# repository): its environment, tests, lint, benchmarks, the lock, the Korean catalogs, the graded
# exercises and a grading round, and the public edition. The public edition is written without
# this file (tools/public_edition.py), as without solutions/ and grading/.
.PHONY: test test-fast translations lint bench compare-peers lock public-edition

# The instructor's environment: the whole lock (the student environment and the tools to grade,
# translate, test and lint), with the two packages of this repository editable: rooflinekit (the
# library readers and students install) and roofline-grading in grading/ (the answer key, the
# model answers and the autograde driver, for instructors).
ENVIRONMENT += grading/pyproject.toml
# nbgrader's instructor tools in the instructor's JupyterLab (make lab, lab-ko and formgrader; the
# Makefile's lab_config): its menu, Formgrader and the Create Assignment toolbar, which the student's
# Lab has not (jupyter-config/labconfig/page_config.json).
INSTRUCTOR_CONFIG := $(abspath jupyter-config/instructor)
# pip compiles what it installs, but not the two editable packages: they are compiled here, once, into
# their __pycache__ folders (which git ignores), so that every grading process (the driver, each
# worker, each sandboxed kernel's recorder) need not compile them again where the environment sets
# PYTHONDONTWRITEBYTECODE (as this course's machines do: then nothing writes them later).
INSTALL = $(BIN)/python -m pip install -qq --upgrade pip && \
	$(BIN)/python -m pip install -qq -r requirements.lock && \
	$(BIN)/python -m pip install -qq --no-deps -e . -e grading && \
	$(BIN)/python -m compileall -q rooflinekit grading/roofline_grading grading/roofline_recorder

# Every test, in parallel: one pytest-xdist worker per core (TEST_JOBS=0: in one process). The
# workers share the built site (tests/support/book_build.py); an xdist_group stays on one worker.
TEST_JOBS ?= auto
test: $(STAMP) $(AXE)  ## Run every test (in parallel: TEST_JOBS=n workers, default one per core)
	$(BIN)/python -m pytest -n $(TEST_JOBS) --dist loadgroup

# The unit tier: every test without a tier marker (book, grading, browser, lab, slow), under a
# minute, in parallel too; tests/conftest.py gives it its marker. A tier alone: `pytest -m book`.
test-fast: $(STAMP)  ## Run the unit tier: the tests that take seconds, not minutes (under 60 s)
	$(BIN)/python -m pytest -m unit -n $(TEST_JOBS) --dist loadgroup

# Each translated edition's catalogs (locale/<lang>, for each language of rooflinekit/languages.py):
# new and changed English sentences become empty and fuzzy entries to translate; then
# `python tools/translations.py done PAGE` (see its docstring). The code's words too (the explorers'
# labels, locale/<lang>/LC_MESSAGES/explorer-labels.po, ship in rooflinekit/explorer/assets/labels.json:
# tools/explorer_labels.py; the computed messages, the exercises' code, the grading feedback, the
# book extension's words).
translations: $(STAMP)  ## Update locale/<lang>/LC_MESSAGES/*.po (each language) from the English pages and the code; list what is left to translate
	$(BIN)/python tools/translations.py update

lint: $(STAMP)  ## ruff, mypy, the import contracts (the packages' layers, pyproject.toml) and the 60-line rule
	$(BIN)/ruff check rooflinekit grading tests benchmarks tools book/_ext hub/*.py
	$(BIN)/mypy
	PYTHONPATH=book/_ext $(BIN)/lint-imports
	$(BIN)/python tools/function_length.py

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

# The class on Zero to JupyterHub (hub/k8s/, the guide's "A class on Kubernetes"): its values
# checked against the vendored charts without a cluster, first by their schema (jsonschema, in the
# course's environment), then by Helm itself (lint, schema, every template rendered), whose Go SDK
# comes from PyPI's helm-python-sdk in an environment of its own (hub/k8s/requirements-helm.txt).
.PHONY: k8s-check
HELM_VENV := .venv-helm
HELM_STAMP := $(HELM_VENV)/.installed

$(HELM_STAMP): hub/k8s/requirements-helm.txt
	test -x $(HELM_VENV)/bin/python || $(PYTHON) -m venv $(HELM_VENV)
	$(HELM_VENV)/bin/python -m pip install -qq -r hub/k8s/requirements-helm.txt
	touch $@

k8s-check: $(STAMP) $(HELM_STAMP)  ## Check hub/k8s/'s chart values: the charts' schemas, then helm lint and template (no cluster)
	$(BIN)/python tools/k8s_values.py
	$(HELM_VENV)/bin/python tools/k8s_helm.py

# The exchange of hub/k8s/ on this machine, for its test (tests/hub/test_k8s_exchange.py): JupyterHub
# and ngshare as the charts run them (hub/k8s/exchange/requirements.txt), configurable-http-proxy
# from npm, and the client the course's image adds to the Labs (ngshare-exchange, the Dockerfile's
# pin, without its declared dependencies), apart from .venv.
.PHONY: k8s-exchange-env
EXCHANGE_VENV := .venv-exchange
EXCHANGE_STAMP := $(EXCHANGE_VENV)/.installed
$(EXCHANGE_STAMP): hub/k8s/exchange/requirements.txt hub/k8s/Dockerfile
	test -x $(EXCHANGE_VENV)/bin/python || $(PYTHON) -m venv $(EXCHANGE_VENV)
	$(EXCHANGE_VENV)/bin/python -m pip install -qq -r hub/k8s/exchange/requirements.txt
	$(EXCHANGE_VENV)/bin/python -m pip install -qq --no-deps --target $(EXCHANGE_VENV)/client \
		$$(grep -o 'ngshare-exchange==[0-9.]*' hub/k8s/Dockerfile)
	npm install --prefix $(EXCHANGE_VENV)/proxy --no-audit --no-fund --loglevel=error configurable-http-proxy@4.6.3
	touch $@

k8s-exchange-env: $(EXCHANGE_STAMP)  ## The exchange's test environment (.venv-exchange): JupyterHub and ngshare as hub/k8s/ runs them

# Every package but the two packages of this repository, pip and setuptools (a virtual
# environment's own; jupyterlab and nbgrader take any): wheel too, which sphinx-togglebutton
# requires and `pip freeze` leaves out unless --all.
lock:  ## Re-pin requirements.lock from requirements.in in a scratch venv
	rm -rf /tmp/rooflinekit-lock && $(PYTHON) -m venv /tmp/rooflinekit-lock
	/tmp/rooflinekit-lock/bin/pip install -qq -r requirements.in
	/tmp/rooflinekit-lock/bin/pip freeze --all --exclude-editable --exclude pip --exclude setuptools > requirements.lock

# The repository as students and readers get it (book/instructor-guide.md, "Release"): the
# chapters, rooflinekit, the released exercises in both languages, the site's configuration with
# the public repository's address, Binder and a README for them; no solutions/, no grading/, no
# answer key, no instructor's guide. DEST is a new or empty folder; REPOSITORY_URL the public
# repository's address (written into _config.yml's repository.url: the site's repository and
# launch buttons), BRANCH its branch (default main).
public-edition: $(STAMP)  ## Write the public edition (no answers) into DEST: make public-edition DEST=../roofline-public REPOSITORY_URL=https://github.com/org/roofline
	@test -n "$(DEST)" || { echo "public-edition: name a new or empty folder to write it into, e.g. make public-edition DEST=../roofline-public REPOSITORY_URL=https://github.com/your-org/roofline-course" >&2; exit 2; }
	$(BIN)/python tools/public_edition.py '$(DEST)' $(if $(REPOSITORY_URL),--repository-url '$(REPOSITORY_URL)') $(if $(BRANCH),--branch '$(BRANCH)')

# --- Graded exercises (nbgrader). See book/instructor-guide.md for a whole grading round.
# COURSE is the nbgrader course directory: this checkout by default. To keep student work out of
# the repository, copy nbgrader_config.py, solutions/ and exercises/ elsewhere and pass COURSE=that/dir.
ASSIGNMENT ?= roofline
COURSE ?= .
GRADES ?= grades.csv
# Every step is the grading package's command, roofline-grading (grading/roofline_grading/cli.py).
GRADING = $(abspath $(BIN))/roofline-grading
.PHONY: fingerprints exercises roster collect autograde feedback grades grading-round formgrader
.PHONY: cluster-certs cluster-scheduler cluster-worker

# Each exercise's locked "known mistakes" cell: fingerprints of the answer key's known mistakes, so
# the checks under each answer name a mistake before submission (roofline_grading/fingerprints.py).
# (make exercises rewrites them too, before it releases.)
fingerprints: $(STAMP)  ## Rewrite the solutions' known-mistakes cells from the answer key
	$(abspath $(BIN))/python -m roofline_grading.fingerprints '$(COURSE)/solutions/$(ASSIGNMENT)'

exercises: $(STAMP)  ## Regenerate the student versions exercises/ (and exercises/<lang>/, each language's release: exercises/ko/) from solutions/
	$(GRADING) release $(ASSIGNMENT) --course '$(COURSE)'
	$(BIN)/python tools/exercise_translations.py build --course '$(COURSE)'

# The class list, so that a student who submits nothing still gets a row (with 0) in grades.csv.
# ROSTER is a CSV file with a header line and an `id` column (first_name, last_name, email optional).
roster: $(STAMP)  ## Import the class list into the gradebook: make roster ROSTER=students.csv
	@test -n "$(ROSTER)" || { echo "roster: name the class list, e.g. make roster ROSTER=students.csv (a CSV file with an id column; first_name, last_name, email optional)" >&2; exit 2; }
	$(GRADING) roster '$(abspath $(ROSTER))' --course '$(COURSE)'

# Reads the zips itself (roofline-grading collect, roofline_grading.collect): an entry it cannot take is
# skipped and named, every other student collected; late markers and submission times become
# timestamp.txt. One line per student, per skipped entry, then a summary; VERBOSE=1 says what
# happens to every entry.
collect: $(STAMP)  ## Collect submissions from LMS zips into submitted/: make collect ZIP="a.zip b.zip" (VERBOSE=1: every entry)
	@test -n "$(ZIP)" || { echo "collect: name the downloaded submissions, e.g. make collect ZIP=submissions.zip" >&2; exit 2; }
	$(GRADING) collect $(ASSIGNMENT) --course '$(COURSE)' $(if $(filter-out 0,$(VERBOSE)),--verbose) -- $(ZIP)

# JOBS: students graded at once (default: one per core). SCHEDULER: the address of the grading
# cluster's scheduler, whose workers grade instead, on any number of machines (tls://host:8786,
# reached with the certificates in CERTS; the guide's "Grading a large class").
# AUTOGRADE_OPTIONS: more options of python -m roofline_grading.autograde (--timeout S,
# --notebook-budget S, --memory-gb G, --processes N, --student ID, --sandbox off).
autograde: $(STAMP)  ## Autograde every collected submission, sandboxed and in parallel (JOBS=n); report in autograded/
	$(GRADING) autograde $(ASSIGNMENT) --course '$(COURSE)' $(if $(JOBS),--jobs $(JOBS)) $(if $(KERNELS),--kernels $(KERNELS)) $(if $(SCHEDULER),--scheduler '$(SCHEDULER)' --certs '$(CERTS)') $(AUTOGRADE_OPTIONS)

# The grading cluster (the guide's "Grading a large class"; roofline_grading/autograde/cluster.py):
# a Dask scheduler and workers that let in only the course's certificates (CERTS, made once by
# cluster-certs and copied to every grading machine), each listening on the address HOST names.
# CLUSTER_OPTIONS: more options (--port N for the scheduler; --name NAME for the workers).
CERTS ?= .grading-cluster
cluster-certs: $(STAMP)  ## Make the grading cluster's certificates into CERTS (default .grading-cluster)
	$(GRADING) cluster certs --certs '$(CERTS)'

cluster-scheduler: $(STAMP)  ## Start the grading cluster's scheduler here: make cluster-scheduler HOST=this machine's address
	@test -n "$(HOST)" || { echo "cluster-scheduler: name this machine's address on the grading machines' network, e.g. make cluster-scheduler HOST=10.0.0.1" >&2; exit 2; }
	$(GRADING) cluster scheduler --host '$(HOST)' --certs '$(CERTS)' $(CLUSTER_OPTIONS)

cluster-worker: $(STAMP)  ## Start this machine's grading workers: make cluster-worker SCHEDULER=tls://10.0.0.1:8786 HOST=this machine's address (NWORKERS=n)
	@test -n "$(SCHEDULER)" -a -n "$(HOST)" || { echo "cluster-worker: name the scheduler and this machine's address, e.g. make cluster-worker SCHEDULER=tls://10.0.0.1:8786 HOST=10.0.0.2" >&2; exit 2; }
	$(GRADING) cluster worker '$(SCHEDULER)' --host '$(HOST)' --certs '$(CERTS)' $(if $(NWORKERS),--nworkers $(NWORKERS)) $(CLUSTER_OPTIONS)

feedback: $(STAMP)  ## Write each student's HTML feedback to feedback/<student>/roofline/
	$(GRADING) feedback $(ASSIGNMENT) --course '$(COURSE)'

grades: $(STAMP)  ## Export the gradebook to grades.csv (GRADES=path to change), one row per student
	$(GRADING) grades --to '$(GRADES)' --course '$(COURSE)'

# nbgrader's formgrader, in JupyterLab in the course directory (menu Nbgrader, Formgrader): grade
# by hand the parts `make autograde` left for you (failed notebooks), look at flagged ones.
# The environment's JupyterLab is the student's (Validate only); INSTRUCTOR_CONFIG, first on
# JUPYTER_CONFIG_PATH, turns nbgrader's menu, Formgrader and Create Assignment back on for this run,
# and sets the login cookie's path to / (nbgrader's handlers would leave it the page's folder: a
# formgrader page opened first by its own address could not reach formgrader's API).
formgrader: $(STAMP)  ## Open JupyterLab in the course directory for nbgrader's formgrader
	cd $(COURSE) && $(call lab_config,$(INSTRUCTOR_CONFIG)) $(abspath $(BIN))/jupyter lab $(ALLOW_ROOT)

grading-round: $(STAMP)  ## collect, autograde, feedback and grades in one go (needs ZIP=...)
	$(MAKE) -o $(STAMP) collect
	$(MAKE) -o $(STAMP) autograde
	$(MAKE) -o $(STAMP) feedback
	$(MAKE) -o $(STAMP) grades

# --- The class on a JupyterHub on one machine (book/instructor-guide.md, "A class on a JupyterHub";
# hub/). Run as root: `sudo make hub` prepares the machine (hub/prepare.py: nbgrader's course groups,
# its exchange in EXCHANGE, the students' Jupyter configuration) and starts JupyterHub
# (hub/jupyterhub_config.py) on HUB_IP:HUB_PORT, every user's server on HUB_IP too. HUB_DIR holds
# the student environment (requirements.txt's one recipe, with JupyterHub's single-user server),
# configurable-http-proxy (hub/package-lock.json) and the hub's state. The course folder (COURSE)
# and this repository belong to the instructor and are private (mode 700): make hub refuses otherwise.
HUB_IP ?= 127.0.0.1
HUB_PORT ?= 8000
HUB_DIR ?= /opt/roofline-hub
# The student environment's Python: 3.11 or later (the lock's), one every user may run (the
# system's, not one in root's home). HUB_PIP_OPTIONS: more options for its pip install.
HUB_PYTHON ?= /usr/bin/python3
EXCHANGE ?= /srv/nbgrader/exchange
# nbgrader_config.py's course_id, the one place it is named: the course's folder in the exchange and
# its hub groups. Read once, when a target first needs it (the environment is installed by then).
COURSE_ID = $(eval COURSE_ID := $(shell $(GRADING) course-id --course '$(COURSE)'))$(or $(COURSE_ID),$(error no course id read from $(COURSE)/nbgrader_config.py))
HUB_STAMP := $(HUB_DIR)/.installed
HUB_SETTINGS = ROOFLINE_HUB_DIR='$(HUB_DIR)' ROOFLINE_COURSE='$(abspath $(COURSE))' ROOFLINE_REPOSITORY='$(CURDIR)' \
	ROOFLINE_EXCHANGE='$(EXCHANGE)' ROOFLINE_INSTRUCTOR_BIN='$(abspath $(BIN))' ROOFLINE_COURSE_ID='$(COURSE_ID)' ROOFLINE_HUB_IP='$(HUB_IP)' ROOFLINE_HUB_PORT='$(HUB_PORT)'
# nbgrader's exchange commands, run by the instructor in the course folder.
EXCHANGE_NBGRADER = cd '$(COURSE)' && $(abspath $(BIN))/nbgrader
.PHONY: hub hub-install hub-release hub-unrelease hub-collect hub-return

$(HUB_STAMP): requirements.txt requirements.lock pyproject.toml $(LAB_CONFIG) hub/package.json hub/package-lock.json
	test -x '$(HUB_DIR)/venv/bin/python' || $(HUB_PYTHON) -m venv '$(HUB_DIR)/venv'
	'$(HUB_DIR)/venv/bin/python' -m pip install -qq --upgrade pip
	'$(HUB_DIR)/venv/bin/python' -m pip install -qq $(HUB_PIP_OPTIONS) -r requirements.txt jupyterhub
	mkdir -p '$(HUB_DIR)/proxy' && cp hub/package.json hub/package-lock.json '$(HUB_DIR)/proxy/'
	npm ci --prefix '$(HUB_DIR)/proxy' --no-audit --no-fund --loglevel=error
	chmod -R go+rX,go-w '$(HUB_DIR)/venv' '$(HUB_DIR)/proxy'
	touch $@

hub-install: $(STAMP) $(HUB_STAMP)  ## Install the class's JupyterHub into HUB_DIR (student environment, proxy), without starting it

hub: hub-install  ## Start the class's JupyterHub (as root): sudo make hub HUB_IP=address [HUB_PORT=8000 COURSE=folder EXCHANGE=folder]
	$(HUB_SETTINGS) $(PYTHON) hub/prepare.py
	cd '$(HUB_DIR)' && $(HUB_SETTINGS) exec '$(HUB_DIR)/venv/bin/jupyterhub' -f '$(CURDIR)/hub/jupyterhub_config.py'

# Each translated release (exercises/<lang>/, the Korean one) goes beside nbgrader's outbound/, into
# outbound-<lang>/: a student whose Lab is in that language fetches it (hub/language_fetch.py).
hub-release: $(STAMP)  ## Release exercises/roofline (and each language's, exercises/<lang>/) to the hub's students (nbgrader release_assignment into EXCHANGE)
	$(EXCHANGE_NBGRADER) release_assignment $(ASSIGNMENT) --Exchange.root='$(EXCHANGE)' --force
	cd '$(COURSE)' && for release in exercises/??/$(ASSIGNMENT); do [ -d "$$release" ] || continue; \
		outbound='$(EXCHANGE)/$(COURSE_ID)/outbound-'$$(basename $$(dirname $$release)); \
		mkdir -p "$$outbound" && rm -rf "$$outbound/$(ASSIGNMENT)" && cp -r "$$release" "$$outbound/" \
		&& chmod -R u+rwX,go+rX,go-w "$$outbound" || exit 1; done

# What nbgrader's list --remove does (formgrader's Unrelease, which the course refuses), for each language's release too.
hub-unrelease: $(STAMP)  ## Withdraw exercises/roofline (and each language's) from the hub's students: they can no longer fetch it
	rm -rf '$(EXCHANGE)/$(COURSE_ID)'/outbound*/'$(ASSIGNMENT)'

# A submission's time is the one nbgrader's submit wrote, unless the exchange received it later
# (roofline_grading/collect/exchange_times.py: a student could write that file themselves).
hub-collect: $(STAMP)  ## Collect the hub's submissions from EXCHANGE into submitted/ (nbgrader collect; then make autograde)
	$(EXCHANGE_NBGRADER) collect $(ASSIGNMENT) --Exchange.root='$(EXCHANGE)' --update
	cd '$(COURSE)' && $(abspath $(BIN))/python -m roofline_grading.collect.exchange_times $(ASSIGNMENT) --exchange '$(EXCHANGE)'

# nbgrader files each student's feedback in the exchange under a key made from the secret their
# submission carried (submitted/<student>/<assignment>/submission_secret.txt), which it reads beside
# the feedback pages.
hub-return: $(STAMP)  ## Return feedback/ to the hub's students (nbgrader release_feedback; after make feedback)
	cd '$(COURSE)' && for pages in feedback/*/$(ASSIGNMENT); do student=$${pages#feedback/}; \
		cp "submitted/$${student%/$(ASSIGNMENT)}/$(ASSIGNMENT)/submission_secret.txt" "$$pages/" || exit 1; done
	$(EXCHANGE_NBGRADER) release_feedback $(ASSIGNMENT) --Exchange.root='$(EXCHANGE)'
