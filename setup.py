"""Build hook: the engine's hot modules compiled to C extensions with mypyc.

The game logic stays plain, typed Python (it is what you read, test and change); mypyc turns
the modules below into C extensions at install time (random playouts 1.2x to 2x faster, docs/benchmarks.md).
``CARDGAMES_PURE_PYTHON=1`` at install time builds nothing and runs every module as Python.

An editable install (``pip install -e .``) puts the compiled modules beside their sources, and
Python prefers them: after changing one of these files, install again.
``engine/compiled_sources.json`` records the source each module was compiled from;
``cardgames.service.native`` compares it with the sources (the test suite stops on a stale build, and
``cardgames serve`` warns).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

from setuptools import Extension, setup

#: The modules compiled: each game's legal-command listing, rules, reducer and heuristics.
COMPILED = [
    "engine/core/listing.py",
    "engine/core/replay.py",
    "engine/core/shuffle.py",
    "engine/all_fours/evolve.py",
    "engine/all_fours/heuristic.py",
    "engine/all_fours/legal.py",
    "engine/all_fours/rules.py",
    "engine/all_fours/scoring.py",
    "engine/all_fours/tricks.py",
    "engine/contract_rummy/evolve.py",
    "engine/contract_rummy/finder.py",
    "engine/contract_rummy/heuristic.py",
    "engine/contract_rummy/legal.py",
    "engine/contract_rummy/melds.py",
    "engine/contract_rummy/rules.py",
    "engine/contract_rummy/hands.py",
    "engine/seep/cards.py",
    "engine/seep/deal.py",
    "engine/seep/evolve.py",
    "engine/seep/families.py",
    "engine/seep/groups.py",
    "engine/seep/heuristic.py",
    "engine/seep/legal.py",
    "engine/seep/moves.py",
    "engine/seep/rules.py",
    "engine/seep/turn.py",
]
MANIFEST = Path("engine/compiled_sources.json")
#: The folder of the import package ``cardgames``: the wire code, and links to engine/, service/ and clients/.
PACKAGE_ROOT = Path("protos/cardgames")
PURE_PYTHON = "CARDGAMES_PURE_PYTHON"
#: setup.py runs for metadata too; mypyc's translation (tens of seconds) is only for builds.
BUILDS = {"build", "build_ext", "bdist_wheel", "editable_wheel", "develop", "install"}


def _record(paths: list[str]) -> None:
    """Write which source (by SHA-256) each compiled module was built from."""
    sources = {path: hashlib.sha256(Path(path).read_bytes()).hexdigest() for path in paths}
    MANIFEST.write_text(json.dumps(sources, indent=1, sort_keys=True) + "\n")


def _remove_compiled() -> None:
    """Delete what an earlier editable install compiled beside the sources (it would still be imported)."""
    for suffix in EXTENSION_SUFFIXES:
        Path("engine/compiled__mypyc" + suffix).unlink(missing_ok=True)
        for source in COMPILED:
            Path(source).with_suffix(suffix).unlink(missing_ok=True)
    MANIFEST.unlink(missing_ok=True)


def ext_modules() -> list[Extension]:
    if os.environ.get(PURE_PYTHON, "") not in ("", "0"):
        _remove_compiled()
        return []
    if not BUILDS.intersection(sys.argv[1:]):
        return []
    from mypyc.build import mypycify

    _record(COMPILED)
    # Compiled through the package's own path (protos/cardgames/engine is a link to engine/), so that
    # mypyc names each module as it is imported: cardgames.engine.seep.legal, not engine.seep.legal.
    package_paths = [str(PACKAGE_ROOT / source) for source in COMPILED]
    extensions: list[Extension] = mypycify(package_paths, opt_level="3", group_name="cardgames.engine.compiled")
    return extensions


setup(ext_modules=ext_modules())
