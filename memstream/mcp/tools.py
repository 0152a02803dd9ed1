"""The memory tools of an MCP server, one method each, over the operations layer.

Each tool acts for the scope of its call (:mod:`memstream.mcp.scope`): a tool that changes
memory refuses a read-only key; none takes a user argument. What an operation refuses
comes back as a tool error naming the problem (:func:`answered`).
"""

from __future__ import annotations

from collections.abc import Awaitable
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field, ValidationError

from memstream.application import OperationError, Operations
from memstream.application.callers import Caller
from memstream.events.errors import ProjectionError
from memstream.events.problems import problems_of
from memstream.mcp.scope import Scope, ScopeOf
from memstream.policies.scope import is_identifier
from memstream.queries.search.searcher import SearchRequest, SearchResult
from memstream.storage.write_tokens import UnseenWrites

__all__ = ["TOOLS", "MemoryTools", "answered", "jsonable"]

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

Kind = Literal[
    "episode", "fact", "preference", "procedure", "opinion", "reflection", "summary", "chunk"
]

_T = TypeVar("_T")


class MemoryTools:
    """The tools of one server, for the scope each call is in.

    Args:
        operations: the use cases the tools call.
        scope_of: how a call's scope is found.
        reads_files: whether ``add_document`` may read a path (a server bound at start,
            on the user's own machine, over stdio).
    """

    def __init__(self, operations: Operations, scope_of: ScopeOf, reads_files: bool) -> None:
        self.ops = operations
        self.scope_of = scope_of
        self.reads_files = reads_files
        #: per user, the writes made through these tools that no read has seen yet:
        #: a read waits for them, so an agent finds what it just remembered
        self._unseen = UnseenWrites()

    async def _after_writes(self, at: Scope, after_write: str | None = None) -> None:
        """Wait until the projections hold ``after_write`` (default: the writes made
        through these tools for the user)."""
        own = self._unseen.of(at.user_id)
        token = after_write or (own.text() if own is not None else None)
        await answered(self.ops.reads.after_write(token, at.user_id))
        if own is not None:
            self._unseen.seen(at.user_id, own)

    def _wrote(self, at: Scope, token: str | None) -> None:
        self._unseen.wrote([at.user_id], token)

    def here(self, ctx: Context) -> Scope:
        """The scope of this call (a tool error when the request names none)."""
        try:
            return self.scope_of(ctx)
        except ProjectionError as exc:
            raise ToolError(str(exc)) from None

    def changing(self, ctx: Context) -> Scope:
        """The scope of a tool that changes memory (a tool error for a read-only key)."""
        at = self.here(ctx)
        if at.read_only:
            raise ToolError("this API key is read-only: it cannot change memory")
        return at

    async def search_memory(
        self,
        ctx: Context,
        query: str,
        kind: Kind | None = None,
        tag: str | None = None,
        entity: str | None = None,
        after: datetime | None = None,
        before: datetime | None = None,
        limit: Annotated[int, Field(ge=1, le=50)] = 10,
        min_similarity: Annotated[float, Field(ge=-1.0, le=1.0)] | None = None,
        after_write: str | None = None,
        as_of: str | None = None,
    ) -> dict[str, Any]:
        """Hybrid search (full text, meaning, entities) of the user's memories, best first.
        Each result has its memory_id, kind, content, date, speaker, role (who said a
        turn: user or assistant) and entities; an archived one is a summary (archived:
        true); a long turn found by one of its passages says where that passage is
        (passage: start, end). ``min_similarity`` (cosine, e.g. 0.3) leaves out what is
        further in meaning from the query: when nothing reaches it, ``results`` is empty
        and ``note`` says nothing relevant is known. What was remembered through these
        tools is found at once; ``after_write`` (a write's ``token``) waits for a write
        made elsewhere. ``as_of`` (an ISO 8601 time or a write token): memory as it stood
        then (what was recorded by then)."""
        at = self.here(ctx)
        await self._after_writes(at, after_write)
        wanted = limit
        request = await answered(
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
                as_of=as_of,
            )
        )
        named = entity.casefold() if entity else None

        def shown(found: list[SearchResult]) -> list[SearchResult]:
            """The results of the entity asked for, if any: those alone are recorded."""
            if named is not None:
                found = [r for r in found if any(e.casefold() == named for e in r.entities)]
            return found[:wanted]

        response = await answered(self.ops.reads.search(request, _asking(at, ctx), shown))
        results = response.results
        answer: dict[str, Any] = {"results": [r.model_dump(mode="json") for r in results]}
        if response.freshness is not None:
            answer["freshness"] = response.freshness.model_dump()
        if response.as_of is not None:
            answer["as_of"] = response.as_of.model_dump(mode="json")
        if not results and min_similarity is not None:
            answer["note"] = f"nothing relevant: no memory reaches similarity {min_similarity:g}"
        return answer

    async def get_context(
        self,
        ctx: Context,
        query: str,
        budget_tokens: int | None = None,
        after_write: str | None = None,
        as_of: str | None = None,
    ) -> dict[str, Any]:
        """The memory block to read before answering ``query``: facts, the people and
        things involved, what happened around then, and the turns it rests on, within
        ``budget_tokens`` (default 1,000, or 3,000 for a complex question). ``context`` is
        null when nothing relevant is known. ``after_write`` and ``as_of``: as for
        search_memory."""
        at = self.here(ctx)
        await self._after_writes(at, after_write)
        block = await answered(
            self.ops.reads.context(
                at.user_id,
                query,
                project_id=at.project_id,
                budget_tokens=budget_tokens,
                as_of=as_of,
                caller=_asking(at, ctx),
            )
        )
        return block.document()

    async def remember_fact(
        self,
        ctx: Context,
        content: str,
        entities: list[str] | None = None,
        tags: list[str] | None = None,
    ) -> dict[str, Any]:
        """Remember something the user stated as true. ``entities``: who or what it is
        about (the first becomes its subject); names in the content are found anyway.
        The same statement remembered again (a retry) is the same memory: ``accepted``
        is then empty."""
        at = self.changing(ctx)
        fields: dict[str, Any] = {
            "content": content,
            "user_id": at.user_id,
            "project_id": at.project_id,
            "tags": tags or [],
        }
        if entities:
            fields["subject"] = entities[0]
        wanted = {k: v for k, v in fields.items() if v is not None}
        done = await answered(self.ops.changes.remember(wanted, at.caller))
        self._wrote(at, done.token)
        return {"memory_id": done.memory_id, "accepted": done.event_ids, "token": done.token}

    async def correct_fact(self, ctx: Context, memory_id: str, new_content: str) -> dict[str, Any]:
        """Replace a wrong memory with the corrected content (the old one stays as
        history); answers the new memory's id."""
        at = self.changing(ctx)
        done = await answered(
            self.ops.changes.correct(at.user_id, memory_id, new_content, at.caller)
        )
        self._wrote(at, done.token)
        return {"memory_id": done.memory_id, "supersedes": memory_id, "token": done.token}

    async def confirm_fact(self, ctx: Context, memory_id: str) -> dict[str, Any]:
        """Confirm a memory: full confidence, it never decays."""
        at = self.changing(ctx)
        done = await answered(self.ops.changes.confirm(at.user_id, memory_id, at.caller))
        self._wrote(at, done.token)
        return {"memory_id": memory_id, "confirmed": True, "token": done.token}

    async def forget_memory(self, ctx: Context, memory_id: str) -> dict[str, Any]:
        """Forget a memory: never returned again (kept as history)."""
        at = self.changing(ctx)
        done = await answered(self.ops.changes.forget(at.user_id, memory_id, at.caller))
        self._wrote(at, done.token)
        return {"memory_id": memory_id, "forgotten": True, "token": done.token}

    async def get_entity_info(
        self, ctx: Context, name: str, as_of: str | None = None
    ) -> dict[str, Any]:
        """A person, place or thing the user mentioned: aliases, mentions, first and last
        seen, and the memories about it. ``as_of``: as for search_memory."""
        at = self.here(ctx)
        await self._after_writes(at)
        found = self.ops.reads.entity(at.user_id, name, at.project_id, as_of=as_of)
        return jsonable(await answered(found))

    async def explain_memory(
        self, ctx: Context, memory_id: str, as_of: str | None = None
    ) -> dict[str, Any]:
        """Why a memory exists: the turns it came from, the memories it replaced or that
        replaced it, confirmations, entities, and its confidence now (with ``as_of``:
        then; as for search_memory)."""
        at = self.here(ctx)
        await self._after_writes(at)
        return jsonable(await answered(self.ops.reads.explain(at.user_id, memory_id, as_of=as_of)))

    async def weak_facts(
        self, ctx: Context, limit: Annotated[int, Field(ge=1, le=100)] = 10
    ) -> dict[str, Any]:
        """Memories close to being forgotten by decay, weakest first (confirm the ones
        that still hold)."""
        found = await answered(self.ops.upkeep.weak_facts(self.here(ctx).user_id))
        return {"memories": [jsonable(m) for m in found[:limit]]}

    async def memory_stats(self, ctx: Context) -> dict[str, Any]:
        """How many memories of each kind the user has, entities, and the lag behind the
        log."""
        return jsonable(await answered(self.ops.reads.stats(self.here(ctx).user_id)))

    async def consolidate_now(self, ctx: Context) -> dict[str, Any]:
        """Turn the user's finished conversations into facts now (instead of waiting for
        the worker's timer)."""
        at = self.changing(ctx)
        report = await answered(
            self.ops.upkeep.run_job("consolidate", user_id=at.user_id, caller=at.caller)
        )
        return {"events": len(report.events), "failed": report.failed}

    async def add_document(
        self,
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
        at = self.changing(ctx)
        if (text is None) == (path is None):
            raise ToolError("give the document's text or a path, one of them")
        name = None
        if path is not None:
            if not self.reads_files:
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
        done = await answered(
            self.ops.documents.add(
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
        self._wrote(at, done.token)
        status = await answered(
            self.ops.documents.status(at.user_id, done.document_id, wait_seconds, done.checksum)
        )
        return {"document_id": done.document_id, "new": done.new, **jsonable(status)}

    async def document_status(self, ctx: Context, document_id: str) -> dict[str, Any]:
        """A document's status (received, chunked, indexed, empty, failed with why, or
        removed), its version, pages, chunks and the facts derived from them."""
        return jsonable(
            await answered(self.ops.documents.status(self.here(ctx).user_id, document_id))
        )

    async def remove_document(self, ctx: Context, document_id: str) -> dict[str, Any]:
        """Remove a document from the user's memory: the chunks and facts of every
        version of it are never found again (kept for history)."""
        at = self.changing(ctx)
        done = await answered(
            self.ops.documents.remove(at.user_id, document_id, wait_seconds=30, caller=at.caller)
        )
        self._wrote(at, done.get("token"))
        return jsonable(done.get("document") or done)  # the status, or what was accepted


async def answered(call: Awaitable[_T]) -> _T:
    """The operation's answer, or a tool error that says what was wrong."""
    try:
        return await call
    except (OperationError, ProjectionError) as exc:
        raise ToolError(str(exc)) from None
    except ValidationError as exc:
        raise ToolError("; ".join(problems_of(exc))) from None


async def _validated(**fields: Any) -> SearchRequest:
    return SearchRequest.model_validate({k: v for k, v in fields.items() if v is not None})


def jsonable(document: dict[str, Any]) -> dict[str, Any]:
    """``document`` with datetimes as ISO strings (structured tool results are JSON)."""
    return {key: _plain(value) for key, value in document.items()}


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return jsonable(value)
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, datetime):
        return value.isoformat()
    return value


def _asking(at: Scope, ctx: Context) -> Caller:
    """Who asks for a read: the scope's caller, as the agent the MCP client named itself
    when it connected (its ``clientInfo`` name, if it is an identifier)."""
    try:
        params = ctx.session.client_params
    except (ValueError, AttributeError):  # outside a request, or no session
        params = None
    name = params.client_info.name if params is not None else None
    agent = name if name and is_identifier(name) else None
    return replace(at.caller, agent=agent or at.caller.agent)
