"""SubmitCommand round trips over localhost, with the in-memory and the SQLite store."""

from __future__ import annotations

import importlib

from bench.harness import Context, Probe, Unavailable


class SubmitProbe(Probe):
    anchors = ("grpc.echo",)

    def __init__(self, store: str) -> None:
        self.store = store
        self.name = f"submit.{store}"

    def setup(self, ctx: Context) -> None:
        try:
            importlib.import_module("service.server")
        except ImportError as error:
            raise Unavailable(f"service not available (service.server: {error})") from error
        raise Unavailable("service.server landed: the SubmitCommand probe is not wired yet")

    def sample(self, ctx: Context) -> dict[str, float]:
        raise NotImplementedError
