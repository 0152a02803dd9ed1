"""Index and compaction upkeep of the projection tables: which indexes each table gets
(full text, keys, scope, labels, and IVF-PQ for large vector tables), and compacting
fragments and old versions. Mixed into :class:`storage.lance_store.ProjectionStore`.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from lancedb.index import FTS, BTree, IvfPq, LabelList

from storage.lance_tables import (
    ACCESS,
    ARCHIVE_INDEX,
    ENTITIES,
    MEMORIES,
    MEMORY_STATE,
    SESSIONS,
    VECTORS,
)

__all__ = ["ANN_INDEX_MIN_ROWS", "IndexUpkeep"]

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


class IndexUpkeep:
    """Index and compaction upkeep over the store's tables."""

    _tables: dict[str, Any]

    @property
    def vector_dimension(self) -> int:
        raise NotImplementedError  # the table gateway's

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

    def optimize(self, retain: timedelta) -> None:
        """Compact fragments, index new rows, drop versions older than ``retain``."""
        for name in self._tables:
            self.optimize_table(name, retain)

    def optimize_table(self, name: str, retain: timedelta) -> None:
        """``optimize`` for one table (the caller keeps writers away meanwhile).

        Fragments are compacted before a missing index is built, so a table a replay
        just wrote is indexed once, over its compacted fragments, not indexed and then
        re-indexed by the compaction."""
        table = self._tables[name]
        if table.count_rows() > 0:
            table.optimize(cleanup_older_than=retain)
            log.debug("optimized %s", name)
        if name in (MEMORIES, VECTORS):
            self.ensure_indexes()
