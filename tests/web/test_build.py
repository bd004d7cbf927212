"""The web table's shipped build (service/http/static) is the build of its sources as they are.

``npm run build`` (clients/web/build.mjs) records in build.json a SHA-256 over the sources it read:
clients/web's package files, build script and configs, its TypeScript (src/, without the generated
src/gen), its static html and css, and the protos. This test hashes the same files the same way: a
change to any of them without a rebuild fails here (rebuild: cd clients/web && npm ci && npm run build).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
WEB = REPO / "clients" / "web"
STATIC = REPO / "service" / "http" / "static"
OWN = ("package.json", "package-lock.json", "build.mjs", "buf.gen.yaml", "tsconfig.json")
REBUILD = "the web table's build is older than its sources: cd clients/web && npm ci && npm run build"


def _files(folder: Path, keep: str) -> list[Path]:
    skip = {"gen", "node_modules"}
    return [
        path for path in folder.rglob(keep) if path.is_file() and not skip & set(path.relative_to(folder).parts[:-1])
    ]


def sources() -> list[str]:
    """The build's sources, as build.mjs lists them: paths from the top of the checkout, sorted."""
    paths = [WEB / name for name in OWN]
    paths += _files(WEB / "src", "*.ts") + _files(WEB / "static", "*")
    paths += sorted((REPO / "protos" / "cardgames" / "v1").glob("*.proto"))
    return sorted(path.relative_to(REPO).as_posix() for path in paths)


def sources_hash() -> str:
    digest = hashlib.sha256()
    for path in sources():
        digest.update(path.encode() + b"\0" + (REPO / path).read_bytes() + b"\0")
    return digest.hexdigest()


def test_the_shipped_build_is_that_of_the_sources() -> None:
    recorded = json.loads((STATIC / "build.json").read_text())
    assert recorded["files"] == len(sources()), REBUILD
    assert recorded["sources"] == sources_hash(), REBUILD


def test_the_build_ships_in_the_package() -> None:
    for name in ("index.html", "app.js", "style.css", "build.json"):
        assert (STATIC / name).is_file(), f"service/http/static/{name} is missing: {REBUILD}"
    assert 'src="app.js"' in (STATIC / "index.html").read_text()
    pyproject = (REPO / "pyproject.toml").read_text()
    assert '"cardgames.service.http" = ["static/*"' in pyproject  # installed with the package
