"""Running memstream: the embedded broker when needed, topics, the faust worker, the API.

``run`` is what ``memstream up`` calls. It owns process-level concerns: the broker's
life, the intake journal's recovery at start, the HTTP API's child process, stopping
cleanly on a signal (drain, then stop, within a bound), and turning faust's exit into a
return value.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import socket
import threading
import time
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any, Protocol

import faust
from mode.utils.futures import maybe_cancel

from memstream.clock import system_clock
from memstream.observability import metrics, tracing
from memstream.observability.metrics import describe_process
from memstream.runtime.app import (
    build_app,
    compaction_window,
    upkeep_lease,
)
from memstream.runtime.assembly import make_cold_store, make_embedder
from memstream.runtime.exposition import MetricsServer, Readiness, bind_metrics, metrics_rule
from memstream.runtime.lanes import ProcessLane, background_lane
from memstream.settings import Settings
from memstream.storage import filters
from memstream.storage.archive.event_archive import EventArchive
from memstream.storage.claims import PartitionClaims
from memstream.storage.document_originals import DocumentOriginals
from memstream.storage.headroom import free_bytes
from memstream.storage.journal import Journal
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.lance.tables import VECTORS
from memstream.storage.layout import DataLayout
from memstream.streams.batch_consumer import EpisodeConsumer
from memstream.streams.broker import EmbeddedBroker
from memstream.streams.delivery.fencing import Fence
from memstream.streams.deployment_identity import claim_log, identity_of
from memstream.streams.journal_sweeper import JournalSweeper
from memstream.streams.projector import Projector
from memstream.streams.publisher import Publisher, headroom_of
from memstream.streams.recovery import catch_up_from_archive
from memstream.streams.sealing import data_keys_of, erasure_event, record_keys_of
from memstream.streams.topics import (
    ACCESS,
    COMMANDS,
    DEPLOYMENT,
    DLQ,
    DOCUMENTS,
    EMBEDDINGS,
    LIFECYCLE,
    MESSAGES,
    META,
    TopicSpec,
    ensure_topics,
    read_epoch,
)

__all__ = ["ApiChild", "announce_ready", "prepare_log", "ready_line", "run", "topic_specs"]

log = logging.getLogger(__name__)


#: The data (heap) each process of the documents lane (one a reader) may hold: a
#: document that would take more fails as ``too_large`` (or kills that process alone),
#: whatever its parser does.
DOCUMENT_LANE_MEMORY_BYTES = 2 * 1024**3


def topic_specs(settings: Settings) -> list[TopicSpec]:
    return [
        TopicSpec(MESSAGES, settings.messages_partitions),
        TopicSpec(EMBEDDINGS, settings.messages_partitions),
        TopicSpec(ACCESS, settings.messages_partitions),
        TopicSpec(LIFECYCLE, settings.messages_partitions),
        TopicSpec(COMMANDS, settings.messages_partitions),
        TopicSpec(DOCUMENTS, settings.messages_partitions),
        TopicSpec(DLQ, 1),
        TopicSpec(META, 1),
        TopicSpec(DEPLOYMENT, 1),
    ]


async def prepare_log(settings: Settings) -> str:
    """Create the topics if needed, check that the log serves this deployment, publish
    again the erasures a crash left unfinished (the worker then applies them), and
    return the log's epoch.

    Raises:
        ForeignDeployment: the log serves another data location or partition count.
    """
    await ensure_topics(settings.bootstrap, topic_specs(settings))
    await claim_log(settings.bootstrap, identity_of(settings))
    epoch = await read_epoch(settings.bootstrap, system_clock())
    assert epoch is not None
    pending = data_keys_of(settings).pending()
    if pending:
        async with Publisher(settings.bootstrap) as publisher:
            await publisher.publish([erasure_event(e) for e in pending])
        log.info("%d unfinished erasures published again", len(pending))
    return epoch


class _DrainingWorker(faust.Worker):
    """faust's worker, stopping the memstream way (see :func:`run`)."""

    def __init__(
        self,
        app: faust.App,
        *,
        drain: Callable[[float], Awaitable[None]],
        force: Callable[[], None],
        stop_timeout: float,
        **options: Any,
    ) -> None:
        super().__init__(app, **options)
        self.spinner = None  # no terminal escapes: memstream's output is log lines
        self._drain = drain
        self._force = force
        self._stop_timeout = stop_timeout
        self._stopping = False

    def _on_sigint(self) -> None:
        self._stop_signal(signal.SIGINT)

    def _on_sigterm(self) -> None:
        self._stop_signal(signal.SIGTERM)

    def _stop_signal(self, signum: signal.Signals) -> None:
        if self._stopping:
            log.warning("%s again: stopping at once, without draining", signum.name)
            self._force()
            os._exit(1)
        self._stopping = True
        log.info("%s: draining (at most %.0f s), then stopping", signum.name, self._stop_timeout)
        _exit_after(self._stop_timeout + _STOP_GRACE_SECONDS, self._force)
        self._signal_stop_time = self.loop.time()
        self._signal_stop_future = asyncio.ensure_future(self._drain_then_stop(), loop=self.loop)

    async def _drain_then_stop(self) -> None:
        try:
            await asyncio.wait_for(self._drain(self._stop_timeout), self._stop_timeout)
        except Exception:  # the journal keeps what was not drained
            log.exception("draining did not finish; stopping anyway")
        await self.stop()
        maybe_cancel(self._starting_fut)


#: What a stop may take beyond the drain (faust's own shutdown) before it is forced.
_STOP_GRACE_SECONDS = 15.0


def _exit_after(seconds: float, force: Callable[[], None]) -> None:
    """Exit the process after ``seconds`` whatever is still running."""

    def watchdog() -> None:
        time.sleep(seconds)
        log.error("the stop took more than %.0f s: exiting now", seconds)
        force()
        os._exit(1)

    threading.Thread(target=watchdog, name="stop-watchdog", daemon=True).start()


class ApiChild(Protocol):
    """The HTTP API in a child process, as the worker drives it while it stops."""

    def drain(self, timeout: float = 10.0) -> bool: ...

    def stop(self, timeout: float = 10.0) -> None: ...

    def kill(self) -> None: ...


def run(
    settings: Settings,
    *,
    api: Callable[[Settings], ApiChild] | None = None,
    embed: bool = True,
    metrics_socket: socket.socket | None = None,
) -> int:
    """Run the worker (and the HTTP API that ``api`` starts, if given; and the embedding
    lane, with ``embed``) until stopped; return an exit code.

    A first SIGINT or SIGTERM (to the process or its group) drains: the API stops
    taking publishes (503), the worker applies and archives what the log holds, then
    the API, the worker and the broker stop, within ``stop_timeout_seconds`` (the
    intake journal keeps anything not drained by then for the next start). A second
    signal stops at once. The worker's metrics port is served on ``metrics_socket`` (the
    caller bound it first), or bound here before anything starts.
    """
    broker = None
    api_process: ApiChild | None = None
    documents_lanes: list[ProcessLane] = []
    metrics_server: MetricsServer | None = None
    if metrics_socket is None:  # a port in use ends run here, before anything starts
        metrics_socket = bind_metrics(settings.metrics_host, settings.metrics_port)
    describe_process("worker")
    tracing.configure("worker")
    readiness = Readiness()
    if metrics_socket is not None:
        metrics_server = MetricsServer(metrics_socket, readiness, metrics_rule(settings)).start()
    settings.local_dir.mkdir(parents=True, exist_ok=True)
    if settings.embedded:
        broker = EmbeddedBroker(
            settings.broker_host, settings.broker_port, log_file=settings.log_dir / "broker.log"
        )
        broker.start()
        log.debug("embedded broker listening on %s", broker.bootstrap)

    def force() -> None:
        if api_process is not None:
            api_process.kill()
        if broker is not None:
            broker.kill()

    if broker is not None:
        broker.watch(lambda code: _broker_died(code, force))

    try:
        epoch = asyncio.run(prepare_log(settings))
        layout = DataLayout(settings.data_location)
        # Made on the embedding lane's thread, so the model's own threads share its low
        # priority (see streams.lanes).
        lane = background_lane("memstream-embedder", settings.embed_niceness)
        embedder = lane.submit(make_embedder, settings).result()
        store = ProjectionStore.at(
            layout.projections(),
            vector_dimension=embedder.dimension if embedder is not None else None,
        )
        archive = EventArchive(layout.events)
        vector_model = embedder.model if embedder is not None else None
        _warn_of_other_vectors(store, vector_model)
        catch_up_from_archive(
            store,
            archive,
            epoch,
            settings.consumer_group,
            system_clock,
            make_cold_store(settings),
            keys=record_keys_of(settings),
            vector_model=vector_model,
        )
        sweeper = _recover_journal(settings, store, epoch)
        originals = DocumentOriginals(layout.documents)
        documents_lanes = [
            ProcessLane(settings.embed_niceness, DOCUMENT_LANE_MEMORY_BYTES)
            for _ in range(settings.document_readers)
        ]
        projector = Projector(
            store,
            consumer=settings.consumer_group,
            clock=system_clock,
            archive=archive,
            flush_every_seconds=settings.checkpoint_every_seconds,
            cold_store=make_cold_store(settings),
            keys=record_keys_of(settings),
            vector_model=vector_model,
            fence=Fence(PartitionClaims(store, settings.consumer_group), system_clock),
            partitions=settings.messages_partitions,
            window=compaction_window(store),
            upkeep=upkeep_lease(store, settings),
            originals=originals,
            retain_served=settings.retain_served,
        )
        projector.look_for_keys_from_here()
        log.info("log epoch %s; projections in %s", epoch, store.uri)
        for folder in headroom_of(settings).folders:
            metrics.DISK_FREE.labels(str(folder)).set_function(partial(free_bytes, folder))
        app, episodes = build_app(
            settings,
            projector,
            epoch,
            settings.local_dir / "faust",
            embedder,
            sweeper=sweeper,
            headroom=headroom_of(settings),
            embedding_lane=lane,
            embed=embed,
            readiness=readiness,
            documents=originals,
            documents_lanes=documents_lanes,
        )
        if api is not None:
            api_process = api(settings)
        announce_ready(app, episodes, ready_line(settings, api is not None, metrics_server))

        async def drain(timeout: float) -> None:
            if api_process is not None:
                await asyncio.to_thread(api_process.drain, min(10.0, timeout))
            drained = await episodes.drain(timeout)
            log.info("drained the log" if drained else "the log was not drained in time")

        worker = _DrainingWorker(
            app,
            drain=drain,
            force=force,
            stop_timeout=settings.stop_timeout_seconds,
            loglevel=settings.log_level,
            override_logging=False,
            quiet=True,
        )
        try:
            worker.execute_from_commandline()
        except SystemExit as exit_:
            return int(exit_.code or 0)
        return 0
    finally:
        for documents_lane in documents_lanes:
            documents_lane.shutdown(wait=False)
        if api_process is not None:
            api_process.stop()
        if broker is not None:
            broker.stop()
        if metrics_server is not None:
            metrics_server.stop()
        tracing.shutdown()


def ready_line(settings: Settings, api: bool, metrics_server: MetricsServer | None) -> str:
    """The one line that says a worker is ready, and where to find it."""
    parts = []
    if api:
        url = f"http://{settings.api_host}:{settings.api_port}"
        parts.append(f"HTTP API on {url}, console on {url}/console")
    if metrics_server is not None:
        parts.append(f"metrics on {metrics_server.address}/metrics")
    parts.append(f"data in {settings.data_location.uri}")
    return "ready: " + ", ".join(parts) + " (Ctrl-C to stop)"


def announce_ready(app: faust.App, episodes: EpisodeConsumer, line: str) -> None:
    """Log ``line`` once every part of the worker has started (its consumers then join
    their groups and take their partitions: ``/readyz`` says when they have)."""

    @app.task  # type: ignore[untyped-decorator]
    async def announce() -> None:
        await episodes.started.wait()
        log.info("%s", line)


#: What ``memstream up`` exits with when its embedded broker died under it.
BROKER_DIED_EXIT = 3


def _broker_died(code: int, force: Callable[[], None]) -> None:
    """The embedded broker exited while ``up`` ran: its log (held in memory) is gone,
    so no publish or worker can go on. Say so once and exit at once, non-zero, so a
    supervisor starts ``up`` again: the intake journal holds every accepted event, and
    the next start publishes again what the new log lacks (as after a SIGKILL)."""
    how = f"was killed by signal {-code}" if code < 0 else f"exited with code {code}"
    log.error(
        "the embedded broker %s: its log is gone, so memstream up stops now (exit %d). "
        "Every accepted event is in the intake journal: start memstream up again and it "
        "publishes them again",
        how,
        BROKER_DIED_EXIT,
    )
    for handler in logging.getLogger().handlers:
        handler.flush()
    force()
    os._exit(BROKER_DIED_EXIT)


def _recover_journal(
    settings: Settings, store: ProjectionStore, epoch: str
) -> JournalSweeper | None:
    """Name the log in the intake journal and publish again what a crash left there."""
    if not settings.journaled:
        return None
    journal = Journal(settings.journal_dir).create()
    journal.set_log_epoch(epoch)
    sweeper = JournalSweeper(journal, settings.bootstrap, store, settings.consumer_group, epoch)
    report = asyncio.run(sweeper.sweep())
    log.log(
        logging.INFO if report.removed or report.republished_records else logging.DEBUG,
        "intake journal %s: %d segments applied and removed, %d records published again",
        journal.folder,
        report.removed,
        report.republished_records,
    )
    return sweeper


def _warn_of_other_vectors(store: ProjectionStore, model: str | None) -> None:
    """Say so when the store's vectors are another model's: its queries would find none."""
    if model is None or not store.count(VECTORS):
        return
    if not store.count(VECTORS, filters.equals("model", model)):
        log.warning(
            "the stored vectors are not of %s, the configured embedder's model: vector "
            "search finds nothing until `memstream reembed` (or the embedder they were made "
            "with) is used",
            model,
        )
