"""Topic names, partition counts, creation, and the identity of the log (its epoch).

The embedded broker starts empty after a restart, so an offset stored during an earlier
life of the log means nothing in the new one. The first record of the one-partition
``memory.meta`` topic names the log's epoch: it is written once, right after the topics
are created, and read by every worker. Checkpoints carry the epoch they belong to, and a
checkpoint from another epoch is ignored.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition
from aiokafka.admin import AIOKafkaAdminClient, NewTopic
from aiokafka.errors import KafkaError, TopicAlreadyExistsError

from memstream.events.vocabulary import (
    COMMAND_TYPES,
    DOCUMENT_TYPES,
    ERASURE_TYPES,
    LIFECYCLE_TYPES,
)
from memstream.streams.errors import BrokerError

__all__ = [
    "ACCESS",
    "COMMANDS",
    "DEPLOYMENT",
    "DLQ",
    "DOCUMENTS",
    "EMBEDDINGS",
    "LIFECYCLE",
    "MESSAGES",
    "META",
    "PROJECTED_TOPICS",
    "TopicSpec",
    "append_record",
    "end_offsets",
    "ensure_topics",
    "first_record",
    "log_ends",
    "new_epoch_name",
    "read_epoch",
    "start_offsets",
    "topic_for",
]

MESSAGES = "memory.messages"
EMBEDDINGS = "memory.embeddings"
ACCESS = "memory.access"
LIFECYCLE = "memory.lifecycle"
COMMANDS = "memory.commands"
DOCUMENTS = "memory.documents"
DLQ = "memory.dlq"
META = "memory.meta"
#: Which deployment the log serves (see :mod:`memstream.streams.deployment_identity`).
DEPLOYMENT = "memory.deployment"

#: The topics the projector folds into the tables (and the event archive keeps).
PROJECTED_TOPICS = (MESSAGES, EMBEDDINGS, ACCESS, LIFECYCLE, COMMANDS, DOCUMENTS)

_TOPIC_OF_TYPE = {
    "embedding_computed": EMBEDDINGS,
    "memory_accessed": ACCESS,
    "context_served": ACCESS,
    **{t: LIFECYCLE for t in LIFECYCLE_TYPES},
    **{t: COMMANDS for t in (*COMMAND_TYPES, *ERASURE_TYPES)},
    **{t: DOCUMENTS for t in DOCUMENT_TYPES},
}


def topic_for(event_type: str) -> str:
    """The topic events of ``event_type`` are published to (messages and session ends
    share ``memory.messages``, keyed by user, so a session's end follows its turns)."""
    return _TOPIC_OF_TYPE.get(event_type, MESSAGES)


@dataclass(frozen=True)
class TopicSpec:
    name: str
    partitions: int


def new_epoch_name(now: datetime) -> str:
    """A sortable, unique name for a new life of the log."""
    return now.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ") + "-" + uuid.uuid4().hex[:8]


async def ensure_topics(bootstrap: str, specs: Sequence[TopicSpec]) -> None:
    """Create the topics that do not exist yet, with explicit partition counts."""
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=10_000)
    try:
        await admin.start()
        existing = set(await admin.list_topics())
        missing = [
            NewTopic(name=s.name, num_partitions=s.partitions, replication_factor=1)
            for s in specs
            if s.name not in existing
        ]
        if missing:
            with contextlib.suppress(TopicAlreadyExistsError):  # another process was first
                await admin.create_topics(missing)
    except KafkaError as exc:
        raise BrokerError(f"cannot create topics on {bootstrap}: {exc}") from exc
    finally:
        await admin.close()


async def _start(client: AIOKafkaConsumer | AIOKafkaProducer) -> None:
    """Start a Kafka client; one that cannot reach the broker is stopped again, so that
    nothing is left open (the caller sees the error)."""
    try:
        await client.start()
    except BaseException:
        await client.stop()
        raise


async def read_epoch(bootstrap: str, now: datetime, *, create: bool = True) -> str | None:
    """The epoch of the log at ``bootstrap``: the value of ``memory.meta`` offset 0.

    When the topic is empty and ``create`` is true, a new epoch is written first; when
    two processes race, both read back the one at offset 0.
    """
    first = await first_record(bootstrap, META)
    if first is None and create:
        await append_record(bootstrap, META, new_epoch_name(now).encode())
        first = await first_record(bootstrap, META)
    return first.decode() if first is not None else None


async def append_record(bootstrap: str, topic: str, value: bytes) -> None:
    """Write ``value`` to partition 0 of ``topic``, acknowledged by the broker."""
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, acks="all")
    await _start(producer)
    try:
        await producer.send_and_wait(topic, value, partition=0)
    finally:
        await producer.stop()


async def first_record(bootstrap: str, topic: str) -> bytes | None:
    """The value at offset 0 of partition 0 of ``topic`` (None while it is empty): what
    a one-partition topic whose first record wins holds."""
    # Tansu holds a fetch for its whole wait even when the record is there: 50 ms, not
    # the default 500, so reading the record does not take half a second.
    consumer = AIOKafkaConsumer(
        bootstrap_servers=bootstrap, enable_auto_commit=False, fetch_max_wait_ms=50
    )
    await _start(consumer)
    try:
        partition = TopicPartition(topic, 0)
        consumer.assign([partition])
        end = (await consumer.end_offsets([partition]))[partition]
        if end == 0:
            return None
        consumer.seek(partition, 0)
        batch = await consumer.getmany(partition, timeout_ms=5_000, max_records=1)
        records = batch.get(partition, [])
        value: bytes | None = records[0].value if records else None
        return value
    finally:
        await consumer.stop()


async def start_offsets(bootstrap: str, topics: Sequence[str]) -> dict[tuple[str, int], int]:
    """The earliest offset the log still holds, per (topic, partition) of ``topics``
    (above 0 where retention or deletion has trimmed it)."""
    consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False)
    await _start(consumer)
    try:
        await consumer.topics()
        tps = [
            TopicPartition(topic, p)
            for topic in topics
            for p in sorted(consumer.partitions_for_topic(topic) or ())
        ]
        if not tps:
            return {}
        starts = await asyncio.wait_for(consumer.beginning_offsets(tps), 10)
        return {(tp.topic, tp.partition): offset for tp, offset in starts.items()}
    finally:
        await consumer.stop()


async def end_offsets(bootstrap: str, topic: str) -> dict[int, int]:
    """The next offset to be written, per partition of ``topic`` (see :func:`log_ends`)."""
    found = await log_ends(bootstrap, (topic,))
    return {partition: end for (_, partition), end in found.items()}


async def log_ends(bootstrap: str, topics: Sequence[str]) -> dict[tuple[str, int], int]:
    """The next offset to be written, per (topic, partition) of ``topics``, asked over
    one connection.

    Tansu answers ListOffsets(latest) with the base offset of the last record batch plus
    one, not the offset after its last record. So the reported end is only a lower
    bound: the last batch is fetched (for all partitions at once; a fetch returns whole
    batches) and its highest offset taken. On Kafka, where the reported end is exact,
    the fetch confirms it.
    """
    consumer = AIOKafkaConsumer(
        bootstrap_servers=bootstrap, enable_auto_commit=False, fetch_max_wait_ms=50
    )
    await _start(consumer)
    try:
        if any(consumer.partitions_for_topic(topic) is None for topic in topics):
            await consumer.topics()
        tps = [
            TopicPartition(topic, p)
            for topic in topics
            for p in sorted(consumer.partitions_for_topic(topic) or ())
        ]
        if not tps:
            return {}
        consumer.assign(tps)
        reported = await asyncio.wait_for(consumer.end_offsets(tps), 10)
        ends = {(tp.topic, tp.partition): reported[tp] for tp in tps}
        pending = {tp for tp in tps if reported[tp] > 0}
        for tp in pending:
            consumer.seek(tp, reported[tp] - 1)
        deadline = asyncio.get_running_loop().time() + 10
        while pending and asyncio.get_running_loop().time() < deadline:
            batch = await consumer.getmany(*pending, timeout_ms=200)
            for tp, records in batch.items():
                if records:
                    key = (tp.topic, tp.partition)
                    ends[key] = max(ends[key], records[-1].offset + 1)
                    pending.discard(tp)
        if pending:
            names = ", ".join(sorted({tp.topic for tp in pending}))
            raise BrokerError(f"cannot read the last records of {names} on {bootstrap}")
        return ends
    finally:
        await consumer.stop()
