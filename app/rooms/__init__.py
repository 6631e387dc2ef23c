"""The authoritative rooms: one writer per room, history, timers and bots."""
