"""The SQL match recorder: SQLAlchemy 2 (async) on SQLite (embedded default) or PostgreSQL.

- models.py   the tables (players, rooms, matches, match_players, rounds, round_players,
              match_scores, room_snapshots); times in ms since the epoch, as on the wire
- writes.py   idempotent writes: a round is keyed by (match_id, number), ON CONFLICT DO NOTHING,
              and everything that hangs off it is written only when its row is new
- reads.py    GET /api/matches/{match_id} and the latest room snapshot
- outbox.py   the durable local outbox (a SQLite file): the round end's durable step, and the
              queue of rounds the database has not taken yet
- pending.py  outbox rounds merged into reads, so a waiting round is never invisible
- recorder.py SqlRecorder: the outbox append on the move path; a background task delivers the
              outbox to the database in order, exactly once
- engine.py   engine creation (SQLite data folder and pragmas); migrate.py: Alembic to head
"""
