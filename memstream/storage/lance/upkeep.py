"""Index and compaction upkeep of the projection tables: which indexes each table gets
(full text, keys, scope, labels, and IVF-PQ for large vector tables), compacting
fragments and old versions, purging rows to the last byte, pruning the moments and
served records past their time, and finding and dropping keys held twice. A part of
:class:`memstream.storage.lance.store.ProjectionStore`, reached as ``store.upkeep``.
"""

from __future__ import annotations

import logging
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.compute as pc
from lancedb.index import FTS, BTree, IvfPq, LabelList

from memstream.storage import filters
from memstream.storage.lance.fence_rows import NOT_FENCE_ROW
from memstream.storage.lance.fenced_compaction import Compacted, compact_around_fences
from memstream.storage.lance.key_checks import NewKeys, new_keys_held_twice
from memstream.storage.lance.merges import first_of_each_key, keyed_merge
from memstream.storage.lance.tables import (
    ACCESS,
    ARCHIVE_INDEX,
    ENTITIES,
    FENCED_TABLES,
    KEYS,
    MEMORIES,
    MEMORY_STATE,
    MOMENTS,
    SERVED,
    SESSIONS,
    VECTORS,
)

if TYPE_CHECKING:
    from memstream.storage.lance.store import ProjectionStore

__all__ = ["ANN_INDEX_MIN_ROWS", "TableUpkeep"]

log = logging.getLogger(__name__)

#: The vectors table gets an ANN index (IVF-PQ) from this many rows on; below it, and
#: for users with few vectors, search compares with every vector of the user.
ANN_INDEX_MIN_ROWS = 100_000


def _ann_index(rows: int, dimension: int) -> IvfPq:
    sub_vectors = next(d for d in (48, 32, 24, 16, 8, 4, 2, 1) if dimension % d == 0)
    return IvfPq(
        distance_type="cosine",
        num_partitions=max(16, min(1024, rows // 4000)),
        num_sub_vectors=sub_vectors,
    )


def _full_text_index() -> FTS:
    """The full-text index of memory text and archive summaries."""
    return FTS(with_position=False, stem=True, remove_stop_words=True, ascii_folding=True)


#: Tries of an index creation that lost a commit race (another creation of it, or a
#: concurrent commit), with a doubling pause from the first.
_INDEX_TRIES, _INDEX_PAUSE_SECONDS = 4, 0.05


def _create_index(table: Any, column: str, config: Any) -> None:
    """Create one index; when a concurrent commit preempts it (two upkeeps indexing
    the same new table, in one process or several), look again: the other may have
    created it, else try again."""
    for attempt in range(_INDEX_TRIES):
        try:
            table.create_index(column, config=config)
            return
        except RuntimeError as exc:
            if "commit conflict" not in str(exc) or attempt == _INDEX_TRIES - 1:
                raise
            log.info("indexing %s lost a commit race; looking again", column)
        time.sleep(_INDEX_PAUSE_SECONDS * 2**attempt)
        table.checkout_latest()
        if (column,) in {tuple(index.columns) for index in table.list_indices()}:
            return


class TableUpkeep:
    """Index and compaction upkeep over the tables of ``store`` (see the module
    docstring)."""

    def __init__(self, store: ProjectionStore) -> None:
        self._store = store

    def ensure_indexes(self, names: Sequence[str] | None = None, ann: bool = True) -> None:
        """Create the full-text, key, scope and label indexes of tables (all, or
        ``names``) that have rows, and (``ann``) the vector index of a large table."""
        wanted: dict[str, list[tuple[str, Any]]] = {
            MEMORIES: [
                ("search_text", _full_text_index()),
                ("memory_id", BTree()),
                ("user_id", BTree()),
                ("entity_ids", LabelList()),
                ("tags", LabelList()),
            ],
            VECTORS: [("memory_id", BTree()), ("user_id", BTree())],
            ENTITIES: [("entity_id", BTree()), ("user_id", BTree())],
            ACCESS: [("access_id", BTree())],
            MEMORY_STATE: [("state_id", BTree())],
            SESSIONS: [("session_key", BTree())],
            ARCHIVE_INDEX: [
                # no key index: reads of archived rows go through the user's (a btree on
                # archive_id would cost a fifth of what the rest of a row does)
                ("search_text", _full_text_index()),
                ("user_id", BTree()),
                ("entity_ids", LabelList()),
            ],
        }
        for name, indexes in wanted.items():
            if names is not None and name not in names:
                continue
            table = self._store.table(name)
            rows = table.count_rows()
            if rows == 0:
                continue
            present = {tuple(index.columns) for index in table.list_indices()}
            if name == VECTORS and rows >= ANN_INDEX_MIN_ROWS and ann:
                indexes.append(("vector", _ann_index(rows, self._store.vector_dimension)))
            for column, config in indexes:
                if (column,) not in present:
                    log.debug("indexing %s.%s (%d rows)", name, column, rows)
                    _create_index(table, column, config)

    def table_shapes(self) -> dict[str, tuple[int, int]]:
        """Each table's (latest version number, data fragments), read from its latest
        manifest (listing its versions would read every manifest kept)."""
        shapes = {}
        for name in self._store.table_names:
            table = self._store.table(name)
            fragments = table.stats()["fragment_stats"]["num_fragments"]
            shapes[name] = (int(table.version), int(fragments))
        return shapes

    def optimize(self, retain: timedelta) -> None:
        """Compact fragments, index new rows, drop versions older than ``retain``."""
        for name in self._store.table_names:
            self.optimize_table(name, retain)

    def optimize_table(
        self, name: str, retain: timedelta, *, build_missing_indexes: bool = True
    ) -> None:
        """``optimize`` for one table (the caller keeps writers away meanwhile).

        Fragments are compacted before a missing index is built, so a table a replay
        just wrote is indexed once, over its compacted fragments, not indexed and then
        re-indexed by the compaction (``build_missing_indexes=False``: the caller builds
        them later, by :meth:`ensure_indexes`)."""
        table = self._store.table(name)
        # Compact from the newest version: a plan made on an older one conflicts with
        # every commit since (another worker's update, the last holder's compaction).
        table.checkout_latest()
        if table.count_rows() > 0:
            table.optimize(cleanup_older_than=retain)
            log.debug("optimized %s", name)
        if build_missing_indexes and name in (MEMORIES, VECTORS):
            self.ensure_indexes()

    def prune_moments(self, before: datetime) -> None:
        """Remove the moments recorded before ``before`` (upkeep has removed, or is
        about to remove, the versions they name)."""
        self._prune(MOMENTS, filters.before("recorded_at", before))

    def prune_served(self, before: datetime) -> None:
        """Drop what was served before ``before`` (kept no longer)."""
        self._prune(SERVED, filters.all_of(filters.before("served_at", before), NOT_FENCE_ROW))

    def _prune(self, name: str, older: str) -> None:
        """Delete the rows of ``name`` that pass ``older``; a delete commits a version
        even when it removes nothing, so none is asked for then."""
        table = self._store.table(name)
        if table.count_rows(older):
            self._store.retrying(lambda: table.delete(older))

    def compact_beside_writers(self, name: str, retain: timedelta) -> Compacted | None:
        """``optimize`` for an insert-only table while fenced writers insert into it:
        the fragments holding a live fence row are left out of the compaction
        (:mod:`~memstream.storage.lance.fenced_compaction`). None for an empty table."""
        return compact_around_fences(self._store.table(name), retain, name in FENCED_TABLES)

    def purge(self, where: Mapping[str, str]) -> dict[str, int]:
        """Delete the rows matching ``where[name]`` from each named table and leave no
        byte of them in its files: no older version, no deletion vector over a data
        file that still holds them, no full-text index that still lists their words.
        Returns the rows removed per table.

        Old versions are removed at once, so a reader of another process still on one
        fails its read (and reads again); erasures are rare, and this is what they cost.
        Files no version refers to go at once too (a failed write's may hold the rows):
        with several workers, the caller holds the compaction window, so that no other
        write is under way.
        """
        removed: dict[str, int] = {}
        for name, condition in where.items():
            table = self._store.table(name)
            count = table.count_rows(condition)
            if count == 0:
                continue
            started = time.perf_counter()
            _retrying(table.delete, condition)
            removed[name] = count
            _retrying(self._rewrite_without_deleted, name)
            took = time.perf_counter() - started
            log.info("purged %d rows of %s in %.2f s", count, name, took)
        return removed

    def _rewrite_without_deleted(self, name: str) -> None:
        with warnings.catch_warnings():  # that older versions go at once is the point
            warnings.simplefilter("ignore", UserWarning)
            self._rewrite(name)

    def _rewrite(self, name: str) -> None:
        table = self._store.table(name)
        table.optimize(cleanup_older_than=timedelta(0), delete_unverified=True)
        if _holds_deleted_rows(table):
            # Compaction keeps a large fragment with few deletions as it is (a deletion
            # vector over the old file): write the rows that remain anew.
            # The vector index is trained again by the next upkeep, not here: search
            # compares a user's vectors exactly meanwhile (a minute for 200,000 vectors).
            log.info("erasure: rewriting %s (%d rows)", name, table.count_rows())
            read_at = int(table.version)
            written = table.add(table.to_arrow(), mode="overwrite")
            self.put_back_rows_written_meanwhile(name, read_at, int(written.version))
        for index in table.list_indices():
            if index.index_type.upper() in ("FTS", "INVERTED"):  # its terms list the words
                table.drop_index(index.name)
        self.ensure_indexes([name], ann=False)
        table.optimize(cleanup_older_than=timedelta(0), delete_unverified=True)
        table.checkout_latest()

    def put_back_rows_written_meanwhile(self, name: str, read_at: int, overwritten_at: int) -> int:
        """After an overwrite of table ``name`` (committed as version ``overwritten_at``)
        with the rows it held at version ``read_at``: insert again the rows other
        writers committed between that read and the overwrite (an overwrite wins over
        them, and would drop them). Answers how many rows were put back."""
        table = self._store.table(name)
        if overwritten_at <= read_at + 1:
            return 0  # nothing was committed in between
        table.checkout(overwritten_at - 1)
        try:
            before = table.to_arrow()
        finally:
            table.checkout_latest()
        key = KEYS[name]
        kept = set(table.to_arrow().column(key).to_pylist())
        kept_keys = pa.array(list(kept), type=before.schema.field(key).type)
        missing = before.filter(pc.invert(pc.is_in(before.column(key), kept_keys)))
        if missing.num_rows:
            log.warning(
                "%s: %d rows another writer committed during the rewrite put back",
                name,
                missing.num_rows,
            )
            keyed_merge(table, key).when_not_matched_insert_all().execute(missing)
        return int(missing.num_rows)

    def duplicate_keys(self, name: str) -> list[str]:
        """The keys of ``name`` that more than one row holds (none, while every write
        goes through :func:`~memstream.storage.lance.merges.keyed_merge`)."""
        key = KEYS[name]
        self._store.table(name).checkout_latest()
        counts = pc.value_counts(self._store.scan(name, [key]).column(key))
        return [str(k) for k, n in zip(counts.field("values").to_pylist(),
                                       counts.field("counts").to_pylist(), strict=True)
                if n > 1]  # fmt: skip

    def new_keys_held_twice(self, name: str, since: int) -> NewKeys:
        """The keys held twice among the rows of ``name`` written at row addresses from
        ``since`` on (:mod:`memstream.storage.lance.key_checks`)."""
        return new_keys_held_twice(self._store.table(name), KEYS[name], since)

    def drop_duplicate_keys(self, name: str, repeated: Sequence[str] | None = None) -> int:
        """Keep one row of each key of an insert-only table that has several (they are
        the same row written twice): of ``repeated``, or of every key held twice;
        answers how many rows went.

        Only for a caller no other writer can interleave with (it holds the compaction
        window): the duplicated keys' rows are deleted, then one of each put back."""
        repeated = self.duplicate_keys(name) if repeated is None else list(repeated)
        if not repeated:
            return 0
        key, table = KEYS[name], self._store.table(name)
        rows = self._store.scan(name, where=filters.is_in(key, repeated))
        kept = first_of_each_key(rows.select(self._store.schema(name).names), key)
        if kept.num_rows == rows.num_rows:
            return 0  # held once each by now
        self._store.retrying(lambda: table.delete(filters.is_in(key, repeated)))
        self._store.retrying(lambda: table.add(kept.cast(self._store.schema(name))))
        return int(rows.num_rows - kept.num_rows)


def _retrying(step: Callable[[str], object], argument: str, attempts: int = 8) -> None:
    """Run ``step``, again while LanceDB reports a commit another writer preempted
    (another process compacting the same table): every step here is idempotent."""
    for attempt in range(attempts):
        try:
            step(argument)
            return
        except RuntimeError as exc:
            if "Retryable commit conflict" not in str(exc) or attempt == attempts - 1:
                raise
            log.info("erasure: a concurrent commit; trying again")
            time.sleep(0.2 * (attempt + 1))


def _holds_deleted_rows(table: Any) -> bool:
    """Whether the table's data files hold more rows than it has (deleted ones)."""
    fragments = table.stats()["fragment_stats"]
    held = round(fragments["lengths"]["mean"] * fragments["num_fragments"])
    return bool(held != table.count_rows())
