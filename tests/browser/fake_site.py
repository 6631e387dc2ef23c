"""Serve web/ to a page without the server: HTTP through page.route, the room socket through
page.route_web_socket speaking wire v2 (`welcome` with the view and its `log` on `hello`,
`events` frames pushed by the test, `ack`s). For rendering tests only."""

from __future__ import annotations

import json
import mimetypes
import os
from pathlib import Path
from typing import Any

# UNO_WEB_DIR: serve another copy of web/ (to show a test fails on an older client).
WEB = Path(os.environ.get("UNO_WEB_DIR") or Path(__file__).resolve().parents[2] / "web")
ORIGIN = "http://uno.test"


class FakeSite:
    def __init__(self, page: Any, view: dict[str, Any], role: str = "player") -> None:
        self.page = page
        self.view = view
        self.role = role
        self.sent: list[dict[str, Any]] = []
        self.sockets: list[Any] = []
        self.requests: list[Any] = []  # bodies of POST /api/rooms and of `routes` calls
        self.routes: dict[str, tuple[int, Any]] = {}  # path -> (status, JSON) answers
        self.ack = True  # False: commands stay unanswered (as on a slow server)
        page.route(f"{ORIGIN}/**", self._http)
        page.route_web_socket("ws://uno.test/ws/rooms/*", self._socket)

    def _http(self, route: Any) -> None:
        path = route.request.url[len(ORIGIN) :].split("?")[0]
        if path.startswith("/assets/"):
            file = WEB / path[len("/assets/") :]
            if file.is_file():
                ctype = mimetypes.guess_type(file.name)[0] or "application/octet-stream"
                if file.suffix == ".js":
                    ctype = "text/javascript"
                route.fulfill(status=200, body=file.read_bytes(), headers={"content-type": ctype})
                return
            route.fulfill(status=404, body="")
            return
        if path == "/api/rooms" and route.request.method == "POST":
            self.requests.append(route.request.post_data_json)
            route.fulfill(
                status=201,
                json={
                    "room": "NEWROOM",
                    "url": "/r/NEWROOM",
                    "player_id": "p0",
                    "seat": 0,
                    "token": "t-new",
                },
            )
            return
        if path in self.routes:
            status, body = self.routes[path]
            self.requests.append(route.request.post_data_json)
            route.fulfill(status=status, json=body)
            return
        if path.startswith("/api/"):
            summary = {k: self.view.get(k) for k in ("status", "settings", "seats")}
            route.fulfill(status=200, json=summary)
            return
        route.fulfill(
            status=200,
            body=(WEB / "index.html").read_bytes(),
            headers={"content-type": "text/html"},
        )

    def _socket(self, ws: Any) -> None:
        self.sockets.append(ws)

        def on_message(message: str | bytes) -> None:
            frame = json.loads(message)
            self.sent.append(frame)
            if frame["type"] == "hello":
                you = self.view.get("you")
                ws.send(
                    json.dumps(
                        {
                            "type": "welcome",
                            "you": {
                                "seat": you["seat"] if you else None,
                                "player_id": "p0",
                                "role": self.role,
                            },
                            "version": self.view["version"],
                            "view": self.view,
                        }
                    )
                )
            elif frame["type"] == "ping":
                ws.send(json.dumps({"type": "pong", "server_time": self.view["server_time"]}))
            elif "id" in frame and self.ack:
                ws.send(
                    json.dumps({"type": "ack", "id": frame["id"], "version": self.view["version"]})
                )

        ws.on_message(on_message)

    def push_events(self, events: list[dict[str, Any]], view: dict[str, Any]) -> None:
        """Send one wire v2 `events` frame (one commit) to every open fake socket: each event
        with its own version, then the view after the last one, without `log`."""
        version = self.view.get("version", 0)
        numbered = []
        for event in events:
            version += 1
            numbered.append({**event, "version": version})
        view = {k: v for k, v in view.items() if k != "log"}
        view["version"] = version
        self.view = view
        frame = {"type": "events", "version": version, "events": numbered, "view": view}
        for ws in self.sockets:
            ws.send(json.dumps(frame))

    def push_event(self, event: dict[str, Any], view: dict[str, Any]) -> None:
        """A commit of one event."""
        self.push_events([event], view)

    def open_room(self, room: str = "FAKEROOM", lang: str | None = None) -> None:
        """Store a seat token for the room and open /r/{room}."""
        self.page.goto(f"{ORIGIN}/")
        session = {"room": room, "token": "t0", "player_id": "p0", "seat": 0, "role": self.role}
        script = f"localStorage.setItem('uno.session.{room}', {json.dumps(json.dumps(session))});"
        if lang:
            script += f"localStorage.setItem('uno.lang', '{lang}');"
        self.page.evaluate(script)
        self.page.goto(f"{ORIGIN}/r/{room}")
        # Pushed frames reach only an open socket: wait for the page's hello.
        self.page.wait_for_function("window.uno && window.uno.state.view !== null")
