"""Search and context blocks: ``POST /v1/search`` and ``POST /v1/context``."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Response

from memstream.gate.guard import Principal
from memstream.http.contract import (
    errors,
)
from memstream.http.parameters import (
    READ,
    ContextRequest,
    RouteDeps,
)
from memstream.http.resource_answers import ContextAnswer
from memstream.http.timing import server_timing
from memstream.queries.search.searcher import SearchRequest, SearchResponse

__all__ = ["search_router"]


def search_router(deps: RouteDeps) -> APIRouter:
    """The routes of this module, over ``deps``."""
    router = APIRouter(tags=["search"])
    ops = deps.operations
    WHO = deps.who

    @router.post("/v1/search", response_model=SearchResponse, responses=errors(*READ, 404, 503))
    async def post_search(search_request: SearchRequest, who: Principal = WHO) -> Response:
        """Hybrid search. The ``Server-Timing`` header says where the time went."""
        who.reads(search_request.user_id)
        found = await ops.reads.search(search_request, who.caller())
        # written to JSON by pydantic's serializer in one pass, not dumped to Python,
        # checked against the model again and then encoded, as a returned model is
        # (ten results: 10 us against 60)
        return Response(
            found.__pydantic_serializer__.to_json(found),
            media_type="application/json",
            headers={"Server-Timing": server_timing(found.timings, found.took_ms)},
        )

    @router.post(
        "/v1/context",
        response_model=ContextAnswer,
        response_model_exclude_unset=True,
        responses=errors(*READ, 404, 503),
    )
    async def post_context(body: ContextRequest, who: Principal = WHO) -> dict[str, Any]:
        """The memory block to put before an agent's answer (``context`` is null when
        nothing relevant is found)."""
        who.reads(body.user_id)
        await ops.reads.after_write(body.after_write, body.user_id, body.wait)
        block = await ops.reads.context(
            body.user_id,
            body.query,
            body.project_id,
            body.budget_tokens,
            body.now,
            body.cutoff,
            as_of=body.as_of,
            caller=who.caller(),
        )
        return block.document()

    return router
