"""The HTTP API answered in this process: an ``httpx`` transport that hands each request
to the app over a data folder opened here, so :class:`~memstream.client.MemoryClient`
talks to a running server and to this process through one interface (the httpx pattern:
the transport decides where a request goes, not the client).

The app runs on an event loop of its own thread (an ``anyio`` blocking portal), with its
lifespan entered when the transport is made and left when it is closed (the operations'
background reports finish then). The caller is this machine's operator: no key is asked
for, and the changes it makes are audited as the command line's.
"""

from __future__ import annotations

from contextlib import ExitStack
from typing import Any

import httpx
from anyio.from_thread import start_blocking_portal
from fastapi import FastAPI, Request

from memstream.application import Operations
from memstream.application.callers import Door
from memstream.gate.guard import Guard, Principal
from memstream.http.app import create_app, guard_for
from memstream.settings import Settings

__all__ = ["InProcessTransport", "OperatorGuard", "in_process_transport"]


class OperatorGuard(Guard):
    """A guard that lets this machine's operator through (no key), audited as ``door``."""

    door: Door = "cli"

    async def __call__(self, request: Request) -> Principal:
        return Principal(None, self, f"{request.method} {request.url.path}", self.door)


class InProcessTransport(httpx.BaseTransport):
    """Requests answered by ``app`` in this process (see the module docstring)."""

    def __init__(self, app: FastAPI) -> None:
        self._stack = ExitStack()
        try:  # a lifespan that fails to start leaves no loop thread behind
            self._portal = self._stack.enter_context(start_blocking_portal())
            self._stack.enter_context(
                self._portal.wrap_async_context_manager(app.router.lifespan_context(app))
            )
        except BaseException:
            self._stack.close()
            raise
        self._asgi = httpx.ASGITransport(app=app)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        content = request.read()

        async def answer() -> tuple[int, Any, bytes]:
            forwarded = httpx.Request(
                request.method, request.url, headers=request.headers, content=content
            )
            response = await self._asgi.handle_async_request(forwarded)
            body = await response.aread()
            return response.status_code, response.headers, body

        status, headers, body = self._portal.call(answer)
        return httpx.Response(status, headers=headers, content=body, request=request)

    def close(self) -> None:
        self._stack.close()


def in_process_transport(settings: Settings) -> InProcessTransport:
    """The API over the data folder ``settings`` name, opened in this process."""
    kept = guard_for(settings)
    guard = OperatorGuard(kept.keys, kept.buckets, kept.audit)
    return InProcessTransport(
        create_app(
            Operations(settings),
            guard=guard,
            with_mcp=False,
            with_console=False,
            checked_doors=False,  # no socket: only this process reaches it
        )
    )
