"""The web table in a real browser: Playwright drives Debian's Chromium against ``cardgames serve``.

A real server (a child process on free ports, a SQLite store in a temporary folder) serves the
page; the test opens it at http://127.0.0.1:PORT/, picks the game in the lobby, takes seat 0
against built-in bots and plays a whole deal by clicks, as a person would: a highlighted card,
then, when the card allows more than one move, the first move offered; a move without a card
(a bid, a draw) from the list of moves. It records every response the page receives and the
page's DOM after every move. Once the deal is scored it reads the match's events from the store
(the service is not asked: the bots' seats are the service's own) and checks that no card that
another seat held unseen at a sequence is in any response or DOM snapshot taken at that
sequence. A screenshot of each game at desktop and at phone width (375 px) goes to the test
artifacts folder: ``CARDGAMES_ARTIFACTS`` or ``test-artifacts/web`` at the top of the checkout.

Skipped, saying so, only where Chromium is not installed (.ci/run installs Debian's package).
"""

from __future__ import annotations

import base64
import json
import os
import re
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from uuid import UUID

import msgspec
import pytest

from cardgames.engine.core.cards import is_card_or_joker
from cardgames.engine.core.registry import get_game
from cardgames.service.store import EventStore
from tests.e2e.server_process import REPO, cardgames_command

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = Path(os.environ.get("CARDGAMES_ARTIFACTS", REPO / "test-artifacts")) / "web"
SERVING_HTTP = re.compile(r"serving Connect and gRPC-Web on (http://\S+?)/?$")
#: The event that ends a deal, by game (its name in the page's log of events).
DEAL_OVER = {"seep": "deal scored", "all_fours": "hand scored", "contract_rummy": "deal scored"}
#: Seats: the person at seat 0, built-in bots at the others.
PLAYERS = {"seep": 4, "all_fours": 4, "contract_rummy": 4}
#: A deal this long is a bug (the page stopped offering moves, or the bots stopped).
MAX_MOVES = 400
DEADLINE_S = 240

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason=f"Chromium is not installed at {CHROMIUM} (apt-get install chromium)"
)


def cards_in(data: Any) -> set[str]:
    """Every card anywhere in plain data or a struct; a joker standing for a card (``JK=2S``, in a
    Contract Rummy meld) counts as the joker only: what it stands for is no card of anyone's."""
    if isinstance(data, msgspec.Struct):
        data = msgspec.to_builtins(data)
    found: set[str] = set()
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            card = item.split("=", 1)[0]
            if is_card_or_joker(card):
                found.add(card)
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return found


@dataclass
class Server:
    url: str
    store: str
    process: subprocess.Popen[bytes]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    folder = tmp_path_factory.mktemp("web-server")
    store = f"sqlite://{folder}/games.sqlite"
    process = subprocess.Popen(
        [*cardgames_command(), "serve", "--address", "127.0.0.1:0", "--http", "127.0.0.1:0", "--store", store],
        stdout=subprocess.PIPE,
        stderr=(folder / "serve.stderr").open("wb"),
        cwd=REPO,
        env={**os.environ, "GRPC_VERBOSITY": "ERROR"},
    )
    assert process.stdout is not None
    url = ""
    deadline = time.monotonic() + 60
    while not url and time.monotonic() < deadline:
        line = process.stdout.readline().decode()
        if not line and process.poll() is not None:
            break
        found = SERVING_HTTP.search(line.strip())
        url = found.group(1) if found else ""
    if not url:
        process.kill()
        pytest.fail(f"cardgames serve did not serve HTTP: {(folder / 'serve.stderr').read_text()[-2000:]}")
    try:
        yield Server(url, store, process)
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
        yield launched
        launched.close()


#: Records, in the page, the bytes of every response its fetch calls receive (connect-web calls
#: the service with fetch), as they arrive: a Watch stream that is still open has its messages so far.
RECORDER = """
window.__received = [];
const fetched = window.fetch.bind(window);
window.fetch = async (...args) => {
  const response = await fetched(...args);
  const entry = { url: response.url, type: response.headers.get("content-type") || "", chunks: [] };
  window.__received.push(entry);
  const reader = response.clone().body?.getReader();
  (async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      entry.chunks.push(btoa(String.fromCharCode(...value)));
    }
  })().catch(() => {});
  return response;
};
"""


#: The cards the page shows: those of the table at the sequence it shows, and those of each line of
#: its log of events at that event's sequence (every card face carries its code in data-card).
SHOWN = """() => {
  const table = document.getElementById("table");
  const faces = (root) => [...root.querySelectorAll("[data-card]")].map((node) => node.dataset.card);
  const log = [...document.querySelectorAll("#log li")].map((li) => [Number(li.dataset.sequence), faces(li)]);
  const all = faces(document.body);
  const inLog = log.flatMap(([, cards]) => cards);
  const outside = all.slice();
  for (const card of inLog) outside.splice(outside.indexOf(card), 1);
  return { sequence: Number(table.dataset.sequence), table: outside, log };
}"""


#: After a click on a card: the match moved on, or the card is picked and its moves are listed.
CLICKED = """(before) => document.getElementById("table").dataset.sequence !== before
  || (document.querySelector("#hand .card.selected") && document.querySelector("#moves button.move"))"""


@dataclass
class Seen:
    """What the page was given: every response its fetch calls received and its DOM after every move."""

    responses: list[dict[str, Any]] = field(default_factory=list)  # url, type, body
    doms: list[dict[str, Any]] = field(default_factory=list)  # SHOWN after every move

    def read(self, page: Any) -> None:
        for entry in page.evaluate("window.__received"):
            body = b"".join(base64.b64decode(chunk) for chunk in entry["chunks"])
            self.responses.append({"url": entry["url"], "type": entry["type"], "body": body})


def _messages(response: dict[str, Any]) -> list[dict[str, Any]]:
    """The JSON messages of a Connect response: one for a unary call, the enveloped frames of a stream."""
    body = response["body"]
    if "connect+json" not in response["type"]:
        return [json.loads(body)] if body else []
    found, at = [], 0
    while at + 5 <= len(body):
        size = int.from_bytes(body[at + 1 : at + 5], "big")
        found.append(json.loads(body[at + 5 : at + 5 + size]))
        at += 5 + size
    return found


def _sequence(message: dict[str, Any]) -> int | None:
    value = message.get("sequence", (message.get("view") or {}).get("sequence"))
    return int(value) if value is not None else None


def _hidden_from_seat(store_url: str, game_id: str, me: int) -> dict[int, set[str]]:
    """For every sequence of the match so far: the cards other seats held that ``me``'s view did not show.

    (A card another seat holds that ``me`` may see is not counted: one it took from the discard pile
    in Contract Rummy, the hands a deal's scoring shows, a second copy of one of ``me``'s own cards.)

    Read from the store and folded with the engine (the service's truth, not the page's).
    """
    store = EventStore.from_url(store_url)
    try:
        header, events = store.load(UUID(game_id), get_game)
    finally:
        store.close()
    rules = get_game(header.game)
    state = rules.initial(rules.make_config(header.config, header.players))
    hidden: dict[int, set[str]] = {}
    for sequence, event in enumerate(events, start=1):
        state = rules.evolve(state, event)
        others = [hand for seat, hand in enumerate(rules.snapshot(state)["hands"]) if seat != me]
        shown = cards_in(rules.view(state, me)) | cards_in(rules.redact(event, me))  # the rules show these
        hidden[sequence] = {card for hand in others for card in hand} - shown
    return hidden


def _pictures(page: Any, name: str) -> None:
    """Screenshots of the page at desktop width and at a phone's (375 px), which it must fit."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)
    page.set_viewport_size({"width": 375, "height": 800})
    try:
        page.screenshot(path=str(ARTIFACTS / f"{name}-phone.png"), full_page=True)
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 375, f"{name}: the page is {width} px wide at a phone's 375"
    finally:
        page.set_viewport_size({"width": 1280, "height": 900})


def _move(page: Any, seen: Seen) -> bool:
    """One move by clicks when it is the page's seat's turn (False when it is not): a highlighted
    card, then, when the card makes several moves, the first one listed; or, with no card to
    click, the first move listed (a bid, a draw)."""
    cards = page.locator("#hand .card.legal")
    listed = page.locator("#moves button.move")
    if not page.locator("#table.my-turn").count() or not (cards.count() or listed.count()):
        return False
    before = page.get_attribute("#table", "data-sequence")
    if listed.count() and not cards.count():
        listed.first.click()
    else:
        cards.first.click()  # one move with the card: played at once; several: the card is picked
        page.wait_for_function(CLICKED, arg=before, timeout=30_000)
        if page.get_attribute("#table", "data-sequence") == before:
            page.locator("#moves button.move").first.click()  # the card makes several moves: the first
    page.wait_for_function(
        "(before) => document.getElementById('table').dataset.sequence !== before", arg=before, timeout=30_000
    )
    seen.doms.append(page.evaluate(SHOWN))
    return True


def _take_seats(page: Any, game: str, seats: list[str]) -> None:
    """The lobby: the game, then who sits where ("you", a bot's kind, "person"); then start."""
    page.click(f"[data-game={game}]")
    page.select_option("#players", str(len(seats)))
    for seat, who in enumerate(seats):
        page.select_option(f"#seat-{seat}", who)
    page.click("#start")
    page.wait_for_selector("#table[data-sequence]")


def _play_a_deal(page: Any, game: str, seen: Seen) -> None:
    """Take seat 0 against bots, then play until the deal is scored."""
    _take_seats(page, game, ["you"] + ["heuristic"] * (PLAYERS[game] - 1))
    deadline = time.monotonic() + DEADLINE_S
    moves = 0
    while DEAL_OVER[game] not in page.inner_text("#log") and page.get_attribute("#table", "data-over") != "true":
        assert time.monotonic() < deadline, f"{game}: the deal did not end in {DEADLINE_S} s ({moves} moves)"
        assert moves < MAX_MOVES, f"{game}: {moves} moves and the deal goes on"
        if moves == 3 and page.locator("#table.my-turn").count():  # mid-deal, the person to play: pictures
            _pictures(page, game)
        if _move(page, seen):
            moves += 1
        else:
            page.wait_for_timeout(50)
    assert moves > 0, f"{game}: the person never played"


def _leaks(seen: Seen, hidden: dict[int, set[str]]) -> tuple[list[str], int]:
    """Every place another seat's unseen card showed (and how many messages were looked at)."""
    found: list[str] = []

    def check(data: Any, sequence: int, where: str) -> None:
        leaked = cards_in(data) & hidden.get(sequence, set())
        if leaked:
            found.append(f"{where} at sequence {sequence} showed another seat's cards {sorted(leaked)}")

    checked = 0
    for response in seen.responses:
        if "/cardgames.v1." not in response["url"]:
            continue
        for message in _messages(response):
            for entry in message.pop("events", []):  # each event as the seat saw it, at its own sequence
                check(entry, int(entry["sequence"]), response["url"])
                checked += 1
            sequence = _sequence(message)
            if sequence is not None:
                check(message, sequence, response["url"])
                checked += 1
    for shown in seen.doms:
        check(shown["table"], shown["sequence"], "the table")
        for sequence, cards in shown["log"]:
            check(cards, sequence, "the log of events")
    return found, checked


def _open(browser: Any, url: str) -> tuple[Any, Any, list[str]]:
    """A new browser context with the response recorder, its page at ``url``, and its page errors."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.add_init_script(RECORDER)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(url)
    return context, page, errors


@pytest.mark.parametrize("game", ["seep", "all_fours", "contract_rummy"])
def test_a_person_plays_a_deal_against_bots(game: str, server: Server, browser: Any) -> None:
    context, page, errors = _open(browser, server.url + "/")
    seen = Seen()
    try:
        _play_a_deal(page, game, seen)
        _pictures(page, f"{game}-end")
        game_id = page.url.split("#/play/")[1].split("/")[0]
        seen.read(page)
    finally:
        context.close()
    assert not errors, errors
    hidden = _hidden_from_seat(server.store, game_id, 0)
    assert sum(map(len, hidden.values())) > 100  # the other seats held cards the whole deal
    leaks, checked = _leaks(seen, hidden)
    assert not leaks, "\n".join(leaks[:10])
    assert checked > 10 and len(seen.doms) > 3, (checked, len(seen.doms))
    # The check finds a card that should not be there: one of another seat's, in a response and on the page.
    sequence, cards = next((sequence, cards) for sequence, cards in sorted(hidden.items()) if cards)
    planted = Seen(
        responses=[
            {
                "url": "/cardgames.v1.GameService/GetView",
                "type": "application/json",
                "body": json.dumps({"view": {"sequence": str(sequence), "hand": [min(cards)]}}).encode(),
            }
        ],
        doms=[{"sequence": sequence, "table": [min(cards)], "log": []}],
    )
    assert len(_leaks(planted, hidden)[0]) == 2


def test_a_seat_handed_to_a_person_by_link(server: Server, browser: Any) -> None:
    """The creator gives seat 1 to a person: its link opens that seat's table elsewhere, and both play."""
    host, page, errors = _open(browser, server.url + "/")
    guest = None
    mine, theirs = Seen(), Seen()
    try:
        _take_seats(page, "seep", ["you", "person", "heuristic", "heuristic"])
        links = page.locator(".share .link input")
        assert links.count() == 1
        link = links.first.input_value()
        assert "#/play/" in link and link.startswith(server.url)
        guest, friend, guest_errors = _open(browser, link)
        friend.wait_for_selector("#table[data-sequence]")
        assert "You (seat 1)" in friend.inner_text(".mine")
        assert friend.locator(".share .link").count() == 0  # the guest is given no other seat's link
        deadline = time.monotonic() + DEADLINE_S
        moves = [0, 0]
        while min(moves) < 3:
            assert time.monotonic() < deadline, f"moves by seat 0 and seat 1: {moves}"
            played = False
            for seat, (tab, seen) in enumerate([(page, mine), (friend, theirs)]):
                if _move(tab, seen):
                    moves[seat] += 1
                    played = True
            if not played:
                page.wait_for_timeout(50)
        game_id = page.url.split("#/play/")[1].split("/")[0]
        mine.read(page)
        theirs.read(friend)
        _pictures(friend, "seep-guest")
        errors += guest_errors
    finally:
        host.close()
        if guest is not None:
            guest.close()
    assert not errors, errors
    for seat, seen in enumerate([mine, theirs]):
        leaks, checked = _leaks(seen, _hidden_from_seat(server.store, game_id, seat))
        assert not leaks, "\n".join(leaks[:10])
        assert checked > 5


def test_the_docs_curl_line_creates_a_table(server: Server) -> None:
    """docs/web-table.md's curl line, as written, against this server."""
    text = (REPO / "docs" / "web-table.md").read_text()
    block = next(block for block in re.findall(r"```\n(.*?)```", text, re.S) if "CreateTable" in block)
    command = block.replace("http://127.0.0.1:8080", server.url)
    result = subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=30, check=True)
    made = json.loads(result.stdout)
    assert made["bots"] == ["", "heuristic", "heuristic", "heuristic"] and made["seatTokens"][0]
    assert made["seatTokens"][1:] == ["", "", ""]


def test_watch_a_match_of_bots_then_open_its_replay(server: Server, browser: Any) -> None:
    """Nobody at the table: the lobby opens the watch page; once the match is over, its replay."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        page.goto(server.url + "/")
        page.click("[data-game=all_fours]")
        page.select_option("#players", "2")
        page.select_option("#seat-0", "random")
        page.select_option("#seat-1", "random")
        page.click("details.options summary")
        page.fill("#opt-target_score", "7")
        page.click("#start")
        page.wait_for_selector("#table[data-sequence]")
        assert "#/watch/" in page.url
        assert page.locator("#hand").count() == 0  # a spectator has no hand
        page.wait_for_selector("#table[data-over=true]", timeout=DEADLINE_S * 1000)
        assert page.locator("#log li").count() > 5
        page.click("#open-replay")
        page.wait_for_selector("#step-no:has-text('Event')")
        last = int(page.get_attribute("#slider", "max") or 0)
        assert last > 10 and page.inner_text("#step-no") == f"Event {last} of {last}"
        for _ in range(3):
            page.click("#prev")
        page.wait_for_selector(f"#step-no:has-text('Event {last - 3} of')")
        page.keyboard.press("ArrowLeft")
        page.wait_for_selector(f"#step-no:has-text('Event {last - 4} of')")
        _pictures(page, "replay")
    finally:
        context.close()
    assert not errors, errors


def test_a_table_with_a_clock(server: Server, browser: Any) -> None:
    """A clock chosen in the lobby: every seat's panel shows its time, and the one to act ticks
    down in the page (from the view's server time, with no call to the service)."""
    context, page, errors = _open(browser, server.url + "/")
    try:
        page.click("[data-game=seep]")
        page.select_option("#clock", "move-30s")
        assert page.input_value("#on-timeout") == "bot"  # the default: a bot plays for a seat out of time
        _take_seats(page, "seep", ["you", "heuristic", "heuristic", "heuristic"])
        page.wait_for_selector("#table.my-turn .clock.running", timeout=60_000)
        clocks = page.locator("[data-clock]")
        assert clocks.count() == 4, page.inner_text("#table")
        assert all(re.fullmatch(r"\d+:\d\d(\.\d)?", text) for text in clocks.all_inner_texts())
        assert not page.locator(".badge.offline").count()  # the bots watch their seats: all connected
        running = page.locator(".clock.running")
        assert running.count() == 1 and running.get_attribute("data-clock") == "0"
        calls = page.evaluate("window.__received.length")
        before = running.inner_text()
        page.wait_for_timeout(2_200)
        after = running.inner_text()
        assert before != after, (before, after)
        assert page.evaluate("window.__received.length") == calls  # the clock ticks without asking
        _pictures(page, "seep-clock")
    finally:
        context.close()
    assert not errors, errors
