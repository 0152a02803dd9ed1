"""What the routes of the HTTP API share: the path and query parameters (user, memory,
kinds, times), the path convertors that let an identifier hold ``/``, the small bodies
(owner, correction, new key, context request), the error codes read and write routes
answer, and the dependencies every router is built over."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from fastapi import Path, Query
from pydantic import BaseModel, ConfigDict, Field
from starlette.convertors import PathConvertor, register_url_convertor

from memstream.application import Operations
from memstream.events.identifier_rules import IDENTIFIER_PATTERN
from memstream.events.identifiers import Identifier, UtcDateTime
from memstream.gate.guard import Guard
from memstream.http.contract import (
    CONTROL_FREE_PATTERN,
)
from memstream.policies.limits import MAX_CONTEXT_TOKENS
from memstream.queries.as_of import AS_OF_DESCRIPTION
from memstream.queries.search.request import MAX_QUERY_CHARS, MEMORY_KINDS
from memstream.storage.write_tokens import MAX_TOKEN_CHARS, TOKEN_PATTERN
from memstream.tenancy.keys import Role

__all__ = [
    "ACTIONS",
    "AFTER",
    "AFTER_WRITE",
    "AS_OF",
    "BEFORE",
    "KINDS",
    "MEMORY",
    "READ",
    "SUFFIXES",
    "USER",
    "WAIT",
    "WRITE",
    "ContextRequest",
    "Correction",
    "NewKey",
    "Owner",
    "RouteDeps",
]

USER = Query(pattern=IDENTIFIER_PATTERN, max_length=200)
KINDS = "^(" + "|".join(MEMORY_KINDS) + ")$"
AFTER = Query(None, description="memories that occurred at or after this time")
#: A write token a read waits for (the ``token`` a write answered).
AFTER_WRITE = Query(
    None,
    max_length=MAX_TOKEN_CHARS,
    pattern=TOKEN_PATTERN,
    description="a write token: answer once the projections hold that write "
    "(503 with Retry-After after a bounded wait)",
)
#: A past moment a read answers as of (:mod:`memstream.queries.as_of`).
AS_OF = Query(None, max_length=MAX_TOKEN_CHARS, description=AS_OF_DESCRIPTION)
#: With ``after_write``: what to wait for.
WAIT = Query("applied", description="with after_write: 'applied', or 'vectors' too")
BEFORE = Query(None, description="memories that occurred before this time")
#: A memory id in a path: ``{memory_id:text}`` in the route, so an id holding ``/`` (which
#: the identifier rule allows, sent as ``%2F`` or as it is) or a line break (which it
#: refuses) reaches its route and gets that route's answer.
MEMORY = Path(pattern=IDENTIFIER_PATTERN, max_length=200)
#: The file name suffix of each export format.
SUFFIXES = {"events": "jsonl", "json": "json", "markdown": "md"}
#: The actions a path can name after a memory id.
ACTIONS = ("history", "explain", "confirm", "correct", "forget", "restore")


class _TextConvertor(PathConvertor):
    """Any text at all, ``/`` and line breaks included (Starlette's ``path`` stops at a
    line break, and the route would answer 404 where the identifier rule answers 422)."""

    regex = r"[\s\S]+"


class _MaybeTextConvertor(PathConvertor):
    """``text``, or none: an empty user id in ``/v1/users//export`` reaches the export
    route, whose identifier rule answers it (422), not the erase route (405)."""

    regex = r"[\s\S]*"


class _UserIdConvertor(PathConvertor):
    """A user id that may hold ``/`` but does not end in ``/export``: that path is the
    export's alone (its ``Allow`` lists its methods)."""

    regex = r"(?:(?!/export$)[\s\S])+"


class _MemoryIdConvertor(PathConvertor):
    """A memory id that may hold ``/`` but does not end in ``/<action>``: the path of
    an action on a memory is that action's alone (its ``Allow`` lists its methods)."""

    regex = r"(?:(?!/(?:" + "|".join(ACTIONS) + r")$)[\s\S])+"


register_url_convertor("text", _TextConvertor())
register_url_convertor("maybe_text", _MaybeTextConvertor())
register_url_convertor("user_id", _UserIdConvertor())
register_url_convertor("memory_id", _MemoryIdConvertor())


class Owner(BaseModel):
    model_config = ConfigDict(extra="forbid")

    user_id: Identifier


class Correction(Owner):
    content: str = Field(min_length=1, max_length=4000)


class NewKey(BaseModel):
    model_config = ConfigDict(extra="forbid")

    role: Role = "write"
    name: str = Field(default="", max_length=200, pattern=CONTROL_FREE_PATTERN + "|^$")


class ContextRequest(BaseModel):
    """What ``POST /v1/context`` takes."""

    model_config = ConfigDict(extra="forbid")

    user_id: Identifier
    project_id: Identifier | None = None
    #: the question or message the agent is about to answer (at least one word)
    query: str = Field(min_length=1, max_length=MAX_QUERY_CHARS, pattern=r"[\w'@.-]")
    #: the block's size; by default 1,000 tokens for a simple query, 3,000 for a complex one
    budget_tokens: int | None = Field(default=None, ge=1, le=MAX_CONTEXT_TOKENS)
    now: UtcDateTime | None = None
    #: a write token: the block is assembled once the projections hold that write
    after_write: str | None = Field(default=None, max_length=MAX_TOKEN_CHARS, pattern=TOKEN_PATTERN)
    #: with ``after_write``: "applied", or "vectors" (the user's vectors are there too)
    wait: Literal["applied", "vectors"] = "applied"
    #: leave out what bears not on the query (too little of its words, no name of it, far
    #: in meaning);
    #: null: as the deployment says (``MEMSTREAM_CONTEXT_CUTOFF``, on by default)
    cutoff: bool | None = None
    #: the block memory as it stood at a past moment would have given: an ISO 8601 time
    #: or a write token (see ``POST /v1/search``)
    as_of: str | None = Field(default=None, max_length=MAX_TOKEN_CHARS)


READ = (401, 403, 422, 429)
WRITE = (*READ, 503, 507)


@dataclass(frozen=True)
class RouteDeps:
    """What each router is built over: the operations, the guard and its dependency
    (``who``, the caller's principal), and this run's instance name."""

    operations: Operations
    guard: Guard
    who: Any
    instance: str | None
