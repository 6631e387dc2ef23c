"""Every list of the engine State's fields agrees: the slots, the constructor, `_fields()`
(equality and repr), `clone()`, and `state_to_json` / `state_from_json`. A field added in one
place and forgotten in another would be silently dropped by a copy or a snapshot (a restored
room missing it), so the lists are compared as written in the source, and a mid-game state
goes through each copy."""

from __future__ import annotations

import ast
import random
from pathlib import Path

from app.engine import Join, Start, apply, new_table, parse_settings, state_from_json, state_to_json
from app.engine.state import _FIELDS, State

SOURCE = Path(__file__).resolve().parents[2] / "app" / "engine" / "state.py"
NOT_SERIALISED = {"deck"}  # rebuilt from the settings and the pairing
SERIALISED_EXTRA = {"hooks_allowed", "keep_departed"}  # settings flags kept beside them


def _state_class() -> ast.ClassDef:
    tree = ast.parse(SOURCE.read_text())
    return next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "State")


def _method(name: str) -> ast.FunctionDef:
    body = _state_class().body
    return next(n for n in body if isinstance(n, ast.FunctionDef) and n.name == name)


def _self_attributes(nodes: list[ast.expr]) -> list[str]:
    names = []
    for node in nodes:
        assert isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
        assert node.value.id == "self"
        names.append(node.attr)
    return names


def test_the_field_lists_in_the_source_agree() -> None:
    fields = list(_FIELDS)
    assert len(set(fields)) == len(fields)
    init = _method("__init__")
    assert [a.arg for a in init.args.args[1:]] == [*fields, "owned"]
    assigned = [
        s.targets[0].attr
        for s in init.body
        if isinstance(s, ast.Assign) and isinstance(s.targets[0], ast.Attribute)
    ]
    assert assigned == [*fields, "owned"]
    returned = next(s for s in _method("_fields").body if isinstance(s, ast.Return))
    assert isinstance(returned.value, ast.Tuple)
    assert _self_attributes(returned.value.elts) == fields
    clone = _method("clone")
    call = next(
        n
        for n in ast.walk(clone)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "State"
    )
    assert _self_attributes(call.args[:-1]) == fields  # and `owned` starts at 0
    slots = next(
        s
        for s in _state_class().body
        if isinstance(s, ast.Assign) and ast.unparse(s.targets[0]) == "__slots__"
    )
    assert ast.unparse(slots.value) == "(*_FIELDS, 'owned')"


def _mid_game() -> State:
    rng = random.Random(7)
    st = new_table("ROOM", parse_settings({"variant": "flip", "turn_seconds": 30}))
    for i in range(3):
        st, _ = apply(st, None, Join(f"P{i}", f"id{i}"), rng, 0)
    st, _ = apply(st, 0, Start(), rng, 1000)
    return st


def test_a_mid_game_state_survives_every_copy() -> None:
    st = _mid_game()
    assert st.status == "playing" and st.deadlines and st.hands
    serialised = state_to_json(st)
    assert set(serialised) == (set(_FIELDS) - NOT_SERIALISED) | SERIALISED_EXTRA
    again = state_from_json(serialised)
    assert again == st
    for name in _FIELDS:
        assert getattr(again, name) == getattr(st, name), name
    copy = st.clone()
    assert copy == st
    for name in _FIELDS:
        value = getattr(st, name)
        if isinstance(value, list | dict):
            assert getattr(copy, name) is value, name  # shared until written
        else:
            assert getattr(copy, name) == value, name
