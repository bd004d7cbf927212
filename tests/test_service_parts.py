"""The service is made of small parts that meet only through their public names (docs/architecture.md).

* No module of service/ imports or uses a private name (a leading underscore) of another module:
  no ``from x import _name``, no ``something._name`` on anything but ``self``/``cls`` unless this
  module defines that name itself, no ``getattr(x, "_name")``. A part that needs something of
  another asks for a public name, so each part's interface is what its public names say.
* No module of service/ is over ``MAX_LINES`` lines, unless it is on ``LONG_MODULES`` with the
  reason a reader would accept (said again in the module's docstring).
"""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SERVICE = REPO / "service"
MAX_LINES = 400

#: Modules allowed past MAX_LINES, each with its reason (repeated in the module's docstring).
LONG_MODULES: dict[str, str] = {
    # (none: add "service/x.py": "why it is one piece" only with a reason a reader would accept)
}

#: Private names of other code that a service module may touch, each with its reason.
ALLOWED_PRIVATE: dict[tuple[str, str], str] = {
    # The eventsourcing library's SQLite pool opens its connections in this hook (a method its
    # subclasses override); the store wraps it to set PRAGMA synchronous on each new connection.
    ("service/store_location.py", "_create_connection"): "the library's connection hook",
}
#: A named tuple's public methods begin with an underscore (so as not to clash with its fields).
NAMEDTUPLE_API = frozenset({"_replace", "_asdict", "_fields", "_make", "_field_defaults"})


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _own_names(tree: ast.Module) -> set[str]:
    """The names a module defines: its functions, classes and variables, and the attributes it sets on self/cls."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif (isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store)
              and isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")):
            names.add(node.attr)
    return names


def private_uses(source: str, relative: str) -> list[str]:
    """Where the module (``source``, at ``relative`` in the repository) uses a private name it does not define."""
    tree = ast.parse(source, relative)
    own = _own_names(tree)
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            found += [(node.lineno, f"from {node.module} import {alias.name}")
                      for alias in node.names if _private(alias.name)]
        elif isinstance(node, ast.Import):
            found += [(node.lineno, f"import {alias.name}") for alias in node.names
                      if any(_private(part) for part in alias.name.split("."))]
        elif isinstance(node, ast.Attribute) and _private(node.attr) and node.attr not in NAMEDTUPLE_API:
            base = node.value
            if isinstance(base, ast.Name) and base.id in ("self", "cls"):
                continue
            if node.attr not in own:
                found.append((node.lineno, f"{ast.unparse(base)}.{node.attr}"))
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
              and node.func.id in ("getattr", "setattr", "hasattr") and len(node.args) >= 2
              and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str)
              and _private(node.args[1].value) and node.args[1].value not in own):
            found.append((node.lineno, f"{node.func.id}(..., {node.args[1].value!r})"))
    return [f"{relative}:{line}: {what}" for line, what in sorted(found)
            if (relative, what.rsplit(".", 1)[-1]) not in ALLOWED_PRIVATE]


def test_no_service_module_uses_a_private_name_of_another() -> None:
    found = [use for path in sorted(SERVICE.rglob("*.py"))
             for use in private_uses(path.read_text(), path.relative_to(REPO).as_posix())]
    assert not found, "use (or add) a public name instead:\n" + "\n".join(found)


def test_the_scan_finds_private_names() -> None:
    """The scan itself: each way of reaching another module's private name is found."""
    sample = (
        "from cardgames.service.grpc_api import _token\n"
        "import os\n\n\n"
        "class Mine:\n"
        "    def __init__(self) -> None:\n"
        "        self._own = 1\n\n"
        "    def use(self, games: object, other: 'Mine') -> object:\n"
        "        print(other._own, os.environ._data, getattr(games, '_live'))\n"
        "        return games._get('x')\n"
    )
    found = private_uses(sample, "service/sample.py")
    assert [use.split(": ", 1)[1] for use in found] == [
        "from cardgames.service.grpc_api import _token", "getattr(..., '_live')", "os.environ._data", "games._get",
    ]


def test_no_service_module_is_long_without_a_reason() -> None:
    lengths = {path.relative_to(REPO).as_posix(): len(path.read_text().splitlines())
               for path in SERVICE.rglob("*.py")}
    long = {name: lines for name, lines in lengths.items() if lines > MAX_LINES and name not in LONG_MODULES}
    assert not long, f"split these into parts of {MAX_LINES} lines or fewer (or say why not): {long}"
    stale = sorted(name for name in LONG_MODULES if lengths.get(name, 0) <= MAX_LINES)
    assert not stale, f"no longer long: take them off LONG_MODULES: {stale}"
