# memstream: two commands from a fresh clone.
#   make run   create .venv, install, run memstream on embedded defaults
#   make test  create .venv, install, run every test
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: setup run test test-fast lint typecheck check bench clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

run: setup
	$(BIN)/memstream up

# Three workers on two cores, each test file on one of them: the broker-backed tests
# mostly wait for processes and the broker, so a third worker fills the waits. Files
# are handed out in the order tests/conftest.py sets (the longest first), not by size.
test: setup
	$(BIN)/python -m pytest -n 3 --dist loadfile --no-loadscope-reorder

test-fast: setup
	$(BIN)/python -m pytest -m "not broker and not slow"

lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: setup
	$(BIN)/mypy

check: lint typecheck test

bench: setup
	$(BIN)/python bench/ingest.py

clean:
	rm -rf $(VENV) memstream-data .pytest_cache .mypy_cache .ruff_cache
