"""The tournament page /t/CODE and the "Host a tournament" form against fake API answers in the
PROTOCOL section 6 shapes (no server): hosting, registering (and 409 once started), the
entrant's table with its seat token, rounds and standings, the winner, Persian RTL and a phone."""

from __future__ import annotations

import copy
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser import fake_views as fv
from tests.browser.conftest import ConsoleErrors
from tests.browser.fake_site import ORIGIN, FakeSite

pytestmark = pytest.mark.browser

CODE = "TOURCODE1"
POLL_MS = 3000  # web/tournament.js POLL_MS

ENTRANTS = [
    {"entrant_id": "e1", "name": "Ayşe"},
    {"entrant_id": "e2", "name": "Mikko"},
    {"entrant_id": "e3", "name": "Darius"},
    {"entrant_id": "e4", "name": "Bot 4"},
]


def registering(n: int = 2) -> dict[str, Any]:
    return {
        "tournament": CODE,
        "name": "Friday cup",
        "host": "Ayşe",
        "status": "registering",
        "format": "elimination",
        "table_size": 2,
        "advance": 1,
        "rounds_planned": None,
        "match": {"target_score": 200},
        "entrants": copy.deepcopy(ENTRANTS[:n]),
        "rounds": [],
        "standings": [],
        "winner": None,
    }


def running() -> dict[str, Any]:
    data = registering(4)
    data["status"] = "running"
    data["rounds"] = [
        {
            "number": 1,
            "tables": [
                {
                    "room": "ROOM1",
                    "seats": ["e1", "e2"],
                    "status": "finished",
                    "result": [
                        {"entrant_id": "e2", "points": 120, "place": 1},
                        {"entrant_id": "e1", "points": 0, "place": 2},
                    ],
                },
                {
                    "room": "ROOM2",
                    "seats": ["e3", "e4"],
                    "status": "finished",
                    "result": [
                        {"entrant_id": "e3", "points": 85, "place": 1},
                        {"entrant_id": "e4", "points": 0, "place": 2},
                    ],
                },
            ],
        },
        {
            "number": 2,
            "tables": [
                {
                    "room": "ROOM3",
                    "seats": ["e2", "e3"],
                    "bots": 1,
                    "status": "playing",
                    "result": [],
                }
            ],
        },
    ]
    data["standings"] = [
        {"entrant_id": "e2", "name": "Mikko", "points": 120, "wins": 1, "place": 1},
        {"entrant_id": "e3", "name": "Darius", "points": 85, "wins": 1, "place": 2},
        {"entrant_id": "e1", "name": "Ayşe", "points": 0, "wins": 0, "place": 3},
        {"entrant_id": "e4", "name": "Bot 4", "points": 0, "wins": 0, "place": 4},
    ]
    return data


def finished() -> dict[str, Any]:
    data = running()
    data["status"] = "finished"
    data["rounds"][1]["tables"][0].update(
        status="finished",
        result=[
            {"entrant_id": "e3", "points": 210, "place": 1},
            {"entrant_id": "e2", "points": 0, "place": 2},
        ],
    )
    data["standings"] = [
        {"entrant_id": "e3", "name": "Darius", "points": 295, "wins": 2, "place": 1},
        {"entrant_id": "e2", "name": "Mikko", "points": 120, "wins": 1, "place": 2},
        {"entrant_id": "e1", "name": "Ayşe", "points": 0, "wins": 0, "place": 3},
        {"entrant_id": "e4", "name": "Bot 4", "points": 0, "wins": 0, "place": 4},
    ]
    data["winner"] = "e3"
    return data


class FakeTournament:
    """Answers /api/tournaments/** from `data` and `me`; records every call."""

    def __init__(self, page: Page, data: dict[str, Any]) -> None:
        self.site = FakeSite(page, fv.lobby_view(int(time.time() * 1000)))
        self.data = data
        self.me: dict[str, Any] = {"room": None, "token": None, "status": "waiting"}
        self.enter_status = 201
        # The events stream (GET .../events): None answers 204, a server without the push,
        # so the page polls; else the data pushed, in one event, then the stream ends.
        self.pushed: dict[str, Any] | None = None
        self.calls: list[dict[str, Any]] = []
        # Registered after FakeSite's catch-all, so it is asked first.
        page.route(f"{ORIGIN}/api/tournaments**", self._api)

    def _api(self, route: Any) -> None:
        req = route.request
        path = req.url[len(ORIGIN) :].split("?")[0]
        parts = path.strip("/").split("/")  # api, tournaments, CODE, ...
        body = req.post_data_json if req.post_data else None
        self.calls.append(
            {
                "method": req.method,
                "path": path,
                "body": body,
                "auth": req.headers.get("authorization"),
            }
        )
        if req.method == "POST" and len(parts) == 2:
            route.fulfill(
                status=201, json={"tournament": CODE, "url": f"/t/{CODE}", "token": "host-secret"}
            )
        elif req.method == "POST" and parts[3:] == ["entrants"]:
            if self.enter_status != 201:
                route.fulfill(
                    status=self.enter_status,
                    json={"error": {"code": "already_started", "message": "started"}},
                )
                return
            entrant = {"entrant_id": "e3", "name": body["name"]}
            self.data["entrants"].append(entrant)
            route.fulfill(status=201, json={"entrant_id": "e3", "token": "entrant-secret"})
        elif req.method == "DELETE" and parts[3:4] == ["entrants"]:
            self.data["entrants"] = [
                e for e in self.data["entrants"] if e["entrant_id"] != parts[4]
            ]
            route.fulfill(status=204, body="")
        elif req.method == "POST" and parts[3:] == ["start"]:
            self.data = running()
            route.fulfill(status=200, json={})
        elif req.method == "GET" and parts[3:] == ["events"]:
            if self.pushed is None:
                route.fulfill(status=204, body="")
            else:
                event = "event: tournament\ndata: " + json.dumps(self.pushed) + "\n\n"
                route.fulfill(status=200, body=event, headers={"content-type": "text/event-stream"})
        elif req.method == "GET" and parts[3:] == ["me"]:
            route.fulfill(status=200, json=self.me)
        elif req.method == "GET" and len(parts) == 3:
            route.fulfill(status=200, json=self.data)
        else:
            route.fulfill(status=404, json={"error": {"code": "not_found", "message": "no"}})

    def count(self, method: str, suffix: str) -> int:
        return sum(1 for c in self.calls if c["method"] == method and c["path"].endswith(suffix))


@pytest.fixture
def make_page(make_page: Callable[..., Page]) -> Callable[..., Page]:
    """The shared page factory (conftest), with fake timers that still run at real speed:
    fast_forward() fires the next poll at once."""

    def make(label: str = "page", **options: Any) -> Page:
        page = make_page(label, **options)
        page.clock.install()
        return page

    return make


def open_tournament(
    page: Page, store: dict[str, Any] | None = None, lang: str | None = None
) -> None:
    """Open /t/CODE, with localStorage entries set first (tokens, language)."""
    page.goto(f"{ORIGIN}/")
    script = "localStorage.clear();"
    for key, value in (store or {}).items():
        script += f"localStorage.setItem({json.dumps(key)}, {json.dumps(json.dumps(value))});"
    if lang:
        script += f"localStorage.setItem('uno.lang', '{lang}');"
    page.evaluate(script)
    page.goto(f"{ORIGIN}/t/{CODE}")


def poll(page: Page) -> None:
    """Let the next poll happen now instead of in three seconds."""
    page.clock.fast_forward(POLL_MS)


def no_horizontal_scroll(page: Page) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"], width


ENTRANT_E3 = {
    "uno.tournament." + CODE: {"entrant_id": "e3", "token": "entrant-secret", "name": "Darius"}
}


def test_host_creates_removes_and_starts(make_page: Callable[..., Page], artifacts: Path) -> None:
    page = make_page()
    # http://uno.test is no secure context, so it has no clipboard: a stand-in records the text.
    page.add_init_script(
        "Object.defineProperty(navigator, 'clipboard', {value: {writeText: (text) =>"
        " { window.copied = text; return Promise.resolve(); }}});"
    )
    fake = FakeTournament(page, registering(3))
    page.goto(f"{ORIGIN}/")
    page.evaluate("localStorage.clear()")
    page.reload()
    page.get_by_test_id("host-tour-open").click()
    page.get_by_test_id("host-tour-name").fill("Friday cup")
    page.get_by_test_id("host-tour-host-name").fill("Ayşe")
    # Elimination asks how many go on; Swiss asks for rounds instead.
    expect(page.get_by_test_id("host-tour-advance")).to_be_visible()
    expect(page.get_by_test_id("host-tour-rounds")).to_be_hidden()
    page.get_by_test_id("host-tour-format").select_option("swiss")
    expect(page.get_by_test_id("host-tour-advance")).to_be_hidden()
    page.get_by_test_id("host-tour-rounds").fill("4")
    page.get_by_test_id("host-tour-table-size").fill("3")
    page.get_by_test_id("host-tour-match-rounds").check()
    page.get_by_test_id("host-tour-match-n").fill("2")
    page.get_by_test_id("host-tour-bots").uncheck()
    # The table settings are the room settings form (max players and target score are not).
    page.get_by_test_id("host-tour-settings").locator("summary").click()
    expect(page.get_by_test_id("tour-set-max_players")).to_have_count(0)
    expect(page.get_by_test_id("tour-set-target_score")).to_have_count(0)
    page.get_by_test_id("tour-set-stack_draw2").check()
    page.get_by_test_id("host-tour-btn").click()

    expect(page).to_have_url(f"{ORIGIN}/t/{CODE}")
    created = [c for c in fake.calls if c["method"] == "POST" and c["path"] == "/api/tournaments"]
    assert created[0]["body"] == {
        "name": "Friday cup",
        "host_name": "Ayşe",
        "settings": {"stack_draw2": True},
        "table_size": 3,
        "format": "swiss",
        "rounds": 4,
        "match": {"rounds": 2},
        "fill_with_bots": False,
    }
    stored = json.loads(page.evaluate(f"localStorage.getItem('uno.tournament-host.{CODE}')"))
    assert stored["token"] == "host-secret"

    expect(page.get_by_test_id("tour-status")).to_have_text("registering")
    expect(page.get_by_test_id("tour-link")).to_have_value(f"{ORIGIN}/t/{CODE}")
    page.get_by_test_id("tour-copy").click()
    expect(page.get_by_test_id("toast").last).to_have_text("Registration link copied")
    assert page.evaluate("window.copied") == f"{ORIGIN}/t/{CODE}"
    expect(page.get_by_test_id("tour-entrants").locator("li")).to_have_count(3)
    expect(page.get_by_test_id("tour-hosted-by")).to_have_text("Hosted by Ayşe")
    page.screenshot(path=str(artifacts / "tournament-host.png"), full_page=True)

    page.get_by_test_id("tour-remove-e2").click()
    expect(page.get_by_test_id("tour-entrants").locator(".seat-name")).to_have_text(
        ["Ayşe", "Darius"]
    )
    delete = [c for c in fake.calls if c["method"] == "DELETE"]
    assert delete[0]["path"] == f"/api/tournaments/{CODE}/entrants/e2"
    assert delete[0]["auth"] == "Bearer host-secret"

    page.get_by_test_id("tour-start").click()
    expect(page.get_by_test_id("tour-status")).to_have_text("running")
    start = [c for c in fake.calls if c["path"].endswith("/start")]
    assert [c["auth"] for c in start] == ["Bearer host-secret"]
    expect(page.get_by_test_id("tour-start")).to_have_count(0)
    # The host is no entrant: no /me was asked without a token.
    assert fake.count("GET", "/me") == 0


def test_entrant_registers_waits_and_goes_to_the_table(
    make_page: Callable[..., Page], artifacts: Path
) -> None:
    page = make_page()
    fake = FakeTournament(page, registering(2))
    open_tournament(page)
    expect(page.get_by_test_id("tour-entrants").locator("li")).to_have_count(2)
    expect(page.get_by_test_id("tour-host")).to_have_count(0)
    expect(page.get_by_test_id("tour-remove-e1")).to_have_count(0)
    page.get_by_test_id("tour-name").fill("Darius")
    page.get_by_test_id("tour-enter").click()
    expect(page.get_by_test_id("tour-waiting-start")).to_contain_text("Darius")
    expect(page.get_by_test_id("tour-entrant-e3")).to_contain_text("(you)")
    body = [c["body"] for c in fake.calls if c["method"] == "POST"]
    assert body == [{"name": "Darius"}]
    stored = json.loads(page.evaluate(f"localStorage.getItem('uno.tournament.{CODE}')"))
    assert stored["token"] == "entrant-secret" and stored["entrant_id"] == "e3"
    # Waiting for the start does not ask /me.
    poll(page)
    expect(page.get_by_test_id("tour-waiting-start")).to_be_visible()
    assert fake.count("GET", "/me") == 0

    # Started: round 1 over, Darius is seated at ROOM3 in round 2.
    fake.data = running()
    fake.me = {
        "entrant_id": "e3",
        "room": "ROOM3",
        "token": "seat-secret-3",
        "status": "playing",
        "player_id": "p1",
        "seat": 1,
        "table_status": "playing",
    }
    poll(page)
    go = page.get_by_test_id("tour-go")
    expect(go).to_be_visible()
    me_calls = [c for c in fake.calls if c["path"].endswith("/me")]
    assert me_calls and all(c["auth"] == "Bearer entrant-secret" for c in me_calls)
    expect(page.get_by_test_id("live")).to_contain_text("Your table is ready.")
    expect(page).to_have_title("● Your table is ready. — UNO")
    page.screenshot(path=str(artifacts / "tournament-running.png"), full_page=True)

    # Rounds, newest first, with their tables, seats by name, status and results.
    round2 = page.get_by_test_id("tour-round-2").get_by_test_id("tour-table-2-1")
    expect(round2.get_by_test_id("table-status")).to_have_text("playing")
    expect(round2.get_by_test_id("table-seats").locator("li")).to_have_text(
        ["Mikko", "Darius", "⚙ bots: 1"]
    )
    expect(round2.get_by_test_id("table-watch")).to_have_text("Open your table")
    t2 = page.get_by_test_id("tour-table-1-2")
    expect(t2.get_by_test_id("table-status")).to_have_text("finished")
    expect(t2.get_by_test_id("table-result").locator("tbody tr")).to_have_text(
        ["1Darius85", "2Bot 40"]
    )
    expect(page.get_by_test_id("tour-table-1-1").get_by_test_id("table-watch")).to_have_text(
        "Watch"
    )
    standings = page.get_by_test_id("tour-standings").locator("tbody tr")
    expect(standings).to_have_text(["1Mikko1201", "2Darius (you)851", "3Ayşe00", "4Bot 400"])

    # The seat token from /me becomes the room's credentials: the table connects as that seat.
    go.click()
    expect(page).to_have_url(f"{ORIGIN}/r/ROOM3")
    session = json.loads(page.evaluate("localStorage.getItem('uno.session.ROOM3')"))
    assert session["token"] == "seat-secret-3"
    assert session["role"] == "player" and session["tournament"] == CODE
    assert session["seat"] == 1 and session["player_id"] == "p1"
    end = time.monotonic() + 5
    while not [f for f in fake.site.sent if f["type"] == "hello"] and time.monotonic() < end:
        page.wait_for_timeout(30)
    hello = [f for f in fake.site.sent if f["type"] == "hello"]
    assert hello and hello[0]["token"] == "seat-secret-3"
    expect(page.get_by_test_id("lobby")).to_be_visible()


def test_next_round_eliminated_and_register_after_start(
    make_page: Callable[..., Page], console_errors: ConsoleErrors
) -> None:
    page = make_page()
    console_errors.expect_message("409")
    fake = FakeTournament(page, registering(2))
    open_tournament(page)
    # The start happens while this visitor types a name: the server answers 409.
    fake.enter_status = 409
    page.get_by_test_id("tour-name").fill("Late Lale")
    page.get_by_test_id("tour-enter").click()
    expect(page.get_by_test_id("tour-enter-error")).to_have_text(
        "Too late: the tournament has already started, so registration is closed."
    )
    assert page.evaluate(f"localStorage.getItem('uno.tournament.{CODE}')") is None

    # An entrant whose table is over waits for the next round; then is out.
    fake.data = running()
    fake.me = {"room": "ROOM2", "token": "seat-secret-2", "status": "waiting"}
    e4 = {"entrant_id": "e4", "token": "e4-secret", "name": "Bot 4"}
    page.evaluate(f"localStorage.setItem('uno.tournament.{CODE}', {json.dumps(json.dumps(e4))})")
    page.reload()
    expect(page.get_by_test_id("tour-next-round")).to_be_visible()
    expect(page.get_by_test_id("tour-go")).to_have_count(0)
    fake.me = {"room": None, "token": None, "status": "eliminated"}
    poll(page)
    expect(page.get_by_test_id("tour-eliminated")).to_be_visible()
    fake.me = {"room": None, "token": None, "status": "waiting"}
    poll(page)
    expect(page.get_by_test_id("tour-bye")).to_have_text(
        "You have a bye this round. Waiting for the next round…"
    )

    # Watching another table joins it as a spectator, then opens it.
    fake.site.routes["/api/rooms/ROOM3/spectators"] = (201, {"token": "spec-secret"})
    page.get_by_test_id("tour-table-2-1").get_by_test_id("table-watch").click()
    expect(page).to_have_url(f"{ORIGIN}/r/ROOM3")
    session = json.loads(page.evaluate("localStorage.getItem('uno.session.ROOM3')"))
    assert session["token"] == "spec-secret" and session["role"] == "spectator"


def test_the_host_removal_shows_on_the_entrant_page(make_page: Callable[..., Page]) -> None:
    page = make_page()
    fake = FakeTournament(page, registering(2))
    open_tournament(page)
    page.get_by_test_id("tour-name").fill("Darius")
    page.get_by_test_id("tour-enter").click()
    expect(page.get_by_test_id("tour-waiting-start")).to_be_visible()
    fake.data["entrants"] = [e for e in fake.data["entrants"] if e["entrant_id"] != "e3"]
    poll(page)
    expect(page.get_by_test_id("tour-removed")).to_be_visible()
    expect(page.get_by_test_id("tour-enter")).to_be_visible()


def test_finished_shows_the_winner_and_your_place(make_page: Callable[..., Page]) -> None:
    page = make_page()
    FakeTournament(page, finished())
    open_tournament(
        page, store={"uno.tournament." + CODE: {"entrant_id": "e2", "token": "x", "name": "Mikko"}}
    )
    expect(page.get_by_test_id("tour-winner")).to_have_text("🏆 Darius wins the tournament!")
    expect(page.get_by_test_id("tour-status")).to_have_text("finished")
    expect(page.get_by_test_id("tour-your-place")).to_have_text(
        "The tournament is over: you finished in place 2."
    )
    expect(page.get_by_test_id("tour-standings").locator("tbody tr").first).to_have_text(
        "1Darius2952"
    )
    final = page.get_by_test_id("tour-table-2-1")
    expect(final.get_by_test_id("table-result").locator("tbody tr")).to_have_text(
        ["1Darius210", "2Mikko0"]
    )
    expect(page.get_by_test_id("tour-go")).to_have_count(0)


def test_one_poll_loop_across_re_renders_and_none_once_finished(
    make_page: Callable[..., Page],
) -> None:
    page = make_page()
    fake = FakeTournament(page, running())
    open_tournament(page, store=ENTRANT_E3)
    expect(page.get_by_test_id("tour-bye")).to_be_visible()
    # A language switch re-renders the page; it must not start a second polling loop.
    for lang in ("fi", "tr", "en"):
        page.get_by_test_id("lang").select_option(lang)
    expect(page.get_by_test_id("tour-standings")).to_contain_text("Points")
    before = fake.count("GET", f"/tournaments/{CODE}")
    poll(page)
    page.wait_for_timeout(200)
    assert fake.count("GET", f"/tournaments/{CODE}") == before + 1
    fake.data = finished()
    poll(page)
    expect(page.get_by_test_id("tour-winner")).to_be_visible()
    done = fake.count("GET", f"/tournaments/{CODE}")
    poll(page)
    poll(page)
    page.wait_for_timeout(200)
    assert fake.count("GET", f"/tournaments/{CODE}") == done


def test_pushed_updates_are_shown_and_the_poll_covers_a_missing_stream(
    make_page: Callable[..., Page],
) -> None:
    page = make_page()
    fake = FakeTournament(page, running())
    open_tournament(page, store=ENTRANT_E3)
    expect(page.get_by_test_id("tour-bye")).to_be_visible()
    # No stream (204): the page polls every POLL_MS, and asks for the stream again later.
    before = fake.count("GET", f"/tournaments/{CODE}")
    poll(page)
    page.wait_for_timeout(200)
    assert fake.count("GET", f"/tournaments/{CODE}") == before + 1
    assert fake.count("GET", "/events") == 1
    # The stream is there now: what it pushes is shown (the polled answer is still "running").
    fake.pushed = finished()
    page.clock.fast_forward(2000)  # the stream is asked for again 5 s after it failed
    expect(page.get_by_test_id("tour-winner")).to_be_visible()
    assert fake.count("GET", "/events") == 2
    assert fake.data["status"] == "running"


def test_persian_phone_is_right_to_left_in_one_column(
    make_page: Callable[..., Page], artifacts: Path
) -> None:
    page = make_page(
        "fa-phone", viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True
    )
    fake = FakeTournament(page, running())
    fake.me = {"room": "ROOM3", "token": "seat-secret-3", "status": "playing"}
    open_tournament(page, store=ENTRANT_E3, lang="fa")
    expect(page.get_by_test_id("tour-go")).to_have_text("رفتن به میز شما")
    assert page.evaluate("document.documentElement.dir") == "rtl"
    # Persian digits in the table titles, right-to-left order of the columns.
    expect(page.get_by_test_id("tour-table-1-2").locator("h4")).to_have_text("میز ۲")
    expect(page.get_by_test_id("standing-e2").locator("td")).to_have_text(
        ["۱", "Mikko", "۱۲۰", "۱"]
    )
    head = page.get_by_test_id("tour-standings").locator("thead th")
    first = head.first.bounding_box()
    last = head.last.bounding_box()
    assert first and last and first["x"] > last["x"], (first, last)
    # One column: the "you" panel above the standings, both the page's width.
    you = page.get_by_test_id("tour-you").bounding_box()
    standings = page.get_by_test_id("tour-standings").bounding_box()
    assert you and standings and you["y"] + you["height"] <= standings["y"]
    assert you["width"] > 300
    no_horizontal_scroll(page)
    page.screenshot(path=str(artifacts / "tournament-fa-phone.png"), full_page=True)

    # Every string of the page is translated: no English left on it.
    text = page.locator("main").inner_text()
    for english in ("Standings", "Round", "Table", "Watch", "Place", "Points", "Go to your table"):
        assert english not in text, english


def test_phone_host_form_and_registration_fit(
    make_page: Callable[..., Page], artifacts: Path
) -> None:
    page = make_page(
        "phone", viewport={"width": 360, "height": 740}, is_mobile=True, has_touch=True
    )
    fake = FakeTournament(page, registering(2))
    page.goto(f"{ORIGIN}/")
    page.get_by_test_id("host-tour-open").click()
    page.get_by_test_id("host-tour-settings").locator("summary").click()
    expect(page.get_by_test_id("tour-set-form")).to_be_visible()
    no_horizontal_scroll(page)
    page.get_by_test_id("host-tour").screenshot(path=str(artifacts / "tournament-form-phone.png"))
    open_tournament(page, store={"uno.tournament-host." + CODE: {"token": "host-secret"}})
    # The server needs two entrants to start: with one, Start waits.
    expect(page.get_by_test_id("tour-start")).to_be_visible()
    expect(page.get_by_test_id("tour-start")).to_be_enabled()
    no_horizontal_scroll(page)
    fake.data = registering(1)
    poll(page)
    expect(page.get_by_test_id("tour-start")).to_be_disabled()
    expect(page.get_by_test_id("tour-need-two")).to_be_visible()


def test_unknown_tournament_says_so(
    make_page: Callable[..., Page], console_errors: ConsoleErrors
) -> None:
    page = make_page()
    console_errors.expect_message("404")
    site = FakeSite(page, fv.lobby_view(int(time.time() * 1000)))
    site.routes[f"/api/tournaments/{CODE}"] = (
        404,
        {"error": {"code": "not_found", "message": "no"}},
    )
    open_tournament(page)
    expect(page.get_by_test_id("tournament-info")).to_have_text("There is no such tournament.")


def test_d12_single_hand_matches_and_a_tie_broken_place_are_explained(
    make_page: Callable[..., Page],
) -> None:
    data = finished()
    data["match"] = {"rounds": 1}
    data["rounds"][1]["tables"][0]["result"] = [
        {"entrant_id": "e3", "points": 40, "place": 1},
        {"entrant_id": "e2", "points": 40, "place": 2},
    ]
    page = make_page()
    FakeTournament(page, data)
    open_tournament(page)
    expect(page.get_by_text("single-hand matches")).to_be_visible()
    expect(page.get_by_text("matches of 1 hands")).to_have_count(0)
    final = page.get_by_test_id("tour-table-2-1")
    expect(final.get_by_test_id("table-tiebreak")).to_contain_text("then the earlier seat")
    first = page.get_by_test_id("tour-table-1-1")
    expect(first.get_by_test_id("table-tiebreak")).to_have_count(0)  # 120 > 0: no note
