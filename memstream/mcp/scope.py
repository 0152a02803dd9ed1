"""Whose memory an MCP server's tools act on: the scope bound when a server starts
(stdio), or read off each request over HTTP (the one the front door checked, with its
key's rights, else what the URL names)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from memstream.application.callers import Caller
from memstream.events.errors import InvalidQuery
from memstream.policies.scope import valid_identifier

if TYPE_CHECKING:  # the SDK is imported by the server itself (memstream.mcp.http)
    from mcp.server.mcpserver import Context

__all__ = ["CHECKED_SCOPE", "Scope", "request_scope", "scope_of_request"]


@dataclass(frozen=True)
class Scope:
    """Whose memory the tools act on; ``read_only`` when the caller's API key may not
    change it; ``caller``, who the operations layer audits the changes of (the key an
    HTTP request carried; none over stdio)."""

    user_id: str
    project_id: str | None = None
    read_only: bool = False
    caller: Caller = field(default=Caller("mcp"), compare=False)


#: How a server finds the scope of a call: bound at start, or read off the request.
ScopeOf = Callable[["Context"], Scope]


def request_scope(parameters: Mapping[str, str]) -> Scope:
    """The scope a URL's query names (``user_id``, optional ``project_id``), or
    InvalidQuery saying what is wrong when it names none or a malformed one."""
    user_id = parameters.get("user_id")
    if not user_id:
        raise InvalidQuery("user_id: the URL must name the user, as in /mcp?user_id=ana")
    project_id = parameters.get("project_id") or None
    if project_id is not None:
        valid_identifier("project_id", project_id)
    return Scope(valid_identifier("user_id", user_id), project_id)


#: Where the HTTP front door leaves the scope it checked (in the request's state).
CHECKED_SCOPE = "memstream_scope"


def scope_of_request(ctx: Context) -> Scope:
    """The scope of a call over HTTP: the one the front door checked (its key's rights
    included), else what the request's URL names."""
    request = ctx.request_context.request
    checked = getattr(request, "scope", {}).get("state", {}).get(CHECKED_SCOPE)
    if isinstance(checked, Scope):
        return checked
    return request_scope(getattr(request, "query_params", {}))
