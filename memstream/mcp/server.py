"""The MCP server: memory tools and resources for agents, each a thin call into
:class:`~memstream.operations.Operations`.

The user (and project) a server acts for is bound outside the model's reach: when it
starts (``memstream mcp --user ana`` over stdio), or by the URL an agent is configured
with (``/mcp?user_id=ana`` on the API, see :mod:`memstream.mcp.http`). No tool takes a
user argument, so a model can never read or write another user's memory. The resources
are the entity profiles (``memstream://entities/{name}``) and, on a server bound at start,
the user's statistics (``memstream://stats``; over HTTP the ``memory_stats`` tool answers
the same, as the SDK gives a static resource no request to read a URL from). What an operation
refuses (a bad argument, an unknown memory, the log unavailable) comes back as an MCP
tool error naming the problem, never a traceback; so does an argument a tool does not
take, or a value out of its range (``limit`` is 1 to 50).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import asdict, dataclass, field
from datetime import datetime
from importlib.metadata import version
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field, ValidationError

from memstream.operations import OperationError, Operations
from memstream.operations.callers import Caller
from memstream.projections.codec import problems_of
from memstream.projections.errors import InvalidQuery, ProjectionError
from memstream.projections.scope import valid_identifier
from memstream.queries.search import SearchRequest

__all__ = [
    "CHECKED_SCOPE",
    "TOOLS",
    "Scope",
    "ScopeOf",
    "memory_server",
    "request_scope",
    "scope_of_request",
]

log = logging.getLogger(__name__)

_T = TypeVar("_T")

Kind = Literal[
    "episode", "fact", "preference", "procedure", "opinion", "reflection", "summary", "chunk"
]
#: The tools, in the order they are listed.
TOOLS = (
    "search_memory",
    "get_context",
    "remember_fact",
    "correct_fact",
    "confirm_fact",
    "forget_memory",
    "get_entity_info",
    "explain_memory",
    "weak_facts",
    "memory_stats",
    "consolidate_now",
    "add_document",
    "document_status",
    "remove_document",
)

_INSTRUCTIONS = (
    "Long-term memory of the user you are talking with. Call get_context with the user's "
    "message before you answer; search_memory to look something up; remember_fact when the "
    "user states something worth keeping; correct_fact, confirm_fact or forget_memory when "
    "they say a memory is wrong, right or to be forgotten (by its memory_id)."
)


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
ScopeOf = Callable[[Context], Scope]


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


async def _answer(call: Awaitable[_T]) -> _T:
    """The operation's answer, or a tool error that says what was wrong."""
    try:
        return await call
    except (OperationError, ProjectionError) as exc:
        raise ToolError(str(exc)) from None
    except ValidationError as exc:
        raise ToolError("; ".join(problems_of(exc))) from None


class _StrictServer(MCPServer):
    """An MCP server whose tools refuse arguments they do not take (a model that sends
    ``k`` for ``limit`` learns so, instead of getting the default silently) and report
    bad values in one line per argument, not a validation dump."""

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context | None = None
    ) -> Any:
        tool = self._tool_manager.get_tool(name)
        if tool is not None:
            taken = list(tool.parameters.get("properties", {}))
            unknown = sorted(set(arguments) - set(taken))
            if unknown:
                raise ToolError(
                    f"{name} takes no argument {', '.join(unknown)}; its arguments are "
                    f"{', '.join(taken) or 'none'}"
                )
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):
                problems = "; ".join(problems_of(exc.__cause__))
                raise ToolError(f"{name}: {problems}") from exc.__cause__
            raise


def memory_server(operations: Operations, scope: Scope | ScopeOf) -> MCPServer:
    """An MCP server over ``operations`` acting for ``scope``: one user (and project)
    bound at start, or a function that finds each call's scope (:func:`scope_of_request`)."""
    server = _StrictServer(
        name="memstream",
        title="memstream",
        instructions=_INSTRUCTIONS,
        version=version("memstream"),
    )
    ops = operations
    scope_of: ScopeOf = (lambda _: scope) if isinstance(scope, Scope) else scope

    def here(ctx: Context) -> Scope:
        try:
            return scope_of(ctx)
        except ProjectionError as exc:
            raise ToolError(str(exc)) from None

    def changing(ctx: Context) -> Scope:
        """The scope of a tool that changes memory (a tool error for a read-only key)."""
        at = here(ctx)
        if at.read_only:
            raise ToolError("this API key is read-only: it cannot change memory")
        return at

    def tool(function: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
        return server.tool()(function)

    @tool
    async def search_memory(
        ctx: Context,
        query: str,
        kind: Kind | None = None,
        tag: str | None = None,
        entity: str | None = None,
        after: datetime | None = None,
        before: datetime | None = None,
        limit: Annotated[int, Field(ge=1, le=50)] = 10,
        min_similarity: Annotated[float, Field(ge=-1.0, le=1.0)] | None = None,
    ) -> dict[str, Any]:
        """Hybrid search (full text, meaning, entities) of the user's memories, best first.
        Each result has its memory_id, kind, content, date, speaker and entities; an
        archived one is a summary (archived: true); a long turn found by one of its
        passages says where that passage is (passage: start, end). ``min_similarity``
        (cosine, e.g. 0.3) leaves out what is further in meaning from the query: when
        nothing reaches it, ``results`` is empty and ``note`` says nothing relevant is
        known."""
        at = here(ctx)
        wanted = limit
        request = await _answer(
            _validated(
                user_id=at.user_id,
                project_id=at.project_id,
                query=query,
                k=min(wanted * 5, 200) if entity else wanted,
                kinds=[kind] if kind else None,
                tags=[tag] if tag else None,
                after=after,
                before=before,
                min_similarity=min_similarity,
            )
        )
        response = await _answer(ops.search(request))
        results = response.results
        if entity:
            named = entity.casefold()
            results = [r for r in results if any(e.casefold() == named for e in r.entities)]
        answer: dict[str, Any] = {"results": [r.model_dump(mode="json") for r in results[:wanted]]}
        if not results and min_similarity is not None:
            answer["note"] = f"nothing relevant: no memory reaches similarity {min_similarity:g}"
        return answer

    @tool
    async def get_context(
        ctx: Context, query: str, budget_tokens: int | None = None
    ) -> dict[str, Any]:
        """The memory block to read before answering ``query``: facts, the people and
        things involved, what happened around then, and the turns it rests on, within
        ``budget_tokens`` (default 1,000, or 3,000 for a complex question). ``context`` is
        null when nothing relevant is known."""
        at = here(ctx)
        block = await _answer(
            ops.context(at.user_id, query, project_id=at.project_id, budget_tokens=budget_tokens)
        )
        return asdict(block)

    @tool
    async def remember_fact(
        ctx: Context, content: str, entities: list[str] | None = None, tags: list[str] | None = None
    ) -> dict[str, Any]:
        """Remember something the user stated as true. ``entities``: who or what it is
        about (the first becomes its subject); names in the content are found anyway.
        The same statement remembered again (a retry) is the same memory: ``accepted``
        is then empty."""
        at = changing(ctx)
        fields: dict[str, Any] = {
            "content": content,
            "user_id": at.user_id,
            "project_id": at.project_id,
            "tags": tags or [],
        }
        if entities:
            fields["subject"] = entities[0]
        wanted = {k: v for k, v in fields.items() if v is not None}
        done = await _answer(ops.remember(wanted, at.caller))
        return {"memory_id": done.memory_id, "accepted": done.event_ids}

    @tool
    async def correct_fact(ctx: Context, memory_id: str, new_content: str) -> dict[str, Any]:
        """Replace a wrong memory with the corrected content (the old one stays as
        history); answers the new memory's id."""
        at = changing(ctx)
        done = await _answer(ops.correct(at.user_id, memory_id, new_content, at.caller))
        return {"memory_id": done.memory_id, "supersedes": memory_id}

    @tool
    async def confirm_fact(ctx: Context, memory_id: str) -> dict[str, Any]:
        """Confirm a memory: full confidence, it never decays."""
        at = changing(ctx)
        await _answer(ops.confirm(at.user_id, memory_id, at.caller))
        return {"memory_id": memory_id, "confirmed": True}

    @tool
    async def forget_memory(ctx: Context, memory_id: str) -> dict[str, Any]:
        """Forget a memory: never returned again (kept as history)."""
        at = changing(ctx)
        await _answer(ops.forget(at.user_id, memory_id, at.caller))
        return {"memory_id": memory_id, "forgotten": True}

    @tool
    async def get_entity_info(ctx: Context, name: str) -> dict[str, Any]:
        """A person, place or thing the user mentioned: aliases, mentions, first and last
        seen, and the memories about it."""
        return _jsonable(await _answer(ops.entity(here(ctx).user_id, name, here(ctx).project_id)))

    @tool
    async def explain_memory(ctx: Context, memory_id: str) -> dict[str, Any]:
        """Why a memory exists: the turns it came from, the memories it replaced or that
        replaced it, confirmations, entities, and its confidence now."""
        return _jsonable(await _answer(ops.explain(here(ctx).user_id, memory_id)))

    @tool
    async def weak_facts(
        ctx: Context, limit: Annotated[int, Field(ge=1, le=100)] = 10
    ) -> dict[str, Any]:
        """Memories close to being forgotten by decay, weakest first (confirm the ones
        that still hold)."""
        found = await _answer(ops.weak_facts(here(ctx).user_id))
        return {"memories": [_jsonable(m) for m in found[:limit]]}

    @tool
    async def memory_stats(ctx: Context) -> dict[str, Any]:
        """How many memories of each kind the user has, entities, and the lag behind the
        log."""
        return _jsonable(await _answer(ops.stats(here(ctx).user_id)))

    @tool
    async def consolidate_now(ctx: Context) -> dict[str, Any]:
        """Turn the user's finished conversations into facts now (instead of waiting for
        the worker's timer)."""
        at = changing(ctx)
        report = await _answer(ops.run_job("consolidate", user_id=at.user_id, caller=at.caller))
        return {"events": len(report.events), "failed": report.failed}

    reads_files = isinstance(scope, Scope)  # bound at start: stdio, the user's own machine

    @tool
    async def add_document(
        ctx: Context,
        text: str | None = None,
        path: str | None = None,
        title: str | None = None,
        document_id: str | None = None,
        wait_seconds: Annotated[float, Field(ge=0, le=300)] = 30,
    ) -> dict[str, Any]:
        """Add a document to the user's memory: its ``text`` (with a ``document_id``),
        or a file's ``path`` (Markdown, HTML, text, PDF or DOCX; over stdio only). Its chunks
        become memories that search_memory finds, each citing the title, page and
        section. Waits up to ``wait_seconds`` for it to be indexed; the same bytes again
        change nothing, new bytes for the same document_id are a new version."""
        at = changing(ctx)
        if (text is None) == (path is None):
            raise ToolError("give the document's text or a path, one of them")
        name = None
        if path is not None:
            if not reads_files:
                raise ToolError("path: this server cannot read files; send the text")
            try:
                data = Path(path).expanduser().read_bytes()
            except OSError as exc:
                raise ToolError(f"path: cannot read {path}: {exc.strerror or exc}") from None
            name = Path(path).name
        else:
            data = (text or "").encode("utf-8")
            if document_id is None:
                raise ToolError("document_id: needed for a document sent as text")
        done = await _answer(
            ops.add_document(
                at.user_id,
                data,
                name=name,
                media_type=None if name else "text/plain",
                title=title,
                document_id=document_id,
                project_id=at.project_id,
                caller=at.caller,
            )
        )
        status = await _answer(
            ops.document(at.user_id, done.document_id, wait_seconds, done.checksum)
        )
        return {"document_id": done.document_id, "new": done.new, **_jsonable(status)}

    @tool
    async def document_status(ctx: Context, document_id: str) -> dict[str, Any]:
        """A document's status (received, chunked, indexed, empty, failed with why, or
        removed), its version, pages, chunks and the facts derived from them."""
        return _jsonable(await _answer(ops.document(here(ctx).user_id, document_id)))

    @tool
    async def remove_document(ctx: Context, document_id: str) -> dict[str, Any]:
        """Remove a document from the user's memory: the chunks and facts of every
        version of it are never found again (kept for history)."""
        at = changing(ctx)
        done = await _answer(
            ops.remove_document(at.user_id, document_id, wait_seconds=30, caller=at.caller)
        )
        return _jsonable(done.get("document") or done)  # the status, or what was accepted

    if isinstance(scope, Scope):  # the SDK reads a static resource with no request

        @server.resource("memstream://stats", mime_type="application/json")
        async def stats_resource() -> dict[str, Any]:
            """The user's memory statistics."""
            return _jsonable(await _answer(ops.stats(scope.user_id)))

    @server.resource("memstream://entities/{name}", mime_type="application/json")
    async def entity_resource(name: str, ctx: Context) -> dict[str, Any]:
        """An entity's profile."""
        return _jsonable(await _answer(ops.entity(here(ctx).user_id, name, here(ctx).project_id)))

    return server


async def _validated(**fields: Any) -> SearchRequest:
    return SearchRequest.model_validate({k: v for k, v in fields.items() if v is not None})


def _jsonable(document: dict[str, Any]) -> dict[str, Any]:
    """``document`` with datetimes as ISO strings (structured tool results are JSON)."""
    return {key: _plain(value) for key, value in document.items()}


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return _jsonable(value)
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, datetime):
        return value.isoformat()
    return value
