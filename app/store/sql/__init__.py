"""The SQL match recorder: SQLAlchemy 2 (async) on SQLite (embedded default) or PostgreSQL."""
