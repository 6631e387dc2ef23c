"""Rules audit through the wire: the commands of PROTOCOL.md reach the rules no other
end-to-end test drives (challenge, choose, plays with a target or `uno`, Flip's dark side)."""

from __future__ import annotations

from typing import Any

import pytest

from e2e.harness import Harness
from e2e.qa_rig import QUIET, rig, sync


async def test_wild_draw_four_challenge_guilty(server: Harness) -> None:
    """RULES 8: a bluff (seat 0 holds red on a red 5) challenged: the offender draws 4, the
    challenger alone sees the hand and plays on the named color."""
    (a, b), ids, _ = await rig(server, [["wild_draw4", "red 1"], ["blue 2"]], "red 5")
    reply = await a.act("play", card=ids[0][0], color="blue")
    await sync([a, b], reply["version"])
    assert b.view is not None and b.view["you"]["moves"]["challenge"] is True
    mark = b.version
    reply = await b.act("challenge")
    assert reply["type"] == "ack", reply
    await sync([a, b], reply["version"])
    resolved = b.events_after(mark)[0]
    assert resolved["kind"] == "challenge_resolved" and resolved["guilty"] is True
    assert {c["id"] for c in resolved["hand"]} == set(ids[0][1:])
    assert "hand" not in a.events_after(mark)[0]
    drawn = b.events_after(mark)[1]
    assert drawn["kind"] == "card_drawn" and drawn["seat"] == 0 and drawn["count"] == 4
    view = b.view
    assert view["state"]["turn"] == 1 and view["state"]["phase"] == "play"
    assert view["state"]["color"] == "blue"


async def test_wild_draw_four_challenge_innocent(server: Harness) -> None:
    """RULES 8: a legal Wild Draw Four challenged: the challenger draws 6, loses the turn."""
    (a, b), ids, _ = await rig(server, [["wild_draw4", "blue 1"], ["blue 2"]], "red 5")
    reply = await a.act("play", card=ids[0][0], color="green")
    await sync([a, b], reply["version"])
    mark = b.version
    reply = await b.act("challenge")
    await sync([a, b], reply["version"])
    assert b.kinds_after(mark) == ["challenge_resolved", "card_drawn", "turn_skipped"]
    assert b.events_after(mark)[0]["guilty"] is False
    assert b.events_after(mark)[1]["count"] == 6
    assert b.view is not None and b.view["state"]["turn"] == 0


async def test_first_card_wild_the_first_player_chooses(server: Harness) -> None:
    """RULES 2: a wild turned up first: the first player names the color with `choose`."""
    (a, b), _, _ = await rig(server, [[], []], "wild")
    assert a.view is not None
    assert a.view["state"]["phase"] == "choose" and a.view["state"]["turn"] == 0
    assert a.view["you"]["moves"]["choose"] == ["red", "yellow", "green", "blue"]
    assert b.view is not None and b.view["you"]["moves"]["choose"] is None
    reply = await b.act("choose", color="red")
    assert reply["type"] == "error" and reply["code"] == "not_your_turn"
    reply = await a.act("choose", color="green")
    assert reply["type"] == "ack", reply
    await sync([a, b], reply["version"])
    assert b.view["state"]["color"] == "green" and b.view["state"]["phase"] == "play"
    assert b.view["state"]["turn"] == 0


ALL_WILD_FILL = ["wild"] * 5


async def test_all_wild_targeted_draw_two_and_forced_swap_take_a_target(server: Harness) -> None:
    """RULES 18 through `play` with `target`: the chosen seat draws 2 and keeps its turn; a
    Forced Swap trades hands with the chosen seat."""
    hands = [
        ["wild_targeted_draw2", "wild_forced_swap", *ALL_WILD_FILL],
        ["wild_skip", *["wild_reverse"] * 6],
        ["wild_draw2", *["wild_skip2"] * 6],
    ]
    (a, b, c), ids, _ = await rig(server, hands, "wild", {"variant": "all_wild"})
    clients = [a, b, c]
    assert a.view is not None
    entry = next(p for p in a.view["you"]["moves"]["play"] if p["card"] == ids[0][0])
    assert entry["targets"] == [1, 2] and entry["colors"] is None
    reply = await a.act("play", card=ids[0][0])
    assert reply["type"] == "error" and reply["code"] == "bad_target"
    mark = c.version
    reply = await a.act("play", card=ids[0][0], target=2)
    assert reply["type"] == "ack", reply
    await sync(clients, reply["version"])
    assert c.kinds_after(mark) == ["card_played", "card_drawn"]
    assert c.events_after(mark)[0]["target"] == 2
    assert c.view is not None and c.view["seats"][2]["hand_count"] == 9
    assert c.view["state"]["turn"] == 1  # the next seat plays on
    reply = await b.act("play", card=ids[1][0])  # Wild Skip: seat 2 loses its turn
    await sync(clients, reply["version"])
    assert a.view["state"]["turn"] == 0
    reply = await a.act("play", card=ids[0][1], target=2)
    assert reply["type"] == "ack", reply
    await sync(clients, reply["version"])
    assert a.seen("hands_swapped")[-1]["target"] == 2
    assert {card["id"] for card in c.view["you"]["hand"]} == set(ids[0][2:])
    assert len(a.view["you"]["hand"]) == 9


async def test_seven_zero_seven_takes_a_target_and_uno_rides_with_the_play(
    server: Harness,
) -> None:
    """RULES 27 and 13 through `play` with `target` and `uno`: a 7 swaps with the chosen
    seat; a play declaring UNO cannot be caught."""
    (a, b, c), ids, _ = await rig(
        server,
        [["red 7"], ["blue 3", "red 4"], ["green 1"]],
        "red 5",
        {"seven_zero": True},
    )
    clients = [a, b, c]
    reply = await a.act("play", card=ids[0][0])
    assert reply["type"] == "error" and reply["code"] == "bad_target"
    reply = await a.act("play", card=ids[0][0], target=1)
    assert reply["type"] == "ack", reply
    await sync(clients, reply["version"])
    swapped = b.seen("hands_swapped")[-1]
    assert swapped["seat"] == 0 and swapped["target"] == 1
    assert b.view is not None and len(b.view["you"]["hand"]) == 6
    assert a.view is not None
    assert {card["id"] for card in a.view["you"]["hand"]} == set(ids[1])


async def test_uno_flag_on_a_play_declares(server: Harness) -> None:
    """RULES 13: `play` with `uno: true` leaving one card declares at once (no catch)."""
    hands = [["red skip", "blue skip", "green skip", "yellow skip"], ["blue 9"]]
    (a, b), ids, _ = await rig(server, hands, "red 5")
    clients = [a, b]
    # Seat 0 holds 4 Skips and 3 yellow numbers: Skips keep the turn with two players.
    for cid in ids[0][:4]:
        reply = await a.act("play", card=cid)
        assert reply["type"] == "ack", reply
        await sync(clients, reply["version"])
    assert a.view is not None and a.view["state"]["turn"] == 0
    numbers = [c["id"] for c in a.view["you"]["hand"]]
    assert len(numbers) == 3
    reply = await a.act("play", card=numbers[0])
    await sync(clients, reply["version"])
    reply = await b.act("draw")
    await sync(clients, reply["version"])
    if b.view is not None and b.view["you"]["moves"]["pass"]:
        reply = await b.act("pass")
        await sync(clients, reply["version"])
    assert a.view["state"]["turn"] == 0 and a.view["you"]["moves"]["uno"] is True
    mark = a.version
    reply = await a.act("play", card=numbers[1], uno=True)
    assert reply["type"] == "ack", reply
    await sync(clients, reply["version"])
    assert "uno_declared" in a.kinds_after(mark)
    assert b.view is not None and b.view["you"]["moves"]["catch"] == []
    reply = await b.act("catch", seat=0)
    assert reply["type"] == "error" and reply["code"] == "not_catchable"


# --- Flip's dark side, rigged by card ids (which dark face backs which light one) ----------


async def test_flip_to_the_dark_side_and_a_wild_draw_color_challenged(server: Harness) -> None:
    """RULES 22-23 through the wire: a light Flip turns everything over; a Wild Draw Color
    played on the dark side is challenged; the outcome follows the offender's dark hand."""
    settings = {"variant": "flip"}
    # The pairing is made per room: create the room first, then pick the cards from it.
    host = await server.create_room("S0", {**QUIET, **settings})
    room = host["room"]
    guest = await server.join(room, "S1")
    listing = (await server.http.get(f"/api/rooms/{room}/deck")).json()["cards"]
    deck = {int(c["id"]): c for c in listing}

    def pick(pred: Any, taken: set[int]) -> int:
        for card in deck.values():
            if int(card["id"]) not in taken and pred(card["light"], card["dark"]):
                taken.add(int(card["id"]))
                return int(card["id"])
        raise LookupError("no such card")

    taken: set[int] = set()
    top = pick(lambda lf, df: lf["kind"] == "number" and df["kind"] == "number", taken)
    color = deck[top]["light"]["color"]
    flip = pick(lambda lf, df: lf["kind"] == "flip" and lf["color"] == color, taken)
    wdc = pick(lambda lf, df: df["kind"] == "wild_draw_color", taken)
    plain = lambda lf, df: lf["kind"] == "number" and df["kind"] == "number"  # noqa: E731
    hand0 = [flip] + [pick(plain, taken) for _ in range(6)]
    hand1 = [wdc] + [pick(plain, taken) for _ in range(6)]
    rest = [cid for cid in deck if cid not in taken]
    order = [(hand0, hand1)[k % 2][k // 2] for k in range(14)] + [top] + rest
    a = await server.connect(room, host["token"])
    b = await server.connect(room, guest["token"])
    clients = [a, b]
    reply = await a.act("settings", settings={"dealer": 1, "deck_order": order})
    assert reply["type"] == "ack", reply
    reply = await a.act("start")
    await sync(clients, reply["version"])
    reply = await a.act("play", card=flip)
    assert reply["type"] == "ack", reply
    await sync(clients, reply["version"])
    view = b.view
    assert view is not None and view["state"]["side"] == "dark"
    assert view["state"]["top"]["id"] == top  # the pile turned over: the first card on top
    dark_color = deck[top]["dark"]["color"]
    assert view["state"]["color"] == dark_color and view["state"]["turn"] == 1
    held = [c for c in view["you"]["hand"] if c["id"] != wdc]
    guilty = any(c["color"] == dark_color for c in held)
    named = next(c for c in ("pink", "teal", "orange", "purple") if c != dark_color)
    reply = await b.act("play", card=wdc, color=named)
    assert reply["type"] == "ack", reply
    await sync(clients, reply["version"])
    assert a.view is not None and a.view["state"]["phase"] == "challenge"
    mark = a.version
    reply = await a.act("challenge")
    assert reply["type"] == "ack", reply
    await sync(clients, reply["version"])
    resolved = a.events_after(mark)[0]
    assert resolved["guilty"] is guilty
    drawer = b if guilty else a
    drawn = [e for e in drawer.events_after(mark) if e["kind"] == "card_drawn"]
    cards = [c for e in drawn for c in e["cards"]]
    colors = [c["color"] for c in cards]
    assert named in colors
    first = colors.index(named)
    # until the named color (wilds do not count), plus 2 for an innocent challenger
    assert len(cards) == first + 1 + (0 if guilty else 2)
    # guilty: the challenger plays on; innocent: it loses the turn (back to seat 1)
    assert a.view["state"]["turn"] == (0 if guilty else 1)


RUN = ["red skip", "blue skip", "green skip", "yellow skip", "yellow reverse", "green reverse"]


@pytest.mark.parametrize("scoring", ["winner_collects", "lowest_wins", "none"])
async def test_scoring_modes_and_the_match_end(server: Harness, scoring: str) -> None:
    """RULES 15-16 through the wire: two players, Skips and Reverses keep the turn; seat 0
    empties its hand; points per scoring mode; at `target_score` the match ends."""
    (a, b), ids, _ = await rig(
        server,
        [[*RUN, "green 5"], ["wild", "wild_draw4"]],
        "red 5",
        {"scoring": scoring, "target_score": 50},
    )
    clients = [a, b]
    for k, cid in enumerate(ids[0]):
        reply = await a.act("play", card=cid, uno=k == 5)
        assert reply["type"] == "ack", reply
        await sync(clients, reply["version"])
    ended = b.seen("round_ended")[-1]
    held = sum(c["value"] if c["kind"] == "number" else 50 for c in ended["hands"][1])
    assert held >= 100
    expected = {
        "winner_collects": [held, 0],
        "lowest_wins": [0, held],
        "none": [0, 0],
    }[scoring]
    assert ended["winner"] == 0 and ended["points"] == expected
    assert b.seen("match_ended")[-1]["winner"] == 0
    assert b.view is not None and b.view["status"] == "match_over"
    reply = await a.act("start")  # a new match with the same seats: the scores start over
    assert reply["type"] == "ack", reply
    await sync(clients, reply["version"])
    assert b.view["status"] == "playing" and [s["score"] for s in b.view["seats"]] == [0, 0]


async def test_customizable_discard_color_and_swap_hands_through_play(server: Harness) -> None:
    """RULES 11 through `play` (`color`, `target`): Discard Color puts every card of the
    named color under the wild; Swap Hands trades with the chosen seat."""
    settings = {
        "custom_wilds": [{"effect": "discard_color", "label": "Purge"}, {"effect": "swap_hands"}]
    }
    (a, b, c), _, _ = await rig(
        server,
        [["wild_custom", "blue 1", "blue 2", "wild_custom"], ["red 9"], ["green 9"]],
        "red 5",
        settings,
    )
    clients = [a, b, c]
    assert a.view is not None
    customs = {
        card["effect"]: card["id"]
        for card in a.view["you"]["hand"]
        if card["kind"] == "wild_custom"
    }
    assert set(customs) == {"discard_color", "swap_hands"}
    reply = await a.act("play", card=customs["discard_color"], color="blue")
    assert reply["type"] == "ack", reply
    await sync(clients, reply["version"])
    discarded = b.seen("cards_discarded")[-1]
    assert discarded["seat"] == 0 and sorted(c["value"] for c in discarded["cards"]) == [1, 2]
    assert b.view is not None and b.view["seats"][0]["hand_count"] == 7 - 3
    assert b.view["state"]["top"]["effect"] == "discard_color"
    assert b.view["state"]["turn"] == 1
    reply = await b.act("draw")
    await sync(clients, reply["version"])
    if b.view["you"]["moves"]["pass"]:
        reply = await b.act("pass")
        await sync(clients, reply["version"])
    reply = await c.act("draw")
    await sync(clients, reply["version"])
    assert c.view is not None
    if c.view["you"]["moves"]["pass"]:
        reply = await c.act("pass")
        await sync(clients, reply["version"])
    assert a.view["state"]["turn"] == 0
    mine = {card["id"] for card in a.view["you"]["hand"]} - {customs["swap_hands"]}
    theirs = {card["id"] for card in c.view["you"]["hand"]}
    reply = await a.act("play", card=customs["swap_hands"], color="red", target=2)
    assert reply["type"] == "ack", reply
    await sync(clients, reply["version"])
    assert {card["id"] for card in a.view["you"]["hand"]} == theirs
    assert {card["id"] for card in c.view["you"]["hand"]} == mine
