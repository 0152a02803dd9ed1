"""Serving the HTTP API: ``memstream serve`` alone, or as a child of ``memstream up``.

The API process opens the projections read-only with a read-consistency interval, so
it sees what the worker writes, embeds queries with the configured embedder, and
publishes events with its own Kafka producer. It runs uvicorn on ``api_host:api_port``
(loopback by default).
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

from fastapi import FastAPI

from projections.api import SinkUnavailable
from storage.lance_store import ProjectionStore
from storage.layout import DataLayout
from streams.components import (
    make_archiver,
    make_embedder,
    make_lifecycle,
    make_model,
    make_searcher,
)
from streams.errors import StreamsError
from streams.publisher import Publisher
from streams.settings import Settings
from streams.topics import MESSAGES, end_offsets, read_epoch

__all__ = ["build_api", "serve", "start_api_process"]

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
    was down then: searches never wait for the broker."""

    def __init__(self, bootstrap: str) -> None:
        self._bootstrap = bootstrap
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
                publisher = Publisher(self._bootstrap)  # inside the server's event loop
                try:
                    await publisher.__aenter__()
                except StreamsError as exc:
                    raise SinkUnavailable(str(exc)) from None
                self._publisher = publisher
            return self._publisher

    async def stop(self) -> None:
        if self._publisher is not None:
            await self._publisher.__aexit__(None, None, None)

    async def publish(self, events: Any) -> list[str]:
        publisher = await self._connect()
        try:
            return await publisher.publish(events)
        except StreamsError as exc:
            raise SinkUnavailable(str(exc)) from None


def build_api(settings: Settings) -> FastAPI:
    """The API app for ``settings`` (store, embedder, searcher, publisher)."""
    from projections.api import create_app

    store = open_read_store(settings)
    embedder = make_embedder(settings)
    searcher = make_searcher(settings, store, embedder)
    sink = _LazyPublisher(settings.bootstrap)

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


def _serve_child(settings_json: str) -> None:
    logging.basicConfig(level="INFO", format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    serve(Settings.model_validate_json(settings_json))


def start_api_process(settings: Settings) -> multiprocessing.process.BaseProcess:
    """Start ``serve`` in a spawned child process (used by ``memstream up``)."""
    context = multiprocessing.get_context("spawn")
    process = context.Process(
        target=_serve_child, args=(settings.model_dump_json(),), name="memstream-api", daemon=True
    )
    process.start()
    return process
