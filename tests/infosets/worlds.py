"""Worlds one viewer cannot tell apart, and everything the viewer is told in each.

* A *match* is random play under a random option set drawn from the game's own option table
  (Contract Rummy's mostly by its rules-of-thumb player, see :func:`play_match`); a
  *position* is a point of its command history where the match is not over.
* A *world* is the same command history played again from other stacked decks: every
  shuffle's order is read from the match's (hidden) ``Shuffled`` events and the history is
  replayed with the orders changed (the match's seed stays, so the seed commitment and
  every later shuffle are the same).
* A *redeal* for a viewer changes only the cards it cannot see. Which cards a viewer has
  seen is worked out here from the rules' information model (the D sections of the rules
  files, restated in :data:`PRIVATE`), not from the engine's own ``audience``/``redact``, so
  that a log that wrongly shows a card cannot make that card count as seen. Per shuffle, a
  card is *unseen* when no event the viewer may see names it from that shuffle to the end of
  the step with the next shuffle of the whole pack (a Contract Rummy refill shuffles the
  discards again: they are then unseen again until shown; in a two-pack deck a code stands
  for both copies, so a code one copy of which the viewer has seen stays in place). The
  cards at the unseen places of a shuffle are dealt anew: for the deal in progress by the
  game's determinizer (fed the viewer's view and memory, so that it keeps what play
  revealed: All Fours voids, Seep keys), otherwise at random. A redeal under which the
  history is no longer legal (a command of it is rejected) is discarded; one under which the
  game's automatic events take another course fails the check unless a rule discloses that
  course to the table (:func:`plausible`: the only one is a Seep bidder's hand with no card
  above 8, which is shown and dealt again).
* What a viewer is told (:class:`Told`): its view, its legal listing, its log (the
  service's per-viewer redaction, :func:`cardgames.service.games.shown`, of every event), and the
  answer (accepted, or code, rule and message) to every command of a battery.

Replays start at the step that dealt the position's deal (its state with the new orders
in its chance source, which is what a replay from the start gives, as
``test_a_replay_from_the_deal_is_a_replay_from_the_start`` checks), or at the start of
the match for a redeal of every shuffle so far.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from msgspec.structs import replace

from cardgames.engine.all_fours import config as all_fours_config
from cardgames.engine.all_fours.cards import side_of
from cardgames.engine.bots.policy import bot_rules
from cardgames.engine.contract_rummy import config as rummy_config
from cardgames.engine.core.cards import STANDARD_PACK, is_card_or_joker
from cardgames.engine.core.commands import parse_command, to_dict
from cardgames.engine.core.protocol import GameRules, Rejection, Setup, Viewer
from cardgames.engine.core.registry import get_game
from cardgames.engine.core.replay import new_match
from cardgames.engine.seep import config as seep_config
from cardgames.engine.seep.cards import VALUE as SEEP_VALUE
from cardgames.service.games import shown
from tests.bots.helpers import cards_in

GAMES = ("all_fours", "seep", "contract_rummy")

# ---------------------------------------------------------------------------------------------
# Option sets: every enumerated option and flag of the game's table at random, integers in
# small ranges (small targets and leads keep matches short, so that positions reach late deals).


def _choices(rng: random.Random, choices: dict[str, tuple[str, ...]], flags: Sequence[str]) -> dict[str, Any]:
    options: dict[str, Any] = {key: rng.choice(values) for key, values in choices.items()}
    options.update({flag: rng.random() < 0.5 for flag in flags})
    return options


def random_options(game_name: str, rng: random.Random, overrides: dict[str, Any] | None = None) -> dict[str, Any]:
    """A random option set of ``game_name`` (``players`` included), with ``overrides``."""
    options = _random_options(game_name, rng, overrides or {})
    options.update(overrides or {})
    return options


def _random_options(game_name: str, rng: random.Random, overrides: dict[str, Any]) -> dict[str, Any]:
    if game_name == "all_fours":
        options = _choices(rng, all_fours_config.CHOICES, all_fours_config.FLAGS)
        ranks = rng.sample(["A", "K", "Q", "J", "10", "6", "2"], rng.randrange(0, 4))
        options.update(
            players=rng.choice(all_fours_config.PLAYER_COUNTS),
            target_score=rng.choice([2, 4, 7, 10, 14]),
            kick_values={rank: rng.randrange(0, 4) for rank in ranks},
            give_one_points=rng.randrange(0, 3),
            hang_jack_points=rng.randrange(0, 5),
            game_point_value=rng.randrange(0, 3),
        )
        return options
    if game_name == "seep":
        options = _choices(rng, seep_config.CHOICES, seep_config.FLAGS)
        # throwing a card that could capture lets floors grow to millions of groupings: a
        # quarter of the matches, so that the whole test stays fast
        options["throw_when_capture_available"] = rng.random() < 0.25
        options.update(
            max_houses_on_floor=rng.choice([None, 1, 2, 3]),
            sweep_points=rng.choice([0, 25, 50]),
            opening_sweep_points=rng.choice([0, 25]),
            last_play_sweep_points=rng.choice([0, 50]),
            ten_of_diamonds_points=rng.choice([0, 6]),
            majority_cards_bonus=rng.choice([0, 5]),
            minimum_deal_points=rng.choice([0, 9]),
            baazi_lead=rng.choice([20, 50, 100]),
            baazis_to_play=rng.choice([1, 2]),
            first_dealer=rng.choice(["random", 0, 1, 2, 3]),
        )
        return options
    options = {**_choices(rng, rummy_config.CHOICES, rummy_config.FLAGS), **overrides}
    players = overrides.get("players") or rng.choice([3, 4, 5, 6] if options["allow_six_to_eight"] else [3, 4, 5])
    deck = len(rummy_config.deck_for(options["deck_policy"], players))
    most = min(12, (deck - 2) // players)
    options.update(
        players=players,
        first_dealer=rng.choice(["draw_lowest", "random", str(rng.randrange(players))]),
        hand_sizes=sorted(rng.randrange(6, most + 1) for _ in range(rummy_config.DEALS)),
        min_run_length=rng.choice([3, 4]),
        # without a limit on refills a deal nobody goes out of lasts as long as the players like
        max_stock_refills=rng.choice([None, 0, 0, 1, 2]),
        ace_value=rng.choice([1, 15]),
        joker_value=rng.choice([15, 25]),
    )
    return options


# ---------------------------------------------------------------------------------------------
# Matches and positions


@dataclass
class Match:
    """A random match: its setup, its commands, and the states and events they went through."""

    game_name: str
    number: int
    options: dict[str, Any]
    seed: str
    config: Any
    start: list[Any]
    #: (seat, command, events) of every accepted command, in order
    steps: list[tuple[int, Any, list[Any]]]
    #: ``states[i]``: the state before step ``i`` (``states[-1]``: after the last)
    states: list[Any]

    @cached_property
    def rules(self) -> GameRules:
        return get_game(self.game_name)

    @cached_property
    def pack_size(self) -> int:
        return _pack_size(self.game_name, self.config)


def _pack_size(game_name: str, config: Any) -> int:
    if game_name == "contract_rummy":
        return len(rummy_config.deck_for(config.deck_policy, config.players))
    return len(STANDARD_PACK)


def seed_of(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


#: A match stops early once a deal has run for this many commands (Contract Rummy players who
#: take the discard and throw another back can keep a deal going for ever): the replays of a
#: position's deal stay short.
MAX_DEAL_STEPS = 160


def play_match(game_name: str, number: int, rng: random.Random, overrides: dict[str, Any] | None = None) -> Match:
    """Random legal play from a random option set (with ``overrides``), until the match is over
    (or a deal runs too long)."""
    rules = get_game(game_name)
    options = random_options(game_name, rng, overrides)
    config = rules.make_config(options, None)
    seed = seed_of(f"{game_name}/{number}/{rng.random()}")
    state, start = new_match(rules, config, Setup(seed=seed))
    steps: list[tuple[int, Any, list[Any]]] = []
    states = [state]
    # Contract Rummy played at random hardly ever goes down, and its deals last until the stock
    # runs dry: most of its commands are the rules-of-thumb player's, so that melds, lay-offs,
    # joker swaps and going out are reached
    guided = bot_rules(game_name).heuristic_policy(config) if game_name == "contract_rummy" else None
    dealt = 0  # the step that dealt the deal in progress
    while not rules.is_over(state) and len(steps) - dealt < MAX_DEAL_STEPS:
        if guided is not None and rng.random() < 0.8:
            seat = rules.to_act(state)[0]
            command = guided.choose(rules.view(state, seat), rules.legal_commands(state, seat), rng)
        else:
            seat, command = _random_command(rules, state, rng)
        events = rules.decide(state, seat, command)
        if isinstance(events, Rejection):
            continue
        for event in events:
            state = rules.evolve(state, event)
        steps.append((seat, command, list(events)))
        states.append(state)
        if any(_tag(event) == "shuffled" and len(event.order) == _pack_size(game_name, config) for event in events):
            dealt = len(steps)
    return Match(game_name, number, options, seed, config, start, steps, states)


def _random_command(rules: GameRules, state: Any, rng: random.Random) -> tuple[int, Any]:
    """Mostly a listed command of the seat to act; sometimes one of another seat's listing (an All
    Fours call), or a play out of turn (an All Fours exposure, which no listing holds; rejected
    where the rules refuse it)."""
    seat = rules.to_act(state)[0]
    if rules.NAME != "all_fours":  # only All Fours lets a seat other than the one to act do anything
        legal = rules.legal_commands(state, seat)
        return seat, legal[rng.randrange(len(legal))]
    draw = rng.random()
    other = rng.randrange(len(state.hands))
    if draw < 0.2:
        listed = rules.legal_commands(state, other)
        if listed:
            return other, listed[rng.randrange(len(listed))]
    elif draw < 0.4 and state.hands[other]:
        return other, parse_command(rules, {"type": "play", "card": rng.choice(state.hands[other])})
    legal = rules.legal_commands(state, seat)
    return seat, legal[rng.randrange(len(legal))]


@dataclass(frozen=True)
class Shuffle:
    """One shuffle of the match: where its event stands, the step that made it (-1: the start), its order."""

    index: int
    step: int
    order: tuple[str, ...]
    whole: bool


@dataclass
class Position:
    """The match after ``at`` steps (not over)."""

    match: Match
    at: int
    #: the viewer's unseen places of each shuffle, once worked out (see :func:`unseen_places`)
    unseen: dict[tuple[Viewer, int], list[int]] = field(default_factory=dict)

    @property
    def state(self) -> Any:
        return self.match.states[self.at]

    @cached_property
    def events(self) -> list[tuple[int, Any]]:
        """(step, event) of every event so far; step -1 for the start's."""
        flat = [(-1, event) for event in self.match.start]
        for step, (_, _, events) in enumerate(self.match.steps[: self.at]):
            flat += [(step, event) for event in events]
        return flat

    @cached_property
    def shuffles(self) -> list[Shuffle]:
        found = [
            Shuffle(index, step, event.order, len(event.order) == self.match.pack_size)
            for index, (step, event) in enumerate(self.events)
            if _tag(event) == "shuffled"
        ]
        # the k-th Shuffled event takes the k-th stacked order (engine/core/chance.py)
        assert [self.events[s.index][1].shuffle_no for s in found] == list(range(len(found)))
        return found

    @cached_property
    def bidders_kept(self) -> list[int]:
        """Seep: the shuffles of a deal whose bidder was not dealt again (A5.3)."""
        if self.match.game_name != "seep":
            return []
        events = self.events
        kept = []
        for k, shuffle in enumerate(self.shuffles):
            if shuffle.index == 0 or _tag(events[shuffle.index - 1][1]) != "deal_started":
                continue  # the draw for the first dealer
            end = self.shuffles[k + 1].index if k + 1 < len(self.shuffles) else len(events)
            if not any(_tag(event) == "redealt" for _, event in events[shuffle.index : end]):
                kept.append(k)
        return kept

    def deal_of(self, k: int) -> int:
        """The shuffle of the whole pack that began the deal shuffle ``k`` belongs to."""
        while not self.shuffles[k].whole:
            k -= 1
        return k

    def describe(self) -> str:
        """Everything needed to play this position again."""
        match = self.match
        history = [[seat, to_dict(command)] for seat, command, _ in match.steps[: self.at]]
        return (
            f"game {match.game_name}, match {match.number}, options {json.dumps(match.options)}, "
            f"seed {match.seed}, after {self.at} commands: {json.dumps(history)}"
        )


#: Positions taken from each random match (about one in 30 of its commands): a new option set
#: every few dozen positions, and match generation a small part of the test's time.
PER_MATCH = {"all_fours": 5, "seep": 10, "contract_rummy": 16}


def positions(
    game_name: str,
    count: int,
    seed: str,
    overrides: dict[str, Any] | None = None,
    per_match: int | None = None,
    within: int | None = None,
) -> Iterator[Position]:
    """``count`` positions, :data:`PER_MATCH` (or ``per_match``) at random points of each random
    match (among its first ``within`` commands, when given)."""
    per_match = per_match or PER_MATCH[game_name]
    rng = random.Random(seed)
    found = 0
    number = 0
    while found < count:
        match = play_match(game_name, number, rng, overrides)
        number += 1
        last = len(match.steps) if within is None else min(within, len(match.steps))
        live = [at for at in range(last + 1) if not match.rules.is_over(match.states[at])]
        for at in sorted(rng.sample(live, min(per_match, len(live), count - found))):
            found += 1
            yield Position(match, at)


# ---------------------------------------------------------------------------------------------
# What a viewer has seen (the rules' information model, D), and redeals of the rest


def _tag(event: Any) -> str:
    return str(type(event).__struct_config__.tag)


def _seat(event: Any) -> int:
    return int(event.seat)


#: Per game, the events whose cards only one seat sees (the function names it; None: nobody).
#: Every other event is public. Restated from the rules files' D sections, not read from the engine.
PRIVATE: dict[str, dict[str, Callable[[Any], int | None]]] = {
    "all_fours": {
        "cards_dealt": lambda event: None if event.held_back else event.seat,
        "cards_delivered": _seat,
        "match_seeded": lambda event: None,
        "shuffled": lambda event: None,
    },
    "seep": {
        "cards_dealt": _seat,
        "floor_dealt": lambda event: None,
        "match_seeded": lambda event: None,
        "shuffled": lambda event: None,
    },
    "contract_rummy": {
        "cards_dealt": _seat,
        "stock_drawn": _seat,
        "match_seeded": lambda event: None,
        "shuffled": lambda event: None,
    },
}


def sees(game_name: str, event: Any, viewer: Viewer) -> bool:
    private = PRIVATE[game_name].get(_tag(event))
    if private is None:
        return True
    return viewer is not None and private(event) == viewer


def unseen_places(position: Position, viewer: Viewer, k: int) -> list[int]:
    """The places of shuffle ``k``'s order whose card the viewer has not seen since (see the module)."""
    key = (viewer, k)
    if key not in position.unseen:
        position.unseen[key] = _unseen_places(position, viewer, k)
    return position.unseen[key]


def _unseen_places(position: Position, viewer: Viewer, k: int) -> list[int]:
    shuffles = position.shuffles
    events = position.events
    end = len(events)
    following = next((s for s in shuffles[k + 1 :] if s.whole), None)
    if following is not None:
        # up to the end of the step that gathers the pack: an event of that step may still name
        # cards of this shuffle (All Fours shows every round of the cut for dealer at its end)
        end = next((i for i in range(following.index, end) if events[i][0] != following.step), end)
    seen: set[str] = set()
    game_name = position.match.game_name
    for _, event in events[shuffles[k].index + 1 : end]:
        if sees(game_name, event, viewer):
            seen |= cards_in(event)
    # (a Contract Rummy ``random`` first dealer is a shuffle of seat numbers: its outcome is public)
    return [place for place, card in enumerate(shuffles[k].order) if card not in seen and is_card_or_joker(card)]


def _memory(position: Position, viewer: Viewer, deal_step: int) -> Any:
    """What a viewer that watched every view of the deal remembers (the determinizer's input)."""
    match = position.match
    if match.game_name == "contract_rummy":
        return None
    rules = bot_rules(match.game_name)
    memory = None
    for state in match.states[deal_step + 1 : position.at + 1]:
        memory = rules.remember(memory, match.rules.view(state, viewer))
    if match.game_name == "seep" and memory is not None:
        # every capture is a public event (D): a viewer of the log knows the piles, whatever
        # the inspection window lets its view show
        piles = position.state.piles
        memory = replace(memory, piles=(frozenset(piles[0]), frozenset(piles[1])))
    return memory


def places_of(game_name: str, state: Any) -> list[Sequence[str]]:
    """The places a card of the deal in progress can be in, the same for a state and its determinization."""
    if game_name == "seep":
        return [*state.hands, state.stock, state.loose, *state.piles]
    return [*state.hands, state.stock]


def determinization(position: Position, viewer: Viewer, rng: random.Random) -> Any:
    """The game's determinizer's state for the viewer at the position (its view and memory only)."""
    match = position.match
    deal_step = position.shuffles[position.deal_of(len(position.shuffles) - 1)].step
    view = match.rules.view(position.state, viewer)
    return bot_rules(match.game_name).determinize(match.config, view, rng, _memory(position, viewer, deal_step))


def determinized(position: Position, k: int, unseen: list[int], sample: Any) -> tuple[str, ...] | None:
    """Shuffle ``k``'s order with its unseen cards where a determinization ``sample`` put them
    (they follow their places through the deal); None when the determinizer's unseen cards are
    not exactly these (two packs)."""
    order = position.shuffles[k].order
    cards = {order[place] for place in unseen}
    if len(set(order)) != len(order):
        return None
    game_name = position.match.game_name
    before = [[card for card in place if card in cards] for place in places_of(game_name, position.state)]
    after = [[card for card in place if card in cards] for place in places_of(game_name, sample)]
    flat_before = [card for place in before for card in place]
    if len(flat_before) != len(cards) or Counter(card for place in after for card in place) != Counter(flat_before):
        return None
    if [len(place) for place in before] != [len(place) for place in after]:
        return None
    sigma = {old: new for was, now in zip(before, after, strict=True) for old, new in zip(was, now, strict=True)}
    return tuple(sigma.get(card, card) for card in order)


@dataclass
class Stats:
    """How the redeals went, per game (printed, and checked for a floor of useful redeals)."""

    positions: int = 0
    redeals: int = 0
    determinized: int = 0
    undeterminized: int = 0
    discarded: int = 0
    implausible: int = 0
    unchanged: int = 0
    commands: int = 0
    disclosed: int = 0

    def line(self, game_name: str) -> str:
        return f"{game_name}: " + ", ".join(f"{key} {value}" for key, value in self.__dict__.items())


def redeal(
    position: Position, viewer: Viewer, rng: random.Random, everything: bool, stats: Stats
) -> list[tuple[str, ...]]:
    """New orders for every shuffle so far: the viewer's unseen cards of the deal in progress
    (or, ``everything``, of every deal so far) dealt anew."""
    shuffles = position.shuffles
    last = len(shuffles) - 1
    orders = [s.order for s in shuffles]
    first = 0 if everything else position.deal_of(last)
    for k in range(first, last + 1):
        unseen = unseen_places(position, viewer, k)
        order: tuple[str, ...] | None = None
        if k == last and position.deal_of(k) == k:
            order = determinized(position, k, unseen, determinization(position, viewer, rng))
            if order is None:
                stats.undeterminized += 1
            else:
                stats.determinized += 1
        if order is None:
            cards = [orders[k][place] for place in unseen]
            rng.shuffle(cards)
            changed = list(orders[k])
            for place, card in zip(unseen, cards, strict=True):
                changed[place] = card
            order = tuple(changed)
        orders[k] = order
    return orders


def plausible(position: Position, orders: Sequence[tuple[str, ...]]) -> bool:
    """Whether the orders keep what the rules show the table by themselves, apart from any command.

    Seep (A5.3): a deal whose bidder was not dealt again showed that the bidder's four cards
    hold one above 8 (else they are shown and the deal is void)."""
    return all(
        any(SEEP_VALUE[card] > 8 for card in orders[k][:4])
        for k in position.bidders_kept
        if orders[k] is not position.shuffles[k].order
    )


# ---------------------------------------------------------------------------------------------
# Worlds


@dataclass
class World:
    """The history of a position played from some orders: the state reached, the events since ``first``."""

    state: Any
    events: list[Any]
    first: int


class Diverged(AssertionError):
    """A redeal under which the automatic events took another course (see the module)."""


def replay(position: Position, orders: Sequence[tuple[str, ...]], first: int) -> World | Rejection:
    """The position's history from step ``first`` (-1: the start) with these shuffle orders."""
    match = position.match
    rules = match.rules
    decks = tuple(orders)
    if first < 0:
        state, events = new_match(rules, match.config, Setup(seed=match.seed, decks=decks))
        _same_course(position, match.start, events, "the start")
        first_step = 0
    else:
        state = match.states[first]
        state = replace(state, chance=replace(state.chance, decks=decks))
        events = []
        first_step = first
    for step in range(first_step, position.at):
        seat, command, original = match.steps[step]
        outcome = rules.decide(state, seat, command)
        if isinstance(outcome, Rejection):
            return outcome
        _same_course(position, original, outcome, f"step {step}")
        for event in outcome:
            state = rules.evolve(state, event)
        events += outcome
    return World(state, list(events), first)


def _same_course(position: Position, original: Sequence[Any], replayed: Sequence[Any], where: str) -> None:
    if [_tag(event) for event in original] != [_tag(event) for event in replayed]:
        raise Diverged(
            f"the redeal changed the course of the game at {where}: {[_tag(e) for e in original]} became "
            f"{[_tag(e) for e in replayed]}\n{position.describe()}"
        )


# ---------------------------------------------------------------------------------------------
# What a viewer is told


Answer = tuple[str, str, str] | str


def answer(outcome: Any) -> Answer:
    if isinstance(outcome, Rejection):
        return (outcome.code.value, outcome.rule, outcome.message)
    return "accepted"


#: A listing longer than this is compared by its length and the commands at fixed indices.
LISTING_IN_FULL = 400


@dataclass
class Told:
    """What one viewer is told in one world."""

    view: Any
    log: list[tuple[Any, bool]]
    listing: list[Any]
    answers: list[Answer]


def tell(rules: GameRules, world: World, viewer: Viewer, battery: Sequence[Any], indices: Sequence[int]) -> Told:
    """The viewer's view, log (as GetLog and Watch show it), listing (at ``indices`` when long)
    and the answers to ``battery``."""
    state = world.state
    log = [shown(rules, event, viewer, False) for event in world.events]
    if viewer is None:
        return Told(rules.view(state, viewer), log, [], [])
    listing = rules.legal_commands(state, viewer)
    listed = list(listing) if len(listing) <= LISTING_IN_FULL else [len(listing), *(listing[i] for i in indices)]
    answers = [answer(rules.decide(state, viewer, command)) for command in battery]
    return Told(rules.view(state, viewer), log, listed, answers)


def listing_indices(rules: GameRules, state: Any, viewer: Viewer, rng: random.Random) -> list[int]:
    if viewer is None:
        return []
    total = len(rules.legal_commands(state, viewer))
    if total <= LISTING_IN_FULL:
        return []
    return sorted({*range(20), *(rng.randrange(total) for _ in range(40))})


def parsed(rules: GameRules, raw: Sequence[dict[str, Any]]) -> list[Any]:
    return [parse_command(rules, command) for command in raw]


@dataclass
class Difference:
    channel: str
    detail: str


def difference(base: Told, other: Told, battery: Sequence[Any], disclosed: set[int]) -> Difference | None:
    """The first thing the viewer is told differently in two worlds, but for what the rules disclose.

    A disclosed answer may be ``accepted`` in one world and rejected in another, but every
    rejection of it is the same; the listing may differ only by disclosed commands, each
    listed exactly where it is accepted."""
    if base.view != other.view:
        return Difference("view", f"{to_dict(base.view)}\n  !=\n{to_dict(other.view)}")
    if base.log != other.log:
        for index, (one, two) in enumerate(zip(base.log, other.log, strict=True)):
            if one != two:
                return Difference("log", f"entry {index}: {to_dict(one[0])} != {to_dict(two[0])}")
        return Difference("log", "lengths differ")
    kept = [c for c in range(len(battery)) if c not in disclosed]
    for index in kept:
        if base.answers[index] != other.answers[index]:
            return Difference(
                "answer", f"{to_dict(battery[index])}: {base.answers[index]} != {other.answers[index]}"
            )
    for index in disclosed:
        answers = {base.answers[index], other.answers[index]} - {"accepted"}
        if len(answers) > 1:
            return Difference("answer", f"{to_dict(battery[index])}: {sorted(map(str, answers))}")
    disclosed_commands = [battery[i] for i in disclosed]
    for told in (base, other):
        accepted = {i for i in disclosed if told.answers[i] == "accepted"}
        listed = {i for i in disclosed if battery[i] in told.listing}
        if accepted != listed:
            return Difference("listing", f"disclosed commands listed {listed}, accepted {accepted}")

    def public(listing: list[Any]) -> list[Any]:
        return [command for command in listing if command not in disclosed_commands]

    if public(base.listing) != public(other.listing):
        return Difference("listing", f"{[to_dict(c) for c in base.listing]} != {[to_dict(c) for c in other.listing]}")
    return None


def disclosed_calls(game_name: str, state: Any, viewer: Viewer) -> list[dict[str, Any]]:
    """The commands whose answer the rules let depend on an unseen card (FORMAT.md dicts).

    All Fours (A14): a call of an exposed card, by a seat allowed to call it, on its owner's
    turn in trick play, is accepted exactly when the card is in the owner's legal set now,
    which depends on the owner's other cards (whether it can follow suit or trump; under
    ``no_undertrump`` whether it holds a card that is not a trump). The table learns the
    same when the owner refuses the call by playing another card. Nothing else is disclosed."""
    if game_name != "all_fours" or viewer is None or state.phase != "play":
        return []
    owner = state.turn
    if owner == viewer or (state.config.callers == "opponents" and side_of(viewer) == side_of(owner)):
        return []
    return [{"type": "call", "owner": owner, "card": card} for card in state.exposed[owner]]


def disclosed(game_name: str, state: Any, viewer: Viewer, battery: Sequence[Any]) -> set[int]:
    """The indices of the battery's commands that :func:`disclosed_calls` lists."""
    calls = disclosed_calls(game_name, state, viewer)
    return {index for index, command in enumerate(battery) if _tag(command) == "call" and to_dict(command) in calls}
