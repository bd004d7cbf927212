"""``decide`` (A5.4, A7-A9, A15) and ``start``: a command becomes events, or a rejection naming the rule."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any, Final

from cardgames.engine.core.cards import STANDARD_PACK
from cardgames.engine.core.chance import Chance, ShuffleUnavailable, advance, next_order
from cardgames.engine.core.events import Shuffled, match_seeded
from cardgames.engine.core.protocol import Malformed, Rejection, RejectionCode, ScenarioError, Setup
from cardgames.engine.core.wording import a_number
from cardgames.engine.seep.cards import PLAYS_PER_DEAL, VALUE, team
from cardgames.engine.seep.commands import Bid, Break, Build, Capture, Groups, Throw
from cardgames.engine.seep.config import Config
from cardgames.engine.seep.deal import deal_events, end_of_deal, rest_of_deal
from cardgames.engine.seep.events import (
    BidMade,
    Broken,
    Built,
    Captured,
    DealerChosen,
    FloorRevealed,
    MatchCreated,
    SweepScored,
    Thrown,
)
from cardgames.engine.seep.evolve import evolve
from cardgames.engine.seep.groups import has_group
from cardgames.engine.seep.legal import LAST_LISTING
from cardgames.engine.seep.moves import (
    BreakTerms,
    break_effect,
    break_terms,
    build_terms,
    house_effect,
    illegal,
    keys_after,
    opening_value_error,
    throw_error,
)
from cardgames.engine.seep.state import BID, OVER, PLAY, State
from cardgames.engine.seep.turn import actor, house_of

_PACK_INDEX = {card: index for index, card in enumerate(STANDARD_PACK)}
# ``Final``: the compiled build keeps these in C statics (a plain module name is a dictionary
# lookup at every use): the classes a listed play is told apart by and makes its events with.
_THROW: Final = Throw
_CAPTURE: Final = Capture
_BUILD: Final = Build
_THROWN: Final = Thrown
_CAPTURED: Final = Captured
_SWEEP_SCORED: Final = SweepScored
_BUILT: Final = Built


def fallback_seed(material: Any) -> str:
    """A seed for a match started without one: derived from what it was started with (deterministic)."""
    text = json.dumps(material, sort_keys=True, default=str)
    return hashlib.sha256(b"seep fallback seed\0" + text.encode("utf-8")).hexdigest()


def _invalid(message: str) -> Rejection:
    return Rejection(RejectionCode.INVALID_COMMAND, message, "A15")


# --------------------------------------------------------------------------- start


def start(config: Config, setup: Setup) -> list[Any]:
    """MatchCreated, MatchSeeded, the first-dealer draw when needed, then the first deal (A3-A5)."""
    match = dict(setup.match)
    unknown = set(match) - {"difference", "baazis"}
    if unknown:
        raise ScenarioError(f"unknown Seep match keys {sorted(unknown)} (difference, baazis)")
    difference = match.get("difference", 0)
    baazis = match.get("baazis", [0, 0])
    if not isinstance(difference, int) or isinstance(difference, bool):
        raise ScenarioError(f"match difference must be an integer, got {difference!r}")
    if not (isinstance(baazis, list | tuple) and len(baazis) == 2 and all(_count(b) for b in baazis)):
        raise ScenarioError(f"match baazis must be two counts, got {baazis!r}")
    dealer = setup.dealer if setup.dealer is not None else config.first_dealer
    if dealer is not None and (not isinstance(dealer, int) or not 0 <= dealer < 4):
        raise ScenarioError(f"the dealer must be a seat 0..3, got {dealer!r}")
    seed = setup.seed or fallback_seed([setup.decks, setup.dealer, match])
    events: list[Any] = [
        MatchCreated(
            config=config, players=4, dealer=dealer, difference=difference, baazis=(baazis[0], baazis[1])
        ),
        match_seeded(seed, setup.decks),
    ]
    chance = Chance(seed=seed, decks=setup.decks)
    try:
        if dealer is None:
            order = next_order(chance, STANDARD_PACK)
            dealer = _PACK_INDEX[order[0]] % 4
            events += [
                Shuffled(shuffle_no=0, size=len(order), order=order),
                DealerChosen(dealer=dealer, card=order[0]),
            ]
            chance = advance(chance)
        events += deal_events(dealer, 1, chance)
    except ShuffleUnavailable as error:
        raise ScenarioError(str(error)) from error
    return events


def _count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


# --------------------------------------------------------------------------- decide


def decide(state: State, seat: int, command: Any) -> Sequence[Any] | Rejection:
    """The events ``command`` causes, with every automatic consequence, or a rejection (A15)."""
    if LAST_LISTING.holds(state, seat, command):
        # listed for this very state, so for the seat to act in phase play (legal_commands
        # remembers nothing else): no rejection can apply, no second check is needed
        return _apply(state, seat, command)
    if state.phase == OVER:
        return Rejection(RejectionCode.GAME_OVER, "the match is over", "A12")
    current = actor(state)
    if current is None or seat != current:
        who = "nobody" if current is None else f"seat {current}"
        return Rejection(RejectionCode.NOT_YOUR_TURN, f"it is {who}'s turn, not seat {seat}'s", "A5.7")
    if isinstance(command, Malformed):
        return _invalid(command.reason)
    if isinstance(command, Bid):
        return _bid(state, seat, command)
    if not isinstance(command, Capture | Throw | Build | Break):
        return _invalid(f"unknown command {command!r}")
    card = command.card
    if card not in VALUE:
        return _invalid(f"unknown card code {card!r}")
    if card not in state.hands[seat]:
        return _invalid(f"you do not hold {card}")
    groups: Groups = command.groups if isinstance(command, Capture | Build) else ()
    for group in groups:
        for named in group:
            if named not in VALUE:
                return _invalid(f"unknown card code {named!r} in the groups")
    if state.phase != PLAY:
        return illegal("no card may be played before the bid", "A5.4")
    if isinstance(command, Capture):
        return _capture(state, seat, command)
    if isinstance(command, Throw):
        return _throw(state, seat, command)
    if isinstance(command, Build):
        return _build(state, seat, command)
    return _break(state, seat, command)


def _bid(state: State, seat: int, command: Bid) -> Sequence[Any] | Rejection:
    if state.phase != BID:
        return illegal("the bid has already been made", "A5.4")
    value = command.value
    if not 9 <= value <= 13:
        return illegal(f"a bid is a value 9..13, not {value}", "A5.4")
    if not any(VALUE[card] == value for card in state.hands[seat]):
        return illegal(f"you may bid only a value you hold; you hold no card of value {value}", "A5.4")
    return [BidMade(seat=seat, value=value), FloorRevealed(cards=state.loose)]


def _check_groups(state: State, groups: Groups, target: int, played: str | None) -> Rejection | set[str]:
    """Every group non-empty, adding up to ``target``, of distinct loose cards (``played`` aside).

    Returns the loose cards named."""
    loose = set(state.loose)
    named: set[str] = set()
    rule = "A8.1" if played is None else "A8.3"
    for group in groups:
        if not group:
            return illegal("a group may not be empty", rule)
        total = 0
        for card in group:
            total += VALUE[card]
            if card == played:
                continue
            if card in named:
                return illegal(f"{card} is named twice in the groups", rule)
            if card not in loose:
                return illegal(f"{card} is not a loose card on the floor", rule)
            named.add(card)
        if total != target:
            shown = "+".join(group)
            return illegal(f"the group {shown} adds up to {total}, not {target}", rule)
    return named


def _capture(state: State, seat: int, command: Capture) -> Sequence[Any] | Rejection:
    card = command.card
    value = VALUE[card]
    problem = opening_value_error(state, card, "capture")
    if problem:
        return problem
    named = _check_groups(state, command.groups, value, None)
    if isinstance(named, Rejection):
        return named
    if not named and house_of(state, value) is None:
        return illegal(f"{card} captures nothing: name at least one group adding up to {value}", "A8.1")
    left = [VALUE[loose] for loose in state.loose if loose not in named]
    if state.config.capture_extent == "maximal" and has_group(left, value):
        return illegal(
            f"the capture must take every group it can: the loose cards left still hold {a_number(value)}-group",
            "A8.1",
        )
    return _captured(state, seat, card, command.groups, len(named))


def _sweep_points(state: State, play: int) -> int | None:
    """A11.2: what a sweep on play ``play`` is worth (None: sweeps are off)."""
    config = state.config
    if not config.sweeps_enabled:
        return None
    if play == PLAYS_PER_DEAL:
        return config.last_play_sweep_points
    if play == (1 if config.opening_sweep_at == "play1" else 2):
        return config.opening_sweep_points
    return config.sweep_points


def _throw(state: State, seat: int, command: Throw) -> Sequence[Any] | Rejection:
    problem = throw_error(state, command.card)
    if problem:
        return problem
    return _thrown(state, seat, command.card)


def _build(state: State, seat: int, command: Build) -> Sequence[Any] | Rejection:
    card, value, groups = command.card, command.value, command.groups
    terms = build_terms(state, seat, keys_after(state.hands[seat], card), value)
    if isinstance(terms, Rejection):
        return terms
    holding = [index for index, group in enumerate(groups) if card in group]
    if len(holding) != 1 or groups[holding[0]].count(card) != 1:
        return illegal(f"the played card {card} must be in exactly one group, once", "A8.3")
    named = _check_groups(state, groups, value, card)
    if isinstance(named, Rejection):
        return named
    config = state.config
    merged: tuple[str, ...] = ()
    if terms.existing is None:
        merged = _merged(state, value, named)
        if not named and not merged:
            return illegal("a new house must take at least one loose card", "A8.3")
        if not config.allow_direct_cemented_build:
            if len(groups[holding[0]]) < 2:
                return illegal(
                    "the played card may not stand alone in a new house (allow_direct_cemented_build is off)",
                    "A8.3",
                )
            for index, group in enumerate(groups):
                if index != holding[0] and len(group) > 1 and not config.auto_merge_loose_sets:
                    return illegal(
                        "a new house may take further groups only as single loose cards of its value "
                        "(allow_direct_cemented_build is off)",
                        "A8.3",
                    )
    if config.auto_merge_loose_sets:
        used = named.union(merged)
        if has_group([VALUE[loose] for loose in state.loose if loose not in used], value):
            return illegal(
                f"every loose {value}-group must join the house (auto_merge_loose_sets is on)", "A8.3"
            )
    return _built(state, seat, command, merged, terms.owners, terms.action)


def _break(state: State, seat: int, command: Break) -> Sequence[Any] | Rejection:
    card = command.card
    terms = break_terms(state, seat, VALUE[card], keys_after(state.hands[seat], card), command.house)
    if isinstance(terms, Rejection):
        return terms
    return _broken(state, seat, command, terms)


# --------------------------------------------------------------------------- effects

# How a legal play takes effect: shared by the checked path above and by the commands
# legal_commands listed for this very state (``listed``), which need no second check.


def _apply(state: State, seat: int, command: Any) -> Sequence[Any]:
    """The events of a play ``legal_commands`` listed for ``state`` and ``seat`` (it lists no
    other commands in phase play)."""
    kind = type(command)
    if kind is _THROW:
        return _thrown(state, seat, command.card)
    if kind is _CAPTURE:
        groups = command.groups
        taken = 0
        for group in groups:
            taken += len(group)
        return _captured(state, seat, command.card, groups, taken)
    if kind is _BUILD:
        existing, owners, action, _keyless = house_effect(state, seat, command.value)
        merged: tuple[str, ...] = ()
        if existing is None:
            merged = _merged(state, command.value, {card for group in command.groups for card in group})
        return _built(state, seat, command, merged, owners, action)
    return _broken(state, seat, command, break_effect(state, seat, VALUE[command.card], command.house))


def _merged(state: State, value: int, named: set[str]) -> tuple[str, ...]:
    """The loose single cards of ``value`` a new house takes by itself (A8.3)."""
    return tuple([loose for loose in state.loose if VALUE[loose] == value and loose not in named])


def _thrown(state: State, seat: int, card: str) -> list[Any]:
    """A throw of ``card`` (A8.2)."""
    play = state.plays + 1
    return _after_play(state, play, [_THROWN(seat=seat, play=play, card=card)])


def _captured(state: State, seat: int, card: str, groups: Groups, taken: int) -> list[Any]:
    """A capture of ``groups`` (``taken`` loose cards in all) and the house of the card's value (A8.1)."""
    house = house_of(state, VALUE[card])
    play = state.plays + 1
    events: list[Any] = [_CAPTURED(seat=seat, play=play, card=card, groups=groups, house=house, team=team(seat))]
    if taken == len(state.loose) and len(state.houses) == (0 if house is None else 1):
        sweep = _sweep_points(state, play)
        if sweep is not None:
            events.append(_SWEEP_SCORED(seat=seat, team=team(seat), play=play, points=sweep))
    return _after_play(state, play, events)


def _built(
    state: State, seat: int, command: Build, merged: tuple[str, ...], owners: tuple[int, ...], action: str
) -> list[Any]:
    play = state.plays + 1
    event = _BUILT(
        seat=seat,
        play=play,
        card=command.card,
        value=command.value,
        groups=command.groups,
        action=action,
        merged=merged,
        owners=owners,
    )
    return _after_play(state, play, [event])


def _broken(state: State, seat: int, command: Break, terms: BreakTerms) -> list[Any]:
    play = state.plays + 1
    event = Broken(
        seat=seat,
        play=play,
        card=command.card,
        house=command.house,
        value=terms.value,
        joined=terms.joined,
        merged=terms.merged,
        owners=terms.owners,
    )
    return _after_play(state, play, [event])


def _after_play(state: State, play: int, events: list[Any]) -> list[Any]:
    """The rest of the deal after the opening (A5.6); the end of the deal after play #48 (A10-A13);
    ``play``: the number of the play just made."""
    if play == 1:
        events += rest_of_deal(state)
    elif play == PLAYS_PER_DEAL:
        after = state
        for event in events:
            after = evolve(after, event)
        events += end_of_deal(after)
    return events
