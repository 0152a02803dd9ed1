"""The projection consumer: every projected topic (messages, embeddings, access,
lifecycle, commands, documents) in raw batches, straight into the projector.

faust's per-event stream path (an ``Event`` object, a channel hop and an ack per record)
costs more than the whole projection here: a faust agent with an empty body tops out at
about 4,800 messages/s on a 2-core machine. The hot topic is therefore read by this
service, which faust starts and stops with the app: one aiokafka consumer in its own
consumer group, subscribed to every topic in ``PROJECTED_TOPICS``, ``getmany`` batches
handed to :class:`~memstream.streams.projector.Projector` on a worker thread while the
fetcher reads ahead, dead letters published to ``memory.dlq`` before the batch's
checkpoints are stored.

Offsets live with the rows (the projector's checkpoints), not in the consumer group: on
every assignment the consumer claims the partitions
(:mod:`memstream.streams.delivery.fencing`), reloads
the checkpoints and seeks each partition to just after them (or to the start of the
log), and it commits nothing to Kafka. A rebalance waits for the batch in flight and
writes the projector's deferred bookkeeping, so a revoked partition is never half
applied; so does going idle or stopping. The range assignor gives a worker the same
partition numbers of every projected topic: a user's events all reach one worker.

A batch whose partition another worker has claimed meanwhile (this one was frozen past
its session timeout, or missed a rebalance) is dropped: the partitions it lost are
paused until Kafka assigns them again, and the records of those it still owns are read
again.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, ConsumerRebalanceListener
from aiokafka.coordinator.assignors.range import RangePartitionAssignor
from aiokafka.errors import ConsumerStoppedError
from aiokafka.structs import TopicPartition

from memstream.observability import metrics, tracing
from memstream.observability.lag import Partition, Position
from memstream.settings import Settings
from memstream.storage.headroom import Headroom, is_disk_full
from memstream.storage.log_records import LogRecord, log_record
from memstream.streams.delivery.fencing import Fenced
from memstream.streams.fetch_wait import FetchWait
from memstream.streams.projector import BatchResult, DeadLetter, Projector
from memstream.streams.topics import DLQ, PROJECTED_TOPICS, log_ends

__all__ = ["DLQ_VALUE_LIMIT", "EpisodeConsumer", "dead_letter_headers", "dead_letter_value"]

log = logging.getLogger(__name__)

#: What one ``getmany`` answers: records by partition, in offset order.
Batches = dict[TopicPartition, list[Any]]


#: Fast consumer-group joins on Tansu (about 3 s instead of 30 s with the defaults): the
#: one place the group timeouts are written, for this consumer and faust's alike
#: (:data:`memstream.runtime.app.FAUST_BROKER_SETTINGS`). The 3 s left is Tansu's own:
#: it answers a JoinGroup after a fixed pause (``PAUSE_MS``, 3,000, in its group
#: coordinator), whatever the rebalance timeout (measured: 1 s asked, the answer 3.0 s
#: after the request), so a shorter timeout buys nothing.
REBALANCE_SECONDS, SESSION_SECONDS, HEARTBEAT_SECONDS = 3, 6, 1
GROUP_TIMEOUTS_MS: dict[str, int] = {
    "rebalance_timeout_ms": REBALANCE_SECONDS * 1000,
    "session_timeout_ms": SESSION_SECONDS * 1000,
    "heartbeat_interval_ms": HEARTBEAT_SECONDS * 1000,
}


#: How often a worker stopped by a full disk looks for free space again.
DISK_FULL_RETRY_SECONDS = 2.0


#: The largest value a dead letter carries itself (the broker takes records up to 1 MB).
DLQ_VALUE_LIMIT = 900_000


def dead_letter_value(dead: DeadLetter) -> tuple[bytes, list[tuple[str, bytes]]]:
    """The DLQ record's value and headers: the original bytes, or, past
    :data:`DLQ_VALUE_LIMIT`, a reference to them in the ``dead_letters`` table (which
    always keeps the whole value)."""
    headers = dead_letter_headers(dead)
    r = dead.record
    if len(r.value) <= DLQ_VALUE_LIMIT:
        return r.value, headers
    reference = {
        "dead_letter_id": f"{r.log_epoch}|{r.topic}|{r.partition}|{r.offset}",
        "bytes": len(r.value),
        "sha256": hashlib.sha256(r.value).hexdigest(),
        "stored_in": "the dead_letters table of the projections",
    }
    return json.dumps(reference).encode(), [*headers, ("memstream-value", b"reference")]


def dead_letter_headers(dead: DeadLetter) -> list[tuple[str, bytes]]:
    """Headers of a DLQ record: why it failed and where it came from."""
    r = dead.record
    return [
        ("memstream-reason", dead.reason.encode("utf-8")),
        ("memstream-source", f"{r.topic}/{r.partition}/{r.offset}".encode()),
        ("memstream-log-epoch", r.log_epoch.encode()),
    ]


class _SeekToCheckpoints(ConsumerRebalanceListener):  # type: ignore[misc]
    def __init__(self, service: EpisodeConsumer) -> None:
        self._service = service

    async def on_partitions_revoked(self, revoked: Sequence[TopicPartition]) -> None:
        await self._service.flush()  # after the batch in flight
        self._service.give_up(revoked)

    async def on_partitions_assigned(self, assigned: Sequence[TopicPartition]) -> None:
        await self._service.seek_to_checkpoints(assigned)


class EpisodeConsumer:
    """Reads ``memory.messages`` in batches and applies them with ``projector``.

    Args:
        settings: broker address, group name, batch size and wait.
        projector: folds the records into the projections (called on a worker thread).
        log_epoch: the life of the log the records belong to.
        on_applied: awaited after each batch that applied something.
        fetch_wait: how long fetches wait at the broker (short while records flow,
            longer when the log is quiet; :mod:`memstream.streams.fetch_wait`).
    """

    def __init__(
        self,
        settings: Settings,
        projector: Projector,
        log_epoch: str,
        on_applied: Callable[[BatchResult], Awaitable[None]] | None = None,
        headroom: Headroom | None = None,
        fetch_wait: FetchWait | None = None,
    ) -> None:
        self._settings = settings
        self._fetch_wait = fetch_wait or FetchWait()
        self._headroom = headroom
        self._projector = projector
        self._log_epoch = log_epoch
        self._on_applied = on_applied
        self.applying = asyncio.Lock()
        #: True while the last fetch came back full: more records are waiting.
        self.backlogged = False
        #: Set once the consumer is subscribed (it joins its group in the background).
        self.started = asyncio.Event()
        self._consumer: AIOKafkaConsumer | None = None
        self._producer: AIOKafkaProducer | None = None

    @property
    def group_id(self) -> str:
        return f"{self._settings.consumer_group}.episodes"

    async def start(self) -> None:
        s = self._settings
        self._producer = AIOKafkaProducer(bootstrap_servers=s.bootstrap, acks="all")
        self._consumer = AIOKafkaConsumer(
            bootstrap_servers=s.bootstrap,
            group_id=self.group_id,
            enable_auto_commit=False,
            auto_offset_reset="earliest",
            max_poll_records=s.batch_size,
            fetch_max_wait_ms=self._fetch_wait.active_ms,
            max_partition_fetch_bytes=4 << 20,
            fetch_max_bytes=32 << 20,
            partition_assignment_strategy=(RangePartitionAssignor,),
            **GROUP_TIMEOUTS_MS,
        )
        await self._producer.start()
        await self._consumer.start()
        self._consumer.subscribe(list(PROJECTED_TOPICS), listener=_SeekToCheckpoints(self))
        self.started.set()

    async def flush(self) -> None:
        """Write the projector's deferred checkpoints, sessions and watermarks (after
        the batch in flight)."""
        async with self.applying:
            if self._projector.unflushed:
                try:
                    await asyncio.to_thread(self._projector.flush)
                except Fenced as fenced:
                    self._fenced(fenced, {})

    def give_up(self, revoked: Sequence[TopicPartition]) -> None:
        """Stop writing the partitions Kafka took away."""
        fence = self._projector.fence
        if fence is not None:
            fence.give_up({tp.partition for tp in revoked})

    def _fenced(self, fenced: Fenced, batches: Batches) -> None:
        """Another worker claimed some of this worker's partitions: forget them, pause
        them until Kafka assigns them again, and read again the batch's records of the
        partitions still owned (applying is idempotent)."""
        assert self._consumer is not None
        self._projector.forget(fenced.partitions)
        paused = [tp for tp in self._consumer.assignment() if tp.partition in fenced.partitions]
        self._consumer.pause(*paused)
        for tp, messages in batches.items():
            if tp.partition not in fenced.partitions:
                self._consumer.seek(tp, messages[0].offset)
        metrics.FENCED_BATCHES.inc()
        log.warning("%s: their records here are dropped, not written", fenced)

    async def stop(self) -> None:
        if self._consumer is not None:
            await self._consumer.stop()
        async with self.applying:
            # Directly, not on a thread: the loop's executor may be shutting down.
            try:
                self._projector.flush()
            except Fenced as fenced:  # the new owner applies these partitions again
                log.warning("on stopping: %s", fenced)
            except Exception as exc:
                if not is_disk_full(exc):
                    raise
                # The next start re-applies from the older checkpoints (idempotently).
                log.error("could not write the checkpoints on stopping: %s", exc)
        if self._producer is not None:
            await self._producer.stop()

    @property
    def fetch_wait_ms(self) -> int | None:
        """How long the next fetch waits at the broker (None before the start)."""
        fetcher = getattr(self._consumer, "_fetcher", None)
        wait: int | None = getattr(fetcher, "_fetch_max_wait_ms", None)
        return wait

    def _wait_at_broker(self, wait_ms: int) -> None:
        """Have the fetches from now on wait ``wait_ms`` at the broker.

        aiokafka takes the wait only as a constructor argument; its fetcher reads its own
        copy for each request it builds (aiokafka 0.11-0.14). If a release renames it,
        the wait stays the constructor's short one: more fetches when idle, no slower
        records."""
        fetcher = getattr(self._consumer, "_fetcher", None)
        if fetcher is not None and hasattr(fetcher, "_fetch_max_wait_ms"):
            fetcher._fetch_max_wait_ms = wait_ms

    def assigned(self, topic: str) -> set[int]:
        """The partitions of ``topic`` this worker holds now."""
        if self._consumer is None:
            return set()
        return {tp.partition for tp in self._consumer.assignment() if tp.topic == topic}

    def positions(self) -> dict[Partition, Position]:
        """Where each partition this worker holds ends (as of the last fetch) and the
        next offset it applies (after its checkpoint)."""
        if self._consumer is None:
            return {}
        found: dict[Partition, Position] = {}
        for tp in self._consumer.assignment():
            end = self._consumer.highwater(tp)
            if end is None:  # not fetched yet
                continue
            applied = self._projector.resume_offset(tp.topic, tp.partition, self._log_epoch)
            found[(self.group_id, tp.topic, tp.partition)] = Position(end, applied or 0)
        return found

    async def seek_to_checkpoints(self, assigned: Sequence[TopicPartition]) -> None:
        """Seek each assigned partition to just after the checkpoint stored with the rows."""
        assert self._consumer is not None
        # Another worker may have applied these partitions since we last looked: claim
        # them first (fencing it), then read where it got to.
        # No batch is applied meanwhile: one fetched before the claim would find its
        # partitions unclaimed.
        fence = self._projector.fence
        async with self.applying:
            if fence is not None:
                await asyncio.to_thread(fence.take, {tp.partition for tp in assigned})
            await asyncio.to_thread(self._projector.reload_checkpoints)
        for tp in assigned:
            offset = self._projector.resume_offset(tp.topic, tp.partition, self._log_epoch)
            log.debug("%s/%d resumes at offset %d", tp.topic, tp.partition, offset or 0)
            self._consumer.seek(tp, offset or 0)

    async def run(self) -> None:
        """Apply batches until cancelled or stopped."""
        assert self._consumer is not None
        wait_ms = round(self._settings.batch_within_seconds * 1000)
        while True:
            try:
                batches = await self._consumer.getmany(
                    timeout_ms=wait_ms, max_records=self._settings.batch_size
                )
                batches = await self._filled(batches)
            except ConsumerStoppedError:  # the worker is shutting down
                return
            fetched = sum(len(messages) for messages in batches.values())
            self.backlogged = fetched >= self._settings.batch_size
            self._wait_at_broker(self._fetch_wait.after(fetched, time.monotonic()))
            if not batches:
                try:
                    await self.flush()  # idle: write the bookkeeping now
                except Exception as exc:
                    if not is_disk_full(exc):
                        raise
                    await self._wait_for_space({}, exc)
                continue
            async with self.applying:
                records = [
                    self._record(message) for messages in batches.values() for message in messages
                ]
                started, started_ns = time.perf_counter(), time.time_ns()
                try:
                    result = await asyncio.to_thread(
                        self._projector.apply, records, self._dead_letter_sender()
                    )
                except Fenced as fenced:
                    self._fenced(fenced, batches)
                    continue
                except Exception as exc:
                    if not is_disk_full(exc):
                        raise
                    await self._wait_for_space(batches, exc)
                    continue
            _measured(batches, result, started, started_ns)
            if result.applied and self._on_applied is not None:
                await self._on_applied(result)

    async def _filled(self, batches: Batches) -> Batches:
        """``batches`` with what arrives until they hold ``batch_size`` records or their
        oldest record was published ``batch_within_seconds`` ago.

        A write costs LanceDB about as much for ten rows as for a few hundred (each table
        written is a new version), so at a modest rate, batches of whatever arrived
        since the last one spend the cores on versions the embedder needs.
        """
        assert self._consumer is not None
        fetched = sum(len(messages) for messages in batches.values())
        if not fetched:
            return batches
        oldest = min(m.timestamp for messages in batches.values() for m in messages) / 1000
        linger = self._settings.batch_within_seconds
        while fetched < self._settings.batch_size:
            remaining = min(linger, oldest + linger - time.time())
            if remaining <= 0:
                break
            more = await self._consumer.getmany(
                timeout_ms=max(1, round(remaining * 1000)),
                max_records=self._settings.batch_size - fetched,
            )
            for tp, messages in more.items():
                batches.setdefault(tp, []).extend(messages)
                fetched += len(messages)
        owned = self._consumer.assignment()  # a rebalance meanwhile took some away
        return {tp: messages for tp, messages in batches.items() if tp in owned}

    async def _wait_for_space(
        self, batches: dict[TopicPartition, list[Any]], exc: Exception
    ) -> None:
        """A full disk stopped a batch (or the bookkeeping): read the batch again once
        there is room (applying is idempotent, so what it wrote before it failed changes
        nothing)."""
        assert self._consumer is not None
        for tp, messages in batches.items():
            self._consumer.seek(tp, messages[0].offset)
        log.error("cannot apply a batch, the disk is full: %s; retrying once space is freed", exc)
        while True:
            await asyncio.sleep(DISK_FULL_RETRY_SECONDS)
            shortage = self._headroom.shortage(needed=1) if self._headroom else None
            if shortage is None:
                break
            log.warning("still waiting for free space: %s", shortage)
        log.info("space was freed: applying again")

    async def drain(self, timeout: float) -> bool:
        """Apply everything the log holds now on this worker's partitions (the consumer
        keeps running meanwhile); True when done within ``timeout`` seconds."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        bootstrap = self._settings.bootstrap
        try:
            found = await asyncio.wait_for(log_ends(bootstrap, PROJECTED_TOPICS), timeout)
        except Exception:
            log.exception("cannot read the end of the log: stopping without draining")
            return False
        ends = {key: end for key, end in found.items() if end > 0}
        while loop.time() < deadline:
            mine = {
                (tp.topic, tp.partition)
                for tp in (self._consumer.assignment() if self._consumer else set())
            }
            if not mine:  # still joining the group: nothing applied yet
                await asyncio.sleep(0.05)
                continue
            behind = [
                at
                for at, end in ends.items()
                if at in mine
                and (self._projector.resume_offset(at[0], at[1], self._log_epoch) or 0) < end
            ]
            if not behind:
                await self.flush()
                return True
            await asyncio.sleep(0.05)
        return False

    def _record(self, message: Any) -> LogRecord:
        return log_record(
            self._log_epoch,
            message.topic,
            message.partition,
            message.offset,
            message.timestamp,
            message.key,
            message.value,
        )

    def _dead_letter_sender(self) -> Callable[[list[DeadLetter]], None]:
        """A function the projector's thread calls to publish dead letters and wait."""
        loop = asyncio.get_running_loop()

        def send(dead_letters: list[DeadLetter]) -> None:
            asyncio.run_coroutine_threadsafe(
                self._publish_dead_letters(dead_letters), loop
            ).result()

        return send

    async def _publish_dead_letters(self, dead_letters: list[DeadLetter]) -> None:
        assert self._producer is not None
        sent = []
        for dead in dead_letters:
            r = dead.record
            log.warning("dead letter %s/%d/%d: %s", r.topic, r.partition, r.offset, dead.reason)
            metrics.DEAD_LETTERS.labels(metrics.dead_letter_reason(dead.reason)).inc()
            value, headers = dead_letter_value(dead)
            sent.append(await self._producer.send(DLQ, key=r.key, value=value, headers=headers))
        await asyncio.gather(*sent)


def _measured(batches: Batches, result: BatchResult, started: float, started_ns: int) -> None:
    """Count an applied batch, and continue the traces its records carry."""
    took = time.perf_counter() - started
    metrics.APPLY_SECONDS.observe(took)
    for kind, count in result.types.items():
        metrics.APPLIED.labels(kind).inc(count)
    if result.skipped:
        metrics.SKIPPED.inc(result.skipped)
    oldest = min((m[0].timestamp for m in batches.values() if m), default=None)
    if oldest is not None and result.applied:
        metrics.SEARCHABLE_SECONDS.observe(max(0.0, time.time() - oldest / 1000))
    if tracing.enabled():
        tracing.message_spans(
            [message for messages in batches.values() for message in messages],
            started_ns,
            time.time_ns(),
        )
