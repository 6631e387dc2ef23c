# Two commands do all set-up on a fresh Debian machine: `make run` and `make test`.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
HOST   ?= 127.0.0.1
PORT   ?= 8000

.PHONY: run run-cluster test lint typecheck pytest migrate lock audit bench-engine bench-persistence bench-latency bench-load bench clean native pure soak

# The rules engine compiled with mypyc (about twice as fast; docs/performance.md). Python
# imports the extension modules in place of the sources; any change to an engine source
# rebuilds them, and a failed build removes them, so the pure-Python engine runs instead.
# `make pure` goes back to the sources. The bot stays interpreted.
# Every engine module but the package and the bot (the Dockerfile compiles the same list).
ENGINE_SRC := $(filter-out app/engine/__init__.py app/engine/bot.py,$(wildcard app/engine/*.py))
NATIVE     := build/.engine-native
NATIVE_SO  := app/engine/*.so *__mypyc.*.so

$(NATIVE): $(STAMP) $(ENGINE_SRC)
	@mkdir -p build
	@rm -f $(NATIVE_SO)
	@if $(VENV)/bin/mypyc $(ENGINE_SRC) >build/engine-native.log 2>&1; then \
		touch $(NATIVE_SO); \
		echo "engine: compiled with mypyc"; \
	else \
		rm -f $(NATIVE_SO); \
		echo "engine: mypyc build failed (build/engine-native.log); running pure Python"; \
	fi
	@touch $@

native: $(NATIVE)

pure:
	rm -f $(NATIVE_SO) $(NATIVE)

# Dependencies at the versions of the lock file, constraints.txt (`make lock` renews it from
# what is installed; the image and CI install through it too).
$(STAMP): pyproject.toml constraints.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -c constraints.txt -e '.[dev,bench]'
	touch $(STAMP)

lock: $(STAMP)
	$(PY) -m pip install -q -e '.[dev,bench]'
	@echo "# The lock file: every dependency of .[dev,bench] at the version tested (pip freeze)." >constraints.txt
	@echo "# Renewed by make lock; make, CI and the Dockerfile install through it (pip -c)." >>constraints.txt
	$(PY) -m pip freeze --exclude-editable | grep -v '^-e ' >>constraints.txt

# Known vulnerabilities in the locked dependencies (pip-audit on constraints.txt).
audit: $(STAMP)
	$(PY) .ci/audit.py constraints.txt

run: $(STAMP) $(NATIVE)
	# uvicorn with the limits of app/server.py (head size and deadline, keep-alive,
	# concurrency, WebSocket message size).
	HOST=$(HOST) PORT=$(PORT) $(PY) -m app.main

# Several processes on this machine sharing Redis, behind nginx when installed (docs/deploy.md).
run-cluster: $(STAMP) $(NATIVE)
	PY=$(PY) docs/deploy/run_cluster.sh

migrate: $(STAMP)
	$(PY) -m alembic upgrade head

lint: $(STAMP)
	$(PY) -m ruff check app tests bench migrations
	$(PY) -m ruff format --check app tests bench migrations

typecheck: $(STAMP)
	$(PY) -m mypy

# The browser suite runs in its own process: Playwright's sync API keeps an event loop
# running in the main thread, which the asyncio tests must not share. The two run side by
# side (the browser suite mostly waits on Chromium and timers): `make test` takes 7-8 minutes
# on 2 cores instead of 11 one after the other. Its output follows the main suite's. Tests
# that share the machine this way must not depend on its pace (docs/performance.md, "`make
# test` side by side").
pytest: $(STAMP) $(NATIVE)
	@mkdir -p build
	@$(PY) -m pytest -q -p no:cacheprovider --durations=10 tests/browser \
		>build/browser-tests.log 2>&1 & browser=$$!; \
	$(PY) -m pytest -q -p no:cacheprovider --durations=20 --ignore=tests/browser; main=$$?; \
	wait $$browser; status=$$?; \
	echo "--- tests/browser (build/browser-tests.log)"; cat build/browser-tests.log; \
	[ $$main -eq 0 ] && [ $$status -eq 0 ]

test: lint typecheck pytest

bench-engine: $(STAMP) $(NATIVE)
	$(PY) bench/engine.py
	$(PY) bench/engine.py --pure

# Persistence on versus off: the room path in process, then moves end to end over WebSockets.
bench-persistence: $(STAMP) $(NATIVE)
	$(PY) bench/persistence.py --matches 8

bench-latency: $(STAMP) $(NATIVE)
	$(PY) bench/move_latency.py --control

# Many rooms at once on one server, against a bare websockets fan-out baseline (about 70 s).
bench-load: $(STAMP) $(NATIVE)
	$(PY) bench/load.py

bench: bench-engine bench-persistence bench-latency bench-load

# The chaos soak (docs/reliability.md): 50 rooms play whole matches through client drops, a
# SIGKILL, a database cut and a Redis restart, embedded then two processes on Redis; needs
# PostgreSQL and redis-server; at most SOAK_SECONDS per mode. Smaller: make soak SOAK_ARGS="--rooms 10".
SOAK_SECONDS ?= 280
SOAK_ARGS    ?=
soak: $(STAMP) $(NATIVE)
	$(PY) tests/soak/soak.py --mode both --rooms 50 --target 500 --outage-seconds 10 \
		--max-seconds $(SOAK_SECONDS) $(SOAK_ARGS)

clean: pure
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
