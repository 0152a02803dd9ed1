"""The table gateway of one projection generation (the tables are named in
:mod:`memstream.storage.lance.tables`).

It owns opening and creating the tables, idempotent writes (insert-if-absent keyed by
id, upserts), reads by key and scans, applied-offset checkpoints and the moments and
served records; its parts are ``store.upkeep``, index and compaction upkeep
(:mod:`memstream.storage.lance.upkeep`), and ``store.queries``, the domain queries
(:mod:`memstream.storage.lance.queries`). It knows column names, not events: callers
hand it rows.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Collection, Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import lancedb
import pyarrow as pa

from memstream.storage import filters
from memstream.storage.errors import StorageError
from memstream.storage.filesystems import Location
from memstream.storage.lance.fence_rows import (
    IS_FENCE_ROW,
    NOT_FENCE_ROW,
    fence_rows,
    fenced_merge,
    without_fence_rows,
)
from memstream.storage.lance.merges import first_of_each_key, keyed_merge, last_of_each_key
from memstream.storage.lance.queries import ProjectionQueries
from memstream.storage.lance.tables import (
    CHECKPOINTS,
    DEAD_LETTERS,
    DERIVED_COLUMNS,
    FENCED_TABLES,
    FIXED_SCHEMAS,
    KEYS,
    MOMENTS,
    NEW_EMPTY_COLUMNS,
    REPLAY_FILLED_COLUMNS,
    RETIRED_COLUMNS,
    SERVED,
    STATE_TABLES,
    UPDATE_GUARDS,
    USER_TABLES,
    VECTORS,
    Rows,
)
from memstream.storage.lance.upkeep import TableUpkeep
from memstream.storage.log_records import Checkpoints, LogPosition
from memstream.storage.moments import moment_rows
from memstream.storage.schemas import (
    CHECKPOINTS_SCHEMA,
    DEFAULT_VECTOR_DIMENSION,
    MOMENTS_SCHEMA,
    vectors_schema,
)

__all__ = [
    "DEFAULT_VECTOR_DIMENSION",
    "MomentGone",
    "ProjectionStore",
    "is_commit_conflict",
    "is_gone",
]

log = logging.getLogger(__name__)

#: The metadata prefix LanceDB marks primary-key columns with.
_PRIMARY_KEY = b"lance-schema:unenforced-primary-key"
#: Retries of a write that kept losing commit races after LanceDB's own retries, with
#: the backoff between them (seconds, doubling, with jitter).
CONFLICT_RETRIES = 6
CONFLICT_BACKOFF = (0.05, 2.0)


class MomentGone(StorageError):
    """A table version a moment names is no longer kept (upkeep removed it)."""


def is_gone(exc: BaseException) -> bool:
    """True when ``exc`` is LanceDB saying a file or version a read needed is not there
    (upkeep or an erasure removed it since the table was checked out)."""
    if not isinstance(exc, RuntimeError | OSError | ValueError):
        return False
    text = str(exc)
    return "Not found" in text or "was not found" in text or "no longer exists" in text


def is_commit_conflict(exc: BaseException) -> bool:
    """True when ``exc`` is LanceDB saying another writer committed first (worth
    trying again), not that the write itself is wrong."""
    text = str(exc)
    if "Too many concurrent writers" in text:  # LanceDB's own retries ran out
        return True
    return "onflict" in text and ("etryable" in text or "commit" in text.lower())


def _keyed(schema: pa.Schema, key: str) -> pa.Schema:
    """``schema`` with ``key`` marked as the primary key (as LanceDB marks it)."""
    index = schema.get_field_index(key)
    field = schema.field(index)
    metadata = {**(field.metadata or {}), _PRIMARY_KEY + b":position": b"1"}
    return schema.set(index, field.with_metadata(metadata))


def _merge_counts(result: Any) -> int:
    """Rows a merge inserted or updated (0 when LanceDB does not say)."""
    return int(getattr(result, "num_inserted_rows", 0) or 0) + int(
        getattr(result, "num_updated_rows", 0) or 0
    )


class ProjectionStore:
    """One folder of LanceDB tables holding the projected state.

    Args:
        uri: the LanceDB folder (local path or ``s3://``).
        storage_options: LanceDB's object-store options (endpoint, region) for ``s3://``.
        vector_dimension: the embedder's dimension, for a new ``vectors`` table (an
            existing one keeps its own; see :attr:`vector_dimension`).
        read_consistency_interval: how stale a read may be when another process writes;
            ``None`` reads the state as of opening (fine for the single writer).

    Raises:
        StorageError: the folder holds tables of an older layout.
    """

    def __init__(
        self,
        uri: str,
        *,
        storage_options: Mapping[str, str] | None = None,
        vector_dimension: int | None = None,
        read_consistency_interval: timedelta | None = None,
    ) -> None:
        self.uri = uri
        self._db = lancedb.connect(
            uri,
            read_consistency_interval=read_consistency_interval,
            storage_options=dict(storage_options) if storage_options else None,
        )
        existing = set(self._db.list_tables().tables)
        self._schemas: dict[str, pa.Schema] = dict(FIXED_SCHEMAS)
        self._tables: dict[str, Any] = {}
        #: per table, when its version was last asked and what it was
        self._versions_seen: dict[str, tuple[float, int]] = {}
        #: writes tried again after losing commit races (beyond LanceDB's own retries)
        self.conflicts_retried = 0
        #: the tables read at a fixed version (a store ``pinned`` to a moment)
        self._pinned: dict[str, int] = {}
        self._options = dict(storage_options) if storage_options else None
        #: the (table, partition) fence rows known to be stored (see :mod:`.fence_rows`)
        self._fences_stored: set[tuple[str, str]] = set()
        if VECTORS in existing:
            self._tables[VECTORS] = self._db.open_table(VECTORS)
            self._schemas[VECTORS] = self._tables[VECTORS].schema
        else:
            self._schemas[VECTORS] = vectors_schema(vector_dimension or DEFAULT_VECTOR_DIMENSION)
        for name, schema in self._schemas.items():
            if name in self._tables:
                continue
            if name in existing:
                self._tables[name] = self._open_listed(name)
                self._migrate(name)
                missing = set(schema.names) - set(self._tables[name].schema.names)
                if missing:
                    raise StorageError(
                        f"{uri} was built by an older memstream ({name} lacks "
                        f"{', '.join(sorted(missing))}): rebuild it with `memstream replay`"
                    )
            else:
                self._tables[name] = self._create(name, _keyed(schema, KEYS[name]))
        for name in self._tables:
            self._mark_primary_key(name)
        #: index and compaction upkeep, purges, keys held twice (see :mod:`.upkeep`)
        self.upkeep = TableUpkeep(self)
        #: the domain queries of retrieval and the lifecycle jobs (see :mod:`.queries`)
        self.queries = ProjectionQueries(self)

    def _open_listed(self, name: str, attempts: int = 50) -> Any:
        """Open a table the store lists. A process creating it at this moment has made
        its folder but not yet committed its first version, so it is listed and not
        found: wait (up to 5 s) for that commit."""
        for _ in range(attempts - 1):
            try:
                return self._db.open_table(name)
            except ValueError as exc:
                if "was not found" not in str(exc):
                    raise
            time.sleep(0.1)
        return self._db.open_table(name)  # still not found: its error says so

    def _create(self, name: str, schema: pa.Schema) -> Any:
        """Create a table, or open it if another process created it meanwhile (its
        creation then wins: both commit a first version, one of them is refused)."""
        try:
            return self._db.create_table(name, schema=schema, exist_ok=True)
        except ValueError:  # created meanwhile, its key already marked (other metadata)
            return self._open_listed(name)
        except RuntimeError as exc:
            if "commit conflict" not in str(exc):
                raise
            return self._open_listed(name)

    def _mark_primary_key(self, name: str) -> None:
        """Mark the table's key column as its primary key (once per table): without it
        two writers inserting the same new key at once both succeed (lance#4585)."""
        table = self._tables[name]
        field = table.schema.field(KEYS[name])
        if any(key.startswith(_PRIMARY_KEY) for key in field.metadata or {}):
            return
        if field.nullable:  # a key column an older memstream added to existing rows
            log.warning(
                "%s.%s cannot be marked as the primary key (it was added to an older "
                "store): run one worker on this store, or rebuild it with `memstream "
                "replay`, before running several",
                name,
                KEYS[name],
            )
        else:
            try:
                self.retrying(lambda: table.set_unenforced_primary_key(KEYS[name]))
            except Exception:  # another process opening the store marked it first?
                table.checkout_latest()
                marked = table.schema.field(KEYS[name]).metadata or {}
                if not any(key.startswith(_PRIMARY_KEY) for key in marked):
                    raise

    def retrying(self, write: Any) -> Any:
        """Run ``write``; when it loses commit races LanceDB did not resolve itself, try
        again after a bounded, growing, jittered wait (many writers on one table)."""
        delay, cap = CONFLICT_BACKOFF
        for attempt in range(CONFLICT_RETRIES + 1):
            try:
                return write()
            except Exception as exc:
                if attempt == CONFLICT_RETRIES or not is_commit_conflict(exc):
                    raise
                self.conflicts_retried += 1
                time.sleep(random.uniform(delay / 2, delay))
                delay = min(cap, delay * 2)
        raise AssertionError("unreachable")

    def _migrate(self, name: str) -> None:
        """Add the columns later versions derive from existing ones (in place)."""
        table = self._tables[name]
        for column, expression in DERIVED_COLUMNS.get(name, {}).items():
            if column not in table.schema.names:
                log.info("adding %s.%s to a store written by an older memstream", name, column)
                table.add_columns({column: expression})
        quiet = [
            self._schemas[name].field(column)
            for column in NEW_EMPTY_COLUMNS.get(name, ())
            if column not in table.schema.names
        ]
        if quiet:
            table.add_columns(quiet)
        retired = [c for c in RETIRED_COLUMNS.get(name, ()) if c in table.schema.names]
        if retired:
            for index in table.list_indices():
                if set(index.columns) & set(retired):
                    table.drop_index(index.name)
            log.info("dropping %s.%s (derived into other columns)", name, ", ".join(retired))
            table.drop_columns(retired)
        empty = [
            self._schemas[name].field(column)
            for column in REPLAY_FILLED_COLUMNS.get(name, ())
            if column not in table.schema.names
        ]
        if empty:
            log.warning(
                "adding %s (empty) to %s of a store written by an older memstream: "
                "`memstream replay` fills them",
                ", ".join(f.name for f in empty),
                name,
            )
            table.add_columns(empty)

    @classmethod
    def at(cls, location: Location, **options: Any) -> ProjectionStore:
        """The store in a LanceDB folder given as a :class:`Location` (its S3 endpoint
        and region included); ``options`` as for the constructor."""
        return cls(location.uri, storage_options=location.storage_options, **options)

    @property
    def local_folder(self) -> Path | None:
        """The tables' folder when it is on a local disk (None on S3)."""
        return None if "://" in self.uri else Path(self.uri)

    @property
    def vector_dimension(self) -> int:
        """The length of the vectors the ``vectors`` table holds."""
        size: int = self._schemas[VECTORS].field("vector").type.list_size
        return size

    def table(self, name: str) -> Any:
        """The LanceDB table called ``name``."""
        return self._tables[name]

    def schema(self, name: str) -> pa.Schema:
        """The schema rows written to table ``name`` are cast to."""
        return self._schemas[name]

    def insert_absent(self, name: str, rows: Rows, *, fences: Collection[str] = ()) -> int:
        """Insert the rows whose key is not in the table yet; existing rows are untouched.
        Of rows sharing a key (an event applied twice in one batch), the first is kept.
        With ``fences`` (the partitions the rows are of, written by their owner), the
        merge joins through the key's index and updates those partitions' fence rows
        (:mod:`.fence_rows`); without, it scans the key column. Either way a concurrent
        insert of the same key conflicts. Answers how many rows were inserted."""
        if not len(rows):
            return 0
        key = KEYS[name]
        data = first_of_each_key(self._as_table(name, rows), key)
        table = self._tables[name]
        if fences:
            self._store_fences(name, fences)
            result = self.retrying(lambda: fenced_merge(table, key, data, fences, update=False))
        else:
            result = self.retrying(
                lambda: keyed_merge(table, key).when_not_matched_insert_all().execute(data)
            )
        return int(getattr(result, "num_inserted_rows", data.num_rows))

    def append(self, name: str, rows: Rows) -> None:
        """Append rows without a key check (for a writer that knows the keys are new)."""
        if len(rows):
            self._tables[name].add(self._as_table(name, rows))

    def upsert(
        self, name: str, rows: Rows, *, guarded: bool = False, fences: Collection[str] = ()
    ) -> int:
        """Insert the rows, replacing those whose key is already there (``guarded``:
        only where the table's :data:`~memstream.storage.lance.tables.UPDATE_GUARDS` condition
        allows); of rows sharing a key, the last is written. ``fences`` as for
        :meth:`insert_absent`. Answers how many rows were inserted or replaced."""
        if not len(rows):
            return 0
        table = self._tables[name]
        data = last_of_each_key(self._as_table(name, rows), KEYS[name])
        where = UPDATE_GUARDS[name] if guarded else None
        if fences:
            self._store_fences(name, fences)
            result = self.retrying(
                lambda: fenced_merge(table, KEYS[name], data, fences, update=True, where=where)
            )
            return _merge_counts(result) - len(set(fences))

        def merge() -> Any:
            return (
                keyed_merge(table, KEYS[name])
                .when_matched_update_all(where=where)
                .when_not_matched_insert_all()
                .execute(data)
            )

        return _merge_counts(self.retrying(merge))

    def _store_fences(self, name: str, partitions: Collection[str]) -> None:
        """Make sure ``name`` holds the fence rows of ``partitions``, once each: a new one
        goes in through the scanning merge, so two writers adding it at once add it once."""
        if name not in FENCED_TABLES:
            raise ValueError(f"{name} has no fence rows")
        wanted = {p for p in partitions if (name, p) not in self._fences_stored}
        if not wanted:
            return
        key, table = KEYS[name], self._tables[name]
        rows = fence_rows(self._schemas[name], key, wanted)
        stored = {r[key] for r in self.by_ids(name, rows.column(key).to_pylist(), [key])}
        if len(stored) < rows.num_rows:
            self.retrying(
                lambda: keyed_merge(table, key).when_not_matched_insert_all().execute(rows)
            )
        self._fences_stored.update((name, p) for p in wanted)

    def by_ids(
        self,
        name: str,
        ids: Sequence[str],
        columns: Sequence[str] | None = None,
        where: str | None = None,
    ) -> list[dict[str, Any]]:
        """The rows of ``name`` whose key is one of ``ids`` (and that match ``where``)."""
        if not ids:
            return []
        condition = filters.all_of(filters.is_in(KEYS[name], ids), where or "")
        query = self._tables[name].search().where(condition)
        if columns:
            query = query.select(list(columns))
        rows: list[dict[str, Any]] = query.limit(len(ids)).to_list()
        return rows

    def rows_by_key(self, name: str, keys: Iterable[str]) -> dict[str, dict[str, Any]]:
        """The rows of ``name`` with one of ``keys``, by key."""
        key = KEYS[name]
        return {row[key]: row for row in self.by_ids(name, sorted(set(keys)))}

    def _as_table(self, name: str, rows: Rows) -> pa.Table:
        if isinstance(rows, pa.Table):
            return rows
        return pa.Table.from_pylist(list(rows), schema=self._schemas[name])

    def save_checkpoints(
        self,
        consumer: str,
        positions: Checkpoints,
        now: datetime,
        owner_epochs: Mapping[int, int] | None = None,
    ) -> None:
        """Record the last applied position per (topic, partition) for ``consumer``;
        with ``owner_epochs`` (the writer's ownership epoch per partition), a stored
        checkpoint of a later epoch is kept (its writer owns the partition now)."""
        if not positions:
            return
        rows = [
            {
                "checkpoint_id": f"{consumer}|{at.topic}|{at.partition}",
                "consumer": consumer,
                "topic": at.topic,
                "partition": at.partition,
                "log_epoch": at.log_epoch,
                "offset": at.offset,
                "updated_at": now,
                "owner_epoch": (owner_epochs or {}).get(at.partition),
            }
            for at in positions.values()
        ]
        self.upsert(
            CHECKPOINTS,
            pa.Table.from_pylist(rows, schema=CHECKPOINTS_SCHEMA),
            guarded=owner_epochs is not None,
        )

    def load_checkpoints(self, consumer: str | None = None) -> dict[tuple[str, int], LogPosition]:
        """The stored position per (topic, partition), for one consumer or all."""
        table = self.scan(CHECKPOINTS)
        found: dict[tuple[str, int], LogPosition] = {}
        for row in table.to_pylist():
            if consumer is None or row["consumer"] == consumer:
                at = LogPosition(row["log_epoch"], row["topic"], row["partition"], row["offset"])
                found[at.topic_partition] = at
        return found

    def scan(
        self,
        name: str,
        columns: Sequence[str] | None = None,
        where: str | None = None,
        limit: int | None = None,
    ) -> pa.Table:
        """Every row of a table (optionally some columns, optionally filtered), or the
        first ``limit`` found; never a fence row (:mod:`.fence_rows`)."""
        table = self._tables[name]
        if name not in self._pinned:
            table.checkout_latest()
        fenced = name in FENCED_TABLES
        if fenced and limit is not None:
            where = filters.all_of(where or "", NOT_FENCE_ROW)
        query = table.search()
        if where:
            query = query.where(where)
        wanted = list(columns) if columns else None
        if wanted and fenced and "user_id" not in wanted:
            query = query.select([*wanted, "user_id"])
        elif wanted:
            query = query.select(wanted)
        rows = query.limit(limit).to_arrow()
        if not fenced or limit is not None:
            return rows
        rows = without_fence_rows(rows)
        return rows.select(wanted) if wanted else rows

    def count(self, name: str, where: str | None = None) -> int:
        """How many rows of ``name`` pass ``where``, never counting a fence row (left
        out of a filtered count; a whole table's count, which reads no row, less them)."""
        table = self._tables[name]
        if name not in FENCED_TABLES:
            return int(table.count_rows(where))
        if where:
            return int(table.count_rows(filters.all_of(where, NOT_FENCE_ROW)))
        counted = int(table.count_rows())
        return counted - int(table.count_rows(IS_FENCE_ROW)) if counted else 0

    def version(self, name: str, max_age_seconds: float = 0.0) -> int:
        """The newest committed version of a table (it changes with every write), or
        the one seen less than ``max_age_seconds`` ago (a reader allowed that
        staleness asks the table at most that often)."""
        if name in self._pinned:
            return self._pinned[name]
        now = time.monotonic()
        seen = self._versions_seen.get(name)
        if seen is not None and now - seen[0] < max_age_seconds:
            return seen[1]
        table = self._tables[name]
        table.checkout_latest()
        version = int(table.version)
        self._versions_seen[name] = (now, version)
        return version

    def refresh(self, names: Sequence[str] | None = None) -> None:
        """See the newest committed version of every table (or of ``names``)."""
        for name in self._tables if names is None else names:
            if name not in self._pinned:
                self._tables[name].checkout_latest()

    def see_latest(self) -> None:
        """From now on read every table as of its newest committed version: the views
        that may be a moment old (``version``'s ``max_age_seconds``) are asked again."""
        self._versions_seen.clear()
        self.refresh()

    def pinned(self, versions: Mapping[str, int]) -> ProjectionStore:
        """Another view of these tables, each named in ``versions`` checked out at that
        version (the rest at their newest): memory as it stood at a moment, read only.

        Raises:
            NotFound: a version is no longer kept (upkeep removed it).
        """
        view = ProjectionStore(self.uri, storage_options=self._options)
        for name, version in versions.items():
            if name not in view._tables:
                continue
            try:
                view._tables[name].checkout(int(version))
            except Exception as exc:  # LanceDB says so in many words
                raise MomentGone(f"{name} version {version} is no longer kept") from exc
        view._pinned = {name: int(v) for name, v in versions.items() if name in view._tables}
        return view

    def record_moments(
        self, consumer: str, applied: Checkpoints, partitions: Iterable[int], now: datetime
    ) -> None:
        """Record that the newest version of each state table holds what ``applied``
        says for each of ``partitions`` (see :mod:`memstream.storage.moments`)."""
        versions = {name: self.version(name) for name in STATE_TABLES if name in self._tables}
        rows = moment_rows(consumer, applied, partitions, versions, now)
        if rows:
            self.append(MOMENTS, pa.Table.from_pylist(rows, schema=MOMENTS_SCHEMA))

    def served(
        self, user_id: str, memory_id: str | None = None, limit: int = 50
    ) -> list[dict[str, Any]]:
        """What was served to callers of ``user_id``'s memory, newest first (only the
        answers that held ``memory_id``, when given)."""
        where = filters.all_of(
            filters.equals("user_id", user_id),
            filters.has_any("memory_ids", [memory_id]) if memory_id is not None else "",
        )
        # the newest by their times alone, then only those rows whole
        times = self.scan(SERVED, ["served_id", "served_at"], where=where).to_pylist()
        newest = sorted(times, key=lambda r: (r["served_at"], r["served_id"]), reverse=True)
        wanted = [r["served_id"] for r in newest[:limit]]
        rows = {r["served_id"]: r for r in self.by_ids(SERVED, wanted)}
        return [rows[i] for i in wanted if i in rows]

    def moments(self, consumer: str, partition: int, before: datetime | None = None) -> pa.Table:
        """The moments recorded of ``partition`` by ``consumer``'s writers (with
        ``before``, those recorded at or before it)."""
        where = filters.all_of(
            filters.equals("consumer", consumer),
            filters.equals("partition", partition),
            filters.at_most("recorded_at", before) if before is not None else "",
        )
        return self.scan(MOMENTS, where=where)

    @property
    def table_names(self) -> list[str]:
        return list(self._tables)

    def erase_user(self, user_id: str) -> dict[str, int]:
        """Remove every row of ``user_id`` from every table (and the user's dead letters,
        keyed by the user), leaving nothing of them in the files; the rows removed per
        table."""
        where = {name: filters.equals("user_id", user_id) for name in USER_TABLES}
        where[DEAD_LETTERS] = filters.bytes_equal("key", user_id.encode("utf-8"))
        return self.upkeep.purge(where)

    def delete(self, name: str, ids: Sequence[str]) -> None:
        """Remove the rows of ``name`` whose key is one of ``ids``."""
        if ids:
            self._tables[name].delete(filters.is_in(KEYS[name], ids))
