"""The replay page in a real browser (headless Chromium, started here): a screenshot of every game's table,
and real clicks, keys and the slider stepping through the events."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cardgames.service.replay import page
from tests.replay.browser import browse, png_facts, screenshot
from tests.replay.helpers import GAMES, replay_of


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, int | None], Path]:
    folder = tmp_path_factory.mktemp("pages")
    made = {}
    for game in GAMES:
        for viewer in (None, 1):
            path = folder / f"{game}-{'public' if viewer is None else f'seat{viewer}'}.html"
            page.write(path, replay_of(game), viewer)
            made[game, viewer] = path
    return made


def _middle(game: str) -> int:
    """A step in the middle of play: cards in hands and on the table."""
    replay = replay_of(game)
    return next(step.seq for step in replay.steps(1) if step.seq > replay.last // 3 and len(step.view["hand"]) >= 4)


@pytest.mark.parametrize("game", GAMES)
def test_a_screenshot_of_the_table(game: str, pages: dict[tuple[str, int | None], Path], tmp_path: Path) -> None:
    out = tmp_path / f"{game}.png"
    result = screenshot(pages[game, 1], out, f"#step={_middle(game)}")
    assert out.exists(), result.stderr[-2000:]
    width, height, shades = png_facts(out.read_bytes())
    assert (width, height) == (1280, 900) and shades > 64  # not a blank page: cards, felt, text
    assert out.stat().st_size > 30_000


@pytest.mark.parametrize("game", GAMES)
def test_clicking_through_the_steps(game: str, pages: dict[tuple[str, int | None], Path], tmp_path: Path) -> None:
    replay = replay_of(game)
    start = _middle(game)
    expected = {step.seq: step for step in replay.steps(1)}
    state = ("JSON.stringify({step: document.getElementById('step-no').textContent, "
             "event: document.getElementById('current-event').textContent, "
             "current: document.querySelector('#events li.current .line').textContent, "
             "slider: document.getElementById('slider').value, "
             "mine: [...document.querySelectorAll('.seat.you .hand .card')].map((node) => node.title), "
             "backs: document.querySelectorAll('.seat:not(.you) .hand .card.back').length})")

    def shown() -> dict:
        return json.loads(tab.evaluate(state))

    with browse(pages[game, 1], f"#step={start}") as tab:
        now = shown()
        assert now["step"] == str(start) and now["slider"] == str(start)
        backs = 0
        for seq in range(start + 1, min(start + 30, replay.last) + 1):
            tab.click("#next")
            now = shown()
            backs = max(backs, now["backs"])
            step = expected[seq]
            assert now["step"] == str(seq) and now["slider"] == str(seq), (seq, now)
            assert now["current"] == step.line and step.line in now["event"], (seq, now)
            hidden = bool(step.view.get("hand_hidden"))
            assert sorted(now["mine"]) == ([] if hidden else sorted(step.view["hand"])), (seq, now)
        assert backs > 0  # the other seats' hands are drawn face down
        for _ in range(3):
            tab.click("#prev")
        assert shown()["step"] == str(seq - 3)
        tab.key("ArrowLeft", 37)
        assert shown()["step"] == str(seq - 4)
        tab.key("ArrowRight", 39)
        assert shown()["step"] == str(seq - 3)
        tab.click("#events li[data-step='5']")  # a click on the event list jumps there
        now = shown()
        assert now["step"] == "5" and now["current"] == expected[5].line
        tab.key("End", 35)
        assert shown()["step"] == str(replay.last)
        assert tab.evaluate("document.getElementById('next').disabled") is True
        tab.click("#slider")  # the middle of the slider is the middle of the match
        middle = int(shown()["step"])
        assert abs(middle - replay.last / 2) <= max(2, replay.last / 20), middle
        assert tab.evaluate("location.hash") == f"#step={middle}"
        width, _, shades = png_facts(tab.screenshot())
        assert width > 800 and shades > 64
