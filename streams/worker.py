"""Running memstream: the embedded broker when needed, topics, the faust worker.

``run`` is what ``memstream up`` calls. It owns process-level concerns: logging, the
broker's life, and turning faust's exit into a return value.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime
from pathlib import Path

import faust

from storage.event_archive import EventArchive
from storage.filesystems import resolve_location
from storage.lance_store import ProjectionStore
from storage.layout import DataLayout
from streams.app import build_app
from streams.broker import EmbeddedBroker
from streams.projector import Projector
from streams.settings import Settings
from streams.topics import DLQ, MESSAGES, META, TopicSpec, ensure_topics, read_epoch

__all__ = ["prepare_log", "run", "topic_specs"]

log = logging.getLogger(__name__)


def topic_specs(settings: Settings) -> list[TopicSpec]:
    return [
        TopicSpec(MESSAGES, settings.messages_partitions),
        TopicSpec(DLQ, 1),
        TopicSpec(META, 1),
    ]


async def prepare_log(settings: Settings) -> str:
    """Create the topics if needed and return the log's epoch."""
    await ensure_topics(settings.bootstrap, topic_specs(settings))
    epoch = await read_epoch(settings.bootstrap, datetime.now(UTC))
    assert epoch is not None
    return epoch


def run(settings: Settings) -> int:
    """Run the worker in the foreground until interrupted; return an exit code."""
    broker = None
    if settings.embedded:
        broker = EmbeddedBroker(
            settings.broker_host, settings.broker_port, log_file=settings.log_dir / "broker.log"
        )
        broker.start()
        log.info("embedded broker listening on %s", broker.bootstrap)
    try:
        epoch = asyncio.run(prepare_log(settings))
        layout = DataLayout(resolve_location(settings.data))
        store = ProjectionStore(layout.projections_uri())
        projector = Projector(
            store,
            consumer=settings.consumer_group,
            clock=lambda: datetime.now(UTC),
            archive=EventArchive(layout.events),
        )
        log.info("log epoch %s; projections in %s", epoch, store.uri)
        app = build_app(settings, projector, epoch, Path(settings.data) / "faust")
        worker = faust.Worker(app, loglevel=settings.log_level, override_logging=False)
        try:
            worker.execute_from_commandline()
        except SystemExit as exit_:
            return int(exit_.code or 0)
        return 0
    finally:
        if broker is not None:
            broker.stop()
