"""Running memstream: the embedded broker when needed, topics, the faust worker, the API.

``run`` is what ``memstream up`` calls. It owns process-level concerns: logging, the
broker's life, the HTTP API's child process, and turning faust's exit into a return
value.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime

import faust

from storage.event_archive import EventArchive
from storage.lance_store import ProjectionStore
from storage.layout import DataLayout
from streams.app import build_app
from streams.broker import EmbeddedBroker
from streams.components import make_cold_store, make_embedder
from streams.projector import Projector
from streams.recovery import catch_up_from_archive
from streams.settings import Settings
from streams.topics import (
    ACCESS,
    COMMANDS,
    DLQ,
    EMBEDDINGS,
    LIFECYCLE,
    MESSAGES,
    META,
    TopicSpec,
    ensure_topics,
    read_epoch,
)

__all__ = ["prepare_log", "run", "topic_specs"]

log = logging.getLogger(__name__)


def topic_specs(settings: Settings) -> list[TopicSpec]:
    return [
        TopicSpec(MESSAGES, settings.messages_partitions),
        TopicSpec(EMBEDDINGS, settings.messages_partitions),
        TopicSpec(ACCESS, settings.messages_partitions),
        TopicSpec(LIFECYCLE, settings.messages_partitions),
        TopicSpec(COMMANDS, settings.messages_partitions),
        TopicSpec(DLQ, 1),
        TopicSpec(META, 1),
    ]


async def prepare_log(settings: Settings) -> str:
    """Create the topics if needed and return the log's epoch."""
    await ensure_topics(settings.bootstrap, topic_specs(settings))
    epoch = await read_epoch(settings.bootstrap, datetime.now(UTC))
    assert epoch is not None
    return epoch


def run(settings: Settings, *, api: bool = True) -> int:
    """Run the worker (and, with ``api``, the HTTP API) until interrupted; return an
    exit code."""
    broker = None
    api_process = None
    if settings.embedded:
        broker = EmbeddedBroker(
            settings.broker_host, settings.broker_port, log_file=settings.log_dir / "broker.log"
        )
        broker.start()
        log.info("embedded broker listening on %s", broker.bootstrap)
    try:
        epoch = asyncio.run(prepare_log(settings))
        layout = DataLayout(settings.data_location)
        embedder = make_embedder(settings)
        store = ProjectionStore.at(
            layout.projections(),
            vector_dimension=embedder.dimension if embedder is not None else None,
        )
        archive = EventArchive(layout.events)
        catch_up_from_archive(
            store,
            archive,
            epoch,
            settings.consumer_group,
            lambda: datetime.now(UTC),
            make_cold_store(settings),
        )
        projector = Projector(
            store,
            consumer=settings.consumer_group,
            clock=lambda: datetime.now(UTC),
            archive=archive,
            flush_every_seconds=settings.checkpoint_every_seconds,
            cold_store=make_cold_store(settings),
        )
        log.info("log epoch %s; projections in %s", epoch, store.uri)
        app = build_app(settings, projector, epoch, settings.local_dir / "faust", embedder)
        if api:
            from streams.serve import start_api_process

            api_process = start_api_process(settings)
            log.info("HTTP API on http://%s:%d", settings.api_host, settings.api_port)
        worker = faust.Worker(app, loglevel=settings.log_level, override_logging=False)
        try:
            worker.execute_from_commandline()
        except SystemExit as exit_:
            return int(exit_.code or 0)
        return 0
    finally:
        if api_process is not None and api_process.is_alive():
            api_process.terminate()
            api_process.join(timeout=10)
        if broker is not None:
            broker.stop()
