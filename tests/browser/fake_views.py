"""Hand-made views in the PROTOCOL shape, for rendering tests that need no server."""

from __future__ import annotations

from typing import Any

NOW = 1_764_453_000_000


def card(cid: int, color: str | None, kind: str, value: int | None = None) -> dict[str, Any]:
    return {"id": cid, "color": color, "kind": kind, "value": value}


def seat(n: int, name: str, count: int, **extra: Any) -> dict[str, Any]:
    base = {
        "seat": n,
        "name": name,
        "player_id": f"p{n}",
        "bot": False,
        "connected": True,
        "hand_count": count,
        "uno": False,
        "score": 0,
        "backs": None,
    }
    base.update(extra)
    return base


def classic_view(server_time: int = NOW) -> dict[str, Any]:
    hand = [
        card(1, "red", "number", 5),
        card(2, "red", "skip"),
        card(3, "blue", "number", 7),
        card(4, None, "wild"),
        card(5, None, "wild_draw4"),
        card(6, "green", "draw2"),
        card(7, "yellow", "reverse"),
    ]
    return {
        "room": "FAKEROOM",
        "status": "playing",
        "version": 12,
        "server_time": server_time,
        "settings": {
            "variant": "classic",
            "turn_seconds": 30,
            "target_score": 500,
            "scoring": "winner_collects",
            "challenge_seconds": 10,
        },
        "host": 0,
        "match_id": "m1",
        "round": 1,
        "seats": [
            seat(0, "Ayşe", 7),
            seat(1, "Mikko", 1, uno=False),
            seat(2, "Bot 3", 4, bot=True, player_id="bot-73148152680a1839"),
            seat(3, "Sara", 6, connected=False, afk=True),
        ],
        "you": {
            "seat": 0,
            "hand": hand,
            "moves": {
                "play": [
                    {"card": 1, "colors": None, "targets": None},
                    {"card": 2, "colors": None, "targets": None},
                    {"card": 4, "colors": ["red", "yellow", "green", "blue"], "targets": None},
                    {"card": 5, "colors": ["red", "yellow", "green", "blue"], "targets": None},
                ],
                "draw": True,
                "pass": False,
                "uno": False,
                "challenge": False,
                "accept": False,
                "catch": [1],
                "choose": None,
            },
        },
        "state": {
            "top": card(40, "red", "number", 3),
            "color": "red",
            "side": "light",
            "direction": 1,
            "turn": 0,
            "draw_count": 70,
            "discard_count": 4,
            "pending_draw": 0,
            "draw_top_back": None,
            "phase": "play",
            "deadlines": {
                "turn": {"seat": 0, "at": server_time + 20_000},
                "uno": {"seat": 1, "at": server_time + 2_000},
                "challenge": None,
            },
        },
        "log": [
            {"kind": "round_started", "round": 1, "dealer": 3, "version": 5},
            {"kind": "card_played", "seat": 1, "card": card(40, "red", "number", 3), "version": 11},
        ],
    }


def flip_view(server_time: int = NOW) -> dict[str, Any]:
    view = classic_view(server_time)
    view["settings"]["variant"] = "flip"

    def flip_card(cid: int, color: str | None, kind: str, value: int | None = None) -> dict:
        face = {"color": color, "kind": kind, "value": value}
        return {"id": cid, "face": face, **face}

    view["you"]["hand"] = [
        flip_card(1, "pink", "number", 5),
        flip_card(2, "teal", "skip_everyone"),
        flip_card(3, "orange", "draw5"),
        flip_card(4, None, "wild_draw_color"),
    ]
    view["you"]["moves"]["play"] = [{"card": 1, "colors": None, "targets": None}]
    view["you"]["moves"]["catch"] = []
    view["state"].update(
        top=flip_card(40, "pink", "number", 3),
        color="pink",
        side="dark",
        direction=-1,
        draw_top_back={"color": "red", "kind": "number", "value": 4},
    )
    backs = [
        {"color": "blue", "kind": "draw1", "value": None},
        {"color": None, "kind": "wild_draw2", "value": None},
        {"color": "green", "kind": "flip", "value": None},
        {"color": "yellow", "kind": "number", "value": 9},
    ]
    for s in view["seats"][1:]:
        s["backs"] = backs[: s["hand_count"]] if s["hand_count"] <= 4 else backs
        s["hand_count"] = len(s["backs"])
    return view


def challenge_view(server_time: int = NOW) -> dict[str, Any]:
    view = classic_view(server_time)
    view["state"].update(
        top=card(50, None, "wild_draw4"),
        color="blue",
        phase="challenge",
        pending_draw=4,
    )
    view["state"]["deadlines"]["challenge"] = {"seat": 0, "at": server_time + 8_000}
    view["you"]["moves"] = {
        "play": [],
        "draw": False,
        "pass": False,
        "uno": False,
        "challenge": True,
        "accept": True,
        "catch": [],
        "choose": None,
    }
    return view


def lobby_view(server_time: int = NOW) -> dict[str, Any]:
    view = classic_view(server_time)
    view.update(status="lobby", round=0, match_id=None)
    view["seats"] = [
        seat(0, "Ayşe", 0),
        seat(1, "Bot 2", 0, bot=True, player_id="bot-5e0c2a9b41d7f380"),
        seat(2, "Mikko", 0, connected=False),
    ]
    view["you"] = {"seat": 0, "hand": [], "moves": {"play": [], "start": True}}
    view["state"] = None
    view["log"] = []
    return view


def round_ended_event() -> dict[str, Any]:
    return {
        "kind": "round_ended",
        "round": 1,
        "winner": 0,
        "hands": [
            [],
            [card(9, "blue", "number", 9)],
            [card(10, None, "wild")],
            [card(11, "red", "skip")],
        ],
        "points": [79, 0, 0, 0],
        "hand_points": [0, 9, 50, 20],  # extension: each hand's worth, counted by the server
        "scores": [79, 0, 0, 0],
        "match_id": "m1",
    }


def match_record(
    players: list[dict[str, Any]], rounds: list[tuple[int, list[int]]], winner: int
) -> dict[str, Any]:
    """A finished match as GET /api/matches/{id} answers it (target 100, winner collects):
    `rounds` are (winner, points per seat); the scores are their sums."""
    return {
        "match_id": "m1",
        "room": "FAKEROOM",
        "status": "finished",
        "settings": {"target_score": 100, "scoring": "winner_collects"},
        "players": players,
        "rounds": [
            {"number": n, "winner": w, "points": points, "ended_at": n}
            for n, (w, points) in enumerate(rounds, 1)
        ],
        "scores": [sum(column) for column in zip(*(points for _, points in rounds), strict=True)],
        "winner": winner,
    }
