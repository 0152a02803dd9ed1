"""The LanceDB tables of one projection generation.

``memories`` (one row per memory, insert-only), ``vectors`` (one embedding per memory,
insert-only, with the memory's scope columns), ``entities``, ``access``, ``sessions``,
``memory_state`` and ``watermarks`` (small rows updated in place), ``checkpoints`` and
``dead_letters``. This module owns table creation,
idempotent writes (insert-if-absent keyed by id, upserts), applied-offset checkpoints,
the queries retrieval needs (full text, vector, by id, by entity), index upkeep and
compaction. It knows column names, not events: callers hand it rows.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, TypeAlias

import lancedb
import pyarrow as pa
from lancedb.index import FTS, BTree, IvfPq, LabelList

from storage import filters
from storage.errors import StorageError
from storage.filesystems import Location
from storage.log_records import Checkpoints, LogPosition
from storage.schemas import (
    ACCESS_SCHEMA,
    ARCHIVE_INDEX_SCHEMA,
    CHECKPOINTS_SCHEMA,
    DEAD_LETTERS_SCHEMA,
    DEFAULT_VECTOR_DIMENSION,
    ENTITIES_SCHEMA,
    MEMORIES_SCHEMA,
    MEMORY_STATE_SCHEMA,
    SESSIONS_SCHEMA,
    WATERMARKS_SCHEMA,
    vectors_schema,
)

__all__ = ["DEFAULT_VECTOR_DIMENSION", "ProjectionStore"]

log = logging.getLogger(__name__)

#: The columns consolidation reads of a session's turns.
_EPISODE_TURN_COLUMNS = [
    "memory_id",
    "user_id",
    "session_id",
    "source_event_ids",
    "speaker",
    "role",
    "content",
    "occurred_at",
]
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)

MEMORIES = "memories"
VECTORS = "vectors"
ENTITIES = "entities"
ACCESS = "access"
CHECKPOINTS = "checkpoints"
DEAD_LETTERS = "dead_letters"
SESSIONS = "sessions"
MEMORY_STATE = "memory_state"
WATERMARKS = "watermarks"
ARCHIVE_INDEX = "archive_index"

_FIXED_SCHEMAS = {
    MEMORIES: MEMORIES_SCHEMA,
    ENTITIES: ENTITIES_SCHEMA,
    ACCESS: ACCESS_SCHEMA,
    CHECKPOINTS: CHECKPOINTS_SCHEMA,
    DEAD_LETTERS: DEAD_LETTERS_SCHEMA,
    SESSIONS: SESSIONS_SCHEMA,
    MEMORY_STATE: MEMORY_STATE_SCHEMA,
    WATERMARKS: WATERMARKS_SCHEMA,
    ARCHIVE_INDEX: ARCHIVE_INDEX_SCHEMA,
}
_KEYS = {
    MEMORIES: "memory_id",
    VECTORS: "memory_id",
    ENTITIES: "entity_id",
    ACCESS: "access_id",
    CHECKPOINTS: "checkpoint_id",
    DEAD_LETTERS: "dead_letter_id",
    SESSIONS: "session_key",
    MEMORY_STATE: "state_id",
    WATERMARKS: "watermark_id",
    ARCHIVE_INDEX: "archive_id",
}
#: The tables that hold projected state (what a replay must rebuild identically).
#: Columns added since a table was first written, and how to fill them from old rows.
_DERIVED_COLUMNS: dict[str, dict[str, str]] = {
    ACCESS: {"access_id": "concat(user_id, '|', memory_id)"},
    ARCHIVE_INDEX: {"archive_id": "concat(user_id, '|', memory_id)"},
}

STATE_TABLES = (MEMORIES, VECTORS, ENTITIES, ACCESS, SESSIONS, MEMORY_STATE, ARCHIVE_INDEX)
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


#: Tables whose rows are only ever inserted: compaction never conflicts with their writer.
INSERT_ONLY = frozenset({MEMORIES, VECTORS, DEAD_LETTERS})

#: Rows to write: dicts, or an Arrow table already in the table's schema.
Rows: TypeAlias = Sequence[Mapping[str, Any]] | pa.Table


def _first_of_each_key(table: pa.Table, key: str) -> pa.Table:
    """``table`` without the rows whose key an earlier row already has."""
    keys = table.column(key).to_pylist()
    first = list({k: i for i, k in reversed(list(enumerate(keys)))}.values())
    if len(first) == len(keys):
        return table
    return table.take(pa.array(sorted(first), type=pa.int64()))


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
        self._schemas: dict[str, pa.Schema] = dict(_FIXED_SCHEMAS)
        self._tables: dict[str, Any] = {}
        if VECTORS in existing:
            self._tables[VECTORS] = self._db.open_table(VECTORS)
            self._schemas[VECTORS] = self._tables[VECTORS].schema
        else:
            self._schemas[VECTORS] = vectors_schema(vector_dimension or DEFAULT_VECTOR_DIMENSION)
        for name, schema in self._schemas.items():
            if name in self._tables:
                continue
            if name in existing:
                self._tables[name] = self._db.open_table(name)
                self._migrate(name)
                missing = set(schema.names) - set(self._tables[name].schema.names)
                if missing:
                    raise StorageError(
                        f"{uri} was built by an older memstream ({name} lacks "
                        f"{', '.join(sorted(missing))}): rebuild it with `memstream replay`"
                    )
            else:
                self._tables[name] = self._db.create_table(name, schema=schema, exist_ok=True)

    def _migrate(self, name: str) -> None:
        """Add the columns later versions derive from existing ones (in place)."""
        table = self._tables[name]
        for column, expression in _DERIVED_COLUMNS.get(name, {}).items():
            if column not in table.schema.names:
                log.info("adding %s.%s to a store written by an older memstream", name, column)
                table.add_columns({column: expression})

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

    def insert_absent(self, name: str, rows: Rows) -> None:
        """Insert the rows whose key is not in the table yet; existing rows are untouched.
        Of rows sharing a key (an event applied twice in one batch), the first is kept."""
        if not len(rows):
            return
        key = _KEYS[name]
        data = _first_of_each_key(self._as_table(name, rows), key)
        self._tables[name].merge_insert(key).when_not_matched_insert_all().execute(data)

    def append(self, name: str, rows: Rows) -> None:
        """Append rows without a key check (for a writer that knows the keys are new)."""
        if len(rows):
            self._tables[name].add(self._as_table(name, rows))

    def upsert(self, name: str, rows: Rows) -> None:
        """Insert the rows, replacing those whose key is already there."""
        if not len(rows):
            return
        (
            self._tables[name]
            .merge_insert(_KEYS[name])
            .when_matched_update_all()
            .when_not_matched_insert_all()
            .execute(self._as_table(name, rows))
        )

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
        condition = filters.all_of(filters.is_in(_KEYS[name], ids), where or "")
        query = self._tables[name].search().where(condition)
        if columns:
            query = query.select(list(columns))
        rows: list[dict[str, Any]] = query.limit(len(ids)).to_list()
        return rows

    def rows_by_key(self, name: str, keys: Iterable[str]) -> dict[str, dict[str, Any]]:
        """The rows of ``name`` with one of ``keys``, by key."""
        key = _KEYS[name]
        return {row[key]: row for row in self.by_ids(name, sorted(set(keys)))}

    def _as_table(self, name: str, rows: Rows) -> pa.Table:
        if isinstance(rows, pa.Table):
            return rows
        return pa.Table.from_pylist(list(rows), schema=self._schemas[name])

    def save_checkpoints(self, consumer: str, positions: Checkpoints, now: datetime) -> None:
        """Record the last applied position per (topic, partition) for ``consumer``."""
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
            }
            for at in positions.values()
        ]
        self.upsert(CHECKPOINTS, pa.Table.from_pylist(rows, schema=CHECKPOINTS_SCHEMA))

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
        self, name: str, columns: Sequence[str] | None = None, where: str | None = None
    ) -> pa.Table:
        """Every row of a table (optionally some columns, optionally filtered)."""
        table = self._tables[name]
        table.checkout_latest()
        query = table.search()
        if where:
            query = query.where(where)
        if columns:
            query = query.select(list(columns))
        return query.limit(None).to_arrow()

    def count(self, name: str, where: str | None = None) -> int:
        return int(self._tables[name].count_rows(where))

    def refresh(self, names: Sequence[str] | None = None) -> None:
        """See the newest committed version of every table (or of ``names``)."""
        for name in self._tables if names is None else names:
            self._tables[name].checkout_latest()

    def ensure_indexes(self, names: Sequence[str] | None = None) -> None:
        """Create the full-text, key, scope and label indexes of tables (all, or
        ``names``) that have rows."""
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
                ("summary", _full_text_index()),
                ("archive_id", BTree()),
                ("memory_id", BTree()),
                ("user_id", BTree()),
            ],
        }
        for name, indexes in wanted.items():
            if names is not None and name not in names:
                continue
            table = self._tables[name]
            rows = table.count_rows()
            if rows == 0:
                continue
            present = {tuple(index.columns) for index in table.list_indices()}
            if name == VECTORS and rows >= ANN_INDEX_MIN_ROWS:
                indexes.append(("vector", _ann_index(rows, self.vector_dimension)))
            for column, config in indexes:
                if (column,) not in present:
                    log.info("indexing %s.%s (%d rows)", name, column, rows)
                    table.create_index(column, config=config)

    @property
    def table_names(self) -> list[str]:
        return list(self._tables)

    def optimize(self, retain: timedelta) -> None:
        """Compact fragments, index new rows, drop versions older than ``retain``."""
        for name in self._tables:
            self.optimize_table(name, retain)

    def optimize_table(self, name: str, retain: timedelta) -> None:
        """``optimize`` for one table (the caller keeps writers away meanwhile)."""
        if name in (MEMORIES, VECTORS):
            self.ensure_indexes()
        table = self._tables[name]
        if table.count_rows() == 0:
            return
        table.optimize(cleanup_older_than=retain)
        log.debug("optimized %s", name)

    def delete(self, name: str, ids: Sequence[str]) -> None:
        """Remove the rows of ``name`` whose key is one of ``ids``."""
        if ids:
            self._tables[name].delete(filters.is_in(_KEYS[name], ids))

    def full_text(
        self,
        query: str,
        where: str,
        limit: int,
        columns: Sequence[str],
        table_name: str = MEMORIES,
    ) -> list[dict[str, Any]]:
        """BM25 search over ``search_text`` (``summary`` in the archive index) restricted
        by ``where`` (a filters expression)."""
        table = self._tables[table_name]
        column = "summary" if table_name == ARCHIVE_INDEX else "search_text"
        rows: list[dict[str, Any]] = (
            table.search(query, query_type="fts", fts_columns=column)
            .where(where, prefilter=True)
            .select([*columns, "_score"])
            .limit(limit)
            .to_list()
        )
        return rows

    def nearest(
        self, vector: Sequence[float], where: str, limit: int, *, exact: bool = True
    ) -> list[tuple[str, float]]:
        """(memory id, cosine distance) of the ``limit`` vectors nearest ``vector``.

        ``exact`` compares with every vector that passes ``where`` (right for a user with
        few vectors); otherwise the ANN index is used when there is one, its candidates
        re-ranked by exact distance.
        """
        table = self._tables[VECTORS]
        query = (
            table.search(list(vector), vector_column_name="vector")
            .distance_type("cosine")
            .where(where, prefilter=True)
            .select(["memory_id", "_distance"])
            .limit(limit)
        )
        query = query.bypass_vector_index() if exact else query.nprobes(20).refine_factor(2)
        result = query.to_arrow()
        return list(
            zip(
                result.column("memory_id").to_pylist(),
                result.column("_distance").to_pylist(),
                strict=True,
            )
        )

    def session_texts(self, user_id: str, session_id: str, before: datetime) -> list[str]:
        """The ``search_text`` of a session's memories that occurred before ``before``,
        oldest first."""
        rows = (
            self._tables[MEMORIES]
            .search()
            .where(
                filters.all_of(
                    filters.equals("user_id", user_id),
                    filters.equals("session_id", session_id),
                    filters.equals("kind", "episode"),
                    filters.before("occurred_at", before),
                )
            )
            .select(["search_text", "occurred_at"])
            .limit(None)
            .to_list()
        )
        rows.sort(key=lambda r: r["occurred_at"] or _EPOCH)
        return [r["search_text"] for r in rows]

    def with_entities(
        self, entity_ids: Sequence[str], where: str, limit: int, columns: Sequence[str]
    ) -> list[dict[str, Any]]:
        """Memories linked to any of ``entity_ids``, newest first."""
        if not entity_ids:
            return []
        condition = filters.all_of(filters.has_any("entity_ids", entity_ids), where)
        rows: list[dict[str, Any]] = (
            self._tables[MEMORIES]
            .search()
            .where(condition)
            .select(list(columns))
            .limit(None)
            .to_list()
        )
        rows.sort(key=lambda r: r.get("occurred_at") or _EPOCH, reverse=True)
        return rows[:limit]

    def slot_members(self, user_id: str, slots: Sequence[str]) -> list[dict[str, Any]]:
        """(memory_id, occurred_at, slot) of a user's memories in any of ``slots``."""
        if not slots:
            return []
        rows: list[dict[str, Any]] = (
            self._tables[MEMORIES]
            .search()
            .where(filters.all_of(filters.equals("user_id", user_id), filters.is_in("slot", slots)))
            .select(["memory_id", "occurred_at", "slot"])
            .limit(None)
            .to_list()
        )
        return rows

    def sessions_needing_work(self, user_id: str | None = None) -> list[dict[str, Any]]:
        """Sessions with turns not yet closed, or closed turns not yet consolidated."""
        condition = filters.any_of(
            filters.is_null("closed_through"),
            filters.column_greater("last_at", "closed_through"),
            filters.is_null("consolidated_through"),
            filters.column_greater("closed_through", "consolidated_through"),
        )
        if user_id is not None:
            condition = filters.all_of(filters.equals("user_id", user_id), condition)
        rows: list[dict[str, Any]] = self.scan(SESSIONS, where=condition).to_pylist()
        return rows

    def session_episodes(
        self, spans: Sequence[tuple[str, str, datetime | None, datetime]]
    ) -> dict[tuple[str, str], list[dict[str, Any]]]:
        """The episodes of each span ``(user, session, after, through)`` with ``after <
        occurred_at <= through``, oldest first, keyed by ``(user, session)``.

        One scan serves many spans (the consolidation job asks for thousands at once).
        """
        if not spans:
            return {}
        wanted = {(u, s): (after, through) for u, s, after, through in spans}
        afters = [a for _, _, a, _ in spans]
        earliest = None if any(a is None for a in afters) else min(a for a in afters if a)
        condition = filters.all_of(
            filters.equals("kind", "episode"),
            filters.is_in("user_id", sorted({u for u, _ in wanted})),
            filters.is_in("session_id", sorted({s for _, s in wanted})),
            filters.at_most("occurred_at", max(t for _, _, _, t in spans)),
            filters.after("occurred_at", earliest) if earliest is not None else "",
        )
        found: dict[tuple[str, str], list[dict[str, Any]]] = {key: [] for key in wanted}
        for row in self.scan(MEMORIES, _EPISODE_TURN_COLUMNS, condition).to_pylist():
            key = (row["user_id"], row["session_id"])
            span = wanted.get(key)
            at = row["occurred_at"]
            if span is not None and at <= span[1] and (span[0] is None or at > span[0]):
                found[key].append(row)
        for rows in found.values():
            rows.sort(key=lambda r: (r["occurred_at"] or _EPOCH, r["memory_id"]))
        return found

    def watermarks(self, topic: str) -> dict[int, datetime]:
        """The newest event time applied per partition of ``topic``."""
        rows = self.scan(WATERMARKS, where=filters.equals("topic", topic)).to_pylist()
        return {r["partition"]: r["event_time"] for r in rows if r["event_time"] is not None}
