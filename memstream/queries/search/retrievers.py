"""The searcher's retrievers: full text (BM25 on the hot table, and on the archive
index's summaries), vectors (the hot table's nearest, and the archive's 4-bit vectors,
ranked by one cosine), and entities (the memories mentioning what the query names); with
the counts and look-ups they share. A mixin of :class:`~memstream.queries.search.searcher.Searcher`,
over the state its constructor sets."""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from typing import Any

import numpy as np
import pyarrow as pa

from memstream.policies.ranking_weights import RankingWeights
from memstream.projections.archiving import ARCHIVED
from memstream.projections.compact_vectors import unpack_int4
from memstream.projections.entities import entity_id
from memstream.queries.search.candidates import (
    Nearness,
    archived_row,
    by_memory,
    request_filters,
    unlisted_similarity,
)
from memstream.queries.search.request import (
    SearchRequest,
    plain_words,
)
from memstream.queries.search.user_caches import ArchivedVectors, UserCaches
from memstream.queries.search.user_view import ROW_COLUMNS, RequestFilter, UserView
from memstream.storage import filters
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.lance.tables import (
    ARCHIVE_INDEX,
    ENTITIES,
    MEMORIES,
    VECTORS,
)
from memstream.text.mentions import EntityMention, entity_group, extract_mentions

__all__ = ["ARCHIVE_COLUMNS", "Retrievers"]

#: What search reads of an archived memory (see :func:`archived_row`).
ARCHIVE_COLUMNS = [
    # the summary, and no time of recording or role: an archived memory was recorded
    # where its original is, and its role is kept there
    *(
        "search_text" if c == "content" else c
        for c in ROW_COLUMNS
        if c not in ("ingested_at", "role")
    ),
    "storage_file",
    "storage_version",
]
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


class Retrievers:
    """The retrievers of a searcher, and the counts and look-ups they share."""

    store: ProjectionStore
    weights: RankingWeights
    _model: str | None
    _pool: ThreadPoolExecutor
    _caches: UserCaches
    _stale_seconds: float
    _non_empty: set[str]

    def _archive_filter(self, request: SearchRequest) -> str | None:
        """The request's filter on the archive index (its archived rows), or None when
        the archive is not searched (not asked, or the user has nothing archived)."""
        if not request.include_archived or not self._has_archived(request.user_id):
            return None
        return filters.all_of(request_filters(request, "archive"), ARCHIVED)

    def _has_archived(self, user_id: str) -> bool:
        """Whether the user has rows in the archive index (asked again once it changes;
        whether it changed, at most every ``stale_seconds``)."""
        version = self.store.version(ARCHIVE_INDEX, self._stale_seconds)
        return self._caches.has_archived(
            user_id,
            version,
            lambda: self.store.count(ARCHIVE_INDEX, filters.equals("user_id", user_id)) > 0,
        )

    def _vector_ids(
        self,
        request: SearchRequest,
        wanted: RequestFilter,
        query_vector: np.ndarray | None,
        cold: str | None,
        depth: int,
        view: UserView | None = None,
    ) -> Nearness:
        """The memories whose vectors (of the query's model) are nearest
        ``query_vector``, hot and archived by one cosine (see :class:`Nearness`)."""
        if query_vector is None or self.weights.vector <= 0:
            return Nearness([], [], {}, {}, None)
        nearest: list[tuple[str, float]] = []
        reach = depth * 2  # a long turn's passages are rows of their own
        exact = True  # a list shorter than asked holds every vector there is
        if view is not None:
            nearest = view.nearest(query_vector, wanted, reach, self._pool)
        elif self._has_rows(VECTORS):
            vector_where = filters.all_of(
                request_filters(request, "vectors"), filters.equals("model", self._model or "")
            )
            exact = (
                self._user_count(VECTORS, request.user_id) < self.weights.exact_vector_search_below
            )
            nearest = self.store.queries.nearest(
                query_vector.tolist(), vector_where, reach, exact=exact
            )
        archived: dict[str, tuple[float, dict[str, Any]]] = {}
        if cold is not None:
            archived = self._nearest_archived(request.user_id, query_vector, cold, depth)
        hot, matched = by_memory(nearest)
        ranked = [*hot, *((m, distance) for m, (distance, _) in archived.items())]
        ranked.sort(key=lambda pair: pair[1])
        merged = [m for m, _ in ranked[:depth]]
        lists = [(nearest, reach)]
        if cold is not None:
            lists.append(([(m, d) for m, (d, _) in archived.items()], depth))
        return Nearness(
            merged,
            [archived[m][1] for m in merged if m in archived],
            matched,
            {m: round(1.0 - distance, 6) for m, distance in ranked},
            unlisted_similarity(lists),
            every_hot=exact and len(nearest) < reach,
            every_cold=cold is not None and len(archived) < depth,
        )

    def _nearest_archived(
        self, user_id: str, query_vector: np.ndarray, cold: str, depth: int
    ) -> dict[str, tuple[float, dict[str, Any]]]:
        """The archived memories nearest the query by their 4-bit vectors (exact: every
        archived vector the filter lets through): cosine distance and search row by id."""
        where = filters.all_of(cold, filters.equals("vector_model", self._model or ""))
        table, matrix = self._archived_vectors(user_id, where, len(query_vector))
        if table.num_rows == 0:
            return {}
        query = np.asarray(query_vector, dtype=np.float32)
        cosine = (matrix @ query) / (float(np.linalg.norm(query)) or 1.0)
        best = np.argsort(-cosine, kind="stable")[:depth]
        rows = table.take(pa.array(best, type=pa.int64())).to_pylist()
        return {
            r["memory_id"]: (float(1.0 - cosine[i]), archived_row(r))
            for i, r in zip(best, rows, strict=True)
        }

    def _archived_vectors(self, user_id: str, where: str, dimension: int) -> ArchivedVectors:
        """The search columns and unit vectors of the archived memories ``where``
        selects, read once per version of the archive index (it changes only when
        memories are archived, expanded or restored) and kept for the next searches."""

        def loaded() -> ArchivedVectors:
            table = self.store.queries.compact_vectors(where, ARCHIVE_COLUMNS)
            matrix = unpack_int4(
                table.column("vector").to_pylist(),
                table.column("vector_scale").to_pylist(),
                dimension,
            )
            norms = np.linalg.norm(matrix, axis=1, keepdims=True)
            norms[norms == 0] = 1.0
            return table.drop_columns(["vector", "vector_scale"]), matrix / norms

        version = self.store.version(ARCHIVE_INDEX, self._stale_seconds)
        return self._caches.archived_vectors(user_id, where, version, loaded)

    def _user_count(self, table: str, user_id: str) -> int:
        """How many rows of ``table`` belong to ``user_id`` (remembered for a minute)."""
        return self._caches.count(
            user_id, table, lambda: self.store.count(table, filters.equals("user_id", user_id))
        )

    def _query_mentions(self, query: str, now: datetime) -> list[EntityMention]:
        """The entities (not dates) the query names that the entity retriever looks
        for (none when it is off)."""
        if self.weights.entity <= 0:
            return []
        return [m for m in extract_mentions(query, None, now) if m.type != "date"]

    def _entity_rows(
        self,
        request: SearchRequest,
        mentions: list[EntityMention],
        where: str,
        wanted: RequestFilter,
        cold: str | None,
        depth: int,
        view: UserView | None,
    ) -> list[dict[str, Any]]:
        """Memories (hot and archived) linked to the entities ``mentions`` (the query's)
        name, most entities matched first, then newest first; the user's hot ones from
        ``view`` when there is one."""
        ids = self._entity_ids(request.user_id, mentions, self.weights.entity_max_share, view)
        if not ids:
            return []
        if view is not None:
            rows = view.with_entities(ids, wanted, depth, ROW_COLUMNS)
        else:
            rows = self.store.queries.with_entities(ids, where, depth, ROW_COLUMNS)
        if cold is not None:
            found = self.store.queries.with_entities(
                ids, cold, depth, ARCHIVE_COLUMNS, ARCHIVE_INDEX
            )
            rows += [archived_row(r) for r in found]
        named = set(ids)
        rows.sort(
            key=lambda r: (
                -len(named.intersection(r["entity_ids"] or ())),
                -(r["occurred_at"] or _EPOCH).timestamp(),
            )
        )
        return rows[:depth]

    def _has_rows(self, table: str) -> bool:
        """Whether ``table`` has rows (once it has, it is not asked again)."""
        if table not in self._non_empty and self.store.count(table):
            self._non_empty.add(table)
        return table in self._non_empty

    def _full_text(
        self,
        query: str,
        where: str,
        wanted: RequestFilter,
        depth: int,
        view: UserView | None = None,
    ) -> list[dict[str, Any]]:
        """BM25 over the hot memories, best first: in ``view`` (the user's own word
        statistics; ``wanted`` filters; only the ids and scores) when given, else in the
        tables' full-text index (``where`` filters; the rows)."""
        if not self._has_rows(MEMORIES):
            return []
        if view is not None:  # ids and scores: the rows are read as they are ranked
            return [{"memory_id": m, "_score": s} for m, s in view.full_text(query, wanted, depth)]
        try:
            return self.store.queries.full_text(plain_words(query), where, depth, ROW_COLUMNS)
        except (ValueError, RuntimeError):  # no full-text index yet (the first seconds)
            return []

    def _archived_full_text(self, query: str, cold: str | None, depth: int) -> list[dict[str, Any]]:
        """BM25 over the archived summaries (speaker first), best first."""
        if cold is None:
            return []
        words = plain_words(query)
        try:
            found = self.store.queries.full_text(words, cold, depth, ARCHIVE_COLUMNS, ARCHIVE_INDEX)
        except (ValueError, RuntimeError, OSError):  # no summary indexed yet
            return []
        return [archived_row(r) for r in found]

    def _entity_ids(
        self,
        user_id: str,
        mentions: Sequence[EntityMention],
        max_share: float,
        view: UserView | None = None,
    ) -> list[str]:
        """The ids of the query's entities and of every alias they answer to (the
        user's entities from ``view`` when there is one).

        An entity in more than ``max_share`` of the user's memories (the user's own
        name, a chat partner's) says little about which memory is meant: left out.
        """
        keys = [m.key for m in mentions]
        if view is not None:
            known = view.entities_named(keys)
        else:
            known = self.store.scan(
                ENTITIES,
                columns=["entity_id", "type", "aliases", "mention_count"],
                where=filters.all_of(
                    filters.equals("user_id", user_id), filters.has_any("aliases", keys)
                ),
            ).to_pylist()
        total = self._user_count(MEMORIES, user_id)
        ids: dict[str, None] = {}
        for row in known:
            if row["mention_count"] > max_share * total:
                continue
            ids[row["entity_id"]] = None
            group = entity_group(row["type"])
            for alias in row["aliases"] or ():
                ids[entity_id(user_id, group, alias)] = None
        return list(ids)

    def _entity_names(
        self, rows: Sequence[dict[str, Any]], view: UserView | None = None
    ) -> dict[str, str]:
        """The canonical name of each entity ``rows`` link to (from ``view``, the user's
        entities, when there is one: an id is the user's own, and an id with no entity
        row, an alias's, has no name either way)."""
        ids = list(dict.fromkeys(e for r in rows for e in (r.get("entity_ids") or ())))
        if not ids:
            return {}
        if view is not None:
            return {e: view.entity_names[e] for e in ids if e in view.entity_names}
        found = self.store.by_ids(ENTITIES, ids, ["entity_id", "canonical_name"])
        return {r["entity_id"]: r["canonical_name"] for r in found}
