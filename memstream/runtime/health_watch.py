"""A worker's or an embedder's view of its own health: lag, stalls, the broker, readiness.

Every :data:`SAMPLE_SECONDS` a timer on the faust app:

- reads where each partition this process holds ends and where its consumer is (the
  episodes consumer's checkpoints, faust's committed offsets for its agents) into
  ``memstream_consumer_lag_records``, and reports a partition that stands still while
  records wait, once, as a WARNING (:class:`~memstream.observability.lag.StallWatch`);
- asks the broker for its topics (a metadata request on a client of its own), so
  ``/readyz`` can say when the broker is away;
- on the worker holding partition 0, every few samples, counts the memories without a
  vector (``memstream_embedding_lag_memories``: one process counts, not every worker).

On the broker, the end of a partition is known from the consumer's last fetch (on Tansu
a lower bound, by up to one record batch: its reported end is the last batch's start).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import faust
from aiokafka import AIOKafkaConsumer

from memstream.observability import metrics
from memstream.observability.lag import Partition, Position, StallWatch, lag_of
from memstream.runtime.exposition import Readiness
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.lance.tables import CHECKPOINTS, MEMORIES, VECTORS
from memstream.streams.batch_consumer import EpisodeConsumer
from memstream.streams.topics import MESSAGES
from memstream.text.passages import OWN_VECTORS

__all__ = ["SAMPLE_SECONDS", "HealthState", "add_health_watch"]

log = logging.getLogger(__name__)

#: How often lag is sampled and the broker asked.
SAMPLE_SECONDS = 5.0
#: How long after its last answer the broker counts as away.
BROKER_SILENCE_SECONDS = 20.0
#: Memories without a vector are counted every this many samples.
EMBEDDING_LAG_EVERY = 6


@dataclass
class HealthState:
    """What the last samples found (read by ``/readyz``'s checks)."""

    lag: int | None = None
    broker_answered_at: float | None = None
    broker_problem: str = "the broker has not answered yet"
    assigned_once: bool = False
    samples: int = 0
    held: set[Partition] = field(default_factory=set)


def add_health_watch(
    app: faust.App,
    bootstrap: str,
    readiness: Readiness,
    *,
    max_lag: int,
    stall_seconds: float,
    episodes: EpisodeConsumer | None = None,
    store: ProjectionStore | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> HealthState:
    """Register the watch on ``app`` and its checks on ``readiness``."""
    state = HealthState()
    watch = StallWatch(stall_seconds)
    ping = _BrokerPing(bootstrap)
    group = str(app.conf.id)

    @app.timer(interval=SAMPLE_SECONDS)  # type: ignore[untyped-decorator]
    async def watch_health() -> None:
        now = clock()
        if await ping.answers():
            state.broker_answered_at = now
        else:
            state.broker_problem = ping.problem
        positions = episodes.positions() if episodes is not None else {}
        positions.update(_faust_positions(app, group))
        _publish_lag(positions, state)
        state.lag = lag_of(positions)
        if positions:
            state.assigned_once = True
        for stall in watch.observe(positions, now):
            log.warning("stalled: %s", stall)
        metrics.STALLED_PARTITIONS.set(watch.stalled)
        if episodes is not None:
            metrics.PARTITIONS_HELD.set(len(episodes.assigned(MESSAGES)))
        state.samples += 1
        counting = episodes is not None and 0 in episodes.assigned(MESSAGES)
        if store is not None and counting and state.samples % EMBEDDING_LAG_EVERY == 1:
            await asyncio.to_thread(_count_embedding_lag, store)

    @app.service
    class _ClosePing(faust.Service):
        logger = logging.getLogger("faust.memstream")

        async def on_stop(self) -> None:
            await ping.close()

    def broker() -> str | None:
        at = state.broker_answered_at
        if at is None or clock() - at > BROKER_SILENCE_SECONDS:
            return state.broker_problem
        return None

    def caught_up() -> str | None:
        if not state.assigned_once:
            return "has not joined its consumer group yet"
        if state.lag is not None and state.lag > max_lag:
            return (
                f"{state.lag} records wait (ready at {max_lag} or fewer: MEMSTREAM_READY_MAX_LAG)"
            )
        return None

    readiness.add("broker", broker)
    readiness.add("consumer", caught_up)
    if store is not None:
        readiness.add("store", lambda: _store_problem(store))
    return state


def _publish_lag(positions: dict[Partition, Position], state: HealthState) -> None:
    for key, position in positions.items():
        group, topic, partition = key
        metrics.CONSUMER_LAG.labels(group, topic, str(partition)).set(position.lag)
    for gone in state.held - positions.keys():  # given to another process
        group, topic, partition = gone
        with contextlib.suppress(KeyError):
            metrics.CONSUMER_LAG.remove(group, topic, str(partition))
    state.held = set(positions)


def _faust_positions(app: faust.App, group: str) -> dict[Partition, Position]:
    """The partitions faust's agents hold: where each ends and the next offset to read
    (faust's committed offset; unknown until faust has read or committed one)."""
    consumer = app.consumer
    committed = getattr(consumer, "_committed_offset", {})
    found: dict[Partition, Position] = {}
    for tp in consumer.assignment():
        end = consumer.highwater(tp)
        done = committed.get(tp)
        if end is None or done is None:
            continue
        found[(group, tp.topic, tp.partition)] = Position(end, done)
    return found


def _count_embedding_lag(store: ProjectionStore) -> None:
    try:
        waiting = store.count(MEMORIES) - store.count(VECTORS, OWN_VECTORS)
    except Exception:  # the store away: /readyz says so; the gauge keeps its value
        log.debug("counting the memories without vectors failed", exc_info=True)
        return
    metrics.EMBEDDING_LAG.set(max(0, waiting))


def _store_problem(store: ProjectionStore) -> str | None:
    try:
        store.count(CHECKPOINTS)
    except Exception as exc:
        return f"the projections cannot be read: {type(exc).__name__}: {exc}"
    return None


class _BrokerPing:
    """A group-less client asking the broker for its topics (a metadata request)."""

    def __init__(self, bootstrap: str, timeout: float = 3.0) -> None:
        self._bootstrap = bootstrap
        self._timeout = timeout
        self._client: AIOKafkaConsumer | None = None
        self.problem = "the broker has not answered yet"

    async def answers(self) -> bool:
        try:
            if self._client is None:
                self._client = AIOKafkaConsumer(
                    bootstrap_servers=self._bootstrap, enable_auto_commit=False
                )
                await asyncio.wait_for(self._client.start(), self._timeout)
            await asyncio.wait_for(self._client.topics(), self._timeout)
            return True
        except Exception as exc:
            self.problem = f"the broker at {self._bootstrap} does not answer ({exc or 'timed out'})"
            await self.close()
            return False

    async def close(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            try:
                await client.stop()
            except Exception:
                log.debug("closing the broker ping's client failed", exc_info=True)
