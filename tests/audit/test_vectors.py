"""Vectors of the canonical encoding, the chain and the seeds (docs/log-format.md publishes the same)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from cardgames.engine.core import chain, fairness
from cardgames.engine.core.canonical import canonical
from cardgames.engine.core.registry import get_game
from cardgames.service.audit.logfile import LogBuilder, to_bytes
from tests.audit.helpers import GAMES, played_log

DOC = Path(__file__).resolve().parents[2] / "docs" / "log-format.md"
ZERO = bytes(32)
HEADER = chain.header(
    game="all_fours", rules_version="1", game_id="00000000-0000-4000-8000-000000000000", players=4,
    config={"players": 4, "target_score": 14}, dealer=None, stacked=0,
    seed_commitment=fairness.commitment("00" * 32), seed_given=False, seat_commitments=None,
)
VECTORS = {
    "canonical": '{"a":"é\\"\\\\\\n\\u0001","card":"10H","type":"play","z":[1,-2,null,true]}',
    "commitment": "66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925",
    "genesis": "f541474ce6ed7f11b2d0e5032ff5c22edbf52159eb0ad73f984fad1f0d81f9e8",
    "salt_1": "06a9195917880e50a81663108f375358378d141fdf1584e638e59ce88e5fd5cc",
    "h_1": "df88c5637a80286faa4e5f011759d7d47332f2d26f613dd30104d621ecddfcb4",
    "h_2": "2dd0e35eceb311b0a3cbab91e716b5a29fec8eb7d993e699e39efeca89393d83",
    "shuffle_seed": "48b1cf9eaf05759dff39e432212f5b9d1ed85dfff1ed74055ebccf63798d5798",
}


def test_canonical_encoding() -> None:
    value = {"type": "play", "card": "10H", "z": [1, -2, None, True], "a": 'é"\\\n\x01'}
    assert canonical(value).decode("utf-8") == VECTORS["canonical"]
    assert canonical({"b": {"d": 1, "c": [{"f": 0, "e": 0}]}, "a": ()}) == b'{"a":[],"b":{"c":[{"e":0,"f":0}],"d":1}}'


@given(st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53) + 1, 2**53 - 1) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=20,
))
def test_canonical_is_json_with_sorted_keys_and_no_spaces(value: object) -> None:
    text = canonical(value).decode("utf-8")
    assert text == json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert canonical(json.loads(text)) == canonical(value)


def test_chain_and_seed_vectors() -> None:
    assert fairness.commitment("00" * 32) == VECTORS["commitment"]
    genesis = chain.genesis(HEADER)
    assert genesis.hex() == VECTORS["genesis"] == chain.genesis({**HEADER, "genesis": "ignored"}).hex()
    assert chain.salt(ZERO, 1).hex() == VECTORS["salt_1"]
    h1 = chain.next_hash(genesis, ZERO, 1, {"type": "match_created", "players": 4})
    assert h1.hex() == VECTORS["h_1"]
    play = {"type": "play", "card": "AS"}
    h2 = chain.next_hash(h1, ZERO, 2, play, 0, play)
    assert h2.hex() == VECTORS["h_2"]
    assert chain.batch_hashes(genesis, ZERO, 1, [{"type": "match_created", "players": 4}]) == [h1]
    assert fairness.shuffle_seed("00" * 32, None) == "00" * 32
    assert fairness.shuffle_seed("00" * 32, ["11" * 32, "22" * 32]) == VECTORS["shuffle_seed"]


def test_the_documentation_publishes_the_same_vectors() -> None:
    text = DOC.read_text()
    for name, value in VECTORS.items():
        assert value in text or (name == "canonical" and "\\u0001" in text), name


@pytest.mark.parametrize("game", GAMES)
def test_a_struct_hashes_as_its_plain_data(game: str) -> None:
    """The service hashes event structs, the verifier the file's plain data: the same bytes."""
    rules = get_game(game)
    log = played_log(game)
    for item in log.entries:
        struct = msgspec.convert(item["event"], rules.Event)
        assert canonical(struct) == canonical(json.loads(msgspec.json.encode(item["event"])))
        if "command" in item:
            command = msgspec.convert(item["command"], rules.Command)
            assert canonical(command) == canonical(item["command"])


@pytest.mark.parametrize("variant", ["plain", "entropy"])
@pytest.mark.parametrize("game", GAMES)
def test_the_log_builder_rebuilds_a_service_log_exactly(game: str, variant: str) -> None:
    """``LogBuilder`` (logs made outside the service: benchmarks, tools) chains exactly as the service does."""
    log = played_log(game, variant)
    assert log.reveal is not None
    builder = LogBuilder({key: value for key, value in log.header.items() if key != "genesis"}, log.reveal["seed"])
    batch: list[dict[str, Any]] = []
    for item in [*log.entries, None]:
        if item is None or "command" in item:
            if batch:
                first = batch[0]
                builder.add([entry["event"] for entry in batch], first.get("seat"), first.get("command"))
            batch = []
        if item is not None:
            batch.append(item)
    rebuilt = builder.finish(log.reveal)
    assert to_bytes(rebuilt) == to_bytes(log)
