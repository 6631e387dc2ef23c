# Production image: the ASGI app `app.main:app` behind uvicorn.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1

WORKDIR /srv/uno
COPY pyproject.toml README.md ./
COPY app ./app
COPY web ./web
COPY migrations ./migrations
COPY alembic.ini ./
RUN pip install . && useradd --system --home /srv/uno uno && mkdir -p data && chown uno data
USER uno

EXPOSE 8000
# Migrations run at start-up (the app upgrades the schema to head before serving).
CMD ["uvicorn", "app.main:app", "--host", "0.0.0.0", "--port", "8000", "--proxy-headers", "--ws-max-size", "1048576"]
