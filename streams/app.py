"""The faust application: the episodes consumer, the log-epoch watch and the upkeep timer.

``build_app`` wires a faust ``App`` around a :class:`~streams.projector.Projector`. The
hot topic ``memory.messages`` is read by :class:`~streams.batch_consumer.EpisodeConsumer`,
a service faust starts and stops with the app (see that module for why it is not a
per-event agent); an agent watches ``memory.meta`` and stops the worker when the log it
was started on is replaced (its offsets would mean nothing in the new one); a timer
compacts the tables, folds new rows into the indexes and merges the event archive's
small files.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import faust
from mode import Service

from projections.embedders import Embedder
from streams.batch_consumer import EpisodeConsumer
from streams.embedding_agent import add_embedder_agent
from streams.lifecycle_timer import add_lifecycle_timer
from streams.projector import BatchResult, Projector
from streams.settings import Settings
from streams.topics import META

__all__ = ["FAUST_BROKER_SETTINGS", "build_app"]

log = logging.getLogger(__name__)

#: Fast consumer-group joins on Tansu (about 3 s instead of 30 s with faust's defaults).
FAUST_BROKER_SETTINGS: dict[str, Any] = {
    "broker_rebalance_timeout": 3,
    "broker_session_timeout": 6,
    "broker_heartbeat_interval": 1,
}


def build_app(
    settings: Settings,
    projector: Projector,
    log_epoch: str,
    faust_dir: Path,
    embedder: Embedder | None = None,
) -> faust.App:
    """A faust app that folds the projected topics into ``projector``'s store and, with
    an ``embedder``, embeds new messages."""
    app = faust.App(
        settings.consumer_group,
        broker=f"kafka://{settings.bootstrap}",
        datadir=str(faust_dir),
        web_enabled=False,
        store="memory://",
        consumer_auto_offset_reset="earliest",
        topic_disable_leader=True,
        topic_allow_declare=False,
        producer_acks=-1,
        **FAUST_BROKER_SETTINGS,
    )
    indexed = asyncio.Event()

    async def index_once(result: BatchResult) -> None:
        if not indexed.is_set():
            await asyncio.to_thread(projector.store.ensure_indexes)
            indexed.set()

    episodes = EpisodeConsumer(settings, projector, log_epoch, on_applied=index_once)

    @app.service
    class Episodes(Service):
        """Starts, runs and stops the episodes consumer with the app."""

        async def on_start(self) -> None:
            await episodes.start()
            self.add_future(self._run())

        async def _run(self) -> None:
            try:
                await episodes.run()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the worker stops; a supervisor restarts it
                log.exception("the episodes consumer failed")
                await self.crash(exc)

        async def on_stop(self) -> None:
            await episodes.stop()

    if embedder is not None:
        add_embedder_agent(
            app,
            settings,
            embedder,
            lambda: datetime.now(UTC),
            earlier_turns=projector.store.session_texts,
        )

    meta = app.topic(META, key_serializer="raw", value_serializer="raw", partitions=1)

    @app.agent(meta, concurrency=1)
    async def watch_log_epoch(stream: Any) -> None:
        async for event in stream.events():
            epoch = bytes(event.value).decode("utf-8", "replace")
            if event.message.offset == 0 and epoch != log_epoch:
                log.error(
                    "the log was replaced (epoch %s, this worker runs on %s): stopping; "
                    "start the worker again to follow the new log",
                    epoch,
                    log_epoch,
                )
                await app.crash(RuntimeError(f"log epoch changed to {epoch}"))

    add_lifecycle_timer(app, settings, projector, episodes, embedder)

    @app.timer(interval=settings.optimize_every_seconds)  # type: ignore[untyped-decorator]
    async def upkeep() -> None:
        try:
            await asyncio.to_thread(projector.upkeep, settings.retain_versions)
        except Exception:  # upkeep is retried at the next tick; ingest goes on
            log.exception("upkeep failed; retrying in %.0f s", settings.optimize_every_seconds)

    return app
