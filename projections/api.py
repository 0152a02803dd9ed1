"""The HTTP query API (FastAPI): publish events, search, read memories, entities, stats.

``create_app`` builds the application around a :class:`~projections.search.Searcher`
and an :class:`EventSink` (the Kafka side, given by whoever serves the app, so this
module stays on the read side). Every request body and parameter is validated by
pydantic before anything reads the store; a bad one is answered 422 naming each field.
A search answers first and then reports the memories it returned as a
``MemoryAccessed`` event, in the background.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
from collections.abc import Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from importlib.metadata import version
from typing import Any, Protocol

from fastapi import Depends, FastAPI, HTTPException, Path, Query, Request
from fastapi.encoders import jsonable_encoder
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from projections.api_contract import (
    CONTROL_FREE_PATTERN,
    RememberRequest,
    errors,
    install_error_handlers,
    install_event_body_schema,
    single_valued_parameters,
)
from projections.archiver import Archiver, NotArchived
from projections.codec import encode, from_document, size_problem
from projections.commands import (
    UnknownMemory,
    confirmation,
    correction,
    forgetting,
    remembering,
)
from projections.errors import InvalidEvent, ProjectionError
from projections.events import (
    COMMAND_TYPES,
    IDENTIFIER_PATTERN,
    Event,
    Identifier,
    MemoryAccessed,
    MemoryRestored,
)
from projections.profiles import entity_profile, memory_document, memory_history
from projections.scope import plain_text, valid_identifier
from projections.search import Searcher, SearchRequest, SearchResponse
from projections.stats import stats as compute_stats

__all__ = ["EventSink", "SinkUnavailable", "StorageFull", "accepted_event", "create_app"]

log = logging.getLogger(__name__)

#: Most events one ``POST /v1/events`` may carry.
MAX_EVENTS_PER_REQUEST = 1000


#: Event types channels may publish through ``POST /v1/events``: messages, session ends
#: and commands (the lifecycle, embedding and access events are memstream's own).
_CHANNEL_TYPES = frozenset({"message", "session_ended", *COMMAND_TYPES})


class _Owner(BaseModel):
    model_config = ConfigDict(extra="forbid")

    user_id: Identifier


class _Correction(_Owner):
    content: str = Field(min_length=1, max_length=4000)


class SinkUnavailable(Exception):
    """The event sink (the broker) cannot take events right now (503)."""


class StorageFull(SinkUnavailable):
    """A disk memstream writes to is nearly full: events are refused until space is
    freed (507)."""


class EventSink(Protocol):
    """Where the API publishes events (Kafka in production)."""

    async def publish(self, events: Sequence[Event]) -> list[str]: ...


LogPosition = Callable[[], Awaitable[tuple[dict[tuple[str, int], int] | None, str | None]]]


def create_app(
    searcher: Searcher,
    sink: EventSink,
    *,
    log_position: LogPosition | None = None,
    clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    lifespan: Callable[[FastAPI], Any] | None = None,
    weak_facts: Callable[[str, datetime], list[dict[str, Any]]] | None = None,
    archiver: Archiver | None = None,
) -> FastAPI:
    """The API application (see the module docstring)."""

    @asynccontextmanager
    async def _lifespan(app: FastAPI) -> Any:
        if lifespan is None:
            yield
            return
        async with lifespan(app):
            yield

    app = FastAPI(
        title="memstream",
        version=version("memstream"),
        description="Durable memory for AI agents: publish events, search memories.",
        lifespan=_lifespan,
        dependencies=[Depends(single_valued_parameters)],
    )
    store = searcher.store
    pending: set[asyncio.Task[None]] = set()
    install_error_handlers(app)
    install_event_body_schema(app, "/v1/events", MAX_EVENTS_PER_REQUEST)
    user_param = Query(pattern=IDENTIFIER_PATTERN, max_length=200)
    memory_path = Path(pattern=IDENTIFIER_PATTERN, max_length=200)

    @app.exception_handler(ProjectionError)
    async def _projection_error(request: Request, exc: ProjectionError) -> JSONResponse:
        return JSONResponse(status_code=422, content={"detail": str(exc)})

    @app.exception_handler(SinkUnavailable)
    async def _sink_unavailable(request: Request, exc: SinkUnavailable) -> JSONResponse:
        status = 507 if isinstance(exc, StorageFull) else 503
        return JSONResponse(
            status_code=status, content={"detail": str(exc)}, headers={"Retry-After": "5"}
        )

    @app.get("/healthz")
    async def healthz() -> dict[str, str]:
        return {"status": "ok"}

    @app.post("/v1/events", status_code=202, responses=errors(422, 503, 507))
    async def post_events(request: Request) -> dict[str, Any]:
        """Validate one event or a list of them, publish them, answer their ids."""
        try:
            body = json.loads(await request.body())
        except ValueError as exc:
            raise HTTPException(422, detail=f"the body is not JSON: {exc}") from None
        documents = body if isinstance(body, list) else [body]
        if not documents or len(documents) > MAX_EVENTS_PER_REQUEST:
            raise HTTPException(
                422, detail=f"send 1 to {MAX_EVENTS_PER_REQUEST} events per request"
            )
        events: list[Event] = []
        errors: list[dict[str, Any]] = []
        for index, document in enumerate(documents):
            try:
                events.append(accepted_event(document))
            except InvalidEvent as exc:
                errors.append({"index": index, "problems": exc.problems})
        if errors:
            raise HTTPException(422, detail=errors)
        accepted = await sink.publish(events)
        return {"accepted": accepted}

    @app.post("/v1/search", response_model=SearchResponse, responses=errors(422))
    async def post_search(search_request: SearchRequest) -> SearchResponse:
        response = await asyncio.to_thread(searcher.search, search_request)
        if response.results:
            accessed = MemoryAccessed(
                user_id=search_request.user_id,
                memory_ids=[r.memory_id for r in response.results],
                accessed_at=clock(),
            )
            task = asyncio.create_task(_report_access(sink, accessed))
            pending.add(task)
            task.add_done_callback(pending.discard)
        return response

    @app.exception_handler(UnknownMemory)
    async def _unknown_memory(request: Request, exc: UnknownMemory) -> JSONResponse:
        return JSONResponse(status_code=404, content={"detail": str(exc)})

    @app.post("/v1/memories", status_code=202, responses=errors(422, 503, 507))
    async def remember(body: RememberRequest) -> dict[str, Any]:
        """``remember_fact``: store a memory stated by the user or an agent."""
        event, memory_id = remembering(body.model_dump(exclude_none=True), clock())
        await sink.publish([event])
        return {"accepted": [event.event_id], "memory_id": memory_id}

    @app.get("/v1/memories/weak", responses=errors(422, 503))
    async def weak_memories(user_id: str = user_param) -> dict[str, Any]:
        """Memories near the prune threshold, weakest first."""
        valid_identifier("user_id", user_id)
        if weak_facts is None:
            raise HTTPException(503, detail="weak facts are not available here")
        found = await asyncio.to_thread(weak_facts, user_id, clock())
        return {"memories": found}

    @app.get("/v1/memories/{memory_id}", responses=errors(404, 422, 501, 503, 507))
    async def get_memory(
        memory_id: str = memory_path, user_id: str = user_param, expand: bool = Query(False)
    ) -> dict[str, Any]:
        """A memory; with ``expand=true`` an archived memory's original, read from cold
        storage exactly as it was archived (three expansions in 30 days restore it)."""
        valid_identifier("user_id", user_id)
        valid_identifier("memory_id", memory_id)
        if expand:
            return await _expanded(user_id, memory_id)
        document = await asyncio.to_thread(memory_document, store, user_id, memory_id)
        if document is None:
            raise HTTPException(404, detail=f"no memory {memory_id} for user {user_id}")
        return document

    def _archiver() -> Archiver:
        if archiver is None:
            raise HTTPException(501, detail="this server has no cold store")
        return archiver

    async def _expanded(user_id: str, memory_id: str) -> dict[str, Any]:
        try:
            expansion = await asyncio.to_thread(_archiver().expand, user_id, memory_id, clock())
        except NotArchived as exc:
            raise HTTPException(404, detail=str(exc)) from None
        await sink.publish(expansion.events)
        return {
            "memory_id": memory_id,
            "archived": True,
            "original": jsonable_encoder(expansion.original),
            "restoring": any(isinstance(e, MemoryRestored) for e in expansion.events),
        }

    @app.post(
        "/v1/memories/{memory_id}/restore",
        status_code=202,
        responses=errors(404, 422, 501, 503, 507),
    )
    async def restore(body: _Owner, memory_id: str = memory_path) -> dict[str, Any]:
        """Bring an archived memory back to the hot tables, with its vector."""
        valid_identifier("user_id", body.user_id)
        valid_identifier("memory_id", memory_id)
        try:
            events = await asyncio.to_thread(_archiver().restore, body.user_id, memory_id, clock())
        except NotArchived as exc:
            raise HTTPException(404, detail=str(exc)) from None
        await sink.publish(events)
        return {"accepted": [e.event_id for e in events], "memory_id": memory_id}

    @app.get("/v1/memories/{memory_id}/history", responses=errors(404, 422))
    async def get_history(
        memory_id: str = memory_path, user_id: str = user_param
    ) -> dict[str, Any]:
        """The memories that replaced one another through this one, oldest first."""
        valid_identifier("user_id", user_id)
        valid_identifier("memory_id", memory_id)
        chain = await asyncio.to_thread(memory_history, store, user_id, memory_id)
        if chain is None:
            raise HTTPException(404, detail=f"no memory {memory_id} for user {user_id}")
        return {"memory_id": memory_id, "history": chain}

    @app.post(
        "/v1/memories/{memory_id}/correct", status_code=202, responses=errors(404, 422, 503, 507)
    )
    async def correct(body: _Correction, memory_id: str = memory_path) -> dict[str, Any]:
        """``correct_fact``: the new content replaces the memory, which stays as history."""
        valid_identifier("user_id", body.user_id)
        valid_identifier("memory_id", memory_id)
        event, new_id = await asyncio.to_thread(
            correction, store, body.user_id, memory_id, body.content, clock()
        )
        await sink.publish([event])
        return {"accepted": [event.event_id], "memory_id": new_id, "supersedes": memory_id}

    @app.post(
        "/v1/memories/{memory_id}/confirm", status_code=202, responses=errors(404, 422, 503, 507)
    )
    async def confirm(body: _Owner, memory_id: str = memory_path) -> dict[str, Any]:
        """``confirm_fact``: full confidence, never decays."""
        valid_identifier("user_id", body.user_id)
        valid_identifier("memory_id", memory_id)
        event = await asyncio.to_thread(confirmation, store, body.user_id, memory_id, clock())
        await sink.publish([event])
        return {"accepted": [event.event_id], "memory_id": memory_id}

    @app.post(
        "/v1/memories/{memory_id}/forget", status_code=202, responses=errors(404, 422, 503, 507)
    )
    async def forget(body: _Owner, memory_id: str = memory_path) -> dict[str, Any]:
        """``forget``: never returned by search again; kept for history."""
        valid_identifier("user_id", body.user_id)
        valid_identifier("memory_id", memory_id)
        event = await asyncio.to_thread(forgetting, store, body.user_id, memory_id, clock())
        await sink.publish([event])
        return {"accepted": [event.event_id], "memory_id": memory_id}

    @app.get("/v1/entities", responses=errors(404, 422))
    async def get_entity(
        user_id: str = user_param,
        name: str = Query(min_length=1, max_length=200, pattern=CONTROL_FREE_PATTERN),
    ) -> dict[str, Any]:
        valid_identifier("user_id", user_id)
        plain_text("name", name)
        profile = await asyncio.to_thread(entity_profile, store, user_id, name)
        if profile is None:
            raise HTTPException(404, detail=f"no entity named {name!r} for user {user_id}")
        return profile

    @app.get("/v1/stats", responses=errors(422))
    async def get_stats(
        user_id: str | None = Query(None, pattern=IDENTIFIER_PATTERN, max_length=200),
    ) -> dict[str, Any]:
        if user_id is not None:
            valid_identifier("user_id", user_id)
        offsets, epoch = (None, None) if log_position is None else await log_position()
        document: dict[str, Any] = await asyncio.to_thread(
            compute_stats, store, user_id, end_offsets=offsets, log_epoch=epoch
        )
        return document

    return app


def accepted_event(document: Any) -> Event:
    """The event ``POST /v1/events`` accepts for ``document``.

    Raises:
        InvalidEvent: naming what is wrong (the answer is 422).
    """
    event = from_document(_with_event_id(document))
    if event.type not in _CHANNEL_TYPES:
        raise InvalidEvent([f"type: must be one of {', '.join(sorted(_CHANNEL_TYPES))}"])
    too_large = size_problem(encode(event))
    if too_large is not None:
        raise InvalidEvent([too_large])
    return event


def _with_event_id(document: Any) -> Any:
    """A document without ``event_id`` gets one derived from its content, so a client
    that sends the same request again (after a timeout, a 503) stores it once."""
    if not isinstance(document, dict) or "event_id" in document:
        return document
    canonical = json.dumps(document, sort_keys=True, ensure_ascii=False, default=str)
    digest = hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:32]
    return {**document, "event_id": f"sha256:{digest}"}


async def _report_access(sink: EventSink, event: MemoryAccessed) -> None:
    try:
        await sink.publish([event])
    except SinkUnavailable as exc:  # reinforcement is best effort; the answer was sent
        log.warning("could not publish %s: %s", event.type, exc)
    except Exception:
        log.warning("could not publish %s", event.type, exc_info=True)
