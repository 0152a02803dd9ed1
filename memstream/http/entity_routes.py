"""Entities: an entity's profile, ``GET /v1/entities``."""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Query

from memstream.events.identifier_rules import IDENTIFIER_PATTERN
from memstream.gate.guard import Principal
from memstream.http.contract import (
    CONTROL_FREE_PATTERN,
    errors,
)
from memstream.http.memory_answers import EntityProfile
from memstream.http.parameters import (
    AFTER_WRITE,
    AS_OF,
    READ,
    USER,
    WAIT,
    RouteDeps,
)

__all__ = ["entity_router"]


def entity_router(deps: RouteDeps) -> APIRouter:
    """The routes of this module, over ``deps``."""
    router = APIRouter(tags=["entities"])
    ops = deps.operations
    WHO = deps.who

    @router.get(
        "/v1/entities",
        response_model=EntityProfile,
        response_model_exclude_unset=True,
        responses=errors(*READ, 404),
    )
    async def get_entity(
        user_id: str = USER,
        name: str = Query(min_length=1, max_length=200, pattern=CONTROL_FREE_PATTERN),
        project_id: str | None = Query(None, pattern=IDENTIFIER_PATTERN, max_length=200),
        after_write: str | None = AFTER_WRITE,
        wait: Literal["applied", "vectors"] = WAIT,
        as_of: str | None = AS_OF,
        who: Principal = WHO,
    ) -> dict[str, Any]:
        """An entity's profile, its memories in the project's scope (the user's memories
        of no project, and the project's)."""
        who.reads(user_id)
        await ops.reads.after_write(after_write, user_id, wait)
        return await ops.reads.entity(user_id, name, project_id, as_of=as_of)

    return router
