"""PROTOCOL v2, section 3: one `events` frame per commit and recipient, and no view of a
half-applied move. For every move kind that makes several events, the acting client gets
exactly one `events` frame for its command and then the ack; the frame holds every event
of the commit in order with contiguous versions; every other member (players and a
spectator) gets one frame with the same versions; and each view is the table after the
commit, as the server's own state says, never a state between two of its events."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pytest
from e2e.harness import (
    Client,
    Harness,
    card_ids,
    deal_order,
    kinds,
    running_server,
    server_settings,
    spec,
)

from app import engine
from blackbox.test_contract import QUIET, check_view

pytestmark = pytest.mark.timeout(60)

BLUE = [f"blue {n}" for n in range(1, 8)]
GREEN = [f"green {n}" for n in range(1, 8)]
YELLOW = [f"yellow {n}" for n in range(1, 8)]


@dataclass
class Table:
    server: Harness
    room: str
    players: list[Client]
    watcher: Client
    tokens: list[str]
    ids: list[list[int]]  # each seat's dealt hand, in the order given
    order: list[int]
    faces: dict[int, dict[str, Any]]  # card id → its listing (Flip: both faces)

    @property
    def members(self) -> list[Client]:
        return [*self.players, self.watcher]


async def table(
    server: Harness,
    hands: list[list[str]],
    top: str = "red 9",
    draws: tuple[str, ...] = (),
    **settings: Any,
) -> Table:
    """Seats 0..n-1 dealt exactly `hands` (7 cards each, named in full so that no padding
    card can match by accident), `top` first, then `draws` on top of the draw pile; seat 0
    plays first (the dealer is the last seat); a spectator watches."""
    assert all(len(hand) == 7 for hand in hands)
    created = await server.create_room("P0", {**QUIET, **settings})
    room = created["room"]
    tokens = [created["token"]]
    tokens += [(await server.join(room, f"P{k}"))["token"] for k in range(1, len(hands))]
    listing = (await server.http.get(f"/api/rooms/{room}/deck")).json()["cards"]
    flip = "light" in listing[0]
    deck = [{"id": c["id"], **c["light"]} for c in listing] if flip else listing
    dealer = len(hands) - 1
    order, ids, _ = deal_order(deck, hands, top, dealer)
    dealt = 7 * len(hands) + 1
    by_id = {c["id"]: c for c in deck}
    tail = order[dealt:]
    for text in reversed(draws):
        cid = next(
            i
            for i in tail
            if (by_id[i]["color"], by_id[i]["kind"], by_id[i]["value"]) == spec(text)
        )
        tail.remove(cid)
        tail.insert(0, cid)
    order = order[:dealt] + tail
    players = [await server.connect(room, t) for t in tokens]
    watcher = await server.connect(room, await server.spectate(room))
    hooks = {"dealer": dealer, "deck_order": order}
    assert (await players[0].act("settings", settings=hooks))["type"] == "ack"
    assert (await players[0].act("start"))["type"] == "ack"
    faces = {c["id"]: c for c in listing}
    t = Table(server, room, players, watcher, tokens, ids, order, faces)
    await catch_up(t)
    assert players[0].view is not None and players[0].view["state"]["turn"] == 0
    return t


async def catch_up(t: Table) -> int:
    """Every member has read up to the room's current version; that version."""
    version = await t.server.version(t.room)
    for client in t.members:
        await client.catch_up(version)
    return version


@dataclass
class Commit:
    frames: dict[int | None, dict[str, Any]]  # seat (None: the spectator) → its frame
    reply: dict[str, Any]

    def events(self, seat: int | None) -> list[dict[str, Any]]:
        events: list[dict[str, Any]] = self.frames[seat]["events"]
        return events

    def view(self, seat: int | None) -> dict[str, Any]:
        view: dict[str, Any] = self.frames[seat]["view"]
        return view

    @property
    def kinds(self) -> list[str]:
        return kinds(self.frames[None])


async def one_commit(
    t: Table, actor: Client, type_: str, answer: str = "ack", **fields: Any
) -> Commit:
    """`actor` sends one command; check the frames it and every other member get for it."""
    before = await catch_up(t)
    marks = [len(c.frames) for c in t.members]
    reply = await actor.act(type_, **fields)
    assert reply["type"] == answer, reply
    after = reply["version"] if answer == "ack" else await t.server.version(t.room)
    got = actor.frames[marks[t.members.index(actor)] :]
    # Exactly one `events` frame for the command, then its answer.
    assert [f["type"] for f in got] == ["events", answer], [f["type"] for f in got]
    mine = got[0]
    versions = [e["version"] for e in mine["events"]]
    assert versions == list(range(before + 1, after + 1)), (before, versions, after)
    assert mine["version"] == after == mine["view"]["version"]
    return await _everyone_else(t, actor, marks, mine, reply)


async def _everyone_else(
    t: Table,
    actor: Client | None,
    marks: list[int],
    mine: dict[str, Any],
    reply: dict[str, Any],
) -> Commit:
    """Every member but `actor` got the commit of `mine` as one frame of its own, with the
    same versions and kinds; every view is the server's state after the commit."""
    after = mine["version"]
    versions = [e["version"] for e in mine["events"]]
    frames: dict[int | None, dict[str, Any]] = {}
    if actor is not None:
        frames[actor.seat] = mine
    for client, mark in zip(t.members, marks, strict=True):
        if client is actor:
            continue
        await client.catch_up(after)
        theirs = client.frames[mark:]
        assert [f["type"] for f in theirs] == ["events"], [f["type"] for f in theirs]
        assert [e["version"] for e in theirs[0]["events"]] == versions
        assert kinds(theirs[0]) == kinds(mine)
        frames[client.seat] = theirs[0]
    state = await t.server.service.store.state_at(t.room, after)
    assert state is not None
    for seat, frame in frames.items():
        check_view(frame["view"], seat)
        assert_view_of(frame["view"], state, seat)
    return Commit(frames, reply)


async def timer_commit(t: Table, timeout: float) -> Commit:
    """The next commit, made by a timer: one frame to every member."""
    await catch_up(t)
    marks = [len(c.frames) for c in t.members]
    first = await t.watcher.until(lambda f: f["type"] == "events", timeout)
    return await _everyone_else(t, None, marks, first, {})


def assert_view_of(view: dict[str, Any], state: Any, seat: int | None) -> None:
    """The view is the server's state after the commit as `seat` may see it (the clock
    aside): not a state in between, nor one missing part of the commit."""
    expected = json.loads(json.dumps(engine.view(state, seat, view["server_time"])))
    expected.pop("log", None)
    assert view == expected


def hand(view: dict[str, Any]) -> list[int]:
    return [c["id"] for c in view["you"]["hand"]]


def moves(view: dict[str, Any]) -> dict[str, Any]:
    m: dict[str, Any] = view["you"]["moves"]
    return m


# --- one command, one frame ------------------------------------------------------------------


async def test_a_drawn_card_then_played(server: Harness) -> None:
    t = await table(server, [YELLOW, BLUE, GREEN], draws=("red 3",))
    p0 = t.players[0]
    drew = await one_commit(t, p0, "draw")
    assert drew.kinds == ["card_drawn"]
    red3 = drew.events(0)[0]["cards"][0]["id"]
    assert t.faces[red3]["color"] == "red" and t.faces[red3]["value"] == 3
    view = drew.view(0)
    assert view["state"]["phase"] == "after_draw" and view["state"]["turn"] == 0
    assert moves(view)["pass"] is True and [o["card"] for o in moves(view)["play"]] == [red3]

    played = await one_commit(t, p0, "play", card=red3)
    assert played.kinds[0] == "card_played" and played.events(1)[0]["card"]["id"] == red3
    for seat in (0, 1, 2, None):
        state = played.view(seat)["state"]
        assert state["phase"] == "play" and state["turn"] == 1
        assert state["top"]["id"] == red3
        assert played.view(seat)["seats"][0]["hand_count"] == 7
    mine = played.view(0)
    assert moves(mine)["pass"] is False and moves(mine)["draw"] is False
    assert moves(mine)["play"] == [] and red3 not in hand(mine)
    assert moves(played.view(1))["draw"] is True


async def test_draw_two(server: Harness) -> None:
    t = await table(server, [["red draw2", *YELLOW[:6]], BLUE, GREEN])
    played = await one_commit(t, t.players[0], "play", card=t.ids[0][0])
    assert played.kinds == ["card_played", "card_drawn", "turn_skipped"]
    _, drawn, skipped = played.events(1)
    assert drawn["seat"] == 1 and drawn["count"] == 2 and skipped["seat"] == 1
    got = {c["id"] for c in drawn["cards"]}
    assert len(got) == 2 and got <= set(hand(played.view(1)))
    for seat in (0, 2, None):  # the drawn cards reach their drawer alone
        assert not (got & card_ids(played.events(seat)))
    for seat in (0, 1, 2, None):
        view = played.view(seat)
        assert view["state"]["turn"] == 2 and view["state"]["phase"] == "play"
        assert view["state"]["pending_draw"] == 0
        assert [s["hand_count"] for s in view["seats"]] == [6, 9, 7]
    assert moves(played.view(1))["draw"] is False and moves(played.view(2))["draw"] is True


async def test_reverse(server: Harness) -> None:
    t = await table(server, [["red reverse", *YELLOW[:6]], BLUE, GREEN])
    played = await one_commit(t, t.players[0], "play", card=t.ids[0][0])
    assert played.kinds == ["card_played", "direction_changed"]
    assert played.events(None)[1]["direction"] == -1
    for seat in (0, 1, 2, None):
        state = played.view(seat)["state"]
        assert state["direction"] == -1 and state["turn"] == 2 and state["phase"] == "play"
    assert moves(played.view(2))["draw"] is True and moves(played.view(1))["draw"] is False


async def test_skip(server: Harness) -> None:
    t = await table(server, [["red skip", *YELLOW[:6]], BLUE, GREEN])
    played = await one_commit(t, t.players[0], "play", card=t.ids[0][0])
    assert played.kinds == ["card_played", "turn_skipped"]
    assert played.events(None)[1]["seat"] == 1
    for seat in (0, 1, 2, None):
        state = played.view(seat)["state"]
        assert state["turn"] == 2 and state["direction"] == 1 and state["phase"] == "play"


async def test_a_wild_with_its_color(server: Harness) -> None:
    t = await table(server, [["wild", *YELLOW[:6]], BLUE, GREEN])
    played = await one_commit(t, t.players[0], "play", card=t.ids[0][0], color="green")
    assert played.kinds[0] == "card_played"
    assert "color_chosen" not in played.kinds or played.kinds[-1] == "color_chosen"
    event = played.events(1)[0]
    assert event["card"]["id"] == t.ids[0][0] and event["color"] == "green"
    for seat in (0, 1, 2, None):
        state = played.view(seat)["state"]
        assert state["color"] == "green" and state["top"]["id"] == t.ids[0][0]
        assert state["turn"] == 1 and state["phase"] == "play"
    assert moves(played.view(0))["choose"] is None


async def test_wild_draw_four_accepted(server: Harness) -> None:
    t = await table(server, [["wild_draw4", *YELLOW[:6]], BLUE, GREEN])
    p0, p1, _ = t.players
    played = await one_commit(t, p0, "play", card=t.ids[0][0], color="blue")
    assert played.kinds == ["card_played", "challenge_opened"]
    for seat in (0, 1, 2, None):
        state = played.view(seat)["state"]
        assert state["phase"] == "challenge" and state["turn"] == 1 and state["color"] == "blue"
    assert moves(played.view(1))["challenge"] is True and moves(played.view(1))["accept"]
    accepted = await one_commit(t, p1, "accept")
    assert accepted.kinds == ["card_drawn", "turn_skipped"]
    drawn = accepted.events(1)[0]
    assert drawn["seat"] == 1 and drawn["count"] == 4
    assert {c["id"] for c in drawn["cards"]} <= set(hand(accepted.view(1)))
    for seat in (0, 1, 2, None):
        view = accepted.view(seat)
        assert view["state"]["phase"] == "play" and view["state"]["turn"] == 2
        assert [s["hand_count"] for s in view["seats"]] == [6, 11, 7]
    assert moves(accepted.view(1))["challenge"] is False


@pytest.mark.parametrize("guilty", [True, False])
async def test_wild_draw_four_challenged(server: Harness, guilty: bool) -> None:
    # Seat 0 holding a red card (the color in play) makes its Wild Draw Four an illegal one.
    rest = ["red 5", *YELLOW[:5]] if guilty else YELLOW[:6]
    t = await table(server, [["wild_draw4", *rest], BLUE, GREEN])
    p0, p1, _ = t.players
    await one_commit(t, p0, "play", card=t.ids[0][0], color="blue")
    challenged = await one_commit(t, p1, "challenge")
    resolved = challenged.events(1)[0]
    assert resolved["kind"] == "challenge_resolved" and resolved["guilty"] is guilty
    offender_hand = set(t.ids[0][1:])
    assert {c["id"] for c in resolved["hand"]} == offender_hand  # to the challenger
    for seat in (0, 2, None):
        assert not (offender_hand & card_ids(challenged.events(seat)[0]))
    if guilty:  # the offender draws four; the challenger plays on, on blue
        assert challenged.kinds == ["challenge_resolved", "card_drawn"]
        assert challenged.events(None)[1]["seat"] == 0
        counts, turn = [10, 7, 7], 1
    else:  # the challenger draws six and loses the turn
        assert challenged.kinds == ["challenge_resolved", "card_drawn", "turn_skipped"]
        assert challenged.events(None)[1]["seat"] == 1
        counts, turn = [6, 13, 7], 2
    assert challenged.events(None)[1]["count"] == (4 if guilty else 6)
    for seat in (0, 1, 2, None):
        view = challenged.view(seat)
        assert view["state"]["phase"] == "play" and view["state"]["turn"] == turn
        assert view["state"]["color"] == "blue"
        assert [s["hand_count"] for s in view["seats"]] == counts


async def test_a_flip_card(server: Harness) -> None:
    t = await table(server, [["red flip", *YELLOW[:6]], BLUE, GREEN], variant="flip")
    flip = t.ids[0][0]
    played = await one_commit(t, t.players[0], "play", card=flip)
    assert played.kinds == ["card_played", "side_flipped"]
    flipped = played.events(None)[1]
    # The pile turns over too: its top is the dark face of the flip card or, when the whole
    # pile turns (flip_discard), of the first card under it.
    top = flipped["top"]["id"]
    assert flipped["side"] == "dark" and top in (flip, t.order[21])
    dark = t.faces[top]["dark"]
    for seat in (0, 1, 2, None):
        view = played.view(seat)
        state = view["state"]
        assert state["side"] == "dark" and state["turn"] == 1
        assert state["top"]["id"] == top and state["top"]["face"]["kind"] == dark["kind"]
        assert state["phase"] == ("choose" if dark["color"] is None else "play")
        if seat is not None:  # each player holds the dark faces of its cards now
            for card in view["you"]["hand"]:
                listed = t.faces[card["id"]]["dark"]
                assert {k: card["face"].get(k) for k in listed} == listed
        # ...and sees the light faces on the backs of the others' hands.
        for info in view["seats"]:
            if info["seat"] != seat:
                assert len(info["backs"]) == info["hand_count"]
                light = ("red", "yellow", "green", "blue", None)
                assert all(back["color"] in light for back in info["backs"])


async def test_wild_shuffle_hands(server: Harness) -> None:
    t = await table(server, [["wild_shuffle", *YELLOW[:6]], BLUE, GREEN], deck="gdj85")
    played = await one_commit(t, t.players[0], "play", card=t.ids[0][0], color="blue")
    assert played.kinds == ["card_played", "hands_shuffled"]
    counts = played.events(None)[1]["counts"]
    assert sorted(counts) == [6, 7, 7] and sum(counts) == 20
    assert "hand" not in played.events(None)[1]
    everyone = set(t.ids[0][1:]) | set(t.ids[1]) | set(t.ids[2])
    new_hands = []
    for seat in (0, 1, 2):
        shuffled = played.events(seat)[1]
        mine = [c["id"] for c in shuffled["hand"]]
        view = played.view(seat)
        assert sorted(mine) == sorted(hand(view))  # the view shows the new hand
        assert len(mine) == counts[seat] == view["seats"][seat]["hand_count"]
        new_hands.append(set(mine))
    assert set().union(*new_hands) == everyone
    for member in (0, 1, 2, None):
        state = played.view(member)["state"]
        assert state["turn"] == 1 and state["color"] == "blue" and state["phase"] == "play"
        assert [s["hand_count"] for s in played.view(member)["seats"]] == counts


async def test_seven_swaps_hands(server: Harness) -> None:
    t = await table(server, [["red 7", *YELLOW[:6]], BLUE, GREEN], seven_zero=True)
    option = next(o for o in moves(t.players[0].view or {})["play"] if o["card"] == t.ids[0][0])
    assert sorted(option["targets"]) == [1, 2]
    played = await one_commit(t, t.players[0], "play", card=t.ids[0][0], target=2)
    assert played.kinds == ["card_played", "hands_swapped"]
    swapped = played.events(None)[1]
    assert swapped["seat"] == 0 and swapped["target"] == 2
    assert sorted(hand(played.view(0))) == sorted(t.ids[2])
    assert sorted(hand(played.view(2))) == sorted(t.ids[0][1:])
    assert sorted(hand(played.view(1))) == sorted(t.ids[1])
    for seat in (0, 1, 2, None):
        view = played.view(seat)
        assert [s["hand_count"] for s in view["seats"]] == [7, 7, 6]
        assert view["state"]["turn"] == 1


async def test_zero_rotates_hands(server: Harness) -> None:
    t = await table(server, [["red 0", *YELLOW[:6]], BLUE, GREEN], seven_zero=True)
    played = await one_commit(t, t.players[0], "play", card=t.ids[0][0])
    assert played.kinds == ["card_played", "hands_rotated"]
    # Clockwise: every hand passes to the next seat.
    assert sorted(hand(played.view(1))) == sorted(t.ids[0][1:])
    assert sorted(hand(played.view(2))) == sorted(t.ids[1])
    assert sorted(hand(played.view(0))) == sorted(t.ids[2])
    for seat in (0, 1, 2, None):
        view = played.view(seat)
        assert [s["hand_count"] for s in view["seats"]] == [7, 6, 7]
        assert view["state"]["turn"] == 1


# --- down to one card: a catch, a round end ------------------------------------------------

DOWN = ["red 1", "red 2", "red 3", "red 4", "red 6", "red 7"]


async def play_down(t: Table, *, declare: bool) -> Commit:
    """Seat 0 plays its first six cards (seat 1 drawing, and passing when it may, between
    them), the sixth with or without declaring UNO; the commit of that sixth play."""
    p0, p1 = t.players
    played: Commit | None = None
    for k in range(6):
        fields: dict[str, Any] = {"card": t.ids[0][k]}
        if k == 5:
            fields["uno"] = declare
        played = await one_commit(t, p0, "play", **fields)
        if k == 5:
            break
        drew = await one_commit(t, p1, "draw")
        if moves(drew.view(1))["pass"]:
            await one_commit(t, p1, "pass")
    assert played is not None
    return played


async def test_a_catch(server: Harness) -> None:
    t = await table(server, [[*DOWN, "red draw2"], BLUE], uno_window_ms=30000)
    played = await play_down(t, declare=False)
    assert moves(played.view(1))["catch"] == [0]
    caught = await one_commit(t, t.players[1], "catch", seat=0)
    assert caught.kinds == ["uno_caught", "card_drawn"]
    called, drawn = caught.events(None)
    assert called["seat"] == 0 and called["by"] == 1
    assert drawn["seat"] == 0 and drawn["count"] == 2
    for seat in (0, 1, None):
        view = caught.view(seat)
        assert view["seats"][0]["hand_count"] == 3
        assert view["state"]["deadlines"]["uno"] is None
    assert moves(caught.view(1))["catch"] == []


async def test_a_round_end(server: Harness) -> None:
    t = await table(server, [[*DOWN, "red draw2"], BLUE], uno_window_ms=30000)
    declared = await play_down(t, declare=True)
    assert "uno_declared" in declared.kinds
    p0, p1 = t.players
    drew = await one_commit(t, p1, "draw")
    if moves(drew.view(1))["pass"]:
        await one_commit(t, p1, "pass")
    before = [s["hand_count"] for s in (p0.view or {})["seats"]]
    last = await one_commit(t, p0, "play", card=t.ids[0][6])
    # The last card's Draw Two still makes the next player draw (RULES 14), then the round
    # ends: one commit, one frame.
    assert last.kinds[0] == "card_played" and "round_ended" in last.kinds
    assert last.kinds.index("card_drawn") < last.kinds.index("round_ended")
    ended = next(e for e in last.events(None) if e["kind"] == "round_ended")
    assert ended["winner"] == 0 and ended["hands"][0] == []
    assert len(ended["hands"][1]) == before[1] + 2
    for seat in (0, 1, None):
        view = last.view(seat)
        assert view["status"] in ("round_over", "match_over")
        assert view["state"]["phase"] == "round_over"
        assert view["seats"][0]["hand_count"] == 0
        if seat is not None:
            assert moves(view)["play"] == [] and moves(view)["draw"] is False


# --- commits nobody's command made whole: a timer, a refused catch ----------------------------


async def test_a_challenge_timer_commit(server: Harness) -> None:
    t = await table(server, [["wild_draw4", *YELLOW[:6]], BLUE, GREEN], challenge_seconds=3)
    await one_commit(t, t.players[0], "play", card=t.ids[0][0], color="blue")
    expired = await timer_commit(t, timeout=5)
    assert expired.kinds == ["timer_expired", "card_drawn", "turn_skipped"]
    assert expired.events(None)[0]["timer"] == "challenge"
    assert expired.events(1)[1]["count"] == 4 and len(expired.events(1)[1]["cards"]) == 4
    for seat in (0, 1, 2, None):
        view = expired.view(seat)
        assert view["state"]["phase"] == "play" and view["state"]["turn"] == 2
        assert view["state"]["deadlines"]["challenge"] is None
        assert [s["hand_count"] for s in view["seats"]] == [6, 11, 7]


async def test_a_false_catch_commits_its_penalty_then_the_error(server: Harness) -> None:
    t = await table(server, [YELLOW, BLUE, GREEN], false_catch_penalty=2)
    refused = await one_commit(t, t.players[1], "catch", answer="error", seat=2)
    assert refused.reply["code"] == "not_catchable"
    assert refused.kinds == ["false_catch", "card_drawn"]
    assert refused.events(None)[0]["seat"] == 1 and refused.events(None)[0]["target"] == 2
    for seat in (0, 1, 2, None):
        view = refused.view(seat)
        assert [s["hand_count"] for s in view["seats"]] == [7, 9, 7]
        assert view["state"]["turn"] == 0


# --- resume: the missed events in `events` frames, then the welcome ---------------------------


async def test_resume_replays_whole_commits_before_the_welcome(server: Harness) -> None:
    t = await table(server, [["red draw2", "red skip", *YELLOW[:5]], BLUE, GREEN])
    p0, p1, p2 = t.players
    seen = p1.version
    await p1.close()
    await one_commit_without(t, p1, p0, "play", card=t.ids[0][0])  # draw two on seat 1
    await one_commit_without(t, p1, p2, "chat", text="where did you go?")
    current = await t.server.version(t.room)
    back = await t.server.connect(t.room, t.tokens[1], since=seen)
    *replayed, welcome = back.frames
    assert replayed and welcome["type"] == "welcome"
    assert all(f["type"] == "events" for f in replayed)
    versions = [e["version"] for f in replayed for e in f["events"]]
    assert versions == list(range(seen + 1, welcome["version"] + 1))
    # (The reconnection itself may be committed before the replay is read: `connected`.)
    assert [e["kind"] for f in replayed for e in f["events"]][current - seen :] in (
        [],
        ["connected"],
    )
    replayed_kinds = [e["kind"] for f in replayed for e in f["events"]]
    assert replayed_kinds[:1] == ["disconnected"]
    start = replayed_kinds.index("card_played")
    assert replayed_kinds[start : start + 3] == ["card_played", "card_drawn", "turn_skipped"]
    assert "chat" in replayed_kinds[-2:]
    # Redacted for the recipient: seat 1 sees the two cards it drew.
    drawn = next(e for f in replayed for e in f["events"] if e["kind"] == "card_drawn")
    assert len(drawn["cards"]) == 2
    assert {c["id"] for c in drawn["cards"]} <= set(hand(welcome["view"]))
    # Views: none in the replay carries the log; the welcome's does, and it ends with the
    # public events just replayed.
    for frame in replayed:
        assert "log" not in frame["view"] and frame["view"]["version"] == frame["version"]
        check_view(frame["view"], 1)
    assert welcome["version"] == replayed[-1]["version"] >= current
    check_view(welcome["view"], 1, welcome=True)
    log = welcome["view"]["log"]
    assert [e["version"] for e in log][-len(versions) :] == versions
    assert [e["kind"] for e in log][-len(versions) :] == replayed_kinds
    state = await t.server.service.store.state_at(t.room, welcome["version"])
    assert_view_of(replayed[-1]["view"], state, 1)


async def one_commit_without(
    t: Table, absent: Client, actor: Client, type_: str, **fields: Any
) -> None:
    """A command while `absent` is away (its socket closed)."""
    here = Table(**{**vars(t), "players": [p for p in t.players if p is not absent]})
    await one_commit(here, actor, type_, **fields)


async def test_a_since_too_far_back_gets_the_welcome_alone() -> None:
    async with running_server(server_settings(history_limit=4)) as harness:
        created = await harness.create_room("H", QUIET)
        room = created["room"]
        host = await harness.connect(room, created["token"])
        seen = host.version
        for k in range(8):
            assert (await host.act("chat", text=f"m{k}"))["type"] == "ack"
        back = await harness.connect(room, created["token"], since=seen)
        assert [f["type"] for f in back.frames] == ["welcome"]
        welcome = back.frames[0]
        assert welcome["version"] == await harness.version(room) == seen + 8
        check_view(welcome["view"], 0, welcome=True)
        # The log tells what was missed, as far as the server still holds it.
        chats = [e["text"] for e in welcome["view"]["log"] if e["kind"] == "chat"]
        assert chats == [f"m{k}" for k in range(8 - len(chats), 8)]
        assert harness.auditor.problems == []
