"""The compiled engine modules (setup.py, mypyc): which run compiled and whether they are current."""

from __future__ import annotations

import hashlib
import importlib
import json
import os
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

import pytest

from cardgames.service.native import MANIFEST_NAME, module_of, native_build

REPO = Path(__file__).resolve().parent.parent


def _engine_tree(root: Path, sources: dict[str, str], compiled: list[str], recorded: dict[str, str]) -> None:
    for relative, text in sources.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    for relative in compiled:
        (root / relative).with_suffix(EXTENSION_SUFFIXES[0]).write_bytes(b"\x7fELF")
    (root / "engine" / MANIFEST_NAME).write_text(json.dumps(recorded))


def test_a_source_changed_after_the_build_is_stale(tmp_path: Path) -> None:
    built = "def f() -> int:\n    return 1\n"
    digest = hashlib.sha256(built.encode()).hexdigest()
    _engine_tree(
        tmp_path,
        {"engine/__init__.py": "", "engine/a/legal.py": built, "engine/a/rules.py": built, "engine/a/view.py": built},
        compiled=["engine/a/legal.py", "engine/a/rules.py"],
        recorded={"engine/a/legal.py": digest, "engine/a/rules.py": digest},
    )
    assert native_build(tmp_path).compiled == ("cardgames.engine.a.legal", "cardgames.engine.a.rules")
    assert native_build(tmp_path).stale == ()
    (tmp_path / "engine/a/rules.py").write_text(built + "# changed\n")
    build = native_build(tmp_path)
    assert build.stale == ("cardgames.engine.a.rules",)
    assert "STALE (cardgames.engine.a.rules)" in build.describe() and "pip install -e ." in build.describe()


def test_a_pure_python_tree_has_nothing_compiled(tmp_path: Path) -> None:
    _engine_tree(tmp_path, {"engine/__init__.py": "", "engine/a/legal.py": "x = 1\n"}, compiled=[], recorded={})
    assert native_build(tmp_path).compiled == ()
    assert native_build(tmp_path).describe() == "engine: pure Python"


def test_the_installed_engine_runs_what_the_build_compiled() -> None:
    """Every module the build recorded is imported compiled (CI installs the default, compiled build)."""
    manifest = REPO / "engine" / MANIFEST_NAME
    if not manifest.exists():
        assert not os.environ.get("CI"), "CI installs the compiled engine: pip install -e . made no compiled modules"
        pytest.skip("installed without compiled modules (CARDGAMES_PURE_PYTHON=1)")
    recorded = json.loads(manifest.read_text())
    assert len(recorded) >= 10
    for relative in recorded:
        module = importlib.import_module(module_of(relative))
        assert str(module.__file__).endswith(tuple(EXTENSION_SUFFIXES)), module.__file__
    assert set(native_build().compiled) == {module_of(path) for path in recorded}
    assert native_build().stale == ()
