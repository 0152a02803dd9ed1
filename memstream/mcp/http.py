"""The MCP server over streamable HTTP, mounted on the API at ``/mcp``.

The URL an agent is configured with names whose memory it works on:
``http://127.0.0.1:8765/mcp?user_id=ana`` (and ``&project_id=p``), so the scope is set by
whoever wires the agent, never by the model. A URL naming no user, or a malformed one,
is answered 422 before any MCP message is read.

The server is stateless (each POST is one JSON-RPC exchange answered as JSON): nothing is
kept between calls, so any API process can answer any call and a restart loses no
session. On a loopback address the SDK's DNS-rebinding protection is on.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager

from mcp.server.streamable_http_manager import StreamableHTTPASGIApp
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from memstream.mcp.server import memory_server, request_scope, scope_of_request
from memstream.operations import Operations
from projections.errors import ProjectionError

__all__ = ["MCP_PATH", "mcp_route"]

MCP_PATH = "/mcp"


def mcp_route(
    operations: Operations, host: str
) -> tuple[Route, Callable[[], AbstractAsyncContextManager[None]]]:
    """The ``/mcp`` route over ``operations``, and what must run while it serves (the
    SDK's session manager, entered by the API's lifespan); ``host`` is the address the
    API listens on."""
    server = memory_server(operations, scope_of_request)
    server.streamable_http_app(
        streamable_http_path=MCP_PATH, stateless_http=True, json_response=True, host=host
    )
    manager = server.session_manager
    endpoint = _ScopedToTheUrl(StreamableHTTPASGIApp(manager))
    route = Route(MCP_PATH, endpoint=endpoint, methods=["GET", "POST", "DELETE"])
    return route, manager.run


class _ScopedToTheUrl:
    """Refuses a request whose URL names no valid user before the MCP server reads it."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            request_scope(Request(scope).query_params)
        except ProjectionError as exc:
            await JSONResponse({"detail": [str(exc)]}, status_code=422)(scope, receive, send)
            return
        await self.app(scope, receive, send)
