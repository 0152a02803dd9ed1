"""Memories: remember one, list them a page at a time, the weak ones, and one memory's
history, explanation, correction, confirmation, forgetting and restoring."""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Query
from fastapi.encoders import jsonable_encoder

from memstream.events.errors import InvalidQuery
from memstream.events.identifier_rules import IDENTIFIER_PATTERN, TAG_PATTERN
from memstream.events.identifiers import UtcDateTime
from memstream.gate.guard import Principal
from memstream.http.contract import (
    RememberRequest,
    errors,
)
from memstream.http.memory_answers import (
    ExpandedMemory,
    Explanation,
    MemoryDocument,
    MemoryHistory,
    MemoryPage,
    WeakMemories,
)
from memstream.http.parameters import (
    AFTER,
    AFTER_WRITE,
    AS_OF,
    BEFORE,
    KINDS,
    MEMORY,
    READ,
    USER,
    WAIT,
    WRITE,
    Correction,
    Owner,
    RouteDeps,
)
from memstream.http.write_answers import CorrectionAccepted, MemoryCommandAccepted
from memstream.policies.limits import MAX_LISTED
from memstream.queries.memory_list import ListRequest

__all__ = ["memory_router"]


def memory_router(deps: RouteDeps) -> APIRouter:
    """The routes of this module, over ``deps``."""
    router = APIRouter(tags=["memories"])
    ops = deps.operations
    WHO = deps.who

    @router.post(
        "/v1/memories",
        status_code=202,
        response_model=MemoryCommandAccepted,
        response_model_exclude_unset=True,
        responses=errors(*WRITE),
    )
    async def remember(body: RememberRequest, who: Principal = WHO) -> dict[str, Any]:
        """``remember_fact``: store a memory stated by the user or an agent."""
        who.writes(body.user_id)
        done = await ops.changes.remember(body.model_dump(exclude_none=True), who.caller())
        return {"accepted": done.event_ids, "memory_id": done.memory_id, "token": done.token}

    @router.get("/v1/memories", response_model=MemoryPage, responses=errors(*READ, 404))
    async def list_memories(
        user_id: str = USER,
        kind: str | None = Query(None, pattern=KINDS),
        session_id: str | None = Query(None, pattern=IDENTIFIER_PATTERN, max_length=200),
        project_id: str | None = Query(None, pattern=IDENTIFIER_PATTERN, max_length=200),
        after: UtcDateTime | None = AFTER,
        before: UtcDateTime | None = BEFORE,
        order: Literal["newest", "oldest"] = "newest",
        limit: int = Query(50, ge=1, le=MAX_LISTED),
        cursor: str | None = Query(None, max_length=2000, pattern=r"^[A-Za-z0-9_-]+$"),
        include_hidden: bool = Query(False, description="superseded and forgotten too"),
        tag: str | None = Query(None, pattern=TAG_PATTERN, max_length=64),
        after_write: str | None = AFTER_WRITE,
        wait: Literal["applied", "vectors"] = WAIT,
        as_of: str | None = AS_OF,
        who: Principal = WHO,
    ) -> dict[str, Any]:
        """The user's memories a page at a time, newest (or oldest) first, archived ones
        included and marked; ``next_cursor`` gives the next page, which memories added
        meanwhile never shift."""
        who.reads(user_id)
        await ops.reads.after_write(after_write, user_id, wait)
        request = ListRequest(
            user_id=user_id,
            kind=kind,
            session_id=session_id,
            project_id=project_id,
            after=after,
            before=before,
            order=order,
            limit=limit,
            cursor=cursor,
            include_hidden=include_hidden,
            tag=tag,
            as_of=as_of,
        )
        page = await ops.reads.list_memories(request)
        return {
            "memories": page.memories,
            "next_cursor": page.next_cursor,
            "freshness": page.freshness,
            "as_of": page.as_of,
        }

    @router.get(
        "/v1/memories/weak",
        response_model=WeakMemories,
        response_model_exclude_unset=True,
        responses=errors(*READ, 503),
    )
    async def weak_memories(user_id: str = USER, who: Principal = WHO) -> dict[str, Any]:
        """Memories near the prune threshold, weakest first."""
        who.reads(user_id)
        return {"memories": await ops.upkeep.weak_facts(user_id)}

    @router.post(
        "/v1/memories/{memory_id:text}/restore",
        status_code=202,
        response_model=MemoryCommandAccepted,
        response_model_exclude_unset=True,
        responses=errors(*WRITE, 404, 501),
    )
    async def restore(body: Owner, memory_id: str = MEMORY, who: Principal = WHO) -> dict[str, Any]:
        """Bring an archived memory back to the hot tables, with its vector."""
        who.writes(body.user_id)
        done = await ops.upkeep.restore(body.user_id, memory_id, who.caller())
        return {"accepted": done.event_ids, "memory_id": memory_id, "token": done.token}

    @router.get(
        "/v1/memories/{memory_id:text}/history",
        response_model=MemoryHistory,
        response_model_exclude_unset=True,
        responses=errors(*READ, 404),
    )
    async def get_history(
        memory_id: str = MEMORY,
        user_id: str = USER,
        after_write: str | None = AFTER_WRITE,
        wait: Literal["applied", "vectors"] = WAIT,
        as_of: str | None = AS_OF,
        who: Principal = WHO,
    ) -> dict[str, Any]:
        """The memories that replaced one another through this one, oldest first."""
        who.reads(user_id)
        await ops.reads.after_write(after_write, user_id, wait)
        chain = await ops.reads.history(user_id, memory_id, as_of=as_of)
        return {"memory_id": memory_id, "history": chain}

    @router.post(
        "/v1/memories/{memory_id:text}/correct",
        status_code=202,
        response_model=CorrectionAccepted,
        response_model_exclude_unset=True,
        responses=errors(*WRITE, 404),
    )
    async def correct(
        body: Correction, memory_id: str = MEMORY, who: Principal = WHO
    ) -> dict[str, Any]:
        """``correct_fact``: the new content replaces the memory, which stays as history."""
        who.writes(body.user_id)
        done = await ops.changes.correct(body.user_id, memory_id, body.content, who.caller())
        return {
            "accepted": done.event_ids,
            "memory_id": done.memory_id,
            "supersedes": memory_id,
            "token": done.token,
        }

    @router.post(
        "/v1/memories/{memory_id:text}/confirm",
        status_code=202,
        response_model=MemoryCommandAccepted,
        response_model_exclude_unset=True,
        responses=errors(*WRITE, 404),
    )
    async def confirm(body: Owner, memory_id: str = MEMORY, who: Principal = WHO) -> dict[str, Any]:
        """``confirm_fact``: full confidence, never decays."""
        who.writes(body.user_id)
        done = await ops.changes.confirm(body.user_id, memory_id, who.caller())
        return {"accepted": done.event_ids, "memory_id": memory_id, "token": done.token}

    @router.post(
        "/v1/memories/{memory_id:text}/forget",
        status_code=202,
        response_model=MemoryCommandAccepted,
        response_model_exclude_unset=True,
        responses=errors(*WRITE, 404),
    )
    async def forget(body: Owner, memory_id: str = MEMORY, who: Principal = WHO) -> dict[str, Any]:
        """``forget``: never returned by search again; kept for history."""
        who.writes(body.user_id)
        done = await ops.changes.forget(body.user_id, memory_id, who.caller())
        return {"accepted": done.event_ids, "memory_id": memory_id, "token": done.token}

    @router.get(
        "/v1/memories/{memory_id:text}/explain",
        response_model=Explanation,
        response_model_exclude_unset=True,
        responses=errors(*READ, 404),
    )
    async def explain(
        memory_id: str = MEMORY,
        user_id: str = USER,
        after_write: str | None = AFTER_WRITE,
        wait: Literal["applied", "vectors"] = WAIT,
        as_of: str | None = AS_OF,
        who: Principal = WHO,
    ) -> dict[str, Any]:
        """Why a memory exists: the turns it came from, what replaced what, commands,
        entities, and how its confidence got where it is."""
        who.reads(user_id)
        await ops.reads.after_write(after_write, user_id, wait)
        return await ops.reads.explain(user_id, memory_id, as_of=as_of)

    @router.get(
        "/v1/memories/{memory_id:memory_id}",
        response_model=MemoryDocument | ExpandedMemory,
        response_model_exclude_unset=True,
        responses=errors(*READ, 404, 501, 503, 507),
    )
    async def get_memory(
        memory_id: str = MEMORY,
        user_id: str = USER,
        expand: bool = Query(False),
        after_write: str | None = AFTER_WRITE,
        wait: Literal["applied", "vectors"] = WAIT,
        as_of: str | None = AS_OF,
        who: Principal = WHO,
    ) -> dict[str, Any]:
        """A memory; with ``expand=true`` an archived memory's original, read from cold
        storage exactly as it was archived (three expansions in 30 days restore it)."""
        who.reads(user_id)
        await ops.reads.after_write(after_write, user_id, wait)
        if not expand:
            return await ops.reads.memory(user_id, memory_id, as_of=as_of)
        if as_of is not None:
            raise InvalidQuery("as_of: an original is read as archived; ask without expand")
        expanded = await ops.upkeep.expand(user_id, memory_id)
        return {
            "memory_id": expanded.memory_id,
            "archived": True,
            "original": jsonable_encoder(expanded.original),
            "restoring": expanded.restoring,
        }

    return router
