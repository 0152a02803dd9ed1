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

The SDK is imported and the server built on the first request that passes those checks,
in a worker thread, not when the API starts: that is half a second of CPU, a quarter of
an API process's start, which an API no agent reaches over MCP never spends.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import replace
from typing import Any

import anyio
import anyio.to_thread
from fastapi import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from memstream.application import Operations
from memstream.events.errors import ProjectionError
from memstream.gate.guard import Guard
from memstream.mcp.scope import CHECKED_SCOPE, request_scope, scope_of_request
from memstream.tenancy.limits import RateLimited

__all__ = ["MCP_PATH", "mcp_route"]

MCP_PATH = "/mcp"

log = logging.getLogger(__name__)


def mcp_route(
    operations: Operations, host: str, guard: Guard
) -> tuple[Route, Callable[[], AbstractAsyncContextManager[None]]]:
    """The ``/mcp`` route over ``operations``, and what must run while it serves (the
    API's lifespan enters it: the SDK's session manager, once the first request has
    started it); ``host`` is the address the API listens on; ``guard`` checks each
    request's key."""
    served = _ServedOnFirstUse(operations, host)
    endpoint = _ScopedToTheUrl(served, guard)
    route = Route(MCP_PATH, endpoint=endpoint, methods=["GET", "POST", "DELETE"])
    return route, served.running


class _ServedOnFirstUse:
    """The SDK's streamable HTTP app for the memory server, built and started on the
    first request (see the module docstring); until then, and while the API is not
    running, nothing of the SDK is loaded."""

    def __init__(self, operations: Operations, host: str) -> None:
        self._operations, self._host = operations, host
        self._app: ASGIApp | None = None
        self._wanted: anyio.Event | None = None
        self._ready: anyio.Event | None = None

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """While the API serves: a task that starts the session manager when the first
        request asks for it, and stops it when the API stops."""
        self._wanted, self._ready = anyio.Event(), anyio.Event()
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(self._serve_when_wanted, self._wanted, self._ready)
            try:
                yield
            finally:
                tasks.cancel_scope.cancel()
                self._app = None

    async def _serve_when_wanted(self, wanted: anyio.Event, ready: anyio.Event) -> None:
        await wanted.wait()
        try:
            app, manager = await anyio.to_thread.run_sync(self._build)
            async with manager.run():
                self._app = app
                ready.set()
                await anyio.sleep_forever()
        except Exception as exc:  # the requests waiting are refused, not left hanging
            log.error("the MCP server could not start: %s", exc)
        finally:
            ready.set()

    def _build(self) -> tuple[ASGIApp, Any]:
        from mcp.server.streamable_http_manager import StreamableHTTPASGIApp

        from memstream.mcp.server import memory_server

        server = memory_server(self._operations, scope_of_request)
        server.streamable_http_app(
            streamable_http_path=MCP_PATH, stateless_http=True, json_response=True, host=self._host
        )
        manager = server.session_manager
        return StreamableHTTPASGIApp(manager), manager

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self._app is None and self._wanted is not None and self._ready is not None:
            self._wanted.set()
            await self._ready.wait()
        if self._app is None:
            await _refusal(503, "the MCP server is not running")(scope, receive, send)
            return
        await self._app(scope, receive, send)


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
_CODES = {422: -32602, 401: -32001, 403: -32001, 429: -32002, 503: -32603}


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
