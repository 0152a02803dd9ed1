"""Serving the HTTP API: ``memstream serve`` alone, or as a child of ``memstream up``
(see :mod:`memstream.http.process`).

The API process opens the projections read-only with a read-consistency interval, so
it sees what the worker writes, embeds queries with the configured embedder, and
publishes events with its own Kafka producer (journaled with the embedded broker). It
runs uvicorn on ``api_host:api_port`` (loopback by default), on a socket bound before
anything else started (:mod:`memstream.streams.listener`), and, while it runs, says so
in the data folder's local state (:mod:`memstream.server_address`), so the command line
asks it instead of opening the store itself. Publishes are refused with
503 while memstream stops and with 507 while a disk it writes to is nearly full;
searches go on.
"""

from __future__ import annotations

import logging
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from memstream.application import BrokerSink, DrainState, Operations
from memstream.http.app import create_app
from memstream.observability import tracing
from memstream.observability.metrics import describe_process
from memstream.server_address import announced, api_url_of, new_instance
from memstream.settings import Settings

__all__ = ["build_api", "serve"]

log = logging.getLogger(__name__)


def build_api(settings: Settings, drain: DrainState | None = None) -> FastAPI:
    """The API app for ``settings``; ``drain`` is how a parent ``memstream up`` tells
    it to stop taking publishes.

    The store and the searcher (with its embedder) are opened here, so a server over a
    data folder without projections refuses to start and the first search is not slow.
    """
    describe_process("api")
    tracing.configure("api")
    sink = BrokerSink(settings, drain)
    operations = Operations(
        settings, sink=sink, read_consistency_seconds=settings.api_read_consistency_seconds
    )
    operations.parts.searcher  # noqa: B018 (opens the store and loads the embedder now)
    instance = new_instance()
    url = api_url_of(settings.api_host, settings.api_port)

    @asynccontextmanager
    async def connected(app: FastAPI) -> AsyncIterator[None]:
        await sink.start()
        with announced(settings.local_dir, url, instance):
            yield

    return create_app(operations, lifespan=connected, host=settings.api_host, instance=instance)


def serve(settings: Settings, listener: socket.socket) -> int:
    """Run the API on ``listener`` (bound to ``api_host:api_port``, see
    :mod:`memstream.streams.listener`) in the foreground until interrupted."""
    import uvicorn

    from memstream.http.wire import api_server_config

    app = build_api(settings)
    log.info(
        "ready: HTTP API on http://%s:%d (Ctrl-C to stop)", settings.api_host, settings.api_port
    )
    config = api_server_config(app, settings.api_host, settings.api_port)
    uvicorn.Server(config).run(sockets=[listener])
    return 0
