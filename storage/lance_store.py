"""The LanceDB tables of one projection generation: memories, checkpoints, dead letters.

This module owns table creation, idempotent writes (insert-if-absent keyed by id),
applied-offset checkpoints, index upkeep and compaction. It knows column names, not
events: callers hand it rows.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any, TypeAlias

import lancedb
import pyarrow as pa
from lancedb.index import FTS, BTree

from storage.schemas import (
    CHECKPOINTS_SCHEMA,
    DEAD_LETTERS_SCHEMA,
    MEMORIES_SCHEMA,
    Checkpoint,
)

__all__ = ["Checkpoint", "ProjectionStore"]

log = logging.getLogger(__name__)

MEMORIES = "memories"
CHECKPOINTS = "checkpoints"
DEAD_LETTERS = "dead_letters"

_SCHEMAS = {
    MEMORIES: MEMORIES_SCHEMA,
    CHECKPOINTS: CHECKPOINTS_SCHEMA,
    DEAD_LETTERS: DEAD_LETTERS_SCHEMA,
}
_KEYS = {MEMORIES: "memory_id", CHECKPOINTS: "checkpoint_id", DEAD_LETTERS: "dead_letter_id"}

#: Rows to write: dicts, or an Arrow table already in the table's schema.
Rows: TypeAlias = Sequence[Mapping[str, Any]] | pa.Table


class ProjectionStore:
    """One folder of LanceDB tables holding the projected state.

    Args:
        uri: the LanceDB folder (local path or ``s3://``).
        read_consistency_interval: how stale a read may be when another process writes;
            ``None`` reads the state as of opening (fine for the single writer).
    """

    def __init__(self, uri: str, *, read_consistency_interval: timedelta | None = None) -> None:
        self.uri = uri
        self._db = lancedb.connect(uri, read_consistency_interval=read_consistency_interval)
        existing = set(self._db.list_tables().tables)
        self._tables = {
            name: self._db.open_table(name)
            if name in existing
            else self._db.create_table(name, schema=schema, exist_ok=True)
            for name, schema in _SCHEMAS.items()
        }

    def table(self, name: str) -> Any:
        """The LanceDB table called ``name`` (memories, checkpoints, dead_letters)."""
        return self._tables[name]

    def insert_absent(self, name: str, rows: Rows) -> None:
        """Insert the rows whose key is not in the table yet; existing rows are untouched."""
        if not len(rows):
            return
        data = self._as_table(name, rows)
        key = _KEYS[name]
        self._tables[name].merge_insert(key).when_not_matched_insert_all().execute(data)

    def append(self, name: str, rows: Rows) -> None:
        """Append rows without a key check (for a writer that knows the keys are new)."""
        if len(rows):
            self._tables[name].add(self._as_table(name, rows))

    @staticmethod
    def _as_table(name: str, rows: Rows) -> pa.Table:
        if isinstance(rows, pa.Table):
            return rows
        return pa.Table.from_pylist(list(rows), schema=_SCHEMAS[name])

    def save_checkpoints(
        self, consumer: str, positions: Mapping[tuple[str, int], Checkpoint], now: datetime
    ) -> None:
        """Record the last applied (epoch, offset) per (topic, partition) for ``consumer``."""
        if not positions:
            return
        rows = [
            {
                "checkpoint_id": f"{consumer}|{topic}|{partition}",
                "consumer": consumer,
                "topic": topic,
                "partition": partition,
                "log_epoch": epoch,
                "offset": offset,
                "updated_at": now,
            }
            for (topic, partition), (epoch, offset) in positions.items()
        ]
        data = pa.Table.from_pylist(rows, schema=CHECKPOINTS_SCHEMA)
        (
            self._tables[CHECKPOINTS]
            .merge_insert("checkpoint_id")
            .when_matched_update_all()
            .when_not_matched_insert_all()
            .execute(data)
        )

    def load_checkpoints(self, consumer: str | None = None) -> dict[tuple[str, int], Checkpoint]:
        """The stored (epoch, offset) per (topic, partition), for one consumer or all."""
        table = self.scan(CHECKPOINTS)
        found: dict[tuple[str, int], Checkpoint] = {}
        for row in table.to_pylist():
            if consumer is None or row["consumer"] == consumer:
                found[(row["topic"], row["partition"])] = (row["log_epoch"], row["offset"])
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

    def refresh(self) -> None:
        """See the newest committed version of every table."""
        for table in self._tables.values():
            table.checkout_latest()

    def ensure_indexes(self) -> None:
        """Create the full-text and key indexes once the memories table has rows."""
        table = self._tables[MEMORIES]
        if table.count_rows() == 0:
            return
        present = {tuple(index.columns) for index in table.list_indices()}
        if ("search_text",) not in present:
            table.create_index(
                "search_text",
                config=FTS(
                    with_position=False, stem=True, remove_stop_words=True, ascii_folding=True
                ),
            )
        if ("memory_id",) not in present:
            table.create_index("memory_id", config=BTree())
        if ("user_id",) not in present:
            table.create_index("user_id", config=BTree())

    @property
    def table_names(self) -> list[str]:
        return list(self._tables)

    def optimize(self, retain: timedelta) -> None:
        """Compact fragments, index new rows, drop versions older than ``retain``."""
        for name in self._tables:
            self.optimize_table(name, retain)

    def optimize_table(self, name: str, retain: timedelta) -> None:
        """``optimize`` for one table (the caller keeps writers away meanwhile)."""
        if name == MEMORIES:
            self.ensure_indexes()
        table = self._tables[name]
        if table.count_rows() == 0:
            return
        table.optimize(cleanup_older_than=retain)
        log.debug("optimized %s", name)

    def full_text(
        self, query: str, where: str, limit: int, columns: Sequence[str]
    ) -> list[dict[str, Any]]:
        """BM25 search over ``search_text`` restricted by ``where`` (a filters expression)."""
        table = self._tables[MEMORIES]
        rows: list[dict[str, Any]] = (
            table.search(query, query_type="fts", fts_columns="search_text")
            .where(where, prefilter=True)
            .select([*columns, "_score"])
            .limit(limit)
            .to_list()
        )
        return rows
