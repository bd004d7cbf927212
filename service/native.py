"""Which engine modules run compiled (mypyc, see setup.py) and whether each still matches its source.

An editable install compiles the engine's hot modules into C extensions beside their sources,
and Python imports an extension before a ``.py`` of the same name: a source changed after the
install would not run until the next install. The build records each source's SHA-256 in
``engine/compiled_sources.json``; :func:`native_build` compares them.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

from cardgames import engine

#: The build's record of the sources it compiled (written by setup.py).
MANIFEST_NAME = "compiled_sources.json"
REINSTALL = "pip install -e . again (or CARDGAMES_PURE_PYTHON=1 pip install -e . for no compiled modules)"


@dataclass(frozen=True)
class NativeBuild:
    """The compiled engine modules, and those among them whose source changed since the build."""

    compiled: tuple[str, ...]
    stale: tuple[str, ...]

    def describe(self) -> str:
        """One line for logs and benchmark headers."""
        if not self.compiled:
            return "engine: pure Python"
        line = f"engine: {len(self.compiled)} modules compiled with mypyc"
        if self.stale:
            line += f", {len(self.stale)} STALE ({', '.join(self.stale)}): {REINSTALL}"
        return line


def module_of(relative: str) -> str:
    """The module a source file holds: ``engine/seep/legal.py`` -> ``cardgames.engine.seep.legal``."""
    return "cardgames." + relative.removesuffix(".py").replace("/", ".")


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def native_build(root: Path | None = None) -> NativeBuild:
    """Inspect the installed engine (``root``: the folder holding the ``engine`` package)."""
    root = Path(engine.__file__).resolve().parent.parent if root is None else root
    manifest = root / "engine" / MANIFEST_NAME
    recorded: dict[str, str] = json.loads(manifest.read_text()) if manifest.exists() else {}
    compiled: list[str] = []
    stale: list[str] = []
    for source in sorted(root.glob("engine/**/*.py")):
        relative = source.relative_to(root).as_posix()
        module = module_of(relative)
        if not any(source.with_name(source.stem + suffix).exists() for suffix in EXTENSION_SUFFIXES):
            continue  # (Python imports an extension module before the source beside it)
        compiled.append(module)
        if recorded.get(relative) != _digest(source):
            stale.append(module)
    return NativeBuild(tuple(compiled), tuple(stale))

