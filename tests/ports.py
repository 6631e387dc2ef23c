"""Free loopback ports for the servers the tests start, chosen below the kernel's ephemeral
range. A port the kernel picks (a bind to port 0) lies in that range, where every outgoing
connection also takes its local port: with two suites at once opening thousands of client
sockets, such a port was now and then taken by a client's connection before the server
bound it ("address already in use"). Below the range only other listeners compete, and a
random pick makes two suites' picks collide about once in ten thousand."""

from __future__ import annotations

import random
import socket
from pathlib import Path

_PICK = random.SystemRandom()  # independent of any test's seeding of `random`
LOWEST = 20000


def _ephemeral_low() -> int:
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def free_port() -> int:
    highest = _ephemeral_low() - 1
    for _ in range(100) if highest > LOWEST + 1000 else ():
        port = _PICK.randint(LOWEST, highest)
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    with socket.socket() as s:  # an unusual port range: the kernel's choice after all
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port
