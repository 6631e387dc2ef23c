"""docker-compose.yml: validated by Compose itself (`docker compose config`, or the Debian
package's `docker-compose config`) where installed, and always checked for what the
deployment needs: two app replicas on Redis and PostgreSQL, Redis with AOF every second,
an official load balancer image on the published port passing WebSocket upgrades, health
checks on every service."""

from __future__ import annotations

import ipaddress
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from app.api.limits import parse_networks

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "docker-compose.yml"
NGINX = ROOT / "docs" / "deploy" / "nginx.conf"


def _compose_cli() -> list[str] | None:
    docker = shutil.which("docker")
    if docker is not None:
        probe = subprocess.run([docker, "compose", "version"], capture_output=True, timeout=30)
        if probe.returncode == 0:
            return [docker, "compose"]
    legacy = shutil.which("docker-compose")
    return [legacy] if legacy is not None else None


def _services() -> dict[str, Any]:
    data = yaml.safe_load(COMPOSE.read_text())
    services: dict[str, Any] = data["services"]
    return services


def test_compose_validates_with_compose_itself() -> None:
    cli = _compose_cli()
    if cli is None:
        if os.environ.get("CI") == "true":
            pytest.fail("CI installs docker-compose (.ci/run): Compose must validate the file")
        pytest.skip("neither `docker compose` nor `docker-compose` is installed")
    # The secret comes from a .env that is never committed: validate with a stand-in.
    env = {**os.environ, "POSTGRES_PASSWORD": "validation-only"}
    done = subprocess.run(
        [*cli, "-f", str(COMPOSE), "config", "-q"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
        env=env,
    )
    assert done.returncode == 0, done.stderr


def test_two_app_replicas_share_redis_and_postgres() -> None:
    services = _services()
    apps = {name: s for name, s in services.items() if s.get("build")}
    assert len(apps) >= 2
    for service in apps.values():
        env = service["environment"]
        assert env["REDIS_URL"].startswith("redis://redis:")
        assert env["DATABASE_URL"].startswith("postgresql+asyncpg://")
        assert "ports" not in service  # reached through the balancer only
    command = " ".join(services["redis"]["command"])
    assert "--appendonly yes" in command and "--appendfsync everysec" in command
    for name, service in services.items():
        assert "healthcheck" in service, f"{name} has no health check"


def test_the_balancer_passes_websockets_to_every_replica() -> None:
    services = _services()
    nginx = services["nginx"]
    assert re.fullmatch(r"nginx:[\w.-]+", nginx["image"])  # the official image
    assert any(str(p).endswith(":80") for p in nginx["ports"])
    mounted = [v.split(":")[0] for v in nginx["volumes"]]
    assert "./docs/deploy/nginx.conf" in mounted
    conf = NGINX.read_text()
    assert "proxy_set_header Upgrade $http_upgrade;" in conf
    assert "proxy_set_header Connection $connection_upgrade;" in conf
    assert "proxy_http_version 1.1;" in conf
    apps = sorted(name for name, s in services.items() if s.get("build"))
    for name in ("uno", "uno_rooms"):  # HTTP round-robin; room sockets hashed by room
        upstream = re.search(rf"upstream {name} \{{(.*?)\n\}}", conf, re.S)
        assert upstream is not None, name
        assert sorted(re.findall(r"server (\w+):8000", upstream.group(1))) == apps
    rooms = re.search(r"upstream uno_rooms \{(.*?)\n\}", conf, re.S)
    assert rooms is not None and "hash $uri consistent;" in rooms.group(1)
    sockets = re.search(r"location /ws/ \{(.*?)\n    \}", conf, re.S)
    assert sockets is not None and "proxy_pass http://uno_rooms;" in sockets.group(1)


def test_the_replicas_count_each_client_not_the_balancer() -> None:
    """Behind nginx every request's peer is nginx: unless the replicas trust its
    X-Forwarded-For, the limits per client address (room creations, new sockets) are one
    budget for the whole site (seen on the running stack: another client refused 5 of 5
    while one client flooded)."""
    data = yaml.safe_load(COMPOSE.read_text())
    subnet = ipaddress.ip_network(data["networks"]["default"]["ipam"]["config"][0]["subnet"])
    balancer = ipaddress.ip_address(
        data["services"]["nginx"]["networks"]["default"]["ipv4_address"]
    )
    assert balancer in subnet
    apps = [s for s in data["services"].values() if s.get("build")]
    for service in apps:
        trusted = parse_networks(str(service["environment"]["TRUSTED_PROXIES"]).split(","))
        assert any(balancer in network for network in trusted)
        # Only the balancer: another container of the network must not name its own client.
        assert all(network.num_addresses == 1 for network in trusted)


def test_a_replica_that_is_gone_costs_a_player_seconds_not_a_minute() -> None:
    """A killed replica's address answers nothing: nginx waits `proxy_connect_timeout`
    (60 s by default) before it tries the other one (measured on the running stack: a room
    socket's handshake timed out at 10 s without it, 2.0 s with it)."""
    conf = NGINX.read_text()
    found = re.search(r"^\s*proxy_connect_timeout (\d+)s;", conf, re.M)
    assert found is not None and int(found.group(1)) <= 5
