"""GET /metrics: this process's figures in Prometheus's text format, for operators.

Off (404) unless `METRICS_TOKEN` is set; a scrape sends it as `Authorization: Bearer TOKEN`
(anything else: 401), so a public server does not tell strangers its load. Counts only: no
room code, name, card or token, ever. Each process reports its own figures (its sockets, the
commits it made); a monitoring system sums the replicas.
"""

from __future__ import annotations

import hmac
import os
import resource
from collections.abc import Callable, Iterable

from fastapi import APIRouter, Request
from fastapi.responses import PlainTextResponse, Response

from app.transport.hub import Hub
from app.transport.tally import Tally

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
_PAGE_SIZE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def build_router(
    token: str, hub: Hub, conflicts: Callable[[], int], *, started: float
) -> APIRouter:
    router = APIRouter()
    expected = f"Bearer {token}".encode()

    @router.get("/metrics", include_in_schema=False)
    async def metrics(request: Request) -> Response:
        given = request.headers.get("authorization", "").encode("utf-8", "replace")
        if not hmac.compare_digest(given, expected):
            return PlainTextResponse(
                "a bearer token is needed\n", 401, headers={"WWW-Authenticate": "Bearer"}
            )
        text = render(hub, hub.tally, conflicts(), started)
        return PlainTextResponse(text, media_type=CONTENT_TYPE)

    return router


def render(hub: Hub, tally: Tally, conflicts: int, started: float) -> str:
    roles = hub.sockets_by_role()
    lines: list[str] = []
    gauge = _writer(lines, "gauge")
    counter = _writer(lines, "counter")
    gauge("uno_sockets", "Room sockets open on this process, by role.", _by("role", roles))
    gauge("uno_rooms_with_sockets", "Rooms with a socket on this process.", [("", hub.rooms())])
    counter(
        "uno_commits_total",
        "Commits this process made (commands, timers, bots).",
        [("", tally.commits)],
    )
    counter("uno_events_total", "Events those commits carried.", [("", tally.events)])
    counter(
        "uno_rounds_completed_total",
        "Rounds completed by a commit of this process.",
        [("", tally.rounds)],
    )
    counter(
        "uno_commit_conflicts_total",
        "Commits lost to another process's and run again (Redis mode).",
        [("", conflicts)],
    )
    counter(
        "uno_errors_sent_total",
        "Error frames sent to clients, by code.",
        _by("code", tally.refused),
    )
    counter(
        "uno_sockets_closed_for_abuse_total",
        "Sockets closed for their behaviour (floods, refused frames, not reading), by reason.",
        _by("reason", tally.closed),
    )
    counter(
        "uno_refused_over_open_cap_total",
        "Requests (429) and WebSocket handshakes (403) refused because their address held "
        "max_open_per_address connections already, by kind (http, websocket).",
        _by("kind", tally.over_open_cap),
    )
    usage = resource.getrusage(resource.RUSAGE_SELF)
    counter(
        "process_cpu_seconds_total",
        "User and system CPU time.",
        [("", usage.ru_utime + usage.ru_stime)],
    )
    gauge("process_resident_memory_bytes", "Resident memory.", [("", _rss_bytes())])
    gauge("process_open_fds", "Open file descriptors.", [("", _open_fds())])
    gauge("process_start_time_seconds", "Start time, seconds since the epoch.", [("", started)])
    return "\n".join(lines) + "\n"


def _writer(lines: list[str], kind: str) -> Callable[[str, str, Iterable[tuple[str, float]]], None]:
    def write(name: str, help_text: str, samples: Iterable[tuple[str, float]]) -> None:
        lines.append(f"# HELP {name} {help_text}")
        lines.append(f"# TYPE {name} {kind}")
        for labels, value in samples:
            lines.append(f"{name}{labels} {_number(value)}")

    return write


def _by(label: str, counts: dict[str, int]) -> list[tuple[str, float]]:
    # Label values are our own codes and reasons (a closed set), never client text.
    return [(f'{{{label}="{key}"}}', value) for key, value in sorted(counts.items())]


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def _rss_bytes() -> int:
    try:
        with open("/proc/self/statm", "rb") as statm:
            return int(statm.read().split()[1]) * _PAGE_SIZE
    except (OSError, IndexError, ValueError):  # not Linux: the peak instead
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _open_fds() -> int:
    try:
        return len(os.listdir("/proc/self/fd"))
    except OSError:
        return -1
