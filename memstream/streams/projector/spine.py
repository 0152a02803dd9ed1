"""The projector's spine: a batch of raw log records applied to the projections and
committed with its checkpoints, lifecycle and documents events folded, vectors added,
dead letters written, session rows flushed."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from datetime import datetime

import pyarrow as pa

from memstream.projections.access import access_id, fold_accesses
from memstream.projections.archiving import (
    adopt_vectors,
    archive_id,
    is_archived,
)
from memstream.projections.derived import derived_row
from memstream.projections.documents import DocumentEvent, apply_documents, document_key
from memstream.projections.entities import MentionSeen, fold_mentions
from memstream.projections.links import link_changes
from memstream.projections.memory_state import StateChange, slot_links
from memstream.projections.served import served_records
from memstream.projections.sessions import (
    accept_consolidations,
    session_key,
)
from memstream.storage.lance.tables import (
    ACCESS,
    ARCHIVE_INDEX,
    DEAD_LETTERS,
    DOCUMENTS,
    ENTITIES,
    MEMORIES,
    SERVED,
    SESSIONS,
    VECTORS,
)
from memstream.storage.log_records import LogPosition, LogRecord
from memstream.streams.batches import (
    BatchResult,
    DeadLetter,
    PreparedBatch,
    dead_letter_batch,
    prepare_batch,
    unappliable,
)
from memstream.streams.delivery.bookkeeping import Bookkeeping
from memstream.streams.projector.archive_moves import ArchiveMoves
from memstream.streams.projector.core import (
    _HERE,
    Row,
    is_data_error,
)
from memstream.streams.projector.erasure import Erasure
from memstream.streams.projector.upkeep import Upkeep
from memstream.text.passages import passage_of

log = logging.getLogger(__name__)

__all__ = ["Projector"]


class Projector(ArchiveMoves, Erasure, Upkeep, Bookkeeping):
    """Folds raw log records into a ``ProjectionStore``; its arguments are
    :class:`~memstream.streams.projector.core.ProjectorCore`'s."""

    def apply(
        self,
        records: Sequence[LogRecord],
        send_dead_letters: Callable[[list[DeadLetter]], None] | None = None,
    ) -> BatchResult:
        """Apply one batch; see the module docstring for the steps.

        ``send_dead_letters`` (publishing them to ``memory.dlq``) is called before the
        checkpoints move, so a crash never loses a dead letter (it may send one twice).
        """
        try:
            return self._apply(records, send_dead_letters)
        except Exception as exc:
            if not is_data_error(exc):
                raise  # a crash, a full disk, the store away: retried, never dead-lettered
            log.exception("a batch of %d records failed: applying them one by one", len(records))
        result = BatchResult()
        for record in records:
            try:
                one = self._apply([record], send_dead_letters)
            except Exception as exc:
                if not is_data_error(exc):
                    raise
                at = f"{record.topic}/{record.partition}/{record.offset}"
                log.exception("%s cannot be applied: dead-lettered", at)
                one = self.commit(dead_letter_batch(record, unappliable(exc)), send_dead_letters)
            result.applied += one.applied
            result.skipped += one.skipped
            result.dead_letters += one.dead_letters
            for kind, count in one.types.items():
                result.types[kind] = result.types.get(kind, 0) + count
        return result

    def _apply(
        self,
        records: Sequence[LogRecord],
        send_dead_letters: Callable[[list[DeadLetter]], None] | None,
    ) -> BatchResult:
        def prepare() -> PreparedBatch:
            return prepare_batch(
                records,
                self._checkpoints,
                keep_valid_records=self._archive is not None,
                vector_dimension=self.store.vector_dimension,
                keys=self.keys,
                vector_model=self.vector_model,
            )

        prepared = prepare()
        with self._writing:
            if self.keys is not None and prepared.keys_generation != self.keys.generation:
                prepared = prepare()  # a user was erased meanwhile: open the records again
            return self._commit(prepared, send_dead_letters)

    def commit(
        self,
        prepared: PreparedBatch,
        send_dead_letters: Callable[[list[DeadLetter]], None] | None = None,
    ) -> BatchResult:
        """Store a prepared batch: archive, dead letters, rows, then checkpoints."""
        with self._writing:
            return self._commit(prepared, send_dead_letters)

    def _commit(
        self,
        prepared: PreparedBatch,
        send_dead_letters: Callable[[list[DeadLetter]], None] | None,
    ) -> BatchResult:
        now = self._clock()
        self._batch_partitions = frozenset(p for _, p in prepared.newest)
        self._guard()
        if self._archive is not None and prepared.valid_records:
            self._archive.write(prepared.valid_records)
        # Nothing new is begun inside another process's compaction window (its
        # compaction or erasure rewrites the tables, and may drop unreferenced files).
        self._wait_for_window()
        # Ownership again, just before the first row: archiving and the window take
        # time, and a worker frozen meanwhile (past its session) must not insert the
        # rows its successor is inserting (see TableUpkeep.drop_duplicate_keys).
        self._guard()
        self.store.insert_absent(
            DEAD_LETTERS, [_dead_letter_row(d, now) for d in prepared.dead_letters]
        )
        inserted = self._insert(prepared.rows)
        self._add_vectors(prepared.vectors)
        mentions = prepared.mentions
        if mentions and inserted < len(prepared.rows):
            mentions = self._mentions_of_new_messages(mentions)
        if mentions:
            self._fold(
                ENTITIES,
                (m.entity_id for m in mentions),
                lambda rows: fold_mentions(rows, mentions),
            )
        if prepared.accesses:
            self._fold(
                ACCESS,
                (access_id(e.user_id, i) for e, _ in prepared.accesses for i in e.memory_ids),
                lambda rows: fold_accesses(rows, prepared.accesses),
            )
        if prepared.served:
            served = served_records(prepared.served, self._clock(), self.retain_served)
            if served:
                self._guard()
                self._insert_absent(SERVED, served)
        self._apply_lifecycle(prepared)
        if prepared.documents:
            self._apply_documents(prepared.documents)
        if prepared.archive:
            self._apply_archive(prepared.archive)
        for erasure in prepared.erasures:
            self._erase(erasure)
        if send_dead_letters is not None and prepared.dead_letters:
            send_dead_letters(prepared.dead_letters)
        self._checkpoints.update(prepared.newest)
        self._unsaved_checkpoints.update(prepared.newest)
        self._batch_partitions = frozenset()
        if time.monotonic() - self._flushed_at >= self._flush_every:
            self._flush()
        return BatchResult(
            prepared.applied, prepared.skipped, prepared.dead_letters, dict(prepared.types)
        )

    def add_vectors(self, vectors: pa.Table) -> None:
        """Store ``vectors`` rows computed outside the log's order (a re-embedding)."""
        with self._writing:
            self._add_vectors(vectors)

    def _add_vectors(self, vectors: pa.Table) -> None:
        """Insert vector rows; those of memories archived meanwhile go to the archive
        index instead (where its row holds another model's vector), not to ``vectors``."""
        if not vectors.num_rows:
            return
        self._insert_absent(VECTORS, vectors)
        if self.vector_model is None or not self.store.count(ARCHIVE_INDEX):
            return
        memory_ids = vectors.column("memory_id").to_pylist()
        keys = {  # a passage's vector is its turn's: archived with it
            archive_id(u, passage_of(m)[0])
            for u, m in zip(vectors.column("user_id").to_pylist(), memory_ids, strict=True)
        }
        archived = [
            r for r in self.store.rows_by_key(ARCHIVE_INDEX, keys).values() if is_archived(r)
        ]
        if not archived:
            return
        vector_column = vectors.column("vector").to_numpy(zero_copy_only=False)
        by_memory = dict(zip(memory_ids, vector_column, strict=True))
        mine = {r["archive_id"]: r for r in archived}
        self._write_folded(
            ARCHIVE_INDEX, list(adopt_vectors(mine, by_memory, self.vector_model).values())
        )
        self._drop_hot(archived, tables=(VECTORS,))

    def _apply_lifecycle(self, prepared: PreparedBatch) -> None:
        """Sessions, derived memories, supersession, links and memory state, watermarks.

        Derived rows are inserted before the session rows record their consolidation,
        so a crash in between re-applies the consolidation (same ids) rather than
        losing it.
        """
        self._touches.extend(prepared.sessions)
        derived = list(prepared.derived)
        linked: list[StateChange] = []
        if prepared.consolidations:
            # Whether a consolidation is new depends on the session rows: write them.
            self._flush_sessions()
            keys = sorted(
                {session_key(e.user_id, e.session_id) for e, _ in prepared.consolidations}
            )
            sessions = {r["session_key"]: r for r in self.store.by_ids(SESSIONS, keys)}
            accepted, consolidated = accept_consolidations(
                sessions, [e for e, _ in prepared.consolidations]
            )
            positions = {id(e): p for e, p in prepared.consolidations}
            for event in accepted:
                derived.extend(
                    derived_row(
                        event.user_id, event.project_id, m, positions[id(event)], "consolidation"
                    )
                    for m in event.memories
                )
                linked.extend(link_changes(event))
            self._touches.extend(consolidated)
        if derived:
            self._insert_absent(MEMORIES, derived)
        states = [*prepared.states, *self._slot_links(derived), *linked]
        if states:
            self._merge_states(states)
        if prepared.consolidations:
            self._flush_sessions()  # after the derived rows: a crash re-applies, never loses
        if prepared.watermarks:
            self._advance_watermarks(prepared.watermarks)

    def _slot_links(self, derived: list[Row]) -> list[StateChange]:
        """Who supersedes whom in the slots the ``derived`` rows (just inserted) hold."""
        slots: dict[str, set[str]] = {}
        for row in derived:
            if row["slot"]:
                slots.setdefault(str(row["user_id"]), set()).add(str(row["slot"]))
        links: list[StateChange] = []
        for user_id, user_slots in sorted(slots.items()):
            links.extend(
                slot_links(user_id, self.store.queries.slot_members(user_id, sorted(user_slots)))
            )
        return links

    def _apply_documents(self, events: list[tuple[DocumentEvent, LogPosition]]) -> None:
        """Fold document events into ``documents``: the chunks of a version and their
        facts first (so a status ``indexed`` is never ahead of them; a crash in between
        applies the same ids again), then the supersession of facts in their slots and
        the retirement of replaced versions' and removed documents' memories, then the
        documents' rows."""
        keys = sorted({document_key(e.user_id, e.document_id) for e, _ in events})
        self._guard()
        self._wait_for_window()
        changes = apply_documents(self.store.rows_by_key(DOCUMENTS, keys), events)
        if changes.memories:
            self._insert(changes.memories)
        states = [*changes.states, *self._slot_links(changes.memories)]
        if states:
            self._merge_states(states)
        if changes.rows:
            self._guard()
            self._write_folded(DOCUMENTS, list(changes.rows.values()))

    def _mentions_of_new_messages(self, mentions: list[MentionSeen]) -> list[MentionSeen]:
        """The mentions of messages this record made a memory of. A message already
        stored from another record (sent again with the same event id: a retry, an
        import) mentions nothing again; a memory stored from this very record (the
        batch applied again after a crash) does, and the entities' guard counts it once."""
        ids = sorted({m.memory_id for m in mentions})
        columns = ["memory_id", "log_epoch", "log_partition", "log_offset"]
        made_at = {
            r["memory_id"]: (r["log_epoch"], r["log_partition"], r["log_offset"])
            for r in self.store.by_ids(MEMORIES, ids, columns)
        }
        return [
            m
            for m in mentions
            if made_at.get(m.memory_id, _HERE)
            in (_HERE, (m.position.log_epoch, m.position.partition, m.position.offset))
        ]


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
