"""Rule 16: classic scoring: `winner_collects`, `lowest_wins`, `none`, `target_score`."""

from __future__ import annotations

from app.engine.actions import Leave, SetConnected, Start, Watching

from .helpers import Table, quick_win_table, win_quickly

# 9 + 5 + 20 + 20 + 20 + 50 + 50 = 174, plus the blue 9 seat 1 draws on the way: 183
OTHER = ["red 9", "blue 5", "red skip", "blue reverse", "red draw2", "wild", "wild_draw4"]
OTHER_POINTS = 174 + 9


def test_winner_collects_scores_the_other_hands() -> None:
    t = quick_win_table(OTHER)
    win_quickly(t)
    ended = t.find("round_ended")
    assert ended.public["winner"] == 0
    assert ended.public["points"] == [OTHER_POINTS, 0]
    # Extension: what each hand is worth (the winner's is empty), for the round summary.
    assert ended.public["hand_points"] == [0, OTHER_POINTS]
    assert ended.public["scores"] == [OTHER_POINTS, 0]
    assert t.scores() == [OTHER_POINTS, 0]
    assert t.status == "round_over"
    assert "match_ended" not in t.kinds()


def test_shuffle_hands_and_customizable_count_fifty() -> None:
    other = ["wild_shuffle", "wild_custom", "red 1", "red 2", "red 3", "red 5", "red 6"]
    t = quick_win_table(other, custom_wilds=[{"effect": "reverse"}])
    win_quickly(t)
    ended = t.find("round_ended").public
    assert ended["points"] == [50 + 50 + 1 + 2 + 3 + 5 + 6 + 9, 0]
    assert ended["hand_points"] == [0, 50 + 50 + 1 + 2 + 3 + 5 + 6 + 9]


def test_reaching_the_target_ends_the_match() -> None:
    t = quick_win_table(OTHER, target_score=150)
    win_quickly(t)
    ended = t.find("match_ended")
    assert ended.public["winner"] == 0
    assert ended.public["scores"] == [OTHER_POINTS, 0]
    assert t.status == "match_over"


def test_lowest_wins_each_adds_own_hand() -> None:
    t = quick_win_table(OTHER, scoring="lowest_wins")
    win_quickly(t)
    ended = t.find("round_ended")
    assert ended.public["points"] == [0, OTHER_POINTS]
    assert ended.public["hand_points"] == [0, OTHER_POINTS]
    assert ended.public["scores"] == [0, OTHER_POINTS]
    assert t.status == "round_over"


def test_lowest_wins_at_the_target_the_lowest_total_wins() -> None:
    t = quick_win_table(OTHER, scoring="lowest_wins", target_score=100)
    win_quickly(t)
    ended = t.find("match_ended")
    assert ended.public["winner"] == 0
    assert t.status == "match_over"


def test_scoring_none_every_round_is_a_match() -> None:
    t = quick_win_table(OTHER, scoring="none")
    win_quickly(t)
    assert t.find("round_ended").public["points"] == [0, 0]
    assert t.find("round_ended").public["hand_points"] == [0, OTHER_POINTS]  # still shown
    assert t.find("match_ended").public["winner"] == 0
    assert t.status == "match_over"
    assert t.scores() == [0, 0]


def test_next_round_keeps_the_scores_and_a_new_match_resets_them() -> None:
    t = quick_win_table(OTHER)
    win_quickly(t)
    t.act(0, Start())
    assert t.status == "playing"
    assert t.scores() == [OTHER_POINTS, 0]
    assert t.counts() == [7, 7]
    t2 = quick_win_table(OTHER, target_score=100)
    win_quickly(t2)
    match = t2.view(None)["match_id"]
    t2.act(0, Start())
    assert t2.status == "playing"
    assert t2.scores() == [0, 0]
    assert t2.view(None)["match_id"] != match


def test_next_round_comes_by_itself_after_next_round_seconds() -> None:
    t = quick_win_table(OTHER, next_round_seconds=5)
    win_quickly(t)
    d = t.deadline("next_round")
    assert d.at == t.now + 5000
    t.timeout("next_round")
    assert t.status == "playing"
    assert t.view(None)["round"] == 2


def test_next_round_seconds_zero_waits_for_the_host() -> None:
    t = quick_win_table(OTHER, next_round_seconds=0)
    win_quickly(t)
    assert not t.has_deadline("next_round")
    t.refuse(1, Start(), "not_host")


def test_lowest_wins_tie_at_the_target_plays_one_more_round() -> None:
    """Seat 0 goes out; seat 2 keeps only a 0 (0 points): 0 and 0 tie for the lowest."""
    reds0 = ["red 1", "red 2", "red 4", "red 5", "red 6", "red 7", "red 8"]
    reds2 = ["red 1", "red 2", "red 4", "red 5", "red 6", "red 7"]
    hands = {0: reds0, 1: ["wild", "wild"], 2: [*reds2, "blue 0"]}
    t = Table(3, hands=hands, first="red 3", scoring="lowest_wins", target_score=50)
    for k in range(6):
        t.play(0, reds0[k], uno=k == 5)
        t.draw(1)
        if t.phase == "after_draw":
            t.pass_(1)
        t.play(2, reds2[k], uno=k == 5)
    events = t.play(0, reds0[6])
    ended = t.find("round_ended", events).public
    assert ended["points"][0] == ended["points"][2] == 0
    assert ended["points"][1] >= 100
    assert "match_ended" not in t.kinds(events)  # the lowest total is tied: one more round
    assert t.status == "round_over"
    t.act(0, Start())
    assert t.status == "playing" and t.view(None)["round"] == 2


def test_scoring_none_next_match_comes_by_itself() -> None:
    t = quick_win_table(OTHER, scoring="none", next_round_seconds=5)
    t.sys(SetConnected(1, True))
    win_quickly(t)
    match = t.view(None)["match_id"]
    assert t.deadline("next_round").at == t.now + 5000
    t.timeout("next_round")
    assert t.status == "playing"
    assert t.view(None)["match_id"] != match
    assert t.view(None)["round"] == 1


def test_a_won_match_waits_for_the_host() -> None:
    t = quick_win_table(OTHER, target_score=50)
    win_quickly(t)
    assert t.status == "match_over"
    assert not t.has_deadline("next_round")


def test_scoring_none_deals_no_next_match_while_nobody_is_there() -> None:
    """Matches without end are dealt only for someone: a table whose people all left (their
    seats played by bots) or closed their sockets would otherwise play and record matches
    for nobody, for ever. A player who comes back, or a spectator, sets the wait again."""
    t = quick_win_table(OTHER, scoring="none", next_round_seconds=5)
    t.sys(SetConnected(0, True))
    t.sys(SetConnected(1, True))
    t.act(1, Leave())  # seat 1 is a bot's from now on
    win_quickly(t)
    assert t.status == "match_over"
    assert t.deadline("next_round").at == t.now + 5000  # seat 0 is here
    t.sys(SetConnected(0, False))
    assert not t.has_deadline("next_round")
    t.sys(Watching("s_1", "Eve", True))
    assert t.deadline("next_round").at == t.now + 5000
    t.sys(Watching("s_1", "Eve", False))
    assert not t.has_deadline("next_round")
    t.now += 60_000
    t.sys(SetConnected(0, True))
    assert t.deadline("next_round").at == t.now + 5000
    t.timeout("next_round")
    assert t.status == "playing"
