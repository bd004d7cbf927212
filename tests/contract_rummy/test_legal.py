"""legal_commands lists every legal draw, discard, lay-off and joker swap (A.8-A.10), checked
against ``decide`` on every candidate command, in positions reached by random games."""

from __future__ import annotations

import copy
import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cardgames.engine.contract_rummy.commands import Discard, DrawDiscard, DrawStock, JokerTo, LayOff, SwapJoker
from cardgames.engine.contract_rummy.melds import JOKER_PREFIX, face
from cardgames.engine.core.cards import RANKS, SUITS
from cardgames.engine.core.protocol import Rejection
from tests.contract_rummy import brute
from tests.contract_rummy.helpers import game, new
from tests.contract_rummy.test_properties import choose
from tests.profiles import examples


def _ok(state: Any, seat: int, command: Any) -> bool:
    """Whether decide accepts ``command``, checked in full (on a copy of the state: for the very state
    object ``legal_commands`` was last called with, decide trusts what it listed)."""
    return not isinstance(game.decide(copy.copy(state), seat, command), Rejection)


def _faces_for(meld: Any) -> list[str]:
    """Every face a joker could be declared as on this meld (decide judges which fit)."""
    if meld.kind == "run":
        return [rank + meld.suit for rank in RANKS]
    return [meld.rank + suit for suit in SUITS]


def expected_simple(state: Any, seat: int) -> set[Any]:
    """Draws, discards and lay-offs that decide accepts, in their canonical form (an ``end``
    only where the card fits both ends of a run)."""
    out: set[Any] = set()
    for command in (DrawStock(), DrawDiscard()):
        if _ok(state, seat, command):
            out.add(command)
    hand = set(state.hands[seat])
    for card in hand:
        if _ok(state, seat, Discard(card=card)):
            out.add(Discard(card=card))
    for index, meld in enumerate(state.melds):
        cards = [c for c in hand if c != "JK"]
        if "JK" in hand:
            cards += [JOKER_PREFIX + f for f in _faces_for(meld)]
        for card in cards:
            if _ok(state, seat, LayOff(card=card, meld=index)):
                out.add(LayOff(card=card, meld=index))
            else:
                for end in ("low", "high"):
                    lay_off = LayOff(card=card, meld=index, end=end)
                    if _ok(state, seat, lay_off):
                        out.add(lay_off)
    return out


def expected_swaps(state: Any, seat: int) -> set[Any]:
    out: set[Any] = set()
    hand = set(state.hands[seat])
    for index, meld in enumerate(state.melds):
        for natural in {face(card) for card in meld.cards if card.startswith(JOKER_PREFIX)} & hand:
            for to, target in enumerate(state.melds):
                for declared in {*_faces_for(target), *_faces_for(meld)}:
                    plain = SwapJoker(card=natural, meld=index, joker_to=JokerTo(meld=to, as_=declared))
                    if _ok(state, seat, plain):
                        out.add(plain)
                        continue
                    for end in ("low", "high"):
                        command = SwapJoker(card=natural, meld=index, joker_to=JokerTo(meld=to, as_=declared, end=end))
                        if _ok(state, seat, command):
                            out.add(command)
    return out | _swaps_into_new_melds(state, seat)


def _swaps_into_new_melds(state: Any, seat: int) -> set[Any]:
    """With ``allow_new_melds_after_contract``: the swaps whose joker goes into a new meld, from
    the brute-force meld list (sets' jokers in one canonical form, see :func:`canonical`)."""
    config = state.config
    out: set[Any] = set()
    if not config.allow_new_melds_after_contract:
        return out
    hand = list(state.hands[seat])
    for index, meld in enumerate(state.melds):
        for natural in {face(card) for card in meld.cards if card.startswith(JOKER_PREFIX)} & set(hand):
            rest = list(hand)
            rest.remove(natural)
            for made in brute.every_meld([*rest, "JK"], config.min_run_length, config.min_naturals_per_meld):
                command = SwapJoker(card=natural, meld=index, joker_to=JokerTo(new_meld=made))
                if any(card.startswith(JOKER_PREFIX) for card in made) and _ok(state, seat, command):
                    out.add(canonical(command))
    return out


def canonical(command: Any) -> Any:
    """A swap into a new set with the suits its jokers claim left out (the brute force lists one
    claim per set, the engine every claim: each is a distinct command)."""
    new_meld = command.joker_to.new_meld if isinstance(command, SwapJoker) else None
    if not new_meld or len({face(card)[:-1] for card in new_meld}) > 1:
        return command
    claimed = tuple(card if not card.startswith(JOKER_PREFIX) else JOKER_PREFIX for card in new_meld)
    return SwapJoker(card=command.card, meld=command.meld, joker_to=JokerTo(new_meld=tuple(sorted(claimed))))


OPTIONS = st.fixed_dictionaries(
    {},
    optional={
        "deck_policy": st.sampled_from(["baseline", "classic", "pagat"]),
        "joker_layoff_targets": st.sampled_from(["runs_only", "runs_and_sets"]),
        "joker_swap_from_own_melds": st.booleans(),
        "layoff_same_turn_as_contract": st.booleans(),
        "min_naturals_per_meld": st.sampled_from(["one", "at_least_jokers"]),
        "top_discard_return_rule": st.sampled_from(["face", "physical_card"]),
        "discard_jokers": st.booleans(),
        "must_discard_to_go_out": st.booleans(),
        "allow_new_melds_after_contract": st.booleans(),
    },
)


@settings(max_examples=examples(100), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32), OPTIONS)
def test_every_legal_draw_discard_lay_off_and_swap_is_listed(seed: int, options: dict[str, Any]) -> None:
    rng = random.Random(seed)
    state, _ = new(options, 4, seed=f"{seed:064x}", match={"deal": rng.choice([2, 5, 6])})
    checked = 0
    for _ in range(800):
        if game.is_over(state) or checked >= 60:
            break
        (seat,) = game.to_act(state)
        legal = game.legal_commands(state, seat)
        if (state.phase == "play" and state.contract_met[seat]) or rng.random() < 0.05:
            listed = {c for c in legal if isinstance(c, DrawStock | DrawDiscard | Discard | LayOff)}
            assert listed == expected_simple(state, seat)
            swaps = [c for c in legal if isinstance(c, SwapJoker)]
            assert {canonical(c) for c in swaps} == expected_swaps(state, seat)
            assert all(_ok(state, seat, c) for c in swaps)
            checked += 1
        command = choose(rng, legal, greedy=rng.random() < 0.8)
        outcome = game.decide(state, seat, command)
        assert not isinstance(outcome, Rejection)
        for event in outcome:
            state = game.evolve(state, event)


def test_every_joker_swap_is_listed_in_a_table_full_of_jokers() -> None:
    from tests.contract_rummy.helpers import position

    melds = [
        {"owner": 2, "kind": "run", "cards": ["4C", "JK=5C", "6C", "7C"]},
        {"owner": 2, "kind": "set", "cards": ["QS", "QH", "JK=QD"]},
        {"owner": 0, "kind": "run", "cards": ["2S", "JK=3S", "4S"]},
        {"owner": 1, "kind": "run", "cards": ["10H", "JH", "QH", "KH"]},
    ]
    for options in ({}, {"joker_layoff_targets": "runs_and_sets"}, {"joker_swap_from_own_melds": False},
                    {"min_naturals_per_meld": "at_least_jokers"}):
        state = position([["5C", "3S", "QD", "9H"], [], [], []], deal=2, dealer=3, phase="play", to_act=0,
                         melds=melds, contract_met=[True, True, True, False],
                         options={"deck_policy": "pagat", **options})
        legal = game.legal_commands(state, 0)
        swaps = {c for c in legal if isinstance(c, SwapJoker)}
        assert swaps and swaps == expected_swaps(state, 0)
        assert {c for c in legal if isinstance(c, DrawStock | DrawDiscard | Discard | LayOff)} == expected_simple(
            state, 0
        )
