"""HTTP routes: rooms, matches, health and the web client's pages."""
