"""Issue 11, finding 12: the image and the dependency lock, checked from the files (no Docker
daemon in CI). What each assertion guards is said beside it."""

from __future__ import annotations

import re
import subprocess
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _text(name: str) -> str:
    return (ROOT / name).read_text()


def _name(requirement: str) -> str:
    return re.split(r"[<>=!~\[; ]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def test_the_image_builds_the_engine_inside_and_checks_its_health() -> None:
    dockerfile = _text("Dockerfile")
    stages = re.findall(r"^FROM\s+(\S+)", dockerfile, re.MULTILINE)
    assert len(stages) >= 2  # a build stage (compiler, mypy) the final image does not carry
    base = re.search(r"^ARG BASE=(\S+)", dockerfile, re.MULTILINE)
    exact = r"python:\d+\.\d+\.\d+-slim-\w+(@sha256:\w+)?"  # a release, not a moving tag
    assert base is not None and re.fullmatch(exact, base[1])
    assert all(stage == "${BASE}" or " AS " in stage for stage in stages)
    assert "-m mypyc" in dockerfile  # the compiled engine is built for the image's Python
    assert "-c constraints.txt" in dockerfile  # the locked versions
    assert re.search(r"^HEALTHCHECK .*\n?.*/healthz", dockerfile, re.MULTILINE)
    assert re.search(r"^USER (?!root)\w+", dockerfile, re.MULTILINE)
    assert 'CMD ["python", "-m", "app.main"]' in dockerfile  # uvicorn with app/server.py limits


def test_no_checkout_build_output_reaches_the_image() -> None:
    ignore = _text(".dockerignore").splitlines()
    # A checkout's mypyc output (for another Python) would shadow the sources in the image.
    assert "**/*.so" in ignore and "**/*.c" in ignore
    assert ignore[ignore.index("*") :].count("*") == 1  # everything else is opt-in ...
    assert not any(line.strip("!/") in (".env", ".venv", "build", "data") for line in ignore)


def test_the_engine_modules_compiled_are_the_same_for_make_and_the_image() -> None:
    listed = subprocess.run(
        ["make", "-s", "-f", "Makefile", "-f", "-", "print-engine"],
        input="print-engine:\n\t@echo $(ENGINE_SRC)\n",
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    ).stdout.split()
    engine = ROOT / "app" / "engine"
    interpreted = ("__init__.py", "bot.py")
    modules = [p.name for p in engine.glob("*.py") if p.name not in interpreted]
    expected = sorted(f"app/engine/{name}" for name in modules)
    assert sorted(listed) == expected
    assert "grep -v -e '/__init__.py$' -e '/bot.py$'" in _text("Dockerfile")


def test_every_dependency_is_locked_and_installed_through_the_lock() -> None:
    project = tomllib.loads(_text("pyproject.toml"))["project"]
    wanted = {_name(r) for r in project["dependencies"]}
    for extra in ("dev", "bench"):
        wanted |= {_name(r) for r in project["optional-dependencies"][extra]}
    pinned = {}
    for line in _text("constraints.txt").splitlines():
        if line and not line.startswith("#"):
            name, _, version = line.partition("==")
            assert version, f"not pinned: {line}"
            pinned[_name(name)] = version
    missing = sorted(wanted - pinned.keys())
    assert not missing, f"not in constraints.txt (run `make lock`): {missing}"
    assert "-c constraints.txt -e '.[dev,bench]'" in _text("Makefile")
    assert "make audit" in _text(".ci/run")


def test_compose_takes_its_secret_from_an_uncommitted_env_file() -> None:
    compose = _text("docker-compose.yml")
    assert "POSTGRES_PASSWORD: ${POSTGRES_PASSWORD:?" in compose
    assert not re.search(r"postgresql\+asyncpg://\w+:(?!\$\{)[^@]+@", compose)
    assert ".env" in _text(".gitignore").splitlines()
    assert "POSTGRES_PASSWORD=" in _text(".env.example")
