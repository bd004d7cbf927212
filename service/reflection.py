"""Server reflection in both protocols, and the health service with List.

Reflection lets a generic client (grpcurl, buf curl, Postman, grpcio-reflection's
``ProtoReflectionDescriptorDatabase``) list the services and fetch their descriptors, so it
can call them with no .proto file. gRPC defines two protocols: ``grpc.reflection.v1`` (what
grpcurl tries first and ``buf curl --reflect-protocol grpc-v1`` uses) and the older
``grpc.reflection.v1alpha``. grpcio-reflection (1.85) implements only v1alpha; the two
protocols' messages are the same, field for field and number for number (gRPC renamed the
package when it declared the protocol stable), so v1 is served here by the same servicer
under the v1 service name, its bytes read and written with the v1alpha classes, and the v1
file (the v1alpha file under the package ``grpc.reflection.v1``) is added to the descriptor
pool so that reflection describes itself in both protocols.

grpcio-health-checking's asyncio servicer (1.85) answers ``Health/List`` with UNIMPLEMENTED;
:class:`Health` implements it: every service whose status was set, with that status.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool
from grpc_health.v1 import health, health_pb2
from grpc_reflection.v1alpha import reflection, reflection_pb2, reflection_pb2_grpc

V1ALPHA_SERVICE_NAME: Final[str] = reflection.SERVICE_NAME
V1_PACKAGE: Final = "grpc.reflection.v1"
V1_FILE: Final = "grpc/reflection/v1/reflection.proto"
V1_SERVICE_NAME: Final = f"{V1_PACKAGE}.ServerReflection"


def v1_file_proto() -> descriptor_pb2.FileDescriptorProto:
    """The v1 protocol's file: the v1alpha file under the package ``grpc.reflection.v1``."""
    proto = descriptor_pb2.FileDescriptorProto()
    reflection_pb2.DESCRIPTOR.CopyToProto(proto)
    old_package = proto.package
    proto.name = V1_FILE
    proto.package = V1_PACKAGE
    proto.ClearField("options")  # v1alpha's (deprecated, language packages named v1alpha); v1's own:
    proto.options.go_package = "google.golang.org/grpc/reflection/grpc_reflection_v1"
    proto.options.java_multiple_files = True
    proto.options.java_package = "io.grpc.reflection.v1"
    proto.options.java_outer_classname = "ServerReflectionProto"
    for message in proto.message_type:
        for field in message.field:
            if field.type_name.startswith(f".{old_package}."):
                field.type_name = f".{V1_PACKAGE}." + field.type_name[len(old_package) + 2 :]
    for service in proto.service:
        for method in service.method:
            method.input_type = f".{V1_PACKAGE}." + method.input_type[len(old_package) + 2 :]
            method.output_type = f".{V1_PACKAGE}." + method.output_type[len(old_package) + 2 :]
    return proto


def _add_v1_file(pool: Any) -> None:
    """Add the v1 file to ``pool`` once (the pool answers reflection's questions)."""
    try:
        pool.FindFileByName(V1_FILE)
    except KeyError:
        pool.AddSerializedFile(v1_file_proto().SerializeToString())


def enable_reflection(service_names: Iterable[str], server: grpc.aio.Server) -> None:
    """Serve reflection v1 and v1alpha on ``server`` for ``service_names`` (and for reflection itself)."""
    _add_v1_file(descriptor_pool.Default())
    names = (*service_names, V1_SERVICE_NAME, V1ALPHA_SERVICE_NAME)
    servicer = reflection.aio.ReflectionServicer(names)
    reflection_pb2_grpc.add_ServerReflectionServicer_to_server(servicer, server)  # v1alpha
    handler = grpc.stream_stream_rpc_method_handler(
        servicer.ServerReflectionInfo,
        # v1's messages are v1alpha's, byte for byte (see the module's docstring).
        request_deserializer=reflection_pb2.ServerReflectionRequest.FromString,
        response_serializer=reflection_pb2.ServerReflectionResponse.SerializeToString,
    )
    server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler(V1_SERVICE_NAME, {"ServerReflectionInfo": handler}),)
    )


class Health(health.aio.HealthServicer):
    """``grpc.health.v1.Health`` with ``List``: Check and Watch as grpcio-health-checking serves them."""

    async def List(
        self, request: health_pb2.HealthListRequest, context: grpc.aio.ServicerContext
    ) -> health_pb2.HealthListResponse:
        """Every service whose status was set, with its status (NOT_SERVING for all once shutting down)."""
        statuses: dict[str, Any] = dict(self._server_status)
        return health_pb2.HealthListResponse(
            statuses={name: health_pb2.HealthCheckResponse(status=status) for name, status in statuses.items()}
        )
