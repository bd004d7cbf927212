"""The application layer (service/games.py): create, submit, views, logs, watch; every refusal writes nothing."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from uuid import UUID

import msgspec
import pytest
from cardgames.engine.core.protocol import Malformed
from cardgames.engine.core.registry import get_game
from cardgames.service import games as games_module
from cardgames.service.games import (
    GameNotFoundError,
    Games,
    InvalidOptions,
    InvalidRequest,
    MissingToken,
    Rejected,
    StaleSequenceError,
    UnknownGameError,
    WrongToken,
)
from cardgames.service.games import live as live_module
from cardgames.service.store import EventStore

from tests.service.helpers import GAME, cards_in, hands, needs_game

pytestmark = needs_game
SEED = "5e" * 32


@pytest.fixture
async def games(store: EventStore) -> AsyncIterator[Games]:
    service = Games(store)
    yield service
    service.executor.shutdown()


async def play_one(games: Games, game_id: str, tokens: list[str], rng: random.Random) -> bool:
    """One random legal command by a seat to act; False once the match is over."""
    view = await games.view(game_id, None)
    if view.over:
        return False
    seat = rng.choice(view.to_act)
    legal = await games.legal_commands(game_id, tokens[seat])
    command = rng.choice(legal.commands)
    await games.submit(game_id, tokens[seat], msgspec.to_builtins(command), legal.sequence)
    return True


async def log_length(games: Games, game_id: str) -> int:
    return len((await games.log(game_id, None)).entries)


async def test_create_gives_a_token_per_seat_and_stores_only_hashes(games: Games) -> None:
    created = await games.create(GAME, {}, None, seed=SEED)
    rules = get_game(GAME)
    assert len(created.seat_tokens) == rules.DEFAULT_PLAYERS == len(set(created.seat_tokens))
    assert created.sequence == await log_length(games, created.game_id) > 0
    header = games.store.header(UUID(created.game_id))
    assert header.game == GAME and header.players == rules.DEFAULT_PLAYERS
    stored = msgspec.json.encode(header).decode()
    assert not any(token in stored for token in created.seat_tokens)
    assert header.token_hashes == tuple(games_module.token_hash(token) for token in created.seat_tokens)


async def test_a_seeded_match_is_reproducible(games: Games) -> None:
    one = await games.create(GAME, {}, None, seed=SEED, dealer=0)
    two = await games.create(GAME, {}, None, seed=SEED, dealer=0)
    log_one = [e.event for e in (await games.log(one.game_id, one.seat_tokens[0])).entries]
    log_two = [e.event for e in (await games.log(two.game_id, two.seat_tokens[0])).entries]
    assert log_one == log_two
    other = await games.create(GAME, {}, None, dealer=0)  # a random seed from secrets
    assert [e.event for e in (await games.log(other.game_id, other.seat_tokens[0])).entries] != log_one


async def test_create_refusals(games: Games) -> None:
    with pytest.raises(UnknownGameError):
        await games.create("chess")
    with pytest.raises(InvalidOptions):
        await games.create(GAME, {"no_such_option": 1})
    with pytest.raises(InvalidOptions):
        await games.create(GAME, {}, 99)
    with pytest.raises(InvalidRequest, match="seed") as bad_seed:
        await games.create(GAME, seed="xyz")
    assert bad_seed.value.reason == "INVALID_SEED"
    with pytest.raises(InvalidRequest) as bad_dealer:
        await games.create(GAME, dealer=17)
    assert bad_dealer.value.reason == "INVALID_SETUP"
    with pytest.raises(InvalidRequest) as bad_deck:
        await games.create(GAME, decks=[["AS", "AS"]], dealer=0)
    assert bad_deck.value.reason == "INVALID_SETUP"


async def test_unknown_and_malformed_game_ids(games: Games) -> None:
    with pytest.raises(GameNotFoundError):
        await games.view("00000000-0000-0000-0000-000000000000", None)
    with pytest.raises(InvalidRequest):
        await games.view("not-a-uuid", None)


async def test_submit_refusals_write_nothing(games: Games) -> None:
    created = await games.create(GAME, {}, None, seed=SEED)
    game_id, tokens = created.game_id, created.seat_tokens
    view = await games.view(game_id, None)
    seat = view.to_act[0]
    idle = next(s for s in range(len(tokens)) if s not in view.to_act)
    command = msgspec.to_builtins((await games.legal_commands(game_id, tokens[seat])).commands[0])
    before = await log_length(games, game_id)
    with pytest.raises(MissingToken):
        await games.submit(game_id, None, command)
    with pytest.raises(WrongToken):
        await games.submit(game_id, "not-a-token", command)
    with pytest.raises(StaleSequenceError) as stale:
        await games.submit(game_id, tokens[seat], command, expected_sequence=view.sequence - 1)
    assert stale.value.metadata["sequence"] == str(view.sequence)
    with pytest.raises(Rejected) as not_yours:
        await games.submit(game_id, tokens[idle], command, view.sequence)
    assert not_yours.value.reason == "NOT_YOUR_TURN" and not_yours.value.metadata["rule"]
    with pytest.raises(Rejected) as malformed:
        await games.submit(game_id, tokens[seat], {"type": "no_such_command"})
    assert malformed.value.reason == "INVALID_COMMAND"
    with pytest.raises(Rejected) as unparsed:
        await games.submit(game_id, tokens[seat], Malformed("no command in the request"))
    assert unparsed.value.reason == "INVALID_COMMAND"
    assert await log_length(games, game_id) == before == (await games.view(game_id, None)).sequence
    accepted = await games.submit(game_id, tokens[seat], command, view.sequence)
    assert accepted.sequence == before + len(accepted.entries) > before


async def test_a_whole_match_then_game_over(games: Games) -> None:
    created = await games.create(GAME, {}, None, seed=SEED)
    rng = random.Random(3)
    while await play_one(games, created.game_id, created.seat_tokens, rng):
        pass
    final = await games.view(created.game_id, created.seat_tokens[0])
    assert final.over and final.to_act == ()
    with pytest.raises(Rejected) as over:
        await games.submit(created.game_id, created.seat_tokens[0], {"type": "stand"}, final.sequence)
    assert over.value.reason == "GAME_OVER"
    assert (await games.view(created.game_id, None)).sequence == final.sequence
    # once over, every event shows in full to everyone
    assert not any(entry.redacted for entry in (await games.log(created.game_id, None)).entries)


async def test_views_at_earlier_sequences_and_after_a_reload(games: Games, tmp_path: Path) -> None:
    created = await games.create(GAME, {}, None, seed=SEED)
    rng = random.Random(5)
    seen: dict[int, Any] = {}
    for _ in range(12):
        view = await games.view(created.game_id, created.seat_tokens[1])
        seen[view.sequence] = view
        await play_one(games, created.game_id, created.seat_tokens, rng)
    for sequence, view in seen.items():
        assert await games.view(created.game_id, created.seat_tokens[1], sequence) == view
    with pytest.raises(InvalidRequest):
        await games.view(created.game_id, None, 10_000)
    fresh = Games(games.store)  # a new process on the same store: replays from the log
    latest = await games.view(created.game_id, created.seat_tokens[1])
    assert await fresh.view(created.game_id, created.seat_tokens[1]) == latest
    fresh.executor.shutdown()


async def test_logs_per_viewer_never_show_other_hands(games: Games) -> None:
    created = await games.create(GAME, {}, None, seed=SEED)
    rng = random.Random(7)
    live = games.cache[UUID(created.game_id)]
    for _ in range(25):
        held = hands(GAME, live.state)
        public = cards_in((await games.view(created.game_id, None)).view)
        public |= cards_in([e.event for e in (await games.log(created.game_id, None)).entries])
        for seat, token in enumerate(created.seat_tokens):
            others = set().union(*(held[s] for s in range(len(held)) if s != seat)) - public
            view = await games.view(created.game_id, token)
            log = await games.log(created.game_id, token)
            assert not cards_in(view.view) & others, (seat, cards_in(view.view) & others)
            assert not cards_in([e.event for e in log.entries]) & others
            assert held[seat] <= cards_in(view.view) | public or getattr(view.view, "hand_hidden", False)
        if not await play_one(games, created.game_id, created.seat_tokens, rng):
            break
    spectator = await games.log(created.game_id, None)
    assert any(entry.redacted for entry in spectator.entries)


async def collect(iterator: AsyncIterator[Any], until: int) -> list[Any]:
    items = []
    async for item in iterator:
        items.append(item)
        if item.sequence >= until:
            break
    return items


async def test_watch_resume_misses_nothing_and_repeats_nothing(games: Games) -> None:
    created = await games.create(GAME, {}, None, seed=SEED)
    game_id, tokens = created.game_id, created.seat_tokens
    rng = random.Random(11)
    for _ in range(5):
        await play_one(games, game_id, tokens, rng)
    middle = (await games.view(game_id, None)).sequence
    fresh = await games.watch(game_id, tokens[0])
    resumed = await games.watch(game_id, tokens[0], after=3)
    first = await anext(fresh)
    assert first.sequence == middle and first.entries == []
    for _ in range(10):
        await play_one(games, game_id, tokens, rng)
    end = (await games.view(game_id, None)).sequence
    fresh_items = [first, *await collect(fresh, end)]
    resumed_items = await collect(resumed, end)
    fresh_sequences = [e.sequence for item in fresh_items for e in item.entries]
    resumed_sequences = [e.sequence for item in resumed_items for e in item.entries]
    assert fresh_sequences == list(range(middle + 1, end + 1))
    assert resumed_sequences == list(range(4, end + 1))
    assert resumed_items[-1].view == fresh_items[-1].view == await games.view(game_id, tokens[0])
    full = {e.sequence: e for e in (await games.log(game_id, tokens[0])).entries}
    assert all(full[e.sequence] == e for item in resumed_items for e in item.entries)
    with pytest.raises(InvalidRequest):
        await games.watch(game_id, None, after=end + 1)


async def test_watch_of_concurrent_writers_and_a_lagging_watcher(games: Games, monkeypatch) -> None:
    monkeypatch.setattr(live_module, "WATCH_QUEUE", 2)
    created = await games.create(GAME, {}, None, seed=SEED)
    game_id, tokens = created.game_id, created.seat_tokens
    start = created.sequence
    slow = await games.watch(game_id, None)
    rng = random.Random(13)

    async def writer() -> None:
        for _ in range(40):
            try:
                if not await play_one(games, game_id, tokens, rng):
                    return
            except (StaleSequenceError, Rejected):
                pass  # another writer got in first

    await asyncio.gather(writer(), writer(), writer())
    end = (await games.view(game_id, None)).sequence
    items = await collect(slow, end)
    sequences = [e.sequence for item in items for e in item.entries]
    assert sequences == list(range(start + 1, end + 1))
    assert items[-1].view == await games.view(game_id, None)


async def test_a_watch_ends_when_the_match_is_over(games: Games) -> None:
    created = await games.create(GAME, {}, None, seed=SEED)
    watch = await games.watch(created.game_id, None)
    rng = random.Random(17)
    while await play_one(games, created.game_id, created.seat_tokens, rng):
        pass
    items = [item async for item in watch]
    assert items[-1].view.over
    sequences = [e.sequence for item in items for e in item.entries]
    assert sequences == list(range(created.sequence + 1, items[-1].sequence + 1))
    late = [item async for item in await games.watch(created.game_id, None, after=0)]
    assert len(late) == 1 and not any(e.redacted for e in late[0].entries)
