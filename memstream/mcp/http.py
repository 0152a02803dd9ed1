"""The MCP server over streamable HTTP, mounted on the API at ``/mcp``.

The URL an agent is configured with names whose memory it works on:
``http://127.0.0.1:8765/mcp?user_id=ana`` (and ``&project_id=p``), so the scope is set by
whoever wires the agent, never by the model. A URL naming no user, or a malformed one,
is answered 422 before any MCP message is read, with a body that is the API's error and
a JSON-RPC error at once, so an MCP client shows what is wrong (so are a missing key,
401, a user outside the key's tenant, 403, and a key over its rate, 429).

The server is stateless (each POST is one JSON-RPC exchange answered as JSON): nothing is
kept between calls, so any API process can answer any call and a restart loses no
session. On a loopback address the SDK's DNS-rebinding protection is on. Where the
server requires API keys, the request carries one (``Authorization: Bearer``) and the
URL's user must be in its tenant; a read-only key's calls to tools that change memory
are tool errors.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextlib import AbstractAsyncContextManager
from dataclasses import replace
from typing import Any

from fastapi import HTTPException
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from memstream.application import Operations
from memstream.events.errors import ProjectionError
from memstream.gate.guard import Guard
from memstream.mcp.scope import CHECKED_SCOPE, request_scope, scope_of_request
from memstream.mcp.server import memory_server
from memstream.tenancy.limits import RateLimited

__all__ = ["MCP_PATH", "mcp_route"]

MCP_PATH = "/mcp"


def mcp_route(
    operations: Operations, host: str, guard: Guard
) -> tuple[Route, Callable[[], AbstractAsyncContextManager[None]]]:
    """The ``/mcp`` route over ``operations``, and what must run while it serves (the
    SDK's session manager, entered by the API's lifespan); ``host`` is the address the
    API listens on; ``guard`` checks each request's key."""
    server = memory_server(operations, scope_of_request)
    server.streamable_http_app(
        streamable_http_path=MCP_PATH, stateless_http=True, json_response=True, host=host
    )
    manager = server.session_manager
    endpoint = _ScopedToTheUrl(StreamableHTTPASGIApp(manager), guard)
    route = Route(MCP_PATH, endpoint=endpoint, methods=["GET", "POST", "DELETE"])
    return route, manager.run


class _ScopedToTheUrl:
    """Checks a request before the MCP server reads it: its API key (401), the user its
    URL names (422 when none or malformed, 403 outside the key's tenant) and the key's
    rate (429); then leaves the checked scope, with the key's rights, for the tools."""

    def __init__(self, app: ASGIApp, guard: Guard) -> None:
        self.app = app
        self.guard = guard

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope)
        try:
            who = self.guard.principal(
                request.headers.get("authorization"), f"{request.method} {request.url.path}"
            )
            url_scope = request_scope(request.query_params)
            who.reach(url_scope.user_id)
            who.limit("search")
        except HTTPException as exc:
            refusal = _refusal(exc.status_code, exc.detail, exc.headers)
            await refusal(scope, receive, send)
            return
        except RateLimited as exc:
            headers = {"Retry-After": str(exc.retry_after)}
            await _refusal(429, str(exc), headers)(scope, receive, send)
            return
        except ProjectionError as exc:
            await _refusal(422, [str(exc)])(scope, receive, send)
            return
        checked = replace(
            url_scope,
            read_only=who.key is not None and not who.key.may_write,
            caller=who.caller("mcp"),
        )
        scope.setdefault("state", {})[CHECKED_SCOPE] = checked
        await self.app(scope, receive, send)


#: JSON-RPC error codes for the refusals: bad parameters, and two of the range left to
#: servers (not allowed; over the rate).
_CODES = {422: -32602, 401: -32001, 403: -32001, 429: -32002}


def _refusal(status: int, detail: Any, headers: Mapping[str, str] | None = None) -> JSONResponse:
    """A refusal both kinds of client read: the API's error body (``detail``, as every
    other endpoint answers) that is also a JSON-RPC error (an MCP client shows its
    message to the agent and its user)."""
    error = {"code": _CODES.get(status, -32600), "message": _said(detail)}
    body = {"detail": detail, "jsonrpc": "2.0", "id": None, "error": error}
    return JSONResponse(body, status, headers=headers)


def _said(detail: Any) -> str:
    if isinstance(detail, list):
        return "; ".join(str(d) for d in detail)
    return str(detail)
