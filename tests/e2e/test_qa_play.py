"""Rules through the real server, as a client sees them (QA play-through): each test is a
case where the wire once differed from RULES.md."""

from __future__ import annotations

from e2e.harness import Harness
from e2e.qa_rig import card_of, rig, sync


async def test_a_refused_command_of_an_away_player_still_hands_the_seat_back(
    server: Harness,
) -> None:
    """RULES 29: a bot plays the seat "until the player sends any command": a command the
    rules refuse (here a draw out of turn) is still the player's, back at the table."""
    (a, b), _, _ = await rig(
        server,
        [["blue 1"], ["blue 2", "green 2"]],
        "red 5",
        {"turn_seconds": 5, "afk_timeouts": 1},
    )
    dealt = a.version  # seat 0's turn then: a draw decided on it is legal there
    took = await b.event("bot_took_over", timeout=7)
    assert took["seat"] == 0
    assert b.view is not None and b.view["state"]["turn"] == 1
    await a.catch_up(b.version)
    # seat 1's turn now: refused, and as `at` is older and was legal then, `stale`
    refused = await a.act("draw", id="away-draw", at=dealt)
    assert refused["type"] == "error" and refused["code"] == "stale"
    returned = await b.event("player_returned", timeout=2)
    assert returned["seat"] == 0 and returned.view["seats"][0]["afk"] is False
    # The refused command changed nothing else: still seat 1's turn, hands as they were.
    assert returned.view["state"]["turn"] == 1
    # Resent with the same id: the same refusal (not a false catch's), nothing new.
    again = await a.act("draw", id="away-draw", at=dealt)
    assert again["type"] == "error" and again["code"] == "stale"
    # Decided on the current version: the plain refusal.
    await a.catch_up(returned["version"])
    plain = await a.act("draw", at=a.version)
    assert plain["type"] == "error" and plain["code"] == "not_your_turn"
    assert await b.quiet(0.3) == []


async def test_a_penalty_reshuffles_mid_draw_and_stops_when_no_card_is_left(
    server: Harness,
) -> None:
    """RULES 12 through the wire: the victim of a Wild Draw Four with two cards left in the
    pile draws them, the discard pile but its top is shuffled in (`deck_reshuffled`), and the
    draw stops short when nothing is left."""
    (a, b), ids, _ = await rig(server, [["wild_draw4"], []], "red 5")
    clients = [a, b]
    while True:  # draw (and keep) until the pile holds two cards, on seat 0's turn
        assert a.view is not None
        state = a.view["state"]
        if state["draw_count"] <= 2 and state["turn"] == 0:
            break
        mover = clients[state["turn"]]
        await mover.catch_up(a.version)
        reply = await mover.act("draw")
        assert reply["type"] == "ack", reply
        await sync(clients, reply["version"])
        assert mover.view is not None
        if mover.view["you"]["moves"]["pass"]:
            reply = await mover.act("pass")
            await sync(clients, reply["version"])
    assert a.view["state"]["draw_count"] == 2 and a.view["state"]["discard_count"] == 1
    before = b.view["seats"][1]["hand_count"] if b.view else 0
    reply = await a.act("play", card=ids[0][0], color="blue")
    await sync(clients, reply["version"])
    mark = b.version
    reply = await b.act("accept")
    assert reply["type"] == "ack"
    await sync(clients, reply["version"])
    # A known count the pile cannot cover reshuffles first (docs/rules.md R12): the first
    # card, under the Wild Draw Four, is the one card shuffled in.
    assert b.kinds_after(mark) == ["deck_reshuffled", "card_drawn", "turn_skipped"]
    assert b.events_after(mark)[0]["count"] == 1
    drawn = b.events_after(mark)[1]
    assert drawn["count"] == 3 and len(drawn["cards"]) == 3  # short of four: nothing left
    view = b.view
    assert view is not None
    assert view["seats"][1]["hand_count"] == before + 3
    assert view["state"]["draw_count"] == 0 and view["state"]["discard_count"] == 1
    assert view["state"]["color"] == "blue" and view["state"]["turn"] == 0


async def test_flip_draw_ones_stack_and_a_jump_in_adds_to_the_stack(server: Harness) -> None:
    """RULES 9 + 28 in Flip: `stack_draw2` lets a Draw One answer a Draw One; an identical
    Draw One jumped in out of turn adds to the pending total and the seat after the jumper
    is the new victim."""
    (a, b, c), _, _ = await rig(
        server,
        [["red draw1", "blue 3"], ["green draw1"], ["red draw1"]],
        "red 5",
        {"variant": "flip", "stack_draw2": True, "jump_in": True},
    )
    clients = [a, b, c]
    reply = await a.act("play", card=card_of(a, "red draw1"))
    await sync(clients, reply["version"])
    assert b.view is not None and b.view["state"]["phase"] == "penalty"
    assert b.view["state"]["pending_draw"] == 1
    assert c.view is not None
    jump = card_of(c, "red draw1")
    assert jump in [p["card"] for p in c.view["you"]["moves"]["play"]]
    reply = await c.act("play", card=jump)
    assert reply["type"] == "ack", reply
    await sync(clients, reply["version"])
    played = c.seen("card_played")[-1]
    assert played["seat"] == 2 and played.get("jump_in") is True
    view = a.view
    assert view is not None
    assert view["state"]["phase"] == "penalty" and view["state"]["turn"] == 0
    assert view["state"]["pending_draw"] == 2
    mark = a.version
    reply = await a.act("draw")
    await sync(clients, reply["version"])
    assert a.kinds_after(mark) == ["card_drawn", "turn_skipped"]
    assert a.events_after(mark)[0]["count"] == 2
    assert a.view is not None and a.view["state"]["turn"] == 1


async def test_a_jump_in_closes_the_uno_window_and_a_late_declaration_still_counts(
    server: Harness,
) -> None:
    """RULES 13 + 28 through the wire: seat 0 plays down to one card without declaring
    (exposed: seat 1 may catch); seat 2 jumps in before seat 1 acts, which closes the window,
    so seat 1's catch is refused (`not_catchable`); seat 0's late `uno` still counts."""
    run = ["red 1", "red 2", "red 3", "red 4", "red 5", "red 6"]
    (a, b, c), _, _ = await rig(
        server, [[*run, "blue 9"], [], ["red 6"]], "red 0", {"jump_in": True}
    )
    clients = [a, b, c]
    for k, text in enumerate(run):
        reply = await a.act("play", card=card_of(a, text))
        assert reply["type"] == "ack", reply
        await sync(clients, reply["version"])
        if k == len(run) - 1:
            break
        for mover in (b, c):  # draw and keep: the top stays seat 0's card
            reply = await mover.act("draw")
            assert reply["type"] == "ack", reply
            await sync(clients, reply["version"])
            assert mover.view is not None
            if mover.view["you"]["moves"]["pass"]:
                reply = await mover.act("pass")
                await sync(clients, reply["version"])
    assert b.view is not None and b.view["state"]["turn"] == 1
    assert b.view["seats"][0]["hand_count"] == 1 and b.view["you"]["moves"]["catch"] == [0]
    assert b.view["state"]["deadlines"]["uno"]["seat"] == 0
    assert c.view is not None
    reply = await c.act("play", card=card_of(c, "red 6"))  # identical: a jump-in
    assert reply["type"] == "ack", reply
    await sync(clients, reply["version"])
    assert b.view["you"]["moves"]["catch"] == []
    assert b.view["state"]["deadlines"]["uno"] is None
    refused = await b.act("catch", seat=0)
    assert refused["type"] == "error" and refused["code"] == "not_catchable"
    assert (await a.act("uno"))["type"] == "ack"
    await sync(clients, a.version)
    assert b.view["seats"][0]["uno"] is True and b.view["seats"][0]["hand_count"] == 1
