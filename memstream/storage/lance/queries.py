"""The domain queries retrieval and the lifecycle jobs ask of the projection tables:
full text, nearest vectors, memories by entity or slot, a session's turns, sessions
needing work, watermarks. A part of :class:`memstream.storage.lance.store.ProjectionStore`,
reached as ``store.queries`` (a store pinned to a moment has its own).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from memstream.storage import filters
from memstream.storage.lance.tables import ARCHIVE_INDEX, MEMORIES, SESSIONS, VECTORS, WATERMARKS

if TYPE_CHECKING:
    from memstream.storage.lance.store import ProjectionStore

__all__ = ["ProjectionQueries"]

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

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


class ProjectionQueries:
    """Read queries over the store's tables (see the module docstring)."""

    def __init__(self, store: ProjectionStore) -> None:
        self._store = store

    def full_text(
        self,
        query: str,
        where: str,
        limit: int,
        columns: Sequence[str],
        table_name: str = MEMORIES,
    ) -> list[dict[str, Any]]:
        """BM25 search over ``search_text`` (of ``memories`` or ``archive_index``)
        restricted by ``where`` (a filters expression)."""
        table = self._store.table(table_name)
        rows: list[dict[str, Any]] = (
            table.search(query, query_type="fts", fts_columns="search_text")
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
        table = self._store.table(VECTORS)
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
            self._store.table(MEMORIES)
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

    def compact_vectors(self, where: str, columns: Sequence[str] = ("memory_id",)) -> pa.Table:
        """``columns``, ``vector`` (4-bit, packed) and ``vector_scale`` of the archive
        index rows that pass ``where`` and have a vector."""
        return self._store.scan(
            ARCHIVE_INDEX,
            [*columns, "vector", "vector_scale"],
            filters.all_of(where, filters.is_not_null("vector")),
        )

    def with_entities(
        self,
        entity_ids: Sequence[str],
        where: str,
        limit: int,
        columns: Sequence[str],
        table_name: str = MEMORIES,
    ) -> list[dict[str, Any]]:
        """Memories (of ``memories`` or ``archive_index``) linked to any of
        ``entity_ids``, newest first."""
        if not entity_ids:
            return []
        condition = filters.all_of(filters.has_any("entity_ids", entity_ids), where)
        return self._newest(table_name, condition, columns, limit)

    def facts_stating(
        self, attributes: Sequence[str], where: str, columns: Sequence[str], limit: int
    ) -> list[dict[str, Any]]:
        """Memories stating any of ``attributes`` (an attribute ending in ``:`` stands
        for every one it starts: ``sister:`` for ``sister:rita``), that pass ``where``,
        newest first, at most ``limit``."""
        if not attributes:
            return []
        whole = [a for a in attributes if not a.endswith(":")]
        condition = filters.all_of(
            filters.any_of(
                filters.is_in("attribute", whole) if whole else "",
                *(filters.starts_with("attribute", a) for a in attributes if a.endswith(":")),
            ),
            where,
        )
        return self._newest(MEMORIES, condition, columns, limit)

    def _newest(
        self, table_name: str, where: str, columns: Sequence[str], limit: int
    ) -> list[dict[str, Any]]:
        """``columns`` of the rows of ``table_name`` that pass ``where``, newest first
        (by ``occurred_at``), at most ``limit``."""
        rows: list[dict[str, Any]] = (
            self._store.table(table_name)
            .search()
            .where(where)
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
            self._store.table(MEMORIES)
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
        rows: list[dict[str, Any]] = self._store.scan(SESSIONS, where=condition).to_pylist()
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
        for row in self._store.scan(MEMORIES, _EPISODE_TURN_COLUMNS, condition).to_pylist():
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
        rows = self._store.scan(WATERMARKS, where=filters.equals("topic", topic)).to_pylist()
        return {r["partition"]: r["event_time"] for r in rows if r["event_time"] is not None}
