# memstream: two commands from a fresh clone.
#   make run   create .venv, install what running needs, run memstream on embedded defaults
#   make test  create .venv, install it with the development tools, run every test
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
RUNTIME := $(VENV)/.installed-runtime
DEV     := $(VENV)/.installed-dev

# `make run` installs what running needs; the tests and checks add the development tools.
setup: $(DEV)

# uv installs what pip would, from PyPI, faster (measured on a fresh clone: 40 s with
# pip, 24 s with uv). Bytecode is compiled at install, as pip does: with
# PYTHONDONTWRITEBYTECODE set (as on the CI machines) nothing writes it later, and every
# process the tests start would compile its imports from source (a test run 2 minutes
# slower). pip does the install when uv cannot be had.
INSTALL = $(BIN)/uv pip install --quiet --compile-bytecode --python $(BIN)/python

$(RUNTIME): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet uv || true
	$(INSTALL) -e . || $(BIN)/python -m pip install --quiet -e .
	touch $(RUNTIME)

$(DEV): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet uv || true
	$(INSTALL) -e '.[dev]' || $(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(DEV) $(RUNTIME)

# The console's browser tests drive Debian's Chromium (Playwright's own browser download
# is not used): installed here when it is missing (apt-get, as root or through sudo).
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
browser:
	@command -v chromium >/dev/null 2>&1 || { \
		echo "installing Chromium for the console's browser tests"; \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq chromium >/dev/null; }

# The TypeScript client's packages (the versions package-lock.json pins), and its build:
# its tests run in `make test`, and the docs' examples import the built package.
TS := clients/typescript
$(TS)/node_modules/.installed: $(TS)/package.json $(TS)/package-lock.json
	cd $(TS) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

$(TS)/dist/index.js: $(TS)/node_modules/.installed $(wildcard $(TS)/src/*.ts) $(TS)/tsconfig.json
	cd $(TS) && npm run --silent build

typescript: $(TS)/dist/index.js

run: $(RUNTIME)
	$(BIN)/memstream up

# Three workers on two cores, each test file on one of them: the broker-backed tests
# mostly wait for processes and the broker, so a third worker fills the waits (a fourth
# made a run slower: 12 min 13 s against 11 min 8 s, the deployments' idle polling
# taking the cores the waits freed). Files are handed out in the order
# tests/conftest.py sets (the longest first), not by size.
test: setup browser typescript
	$(BIN)/python -m pytest -n 3 --dist loadfile --no-loadscope-reorder --durations=15

# `make test` with a CPU hog beside it: a busy loop on each core (HOGS of them), for as
# long as the suite runs (they die with the recipe's shell, and are stopped when the
# suite ends, pass or fail). No test may depend on how fast the machine is.
HOGS ?= 2
HOG := import os; from memstream.streams.lifeline import die_with_parent; die_with_parent(os.getppid()); exec("while True: pass")
test-loaded: setup browser typescript
	hogs=""; \
	for i in $$(seq $(HOGS)); do $(BIN)/python -c '$(HOG)' & hogs="$$hogs $$!"; done; \
	trap 'kill $$hogs 2>/dev/null' EXIT; \
	$(BIN)/python -m pytest -n 3 --dist loadfile --no-loadscope-reorder --durations=15

# The files whose scenarios race processes against each other (kills, freezes, several
# writers, imports beside the lifecycle), run N times in a row; stops at the first
# failing round: make test-repeat N=10
N ?= 5
REPEAT ?= tests/e2e/test_scale_out.py tests/e2e/test_scale_out_s3.py tests/e2e/test_portability.py tests/contract/test_claims.py
test-repeat: setup
	for round in $$(seq $(N)); do \
		echo "round $$round of $(N)"; \
		$(BIN)/python -m pytest -n 3 --dist loadfile --no-loadscope-reorder $(REPEAT) || exit 1; \
	done

test-fast: setup
	$(BIN)/python -m pytest -m "not broker and not slow"

lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: setup typescript
	$(BIN)/mypy
	cd $(TS) && npx tsc -p tsconfig.json --noEmit

check: lint typecheck test

bench: setup
	$(BIN)/python bench/ingest.py

# What the docs' install lines install: the wheel (with its extras: pip install
# 'dist/memstream-VERSION-py3-none-any.whl[langgraph]') and the TypeScript client's
# tarball (npm install dist/memstream-client-VERSION.tgz), built from this repository.
# DIST names another folder (the docs' test builds into its own).
DIST ?= dist
dist: $(RUNTIME) typescript
	rm -rf $(DIST) build && mkdir -p $(DIST)  # build/: no file of an older build in the wheel
	$(BIN)/python -m pip wheel --quiet --no-deps --wheel-dir $(DIST) .
	cd $(TS) && npm pack --silent --pack-destination $(abspath $(DIST)) >/dev/null
	@ls $(DIST)

clean:
	rm -rf $(VENV) memstream-data dist $(TS)/node_modules $(TS)/dist .pytest_cache .mypy_cache .ruff_cache
