"""Reading topics from offset 0 to their end, in a process of its own.

A replay from Kafka spends much of its time parsing fetch responses; done in the
replaying process, that competes with writing. ``kafka_batches`` starts a spawned
reader process that fetches every partition up to the end offsets seen at start and
hands Arrow tables (cheap to pass between processes) through a small queue, so memory
holds a few batches, not the log. This module imports no LanceDB, so the reader starts
quickly.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import queue as queues
from collections.abc import Iterator
from typing import Any

import pyarrow as pa
from aiokafka import AIOKafkaConsumer, TopicPartition

from memstream.storage.archive.event_archive import records_table
from memstream.streams.errors import BrokerError
from memstream.streams.lifeline import start_child
from memstream.streams.topics import end_offsets

__all__ = ["kafka_batches"]

_QUEUE_DEPTH = 4


def kafka_batches(
    bootstrap: str, log_epoch: str, batch_size: int, topics: tuple[str, ...]
) -> Iterator[pa.Table]:
    """Every record of ``topics`` (one after the other) up to the end offsets seen at
    start, in order within each partition, as Arrow tables in the event archive's schema."""
    context = multiprocessing.get_context("spawn")
    channel: Any = context.Queue(maxsize=_QUEUE_DEPTH)
    reader = context.Process(
        target=_read_into,
        args=(bootstrap, log_epoch, batch_size, topics, channel, os.getpid()),
        name="memstream-log-reader",
        daemon=True,
    )
    reader.start()
    try:
        while True:
            try:
                item = channel.get(timeout=1.0)
            except queues.Empty:
                if not reader.is_alive():
                    raise BrokerError("the log reader stopped unexpectedly") from None
                continue
            if item is None:
                return
            if isinstance(item, str):
                raise BrokerError(f"reading the log from {bootstrap} failed: {item}")
            yield item
    finally:
        if reader.is_alive():
            reader.terminate()
        reader.join(timeout=10)


def _read_into(
    bootstrap: str,
    log_epoch: str,
    batch_size: int,
    topics: tuple[str, ...],
    channel: Any,
    parent_pid: int,
) -> None:
    start_child(parent_pid)
    try:
        for topic in topics:
            asyncio.run(_read_all(bootstrap, log_epoch, batch_size, topic, channel))
        channel.put(None)
    except Exception as exc:  # reported to the replaying process as text
        channel.put(f"{type(exc).__name__}: {exc}")


async def _read_all(
    bootstrap: str, log_epoch: str, batch_size: int, topic: str, channel: Any
) -> None:
    consumer = AIOKafkaConsumer(
        bootstrap_servers=bootstrap, enable_auto_commit=False, fetch_max_bytes=64 << 20
    )
    await consumer.start()
    try:
        await consumer.topics()
        partitions = sorted(consumer.partitions_for_topic(topic) or ())
        tps = [TopicPartition(topic, p) for p in partitions]
        ends = await end_offsets(bootstrap, topic)  # exact, also on Tansu
        consumer.assign(tps)
        await consumer.seek_to_beginning(*tps)
        remaining = {tp for tp in tps if ends.get(tp.partition, 0) > 0}
        while remaining:
            batch = await consumer.getmany(*remaining, timeout_ms=1000, max_records=batch_size)
            wanted = [
                m
                for tp, messages in batch.items()
                for m in messages
                if m.offset < ends[tp.partition]
            ]
            if wanted:
                table = records_table(
                    log_epoch,
                    topic,
                    [m.partition for m in wanted],
                    [m.offset for m in wanted],
                    [m.timestamp for m in wanted],
                    [m.key for m in wanted],
                    [m.value for m in wanted],
                )
                await asyncio.to_thread(channel.put, table)
            for tp in list(remaining):
                if await consumer.position(tp) >= ends[tp.partition]:
                    remaining.discard(tp)
    finally:
        await consumer.stop()
