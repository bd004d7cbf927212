"""The parts' boundaries hold: one import package, and the layers' contracts (docs/architecture.md).

* ``lint-imports`` (import-linter, its contracts in pyproject.toml): the engine imports nothing of
  the service, the clients or the wire code; the service never imports a game's package; the
  clients import neither the engine nor the service; only the CLI uses the clients.
* Every module is imported as ``cardgames.*``: no source names the repository's folders
  ``engine``, ``service`` or ``clients`` as top-level packages (the same file imported under two
  names would be two modules, with two of every class).
* Installed, the project is the one package ``cardgames``: from outside the checkout,
  ``import engine`` (or ``service``, ``clients``) finds nothing of ours.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TOP_LEVEL = {"engine", "service", "clients"}
SOURCES = ["engine", "service", "clients", "protos/cardgames/wire.py", "protos/generate.py", "bench", "tests",
           "setup.py"]


def _python_files() -> list[Path]:
    files: list[Path] = []
    for name in SOURCES:
        path = REPO / name
        files.extend([path] if path.is_file() else sorted(path.rglob("*.py")))
    return [path for path in files if "node_modules" not in path.parts]


def test_the_import_contracts_are_kept() -> None:
    tool = Path(sys.executable).parent / "lint-imports"
    assert tool.exists(), "import-linter is not installed (pip install -e '.[dev]')"
    result = subprocess.run([str(tool), "--no-cache"], cwd=REPO, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def test_no_source_imports_a_folder_as_a_top_level_package() -> None:
    found = []
    for path in _python_files():
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            found += [f"{path.relative_to(REPO)}:{node.lineno} {name}" for name in names
                      if name.split(".")[0] in TOP_LEVEL]
    assert not found, f"import these as cardgames.<part>: {found}"


def test_only_the_cardgames_package_is_installed(tmp_path: Path) -> None:
    probe = (
        "import importlib.util as u\n"
        "print(sorted(n for n in ('engine', 'service', 'clients') if u.find_spec(n)))\n"
        "import cardgames.engine, cardgames.service, cardgames.clients, cardgames.v1.game_service_pb2\n"
        "print('ok')\n"
    )
    environment = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    result = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True,
                            env=environment)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["[]", "ok"], result.stdout
