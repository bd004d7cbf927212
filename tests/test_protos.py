"""The wire contract: buf lint clean, and the committed generated code is up to date."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PROTOS = REPO / "protos"


def _generator():  # the generator lives in protos/, outside every package
    spec = importlib.util.spec_from_file_location("protos_generate", PROTOS / "generate.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_generated_code_is_up_to_date(tmp_path: Path) -> None:
    generator = _generator()
    fresh = {path.name: path.read_bytes() for path in generator.generate(tmp_path)}
    committed = {path.name: path.read_bytes() for path in generator.generated_files(PROTOS)}
    assert fresh, "no code was generated"
    stale = sorted(name for name in fresh.keys() | committed.keys() if fresh.get(name) != committed.get(name))
    assert not stale, f"generated code is stale, run `.venv/bin/python protos/generate.py`: {stale}"


def test_buf_lint_is_clean() -> None:
    buf = Path(sys.executable).parent / "buf"
    assert buf.exists(), "buf is not installed (pip install -e '.[dev]' installs buf-bin)"
    result = subprocess.run([str(buf), "lint", "protos"], cwd=REPO, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert not result.stdout.strip(), result.stdout


def test_every_game_has_its_messages_in_the_top_level_oneofs() -> None:
    from cardgames.v1 import game_service_pb2

    from engine.core.registry import GAME_MODULES

    for wrapper in (game_service_pb2.Command, game_service_pb2.Event, game_service_pb2.Options,
                    game_service_pb2.View):
        names = {field.name for field in wrapper.DESCRIPTOR.oneofs_by_name["game"].fields}
        assert names == set(GAME_MODULES), wrapper.DESCRIPTOR.name
