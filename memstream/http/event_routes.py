"""Publishing events: ``POST /v1/events``."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException, Request

from memstream.application.intake import parse_body
from memstream.events.errors import InvalidEvent
from memstream.gate.guard import Principal
from memstream.http.contract import (
    errors,
)
from memstream.http.parameters import (
    RouteDeps,
)
from memstream.http.write_answers import EventsAccepted

__all__ = ["event_router"]


def event_router(deps: RouteDeps) -> APIRouter:
    """The routes of this module, over ``deps``."""
    router = APIRouter(tags=["events"])
    ops = deps.operations
    WHO = deps.who

    @router.post(
        "/v1/events",
        status_code=202,
        response_model=EventsAccepted,
        response_model_exclude_unset=True,
        responses=errors(401, 403, 413, 422, 429, 503, 507),
    )
    async def post_events(request: Request, who: Principal = WHO) -> dict[str, Any]:
        """Validate one event or a list of them, publish them, answer their ids."""
        try:
            items = parse_body(await request.body())
        except InvalidEvent as exc:
            raise HTTPException(422, detail=f"the body is {'; '.join(exc.problems)}") from None
        users = [item["user_id"] for item in items if isinstance(item, dict) and "user_id" in item]
        who.reach_all(users, write=True)
        who.limit("publish", len(items))
        who.limit("characters", sum(_characters(item) for item in items))
        accepted = await ops.changes.publish(items, who.caller())
        return {"accepted": accepted.event_ids, "token": accepted.token}

    return router


def _characters(item: Any) -> int:
    """The characters of an event's content (what the worker's work grows with)."""
    content = item.get("content") if isinstance(item, dict) else None
    return len(content) if isinstance(content, str) else 0
