"""``memstream embed``: the embedding lane as a process of its own.

Embedding is the CPU-bound lane (the MiniLM model needs about half of a 2-core machine
at 100 messages/s), so a deployment scales it apart from the workers: any number of
``memstream embed`` processes form their own consumer group (``<group>.embedder``),
Kafka spreads the partitions of ``memory.messages`` (and of the topics carrying derived
memories) over them, and each publishes ``EmbeddingComputed`` events, which the worker
owning the user's partition writes. An embedder writes no table: it reads the earlier
turns of a session it has not seen from the projections (read-only) and the data keys
to open and seal records. Workers then run with ``--no-embed``.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import timedelta

import faust

from memstream.clock import system_clock
from memstream.jobs.embedding_agent import add_embedder_agent
from memstream.observability import tracing
from memstream.observability.metrics import describe_process
from memstream.runtime.app import stream_app
from memstream.runtime.assembly import make_embedder
from memstream.runtime.exposition import MetricsServer, Readiness, bind_metrics, metrics_rule
from memstream.runtime.health_watch import add_health_watch
from memstream.runtime.lanes import background_lane
from memstream.settings import Settings
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.layout import DataLayout
from memstream.streams.deployment_identity import claim_log, identity_of
from memstream.streams.errors import StreamsError
from memstream.streams.sealing import record_keys_of
from memstream.streams.topics import ensure_topics

__all__ = ["embedder_group", "run_embedder"]

log = logging.getLogger(__name__)


def embedder_group(settings: Settings) -> str:
    """The consumer group the embedding processes share."""
    return f"{settings.consumer_group}.embedder"


async def _join_log(settings: Settings) -> None:
    """Create the topics if needed, and refuse a log of another deployment before the
    group is joined (:mod:`memstream.streams.deployment_identity`)."""
    from memstream.runtime.worker import topic_specs

    await ensure_topics(settings.bootstrap, topic_specs(settings))
    await claim_log(settings.bootstrap, identity_of(settings))


def run_embedder(settings: Settings) -> int:
    """Embed new messages and derived memories until stopped; return an exit code."""
    if settings.embedded:
        raise StreamsError(
            "memstream embed joins a running deployment: give its Kafka address with "
            "--kafka (or MEMSTREAM_KAFKA)"
        )
    metrics_socket = bind_metrics(settings.metrics_host, settings.metrics_port)  # in use: ends
    describe_process("embedder")
    tracing.configure("embedder")
    readiness = Readiness()
    metrics_server = (
        MetricsServer(metrics_socket, readiness, metrics_rule(settings)).start()
        if metrics_socket
        else None
    )
    settings.local_dir.mkdir(parents=True, exist_ok=True)
    asyncio.run(_join_log(settings))
    lane = background_lane("memstream-embedder", settings.embed_niceness)
    embedder = lane.submit(make_embedder, settings).result()
    if embedder is None:
        raise StreamsError("memstream embed needs an embedder (MEMSTREAM_EMBEDDER is none)")
    store = ProjectionStore.at(
        DataLayout(settings.data_location).projections(),
        vector_dimension=embedder.dimension,
        read_consistency_interval=timedelta(seconds=settings.api_read_consistency_seconds),
    )
    app = stream_app(embedder_group(settings), settings, settings.local_dir / "faust-embedder")
    add_embedder_agent(
        app,
        settings,
        embedder,
        system_clock,
        earlier_turns=store.queries.session_texts,
        lane=lane,
        keys=record_keys_of(settings),
    )
    add_health_watch(
        app,
        settings.bootstrap,
        readiness,
        max_lag=settings.ready_max_lag,
        stall_seconds=settings.stall_seconds,
    )
    where = f"; metrics on {metrics_server.address}/metrics" if metrics_server else ""
    log.info(
        "ready: embedding with %s in group %s%s (Ctrl-C to stop)",
        embedder.model,
        embedder_group(settings),
        where,
    )
    worker = faust.Worker(app, loglevel=settings.log_level, override_logging=False, quiet=True)
    worker.spinner = None  # no terminal escapes: memstream's output is log lines
    try:
        worker.execute_from_commandline()
    except SystemExit as exit_:
        return int(exit_.code or 0)
    finally:
        if metrics_server is not None:
            metrics_server.stop()
        tracing.shutdown()
    return 0
