"""The faust application: the episodes consumer, the log-epoch watch and the upkeep timer.

``build_app`` wires a faust ``App`` around a :class:`~memstream.streams.projector.Projector`. The
hot topic ``memory.messages`` is read by :class:`~memstream.streams.batch_consumer.EpisodeConsumer`,
a service faust starts and stops with the app (see that module for why it is not a
per-event agent); an agent watches ``memory.meta`` and stops the worker when the log it
was started on is replaced (its offsets would mean nothing in the new one); a timer
compacts the tables, folds new rows into the indexes and merges the event archive's
small files, when the disk has room for it and this worker holds the upkeep lease (one
process at a time, whichever worker takes it first). With the intake journal, a timer sweeps it
(:mod:`memstream.streams.journal_sweeper`); with an embedder, a timer embeds the memories that
have no vector while the embedder agent is idle (:mod:`memstream.jobs.embedding_backfill`).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from datetime import timedelta
from functools import partial
from pathlib import Path
from typing import Any

import faust
from mode import Service

from memstream.adapters.embedders import Embedder
from memstream.clock import system_clock
from memstream.jobs.document_agent import DocumentLane, add_document_agent
from memstream.jobs.embedding_agent import add_embedder_agent
from memstream.jobs.embedding_backfill import missing_embeddings
from memstream.jobs.unread_documents import unread_submissions
from memstream.observability import metrics, tracing
from memstream.runtime.assembly import make_extractor, make_model
from memstream.runtime.exposition import Readiness
from memstream.runtime.health_watch import add_health_watch
from memstream.runtime.lifecycle_timer import add_lifecycle_timer
from memstream.settings import Settings
from memstream.storage.claims import Lease
from memstream.storage.document_originals import DocumentOriginals
from memstream.storage.headroom import Headroom
from memstream.storage.lance.store import ProjectionStore
from memstream.streams.batch_consumer import (
    HEARTBEAT_SECONDS,
    REBALANCE_SECONDS,
    SESSION_SECONDS,
    EpisodeConsumer,
)
from memstream.streams.delivery.fencing import writer_name
from memstream.streams.journal_sweeper import JournalSweeper
from memstream.streams.projector import BatchResult, Projector
from memstream.streams.sealing import sealed_records
from memstream.streams.topics import EMBEDDINGS, MESSAGES, META

__all__ = [
    "FAUST_BROKER_SETTINGS",
    "SERVICE_LOGGER",
    "UPKEEP_LEASE_SECONDS",
    "WINDOW_LEASE_SECONDS",
    "build_app",
    "compaction_window",
    "quiet_stream_checks",
    "stream_app",
    "upkeep_lease",
]

log = logging.getLogger(__name__)

#: faust's consumer groups with the timeouts memstream's own consumer uses.
FAUST_BROKER_SETTINGS: dict[str, Any] = {
    "broker_rebalance_timeout": REBALANCE_SECONDS,
    "broker_session_timeout": SESSION_SECONDS,
    "broker_heartbeat_interval": HEARTBEAT_SECONDS,
}


#: The logger of memstream's faust services: their start and stop lines are faust's.
SERVICE_LOGGER = logging.getLogger("faust.memstream")


def quiet_stream_checks(settings: Settings) -> dict[str, Any]:
    """faust's own stall checks on the same clock as memstream's (``stall_seconds``):
    their errors about partitions without traffic are left out of the log (see
    :mod:`memstream.observability.logs`), and memstream's watch reports real stalls."""
    return {
        "stream_processing_timeout": settings.stall_seconds,
        "broker_commit_livelock_soft_timeout": settings.stall_seconds,
    }


def stream_app(group: str, settings: Settings, datadir: Path) -> faust.App:
    """A faust app of consumer group ``group`` on the deployment's broker, as every
    memstream stream process runs one: no web server, no faust tables (state lives in
    LanceDB), reading from the earliest record, topics declared by memstream only,
    every write acknowledged by all replicas, memstream's group timeouts and stall
    clock."""
    return faust.App(
        group,
        broker=f"kafka://{settings.bootstrap}",
        datadir=str(datadir),
        web_enabled=False,
        store="memory://",
        consumer_auto_offset_reset="earliest",
        topic_disable_leader=True,
        topic_allow_declare=False,
        producer_acks=-1,
        **FAUST_BROKER_SETTINGS,
        **quiet_stream_checks(settings),
    )


#: The least time between two readings of the tables' versions and fragments (a
#: manifest read per table: on S3, requests).
TABLE_SHAPES_EVERY_SECONDS = 60.0

#: How often the worker sweeps the intake journal.
JOURNAL_SWEEP_SECONDS = 5.0
#: How long the embedder agent must have been idle before the backfill runs.
EMBEDDER_IDLE_SECONDS = 10.0


def build_app(
    settings: Settings,
    projector: Projector,
    log_epoch: str,
    faust_dir: Path,
    embedder: Embedder | None = None,
    *,
    sweeper: JournalSweeper | None = None,
    headroom: Headroom | None = None,
    embedding_lane: Executor | None = None,
    embed: bool = True,
    readiness: Readiness | None = None,
    documents: DocumentOriginals | None = None,
    documents_lanes: Sequence[Executor] = (),
) -> tuple[faust.App, EpisodeConsumer]:
    """A faust app that folds the projected topics into ``projector``'s store and, with
    an ``embedder`` and ``embed``, embeds new messages (on ``embedding_lane``, default a
    thread of the loop's pool; without ``embed`` the embedder only makes the archive's
    summary vectors, and ``memstream embed`` processes embed); and its episodes
    consumer (to drain it). ``readiness`` gets the worker's checks (see
    :mod:`memstream.runtime.health_watch`). With ``documents`` (where the originals
    are), it reads submitted documents on ``documents_lanes`` (a reader each)."""
    app = stream_app(settings.consumer_group, settings, faust_dir)
    indexed = asyncio.Event()
    lease = projector.upkeep_lease or upkeep_lease(projector.store, settings)

    async def index_once(result: BatchResult) -> None:
        """Index the tables after the first batch, holding the upkeep lease (an index
        built beside another process's compaction preempts it); without the lease, the
        upkeep's holder indexes them. Indexes only speed reads up, so a failure here is
        logged and left to the upkeep timer, never the consumer's end."""
        if not indexed.is_set():
            indexed.set()
            try:
                if not await asyncio.to_thread(lease.take, time.time_ns()):
                    return  # upkeep (here or elsewhere) builds the indexes
                try:
                    await asyncio.to_thread(projector.store.upkeep.ensure_indexes)
                finally:
                    await asyncio.to_thread(lease.give_back)
            except Exception:
                log.warning(
                    "indexing after the first batch failed; upkeep retries it", exc_info=True
                )

    episodes = EpisodeConsumer(
        settings, projector, log_epoch, on_applied=index_once, headroom=headroom
    )

    @app.service
    class Episodes(Service):
        """Starts, runs and stops the episodes consumer with the app."""

        logger = SERVICE_LOGGER  # "Starting..." lines are faust's (quiet unless DEBUG)

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

    if embedder is not None and embed:
        embedder_active = add_embedder_agent(
            app,
            settings,
            embedder,
            system_clock,
            earlier_turns=projector.store.queries.session_texts,
            lane=embedding_lane,
            keys=projector.keys,
        )
        _add_embedding_backfill(
            app, settings, projector, episodes, embedder, embedder_active, embedding_lane
        )

    if documents is not None:
        add_document_agent(
            DocumentLane(
                app,
                settings,
                documents,
                system_clock,
                lanes=documents_lanes,
                keys=projector.keys,
                extractor=make_extractor(make_model(settings)),
                unread=partial(unread_submissions, projector.store),
            )
        )

    if sweeper is not None:

        @app.timer(interval=JOURNAL_SWEEP_SECONDS)  # type: ignore[untyped-decorator]
        async def sweep_journal() -> None:
            try:
                await sweeper.sweep()
            except Exception:  # the journal keeps everything; the next sweep tries again
                log.exception("sweeping the intake journal failed")

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
    add_health_watch(
        app,
        settings.bootstrap,
        readiness if readiness is not None else Readiness(),
        max_lag=settings.ready_max_lag,
        stall_seconds=settings.stall_seconds,
        episodes=episodes,
        store=projector.store,
    )

    measured = [float("-inf")]  # when the tables' shapes were last read

    @app.timer(interval=settings.optimize_every_seconds)  # type: ignore[untyped-decorator]
    async def upkeep() -> None:
        shortage = await asyncio.to_thread(_upkeep_shortage, headroom, projector)
        if shortage is not None:
            metrics.UPKEEP_RUNS.labels("skipped").inc()
            log.warning("upkeep skipped (compaction writes a copy first): %s", shortage)
            return
        try:
            if not await asyncio.to_thread(projector.upkeep_due, settings.retain_versions):
                metrics.UPKEEP_RUNS.labels("idle").inc()  # nothing changed since the last
                return
            if not await asyncio.to_thread(lease.take, time.time_ns()):
                return  # another worker (or this one's indexing or erasure) has it now
            started = time.perf_counter()
            try:
                with tracing.span("upkeep"):
                    await asyncio.to_thread(
                        projector.upkeep,
                        settings.retain_versions,
                        lambda: lease.acquire(time.time_ns()),
                    )
            finally:
                await asyncio.to_thread(lease.give_back)
            metrics.UPKEEP_SECONDS.observe(time.perf_counter() - started)
            metrics.UPKEEP_RUNS.labels("done").inc()
            if time.monotonic() - measured[0] >= TABLE_SHAPES_EVERY_SECONDS:
                measured[0] = time.monotonic()
                await asyncio.to_thread(_measure_tables, projector.store)
        except Exception:  # upkeep is retried at the next tick; ingest goes on
            metrics.UPKEEP_RUNS.labels("failed").inc()
            log.exception("upkeep failed; retrying in %.0f s", settings.optimize_every_seconds)

    return app, episodes


#: The least time an upkeep lease lasts unless renewed (it is renewed before each
#: table): what upkeep waits after its holder dies.
UPKEEP_LEASE_SECONDS = 120.0


def upkeep_lease(store: ProjectionStore, settings: Settings) -> Lease:
    """The lease that lets one process at a time compact the tables, fold rows into the
    indexes, remove old versions and merge the event archive's files: concurrent
    compactions of one table waste their rewrites and leave orphaned files
    (lance#7207)."""
    ttl = max(UPKEEP_LEASE_SECONDS, 2 * settings.optimize_every_seconds)
    return Lease(store, "upkeep", writer_name(), timedelta(seconds=ttl))


#: How long the compaction window lasts unless released (its holder died meanwhile).
WINDOW_LEASE_SECONDS = 60.0


def compaction_window(store: ProjectionStore) -> Lease:
    """The window in which one process compacts the tables whose rows are updated,
    while the other workers hold back their updates (see ``Projector.upkeep``)."""
    return Lease(store, "compaction-window", writer_name(), timedelta(seconds=WINDOW_LEASE_SECONDS))


def _measure_tables(store: ProjectionStore) -> None:
    """Each table's version and fragments, after an upkeep run."""
    for name, (latest, fragments) in store.upkeep.table_shapes().items():
        metrics.TABLE_VERSION.labels(name).set(latest)
        metrics.TABLE_FRAGMENTS.labels(name).set(fragments)


def _upkeep_shortage(headroom: Headroom | None, projector: Projector) -> str | None:
    """Why compacting now could fill the disk: it may write as much as the tables hold."""
    folder = projector.store.local_folder
    if headroom is None or folder is None:
        return None
    return headroom.shortage_for_copy_of(folder)


def _add_embedding_backfill(
    app: faust.App,
    settings: Settings,
    projector: Projector,
    episodes: EpisodeConsumer,
    embedder: Embedder,
    embedder_active: Callable[[], float],
    lane: Executor | None,
) -> None:
    """Embed memories without a vector (see :mod:`memstream.jobs.embedding_backfill`)."""
    sink = app.topic(
        EMBEDDINGS,
        key_serializer="raw",
        value_serializer="raw",
        partitions=settings.messages_partitions,
    )

    @app.timer(interval=settings.embed_backfill_every_seconds)  # type: ignore[untyped-decorator]
    async def embedding_backfill() -> None:
        if 0 not in episodes.assigned(MESSAGES) or episodes.backlogged:
            return
        if time.monotonic() - embedder_active() < EMBEDDER_IDLE_SECONDS:
            return
        store, turns = projector.store, settings.embed_context_turns
        batches = missing_embeddings(
            store, embedder, system_clock(), turns, settings.embed_batch_size
        )
        sent = 0
        try:
            loop = asyncio.get_running_loop()
            while (records := await loop.run_in_executor(lane, next, batches, None)) is not None:
                records = sealed_records(projector.keys, records)
                futures = [await sink.send(key=key, value=value) for key, value in records]
                await asyncio.gather(*futures)
                sent += len(records)
        except Exception:  # tried again at the next tick
            log.exception("embedding the memories without vectors failed")
        if sent:
            metrics.EMBEDDINGS.labels("backfill").inc(sent)
            log.info("embedded %d memories that had no vector", sent)
