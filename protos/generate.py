"""Generate the Python code of the wire contract: ``python protos/generate.py``.

Compiles every ``protos/cardgames/v1/*.proto`` with ``grpc_tools.protoc`` (``-I protos``)
into ``*_pb2.py`` (messages), ``*_pb2_grpc.py`` (gRPC stubs and servicers), the
mypy stubs ``*_pb2.pyi`` / ``*_pb2_grpc.pyi`` (mypy-protobuf) and, for the files with a
service, ``*_connect.py`` (the Connect / gRPC-Web ASGI applications and clients of
protoc-gen-connectrpc, on google.protobuf messages, asyncio only), next to the protos, so
that ``import cardgames.v1.game_service_pb2`` works. The generated files are committed;
``tests/test_protos.py`` fails when they are stale. Run this after editing any proto.
"""

from __future__ import annotations

import sys
from importlib import resources
from pathlib import Path

from grpc_tools import protoc  # type: ignore[import-untyped]

PROTOS = Path(__file__).resolve().parent
PACKAGE_DIR = PROTOS / "cardgames" / "v1"
GENERATED_SUFFIXES = ("_pb2.py", "_pb2.pyi", "_pb2_grpc.py", "_pb2_grpc.pyi", "_connect.py")
#: protoc-gen-connectrpc's options: code for google.protobuf's messages, asyncio only (the service is grpc.aio).
CONNECT_OPTIONS = "protobuf=google,io=async"


def proto_files(root: Path = PROTOS) -> list[Path]:
    """The contract's .proto files, in a stable order."""
    return sorted((root / "cardgames" / "v1").glob("*.proto"))


def _plugin(name: str) -> str:
    """The path of a protoc plugin installed next to this interpreter (mypy-protobuf, protoc-gen-connectrpc)."""
    local = Path(sys.executable).parent / name
    if not local.exists():
        raise SystemExit(f"{name} is not installed: pip install -e '.[dev]' (mypy-protobuf, protoc-gen-connectrpc)")
    return str(local)


def generate(out_dir: Path, root: Path = PROTOS) -> list[Path]:
    """Compile the protos under ``root`` into ``out_dir``; returns the generated files."""
    out_dir.mkdir(parents=True, exist_ok=True)
    well_known = str(resources.files("grpc_tools") / "_proto")
    files = [str(path.relative_to(root)) for path in proto_files(root)]
    args = [
        "grpc_tools.protoc",
        f"-I{root}",
        f"-I{well_known}",
        f"--plugin=protoc-gen-mypy={_plugin('protoc-gen-mypy')}",
        f"--plugin=protoc-gen-mypy_grpc={_plugin('protoc-gen-mypy_grpc')}",
        f"--plugin=protoc-gen-connectrpc={_plugin('protoc-gen-connectrpc')}",
        f"--python_out={out_dir}",
        f"--grpc_python_out={out_dir}",
        f"--mypy_out={out_dir}",
        f"--mypy_grpc_out={out_dir}",
        f"--connectrpc_out={out_dir}",
        f"--connectrpc_opt={CONNECT_OPTIONS}",
        *files,
    ]
    status = protoc.main(args)
    if status != 0:
        raise RuntimeError(f"protoc failed with status {status}: {' '.join(args)}")
    return generated_files(out_dir)


def generated_files(out_dir: Path) -> list[Path]:
    """The generated files under ``out_dir`` (its ``cardgames/v1`` folder)."""
    folder = out_dir / "cardgames" / "v1"
    return sorted(path for path in folder.iterdir() if path.name.endswith(GENERATED_SUFFIXES))


def main() -> None:
    for stale in generated_files(PROTOS):
        stale.unlink()
    for path in generate(PROTOS):
        print(path.relative_to(PROTOS.parent))


if __name__ == "__main__":
    main()
