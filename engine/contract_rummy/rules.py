"""``decide``: every command checked against the rules file, in the order of A.13's rejections.

Each command is first checked for its form (``invalid_command``: card codes, declarations,
meld indices, cards held), then against the rules (``illegal_move``). A play (meld, lay-off,
swap, or a whole dig) is then judged by its result: no dead ends, going out (A.8, A.11).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from msgspec.structs import replace

from cardgames.engine.contract_rummy.commands import (
    Dig,
    Discard,
    DrawDiscard,
    DrawStock,
    JokerTo,
    LayOff,
    Meld,
    SwapJoker,
)
from cardgames.engine.contract_rummy.deal import fold, shuffle, turn_start, went_out
from cardgames.engine.contract_rummy.events import (
    CardLaidOff,
    ContractMelded,
    DiscardDrawn,
    DiscardDug,
    Discarded,
    JokerSwapped,
    MeldsAdded,
    StockDrawn,
    StockRefilled,
)
from cardgames.engine.contract_rummy.evolve import evolve
from cardgames.engine.contract_rummy.hands import can_discard_any, discardable, jokers_only_discard
from cardgames.engine.contract_rummy.legal import LAST_LISTING
from cardgames.engine.contract_rummy.melds import (
    JOKER_PREFIX,
    RUN,
    SET,
    face,
    fits_set,
    hand_code,
    is_joker,
    is_table_card,
    make_meld,
    naturals_ok,
    replace_joker,
    run_ends,
    runs_apart,
)
from cardgames.engine.contract_rummy.melds import (
    Meld as TableMeld,
)
from cardgames.engine.contract_rummy.state import (
    DRAW,
    OVER,
    PLAY,
    State,
    all_at_once,
    barred,
    contract,
)
from cardgames.engine.core.cards import JOKER, STANDARD_CARDS
from cardgames.engine.core.chance import canonical_order
from cardgames.engine.core.protocol import Malformed, Rejection, RejectionCode, reject
from cardgames.engine.core.wording import plural

GAME_OVER = RejectionCode.GAME_OVER
NOT_YOUR_TURN = RejectionCode.NOT_YOUR_TURN
INVALID = RejectionCode.INVALID_COMMAND
ILLEGAL = RejectionCode.ILLEGAL_MOVE

Outcome = list[Any] | Rejection


def _invalid(message: str, rule: str = "A.13") -> Rejection:
    return reject(INVALID, message, rule)


def _illegal(message: str, rule: str) -> Rejection:
    return reject(ILLEGAL, message, rule)


# ---------------------------------------------------------------------------
# Form (invalid_command): what a command names must exist and be held.


def _table_card_problem(card: Any) -> str | None:
    if is_table_card(card):
        return None
    if card == JOKER:
        return "a joker put on the table needs its declaration (JK=8H)"
    return f"unknown card code {card!r}"


def _form(command: Any, melds_on_table: int) -> tuple[str | None, list[str]]:
    """A form problem of a meld, lay-off or swap, and the hand codes the command uses."""
    needed: list[str] = []
    if isinstance(command, Meld):
        for cards in command.melds:
            for card in cards:
                problem = _table_card_problem(card)
                if problem:
                    return problem, needed
                needed.append(hand_code(card))
        return None, needed
    if isinstance(command, LayOff):
        problem = _table_card_problem(command.card)
        if problem:
            return problem, needed
        if not 0 <= command.meld < melds_on_table:
            return f"there is no meld {command.meld} on the table", needed
        return None, [hand_code(command.card)]
    assert isinstance(command, SwapJoker)
    card = command.card
    if card not in STANDARD_CARDS and not is_joker(card):
        return f"unknown card code {card!r}", needed
    needed.append(hand_code(card))
    if not 0 <= command.meld < melds_on_table:
        return f"there is no meld {command.meld} on the table", needed
    target = command.joker_to
    if (target.meld is None) == (target.new_meld is None):
        return "joker_to needs either a meld and 'as', or a new_meld", needed
    if target.meld is not None:
        if not 0 <= target.meld < melds_on_table:
            return f"there is no meld {target.meld} on the table", needed
        if target.as_ is None:
            return "joker_to needs 'as': the joker's new declaration", needed
        if target.as_ not in STANDARD_CARDS:
            return f"joker_to 'as' must be a card face, got {target.as_!r}", needed
        return None, needed
    assert target.new_meld is not None
    jokers = 0
    for item in target.new_meld:
        problem = _table_card_problem(item)
        if problem:
            return problem, needed
        if is_joker(item):
            jokers += 1
        else:
            needed.append(item)
    needed += [JOKER] * max(0, jokers - 1)  # one joker of the new meld is the swapped one
    return None, needed


def _missing(available: Sequence[str], needed: Sequence[str]) -> str | None:
    short = Counter(needed) - Counter(available)
    if not short:
        return None
    cards = ", ".join(sorted(short.elements()))
    return f"the seat does not hold {cards}"


# ---------------------------------------------------------------------------
# Plays: the events of one meld, lay-off or swap, on the table as it stands.


def _play_phase(state: State) -> Rejection | None:
    if state.phase != PLAY:
        return _illegal("draw first: a turn begins with a draw", "A.8 step 1")
    return None


def _contract_problem(
    made: Sequence[TableMeld], sets: int, runs: int, exact: bool, suit_rule: str, rank_rule: str
) -> str | None:
    have_sets = [meld for meld in made if meld.kind == SET]
    have_runs = [meld for meld in made if meld.kind == RUN]
    wanted = f"{plural(sets, 'set')} and {plural(runs, 'run')}"
    got = f"{plural(len(have_sets), 'set')} and {plural(len(have_runs), 'run')}"
    if exact and (len(have_sets) != sets or len(have_runs) != runs):
        return f"this deal's contract is exactly {wanted}; the action holds {got}"
    if len(have_sets) < sets or len(have_runs) < runs:
        return f"this deal's contract needs at least {wanted}; the action holds {got}"
    if runs >= 2:
        for i, first in enumerate(have_runs):
            for second in have_runs[i + 1 :]:
                if not runs_apart(first, second, suit_rule):
                    if suit_rule == "forbidden":
                        return "the runs of a contract must be of different suits"
                    return "two runs of one suit in a contract need a gap between them (need_gap)"
    if rank_rule == "forbidden":
        ranks = [meld.rank for meld in have_sets]
        if len(set(ranks)) != len(ranks):
            return "the sets of a contract must be of different ranks (same_rank_sets_in_contract)"
    return None


def _meld(state: State, seat: int, command: Meld) -> Outcome:
    refused = _play_phase(state)
    if refused:
        return refused
    config = state.config
    made: list[TableMeld] = []
    for cards in command.melds:
        meld = make_meld(cards, seat, config.min_run_length, config.min_naturals_per_meld)
        if isinstance(meld, str):
            return _illegal(f"{list(cards)} is not a legal meld: {meld}", "A.7")
        made.append(meld)
    if not made:
        return _illegal("a meld command needs at least one meld", "A.6")
    listed = tuple(meld.cards for meld in made)
    kinds = tuple(meld.kind for meld in made)
    met = state.contract_met[seat]
    if all_at_once(state):
        if met:
            return _illegal("in deal 7 everything goes down at once; nothing more may be put down", "A.11")
        problem = _contract_problem(made, 0, 3, True, "forbidden", "allowed")
        if problem:
            return _illegal(f"deal 7: {problem}", "A.11")
        held = len(state.hands[seat])
        used = sum(len(cards) for cards in listed)
        if config.final_deal_mode == "all_at_once_no_discard" and used != held:
            return _illegal("deal 7: the three runs must use every card in the hand", "A.11")
        if config.final_deal_mode == "all_at_once_with_discard" and used != held - 1:
            return _illegal("deal 7: the three runs must use every card in the hand but one", "A.11")
        return [ContractMelded(seat=seat, melds=listed, kinds=kinds)]
    if met:
        if not config.allow_new_melds_after_contract:
            return _illegal("a player who is down may not lay down new melds, only lay off", "A.8 step 2")
        return [MeldsAdded(seat=seat, melds=listed, kinds=kinds)]
    sets, runs = contract(state)
    problem = _contract_problem(
        made,
        sets,
        runs,
        config.contract_meld_count == "exact",
        config.same_suit_runs_in_contract,
        config.same_rank_sets_in_contract,
    )
    if problem:
        return _illegal(problem, "A.6")
    return [ContractMelded(seat=seat, melds=listed, kinds=kinds)]


def fit(state: State, meld: TableMeld, card: str, end: str | None) -> tuple[str | None, str | None]:
    """Where ``card`` (a natural or a declared joker) goes on ``meld`` (A.9): (end, None) or (None, why)."""
    config = state.config
    card_face = face(card)
    joker = is_joker(card)
    if meld.kind == SET:
        if joker and config.joker_layoff_targets == "runs_only":
            return None, "a joker may be laid off only to extend a run"
        if not fits_set(meld, card_face):
            if len(meld.cards) >= 4:
                return None, "a set holds at most 4 cards"
            if card_face[:-1] != meld.rank:
                return None, f"{card_face} is not of the set's rank"
            return None, f"the set already holds the suit of {card_face} (a joker in a set keeps its claim)"
        chosen = None
    else:
        ends = run_ends(meld, card_face)
        if not ends:
            return None, f"{card_face} fits neither end of the run (nothing goes in the middle, nothing wraps)"
        if end is not None and end not in ends:
            return None, f"{card_face} does not fit at the {end} end of the run"
        chosen = end or ends[0]
    if joker and not naturals_ok((*meld.cards, card), config.min_naturals_per_meld):
        return None, "the meld would hold more jokers than natural cards"
    return chosen, None


def _needs_end(meld: TableMeld, card: str, end: str | None) -> Rejection | None:
    if end is None and meld.kind == RUN and len(run_ends(meld, face(card))) == 2:
        return _invalid(f"{face(card)} fits both ends of the run: give end 'low' or 'high'", "A.9")
    return None


def _lay_off(state: State, seat: int, command: LayOff) -> Outcome:
    meld = state.melds[command.meld]
    refused = _needs_end(meld, command.card, command.end) or _play_phase(state)
    if refused:
        return refused
    if all_at_once(state):
        return _illegal("nobody lays off in deal 7 (all at once)", "A.11")
    if not state.contract_met[seat]:
        return _illegal("a player may lay off only after meeting this deal's contract", "A.6 rule 1")
    turn = state.turn
    if turn is not None and turn.went_down and not state.config.layoff_same_turn_as_contract:
        return _illegal("lay-offs start the turn after going down (layoff_same_turn_as_contract)", "A.9")
    end, problem = fit(state, meld, command.card, command.end)
    if problem:
        return _illegal(f"cannot lay off on meld {command.meld}: {problem}", "A.9")
    return [CardLaidOff(seat=seat, card=command.card, meld=command.meld, end=end)]


def _swap_joker(state: State, seat: int, command: SwapJoker) -> Outcome:
    config = state.config
    melds = state.melds
    meld = melds[command.meld]
    target: JokerTo = command.joker_to
    declared = JOKER_PREFIX + command.card
    swapped = replace_joker(meld, command.card, seat) if declared in meld.cards else meld
    table = (*melds[: command.meld], swapped, *melds[command.meld + 1 :])
    joker_as = JOKER_PREFIX + (target.as_ or "")
    if target.meld is not None:
        refused = _needs_end(table[target.meld], joker_as, target.end)
        if refused:
            return refused
    refused = _play_phase(state)
    if refused:
        return refused
    if all_at_once(state):
        return _illegal("nobody swaps jokers in deal 7 (all at once)", "A.11")
    if not config.joker_swap:
        return _illegal("joker swaps are off (joker_swap)", "A.10")
    if is_joker(command.card):
        return _illegal("a joker swap gives a natural card for the joker, not a joker", "A.10")
    turn = state.turn
    if not state.contract_met[seat] or (turn is not None and turn.went_down):
        return _illegal("a joker swap needs the contract met on an earlier turn of this deal", "A.10 rule 1")
    if meld.kind == SET:
        return _illegal("a joker in a set is dead: it can never be taken back", "A.10")
    if meld.owner == seat and not config.joker_swap_from_own_melds:
        return _illegal("jokers may be swapped only out of other players' runs", "A.10 rule 2")
    if declared not in meld.cards:
        return _illegal(f"run {command.meld} holds no joker declared as {command.card}", "A.10 rule 3")
    swapped_event = JokerSwapped(seat=seat, card=command.card, meld=command.meld, joker=declared, joker_as=joker_as)
    if target.new_meld is not None:
        if not config.allow_new_melds_after_contract:
            return _illegal("the swapped joker may go into a new meld only with allow_new_melds_after_contract", "A.10")
        jokers = [card for card in target.new_meld if is_joker(card)]
        if not jokers:
            return _illegal("the new meld must hold the swapped joker", "A.10")
        made = make_meld(target.new_meld, seat, config.min_run_length, config.min_naturals_per_meld)
        if isinstance(made, str):
            return _illegal(f"{list(target.new_meld)} is not a legal meld: {made}", "A.7")
        return [replace(swapped_event, joker_as=jokers[0], new_meld=made.cards, new_meld_kind=made.kind)]
    assert target.meld is not None
    end, problem = fit(state, table[target.meld], joker_as, target.end)
    if problem:
        return _illegal(f"the swapped joker cannot go on meld {target.meld}: {problem}", "A.10")
    return [replace(swapped_event, to_meld=target.meld, end=end)]


_PLAYS: dict[type, Callable[[State, int, Any], Outcome]] = {Meld: _meld, LayOff: _lay_off, SwapJoker: _swap_joker}


def after_play(state: State, seat: int) -> Outcome:
    """What a play's result allows (A.8 no dead ends; A.11 going out), on the state after it."""
    hand = state.hands[seat]
    if not hand:
        if state.config.must_discard_to_go_out and not all_at_once(state):
            return _illegal("the last card must go by a discard (must_discard_to_go_out)", "A.11")
        return went_out(state, seat)
    if not can_discard_any(state.config, barred(state), hand):
        return _illegal("no dead ends: the hand would hold no card that may be discarded", "A.8")
    return []


def _play(state: State, seat: int, command: Meld | LayOff | SwapJoker) -> Outcome:
    problem, needed = _form(command, len(state.melds))
    if problem is None:
        problem = _missing(state.hands[seat], needed)
    if problem:
        return _invalid(problem)
    return _played(state, seat, command)


def _played(state: State, seat: int, command: Meld | LayOff | SwapJoker) -> Outcome:
    """A play whose form is right: the rules, then the result (no dead ends, going out)."""
    events = _PLAYS[type(command)](state, seat, command)
    if isinstance(events, Rejection):
        return events
    tail = after_play(fold(state, events), seat)
    if isinstance(tail, Rejection):
        return tail
    return events + tail


# ---------------------------------------------------------------------------
# Draws and the discard.


def _drawn_already(state: State) -> Rejection | None:
    if state.phase != DRAW:
        return _illegal("this seat has drawn already this turn", "A.8 step 1")
    return None


def _draw_stock(state: State, seat: int, command: DrawStock) -> Outcome:
    refused = _drawn_already(state)
    if refused:
        return refused
    events: list[Any] = []
    stock = state.stock
    if not stock:
        rest = state.discard[1:]
        limit = state.config.max_stock_refills
        if not rest or (limit is not None and state.refills >= limit):
            return _illegal("the stock is empty and cannot be refilled", "A.12")
        if state.config.stock_exhaustion == "reshuffle_except_top":
            shuffled = shuffle(state.chance, rest)
            stock = shuffled.order
            events += [StockRefilled(cards=canonical_order(rest), shuffled=True, refills=state.refills + 1), shuffled]
        else:
            stock = tuple(reversed(rest))
            events.append(StockRefilled(cards=stock, shuffled=False, refills=state.refills + 1))
    events.append(StockDrawn(seat=seat, card=stock[0]))
    return events


def _draw_discard(state: State, seat: int, command: DrawDiscard) -> Outcome:
    refused = _drawn_already(state)
    if refused:
        return refused
    if not state.discard:
        return _illegal("the discard pile is empty", "A.8 D2")
    card = state.discard[0]
    if not can_discard_any(state.config, card, (*state.hands[seat], card)):
        return _illegal(f"after taking {card} no card in the hand could be discarded (no dead ends)", "A.8")
    return [DiscardDrawn(seat=seat, card=card)]


def _dig(state: State, seat: int, command: Dig) -> Outcome:
    depth = command.depth
    if depth < 2:
        return _invalid("dig needs a depth of at least 2 (depth 1 is draw_discard)", "A.8 D3")
    pile = state.discard
    taken = pile[:depth] if len(pile) >= depth else ()
    available = (*state.hands[seat], *taken)
    needed: list[str] = []
    melds_on_table = len(state.melds)
    for entry in command.then:
        problem, uses = _form(entry, melds_on_table)
        if problem:
            return _invalid(f"dig: {problem}")
        needed += uses
        if isinstance(entry, Meld):
            melds_on_table += len(entry.melds)
    problem = _missing(available, needed)
    if problem:
        return _invalid(f"dig: {problem}")
    return _dug(state, seat, command)


def _dug(state: State, seat: int, command: Dig) -> Outcome:
    """A dig whose form is right (depth, the cards its ``then`` list names are held)."""
    depth = command.depth
    pile = state.discard
    refused = _drawn_already(state)
    if refused:
        return refused
    if not state.config.discard_dig:
        return _illegal("digging into the discard pile is off (discard_dig)", "A.8 D3")
    if depth > len(pile):
        return _illegal(f"the discard pile holds only {len(pile)} cards", "A.8 D3")
    if not command.then:
        return _illegal("the dug card must be put on the table by the same command", "A.8 D3")
    target = pile[depth - 1]
    dug = DiscardDug(seat=seat, depth=depth, cards=pile[:depth])
    events: list[Any] = [dug]
    after = evolve(state, dug)
    held = after.hands[seat].count(target)
    for entry in command.then:
        step = _PLAYS[type(entry)](after, seat, entry)
        if isinstance(step, Rejection):
            return reject(step.code, f"dig: {step.message}", step.rule)
        events += step
        after = fold(after, step)
    if after.hands[seat].count(target) >= held:
        return _illegal(f"the dug card {target} must be on the table when the dig ends", "A.8 D3")
    tail = after_play(after, seat)
    if isinstance(tail, Rejection):
        return reject(tail.code, f"dig: {tail.message}", tail.rule)
    return events + tail


def _discard(state: State, seat: int, command: Discard) -> Outcome:
    card = command.card
    if card != JOKER and card not in STANDARD_CARDS:
        if is_joker(card):
            return _invalid("a joker is discarded as JK, without a declaration")
        return _invalid(f"unknown card code {card!r}")
    hand = state.hands[seat]
    if card not in hand:
        return _invalid(f"the seat does not hold {card}")
    refused = _play_phase(state)
    if refused:
        return refused
    config = state.config
    if card == JOKER and jokers_only_discard(config, hand):
        return _discarded(state, seat, command)  # a hand of jokers alone: the turn must end somehow
    if card == JOKER and not config.discard_jokers:
        return _illegal("jokers may not be discarded (discard_jokers)", "A.8 step 3")
    if not discardable(config, barred(state), hand, card):
        return _illegal(f"{card} was just taken from the top of the discard pile and may not go back", "A.8 R1")
    return _discarded(state, seat, command)


def _discarded(state: State, seat: int, command: Discard) -> Outcome:
    """The events of a legal discard."""
    card = command.card
    hand = state.hands[seat]
    event = Discarded(seat=seat, card=card)
    if len(hand) > 1 and state.stock:
        return [event]  # the usual discard: nobody goes out and the next draw step has a stock (A.12)
    after = evolve(state, event)
    if not after.hands[seat]:
        return [event, *went_out(after, seat)]
    return [event, *turn_start(after)]


_HANDLERS: dict[type, Callable[[State, int, Any], Outcome]] = {
    DrawStock: _draw_stock,
    DrawDiscard: _draw_discard,
    Dig: _dig,
    Meld: _play,
    LayOff: _play,
    SwapJoker: _play,
    Discard: _discard,
}

#: Commands ``legal_commands`` listed for this very state (``legal.LAST_LISTING``): the checks the
#: listing made are skipped (the form of every command; a discard's and a draw's legality).
_LISTED_HANDLERS: dict[type, Callable[[State, int, Any], Outcome]] = {
    DrawStock: _draw_stock,
    DrawDiscard: lambda state, seat, command: [DiscardDrawn(seat=seat, card=state.discard[0])],
    Dig: _dug,
    Meld: _played,
    LayOff: _played,
    SwapJoker: _played,
    Discard: _discarded,
}


def decide(state: State, seat: int, command: Any) -> Outcome:
    """The events of ``command`` by ``seat``, or why it is refused (A.13's order of rejections)."""
    if state.phase == OVER:
        return reject(GAME_OVER, "the game is over: deal 7 has been scored", "A.11")
    if state.to_act != seat or state.phase not in (DRAW, PLAY):
        return reject(NOT_YOUR_TURN, f"seat {seat} may not act now; seat {state.to_act} is to act", "A.8")
    if LAST_LISTING.holds(state, seat, command):
        return _LISTED_HANDLERS[type(command)](state, seat, command)
    if isinstance(command, Malformed):
        return _invalid(command.reason)
    handler = _HANDLERS.get(type(command))
    if handler is None:
        return _invalid(f"not a Contract Rummy command: {command!r}")
    return handler(state, seat, command)
