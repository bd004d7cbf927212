"""Worst cases of legal-command enumeration, next to the cost of a deal in a playout.

Each position is a FORMAT.md state snapshot (``/work/shared/conformance/FORMAT.md``)
built into a state with the game's own ``from_snapshot``; the figure is the median
CPU time of what a random playout pays at that position: ``legal_commands`` for the seat
to act, its length and one command picked at random (a game may answer with a lazy
``cardgames.engine.core.lazy_listing.Listing`` that makes a command only when it is picked).
It is measured twice:

* **cold**: the game's ``clear_caches()`` (every cache and memo its listing reads: the
  Contract Rummy finder's lru caches, the contract shapes, the leftover rules, the last
  listing; Seep's last options and listing) runs, untimed, before every call: what the
  first visit of a position costs. The cold figure carries the target.
* **warm**: after one untimed call, the calls repeated on the same position: what a
  position costs when the caches already hold what it needs (the earlier figure of this
  row, which hid most of the finder's work).

The row shows, per kind of position, the worst of them. For Seep the rows also give what a
bot and the service pay there, cold: every command made (``made``: iterating the listing, as
a bot that scores every command does) and the first page of ListLegalCommands (``page``: the
count, then the default page of 1,000 commands, made by the service's ``page_of``).

They are compared with the same game's random playouts: (a) the median per-step
``legal_commands`` time (timed at every step, info) and (b) the **median deal**: whole
random matches, each timed as a whole with no timer inside it, the median over the matches
of a match's CPU time divided by its deals. A single worst-case call must stay well under
a deal ("must never dominate a playout"): target <= 0.5 deal, cold; Seep's first page,
target <= 1 deal on every plausible floor (the floors the default rules can produce).

Seep (rules A6-A8): many loose cards and several houses, so that captures (maximal
selections of disjoint groups) and builds (every grouping of loose cards into a
house) multiply. Loose cards of distinct values are what play can produce under the
default rules (a card that could capture may not be thrown); several loose cards of
one small value only come from the first four floor cards, so the floors of many
small duplicates are constructed: play reaches them only under the option to throw
any card (B-7). The extreme floors hold every card of the low values (24 to 40 loose
cards: billions of commands), which that option allows when nobody captures for
dozens of plays; their row shows how far the cost grows.

Contract Rummy (rules A.6, A.7, A.8): the contract finder, on 12-card deals (5-7)
with two jokers (three players, the ``pagat`` deck: two packs and two jokers), a
hand of overlapping sets and runs, after the draw (13 cards) and before it (digs
into the discard pile, whose ``then`` must hold the contract).
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from bench.harness import Context, Probe, Unavailable, cpu_clock
from bench.playout import SPECS, Player, load_game
from cardgames.engine.core.cards import STANDARD_PACK
from cardgames.engine.core.protocol import Setup
from cardgames.engine.seep.cards import VALUE
from cardgames.service.games import DEFAULT_PAGE_SIZE
from cardgames.service.games.paging import PAGE_SECONDS
from cardgames.service.worker_process import page_of

SETUP = Setup(seed="5e" * 32)
#: Positions with more commands than this are not also made in full (``made_ms``): the extreme
#: floors have billions.
MADE_AT_MOST = 2_000_000


@dataclass(frozen=True)
class Position:
    name: str
    snapshot: dict[str, Any]
    options: dict[str, Any] = field(default_factory=dict)
    players: int | None = None
    #: "plausible": a position play can produce under the default rules; "constructed": one
    #: play can only produce under an option (or not at all); "extreme": the largest floors
    #: at all, every card of the low values loose (thrown one after another, nothing captured)
    kind: str = "plausible"
    heavy: bool = False  #: a tenth of a second or more per call: left out of smoke runs (Settings.heavy False)


# --------------------------------------------------------------------------- Seep positions

SEEP_LOOSE_SMALL = ("AS", "AH", "AD", "AC", "2S", "2H", "2D", "2C", "3S", "3H", "3D", "3C", "4S", "4H")
#: J (opponent seat 0), Q (opponent seat 2), cemented K (seat 0): seat 1 may cement or capture each.
SEEP_THREE_HOUSES = (
    {"value": 11, "components": [["5D", "6D"]], "owners": [0]},
    {"value": 12, "components": [["5C", "7C"]], "owners": [2]},
    {"value": 13, "components": [["6C", "7H"], ["KS"]], "owners": [0]},
)
SEEP_THREE_KEYS = {0: ("JS", "KD"), 2: ("QS",)}


def seep_position(
    loose: Sequence[str], houses: Sequence[dict[str, Any]], actor_hand: Sequence[str],
    keys: Mapping[int, Sequence[str]], held: int = 6,
) -> dict[str, Any]:
    """Dealer 0 after 4 * (12 - held) plays (every seat holds ``held``), seat 1 to act; the
    rest of the pack fills the other hands (owners' keys first) and team 0's pile."""
    hands: list[list[str]] = [[], list(actor_hand), [], []]
    for seat, cards in keys.items():
        hands[seat].extend(cards)
    used = set(loose) | {card for house in houses for part in house["components"] for card in part}
    used |= {card for hand in hands for card in hand}
    rest = [card for card in STANDARD_PACK if card not in used]
    for seat in (0, 2, 3):
        while len(hands[seat]) < held:
            hands[seat].append(rest.pop())
    return {
        "dealer": 0, "phase": "play", "to_act": 1, "bid": 11, "plays": 4 * (12 - held), "hands": hands, "stock": [],
        "floor": {"loose": list(loose), "houses": [dict(house) for house in houses]},
        "piles": [rest, []], "last_capture_team": 0,
    }


#: The slowest of about 28,000 random floors that play can produce (a random search over
#: loose values, duplicates, houses and hands, keeping floors whose cards can arrive in some
#: order with each thrown card no sum of those before it, the first four floor cards aside):
#: every value A-K loose (thrown from K down, nothing can capture) and two extra 5s.
SEARCHED_FLOOR = ("7C", "5H", "3D", "9S", "QS", "AS", "2H", "6S", "4H", "JD", "10D", "KC", "8S", "5C", "5D")
#: The slowest floor play can produce found so far (docs/seep_legal_commands.md): four 5s first,
#: then every value no sum of the cards before it, thrown from the king down; a nine-card hand.
SLOWEST_FLOOR = ("5S", "5H", "5D", "5C", "KS", "QS", "JS", "9S", "8S", "7S", "6S", "4S", "3S", "2S", "AS")
SLOWEST_HAND = ("2H", "KC", "JC", "AH", "2D", "AC", "AD", "2C", "QD")


def seep_positions() -> list[Position]:
    actor = ("KH", "QH", "JH", "10H", "9H", "AH")
    small = [card for card in SEEP_LOOSE_SMALL if card != "AH"] + ["4D"]
    five_houses = (
        {"value": 9, "components": [["5D", "4D"]], "owners": [3]},
        {"value": 10, "components": [["6D", "4C"]], "owners": [0]},
        {"value": 11, "components": [["5C", "6C"]], "owners": [2]},
        {"value": 12, "components": [["7C", "5H"]], "owners": [0]},
        {"value": 13, "components": [["6H", "7H"], ["KS"]], "owners": [0, 2]},
    )
    distinct = ["AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S"]
    return [
        Position("8 loose A-8, 5 houses 9-K",
                 seep_position(distinct, five_houses, actor, {0: ("10S", "QS", "KD"), 2: ("JS", "KC"), 3: ("9S",)})),
        Position("10 loose A-10, 3 houses",
                 seep_position([*distinct, "9S", "10S"], SEEP_THREE_HOUSES, actor, SEEP_THREE_KEYS)),
        Position("15 loose A-K + two more 5s, no house (searched)",
                 seep_position(SEARCHED_FLOOR, (), ("2S", "KD", "KH", "AC", "8D", "10C"), {})),
        Position("four 5s + A-K but 5 and 10, nine-card hand (slowest found)",
                 seep_position(SLOWEST_FLOOR, (), SLOWEST_HAND, {}, held=9)),
        Position("12 loose A-8 + A-4, 3 houses",
                 seep_position([*distinct, "2H", "3H", "4H", "AD"], SEEP_THREE_HOUSES, actor, SEEP_THREE_KEYS),
                 kind="constructed", heavy=True),
        Position("12 loose A-3 x4, 3 houses",
                 seep_position(small[:12], SEEP_THREE_HOUSES, actor, SEEP_THREE_KEYS), kind="constructed",
                 heavy=True),
        Position("14 loose A-4 (A-3 x4, 4S 4H), 3 houses",
                 seep_position(small[:14], SEEP_THREE_HOUSES, actor, SEEP_THREE_KEYS), kind="constructed",
                 heavy=True),
        *(Position(f"every A-{highest} loose ({4 * highest} cards), no house, two-card hand",
                   seep_position(every_card_up_to(highest), (), ("KH", "QH"), {}, held=2), THROW_ANYTHING,
                   kind="extreme", heavy=True)
          for highest in (6, 10)),
    ]


#: The option under which a card that could capture may be thrown (B-7): the only way a floor
#: grows past the distinct values.
THROW_ANYTHING = {"throw_when_capture_available": True}


def every_card_up_to(highest: int) -> list[str]:
    return [card for card in STANDARD_PACK if VALUE[card] <= highest]


# --------------------------------------------------------------------------- Contract Rummy positions

CR_OPTIONS = {"deck_policy": "pagat"}  # three players: two packs and two jokers (rules A.2)
CR_PLAYERS = 3


def rummy_position(deal: int, hand: Sequence[str], discard: Sequence[str], drawn: str | None) -> dict[str, Any]:
    """Three players, dealer 0, seat 1 to act in a 12-card deal: before the draw with
    ``discard`` (top first), or after drawing ``drawn`` from the stock (13 cards)."""
    deck = Counter({card: 2 for card in STANDARD_PACK}) + Counter({"JK": 2})
    hands: list[list[str]] = [[], list(hand), [], []][:CR_PLAYERS]
    if drawn is not None:
        hands[1].append(drawn)
    rest = list((deck - Counter(hands[1]) - Counter(discard)).elements())
    rest.sort(key=lambda card: (card == "JK", card))
    for seat in (0, 2):
        hands[seat] = [rest.pop() for _ in range(12)]
    snap: dict[str, Any] = {
        "deal": deal, "dealer": 0, "phase": "play" if drawn else "draw", "to_act": 1, "hands": hands,
        "stock": rest, "discard": list(discard), "melds": [], "contract_met": [False] * CR_PLAYERS,
        "scores": [0] * CR_PLAYERS,
    }
    if drawn is not None:
        snap["turn"] = {"drew": "stock", "taken": [drawn], "went_down": False}
    return snap


#: Found by a random search over 12-card hands and discard piles (deals 5-7, 1-2 jokers, 2-40
#: discards; about 80,000 positions, the slowest re-timed): before the draw, every dig depth runs
#: the finder with the dug card pinned, so a long discard pile multiplies its searches.
SEARCHED_PILE_TWO_JOKERS = (
    ("8H", "4C", "6H", "7D", "6C", "4S", "9H", "8H", "5C", "9S", "JK", "JK"),
    ("2C", "5S", "8S", "JS", "KH", "KD", "7C", "3C", "KC", "7S", "3S", "6S", "9D", "JD", "4H", "QS", "8S", "3C",
     "AD", "5C", "QD", "KH", "4H", "KS", "5S", "3S", "KD", "AD", "10C", "10D", "8D", "3H", "2H", "QH", "10D", "QC",
     "3D", "10S", "10C", "10H"),
)
SEARCHED_PILE_ONE_JOKER = (
    ("7H", "6C", "6D", "6D", "7D", "7S", "4S", "5C", "4C", "4H", "5D", "JK"),
    ("5C", "10C", "9D", "2S", "8C", "9S", "3H", "7C", "10H", "6H", "7D", "7S", "QC", "7H", "2H", "JH", "QD", "10H",
     "2S", "7C", "8H", "3S", "8H", "5D", "JC", "2D", "9H", "9C", "3C", "4D", "KC", "QH", "10C", "10D", "6S", "KS",
     "AC", "10S", "9D", "JS"),
)


def rummy_positions() -> list[Position]:
    # four ranks in three suits: sets of every rank, runs in three suits, two jokers anywhere
    overlap = ("5H", "6H", "7H", "8H", "5S", "6S", "7S", "8S", "5D", "6D", "JK", "JK")
    runs = ("3H", "4H", "5H", "6H", "3S", "4S", "5S", "6S", "3D", "4D", "JK", "JK")
    pile = ("7D", "5C", "8D", "6C", "4C", "9S", "7C", "8C")

    def position(name: str, deal: int, hand: Sequence[str], discard: Sequence[str], drawn: str | None) -> Position:
        return Position(name, rummy_position(deal, hand, discard, drawn), CR_OPTIONS, CR_PLAYERS)

    positions = []
    for deal, contract in ((5, "2 sets + 1 run"), (6, "1 set + 2 runs")):
        positions.append(position(f"deal {deal} ({contract}), 2 jokers, 13 cards after the draw", deal, overlap,
                                  pile, "7D"))
        positions.append(position(f"deal {deal} ({contract}), 2 jokers, before the draw, 8 discards", deal, overlap,
                                  pile, None))
    positions.append(position("deal 7 (3 runs, whole hand), 2 jokers, 13 cards after the draw", 7, runs, pile, "7H"))
    positions.append(position("deal 7 (3 runs, whole hand), 2 jokers, before the draw, 8 discards", 7, runs, pile,
                              None))
    positions.append(position("deal 6 (1 set + 2 runs), 2 jokers, before the draw, 40 discards (searched)", 6,
                              *SEARCHED_PILE_TWO_JOKERS, None))
    positions.append(position("deal 6 (1 set + 2 runs), 1 joker, before the draw, 40 discards (searched)", 6,
                              *SEARCHED_PILE_ONE_JOKER, None))
    return positions


# --------------------------------------------------------------------------- the probe


@dataclass
class Built:
    position: Position
    state: Any
    seat: int
    commands: int
    #: per sample, the median time to list and pick one command at random: with every cache of the
    #: game cleared before each call (cold), and as the calls before left them (warm)
    cold: list[float] = field(default_factory=list)
    warm: list[float] = field(default_factory=list)
    made: list[float] = field(default_factory=list)  #: list and make every command (cold)
    paged: list[float] = field(default_factory=list)  #: count and make the service's first page (cold)


def cache_clearer(game: Any) -> Callable[[], None]:
    """The game's ``clear_caches`` (every cache and memo its listing reads); for a game without one,
    a function that clears every functools cache (``cache_clear``) of the game package's modules."""
    clear = getattr(game, "clear_caches", None)
    if callable(clear):
        return cast(Callable[[], None], clear)
    package = getattr(game, "__name__", "")
    caches = [
        value for name, module in list(sys.modules.items()) if name == package or name.startswith(f"{package}.")
        for value in vars(module).values() if callable(getattr(value, "cache_clear", None))
    ]

    def clear_every_cache() -> None:
        for cached in caches:
            cached.cache_clear()

    return clear_every_cache


class WorstLegalProbe(Probe):
    """The slowest ``legal_commands`` among constructed positions, cold and warm, vs a playout's steps and deals."""

    def __init__(self, game_name: str, positions: Sequence[Position]) -> None:
        self.game_name = game_name
        self.positions = list(positions)
        self.built: list[Built] = []
        self._steps: list[float] = []

    def setup(self, ctx: Context) -> None:
        game = load_game(self.game_name)
        self.game = game
        self.clear = cache_clearer(game)
        for position in self.positions:
            if position.heavy and not ctx.settings.heavy:
                continue
            config = game.make_config(position.options, position.players)
            try:
                state = game.from_snapshot(config, position.snapshot, SETUP)
            except Exception as error:
                raise RuntimeError(f"position {position.name!r} is refused by from_snapshot: {error}") from error
            seats = game.to_act(state)
            if len(seats) != 1:
                raise RuntimeError(f"position {position.name!r}: to_act is {seats}, expected one seat")
            commands = game.legal_commands(state, seats[0])
            if not commands:
                raise Unavailable(f"{self.game_name}.legal_commands lists nothing for {position.name!r} yet")
            self.built.append(Built(position, state, seats[0], len(commands)))
        self.player = Player(SPECS[self.game_name], ctx.settings.seed)
        self.player.play()  # warm up

    def _time_position(self, built: Built, budget: float, cold: bool) -> float:
        """The median CPU time of listing and picking one command at random, as a playout does:
        ``cold``, every cache cleared (untimed) before each call; else after one untimed call."""
        legal, state, seat, clock, clear = self.game.legal_commands, built.state, built.seat, cpu_clock, self.clear
        pick = random.Random(len(built.cold)).randrange
        if not cold:
            legal(state, seat)
        times = []
        start = clock()
        while True:
            if cold:
                clear()
            before = clock()
            commands = legal(state, seat)
            commands[pick(len(commands))]
            after = clock()
            times.append(after - before)
            if after - start >= budget:
                break
        return statistics.median(times)

    def _first_page(self, built: Built) -> float:
        """What ListLegalCommands' first page costs, cold: the count, then the commands of the
        default page made by the service's own ``page_of`` (its CPU-time limit included)."""
        self.clear()
        before = cpu_clock()
        commands = self.game.legal_commands(built.state, built.seat)
        page_of(commands, 0, min(len(commands), DEFAULT_PAGE_SIZE), PAGE_SECONDS)
        return cpu_clock() - before

    def _every_command(self, built: Built) -> float:
        """What a bot that scores every command pays, cold: the listing made in full."""
        self.clear()
        before = cpu_clock()
        made = list(self.game.legal_commands(built.state, built.seat))
        elapsed = cpu_clock() - before
        del made
        return elapsed

    def sample(self, ctx: Context) -> dict[str, float]:
        share = ctx.settings.budget / (2 * len(self.built) + 3)
        # The playout first, on the heap the runner has just collected: the worst positions'
        # huge command lists would otherwise leave garbage whose collection lands in the deals.
        figures = {"deal_ms": self._deals(2 * share) * 1e3, "median_step_ms": self._median_step(share) * 1e3}
        for built in self.built:
            built.cold.append(self._time_position(built, share, cold=True))
            built.warm.append(self._time_position(built, share, cold=False))
            built.paged.append(self._first_page(built))
            if built.commands <= MADE_AT_MOST:
                built.made.append(self._every_command(built))
        for built in self.built:
            kind = built.position.kind
            latest = {"cold": built.cold[-1], "warm": built.warm[-1], "page": built.paged[-1]}
            if built.made:
                latest["made"] = built.made[-1]
            for figure, seconds in latest.items():
                key = f"{figure}_{kind}_ms"
                figures[key] = max(figures.get(key, 0.0), seconds * 1e3)
        return figures

    def _deals(self, budget: float) -> float:
        """The median over whole random matches (``budget`` seconds of them) of a match's CPU time
        divided by its deals: each match timed as a whole, no timer inside it."""
        per_deal: list[float] = []
        start = time.perf_counter()
        while True:
            before = cpu_clock()
            match = self.player.play()
            elapsed = cpu_clock() - before
            per_deal.append(elapsed / self.player.deals(match))
            if time.perf_counter() - start >= budget:
                return statistics.median(per_deal)

    def _median_step(self, budget: float) -> float:
        """The median CPU time of ``legal_commands`` at the steps of random playouts (timed at every step)."""
        steps: list[float] = []
        start = time.perf_counter()
        while True:
            self.player.play(legal_times=steps)
            if time.perf_counter() - start >= budget:
                break
        self._steps.extend(steps)
        return statistics.median(steps)

    def info(self) -> dict[str, Any]:
        def ms(times: list[float]) -> float | None:
            return round(statistics.median(times) * 1e3, 3) if times else None

        steps = sorted(self._steps)
        worst: dict[str, str] = {}
        for figure, times_of in (("cold", lambda b: b.cold), ("warm", lambda b: b.warm), ("page", lambda b: b.paged),
                                 ("made", lambda b: b.made)):
            for kind in sorted({built.position.kind for built in self.built}):
                of_kind = [built for built in self.built if built.position.kind == kind and times_of(built)]
                if of_kind:
                    built = max(of_kind, key=lambda built: statistics.median(times_of(built)))
                    worst[f"worst_{figure}_{kind}"] = f"{built.position.name} ({built.commands:,} commands)"
        return {
            **worst,
            "positions": {
                built.position.name: {"cold_ms": ms(built.cold), "warm_ms": ms(built.warm), "page_ms": ms(built.paged),
                                      "made_ms": ms(built.made), "commands": built.commands}
                for built in self.built
            },
            "p99_step_ms": round(steps[int(0.99 * (len(steps) - 1))] * 1e3, 3) if steps else None,
            "max_step_ms": round(steps[-1] * 1e3, 3) if steps else None,
        }


class SeepLegalWorstProbe(WorstLegalProbe):
    name = "seep.legal_worst"

    def __init__(self) -> None:
        super().__init__("seep", seep_positions())


class ContractFinderProbe(WorstLegalProbe):
    name = "contract_rummy.finder_worst"

    def __init__(self) -> None:
        super().__init__("contract_rummy", rummy_positions())
