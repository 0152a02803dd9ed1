"""Applies batches of raw log records to the projections: the core of the worker.

One call handles one batch: skip records at or below the stored checkpoint of the same
log epoch, decode the rest, record what does not decode as dead letters (returned, and
handed to a sender for ``memory.dlq`` before the checkpoints move), archive the valid
records to Parquet, insert the episode and vector rows if absent, fold entity mentions
and accesses into their rows (guarded by the position each row last applied), and
store the new checkpoints last. A crash at any step leaves a batch that is applied
again, idempotently, on restart. The projection consumer and ``memstream replay`` both
drive this class.

Session rows, watermarks and checkpoints are bookkeeping every batch touches: written
per batch they cost three merge-inserts on the hot path. With ``flush_every_seconds``
they are folded in memory and written together at most that often (and whenever the
consumer goes idle, a partition changes hands, or consolidations need the session
rows), session rows and watermarks before the checkpoints. Because every other write
is idempotent under re-application, a crash between two flushes only means more
records are applied again on restart.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime, timedelta
from typing import Any

import pyarrow as pa

from memstream.projections.access import access_id, fold_accesses
from memstream.projections.archiving import (
    ARCHIVED,
    ArchiveEvent,
    adopt_vectors,
    archive_id,
    fold_archive_events,
    hot_rows,
    is_archived,
    storage_ref_of,
)
from memstream.projections.clock import Clock
from memstream.projections.derived import derived_row
from memstream.projections.documents import DocumentEvent, apply_documents, document_key
from memstream.projections.entities import MentionSeen, fold_mentions
from memstream.projections.events import MemoryArchived, UserErased
from memstream.projections.memory_state import StateChange, merge_states, slot_links, state_id
from memstream.projections.passages import PASSAGE_VECTORS, passage_of
from memstream.projections.sessions import (
    SessionTouch,
    accept_consolidations,
    merge_sessions,
    session_key,
)
from memstream.storage import filters
from memstream.storage.claims import Lease
from memstream.storage.cold_store import ColdStore, ColdStoreCorrupt, StorageRef
from memstream.storage.document_originals import DocumentOriginals
from memstream.storage.event_archive import EventArchive
from memstream.storage.headroom import is_disk_full
from memstream.storage.lance_store import ProjectionStore, is_commit_conflict
from memstream.storage.lance_tables import (
    ACCESS,
    ARCHIVE_INDEX,
    DEAD_LETTERS,
    DOCUMENTS,
    ENTITIES,
    INSERT_ONLY,
    LEASES,
    MEMORIES,
    MEMORY_STATE,
    OWNER_GUARDED,
    PARTITION_OWNERS,
    SESSIONS,
    UPDATE_GUARDS,
    VECTORS,
    WATERMARKS,
)
from memstream.storage.log_records import LogPosition, LogRecord
from memstream.storage.schemas import MEMORIES_SCHEMA, vectors_schema
from memstream.streams.batches import (
    BatchResult,
    DeadLetter,
    PreparedBatch,
    dead_letter_batch,
    prepare_batch,
    unappliable,
)
from memstream.streams.fencing import Fence
from memstream.streams.partitioning import partition_of
from memstream.streams.sealing import RecordKeys

__all__ = [
    "WINDOW_GRACE_SECONDS",
    "BatchResult",
    "DeadLetter",
    "PreparedBatch",
    "Projector",
    "is_data_error",
    "prepare_batch",
]

log = logging.getLogger(__name__)

Row = dict[str, Any]

#: Tables written by claims and lease renewals, which do not wait for the compaction window.
CLAIMS_TABLES = frozenset({LEASES, PARTITION_OWNERS})
#: How long the compaction window waits, once taken, for updates already under way in
#: other workers (they check the window before each update) before compacting.
WINDOW_GRACE_SECONDS = 1.0
#: Longest a writer waits for the window to close (longer: its holder is stuck).
_WINDOW_WAIT_SECONDS = 60.0


def is_data_error(exc: BaseException) -> bool:
    """True when ``exc`` says a record's values cannot be stored (the same record would
    fail again), not that storing failed this time (I/O, a full disk, a crash)."""
    if isinstance(exc, ColdStoreCorrupt):  # an original that is not there, or not intact
        return True
    if isinstance(exc, OSError) or is_disk_full(exc):
        return False
    return isinstance(
        exc, ValueError | TypeError | KeyError | IndexError | ArithmeticError | NotImplementedError
    )


class Projector:
    """Folds raw records into a ``ProjectionStore``.

    Args:
        store: the tables to write.
        consumer: the name the checkpoints are stored under.
        archive: where valid input events are archived (None during a replay).
        clock: returns the current time (for checkpoint and dead-letter stamps).
        flush_every_seconds: how often session rows, watermarks and checkpoints are
            written (0: with every batch); see the module docstring.
        cold_store: where archived originals are (read when a memory is restored).
        keys: opens sealed records (None: a sealed record is dead-lettered); the
            erasures a batch carries forget the user's keys here.
        vector_model: the embedding model whose vectors the store holds (None: the
            first vector of each memory, whatever its model); archived memories take
            its vectors in place of another model's (:func:`adopt_vectors`).
        fence: the partitions this worker owns (:mod:`memstream.streams.fencing`), checked before
            each write; None for the only writer (a replay, a test).
        partitions: how many partitions the projected topics have (with a fence: which
            partition a user's deferred session rows belong to).
        window: the compaction window shared by the workers of a store: while another
            process holds it (compacting the tables whose rows are updated), this one
            waits before updating rows; while this one runs upkeep, it holds it.
        originals: documents' original bytes (an erasure removes the user's).
    """

    def __init__(
        self,
        store: ProjectionStore,
        consumer: str,
        clock: Clock,
        archive: EventArchive | None = None,
        *,
        sole_writer_of_empty_store: bool = False,
        flush_every_seconds: float = 0.0,
        cold_store: ColdStore | None = None,
        keys: RecordKeys | None = None,
        vector_model: str | None = None,
        fence: Fence | None = None,
        partitions: int | None = None,
        window: Lease | None = None,
        upkeep: Lease | None = None,
        originals: DocumentOriginals | None = None,
    ) -> None:
        if fence is not None and partitions is None:
            raise ValueError("a fenced projector needs the topics' partition count")
        self.store = store
        self.fence = fence
        self.window = window
        self.upkeep_lease = upkeep
        self._partitions = partitions
        #: the partitions of the batch being written
        self._batch_partitions: frozenset[int] = frozenset()
        self.keys = keys
        self.vector_model = vector_model
        # A replay into a new folder is the only writer: it remembers the ids it wrote
        # and appends, instead of asking the table about every key.
        self._written: set[str] | None = set() if sole_writer_of_empty_store else None
        self.consumer = consumer
        self._archive = archive
        self._clock = clock
        self._checkpoints: dict[tuple[str, int], LogPosition] = store.load_checkpoints(consumer)
        self._writing = threading.Lock()
        #: held while a table is compacted or an erasure rewrites tables (after
        #: ``_writing`` when both are held)
        self._compacting = threading.Lock()
        #: how often this process released the compaction window for an erasure (an
        #: upkeep waiting out its grace outside the write lock checks it after)
        self._window_releases = 0
        #: held by an erasure and by an archive run: an archive run that read a user's
        #: rows before the erasure must not write their originals after it
        self.erasing = threading.Lock()
        self._watermarks: dict[tuple[str, int], datetime] | None = None
        self._flush_every = flush_every_seconds
        self._cold = cold_store
        self._originals = originals
        self._flushed_at = time.monotonic()
        self._touches: list[SessionTouch] = []
        self._unsaved_watermarks: dict[tuple[str, int], datetime] = {}
        self._unsaved_checkpoints: dict[tuple[str, int], LogPosition] = {}
        #: compactions that lost a commit race to a writer (each leaves files behind)
        self.compactions_preempted = 0
        #: rows of a key held twice that upkeep dropped (see ``store.drop_duplicate_keys``)
        self.duplicates_dropped = 0
        #: keys upkeep found held twice in the tables whose rows are updated
        self.duplicates_found = 0

    def upkeep(self, retain: timedelta, still_mine: Callable[[], bool] | None = None) -> None:
        """Compact the tables (dropping versions older than ``retain``) and the archive;
        with ``still_mine`` (renewing the upkeep lease), stop as soon as it says False.

        LanceDB rejects a compaction preempted by a concurrent update of the same rows
        (and leaves the rewrite's files behind). ``memories``, ``vectors`` and
        ``dead_letters`` only ever get new rows, which do not conflict with compaction,
        so they are compacted and their indexes refreshed (seconds) while batches keep
        flowing. The small tables whose rows are updated are compacted together, holding
        this process's write lock and, with several workers, the compaction window: the
        other workers wait before their next update, and the compaction starts only
        :data:`WINDOW_GRACE_SECONDS` after the window was taken, so that updates already
        under way land first. This process keeps applying batches during that grace: its
        write lock is taken after it, for the compaction alone.
        """
        self.flush()
        updated = [name for name in self.store.table_names if name not in INSERT_ONLY]
        for name in [name for name in self.store.table_names if name in INSERT_ONLY]:
            if still_mine is not None and not still_mine():
                log.warning("the upkeep lease was lost: stopping upkeep before %s", name)
                return
            with self._compacting:  # never beside an erasure's rewrite
                self._optimize(name, retain)
        if still_mine is not None and not still_mine():
            return
        releases = self._window_releases
        if self.window is not None:
            if not self.window.acquire(time.time_ns()):
                log.warning("another process holds the compaction window: skipping")
                return
            # Other processes' updates already under way land first; this process's
            # own go on meanwhile (its write lock is taken only for the compaction).
            time.sleep(WINDOW_GRACE_SECONDS)
        with self._writing, self._compacting:
            if self.window is not None and self._window_releases != releases:
                # an erasure here released the window during the grace: take it again
                if not self.window.acquire(time.time_ns()):
                    log.warning("another process holds the compaction window: skipping")
                    return
                time.sleep(WINDOW_GRACE_SECONDS)
            try:
                self._check_keys()
                for name in updated:
                    self._optimize(name, retain)
            finally:
                if self.window is not None:
                    self.window.release()
        if self._archive is not None and (still_mine is None or still_mine()):
            removed = self._archive.compact()
            if removed:
                log.debug("event archive: %d small files merged", removed)

    def _check_keys(self) -> None:
        """Look for a key held twice in every keyed table (no write should make one):
        say so loudly, and keep one row of each in the insert-only tables, whose
        copies are the same row. Runs inside the compaction window."""
        for name in self.store.table_names:
            if name in INSERT_ONLY:
                dropped = self.store.drop_duplicate_keys(name)
                if dropped:
                    self.duplicates_dropped += dropped
                    log.error("%s: %d rows of keys held twice dropped (one of each kept)",
                              name, dropped)  # fmt: skip
                continue
            repeated = self.store.duplicate_keys(name)
            if repeated:
                self.duplicates_found += len(repeated)
                log.error(
                    "%s: %d keys held twice (first: %s): a write raced past the key's "
                    "conflict check",
                    name,
                    len(repeated),
                    ", ".join(repeated[:5]),
                )

    def _optimize(self, name: str, retain: timedelta) -> None:
        """Compact one table; one that lost a commit race is left to the next upkeep.

        The claims tables (leases, partition owners) are written by processes claiming
        partitions and renewing leases, which cannot wait for the compaction window (a
        rebalance would stall behind it): their compaction may lose a race to a claim,
        as expected, and is retried by the next upkeep like any other."""
        try:
            self.store.optimize_table(name, retain)
        except Exception as exc:
            if not is_commit_conflict(exc):
                raise
            if name in CLAIMS_TABLES:
                log.info("compacting %s met a claim (%s): retried at the next upkeep", name, exc)
                return
            self.compactions_preempted += 1
            log.warning("compacting %s lost a commit race (%s): the next upkeep retries", name, exc)

    def reload_checkpoints(self) -> None:
        """Read the checkpoints again (another worker may have advanced them, and its
        partitions' watermarks), after writing what is still unwritten."""
        self.flush()
        self.store.refresh()  # the rows another worker wrote for them, too
        self._checkpoints = self.store.load_checkpoints(self.consumer)
        self._watermarks = None

    @property
    def unflushed(self) -> bool:
        """True when applied batches have bookkeeping not written yet."""
        return bool(self._unsaved_checkpoints)

    def flush(self) -> None:
        """Write the deferred session rows, watermarks and checkpoints now."""
        with self._writing:
            self._flush()

    def _pending_partitions(self) -> set[int]:
        """The partitions with writes in flight: the batch's, and the deferred ones'."""
        return set(self._batch_partitions) | {p for _, p in self._unsaved_checkpoints}

    def _wait_for_window(self) -> None:
        """Wait while another process compacts the updated tables: an update beside a
        compaction preempts it, and the preempted rewrite's files stay behind as
        orphans (lance#7207)."""
        if self.window is None:
            return
        waited = time.monotonic()
        while self.window.held_by_another(time.time_ns()):
            if time.monotonic() - waited > _WINDOW_WAIT_SECONDS:
                log.warning("the compaction window is held too long: writing anyway")
                return
            time.sleep(0.05)

    def _guard(self) -> None:
        """Raise :class:`~memstream.streams.fencing.Fenced` when another worker has claimed a
        partition whose rows are about to be written."""
        if self.fence is not None:
            self.fence.check(self._pending_partitions())

    def forget(self, partitions: frozenset[int] | set[int]) -> None:
        """Drop what is held in memory for ``partitions`` (another worker owns them now):
        deferred bookkeeping, checkpoints and watermarks; the owner has its own."""
        with self._writing:
            self._forget(partitions)

    def _forget(self, partitions: frozenset[int] | set[int]) -> None:
        for positions in (self._checkpoints, self._unsaved_checkpoints):
            for at in [at for at in positions if at[1] in partitions]:
                del positions[at]
        for at in [at for at in self._unsaved_watermarks if at[1] in partitions]:
            del self._unsaved_watermarks[at]
        if self._partitions is not None:
            count = self._partitions
            self._touches = [
                t for t in self._touches if partition_of(t.user_id, count) not in partitions
            ]
        self._watermarks = None
        self._batch_partitions = frozenset()

    def _flush(self) -> None:
        if self.fence is not None:
            lost = self.fence.lost(self._pending_partitions())
            if lost:
                self._forget(lost)
        self._flush_sessions()
        if self._unsaved_watermarks or self._unsaved_checkpoints:
            self._wait_for_window()
        if self._unsaved_watermarks:
            self._guard()
            self.store.upsert(
                WATERMARKS,
                [
                    {
                        "watermark_id": f"{topic}|{partition}",
                        "topic": topic,
                        "partition": partition,
                        "event_time": at,
                    }
                    for (topic, partition), at in sorted(self._unsaved_watermarks.items())
                ],
            )
            self._unsaved_watermarks.clear()
        if self._unsaved_checkpoints:
            self._guard()
            self.store.save_checkpoints(
                self.consumer,
                self._unsaved_checkpoints,
                self._clock(),
                owner_epochs=None if self.fence is None else dict(self.fence.held),
            )
            self._unsaved_checkpoints.clear()
        self._flushed_at = time.monotonic()

    def _flush_sessions(self) -> None:
        if not self._touches:
            return
        touches = self._touches
        self._fold(
            SESSIONS,
            (session_key(t.user_id, t.session_id) for t in touches),
            lambda rows: merge_sessions(rows, touches),
        )
        self._touches = []

    def resume_offset(self, topic: str, partition: int, log_epoch: str) -> int | None:
        """The offset to read next, or None when nothing of this log epoch is applied."""
        stored = self._checkpoints.get((topic, partition))
        if stored is None or stored.log_epoch != log_epoch:
            return None
        return stored.offset + 1

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
        # rows its successor is inserting (see ProjectionStore.drop_duplicate_keys).
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
        self.store.insert_absent(VECTORS, vectors)
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

    def _hot_vectors(self, events: Sequence[ArchiveEvent]) -> dict[str, Any]:
        """The store model's vectors of the memories ``events`` archive with another
        model's vector (or none), by memory id."""
        if self.vector_model is None:
            return {}
        archived = [
            e
            for e in events
            if isinstance(e, MemoryArchived)
            and not (e.summary_vector and e.summary_model == self.vector_model)
        ]
        out: dict[str, Any] = {}
        for user_id in sorted({e.user_id for e in archived}):
            ids = sorted({e.memory_id for e in archived if e.user_id == user_id})
            where = filters.all_of(
                filters.equals("user_id", user_id), filters.equals("model", self.vector_model)
            )
            for row in self.store.by_ids(VECTORS, ids, ["memory_id", "vector"], where=where):
                out[row["memory_id"]] = row["vector"]
        return out

    def _erase(self, erasure: UserErased) -> None:
        """Drop everything of the user: the projections' rows (and their bytes in the
        files) and the cold store's originals; then the erasure is finished."""
        user_id = erasure.user_id
        self._guard()
        if self.keys is not None:
            self.keys.forget(user_id)
        self._flush()  # the deferred session rows of the user go with the rest
        with self.erasing, self._compacting, self._rewriting_alone():
            removed = self.store.erase_user(user_id)
            originals = self._cold.erase_user(user_id) if self._cold is not None else 0
            if self._originals is not None:
                originals += self._originals.erase_user(user_id)
        if self.keys is not None:
            self.keys.keys.finish(user_id)
        log.info(
            "erased a user: %d rows (%s), %d cold files and documents",
            sum(removed.values()),
            ", ".join(f"{name} {count}" for name, count in sorted(removed.items())) or "none",
            originals,
        )

    @contextmanager
    def _rewriting_alone(self) -> Iterator[None]:
        """Hold the upkeep lease and the compaction window for an erasure's rewrite of
        the tables, as upkeep does for a compaction: another process compacting or
        updating beside it would preempt one of the rewrites and leave its files
        behind. Waits for the lease at most its time to live (its holder died)."""
        if self.upkeep_lease is None:
            yield
            return
        lease = self.upkeep_lease
        waited = time.monotonic()
        taken = True
        while not lease.take(time.time_ns(), alone=False):
            if time.monotonic() - waited > lease.ttl_ns / 1e9:
                log.warning("the upkeep lease is held too long: erasing beside its holder")
                taken = False
                break
            time.sleep(0.2)
        window = self.window is not None and self.window.acquire(time.time_ns())
        if window:
            time.sleep(WINDOW_GRACE_SECONDS)  # updates already under way land first
        try:
            yield
        finally:
            if window and self.window is not None:
                self.window.release()
                self._window_releases += 1
            if taken:
                lease.give_back()

    def _apply_lifecycle(self, prepared: PreparedBatch) -> None:
        """Sessions, derived memories, supersession and memory state, watermarks.

        Derived rows are inserted before the session rows record their consolidation,
        so a crash in between re-applies the consolidation (same ids) rather than
        losing it.
        """
        self._touches.extend(prepared.sessions)
        derived = list(prepared.derived)
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
            self._touches.extend(consolidated)
        if derived:
            self.store.insert_absent(MEMORIES, derived)
        states = [*prepared.states, *self._slot_links(derived)]
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
            links.extend(slot_links(user_id, self.store.slot_members(user_id, sorted(user_slots))))
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

    def _apply_archive(self, events: list[ArchiveEvent]) -> None:
        """Fold archive events into ``archive_index``, then make the hot tables agree:
        an archived memory leaves ``memories`` and ``vectors``; a restored one comes
        back from its original. The index row is written first, so a crash in between
        re-applies the batch and finishes the move."""
        hot_vectors = self._hot_vectors(events)

        def fold(found: dict[str, Row]) -> dict[str, Row]:
            rows = fold_archive_events(found, events)
            if hot_vectors and self.vector_model is not None:
                rows.update(adopt_vectors(rows, hot_vectors, self.vector_model))
            return rows

        existing, rows = self._fold(
            ARCHIVE_INDEX, (archive_id(e.user_id, e.memory_id) for e in events), fold
        )
        if len(existing) < len(rows):  # new summaries: make sure they can be searched
            self.store.ensure_indexes([ARCHIVE_INDEX])
        self._drop_hot([r for r in rows.values() if is_archived(r)])
        restored = [
            r
            for r in rows.values()
            if not is_archived(r) and r["restored_at"] is not None and r["storage_file"]
        ]
        if restored:
            self._restore_hot(restored)

    def _drop_hot(
        self, archived: Sequence[Mapping[str, Any]], tables: Sequence[str] = (MEMORIES, VECTORS)
    ) -> None:
        """Delete the hot rows and vectors (or the rows of ``tables``) of archived
        memories, each only under its own user: an index row never removes another
        user's memory."""
        for user_id in sorted({r["user_id"] for r in archived}):
            ids = [r["memory_id"] for r in archived if r["user_id"] == user_id]
            where = filters.all_of(
                filters.is_in("memory_id", ids), filters.equals("user_id", user_id)
            )
            for name in tables:
                self.store.table(name).delete(where)
            if VECTORS in tables:
                self._drop_passages(user_id, set(ids))

    def _drop_passages(self, user_id: str, memory_ids: set[str]) -> None:
        """Delete the passages' vectors of these memories of ``user_id`` (long turns'),
        found among the user's passage rows (most turns have none: nothing is deleted)."""
        rows = self.store.scan(
            VECTORS,
            ["memory_id"],
            filters.all_of(filters.equals("user_id", user_id), PASSAGE_VECTORS),
        )
        doomed = [m for m in rows.column("memory_id").to_pylist() if passage_of(m)[0] in memory_ids]
        if doomed:
            self.store.table(VECTORS).delete(
                filters.all_of(
                    filters.is_in("memory_id", doomed), filters.equals("user_id", user_id)
                )
            )

    def _restore_hot(self, rows: list[dict[str, object]]) -> None:
        if self._cold is None:
            raise RuntimeError("restoring archived memories needs the cold store")
        present = {
            r["memory_id"]
            for r in self.store.by_ids(MEMORIES, [str(r["memory_id"]) for r in rows], ["memory_id"])
        }
        originals = self._cold.read_many(
            [StorageRef.parse(storage_ref_of(r)) for r in rows if r["memory_id"] not in present]
        )
        owners = {(str(r["memory_id"]), str(r["user_id"])) for r in rows}
        restored = [
            hot_rows(o, MEMORIES_SCHEMA.names)
            for o in originals
            if (o["memory_id"], o["user_id"]) in owners  # never another user's original
        ]
        if restored:
            self.store.insert_absent(MEMORIES, [memory for memory, _ in restored])
        vectors = [  # another model's vector is left for the embedder to make again
            v
            for _, v in restored
            if v is not None
            and len(v["vector"]) == self.store.vector_dimension
            and (self.vector_model is None or v["model"] == self.vector_model)
        ]
        if vectors:
            schema = vectors_schema(self.store.vector_dimension)
            self.store.insert_absent(VECTORS, pa.Table.from_pylist(vectors, schema=schema))

    def reconcile_archive(self) -> int:
        """Remove from the hot tables every memory the archive index says is archived
        (a replay may apply a memory's archiving before the message that created it);
        returns how many memories were archived."""
        with self._writing:
            archived = self.store.scan(
                ARCHIVE_INDEX, ["memory_id", "user_id"], ARCHIVED
            ).to_pylist()
            self._drop_hot(archived)
            return len(archived)

    def _merge_states(self, changes: list[StateChange]) -> None:
        self._fold(
            MEMORY_STATE,
            (state_id(c.user_id, c.memory_id) for c in changes),
            lambda rows: merge_states(rows, changes),
        )

    def _fold(
        self, table: str, keys: Iterable[str], fold: Callable[[dict[str, Row]], Mapping[str, Row]]
    ) -> tuple[dict[str, Row], Mapping[str, Row]]:
        """The one read-fold-upsert step of every folded table: read the rows ``keys``
        name, ``fold`` them (a pure function answering the rows it changed, by key), write
        those back (tables with a guard only over an older state; see
        :data:`~memstream.storage.lance_tables.UPDATE_GUARDS`). Answers the rows read and the rows
        written."""
        # Tables guarded by log position refuse an older state themselves; the others
        # (the owner's epoch guards them against a write begun before a freeze) are
        # checked first too, so a worker that knows it lost a partition writes nothing.
        if table not in UPDATE_GUARDS or table in OWNER_GUARDED:
            self._guard()
        self._wait_for_window()
        existing = self.store.rows_by_key(table, keys)
        changed = fold(existing)
        self._write_folded(table, list(changed.values()))
        return existing, changed

    def _write_folded(self, table: str, rows: list[Row]) -> None:
        """Write rows folded from what was read of ``table``, under its guard.

        In the tables folded from several topics (:data:`OWNER_GUARDED`) each row carries
        this worker's claim on its partition. A worker that froze between its read and
        this write, while another claimed the partition and wrote the row, would put an
        older fold back over the newer one; the store refuses it instead, and the check
        that follows stops the batch as fenced (the new owner applies it again).
        """
        fence = self.fence if table in OWNER_GUARDED else None
        if fence is not None:
            rows = [self._stamped(row, fence) for row in rows]
        written = self.store.upsert(table, rows, guarded=table in UPDATE_GUARDS)
        if fence is not None and written < len(rows):
            fence.check({self._partition_of(str(row["user_id"])) for row in rows})
            log.warning("%s: %d rows refused, yet no partition moved", table, len(rows) - written)

    def _partition_of(self, user_id: str) -> int:
        assert self._partitions is not None  # a fenced projector knows its partition count
        return partition_of(user_id, self._partitions)

    def _stamped(self, row: Row, fence: Fence) -> Row:
        """``row`` marked with this worker's claim on its partition (see ``_write_folded``)."""
        partition = self._partition_of(str(row["user_id"]))
        return {
            **row,
            "owner_claim": f"{self.consumer}|{partition}",
            "owner_epoch": fence.held.get(partition),
        }

    def _advance_watermarks(self, newest: dict[tuple[str, int], datetime]) -> None:
        """Note the partitions whose event time moved forward (written at the next
        flush). The stored watermarks are read once: a partition is written by the
        worker holding it, and a rebalance reloads them (``reload_checkpoints``)."""
        if self._watermarks is None:
            self._watermarks = {
                (r["topic"], r["partition"]): r["event_time"]
                for r in self.store.scan(WATERMARKS).to_pylist()
            }
        for key, at in newest.items():
            before = self._watermarks.get(key)
            if before is None or at > before:
                self._watermarks[key] = at
                self._unsaved_watermarks[key] = at

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

    def _insert(self, rows: list[dict[str, object]] | pa.Table) -> int:
        """Insert the memories not stored yet; answers how many were."""
        if self._written is None:
            return self.store.insert_absent(MEMORIES, rows)
        table = (
            rows
            if isinstance(rows, pa.Table)
            else pa.Table.from_pylist(rows, schema=MEMORIES_SCHEMA)
        )
        ids = table.column("memory_id").to_pylist()
        keep = [i for i, memory_id in enumerate(ids) if memory_id not in self._written]
        self._written.update(ids)
        if len(keep) < len(ids):
            table = table.take(pa.array(keep, type=pa.int64()))
        self.store.append(MEMORIES, table)
        return len(keep)


#: Stands for "no memory stored before" in :meth:`Projector._mentions_of_new_messages`.
_HERE: tuple[object, ...] = ()


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
