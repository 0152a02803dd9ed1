"""What the projector's parts share (:class:`ProjectorCore`): the store, the fence and
the compaction window, the guarded writes, and the bookkeeping every batch touches.
:mod:`.spine` applies and commits batches; :mod:`.archive_moves`, :mod:`.erasure` and
:mod:`.upkeep` are the other moves; :mod:`memstream.streams.delivery.bookkeeping` keeps
the checkpoints.

How a batch is applied (the spine, over this core): one call handles one batch: skip
records at or below the stored checkpoint of the same log epoch, decode the rest,
record what does not decode as dead letters (returned, and handed to a sender for
``memory.dlq`` before the checkpoints move), archive the valid records to Parquet,
insert the episode and vector rows if absent, fold entity mentions and accesses into
their rows (guarded by the position each row last applied), and store the new
checkpoints last. A crash at any step leaves a batch that is applied again,
idempotently, on restart. The projection consumer and ``memstream replay`` both drive
the projector.

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
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime, timedelta
from typing import Any

import pyarrow as pa

from memstream.clock import Clock
from memstream.projections.memory_state import StateChange, merge_states, state_id
from memstream.projections.sessions import (
    SessionTouch,
    merge_sessions,
    session_key,
)
from memstream.storage.archive.cold_store import ColdStore, ColdStoreCorrupt
from memstream.storage.archive.event_archive import EventArchive
from memstream.storage.claims import Lease
from memstream.storage.document_originals import DocumentOriginals
from memstream.storage.headroom import is_disk_full
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.lance.tables import (
    LEASES,
    MEMORIES,
    MEMORY_STATE,
    OWNER_GUARDED,
    PARTITION_OWNERS,
    SESSIONS,
    UPDATE_GUARDS,
    WATERMARKS,
)
from memstream.storage.log_records import LogPosition
from memstream.storage.schemas import MEMORIES_SCHEMA
from memstream.streams.delivery.fencing import Fence
from memstream.streams.partitioning import partition_of
from memstream.streams.sealing import RecordKeys

__all__ = [
    "CLAIMS_TABLES",
    "RETAIN_SERVED",
    "WINDOW_GRACE_SECONDS",
    "ProjectorCore",
    "Row",
    "is_data_error",
]

log = logging.getLogger(__name__)

Row = dict[str, Any]

#: Tables written by claims and lease renewals, which do not wait for the compaction window.
CLAIMS_TABLES = frozenset({LEASES, PARTITION_OWNERS})
#: How long the compaction window waits, once taken, for updates already under way in
#: other workers (they check the window before each update) before compacting.
WINDOW_GRACE_SECONDS = 1.0
#: How long what was served is kept unless the settings say otherwise.
RETAIN_SERVED = timedelta(days=30)
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


class ProjectorCore:
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
            its vectors in place of another model's
            (:func:`~memstream.projections.archiving.adopt_vectors`).
        fence: the partitions this worker owns (:mod:`~memstream.streams.delivery.fencing`),
            checked before
            each write; None for the only writer (a replay, a test).
        partitions: how many partitions the projected topics have (with a fence: which
            partition a user's deferred session rows belong to).
        window: the compaction window shared by the workers of a store: while another
            process holds it (compacting the tables whose rows are updated), this one
            waits before updating rows; while this one runs upkeep, it holds it.
        originals: documents' original bytes (an erasure removes the user's).
        retain_served: how long what was served is kept (older ``context_served``
            events are not applied; upkeep drops older rows).
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
        retain_served: timedelta = RETAIN_SERVED,
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
        self.retain_served = retain_served
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
        #: rows of a key held twice that upkeep dropped (see ``store.upkeep.drop_duplicate_keys``)
        self.duplicates_dropped = 0
        #: per keyed table, the row address upkeep's next look for keys held twice
        #: starts from (:mod:`memstream.storage.lance.key_checks`)
        self.keys_checked: dict[str, int] = {}
        #: keys upkeep found held twice in the tables whose rows are updated
        self.duplicates_found = 0
        #: per table, the version this process's last upkeep of it began at, and when:
        #: a table no commit has changed since needs none until its old versions expire
        self.upkept: dict[str, tuple[int, datetime]] = {}

    def _guard(self) -> None:
        """Raise :class:`~memstream.streams.delivery.fencing.Fenced` when another worker has
        claimed a partition whose rows are about to be written."""
        if self.fence is not None:
            self.fence.check(self._pending_partitions())

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
        :data:`~memstream.storage.lance.tables.UPDATE_GUARDS`). Answers the rows read and the rows
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
        written = self.store.upsert(
            table, rows, guarded=table in UPDATE_GUARDS, fences=self._fences_of(rows)
        )
        if fence is not None and written < len(rows):
            fence.check({self._partition_of(str(row["user_id"])) for row in rows})
            log.warning("%s: %d rows refused, yet no partition moved", table, len(rows) - written)

    def _insert_absent(self, table: str, rows: list[Row] | pa.Table) -> int:
        """Insert the rows of insert-only ``table`` not stored yet, updating their
        partitions' fence rows (when this writer is fenced); answers how many were.
        Upkeep compacts these tables beside the inserts, around the fence rows
        (:mod:`memstream.storage.lance.fenced_compaction`)."""
        return self.store.insert_absent(table, rows, fences=self._fences_of(rows))

    def _fences_of(self, rows: list[Row] | pa.Table) -> frozenset[str]:
        """The partitions whose fence rows a write of ``rows`` updates, so that another
        writer of one of them cannot insert a key beside it
        (:mod:`memstream.storage.lance.fence_rows`); none for the only writer (no fence)."""
        if self.fence is None or not len(rows):
            return frozenset()
        users = (
            rows.column("user_id").to_pylist()
            if isinstance(rows, pa.Table)
            else [row["user_id"] for row in rows]
        )
        return frozenset(str(self._partition_of(str(user))) for user in set(users))

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

    def _insert(self, rows: list[dict[str, object]] | pa.Table) -> int:
        """Insert the memories not stored yet; answers how many were."""
        if self._written is None:
            return self._insert_absent(MEMORIES, rows)
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

    @property
    def unflushed(self) -> bool:
        """True when applied batches have bookkeeping not written yet."""
        return bool(self._unsaved_checkpoints)

    def flush(self) -> None:
        """Write the deferred session rows, watermarks and checkpoints now."""
        with self._writing:
            self._flush()

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
            now = self._clock()
            self.store.save_checkpoints(
                self.consumer,
                self._unsaved_checkpoints,
                now,
                owner_epochs=None if self.fence is None else dict(self.fence.held),
            )
            moved = {partition for _, partition in self._unsaved_checkpoints}
            self.store.record_moments(self.consumer, self._checkpoints, moved, now)
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


#: Stands for "no memory stored before" in :meth:`Projector._mentions_of_new_messages`.
_HERE: tuple[object, ...] = ()
