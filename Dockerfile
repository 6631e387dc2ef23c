# Production image: the app behind uvicorn with the limits of app/server.py, its rules engine
# compiled with mypyc inside the image (a checkout's own build output never gets in: see
# .dockerignore), dependencies at the versions of the lock file (constraints.txt).
#
# The base image is pinned to an exact release. Where a registry is at hand, pin its digest
# as well: `docker buildx imagetools inspect python:3.11.7-slim-bookworm` gives it, then
# build with --build-arg BASE=python:3.11.7-slim-bookworm@sha256:<digest>.
ARG BASE=python:3.11.7-slim-bookworm

# --- build: dependencies into /opt/venv, the engine compiled in place -----------------------
FROM ${BASE} AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
RUN apt-get update \
    && apt-get install -y --no-install-recommends gcc libc6-dev \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /srv/uno
COPY pyproject.toml constraints.txt ./
# The runtime dependencies only (not dev or bench), as pinned by constraints.txt; mypy goes
# to a directory of its own that the final image does not copy.
RUN python -c "import tomllib; print('\n'.join(tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies']))" > requirements.txt \
    && python -m venv /opt/venv \
    && /opt/venv/bin/pip install -c constraints.txt -r requirements.txt \
    && /opt/venv/bin/pip install -c constraints.txt --target /opt/mypyc mypy
COPY app ./app
# The same modules as the Makefile's `native` (every engine module but the package and the
# bot); the image must not start with a pure-Python engine, so a failed build fails here.
RUN PYTHONPATH=/opt/mypyc /opt/venv/bin/python -m mypyc \
        $(ls app/engine/*.py | grep -v -e '/__init__.py$' -e '/bot.py$') \
    && rm -rf build app/engine/*.c \
    && /opt/venv/bin/python -c "import app.engine.state as s; assert s.__file__.endswith('.so'), s.__file__"

# --- run ---------------------------------------------------------------------------------------
FROM ${BASE}
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PATH=/opt/venv/bin:$PATH \
    HOST=0.0.0.0 \
    PORT=8000
RUN useradd --system --home /srv/uno uno
WORKDIR /srv/uno
COPY --from=build /opt/venv /opt/venv
COPY --from=build /srv/uno/app ./app
COPY --from=build /srv/uno/*__mypyc*.so ./
COPY web ./web
COPY migrations ./migrations
COPY alembic.ini ./
RUN mkdir -p data && chown uno data \
    && python -c "import app.engine.state as s; assert s.__file__.endswith('.so'), s.__file__"
USER uno

EXPOSE 8000
# 200 while the process can serve rooms (the database may be away: rounds wait in the outbox).
# (PORT read at check time: a container started with another PORT is checked on it.)
HEALTHCHECK --interval=15s --timeout=3s --start-period=30s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request as u; u.urlopen('http://127.0.0.1:%s/healthz' % os.environ.get('PORT', '8000'), timeout=2)"]
# Migrations run at start-up (the app upgrades the schema to head before serving).
# `python -m app.main` starts uvicorn with the limits of app/server.py; behind a reverse proxy,
# set TRUSTED_PROXIES to its address so that the per-address limits see the clients.
CMD ["python", "-m", "app.main"]
