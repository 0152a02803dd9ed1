"""Applies batches of raw log records to the projections: the core of the worker.

One call handles one batch: skip records at or below the stored checkpoint of the same
log epoch, decode the rest, record what does not decode as dead letters (returned, and
handed to a sender for ``memory.dlq`` before the checkpoints move), archive the valid
records to Parquet, insert the episode rows if absent, and store the new checkpoints
last. A crash at any step leaves a batch that is applied again, idempotently, on
restart. The episodes consumer and ``memstream replay`` both drive this class.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from projections import episodes
from projections.codec import decode
from projections.errors import InvalidEvent
from storage.event_archive import EventArchive, LogRecord
from storage.lance_store import DEAD_LETTERS, MEMORIES, Checkpoint, ProjectionStore

__all__ = ["BatchResult", "DeadLetter", "Projector"]

log = logging.getLogger(__name__)


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


class Projector:
    """Folds raw records into a ``ProjectionStore``.

    Args:
        store: the tables to write.
        consumer: the name the checkpoints are stored under.
        archive: where valid input events are archived (None during a replay).
        clock: returns the current time (for checkpoint and dead-letter stamps).
    """

    def __init__(
        self,
        store: ProjectionStore,
        consumer: str,
        clock: Callable[[], datetime],
        archive: EventArchive | None = None,
        *,
        sole_writer_of_empty_store: bool = False,
    ) -> None:
        self.store = store
        # A replay into a new folder is the only writer: it remembers the ids it wrote
        # and appends, instead of asking the table about every key.
        self._written: set[str] | None = set() if sole_writer_of_empty_store else None
        self.consumer = consumer
        self._archive = archive
        self._clock = clock
        self._checkpoints: dict[tuple[str, int], Checkpoint] = store.load_checkpoints(consumer)

    def reload_checkpoints(self) -> None:
        """Read the checkpoints again (another worker may have advanced them)."""
        self._checkpoints = self.store.load_checkpoints(self.consumer)

    def resume_offset(self, topic: str, partition: int, log_epoch: str) -> int | None:
        """The offset to read next, or None when nothing of this log epoch is applied."""
        stored = self._checkpoints.get((topic, partition))
        if stored is None or stored[0] != log_epoch:
            return None
        return stored[1] + 1

    def apply(
        self,
        records: Sequence[LogRecord],
        send_dead_letters: Callable[[list[DeadLetter]], None] | None = None,
    ) -> BatchResult:
        """Apply one batch; see the module docstring for the steps.

        ``send_dead_letters`` (publishing them to ``memory.dlq``) is called before the
        checkpoints move, so a crash never loses a dead letter (it may send one twice).
        """
        result = BatchResult()
        fresh = [r for r in records if not self._already_applied(r)]
        result.skipped = len(records) - len(fresh)
        valid_records: list[LogRecord] = []
        logged: list[episodes.LoggedEvent] = []
        for record in fresh:
            try:
                event = decode(record.value)
            except InvalidEvent as exc:
                result.dead_letters.append(DeadLetter(record, str(exc)))
                continue
            valid_records.append(record)
            logged.append(episodes.LoggedEvent(event, _position(record)))
        now = self._clock()
        if self._archive is not None and valid_records:
            self._archive.write(valid_records)
        self.store.insert_absent(
            DEAD_LETTERS, [_dead_letter_row(d, now) for d in result.dead_letters]
        )
        self._insert(episodes.rows_to_insert(logged))
        if send_dead_letters is not None and result.dead_letters:
            send_dead_letters(result.dead_letters)
        self._advance(fresh, now)
        result.applied = len(logged)
        return result

    def _insert(self, rows: list[dict[str, object]]) -> None:
        if self._written is None:
            self.store.insert_absent(MEMORIES, rows)
            return
        new = [row for row in rows if row["memory_id"] not in self._written]
        self._written.update(str(row["memory_id"]) for row in new)
        self.store.append(MEMORIES, new)

    def _already_applied(self, record: LogRecord) -> bool:
        stored = self._checkpoints.get((record.topic, record.partition))
        return stored is not None and stored[0] == record.log_epoch and record.offset <= stored[1]

    def _advance(self, records: Sequence[LogRecord], now: datetime) -> None:
        newest: dict[tuple[str, int], Checkpoint] = {}
        for record in records:
            key = (record.topic, record.partition)
            if key not in newest or record.offset > newest[key][1]:
                newest[key] = (record.log_epoch, record.offset)
        self.store.save_checkpoints(self.consumer, newest, now)
        self._checkpoints.update(newest)


def _position(record: LogRecord) -> episodes.LogPosition:
    return episodes.LogPosition(
        log_epoch=record.log_epoch,
        topic=record.topic,
        partition=record.partition,
        offset=record.offset,
        timestamp=record.timestamp,
    )


def _dead_letter_row(dead: DeadLetter, now: datetime) -> dict[str, object]:
    r = dead.record
    return {
        "dead_letter_id": f"{r.log_epoch}|{r.topic}|{r.partition}|{r.offset}",
        "log_epoch": r.log_epoch,
        "topic": r.topic,
        "partition": r.partition,
        "offset": r.offset,
        "key": r.key,
        "value": r.value,
        "reason": dead.reason,
        "received_at": now,
    }
