"""The faust application: the episodes agent, the dead-letter topic and the upkeep timer.

``build_app`` wires a faust ``App`` around a :class:`~streams.projector.Projector`. The
agent takes records from ``memory.messages`` in batches and hands them to the projector
on a worker thread (LanceDB calls block), publishes what could not be decoded to
``memory.dlq`` with the original bytes and the reason in headers, and, on partition
assignment, seeks each partition to just after the checkpoint stored with the rows.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import faust

from storage.event_archive import LogRecord, log_record
from streams.consumer import install as install_consumer
from streams.projector import DeadLetter, Projector
from streams.settings import Settings
from streams.topics import DLQ, MESSAGES

__all__ = ["FAUST_BROKER_SETTINGS", "build_app", "dead_letter_headers"]

log = logging.getLogger(__name__)

#: Fast consumer-group joins on Tansu (about 3 s instead of 30 s with faust's defaults).
FAUST_BROKER_SETTINGS: dict[str, Any] = {
    "broker_rebalance_timeout": 3,
    "broker_session_timeout": 6,
    "broker_heartbeat_interval": 1,
}


def dead_letter_headers(dead: DeadLetter) -> dict[str, bytes]:
    """Headers of a DLQ record: why it failed and where it came from."""
    r = dead.record
    return {
        "memstream-reason": dead.reason.encode("utf-8"),
        "memstream-source": f"{r.topic}/{r.partition}/{r.offset}".encode(),
        "memstream-log-epoch": r.log_epoch.encode(),
    }


def _record(message: Any, log_epoch: str) -> LogRecord:
    # faust gives the timestamp in seconds; the log (and replay) has milliseconds.
    timestamp_ms = round(message.timestamp * 1000)
    return log_record(
        log_epoch,
        message.topic,
        message.partition,
        message.offset,
        timestamp_ms,
        message.key,
        message.value,
    )


def build_app(
    settings: Settings, projector: Projector, log_epoch: str, faust_dir: Path
) -> faust.App:
    """A faust app whose agent folds ``memory.messages`` into ``projector``'s store."""
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
    messages = app.topic(
        MESSAGES,
        key_serializer="raw",
        value_serializer="raw",
        partitions=settings.messages_partitions,
    )
    dlq = app.topic(DLQ, key_serializer="raw", value_serializer="raw", partitions=1)
    indexed = asyncio.Event()

    @app.agent(messages, concurrency=1)
    async def project_messages(stream: Any) -> None:
        async for events in stream.take_events(
            settings.batch_size, within=settings.batch_within_seconds
        ):
            records = [_record(e.message, log_epoch) for e in events]
            result = await asyncio.to_thread(projector.apply, records)
            await _publish_dead_letters(dlq, result.dead_letters)
            if not indexed.is_set() and result.applied:
                await asyncio.to_thread(projector.store.ensure_indexes)
                indexed.set()

    def resume_offset(topic: str, partition: int) -> int | None:
        if topic != MESSAGES:
            return None
        return projector.resume_offset(topic, partition, log_epoch) or 0

    install_consumer(app, resume_offset)

    @app.timer(interval=settings.optimize_every_seconds)  # type: ignore[untyped-decorator]
    async def optimize_tables() -> None:
        await asyncio.to_thread(projector.store.optimize, settings.retain_versions)

    return app


async def _publish_dead_letters(dlq: Any, dead_letters: list[DeadLetter]) -> None:
    for dead in dead_letters:
        log.warning(
            "dead letter %s/%d/%d: %s",
            dead.record.topic,
            dead.record.partition,
            dead.record.offset,
            dead.reason,
        )
        await dlq.send(
            key=dead.record.key, value=dead.record.value, headers=dead_letter_headers(dead)
        )
