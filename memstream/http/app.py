"""The HTTP API (FastAPI): a route table over :class:`~memstream.operations.Operations`.

Each handler validates its input with pydantic (a bad body or parameter is answered 422
naming each field), calls one operation and shapes the answer; what an operation refuses
is answered by :mod:`memstream.http.contract` (404, 501, 503, 507). A search answers
first and reports the memories it returned as accessed in the background. The MCP
server is mounted at ``/mcp`` (:mod:`memstream.mcp.http`).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from dataclasses import asdict
from importlib.metadata import version
from typing import Any

from fastapi import Depends, FastAPI, HTTPException, Path, Query, Request, Response
from fastapi.encoders import jsonable_encoder
from pydantic import BaseModel, ConfigDict, Field

from memstream.http.contract import (
    CONTROL_FREE_PATTERN,
    RememberRequest,
    errors,
    install_error_handlers,
    install_event_body_schema,
    single_valued_parameters,
)
from memstream.http.timing import server_timing
from memstream.mcp.http import mcp_route
from memstream.operations import Operations
from memstream.operations.intake import MAX_EVENTS_PER_PUBLISH
from projections.events import IDENTIFIER_PATTERN, Identifier, UtcDateTime
from queries.search import SearchRequest, SearchResponse

__all__ = ["ContextRequest", "create_app"]

USER = Query(pattern=IDENTIFIER_PATTERN, max_length=200)
MEMORY = Path(pattern=IDENTIFIER_PATTERN, max_length=200)


class _Owner(BaseModel):
    model_config = ConfigDict(extra="forbid")

    user_id: Identifier


class _Correction(_Owner):
    content: str = Field(min_length=1, max_length=4000)


class ContextRequest(BaseModel):
    """What ``POST /v1/context`` takes."""

    model_config = ConfigDict(extra="forbid")

    user_id: Identifier
    project_id: Identifier | None = None
    #: the question or message the agent is about to answer (at least one word)
    query: str = Field(min_length=1, max_length=2000, pattern=r"[\w'@.-]")
    #: the block's size; by default 1,000 tokens for a simple query, 3,000 for a complex one
    budget_tokens: int | None = Field(default=None, ge=1, le=32_000)
    now: UtcDateTime | None = None


def create_app(
    operations: Operations,
    *,
    lifespan: Callable[[FastAPI], AbstractAsyncContextManager[None]] | None = None,
    host: str = "127.0.0.1",
    instance: str | None = None,
) -> FastAPI:
    """The API over ``operations``, with the MCP server at ``/mcp``; ``lifespan`` wraps
    the app's life (the server's publisher connection), and the operations are closed
    when the app stops. ``host`` is the address it is served on; ``instance`` names this
    run of the server in ``/healthz`` (see :mod:`memstream.http.address`)."""
    mcp, mcp_running = mcp_route(operations, host)

    @asynccontextmanager
    async def _lifespan(app: FastAPI) -> AsyncIterator[None]:
        try:
            async with AsyncExitStack() as stack:
                if lifespan is not None:
                    await stack.enter_async_context(lifespan(app))
                await stack.enter_async_context(mcp_running())
                yield
        finally:
            await operations.close()

    app = FastAPI(
        title="memstream",
        version=version("memstream"),
        description="Durable memory for AI agents: publish events, search memories.",
        lifespan=_lifespan,
        dependencies=[Depends(single_valued_parameters)],
    )
    install_error_handlers(app)
    install_event_body_schema(app, "/v1/events", MAX_EVENTS_PER_PUBLISH)
    ops = operations

    @app.get("/healthz")
    async def healthz() -> dict[str, str]:
        return {"status": "ok"} if instance is None else {"status": "ok", "instance": instance}

    @app.post("/v1/events", status_code=202, responses=errors(422, 503, 507))
    async def post_events(request: Request) -> dict[str, Any]:
        """Validate one event or a list of them, publish them, answer their ids."""
        try:
            body = json.loads(await request.body())
        except ValueError as exc:
            raise HTTPException(422, detail=f"the body is not JSON: {exc}") from None
        accepted = await ops.publish(body if isinstance(body, list) else [body])
        return {"accepted": accepted.event_ids}

    @app.post("/v1/search", response_model=SearchResponse, responses=errors(422, 503))
    async def post_search(search_request: SearchRequest, response: Response) -> SearchResponse:
        """Hybrid search. The ``Server-Timing`` header says where the time went."""
        found = await ops.search(search_request)
        response.headers["Server-Timing"] = server_timing(found.timings, found.took_ms)
        return found

    @app.post("/v1/memories", status_code=202, responses=errors(422, 503, 507))
    async def remember(body: RememberRequest) -> dict[str, Any]:
        """``remember_fact``: store a memory stated by the user or an agent."""
        done = await ops.remember(body.model_dump(exclude_none=True))
        return {"accepted": done.event_ids, "memory_id": done.memory_id}

    @app.get("/v1/memories/weak", responses=errors(422, 503))
    async def weak_memories(user_id: str = USER) -> dict[str, Any]:
        """Memories near the prune threshold, weakest first."""
        return {"memories": await ops.weak_facts(user_id)}

    @app.get("/v1/memories/{memory_id}", responses=errors(404, 422, 501, 503, 507))
    async def get_memory(
        memory_id: str = MEMORY, user_id: str = USER, expand: bool = Query(False)
    ) -> dict[str, Any]:
        """A memory; with ``expand=true`` an archived memory's original, read from cold
        storage exactly as it was archived (three expansions in 30 days restore it)."""
        if not expand:
            return await ops.memory(user_id, memory_id)
        expanded = await ops.expand(user_id, memory_id)
        return {
            "memory_id": expanded.memory_id,
            "archived": True,
            "original": jsonable_encoder(expanded.original),
            "restoring": expanded.restoring,
        }

    @app.post(
        "/v1/memories/{memory_id}/restore",
        status_code=202,
        responses=errors(404, 422, 501, 503, 507),
    )
    async def restore(body: _Owner, memory_id: str = MEMORY) -> dict[str, Any]:
        """Bring an archived memory back to the hot tables, with its vector."""
        done = await ops.restore(body.user_id, memory_id)
        return {"accepted": done.event_ids, "memory_id": memory_id}

    @app.get("/v1/memories/{memory_id}/history", responses=errors(404, 422))
    async def get_history(memory_id: str = MEMORY, user_id: str = USER) -> dict[str, Any]:
        """The memories that replaced one another through this one, oldest first."""
        return {"memory_id": memory_id, "history": await ops.history(user_id, memory_id)}

    @app.post(
        "/v1/memories/{memory_id}/correct", status_code=202, responses=errors(404, 422, 503, 507)
    )
    async def correct(body: _Correction, memory_id: str = MEMORY) -> dict[str, Any]:
        """``correct_fact``: the new content replaces the memory, which stays as history."""
        done = await ops.correct(body.user_id, memory_id, body.content)
        return {"accepted": done.event_ids, "memory_id": done.memory_id, "supersedes": memory_id}

    @app.post(
        "/v1/memories/{memory_id}/confirm", status_code=202, responses=errors(404, 422, 503, 507)
    )
    async def confirm(body: _Owner, memory_id: str = MEMORY) -> dict[str, Any]:
        """``confirm_fact``: full confidence, never decays."""
        done = await ops.confirm(body.user_id, memory_id)
        return {"accepted": done.event_ids, "memory_id": memory_id}

    @app.post(
        "/v1/memories/{memory_id}/forget", status_code=202, responses=errors(404, 422, 503, 507)
    )
    async def forget(body: _Owner, memory_id: str = MEMORY) -> dict[str, Any]:
        """``forget``: never returned by search again; kept for history."""
        done = await ops.forget(body.user_id, memory_id)
        return {"accepted": done.event_ids, "memory_id": memory_id}

    @app.get("/v1/entities", responses=errors(404, 422))
    async def get_entity(
        user_id: str = USER,
        name: str = Query(min_length=1, max_length=200, pattern=CONTROL_FREE_PATTERN),
    ) -> dict[str, Any]:
        return await ops.entity(user_id, name)

    @app.post("/v1/context", responses=errors(422, 503))
    async def post_context(body: ContextRequest) -> dict[str, Any]:
        """The memory block to put before an agent's answer (``context`` is null when
        nothing relevant is found)."""
        block = await ops.context(
            body.user_id, body.query, body.project_id, body.budget_tokens, body.now
        )
        return asdict(block)

    @app.get("/v1/memories/{memory_id}/explain", responses=errors(404, 422))
    async def explain(memory_id: str = MEMORY, user_id: str = USER) -> dict[str, Any]:
        """Why a memory exists: the turns it came from, what replaced what, commands,
        entities, and how its confidence got where it is."""
        return await ops.explain(user_id, memory_id)

    @app.get("/v1/stats", responses=errors(422))
    async def get_stats(
        user_id: str | None = Query(None, pattern=IDENTIFIER_PATTERN, max_length=200),
    ) -> dict[str, Any]:
        return await ops.stats(user_id)

    app.router.routes.append(mcp)
    return app
