"""The first check of every request the API's port answers (the API, the console, MCP,
the docs): the Host and Origin rule of :mod:`memstream.policies.doors`, and the body's
declared type, before any route reads a byte, with API keys or without.

A route of ``/v1`` that changes state takes ``application/json`` only (``POST
/v1/documents`` also ``multipart/form-data``): the types a page on another site may send
without asking first (``text/plain``, a form) never reach a route. Where the operator
allowed other sites' pages (``MEMSTREAM_BROWSER_ORIGINS``), CORS is answered for them,
and for no one else. A refusal is a JSON ``{"detail": ...}`` that quotes nothing the
request sent.
"""

from __future__ import annotations

from starlette.datastructures import Headers
from starlette.middleware.cors import CORSMiddleware
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from memstream.policies.doors import SAFE_METHODS, DoorRule, Refusal

__all__ = ["Doors", "body_refusal"]

#: The body types each kind of route takes (a route of ``/v1`` that changes state).
_JSON = frozenset({"application/json"})
_JSON_OR_FORM = frozenset({"application/json", "multipart/form-data"})
_TAKES_FORMS = frozenset({"/v1/documents"})


def body_refusal(method: str, path: str, headers: Headers) -> Refusal | None:
    """A refusal (415) of a ``/v1`` request that changes state and carries a body (or a
    declared type) that is not one its route takes; None otherwise."""
    if method.upper() in SAFE_METHODS or not path.startswith("/v1/"):
        return None
    declared = headers.get("content-type")
    length = headers.get("content-length")
    has_body = "transfer-encoding" in headers or (length is not None and length.strip() != "0")
    if declared is None and not has_body:
        return None
    media = (declared or "").split(";", 1)[0].strip().lower()
    takes = _JSON_OR_FORM if path in _TAKES_FORMS else _JSON
    if media in takes:
        return None
    return Refusal(415, f"this route takes a body of type {' or '.join(sorted(takes))} only")


class Doors:
    """Wraps the API app: refuses what :class:`DoorRule` and :func:`body_refusal`
    refuse; answers CORS for the configured origins only."""

    def __init__(self, app: ASGIApp, rule: DoorRule, browser_origins: list[str]) -> None:
        self.rule = rule
        self.app: ASGIApp = app
        if browser_origins:
            self.app = CORSMiddleware(
                app,
                allow_origins=browser_origins,
                allow_methods=["GET", "POST", "DELETE"],
                allow_headers=[
                    "authorization",
                    "content-type",
                    "memstream-agent",
                    "memstream-session",
                ],
                max_age=600,
            )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in {"http", "websocket"}:
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        method = scope.get("method", "GET")
        refusal = self.rule.refusal(
            method, headers.get("host"), headers.get("origin"), headers.get("sec-fetch-site")
        ) or body_refusal(method, scope["path"], headers)
        if refusal is None:
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
            return
        answer = JSONResponse({"detail": refusal.reason}, refusal.status)
        await answer(scope, receive, send)
