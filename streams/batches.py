"""Working out what a batch of log records changes, without touching storage.

``prepare_batch`` skips records that earlier checkpoints cover, decodes the rest, and
sorts them by what they change: messages become episode rows and entity mentions,
``EmbeddingComputed`` events become vector rows, ``MemoryAccessed`` events access
updates; what does not decode becomes a dead letter. It is pure and
its result is picklable, so a replay runs it in worker processes while the parent
writes. This module imports no LanceDB (a spawned worker starts in a fraction of a
second).
"""

from __future__ import annotations

import gc
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import pyarrow as pa

from projections import episodes
from projections.codec import decode
from projections.entities import MentionSeen
from projections.errors import InvalidEvent
from projections.events import EmbeddingComputed, MemoryAccessed, MessageEvent
from projections.vectors import vectors_table
from storage.event_archive import LogRecord, records_from_table
from storage.schemas import DEFAULT_VECTOR_DIMENSION, MEMORIES_SCHEMA, Checkpoint, vectors_schema

__all__ = [
    "BatchResult",
    "Checkpoint",
    "DeadLetter",
    "PreparedBatch",
    "prepare_batch",
    "prepare_table",
    "ready",
]


@dataclass(frozen=True, slots=True)
class DeadLetter:
    """A record that could not be applied, with why."""

    record: LogRecord
    reason: str


@dataclass
class BatchResult:
    applied: int = 0
    skipped: int = 0
    dead_letters: list[DeadLetter] = field(default_factory=list)


@dataclass
class PreparedBatch:
    """What a batch will change, worked out without touching storage (picklable).

    Attributes:
        rows: the episode rows to insert if absent (dicts, or an Arrow table).
        vectors: the vector rows to insert if absent.
        mentions: the entity mentions of the messages, in log order.
        accesses: the ``MemoryAccessed`` events with their (epoch, partition, offset).
        dead_letters: the records that did not decode.
        valid_records: the records that did (kept only when they are to be archived).
        newest: the last offset seen per (topic, partition): the checkpoints to store.
        skipped: records at or below an earlier checkpoint.
        applied: events decoded.
    """

    rows: list[dict[str, object]] | pa.Table
    vectors: pa.Table
    mentions: list[MentionSeen]
    accesses: list[tuple[MemoryAccessed, tuple[str, int, int]]]
    dead_letters: list[DeadLetter]
    valid_records: list[LogRecord]
    newest: dict[tuple[str, int], Checkpoint]
    skipped: int
    applied: int


def prepare_batch(
    records: Sequence[LogRecord],
    checkpoints: Mapping[tuple[str, int], Checkpoint],
    *,
    keep_valid_records: bool = True,
    rows_as_table: bool = False,
    vector_dimension: int = DEFAULT_VECTOR_DIMENSION,
) -> PreparedBatch:
    """Skip what ``checkpoints`` cover, decode the rest and build their rows (pure)."""
    fresh = [r for r in records if not _covered(r, checkpoints)]
    dead_letters: list[DeadLetter] = []
    valid_records: list[LogRecord] = []
    logged: list[episodes.LoggedEvent] = []
    embeddings: list[EmbeddingComputed] = []
    accesses: list[tuple[MemoryAccessed, tuple[str, int, int]]] = []
    for record in fresh:
        try:
            event = decode(record.value)
        except InvalidEvent as exc:
            dead_letters.append(DeadLetter(record, str(exc)))
            continue
        if keep_valid_records:
            valid_records.append(record)
        if isinstance(event, MessageEvent):
            logged.append(episodes.LoggedEvent(event, _position(record)))
        elif isinstance(event, EmbeddingComputed):
            embeddings.append(event)
        else:
            accesses.append((event, (record.log_epoch, record.partition, record.offset)))
    newest: dict[tuple[str, int], Checkpoint] = {}
    for record in fresh:
        key = (record.topic, record.partition)
        if key not in newest or record.offset > newest[key][1]:
            newest[key] = (record.log_epoch, record.offset)
    rows, mentions = episodes.rows_and_mentions(logged)
    return PreparedBatch(
        rows=pa.Table.from_pylist(rows, schema=MEMORIES_SCHEMA) if rows_as_table else rows,
        vectors=vectors_table(embeddings, vectors_schema(vector_dimension)),
        mentions=mentions,
        accesses=accesses,
        dead_letters=dead_letters,
        valid_records=valid_records,
        newest=newest,
        skipped=len(records) - len(fresh),
        applied=len(logged) + len(embeddings) + len(accesses),
    )


def prepare_table(
    table: pa.Table, vector_dimension: int = DEFAULT_VECTOR_DIMENSION
) -> PreparedBatch:
    """``prepare_batch`` for a replay: records as an Arrow table (cheap to send to a
    worker process), no checkpoints yet, rows returned as an Arrow table.

    The cyclic garbage collector is paused for the batch: it would otherwise rescan
    the batch's tens of thousands of fresh, acyclic objects again and again (a third
    of the time). Meant for a replay's worker processes, which do nothing else.
    """
    gc.disable()
    try:
        return prepare_batch(
            records_from_table(table),
            {},
            keep_valid_records=False,
            rows_as_table=True,
            vector_dimension=vector_dimension,
        )
    finally:
        gc.enable()


def ready() -> bool:
    """Called once per worker process so that it imports this module before work arrives."""
    return True


def _covered(record: LogRecord, checkpoints: Mapping[tuple[str, int], Checkpoint]) -> bool:
    stored = checkpoints.get((record.topic, record.partition))
    return stored is not None and stored[0] == record.log_epoch and record.offset <= stored[1]


def _position(record: LogRecord) -> episodes.LogPosition:
    return episodes.LogPosition(
        log_epoch=record.log_epoch,
        topic=record.topic,
        partition=record.partition,
        offset=record.offset,
        timestamp=record.timestamp,
    )
