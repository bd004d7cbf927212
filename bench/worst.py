"""Worst cases of legal-command enumeration (placeholder until the games land)."""

from __future__ import annotations

from bench.harness import Context, Probe, Unavailable
from bench.playout import load_game


class SeepLegalWorstProbe(Probe):
    name = "seep.legal_worst"

    def setup(self, ctx: Context) -> None:
        load_game("seep")
        raise Unavailable("not wired yet")


class ContractFinderProbe(Probe):
    name = "contract_rummy.finder_worst"

    def setup(self, ctx: Context) -> None:
        load_game("contract_rummy")
        raise Unavailable("not wired yet")
