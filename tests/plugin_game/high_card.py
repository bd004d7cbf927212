"""High card: a small game that lives in the tests, to prove a game is a plug-in (docs/adding-a-game.md).

Rules (two to four seats, a standard pack, one option):

1. The pack is shuffled and every seat is dealt ``rounds`` cards (the option, 1 to 5; 3 by
   default), face down: a seat sees only its own.
2. A round: every seat plays one card, in seat order from the round's leader (seat 0 leads the
   first round, the winner of a round leads the next).
3. The highest card wins the round: by rank (2 low, A high), a tie by suit (clubs, diamonds,
   hearts, spades, from low to high).
4. After the last round the match is over; the seats that won the most rounds win it.

The module is the whole game: it exports every name of the game protocol
(:data:`cardgames.engine.core.protocol.PROTOCOL_NAMES`) and is registered by its import path
(``CARDGAMES_GAMES=tests.plugin_game.high_card``), never by a line of the engine or the service.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final, TypeAlias

import msgspec

from cardgames.engine.core.cards import STANDARD_PACK, is_card, rank_number
from cardgames.engine.core.chance import Chance, ShuffleUnavailable
from cardgames.engine.core.events import (
    CoreEvent,
    MatchSeeded,
    Shuffled,
    core_reducers,
    match_seeded,
    redact_core,
    shuffle,
)
from cardgames.engine.core.options import IntRange, bounded, is_int
from cardgames.engine.core.options import make_config as parse_options
from cardgames.engine.core.protocol import (
    HIDDEN,
    PROTOCOL_NAMES,
    PUBLIC,
    Audience,
    Layout,
    Malformed,
    OptionsError,
    Rejection,
    RejectionCode,
    ScenarioError,
    Setup,
    Traits,
    Viewer,
    reject,
)
from cardgames.engine.core.score_sheet import Row, ScoreSheet, seat_sides

NAME: Final = "high_card"
TITLE: Final = "High Card"
DEFAULT_PLAYERS: Final = 2
PLAYER_COUNTS: Final = (2, 3, 4)
ROUNDS: Final = IntRange(1, 5)
SUITS: Final = "CDHS"
PLAY: Final = "play"
OVER: Final = "over"


# ----------------------------------------------------------------------------- config


class Config(msgspec.Struct, frozen=True):
    """The match's options: the number of seats and of rounds."""

    players: int = DEFAULT_PLAYERS
    rounds: int = 3


def _check(key: str, value: Any) -> Any:
    if key == "players":
        if not is_int(value) or value not in PLAYER_COUNTS:
            raise OptionsError(f"High Card is for 2 to 4 players, got {value!r}")
        return value
    return bounded(key, value, ROUNDS)


def make_config(options: Mapping[str, Any] | None = None, players: int | None = None) -> Config:
    """Validate the options (``rounds``) and the player count."""
    return parse_options(TITLE, Config, _check, options, players, frozenset(Config.__struct_fields__))


# ----------------------------------------------------------------------------- commands and events


class Play(msgspec.Struct, frozen=True, tag="play", tag_field="type"):
    """Play ``card`` from the hand."""

    card: str


Command: TypeAlias = Play


class MatchCreated(msgspec.Struct, frozen=True, tag="match_created", tag_field="type"):
    config: Config
    players: int


class CardsDealt(msgspec.Struct, frozen=True, tag="cards_dealt", tag_field="type"):
    """``seat`` was dealt ``cards`` (seen by that seat; the others see only ``count``)."""

    seat: int
    cards: tuple[str, ...]
    count: int


class CardPlayed(msgspec.Struct, frozen=True, tag="card_played", tag_field="type"):
    seat: int
    card: str


class RoundWon(msgspec.Struct, frozen=True, tag="round_won", tag_field="type"):
    seat: int
    card: str
    round: int


class MatchEnded(msgspec.Struct, frozen=True, tag="match_ended", tag_field="type"):
    wins: tuple[int, ...]


Event: TypeAlias = MatchCreated | CardsDealt | CardPlayed | RoundWon | MatchEnded | CoreEvent


# ----------------------------------------------------------------------------- state


class Played(msgspec.Struct, frozen=True):
    seat: int
    card: str


class State(msgspec.Struct, frozen=True):
    config: Config
    phase: str = PLAY
    round: int = 1
    leader: int = 0
    hands: tuple[tuple[str, ...], ...] = ()
    trick: tuple[Played, ...] = ()
    wins: tuple[int, ...] = ()
    stock: tuple[str, ...] = ()
    chance: Chance = Chance()


def initial(config: Config) -> State:
    return State(config, hands=((),) * config.players, wins=(0,) * config.players)


def to_act(state: State) -> tuple[int, ...]:
    if state.phase == OVER:
        return ()
    return ((state.leader + len(state.trick)) % state.config.players,)


def is_over(state: State) -> bool:
    return state.phase == OVER


def outcome(state: State) -> list[int]:
    """0 for the seats with the most rounds won, 1 for every other."""
    best = max(state.wins)
    return [0 if wins == best else 1 for wins in state.wins]


def _strength(card: str) -> tuple[int, int]:
    return (rank_number(card) + 11) % 13, SUITS.index(card[-1])  # 2 lowest, A highest


# ----------------------------------------------------------------------------- start and decide


def start(config: Config, setup: Setup) -> list[Any]:
    """MatchCreated, MatchSeeded, the shuffle, and each seat's cards."""
    if setup.match:
        raise ScenarioError(f"High Card has no match keys, got {sorted(setup.match)}")
    seed = setup.seed or "00" * 32
    chance = Chance(seed=seed, decks=setup.decks)
    events: list[Any] = [MatchCreated(config, config.players), match_seeded(seed, setup.decks)]
    try:
        shuffled = shuffle(chance, STANDARD_PACK)
    except ShuffleUnavailable as error:
        raise ScenarioError(str(error)) from error
    events.append(shuffled)
    for seat in range(config.players):
        cards = shuffled.order[seat * config.rounds : (seat + 1) * config.rounds]
        events.append(CardsDealt(seat, cards, len(cards)))
    return events


def decide(state: State, seat: int, command: Any) -> Sequence[Any] | Rejection:
    if state.phase == OVER:
        return reject(RejectionCode.GAME_OVER, "the match is over", "4")
    if seat not in to_act(state):
        return reject(RejectionCode.NOT_YOUR_TURN, f"it is seat {to_act(state)[0]}'s turn, not seat {seat}'s", "2")
    if isinstance(command, Malformed):
        return reject(RejectionCode.INVALID_COMMAND, command.reason)
    if not isinstance(command, Play) or not is_card(command.card):
        return reject(RejectionCode.INVALID_COMMAND, f"not a card: {command!r}")
    if command.card not in state.hands[seat]:
        return reject(RejectionCode.ILLEGAL_MOVE, f"you do not hold {command.card}", "2")
    events: list[Any] = [CardPlayed(seat, command.card)]
    trick = (*state.trick, Played(seat, command.card))
    if len(trick) == state.config.players:
        best = max(trick, key=lambda played: _strength(played.card))
        events.append(RoundWon(best.seat, best.card, state.round))
        if state.round == state.config.rounds:
            wins = tuple(won + (seat == best.seat) for seat, won in enumerate(state.wins))
            events.append(MatchEnded(wins))
    return events


def legal_commands(state: State, seat: int) -> list[Any]:
    if seat not in to_act(state):
        return []
    return [Play(card) for card in sorted(state.hands[seat], key=_strength)]


# ----------------------------------------------------------------------------- evolve


def _replace_at(items: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    return (*items[:index], value, *items[index + 1 :])


def _dealt(state: State, event: CardsDealt) -> State:
    stock = tuple(card for card in state.stock if card not in event.cards)
    return msgspec.structs.replace(state, hands=_replace_at(state.hands, event.seat, event.cards), stock=stock)


def _played(state: State, event: CardPlayed) -> State:
    hand = tuple(card for card in state.hands[event.seat] if card != event.card)
    return msgspec.structs.replace(
        state, hands=_replace_at(state.hands, event.seat, hand), trick=(*state.trick, Played(event.seat, event.card))
    )


def _round_won(state: State, event: RoundWon) -> State:
    wins = _replace_at(state.wins, event.seat, state.wins[event.seat] + 1)
    return msgspec.structs.replace(state, wins=wins, trick=(), leader=event.seat, round=state.round + 1)


_REDUCERS: dict[type, Any] = {
    **core_reducers(),
    MatchCreated: lambda state, event: state,
    CardsDealt: _dealt,
    CardPlayed: _played,
    RoundWon: _round_won,
    MatchEnded: lambda state, event: msgspec.structs.replace(state, phase=OVER),
}


def evolve(state: State, event: Any) -> State:
    result: State = _REDUCERS[type(event)](state, event)
    return result


# ----------------------------------------------------------------------------- views


class View(msgspec.Struct, frozen=True):
    viewer: int | None
    phase: str
    round: int
    rounds: int
    to_act: int | None
    hand: tuple[str, ...]
    hand_sizes: tuple[int, ...]
    trick: tuple[Played, ...]
    wins: tuple[int, ...]


def view(state: State, viewer: Viewer) -> View:
    acting = to_act(state)
    return View(
        viewer=viewer,
        phase=state.phase,
        round=min(state.round, state.config.rounds),
        rounds=state.config.rounds,
        to_act=acting[0] if acting else None,
        hand=state.hands[viewer] if viewer is not None else (),
        hand_sizes=tuple(len(hand) for hand in state.hands),
        trick=state.trick,
        wins=state.wins,
    )


def audience(event: Any) -> Audience:
    if isinstance(event, MatchSeeded | Shuffled):
        return HIDDEN
    if isinstance(event, CardsDealt):
        return event.seat
    return PUBLIC


def redact(event: Any, viewer: Viewer) -> Any:
    if isinstance(event, MatchSeeded | Shuffled):
        return redact_core(event)
    if isinstance(event, CardsDealt):
        return msgspec.structs.replace(event, cards=())
    return event


def table_text(view: View) -> str:
    """The round, the cards on the table and the rounds won, on two lines."""
    played = " ".join(f"{played.card} (seat {played.seat})" for played in view.trick) or "-"
    return f"round {view.round} of {view.rounds}: {played}\nwins: {' '.join(map(str, view.wins))}"


# ----------------------------------------------------------------------------- snapshots and accounts


def snapshot(state: State) -> dict[str, Any]:
    return {
        "phase": state.phase,
        "round": state.round,
        "to_act": list(to_act(state)),
        "hands": [list(hand) for hand in state.hands],
        "trick": [{"seat": played.seat, "card": played.card} for played in state.trick],
        "wins": list(state.wins),
        "stock": list(state.stock),
    }


def from_snapshot(config: Config, snapshot: Mapping[str, Any], setup: Setup) -> State:
    hands = tuple(tuple(hand) for hand in snapshot.get("hands", [[]] * config.players))
    if len(hands) != config.players or any(not is_card(card) for hand in hands for card in hand):
        raise ScenarioError(f"hands must be {config.players} lists of cards")
    return State(config, hands=hands, wins=tuple(snapshot.get("wins", [0] * config.players)),
                 round=int(snapshot.get("round", 1)), leader=int(snapshot.get("leader", 0)))


def describe(event: Any) -> str | None:
    if isinstance(event, CardsDealt):
        return f"Seat {event.seat} is dealt {event.count} cards"
    if isinstance(event, CardPlayed):
        return f"Seat {event.seat} plays {event.card}"
    if isinstance(event, RoundWon):
        return f"Seat {event.seat} wins round {event.round} with {event.card}"
    if isinstance(event, MatchEnded):
        best = max(event.wins)
        winners = [seat for seat, wins in enumerate(event.wins) if wins == best]
        return f"The match is over: seat{'s' if len(winners) > 1 else ''} {', '.join(map(str, winners))} won"
    return None


def score_sheet(events: Iterable[Any]) -> ScoreSheet:
    players, rows, wins = 0, [], []
    for event in events:
        if isinstance(event, MatchCreated):
            players = event.players
            wins = [0] * players
        elif isinstance(event, RoundWon):
            wins[event.seat] += 1
            cells = tuple("1" if seat == event.seat else "" for seat in range(players))
            rows.append(Row(f"round {event.round}", cells, f"{event.card}"))
    return ScoreSheet(
        "Rounds won (most wins)", "round", seat_sides(players), tuple(rows), "total", tuple(map(str, wins)), "card"
    )


TRAITS: Final = Traits(
    partnerships={4: ((0, 2), (1, 3))},
    table_text=table_text,
    layout=Layout(always=frozenset({"trick"})),
)

__all__ = [*PROTOCOL_NAMES, "State"]
