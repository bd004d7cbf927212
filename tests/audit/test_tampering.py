"""Real logs of every game verify; every way of changing one is caught at the right place.

Each tampering is tried twice where it makes sense: as a careless forger leaves it (the
hashes as they were: the chain breaks at the changed entry) and as a careful one leaves it
(the whole chain recomputed: the rules, the shuffle or the commitments catch it at the same
sequence number).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec
import pytest

from cardgames.engine.core import fairness
from cardgames.engine.core.cards import STANDARD_PACK
from cardgames.engine.core.commands import parse_command
from cardgames.engine.core.replay import fold
from cardgames.service.audit.logfile import AuditLog, LogFormatError
from cardgames.service.audit.verify import Failure, Summary, verify
from tests.audit.helpers import GAMES, commands, fresh, index_of, played_log, players, rechain, renumber, rules

SCORE_KEYS = ("scores", "totals", "game_totals")


def failure(log: AuditLog) -> Failure:
    with pytest.raises(Failure) as caught:
        verify(log)
    return caught.value


def both(log: AuditLog, change: Callable[[AuditLog], int], expect: str) -> None:
    """``change`` tampers with a log and returns the seq it changed; caught there, rechained or not."""
    seq = change(log)
    careless = failure(log)
    assert careless.seq == seq, careless
    assert "chain" in careless.message or "expected seq" in careless.message, careless
    careful = failure(rechain(log))
    assert careful.seq == seq, careful
    assert expect in careful.message, careful


@pytest.mark.parametrize("variant", ["plain", "entropy", "given_seed", "stacked"])
@pytest.mark.parametrize("game", GAMES)
def test_a_real_log_verifies(game: str, variant: str) -> None:
    log = played_log(game, variant)
    summary = verify(fresh(game, variant))
    assert isinstance(summary, Summary)
    assert summary.entries == len(log.entries) and summary.head == log.head
    assert summary.commands == len(commands(log)) > 0
    line = summary.line()
    assert line.startswith(f"OK {game} ") and "\n" not in line
    if variant == "stacked":
        assert summary.stacked_shuffles == 1 and "no fairness claim" in line
    else:
        assert summary.seeded_shuffles > 0 and summary.stacked_shuffles == 0
    if variant == "entropy":
        assert summary.seats_entropy == players(log) and f"{players(log)} seats' entropy" in line
    elif variant == "given_seed":
        assert "no fairness claim" in line
    elif variant == "plain":
        assert "committed seed" in line


@pytest.mark.parametrize("game", GAMES)
def test_a_card_changed_in_a_deal(game: str) -> None:
    def change(log: AuditLog) -> int:
        index = index_of(log, lambda event: event["type"] != "shuffled" and bool(event.get("cards")), 3)
        cards = log.entries[index]["event"]["cards"]
        cards[0] = next(card for card in STANDARD_PACK if card not in cards)
        return index + 1

    both(fresh(game), change, "field 'cards'")


@pytest.mark.parametrize("game", GAMES)
def test_an_event_dropped(game: str) -> None:
    def change(log: AuditLog) -> int:
        index = len(log.entries) // 2
        del log.entries[index]
        return index + 1

    log = fresh(game)
    seq = change(log)
    assert failure(log).seq == seq and "expected seq" in failure(log).message
    careful = failure(rechain(renumber(log)))
    assert careful.seq == seq, careful


@pytest.mark.parametrize("game", GAMES)
def test_two_events_swapped(game: str) -> None:
    log = fresh(game)
    index = next(i for i in range(len(log.entries) // 2, len(log.entries) - 1)
                 if log.entries[i]["event"] != log.entries[i + 1]["event"])
    log.entries[index], log.entries[index + 1] = log.entries[index + 1], log.entries[index]
    assert failure(log).seq == index + 1
    careful = failure(rechain(renumber(log)))
    assert careful.seq == index + 1, careful


@pytest.mark.parametrize("game", GAMES)
def test_a_score_edited(game: str) -> None:
    def change(log: AuditLog) -> int:
        index = max(i for i, item in enumerate(log.entries)
                    if any(isinstance(item["event"].get(key), list) for key in SCORE_KEYS))
        event = log.entries[index]["event"]
        key = next(key for key in SCORE_KEYS if isinstance(event.get(key), list))
        event[key][0] += 1
        return index + 1

    both(fresh(game), change, "the rules give")


@pytest.mark.parametrize("game", GAMES)
def test_a_command_that_was_illegal(game: str) -> None:
    def another_seat(log: AuditLog) -> int:
        index = commands(log)[len(commands(log)) // 2]
        item = log.entries[index]
        item["seat"] = (item["seat"] + 1) % players(log)
        return index + 1

    both(fresh(game), another_seat, "not legal")

    def unknown_type(log: AuditLog) -> int:
        index = commands(log)[3]
        log.entries[index]["command"] = {"type": "cheat"}
        return index + 1

    both(fresh(game), unknown_type, "malformed")


@pytest.mark.parametrize("game", GAMES)
def test_another_legal_command_in_place_of_the_one_played(game: str) -> None:
    """A legal command put in place of the one played: the events that follow it do not match.

    Only a command with other consequences counts: the played command itself may come back in
    another shape (a Seep capture's groups as tuples where the log has lists), and a command
    with the same events would leave the log consistent.
    """
    log = fresh(game)
    game_rules = rules(log)
    config = msgspec.convert(log.header["config"], game_rules.Config)
    events = [msgspec.convert(item["event"], game_rules.Event) for item in log.entries]
    for index in commands(log)[len(commands(log)) // 2:]:
        item = log.entries[index]
        state = fold(game_rules, game_rules.initial(config), events[:index])
        legal = game_rules.legal_commands(state, item["seat"])
        played = list(game_rules.decide(state, item["seat"], parse_command(game_rules, item["command"])))
        others = [msgspec.to_builtins(command) for command in legal
                  if list(game_rules.decide(state, item["seat"], command)) != played]
        if others:
            item["command"] = others[0]
            break
    else:
        pytest.fail("no seat ever had a choice")
    caught = failure(rechain(log))
    assert caught.seq == index + 1 and "the rules give" in caught.message, caught


@pytest.mark.parametrize("game", GAMES)
def test_a_wrong_seed(game: str) -> None:
    log = fresh(game)
    assert log.reveal is not None
    log.reveal["seed"] = "ab" * 32
    caught = failure(log)
    assert caught.where == "reveal" and "seed_commitment" in caught.message
    # a forger who also commits to the new seed and rewrites the chain: the match_seeded event betrays it
    log.header["seed_commitment"] = fairness.commitment("ab" * 32)
    caught = failure(rechain(log))
    seeded = index_of(log, lambda event: event["type"] == "match_seeded")
    assert caught.seq == seeded + 1 and "another seed" in caught.message
    # ... and who rewrites match_seeded too: the first shuffle is not the new seed's
    event = log.entries[seeded]["event"]
    event["seed"], event["commitment"] = "ab" * 32, fairness.commitment("ab" * 32)
    caught = failure(rechain(log))
    shuffled = index_of(log, lambda event: event["type"] == "shuffled")
    assert caught.seq == shuffled + 1 and "shuffle 0 is not the shuffle of the revealed seed" in caught.message


@pytest.mark.parametrize("game", GAMES)
def test_a_wrong_seat_entropy(game: str) -> None:
    log = fresh(game, "entropy")
    assert log.reveal is not None
    log.reveal["seat_entropy"][1] = "cd" * 32
    caught = failure(log)
    assert caught.where == "reveal" and "seat 1" in caught.message
    log = fresh(game, "entropy")
    assert log.reveal is not None
    log.header["seat_commitments"][0] = fairness.commitment("cd" * 32)
    log.reveal["seat_entropy"][0] = "cd" * 32  # a consistent lie about seat 0: the deals betray it
    caught = failure(rechain(log))
    assert caught.seq == index_of(log, lambda event: event["type"] == "match_seeded") + 1


@pytest.mark.parametrize("game", GAMES)
def test_a_shuffle_changed(game: str) -> None:
    def change(log: AuditLog) -> int:
        index = max(i for i, item in enumerate(log.entries)
                    if item["event"]["type"] == "shuffled" and len(set(item["event"]["order"])) > 1)
        order = log.entries[index]["event"]["order"]
        other = next(i for i, card in enumerate(order) if card != order[0])  # two packs: codes repeat
        order[0], order[other] = order[other], order[0]
        return index + 1

    both(fresh(game), change, "is not the shuffle of the revealed seed")


def test_a_stacked_order_changed() -> None:
    log = fresh("all_fours", "stacked")
    seeded = index_of(log, lambda event: event["type"] == "match_seeded")
    deck = log.entries[seeded]["event"]["decks"][0]
    deck[0], deck[1] = deck[1], deck[0]
    caught = failure(rechain(log))
    shuffled = index_of(log, lambda event: event["type"] == "shuffled")
    assert caught.seq == shuffled + 1 and "stacked order" in caught.message


@pytest.mark.parametrize("game", GAMES)
def test_an_event_added_or_a_command_removed(game: str) -> None:
    log = fresh(game)
    index = len(log.entries) // 3
    log.entries.insert(index, dict(log.entries[index - 1]))
    caught = failure(rechain(renumber(log)))
    assert caught.seq == index + 1, caught

    log = fresh(game)
    index = commands(log)[5]
    del log.entries[index]["seat"], log.entries[index]["command"]
    caught = failure(rechain(log))
    assert caught.seq == index + 1 and "no command caused" in caught.message


@pytest.mark.parametrize("game", GAMES)
def test_hashes_header_and_ends(game: str) -> None:
    log = fresh(game)
    log.entries[9]["hash"] = "0" * 64
    assert failure(log).seq == 10

    log = fresh(game)
    config = log.header["config"]
    key = next(key for key, value in config.items() if isinstance(value, int) and not isinstance(value, bool)
               and key != "players")
    config[key] += 1
    assert failure(log).where == "header"

    log = fresh(game)
    log.entries[-1]["redacted"] = True
    assert failure(log).seq == len(log.entries)

    log = fresh(game)
    del log.entries[-5:]
    end = len(log.entries) + 1
    for caught in (failure(log), failure(rechain(log))):
        # cut inside a batch: the rules owe the next event; between batches: the match is not over
        assert caught.seq == end or (caught.where == "reveal" and "not over" in caught.message), caught

    log = fresh(game)
    log.reveal = None
    assert "no reveal line" in failure(log).message


@pytest.mark.parametrize(
    ("key", "value", "expect"),
    [
        ("format", "something-else", "not a cardgames log"),
        ("version", 99, "format version 99"),
        ("game", "chess", "unknown game 'chess'"),
        ("rules_version", "0.9", "rules version '0.9'"),
    ],
)
def test_a_log_this_verifier_cannot_read(key: str, value: Any, expect: str) -> None:
    log = fresh("all_fours")
    log.header[key] = value
    with pytest.raises(LogFormatError, match=expect):
        verify(log)
