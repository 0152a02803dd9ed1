"""Rebuilding the projections from the log: from Kafka (offset 0) or from the event archive.

A replay writes a new projection generation in a folder of its own while the live one
keeps serving, through the same :class:`~streams.projector.Projector` the worker uses;
no model or LLM is called. ``switch_generation`` then makes the data folder use it.
"""

from __future__ import annotations

import asyncio
import shutil
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from aiokafka import AIOKafkaConsumer, TopicPartition

from storage.event_archive import EventArchive, LogRecord, log_record
from storage.filesystems import resolve_location
from storage.lance_store import ProjectionStore
from storage.layout import DataLayout
from streams.errors import StreamsError
from streams.projector import Projector
from streams.topics import MESSAGES, end_offsets

__all__ = ["ReplayReport", "archive_records", "kafka_records", "rebuild", "switch_generation"]

_BATCH = 20_000


@dataclass(frozen=True)
class ReplayReport:
    records: int
    applied: int
    dead_letters: int
    seconds: float
    generation: str
    projections_uri: str

    @property
    def rate(self) -> float:
        return self.records / self.seconds if self.seconds else 0.0


def archive_records(data: str) -> Iterator[LogRecord]:
    """Every record of ``data``'s event archive, in log order."""
    return EventArchive(DataLayout(resolve_location(data)).events).read(MESSAGES)


def kafka_records(bootstrap: str, log_epoch: str) -> Iterator[LogRecord]:
    """Every record of ``memory.messages`` from offset 0 to the end offsets seen at start."""
    loop = asyncio.new_event_loop()
    try:
        queue = loop.run_until_complete(_read_all(bootstrap, log_epoch))
    finally:
        loop.close()
    return iter(queue)


async def _read_all(bootstrap: str, log_epoch: str) -> list[LogRecord]:
    consumer = AIOKafkaConsumer(
        bootstrap_servers=bootstrap, enable_auto_commit=False, fetch_max_bytes=64 << 20
    )
    await consumer.start()
    try:
        partitions = sorted(consumer.partitions_for_topic(MESSAGES) or ())
        tps = [TopicPartition(MESSAGES, p) for p in partitions]
        ends = await end_offsets(bootstrap, MESSAGES)  # exact, also on Tansu
        consumer.assign(tps)
        await consumer.seek_to_beginning(*tps)
        records: list[LogRecord] = []
        remaining = {tp for tp in tps if ends.get(tp.partition, 0) > 0}
        while remaining:
            batch = await consumer.getmany(*remaining, timeout_ms=1000, max_records=_BATCH)
            records += [
                log_record(log_epoch, m.topic, m.partition, m.offset, m.timestamp, m.key, m.value)
                for tp, messages in batch.items()
                for m in messages
                if m.offset < ends[tp.partition]
            ]
            for tp in list(remaining):
                if await consumer.position(tp) >= ends[tp.partition]:
                    remaining.discard(tp)
        return records
    finally:
        await consumer.stop()


def rebuild(records: Iterable[LogRecord], into: str, consumer: str) -> ReplayReport:
    """Apply ``records`` to a new projection generation under the folder ``into``."""
    layout = DataLayout(resolve_location(into))
    if layout.current_generation() is not None:
        raise StreamsError(f"{into} already holds projections: replay into an empty folder")
    started = time.perf_counter()
    generation = layout.new_generation_name(datetime.now(UTC))
    store = ProjectionStore(layout.location.child(generation).uri)
    projector = Projector(
        store, consumer=consumer, clock=lambda: datetime.now(UTC), sole_writer_of_empty_store=True
    )
    total = applied = dead = 0
    batch: list[LogRecord] = []
    for record in records:
        batch.append(record)
        if len(batch) >= _BATCH:
            result = projector.apply(batch)
            total, applied, dead = (
                total + len(batch),
                applied + result.applied,
                dead + len(result.dead_letters),
            )
            batch = []
    if batch:
        result = projector.apply(batch)
        total, applied, dead = (
            total + len(batch),
            applied + result.applied,
            dead + len(result.dead_letters),
        )
    store.optimize(retain=timedelta(minutes=1))
    layout.switch_to(generation)
    return ReplayReport(total, applied, dead, time.perf_counter() - started, generation, store.uri)


def switch_generation(replayed: str, data: str) -> str:
    """Move the generation built in folder ``replayed`` into ``data`` and switch to it."""
    source = DataLayout(resolve_location(replayed))
    target = DataLayout(resolve_location(data))
    generation = source.current_generation()
    if generation is None:
        raise StreamsError(f"{replayed} holds no replayed projections")
    if not (source.location.is_local and target.location.is_local):
        raise StreamsError("--swap moves folders and needs a local data folder")
    shutil.move(
        str(Path(source.location.path) / generation), str(Path(target.location.path) / generation)
    )
    target.switch_to(generation)
    return generation
