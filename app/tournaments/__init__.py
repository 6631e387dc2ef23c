"""Hosted tournaments: formats, seating and standings (core), their records (store), and the
service that runs them on ordinary rooms (service). docs/tournaments.md."""
