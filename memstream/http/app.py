"""The HTTP API (FastAPI): a route table over :class:`~memstream.operations.Operations`.

Each handler validates its input with pydantic (a bad body or parameter is answered 422
naming each field), calls one operation and shapes the answer; what an operation refuses
is answered by :mod:`memstream.http.contract` (404, 501, 503, 507). A search answers
first and reports the memories it returned as accessed in the background. The MCP
server is mounted at ``/mcp`` (:mod:`memstream.mcp.http`).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from dataclasses import asdict
from importlib.metadata import version
from typing import Any, Literal

from fastapi import Depends, FastAPI, HTTPException, Path, Query, Request, Response
from fastapi.encoders import jsonable_encoder
from fastapi.responses import StreamingResponse
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from pydantic import BaseModel, ConfigDict, Field
from starlette.convertors import PathConvertor, register_url_convertor

from memstream.http.contract import (
    CONTROL_FREE_PATTERN,
    RememberRequest,
    errors,
    install_error_handlers,
    install_event_body_schema,
    single_valued_parameters,
)
from memstream.http.docs_pages import install_docs
from memstream.http.document_routes import install_document_routes
from memstream.http.guard import Guard, Principal
from memstream.http.metering import Metering
from memstream.http.timing import server_timing
from memstream.mcp.http import mcp_route
from memstream.operations import Operations
from memstream.operations.application import MAX_LISTED
from memstream.operations.intake import MAX_EVENTS_PER_PUBLISH, parse_body
from memstream.operations.results import erasure_document
from memstream.portability.exports import MEDIA_TYPES, ExportFormat
from memstream.projections.errors import InvalidEvent
from memstream.projections.events import IDENTIFIER_PATTERN, Identifier, UtcDateTime
from memstream.queries.memory_list import ListRequest
from memstream.queries.search import SearchRequest, SearchResponse
from memstream.queries.search_documents import MEMORY_KINDS
from memstream.queries.stats import lag
from memstream.streams.settings import Settings
from memstream.streams.telemetry import tracing
from memstream.streams.telemetry.exposition import readiness_document
from memstream.tenancy.audit import AuditLog
from memstream.tenancy.keys import KeyStoreError, Role, key_store_of
from memstream.tenancy.limits import Buckets, Limit

__all__ = ["ContextRequest", "create_app", "guard_for"]

USER = Query(pattern=IDENTIFIER_PATTERN, max_length=200)
_KINDS = "^(" + "|".join(MEMORY_KINDS) + ")$"
_AFTER = Query(None, description="memories that occurred at or after this time")
_BEFORE = Query(None, description="memories that occurred before this time")
#: A memory id in a path: ``{memory_id:text}`` in the route, so an id holding ``/`` (which
#: the identifier rule allows, sent as ``%2F`` or as it is) or a line break (which it
#: refuses) reaches its route and gets that route's answer.
MEMORY = Path(pattern=IDENTIFIER_PATTERN, max_length=200)
#: The file name suffix of each export format.
_SUFFIXES = {"events": "jsonl", "json": "json", "markdown": "md"}
#: The actions a path can name after a memory id.
_ACTIONS = ("history", "explain", "confirm", "correct", "forget", "restore")


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

    regex = r"(?:(?!/(?:" + "|".join(_ACTIONS) + r")$)[\s\S])+"


register_url_convertor("text", _TextConvertor())
register_url_convertor("maybe_text", _MaybeTextConvertor())
register_url_convertor("user_id", _UserIdConvertor())
register_url_convertor("memory_id", _MemoryIdConvertor())


class _Owner(BaseModel):
    model_config = ConfigDict(extra="forbid")

    user_id: Identifier


class _Correction(_Owner):
    content: str = Field(min_length=1, max_length=4000)


class _NewKey(BaseModel):
    model_config = ConfigDict(extra="forbid")

    role: Role = "write"
    name: str = Field(default="", max_length=200, pattern=CONTROL_FREE_PATTERN + "|^$")


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


def guard_for(settings: Settings) -> Guard:
    """The keys, per-key limits and audit log of the data folder ``settings`` name."""
    limits = {
        "search": Limit(settings.key_searches_per_second, settings.key_searches_burst),
        "publish": Limit(settings.key_events_per_second, settings.key_events_burst),
    }
    return Guard(key_store_of(settings), Buckets(limits), AuditLog(settings.log_dir))


def create_app(
    operations: Operations,
    *,
    lifespan: Callable[[FastAPI], AbstractAsyncContextManager[None]] | None = None,
    host: str = "127.0.0.1",
    instance: str | None = None,
    guard: Guard | None = None,
) -> FastAPI:
    """The API over ``operations``, with the MCP server at ``/mcp``; ``lifespan`` wraps
    the app's life (the server's publisher connection), and the operations are closed
    when the app stops. ``host`` is the address it is served on; ``instance`` names this
    run of the server in ``/healthz`` (see :mod:`memstream.server_address`); ``guard``
    checks keys, limits and writes the audit log (default: the data folder's)."""
    settings = operations.settings
    guard = guard or guard_for(settings)
    mcp, mcp_running = mcp_route(operations, host, guard)

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
        max_body_size=settings.max_body_bytes,
        docs_url=None,
        redoc_url=None,
        # a path is answered as it is: `/v1/users/` (an empty user id) is no list of users
        redirect_slashes=False,
    )
    install_docs(app)
    install_error_handlers(app)
    install_event_body_schema(app, "/v1/events", MAX_EVENTS_PER_PUBLISH)
    ops = operations
    WHO = Depends(guard)

    @app.get("/healthz")
    async def healthz() -> dict[str, str]:
        """Liveness: answers while the process runs, touching nothing else."""
        return {"status": "ok"} if instance is None else {"status": "ok", "instance": instance}

    readiness = _ApiReadiness(ops)

    @app.get("/readyz", responses={503: {"description": "Not ready, with the reasons"}})
    async def readyz(response: Response) -> dict[str, Any]:
        """Whether this server can serve: the broker answers, the projections can be
        read, and the workers are within ``ready_max_lag`` records of the log."""
        status, document = readiness_document(await readiness.problems())
        response.status_code = status
        return document

    @app.get("/metrics", include_in_schema=False)
    async def prometheus_metrics(request: Request) -> Response:
        """This process's series in Prometheus' text format (docs/metrics.md): with keys
        on, for an admin key (the counts are the whole deployment's), unless the
        operator opened it (``MEMSTREAM_API_METRICS_OPEN``)."""
        if not settings.api_metrics_open:
            who = await guard(request)
            if who.key is not None:
                who.admin("reading the deployment's metrics")
        return Response(generate_latest(), media_type=CONTENT_TYPE_LATEST)

    @app.post("/v1/events", status_code=202, responses=errors(401, 403, 413, 422, 429, 503, 507))
    async def post_events(request: Request, who: Principal = WHO) -> dict[str, Any]:
        """Validate one event or a list of them, publish them, answer their ids."""
        try:
            items = parse_body(await request.body())
        except InvalidEvent as exc:
            raise HTTPException(422, detail=f"the body is {'; '.join(exc.problems)}") from None
        users = [item["user_id"] for item in items if isinstance(item, dict) and "user_id" in item]
        who.reach_all(users, write=True)
        who.limit("publish", len(items))
        accepted = await ops.publish(items, who.caller())
        return {"accepted": accepted.event_ids}

    @app.post("/v1/search", response_model=SearchResponse, responses=errors(*_READ, 503))
    async def post_search(search_request: SearchRequest, who: Principal = WHO) -> Response:
        """Hybrid search. The ``Server-Timing`` header says where the time went."""
        who.reads(search_request.user_id)
        found = await ops.search(search_request)
        # written to JSON by pydantic's serializer in one pass, not dumped to Python,
        # checked against the model again and then encoded, as a returned model is
        # (ten results: 10 us against 60)
        return Response(
            found.__pydantic_serializer__.to_json(found),
            media_type="application/json",
            headers={"Server-Timing": server_timing(found.timings, found.took_ms)},
        )

    @app.post("/v1/memories", status_code=202, responses=errors(*_WRITE))
    async def remember(body: RememberRequest, who: Principal = WHO) -> dict[str, Any]:
        """``remember_fact``: store a memory stated by the user or an agent."""
        who.writes(body.user_id)
        done = await ops.remember(body.model_dump(exclude_none=True), who.caller())
        return {"accepted": done.event_ids, "memory_id": done.memory_id}

    @app.get("/v1/memories", responses=errors(*_READ))
    async def list_memories(
        user_id: str = USER,
        kind: str | None = Query(None, pattern=_KINDS),
        session_id: str | None = Query(None, pattern=IDENTIFIER_PATTERN, max_length=200),
        project_id: str | None = Query(None, pattern=IDENTIFIER_PATTERN, max_length=200),
        after: UtcDateTime | None = _AFTER,
        before: UtcDateTime | None = _BEFORE,
        order: Literal["newest", "oldest"] = "newest",
        limit: int = Query(50, ge=1, le=MAX_LISTED),
        cursor: str | None = Query(None, max_length=2000, pattern=r"^[A-Za-z0-9_-]+$"),
        include_hidden: bool = Query(False, description="superseded and forgotten too"),
        who: Principal = WHO,
    ) -> dict[str, Any]:
        """The user's memories a page at a time, newest (or oldest) first, archived ones
        included and marked; ``next_cursor`` gives the next page, which memories added
        meanwhile never shift."""
        who.reads(user_id)
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
        )
        page = await ops.list_memories(request)
        return {"memories": page.memories, "next_cursor": page.next_cursor}

    @app.get("/v1/memories/weak", responses=errors(*_READ, 503))
    async def weak_memories(user_id: str = USER, who: Principal = WHO) -> dict[str, Any]:
        """Memories near the prune threshold, weakest first."""
        who.reads(user_id)
        return {"memories": await ops.weak_facts(user_id)}

    @app.post(
        "/v1/memories/{memory_id:text}/restore",
        status_code=202,
        responses=errors(*_WRITE, 404, 501),
    )
    async def restore(
        body: _Owner, memory_id: str = MEMORY, who: Principal = WHO
    ) -> dict[str, Any]:
        """Bring an archived memory back to the hot tables, with its vector."""
        who.writes(body.user_id)
        done = await ops.restore(body.user_id, memory_id, who.caller())
        return {"accepted": done.event_ids, "memory_id": memory_id}

    @app.get("/v1/memories/{memory_id:text}/history", responses=errors(*_READ, 404))
    async def get_history(
        memory_id: str = MEMORY, user_id: str = USER, who: Principal = WHO
    ) -> dict[str, Any]:
        """The memories that replaced one another through this one, oldest first."""
        who.reads(user_id)
        return {"memory_id": memory_id, "history": await ops.history(user_id, memory_id)}

    @app.post(
        "/v1/memories/{memory_id:text}/correct", status_code=202, responses=errors(*_WRITE, 404)
    )
    async def correct(
        body: _Correction, memory_id: str = MEMORY, who: Principal = WHO
    ) -> dict[str, Any]:
        """``correct_fact``: the new content replaces the memory, which stays as history."""
        who.writes(body.user_id)
        done = await ops.correct(body.user_id, memory_id, body.content, who.caller())
        return {"accepted": done.event_ids, "memory_id": done.memory_id, "supersedes": memory_id}

    @app.post(
        "/v1/memories/{memory_id:text}/confirm", status_code=202, responses=errors(*_WRITE, 404)
    )
    async def confirm(
        body: _Owner, memory_id: str = MEMORY, who: Principal = WHO
    ) -> dict[str, Any]:
        """``confirm_fact``: full confidence, never decays."""
        who.writes(body.user_id)
        done = await ops.confirm(body.user_id, memory_id, who.caller())
        return {"accepted": done.event_ids, "memory_id": memory_id}

    @app.post(
        "/v1/memories/{memory_id:text}/forget", status_code=202, responses=errors(*_WRITE, 404)
    )
    async def forget(body: _Owner, memory_id: str = MEMORY, who: Principal = WHO) -> dict[str, Any]:
        """``forget``: never returned by search again; kept for history."""
        who.writes(body.user_id)
        done = await ops.forget(body.user_id, memory_id, who.caller())
        return {"accepted": done.event_ids, "memory_id": memory_id}

    @app.get("/v1/entities", responses=errors(*_READ, 404))
    async def get_entity(
        user_id: str = USER,
        name: str = Query(min_length=1, max_length=200, pattern=CONTROL_FREE_PATTERN),
        project_id: str | None = Query(None, pattern=IDENTIFIER_PATTERN, max_length=200),
        who: Principal = WHO,
    ) -> dict[str, Any]:
        """An entity's profile, its memories in the project's scope (the user's memories
        of no project, and the project's)."""
        who.reads(user_id)
        return await ops.entity(user_id, name, project_id)

    @app.post("/v1/context", responses=errors(*_READ, 503))
    async def post_context(body: ContextRequest, who: Principal = WHO) -> dict[str, Any]:
        """The memory block to put before an agent's answer (``context`` is null when
        nothing relevant is found)."""
        who.reads(body.user_id)
        block = await ops.context(
            body.user_id, body.query, body.project_id, body.budget_tokens, body.now
        )
        return asdict(block)

    @app.get("/v1/memories/{memory_id:text}/explain", responses=errors(*_READ, 404))
    async def explain(
        memory_id: str = MEMORY, user_id: str = USER, who: Principal = WHO
    ) -> dict[str, Any]:
        """Why a memory exists: the turns it came from, what replaced what, commands,
        entities, and how its confidence got where it is."""
        who.reads(user_id)
        return await ops.explain(user_id, memory_id)

    # after the routes whose paths continue a memory id: this one takes any rest
    @app.get("/v1/memories/{memory_id:memory_id}", responses=errors(*_READ, 404, 501, 503, 507))
    async def get_memory(
        memory_id: str = MEMORY,
        user_id: str = USER,
        expand: bool = Query(False),
        who: Principal = WHO,
    ) -> dict[str, Any]:
        """A memory; with ``expand=true`` an archived memory's original, read from cold
        storage exactly as it was archived (three expansions in 30 days restore it)."""
        who.reads(user_id)
        if not expand:
            return await ops.memory(user_id, memory_id)
        expanded = await ops.expand(user_id, memory_id)
        return {
            "memory_id": expanded.memory_id,
            "archived": True,
            "original": jsonable_encoder(expanded.original),
            "restoring": expanded.restoring,
        }

    @app.get("/v1/stats", responses=errors(*_READ))
    async def get_stats(
        user_id: str | None = Query(None, pattern=IDENTIFIER_PATTERN, max_length=200),
        who: Principal = WHO,
    ) -> dict[str, Any]:
        if user_id is None:
            who.need_tenant_view()
        else:
            who.reads(user_id)
        return await ops.stats(user_id)

    @app.get("/v1/users", responses=errors(*_READ))
    async def get_users(
        tenant: str | None = Query(None, pattern=IDENTIFIER_PATTERN, max_length=200),
        who: Principal = WHO,
    ) -> dict[str, Any]:
        """The users memory is held of, each with its memories, archived memories and
        when its newest memory happened: a key's own tenant's (``tenant`` may only name
        it); every tenant's for the operator (or the one ``tenant`` names)."""
        if who.tenant is not None:
            if tenant is not None and tenant != who.tenant:
                raise who.refuse(f"this key lists the users of {who.tenant} only")
            tenant = who.tenant
        return {"users": await ops.users(tenant)}

    @app.delete(
        "/v1/users/{user_id:user_id}",
        responses={
            **errors(*_WRITE),
            202: {"description": "The keys are destroyed; the rows are still being dropped"},
        },
    )
    async def erase_user(
        response: Response,
        user_id: str = Path(pattern=IDENTIFIER_PATTERN, max_length=200),
        who: Principal = WHO,
    ) -> dict[str, Any]:
        """Erase everything memstream keeps of a user, for good (a tenant admin key): the
        user's data keys are destroyed, so nothing sealed for the user in the log, the
        journal or the event archive can be read again, and every projection and the
        cold store drop the user. 200 when all of it is done; 202 when the keys are gone
        and the worker has not dropped the rows yet (asking again waits for it)."""
        who.writes(user_id)  # first: a foreign user gets the answer every route gives
        if who.key is not None:
            who.admin("erasing a user")
        done = await ops.erase(user_id, caller=who.caller())
        response.status_code = 200 if done.complete else 202
        return erasure_document(done)

    @app.get(
        "/v1/users/{user_id:maybe_text}/export",
        responses={
            **errors(401, 403, 404, 422),
            200: {
                "description": "The export, streamed: JSON lines (events), a JSON "
                "document (json) or Markdown (markdown)",
                "content": {media: {} for media in MEDIA_TYPES.values()},
            },
        },
        response_class=StreamingResponse,
    )
    async def export_user(
        user_id: str = Path(pattern=IDENTIFIER_PATTERN, max_length=200),
        format: ExportFormat = "events",
        who: Principal = WHO,
    ) -> StreamingResponse:
        """Everything memstream holds of a user (a tenant admin key): ``events``, the
        user's events as JSON lines, which ``memstream import`` turns back into the same
        memory in another store; ``json``, the user's rows of every projection;
        ``markdown``, a dossier to read. Streamed as it is read."""
        who.reads(user_id)
        if who.key is not None:
            who.admin("exporting a user")
        pieces = ops.export(user_id, format, caller=who.caller())
        name = f"{user_id.replace('/', '_')}.{_SUFFIXES[format]}"
        return StreamingResponse(
            pieces,
            media_type=MEDIA_TYPES[format],
            headers={"Content-Disposition": f'attachment; filename="{name}"'},
        )

    @app.post("/v1/keys", status_code=201, responses=errors(401, 403, 422))
    async def create_key(body: _NewKey, who: Principal = WHO) -> dict[str, Any]:
        """A new key of the admin key's tenant; the key itself is in this answer only."""
        admin = who.admin()
        try:
            record, token = guard.keys.create(admin.tenant, body.role, body.name)
        except KeyStoreError as exc:
            raise HTTPException(422, detail=str(exc)) from None
        who.audit("key_create", None, 201, created_key=record.key_id, role=record.role)
        return {**record.public(), "key": token}

    @app.get("/v1/keys", responses=errors(401, 403))
    async def list_keys(who: Principal = WHO) -> dict[str, Any]:
        """The admin key's tenant's keys (never the keys themselves, nor their hashes)."""
        admin = who.admin()
        return {"keys": [k.public() for k in guard.keys.records() if k.tenant == admin.tenant]}

    @app.delete("/v1/keys/{key_id}", responses=errors(401, 403, 404, 422))
    async def revoke_key(key_id: str = Path(max_length=40), who: Principal = WHO) -> dict[str, Any]:
        """Revoke one of the tenant's keys: it is refused from the next request on."""
        admin = who.admin()
        try:
            record = guard.keys.revoke(key_id, tenant=admin.tenant)
        except KeyStoreError as exc:
            raise HTTPException(404, detail=str(exc)) from None
        who.audit("key_revoke", None, 200, revoked_key=record.key_id)
        return record.public()

    install_document_routes(app, ops, WHO, settings, _READ, _WRITE)
    app.router.routes.append(mcp)
    app.add_middleware(Metering)
    if tracing.enabled():
        from opentelemetry.instrumentation.fastapi import FastAPIInstrumentor

        FastAPIInstrumentor.instrument_app(app, excluded_urls="healthz,readyz,metrics")
    return app


class _ApiReadiness:
    """``/readyz`` of the API: its checks, answered again at most every two seconds."""

    def __init__(self, operations: Operations, cache_seconds: float = 2.0) -> None:
        self._ops = operations
        self._cache_seconds = cache_seconds
        self._last: tuple[float, dict[str, str]] | None = None
        self._lock = asyncio.Lock()

    async def problems(self) -> dict[str, str]:
        async with self._lock:
            now = time.monotonic()
            if self._last is None or now - self._last[0] >= self._cache_seconds:
                self._last = (now, await self._check())
            return self._last[1]

    async def _check(self) -> dict[str, str]:
        found: dict[str, str] = {}
        store = self._ops.store
        try:
            checkpoints = await asyncio.to_thread(store.load_checkpoints)
        except Exception as exc:
            found["store"] = f"the projections cannot be read: {type(exc).__name__}: {exc}"
            checkpoints = None
        offsets, epoch = await self._ops.log_position(timeout=2.0)
        if offsets is None:
            found["broker"] = f"the broker at {self._ops.settings.bootstrap} does not answer"
        elif checkpoints is not None:
            waiting = lag(checkpoints, offsets, epoch)
            most = self._ops.settings.ready_max_lag
            if waiting > most:
                found["consumer"] = (
                    f"{waiting} records wait to be applied (ready at {most} or fewer: "
                    "MEMSTREAM_READY_MAX_LAG)"
                )
        return found


#: What a read can answer besides its own codes; a write adds the log's refusals.
_READ = (401, 403, 422, 429)
_WRITE = (*_READ, 503, 507)
