"""Archive moves: an archived memory's rows leave the hot tables (with its passages'
vectors) for the archive index, a restored one comes back with its vectors, and the
archive index is reconciled with the hot tables after a crash between the two."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pyarrow as pa

from memstream.events.vocabulary import MemoryArchived
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
from memstream.storage import filters
from memstream.storage.archive.cold_store import StorageRef
from memstream.storage.lance.tables import (
    ARCHIVE_INDEX,
    MEMORIES,
    VECTORS,
)
from memstream.storage.schemas import MEMORIES_SCHEMA, vectors_schema
from memstream.streams.projector.core import (
    ProjectorCore,
    Row,
)
from memstream.text.passages import PASSAGE_VECTORS, passage_of

__all__ = ["ArchiveMoves"]


class ArchiveMoves(ProjectorCore):
    """The projector's archive moves (see the module docstring)."""

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
            self.store.upkeep.ensure_indexes([ARCHIVE_INDEX])
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
            self._insert_absent(MEMORIES, [memory for memory, _ in restored])
        vectors = [  # another model's vector is left for the embedder to make again
            v
            for _, v in restored
            if v is not None
            and len(v["vector"]) == self.store.vector_dimension
            and (self.vector_model is None or v["model"] == self.vector_model)
        ]
        if vectors:
            schema = vectors_schema(self.store.vector_dimension)
            self._insert_absent(VECTORS, pa.Table.from_pylist(vectors, schema=schema))

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
