"""HTTP routes: rooms, matches, tournaments, health and the web client's pages."""
