"""The HTTP API (FastAPI): a route table over :class:`~memstream.application.Operations`.

Each handler validates its input with pydantic (a bad body or parameter is answered 422
naming each field), calls one operation and shapes the answer; what an operation refuses
is answered by :mod:`memstream.http.contract` (404, 501, 503, 507). A search answers
first and reports the memories it returned as accessed in the background. The MCP
server is mounted at ``/mcp`` (:mod:`memstream.mcp.http`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager, nullcontext
from importlib.metadata import version

from fastapi import Depends, FastAPI
from fastapi.routing import APIRoute

from memstream.application import Operations
from memstream.application.intake import MAX_EVENTS_PER_PUBLISH
from memstream.gate.guard import Guard
from memstream.http.contract import (
    install_error_handlers,
    install_event_body_schema,
    single_valued_parameters,
)
from memstream.http.docs_pages import install_docs
from memstream.http.document_routes import document_router
from memstream.http.doors import Doors
from memstream.http.entity_routes import entity_router
from memstream.http.event_routes import event_router
from memstream.http.health_routes import health_router
from memstream.http.key_routes import key_router
from memstream.http.memory_routes import memory_router
from memstream.http.metering import Metering
from memstream.http.parameters import RouteDeps
from memstream.http.search_routes import search_router
from memstream.http.served_routes import served_router
from memstream.http.user_routes import user_router
from memstream.observability import tracing
from memstream.settings import Settings
from memstream.tenancy.audit import AuditLog
from memstream.tenancy.keys import key_store_of
from memstream.tenancy.limits import Buckets, Limit

__all__ = ["create_app", "guard_for", "operation_id"]


def operation_id(route: APIRoute) -> str:
    """A route's OpenAPI operation id: its name (the clients' method names follow it)."""
    return route.name


def guard_for(settings: Settings) -> Guard:
    """The keys, per-key limits and audit log of the data folder ``settings`` name."""
    limits = {
        "search": Limit(settings.key_searches_per_second, settings.key_searches_burst),
        "publish": Limit(settings.key_events_per_second, settings.key_events_burst),
        "characters": Limit(
            settings.key_characters_per_second,
            settings.key_characters_burst,
            unit="characters",
            action="publish",
        ),
    }
    return Guard(key_store_of(settings), Buckets(limits), AuditLog(settings.log_dir))


def create_app(
    operations: Operations,
    *,
    lifespan: Callable[[FastAPI], AbstractAsyncContextManager[None]] | None = None,
    host: str = "127.0.0.1",
    instance: str | None = None,
    guard: Guard | None = None,
    with_mcp: bool = True,
    with_console: bool = True,
    checked_doors: bool = True,
) -> FastAPI:
    """The API over ``operations``, with the MCP server at ``/mcp`` (unless
    ``with_mcp`` is False: the API a command answers in its own process); ``lifespan`` wraps
    the app's life (the server's publisher connection), and the operations are closed
    when the app stops. The console is served at ``/console`` (unless ``with_console``
    is False), sampling the stream while the app runs. ``host`` is the address it is
    served on; ``instance`` names this run of the server in ``/healthz`` (see
    :mod:`memstream.server_address`); ``guard`` checks keys, limits and writes the
    audit log (default: the data folder's). Every request first passes the Host, Origin
    and content-type checks of :mod:`memstream.http.doors` (``checked_doors`` False: the
    app answers in this process only, through no socket)."""
    settings = operations.settings
    guard = guard or guard_for(settings)
    rule = settings.door_rule(host, settings.api_port)
    mcp_running: Callable[[], AbstractAsyncContextManager[None]] = nullcontext
    console_running: Callable[[], AbstractAsyncContextManager[None]] = nullcontext
    if with_mcp:
        from memstream.mcp.http import mcp_route

        mcp, mcp_running = mcp_route(operations, host, guard)

    @asynccontextmanager
    async def _lifespan(app: FastAPI) -> AsyncIterator[None]:
        try:
            async with AsyncExitStack() as stack:
                if lifespan is not None:
                    await stack.enter_async_context(lifespan(app))
                await stack.enter_async_context(mcp_running())
                await stack.enter_async_context(console_running())
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
        # operation ids are the routes' names (``list_memories``), not path and method
        generate_unique_id_function=operation_id,
    )
    install_docs(app)
    install_error_handlers(app)
    install_event_body_schema(app, "/v1/events", MAX_EVENTS_PER_PUBLISH)
    deps = RouteDeps(operations, guard, Depends(guard), instance)
    for router in (
        health_router,
        event_router,
        search_router,
        served_router,
        memory_router,
        entity_router,
        user_router,
        key_router,
        document_router,
    ):
        app.include_router(router(deps))
    if with_console:
        from memstream.console.app import install_console

        console_running = install_console(app, operations, guard, rule)
    if with_mcp:
        app.router.routes.append(mcp)
    if checked_doors:  # before any route: only the metering sees a request it refuses
        app.add_middleware(Doors, rule=rule, browser_origins=settings.browser_origin_list)
    app.add_middleware(Metering)
    if tracing.enabled():
        from opentelemetry.instrumentation.fastapi import FastAPIInstrumentor

        FastAPIInstrumentor.instrument_app(app, excluded_urls="healthz,readyz,metrics")
    return app
