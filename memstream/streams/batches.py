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
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

import pyarrow as pa

from memstream.events.codec import decode
from memstream.events.errors import InvalidEvent
from memstream.events.vocabulary import (
    ConfidenceDecayed,
    ConfirmFact,
    ContextServed,
    CorrectFact,
    DocumentChunked,
    DocumentFailed,
    DocumentRemoved,
    DocumentSubmitted,
    EmbeddingComputed,
    FactsConsolidated,
    ForgetMemory,
    MemoryAccessed,
    MemoryArchived,
    MemoryExpanded,
    MemoryPruned,
    MemoryRestored,
    MessageEvent,
    ReflectionWritten,
    RememberFact,
    SessionClosed,
    SessionEnded,
    UserErased,
)
from memstream.projections import episodes
from memstream.projections.archiving import ArchiveEvent
from memstream.projections.derived import command_memory, derived_row, state_changes
from memstream.projections.documents import DocumentEvent
from memstream.projections.entities import MentionSeen
from memstream.projections.memory_state import StateChange
from memstream.projections.sessions import SessionTouch, coalesce_touches
from memstream.projections.vectors import vectors_table
from memstream.storage.archive.event_archive import records_from_table
from memstream.storage.log_records import Checkpoints, LogPosition, LogRecord
from memstream.storage.schemas import DEFAULT_VECTOR_DIMENSION, MEMORIES_SCHEMA, vectors_schema

if TYPE_CHECKING:
    from memstream.streams.sealing import RecordKeys

__all__ = [
    "BatchResult",
    "DeadLetter",
    "PreparedBatch",
    "dead_letter_batch",
    "prepare_batch",
    "prepare_table",
    "ready",
    "unappliable",
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
    #: events applied, by event type
    types: dict[str, int] = field(default_factory=dict)


@dataclass
class PreparedBatch:
    """What a batch will change, worked out without touching storage (picklable).

    Attributes:
        rows: the episode rows to insert if absent (dicts, or an Arrow table).
        vectors: the vector rows to insert if absent.
        mentions: the entity mentions of the messages, in log order.
        accesses: the ``MemoryAccessed`` events with their (epoch, partition, offset).
        derived: rows of memories written by reflections and commands (insert if absent).
        consolidations: ``FactsConsolidated`` events, applied once per closure by the
            projector (which knows how far each session was consolidated).
        sessions: what the events say about sessions (merged into their rows).
        states: what commands and decay change in ``memory_state``.
        watermarks: the newest message event time per (topic, partition).
        archive: archive, restore and expansion events, in log order.
        documents: the documents' events with their positions, in log order.
        dead_letters: the records that did not decode.
        valid_records: the records that did (kept only when they are to be archived),
            sealed as the archive keeps them.
        erasures: ``UserErased`` events, applied after everything else of the batch.
        served: ``ContextServed`` events: the answers given (inserted if absent).
        erased: records skipped because their user was erased (sealed under a
            destroyed key, or plaintext the log had before the erasure).
        keys_generation: the record keys' generation when the batch was opened (a
            batch opened before an erasure is opened again before it is written).
        newest: the last offset seen per (topic, partition): the checkpoints to store.
        skipped: records at or below an earlier checkpoint.
        applied: events decoded.
    """

    rows: list[dict[str, object]] | pa.Table
    vectors: pa.Table
    mentions: list[MentionSeen]
    accesses: list[tuple[MemoryAccessed, LogPosition]]
    derived: list[dict[str, object]]
    consolidations: list[tuple[FactsConsolidated, LogPosition]]
    sessions: list[SessionTouch]
    states: list[StateChange]
    watermarks: dict[tuple[str, int], datetime]
    archive: list[ArchiveEvent]
    dead_letters: list[DeadLetter]
    valid_records: list[LogRecord]
    newest: dict[tuple[str, int], LogPosition]
    skipped: int
    applied: int
    erasures: list[UserErased] = field(default_factory=list)
    erased: int = 0
    keys_generation: int = 0
    types: dict[str, int] = field(default_factory=dict)
    documents: list[tuple[DocumentEvent, LogPosition]] = field(default_factory=list)
    served: list[ContextServed] = field(default_factory=list)


@dataclass(frozen=True)
class _Options:
    keep_valid_records: bool = True
    rows_as_table: bool = False
    vector_dimension: int = DEFAULT_VECTOR_DIMENSION
    keys: RecordKeys | None = None
    vector_model: str | None = None


def prepare_batch(
    records: Sequence[LogRecord],
    checkpoints: Checkpoints,
    *,
    keep_valid_records: bool = True,
    rows_as_table: bool = False,
    vector_dimension: int = DEFAULT_VECTOR_DIMENSION,
    keys: RecordKeys | None = None,
    vector_model: str | None = None,
) -> PreparedBatch:
    """Skip what ``checkpoints`` cover, open (``keys``) and decode the rest and build
    their rows (pure, but for reading data keys). Vectors of another model than
    ``vector_model`` (if given) are left out.

    A record that decodes but cannot be folded (a value no rule expected) becomes a
    dead letter like one that does not decode: the rest of the batch is applied.
    Without ``keys``, a sealed record is a dead letter.
    """
    options = _Options(keep_valid_records, rows_as_table, vector_dimension, keys, vector_model)
    try:
        return _prepare(records, checkpoints, options)
    except Exception:
        return _prepare_isolating(records, checkpoints, options)


def _prepare_isolating(
    records: Sequence[LogRecord],
    checkpoints: Checkpoints,
    options: _Options,
) -> PreparedBatch:
    """Find the records no fold can take, one by one; prepare the others together."""
    good: list[LogRecord] = []
    poisoned: list[DeadLetter] = []
    for record in records:
        try:
            _prepare([record], checkpoints, options)
        except Exception as exc:
            poisoned.append(DeadLetter(record, unappliable(exc)))
        else:
            good.append(record)
    batch = _prepare(good, checkpoints, options)
    batch.dead_letters.extend(poisoned)
    for dead in poisoned:
        _advance(batch.newest, dead.record)
    return batch


def unappliable(exc: BaseException) -> str:
    """The dead-letter reason for a record whose fold raised ``exc``."""
    return f"cannot be applied: {type(exc).__name__}: {exc}"[:2000]


def dead_letter_batch(record: LogRecord, reason: str) -> PreparedBatch:
    """A batch that only dead-letters ``record`` (and moves its partition past it)."""
    batch = _prepare([], {}, _Options())
    batch.dead_letters.append(DeadLetter(record, reason))
    _advance(batch.newest, record)
    return batch


def _advance(newest: dict[tuple[str, int], LogPosition], record: LogRecord) -> None:
    key = (record.topic, record.partition)
    known = newest.get(key)
    # A replay's batch may span two lives of the log: a later life is newer at any offset.
    if known is None or (record.log_epoch, record.offset) > (known.log_epoch, known.offset):
        newest[key] = LogPosition(record.log_epoch, record.topic, record.partition, record.offset)


def _prepare(
    records: Sequence[LogRecord],
    checkpoints: Checkpoints,
    options: _Options,
) -> PreparedBatch:
    fresh = [r for r in records if not _covered(r, checkpoints)]
    dead_letters: list[DeadLetter] = []
    valid_records: list[LogRecord] = []
    logged: list[episodes.LoggedEvent] = []
    embeddings: list[EmbeddingComputed] = []
    accesses: list[tuple[MemoryAccessed, LogPosition]] = []
    served: list[ContextServed] = []
    lifecycle = _Lifecycle()
    keys = options.keys
    generation = keys.generation if keys is not None else 0
    erased = 0
    types: dict[str, int] = {}
    for record in fresh:
        try:
            opened = keys.open_naming_user(record.value) if keys else (record.value, None)
            if opened is None:
                erased += 1
                continue
            event = decode(opened[0])
            kept: LogRecord | None = record
            if keys is not None and not isinstance(event, UserErased):  # it says nothing
                kept = keys.admit(record, event.user_id, opened[1])
        except InvalidEvent as exc:
            dead_letters.append(DeadLetter(record, str(exc)))
            continue
        if kept is None:
            erased += 1
            continue
        types[event.type] = types.get(event.type, 0) + 1
        if options.keep_valid_records:
            valid_records.append(kept)
        if isinstance(event, MessageEvent):
            logged.append(episodes.LoggedEvent(event, record.position))
            lifecycle.message(event, record)
        elif isinstance(event, EmbeddingComputed):
            embeddings.append(event)
        elif isinstance(event, MemoryAccessed):
            accesses.append((event, record.position))
        elif isinstance(event, ContextServed):
            served.append(event)
        elif isinstance(event, UserErased):
            lifecycle.erasures.append(event)
        else:
            lifecycle.add(event, record.position)
    newest: dict[tuple[str, int], LogPosition] = {}
    for record in fresh:
        _advance(newest, record)
    rows, mentions = episodes.rows_and_mentions(logged)
    return PreparedBatch(
        rows=pa.Table.from_pylist(rows, schema=MEMORIES_SCHEMA) if options.rows_as_table else rows,
        vectors=vectors_table(
            embeddings, vectors_schema(options.vector_dimension), options.vector_model
        ),
        mentions=mentions,
        accesses=accesses,
        derived=lifecycle.derived,
        consolidations=lifecycle.consolidations,
        sessions=coalesce_touches(lifecycle.sessions),
        states=lifecycle.states,
        watermarks=lifecycle.watermarks,
        archive=lifecycle.archive,
        dead_letters=dead_letters,
        valid_records=valid_records,
        newest=newest,
        skipped=len(records) - len(fresh),
        applied=len(fresh) - len(dead_letters) - erased,
        erasures=lifecycle.erasures,
        erased=erased,
        keys_generation=generation,
        served=served,
        types=types,
        documents=lifecycle.documents,
    )


class _Lifecycle:
    """Sorts session, lifecycle and command events into what they change."""

    def __init__(self) -> None:
        self.derived: list[dict[str, object]] = []
        self.consolidations: list[tuple[FactsConsolidated, LogPosition]] = []
        self.sessions: list[SessionTouch] = []
        self.states: list[StateChange] = []
        self.watermarks: dict[tuple[str, int], datetime] = {}
        self.archive: list[ArchiveEvent] = []
        self.erasures: list[UserErased] = []
        self.documents: list[tuple[DocumentEvent, LogPosition]] = []

    def message(self, event: MessageEvent, record: LogRecord) -> None:
        at = event.occurred_at
        self.sessions.append(
            SessionTouch(
                event.user_id,
                event.session_id,
                project_id=event.project_id,
                first_at=at,
                last_at=at,
                log_received_at=record.timestamp,
                log_partition=record.partition,
            )
        )
        key = (record.topic, record.partition)
        if key not in self.watermarks or at > self.watermarks[key]:
            self.watermarks[key] = at

    def add(self, event: object, position: LogPosition) -> None:
        if isinstance(event, SessionEnded):
            self.sessions.append(
                SessionTouch(event.user_id, event.session_id, ended_at=event.occurred_at)
            )
        elif isinstance(event, SessionClosed):
            self.sessions.append(
                SessionTouch(
                    event.user_id,
                    event.session_id,
                    closed_through=event.through,
                    closed_reason=event.reason,
                )
            )
        elif isinstance(event, FactsConsolidated):
            self.consolidations.append((event, position))
        elif isinstance(event, ReflectionWritten):
            self.derived.append(
                derived_row(event.user_id, None, event.memory, position, "reflection")
            )
        elif isinstance(event, RememberFact | CorrectFact):
            self.derived.append(
                derived_row(
                    event.user_id, event.project_id, command_memory(event), position, "command"
                )
            )
            if isinstance(event, CorrectFact):
                self.states.extend(state_changes(event))
        elif isinstance(event, ConfirmFact | ForgetMemory | ConfidenceDecayed | MemoryPruned):
            self.states.extend(state_changes(event))
        elif isinstance(event, MemoryArchived | MemoryRestored | MemoryExpanded):
            self.archive.append(event)
        elif isinstance(
            event, DocumentSubmitted | DocumentChunked | DocumentFailed | DocumentRemoved
        ):
            self.documents.append((event, position))


def prepare_table(
    table: pa.Table,
    vector_dimension: int = DEFAULT_VECTOR_DIMENSION,
    keys: RecordKeys | None = None,
    vector_model: str | None = None,
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
            keys=keys,
            vector_model=vector_model,
        )
    finally:
        gc.enable()


def ready() -> bool:
    """Called once per worker process so that it imports this module before work arrives."""
    return True


def _covered(record: LogRecord, checkpoints: Checkpoints) -> bool:
    stored = checkpoints.get((record.topic, record.partition))
    return stored is not None and stored.covers(record.position)
