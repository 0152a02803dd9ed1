"""What was served: ``GET /v1/served`` (what callers were given of a user's memory, or
where one memory was used) and ``GET /v1/served/{served_id}`` (one answer, rendered
again from its record)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Path, Query

from memstream.events.identifier_rules import IDENTIFIER_PATTERN
from memstream.gate.guard import Principal
from memstream.http.contract import errors
from memstream.http.memory_answers import ServedAnswer, ServedList
from memstream.http.parameters import READ, USER, RouteDeps
from memstream.policies.limits import MAX_LISTED

__all__ = ["served_router"]


def served_router(deps: RouteDeps) -> APIRouter:
    """The routes of this module, over ``deps``."""
    router = APIRouter(tags=["served"])
    ops = deps.operations
    WHO = deps.who

    @router.get(
        "/v1/served",
        response_model=ServedList,
        response_model_exclude_unset=True,
        responses=errors(*READ),
    )
    async def list_served(
        user_id: str = USER,
        memory_id: str | None = Query(None, pattern=IDENTIFIER_PATTERN, max_length=200),
        limit: int = Query(50, ge=1, le=MAX_LISTED),
        who: Principal = WHO,
    ) -> dict[str, Any]:
        """The answers callers were given of the user's memory, newest first: who asked
        (door, key, agent, session), the question, the memory ids with their scores and
        the answer's digest; with ``memory_id``, those that held that memory."""
        who.reads(user_id)
        return {"served": await ops.reads.served(user_id, memory_id, limit)}

    @router.get(
        "/v1/served/{served_id}",
        response_model=ServedAnswer,
        response_model_exclude_unset=True,
        responses=errors(*READ, 404),
    )
    async def get_served(
        served_id: str = Path(pattern=IDENTIFIER_PATTERN, max_length=200),
        user_id: str = USER,
        who: Principal = WHO,
    ) -> dict[str, Any]:
        """One answer as recorded, and ``rebuilt``: its text rendered again from the
        memory ids over memory as it stood when it was read, its digest and whether
        that is the digest recorded."""
        who.reads(user_id)
        return await ops.reads.served_answer(user_id, served_id)

    return router
