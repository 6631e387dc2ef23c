"""The wire: parsed client frames, the WebSocket endpoint, per-connection senders."""
