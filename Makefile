# Two commands do all set-up on a fresh Debian machine: `make run` and `make test`.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
HOST   ?= 127.0.0.1
PORT   ?= 8000

.PHONY: run test lint typecheck pytest migrate bench-engine bench clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev,bench]'
	touch $(STAMP)

run: $(STAMP)
	$(PY) -m uvicorn app.main:app --host $(HOST) --port $(PORT)

migrate: $(STAMP)
	$(PY) -m alembic upgrade head

lint: $(STAMP)
	$(PY) -m ruff check app tests bench migrations
	$(PY) -m ruff format --check app tests bench migrations

typecheck: $(STAMP)
	$(PY) -m mypy

# The browser suite runs in its own process: Playwright's sync API keeps an event loop
# running in the main thread, which the asyncio tests must not share.
pytest: $(STAMP)
	$(PY) -m pytest -q -p no:cacheprovider --ignore=tests/browser
	$(PY) -m pytest -q -p no:cacheprovider tests/browser

test: lint typecheck pytest

bench-engine: $(STAMP)
	$(PY) bench/engine.py

bench: bench-engine

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
