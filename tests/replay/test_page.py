"""The replay's steps and its HTML page: what each viewer sees, and nothing more; a page with no network."""

from __future__ import annotations

import re

import msgspec
import pytest

from cardgames.engine.core.events import FORFEIT
from cardgames.engine.core.protocol import PUBLIC
from cardgames.service.audit.logfile import read_log, to_bytes
from cardgames.service.replay import page
from cardgames.service.replay.layout import card_text, is_card_code, layout
from cardgames.service.replay.steps import Replay, ReplayError
from tests.replay.helpers import (
    CARD_IN_TEXT,
    GAMES,
    card_codes,
    hidden_from,
    log_bytes,
    page_data,
    replay_of,
    visible_codes,
)


@pytest.mark.parametrize("game", GAMES)
def test_the_replay_folds_the_whole_match(game: str) -> None:
    replay = replay_of(game)
    assert replay.last == len(read_log(log_bytes(game)).entries)
    assert replay.rules.is_over(replay.states[-1]) and not replay.rules.is_over(replay.states[1])
    first, final = replay.step(0, None), replay.step(replay.last, None)
    assert first.seq == 0 and first.kind == "header" and replay.game_id in first.line
    assert final.seq == replay.last and final.view == msgspec.json.decode(
        msgspec.json.encode(replay.rules.view(replay.states[-1], None)))
    kinds = [step.kind for step in replay.steps(None)]
    assert kinds[1] == "match_created" and "match_seeded" in kinds and "shuffled" in kinds


@pytest.mark.parametrize("game", GAMES)
def test_each_event_line_is_the_event_as_the_viewer_was_shown_it(game: str) -> None:
    replay = replay_of(game)
    rules = replay.rules
    for viewer in (None, *range(replay.players)):
        for step in replay.steps(viewer):
            if not step.seq:
                continue
            event = replay.events[step.seq - 1]
            audience = rules.audience(event)
            shown = event if audience in (PUBLIC, viewer) else rules.redact(event, viewer)
            assert step.line == (rules.describe(shown) or step.line)
            secret = set(card_codes(msgspec.to_builtins(event))) - set(card_codes(msgspec.to_builtins(shown)))
            assert not secret & set(CARD_IN_TEXT.findall(step.line)), (viewer, step.seq, step.line)
            actor = replay.actors.get(step.seq)
            assert step.actor == (actor[0] if actor else None)
            assert (step.command is not None) == (actor is not None and actor[0] == viewer)


@pytest.mark.parametrize("game", GAMES)
def test_a_seats_page_never_shows_another_seats_unplayed_cards(game: str) -> None:
    """The page for seat N, at every step: no card held unseen by another seat (the public page: by any seat).

    A card the rules show that viewer in an event since the last shuffle is not unseen any
    more (Seep's void deal shows the bidder's hand to everyone).
    """
    replay = replay_of(game)
    checked = 0
    for viewer in (None, *range(replay.players)):
        data = page_data(page.render(replay, viewer))
        assert len(data["steps"]) == replay.last + 1 and data["viewer"] == viewer
        revealed: set[str] = set()
        for step in data["steps"]:
            if step["seq"]:
                event = replay.events[step["seq"] - 1]
                if step["kind"] == "shuffled":
                    revealed = set()
                revealed |= set(card_codes(msgspec.to_builtins(replay.seen(event, viewer))))
            hidden = set(hidden_from(replay, step["seq"], viewer)) - revealed
            shown = visible_codes(step)
            assert not shown & hidden, (viewer, step["seq"], sorted(shown & hidden), step["line"])
            checked += len(hidden)
            hand = step["view"]["hand"]
            if viewer is None:
                assert hand == [] and all(seat["cards"] is None for seat in step["table"]["seats"])
            else:
                mine = [seat for seat in step["table"]["seats"] if seat["cards"] is not None]
                assert all(seat["seat"] == viewer for seat in mine)
    assert checked > 1000  # hands were really hidden along the way


@pytest.mark.parametrize("game", GAMES)
def test_a_seat_sees_its_own_hand(game: str) -> None:
    replay = replay_of(game)
    snapshot_hands = [replay.rules.snapshot(state)["hands"] for state in replay.states]
    seen = 0
    for step in replay.steps(1):
        hand = snapshot_hands[step.seq][1]
        if step.view.get("hand_hidden"):
            continue
        assert sorted(step.view["hand"]) == sorted(hand)
        seen += len(hand)
    assert seen


def test_the_page_is_self_contained() -> None:
    html = page.render(replay_of("seep"), 2)
    outside_doctype = html.replace("<!DOCTYPE html>", "")
    assert "http" not in outside_doctype.lower()
    assert not re.search(r"\b(?:src|href)\s*=", html) and "@import" not in html and "url(" not in html
    assert html.count("<script") == 2 and "<link" not in html
    data = page_data(html)
    assert data["game"] == "seep" and data["steps"][0]["seq"] == 0


def test_the_embedded_json_cannot_close_its_script() -> None:
    text = page.script_json({"line": "</script><b>&"})
    assert "<" not in text and ">" not in text and "&" not in text
    assert msgspec.json.decode(text) == {"line": "</script><b>&"}


def test_the_layout_reads_any_view_generically() -> None:
    view = {"viewer": 1, "phase": "play", "dealer": 0, "to_act": 1, "hand": ["AS", "10H"], "hand_sizes": [3, 2, 1],
            "known": [["KD"], [], []], "scores": [5, 6, 7], "floor": ["2C"], "trick": [{"seat": 0, "card": "QH"}],
            "melds": [{"owner": 2, "kind": "set", "cards": ["7S", "JK=7H"]}], "trump": "D", "sides": [1, 2],
            "last_deal": None}
    table = layout(view)
    assert [seat.cards for seat in table.seats] == [None, ("AS", "10H"), None]
    assert [seat.count for seat in table.seats] == [3, 2, 1]
    assert table.seats[0].badges == ("dealer",) and table.seats[1].badges == ("to act",) and table.seats[1].you
    assert table.seats[0].extras[0].label == "known" and table.seats[2].facts == (("scores", "7"),)
    areas = {area.label: area for area in table.areas}
    assert areas["floor"].groups[0].cards == ("2C",)
    assert areas["trick"].groups[0].caption == "seat 0" and areas["trick"].groups[0].cards == ("QH",)
    assert areas["melds"].groups[0].caption == "seat 2, set" and areas["melds"].groups[0].cards == ("7S", "JK=7H")
    assert dict(table.facts) == {"phase": "play", "trump": "♦", "sides": "1 | 2"}
    assert card_text("10H") == ("10♥", "red") and card_text("AS") == ("A♠", "black")
    assert card_text("JK") == ("JK", "joker") and card_text("JK=7H") == ("JK=7♥", "joker")
    assert is_card_code("JK=7H") and not is_card_code("JK=7") and not is_card_code("D")


def test_a_log_the_rules_cannot_fold_is_a_replay_error() -> None:
    log = read_log(log_bytes("all_fours"))
    log.entries[5]["event"] = {"type": "no_such_event"}
    with pytest.raises(ReplayError, match=r"seq 6 \(line 7\): not a all_fours event"):
        Replay.from_bytes(to_bytes(log))
    log = read_log(log_bytes("all_fours"))
    log.entries[3]["seq"] = 9
    with pytest.raises(ReplayError, match="expected seq 4"):
        Replay.from_bytes(to_bytes(log))


async def test_a_log_with_clock_events_replays() -> None:
    """Timeouts, automatic moves and a forfeit (the service's seat events) fold like the rules' own events."""
    from tests.audit.test_clock_events import _clocked_match

    log = await _clocked_match("all_fours", FORFEIT)
    replay = Replay.from_bytes(to_bytes(log))
    assert replay.rules.is_over(replay.states[-1])
    final = replay.step(replay.last, 0)
    assert final.kind == "seat_timed_out" and "forfeits the match" in final.line
    charged = [step for step in replay.steps(None) if step.kind == "clock_charged"]
    assert charged and "ms left in its bank" in charged[0].line
    assert page_data(page.render(replay, 0))["steps"][-1]["line"] == final.line
