"""The service over HTTP: Connect (JSON and binary) and gRPC-Web beside native gRPC.

:mod:`.bridge` serves the gRPC servicers' methods as Connect handlers (same tokens, same
errors and details), :mod:`.app` routes requests to them, to the static files of
``static/`` and answers CORS, :mod:`.server` runs it all on uvicorn in the grpc.aio
server's own event loop (docs/service.md, "HTTP: Connect and gRPC-Web").
"""
