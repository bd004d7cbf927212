"""The wire contract: buf lint clean (with the COMMENTS rules), no breaking change since the
last released wire version, the committed generated code up to date, and comments that name
only files in the repository."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

from google.protobuf import descriptor_pb2

REPO = Path(__file__).resolve().parent.parent
PROTOS = REPO / "protos"
BUF = Path(sys.executable).parent / "buf"
#: The buf image of the last released wire version (the protos at the git tag wire-v1).
WIRE_V1 = PROTOS / "breaking" / "wire-v1.binpb"
#: Files whose comments are pending (they are being reworked): protos/buf.yaml leaves them out
#: of the COMMENTS rules for now.
PENDING: set[str] = set()
#: Documents the protos point at that are written alongside this version of the contract (the
#: rules of each game and the scenario format); once they are in the repository, empty this set.
PENDING_DOCS: set[str] = set()


def _buf(*args: str) -> subprocess.CompletedProcess[str]:
    assert BUF.exists(), "buf is not installed (pip install -e '.[dev]' installs buf-bin)"
    return subprocess.run([str(BUF), *args], cwd=REPO, capture_output=True, text=True)


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
    result = _buf("lint", "protos")
    assert result.returncode == 0, result.stdout + result.stderr
    assert not result.stdout.strip(), result.stdout


def test_buf_lint_requires_comments() -> None:
    """The COMMENTS rules are on: every service, RPC, message, field, oneof and enum value."""
    result = _buf("config", "ls-lint-rules", "--configured-only", "--config", "protos/buf.yaml")
    assert result.returncode == 0, result.stderr
    configured = {line.split()[0] for line in result.stdout.splitlines()[1:] if line.strip()}
    assert {"COMMENT_SERVICE", "COMMENT_RPC", "COMMENT_MESSAGE", "COMMENT_FIELD", "COMMENT_ONEOF",
            "COMMENT_ENUM", "COMMENT_ENUM_VALUE"} <= configured


def test_no_breaking_change_since_wire_v1() -> None:
    result = _buf("breaking", "protos", "--against", str(WIRE_V1.relative_to(REPO)))
    assert result.returncode == 0, result.stdout + result.stderr
    assert not result.stdout.strip(), result.stdout


#: The commit the tag ``wire-v1`` names: the last released wire contract.
WIRE_V1_COMMIT = "9f29656b69aa231e089170be08c4eb95ffe43594"


def test_the_tag_names_the_recorded_commit() -> None:
    """Where the clone has the tag, it names the commit recorded above."""
    tagged = subprocess.run(["git", "rev-parse", "-q", "--verify", "wire-v1^{commit}"], cwd=REPO,
                            capture_output=True, text=True)
    assert tagged.returncode != 0 or tagged.stdout.strip() == WIRE_V1_COMMIT


def test_wire_v1_image_is_the_tagged_protos(tmp_path: Path) -> None:
    """The committed image is ``buf build`` of the protos at the tag ``wire-v1`` (the commit it names, in a
    clone that fetched no tags)."""
    archive = subprocess.run(["git", "archive", WIRE_V1_COMMIT, "protos"], cwd=REPO, capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(tmp_path)], input=archive.stdout, check=True)
    built = tmp_path / "wire-v1.binpb"
    result = subprocess.run([str(BUF), "build", "protos", "--exclude-source-info", "-o", str(built)],
                            cwd=tmp_path, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    image = descriptor_pb2.FileDescriptorSet
    assert image.FromString(built.read_bytes()) == image.FromString(WIRE_V1.read_bytes())


def _image_fields(path: Path) -> dict[str, descriptor_pb2.FieldDescriptorProto]:
    image = descriptor_pb2.FileDescriptorSet.FromString(path.read_bytes())
    fields: dict[str, descriptor_pb2.FieldDescriptorProto] = {}

    def walk(prefix: str, messages: object) -> None:
        for message in messages:  # type: ignore[attr-defined]
            for field in message.field:
                fields[f"{prefix}.{message.name}.{field.name}"] = field
            walk(f"{prefix}.{message.name}", message.nested_type)

    for file in image.file:
        walk(file.package, file.message_type)
    return fields


def _current_fields() -> dict[str, object]:
    from cardgames.v1 import game_service_pb2, tournament_pb2

    fields: dict[str, object] = {}

    def walk(message: object) -> None:
        for field in message.fields:  # type: ignore[attr-defined]
            fields[field.full_name] = field
        for nested in message.nested_types:  # type: ignore[attr-defined]
            walk(nested)

    seen = set()
    pending = [game_service_pb2.DESCRIPTOR, tournament_pb2.DESCRIPTOR]
    while pending:
        file = pending.pop()
        if file.name in seen or not file.package.startswith("cardgames."):
            continue
        seen.add(file.name)
        pending.extend(file.dependencies)
        for message in file.message_types_by_name.values():
            walk(message)
    return fields


def test_fields_given_presence_since_wire_v1_are_the_ones_that_read_zero() -> None:
    """cardgames.wire reads the fields that gained presence as 0 when unset (what a wire-v1 peer means)."""
    from cardgames import wire

    before = _image_fields(WIRE_V1)
    now = _current_fields()
    gained = {name for name, field in before.items()
              if not field.proto3_optional and name in now and now[name].has_presence  # type: ignore[attr-defined]
              and field.type == descriptor_pb2.FieldDescriptorProto.TYPE_INT32}
    assert gained == wire.ZERO_WHEN_UNSET


#: Field names whose value is a seat, a team or side, or a meld index.
SEAT_FIELDS = {"seat", "owner", "caller", "dealer", "bidder", "eldest", "viewer", "to_act", "team", "side",
               "winner", "high_holder", "low_holder", "jack_holder", "jack_taker", "leftover_to", "baazi_winner",
               "last_capture_team", "out", "meld", "to_meld", "first_dealer"}


def test_every_seat_field_has_presence() -> None:
    """A singular seat, team or meld-index field is ``optional``, so that 0 shows in JSON."""
    from google.protobuf.descriptor import FieldDescriptor

    plain = sorted(name for name, field in _current_fields().items()
                   if field.name in SEAT_FIELDS and field.type == FieldDescriptor.TYPE_INT32  # type: ignore[attr-defined]
                   and not field.is_repeated and not field.has_presence  # type: ignore[attr-defined]
                   and field.containing_type.file.name not in PENDING)  # type: ignore[attr-defined]
    assert not plain, f"seat fields without presence (seat 0 vanishes from JSON): {plain}"


def _comments(path: Path) -> str:
    return "\n".join(line.split("//", 1)[1] for line in path.read_text().splitlines() if "//" in line)


def test_proto_comments_name_only_files_in_the_repository() -> None:
    """No FORMAT.md, COMMON.md, ../shared or Python source: an integrator reads the protos alone."""
    generator = _generator()
    files = [path for path in generator.proto_files() if str(path.relative_to(PROTOS)) not in PENDING]
    assert files
    forbidden = re.compile(r"FORMAT\.md|COMMON\.md|\.\./|\.py\b|\b(?:engine|service|tests)/|(?<!docs/)\brules/")
    referenced: set[str] = set()
    for path in files:
        text = _comments(path)
        bad = sorted(set(forbidden.findall(text)))
        assert not bad, f"{path.name} points outside the repository or at Python source: {bad}"
        for ref in re.findall(r"\b(?:docs|protos|clients)/[\w./<>-]*\w", text):
            if "<game>" in ref:
                referenced.update(ref.replace("<game>", game) for game in ("all-fours", "contract-rummy", "seep"))
            else:
                referenced.add(ref)
    assert "docs/service.md" in referenced
    missing = {ref for ref in referenced if not (REPO / ref).exists()}
    assert missing <= PENDING_DOCS, f"the protos name files the repository does not have: {sorted(missing)}"


def test_every_game_has_its_messages_in_the_top_level_oneofs() -> None:
    from cardgames import wire
    from cardgames.engine.core.registry import GAME_MODULES
    from cardgames.v1 import game_service_pb2

    for wrapper in (game_service_pb2.Command, game_service_pb2.Event, game_service_pb2.Options,
                    game_service_pb2.View):
        names = {field.name for field in wrapper.DESCRIPTOR.oneofs_by_name["game"].fields}
        assert names == {*GAME_MODULES, wire.OTHER}, wrapper.DESCRIPTOR.name


def test_wire_v1_peers_and_this_version_understand_each_other() -> None:
    """Bytes written with the wire-v1 protos read the same here, and the other way round."""
    from google.protobuf import descriptor_pool, message_factory

    from cardgames import wire
    from cardgames.v1 import all_fours_pb2

    pool = descriptor_pool.DescriptorPool()
    for file in descriptor_pb2.FileDescriptorSet.FromString(WIRE_V1.read_bytes()).file:
        pool.Add(file)
    old_call = message_factory.GetMessageClass(pool.FindMessageTypeByName("cardgames.v1.AllFoursCall"))
    old_begged = message_factory.GetMessageClass(pool.FindMessageTypeByName("cardgames.v1.AllFoursBegged"))

    sent = old_call(owner=0, card="AH").SerializeToString()  # a wire-v1 client calling seat 0's card
    assert sent == b"\x12\x02AH"  # proto3 without presence sends no 0
    call = all_fours_pb2.AllFoursCall.FromString(sent)
    assert not call.HasField("owner") and wire.from_message(call) == {"owner": 0, "card": "AH"}

    begged = wire.to_message(all_fours_pb2.AllFoursBegged, {"seat": 0}).SerializeToString()
    assert begged == b"\x08\x00"  # this version sends seat 0: a wire-v1 peer reads it as 0
    assert old_begged.FromString(begged) == old_begged(seat=0)
