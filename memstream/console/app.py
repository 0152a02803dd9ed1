"""The console in the API: its routes, its static files (scripts, styles and their
licences, all in the package), and the sampler that keeps its last hour.

:func:`install_console` adds it all to an API app; every API replica serves the console
on the same keys, rules and address as the API.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from importlib.resources import files

from fastapi import APIRouter, FastAPI
from starlette.convertors import PathConvertor, register_url_convertor
from starlette.staticfiles import StaticFiles

from memstream.application import Operations
from memstream.console.access import ConsoleAccess, console_route_class
from memstream.console.memory_pages import memory_pages
from memstream.console.recall_pages import recall_pages
from memstream.console.samples import Samples, sampling
from memstream.console.served_pages import served_pages
from memstream.console.sessions import Sessions
from memstream.console.stream_pages import stream_pages
from memstream.gate.guard import Guard
from memstream.observability.deployment_sample import applied_next
from memstream.policies.doors import DoorRule
from memstream.storage.shared_folder import SharedFolder

__all__ = ["install_console"]

#: Storage sizes are measured every this many samples (a listing of the cold store).
_SIZES_EVERY = 20


class _ConsoleIdConvertor(PathConvertor):
    """An identifier in a console address: it may hold ``/``; the shortest that lets the
    rest of the address match (``/console/users/a/b/memories/m``: user ``a/b``)."""

    regex = r"[A-Za-z0-9_.:@+/-]+?"


register_url_convertor("console_id", _ConsoleIdConvertor())


def install_console(
    app: FastAPI, ops: Operations, guard: Guard, rule: DoorRule
) -> Callable[[], AbstractAsyncContextManager[None]]:
    """Add the console to ``app`` (its forms checked against ``rule``'s origins); answers
    the context that samples the stream while the app runs."""
    settings = ops.settings
    sessions = Sessions(
        SharedFolder(settings.console_sessions_location), settings.console_session_hours * 3600
    )
    access = ConsoleAccess(guard, sessions, rule)
    samples = Samples(settings.console_sample_seconds)
    sizes: dict[str, float] = {}
    router = APIRouter(route_class=console_route_class(access), include_in_schema=False)
    stream_pages(router, ops, access, samples, sizes)
    recall_pages(router, ops, access)  # before the timeline: its addresses are longer
    served_pages(router, ops, access)
    memory_pages(router, ops, access)
    app.include_router(router)
    static = files("memstream.console") / "static"
    app.mount("/console/static", StaticFiles(directory=str(static)), name="console-static")
    taken = 0

    async def take() -> None:
        nonlocal taken
        ends, epoch = await ops.reads.log_position(timeout=max(1.0, samples.every_seconds / 2))
        checkpoints = await asyncio.to_thread(ops.store.load_checkpoints, settings.consumer_group)
        samples.add(ops.clock(), ends, applied_next(checkpoints, epoch), epoch)
        if taken % _SIZES_EVERY == 0:
            sizes.update(await ops.health.storage_sizes())
            sizes["measured_at"] = time.monotonic()
        taken += 1

    @asynccontextmanager
    async def running() -> AsyncIterator[None]:
        async with sampling(samples, take):
            yield

    return running
