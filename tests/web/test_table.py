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

import pytest
from cardgames.engine.core.registry import get_game
from cardgames.service.store import EventStore

from tests.e2e.server_process import REPO, cardgames_command
from tests.service.helpers import cards_in

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


def _play_a_deal(page: Any, game: str, seen: Seen) -> None:
    """Click through the lobby, then play until the deal is scored."""
    page.click(f"[data-game={game}]")
    page.select_option("#players", str(PLAYERS[game]))
    for seat in range(1, PLAYERS[game]):
        page.select_option(f"#seat-{seat}", "heuristic")
    page.click("#start")
    page.wait_for_selector("#table[data-sequence]")
    deadline = time.monotonic() + DEADLINE_S
    moves = 0
    while DEAL_OVER[game] not in page.inner_text("#log"):
        assert time.monotonic() < deadline, f"{game}: the deal did not end in {DEADLINE_S} s ({moves} moves)"
        assert moves < MAX_MOVES, f"{game}: {moves} moves and the deal goes on"
        if page.get_attribute("#table", "data-over") == "true":
            break
        cards = page.locator("#hand .card.legal")
        listed = page.locator("#moves button.move")
        if not page.locator("#table.my-turn").count() or not (cards.count() or listed.count()):
            page.wait_for_timeout(50)
            continue
        if moves == 3:  # in the middle of the deal, the person to play: the game's pictures
            _pictures(page, game)
        before = page.get_attribute("#table", "data-sequence")
        if listed.count() and not cards.count():
            listed.first.click()
        else:
            cards.first.click()  # one move with the card: played at once; several: the card is picked
            page.wait_for_function(CLICKED, arg=before, timeout=30_000)
            if page.get_attribute("#table", "data-sequence") == before:
                page.locator("#moves button.move").first.click()  # the card allows several moves: the first
        page.wait_for_function(
            "(before) => document.getElementById('table').dataset.sequence !== before", arg=before, timeout=30_000
        )
        moves += 1
        seen.doms.append(page.evaluate(SHOWN))
    assert moves > 0, f"{game}: the person never played"


@pytest.mark.parametrize("game", ["seep", "all_fours", "contract_rummy"])
def test_a_person_plays_a_deal_against_bots(game: str, server: Server, browser: Any) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.add_init_script(RECORDER)
    page = context.new_page()
    seen = Seen()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(server.url + "/")
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

    def check(data: Any, sequence: int, where: str) -> None:
        leaked = cards_in(data) & hidden.get(sequence, set())
        assert not leaked, f"{where} at sequence {sequence} showed another seat's cards {sorted(leaked)}"

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
    assert checked > 10, f"only {checked} messages were checked"
    for shown in seen.doms:
        check(shown["table"], shown["sequence"], "the table")
        for sequence, cards in shown["log"]:
            check(cards, sequence, "the log of events")
    assert len(seen.doms) > 3


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
        page.fill("#opt-target_score", "3")
        page.click("#start")
        page.wait_for_selector("#table[data-sequence]")
        assert "#/watch/" in page.url
        assert page.locator("#hand").count() == 0  # a spectator has no hand
        page.wait_for_selector("#table[data-over=true]", timeout=DEADLINE_S * 1000)
        assert page.locator("#log li").count() > 10
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
