"""Serving the HTTP API: ``memstream serve`` alone, or as a child of ``memstream up``
(see :mod:`streams.api_process`).

The API process opens the projections read-only with a read-consistency interval, so
it sees what the worker writes, embeds queries with the configured embedder, and
publishes events with its own Kafka producer (journaled with the embedded broker). It
runs uvicorn on ``api_host:api_port`` (loopback by default). Publishes are refused with
503 while memstream stops and with 507 while a disk it writes to is nearly full;
searches go on.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

from fastapi import FastAPI

from projections.api import SinkUnavailable, StorageFull
from storage.headroom import Headroom
from storage.lance_store import ProjectionStore
from storage.layout import DataLayout
from streams.api_process import DrainState
from streams.components import (
    make_archiver,
    make_embedder,
    make_lifecycle,
    make_model,
    make_searcher,
)
from streams.errors import DiskFull, StreamsError
from streams.publisher import Publisher, headroom_of, publisher_for
from streams.settings import Settings
from streams.topics import MESSAGES, end_offsets, read_epoch

__all__ = ["build_api", "serve"]

log = logging.getLogger(__name__)


def open_read_store(settings: Settings) -> ProjectionStore:
    location = DataLayout(settings.data_location).existing_projections()
    if location is None:
        raise StreamsError(f"no projections in {settings.data} yet: start `memstream up` first")
    return ProjectionStore.at(
        location, read_consistency_interval=timedelta(seconds=settings.api_read_consistency_seconds)
    )


class _LazyPublisher:
    """A publisher connected when the app starts, or at the first publish if the broker
    was down then: searches never wait for the broker. It refuses publishes while
    memstream stops (``drain``) or a disk is nearly full (``headroom``)."""

    def __init__(
        self, settings: Settings, drain: DrainState | None, headroom: Headroom | None
    ) -> None:
        self._settings = settings
        self._drain = drain or DrainState()
        self._headroom = headroom
        self._publisher: Publisher | None = None
        self._connecting = asyncio.Lock()

    async def start(self) -> None:
        try:
            await self._connect()
        except SinkUnavailable as exc:
            log.warning("%s; publishing will be retried on demand", exc)

    async def _connect(self) -> Publisher:
        async with self._connecting:
            if self._publisher is None:
                try:
                    publisher = publisher_for(self._settings)  # in the server's event loop
                    await publisher.__aenter__()
                except DiskFull as exc:
                    raise StorageFull(str(exc)) from None
                except StreamsError as exc:
                    raise SinkUnavailable(str(exc)) from None
                self._publisher = publisher
            return self._publisher

    async def stop(self) -> None:
        if self._publisher is not None:
            await self._publisher.__aexit__(None, None, None)

    async def publish(self, events: Any) -> list[str]:
        if self._drain.draining:
            raise SinkUnavailable(self._drain.reason)
        shortage = self._headroom.shortage() if self._headroom is not None else None
        if shortage is not None:
            raise StorageFull(shortage)
        with self._drain.publishing():
            publisher = await self._connect()
            try:
                return await publisher.publish(events)
            except DiskFull as exc:
                raise StorageFull(str(exc)) from None
            except StreamsError as exc:
                raise SinkUnavailable(str(exc)) from None


def build_api(settings: Settings, drain: DrainState | None = None) -> FastAPI:
    """The API app for ``settings`` (store, embedder, searcher, publisher); ``drain``
    is how a parent ``memstream up`` tells it to stop taking publishes."""
    from projections.api import create_app

    store = open_read_store(settings)
    embedder = make_embedder(settings)
    searcher = make_searcher(settings, store, embedder)
    sink = _LazyPublisher(settings, drain, headroom_of(settings))

    async def log_position() -> tuple[dict[tuple[str, int], int] | None, str | None]:
        try:
            ends = await asyncio.wait_for(end_offsets(settings.bootstrap, MESSAGES), 5)
            epoch = await asyncio.wait_for(
                read_epoch(settings.bootstrap, datetime.now(UTC), create=False), 5
            )
        except Exception:  # the broker is down: lag unknown
            return None, None
        return {(MESSAGES, p): off for p, off in ends.items()}, epoch

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await sink.start()
        try:
            yield
        finally:
            await sink.stop()

    model = make_model(settings)
    return create_app(
        searcher,
        sink,
        log_position=log_position,
        lifespan=lifespan,
        weak_facts=make_lifecycle(settings, store, model).weak_facts,
        archiver=make_archiver(settings, store, embedder, model),
    )


def serve(settings: Settings) -> int:
    """Run the API in the foreground until interrupted."""
    import uvicorn

    app = build_api(settings)
    log.info("HTTP API on http://%s:%d", settings.api_host, settings.api_port)
    uvicorn.run(
        app, host=settings.api_host, port=settings.api_port, log_level="warning", access_log=False
    )
    return 0
