"""Hybrid retrieval: full text, vectors and entities, fused, then adjusted.

A search runs up to three retrievers over the memories a user may see (the scope rule,
:mod:`projections.scope`, plus the request's kind, tag and time filters, all built from
validated values; the query text goes to the BM25 index and the embedder as text,
never into a filter):

- full text: BM25 over the speaker-prefixed content;
- vectors: cosine nearest neighbours of the query's embedding, among vectors made by
  the same model;
- entities: memories linked to the people, places, dates... the query names, resolved
  through each entity's aliases.

The ranked lists are fused by weighted reciprocal rank fusion, then each score is
adjusted by recency, importance, confidence, access and (for "when" questions) whether
the memory names a date. Time phrases in the query ("last week", "in May") resolved
against ``now`` favour memories of that time; explicit ``after``/``before`` filter.
Superseded and soft-deleted rows are never returned.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta
from typing import Annotated, Any

import numpy as np
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, StrictBool, field_validator

from projections.access import access_id
from projections.archiving import ARCHIVED
from projections.clock import Clock, system_clock
from projections.entities import EntityMention, entity_id, extract_mentions
from projections.events import Identifier, Tag, UtcDateTime
from projections.intent import Intent, IntentClassifier
from projections.memory_state import effective_confidence, is_hidden, state_id
from projections.ranking import RankingWeights, adjusted, fuse
from projections.scope import scope_filter, without_controls
from projections.timephrases import query_range
from storage import filters
from storage.lance_store import ProjectionStore
from storage.lance_tables import ACCESS, ARCHIVE_INDEX, ENTITIES, MEMORIES, MEMORY_STATE, VECTORS

__all__ = [
    "SearchRequest",
    "SearchResponse",
    "SearchResult",
    "Searcher",
    "plain_words",
    "search",
]

MEMORY_KINDS = ("episode", "fact", "preference", "procedure", "opinion", "reflection", "summary")

_ROW_COLUMNS = (
    "memory_id",
    "kind",
    "content",
    "session_id",
    "occurred_at",
    "speaker",
    "source_event_ids",
    "entity_ids",
    "importance",
    "confidence",
)
#: Characters the full-text query parser treats as syntax; searched as plain words.
_QUERY_SYNTAX = re.compile(r"[^\w\s'@.-]+")


_KIND_PATTERN = "^(" + "|".join(MEMORY_KINDS) + ")$"


def _whole_number(value: object) -> object:
    """A JSON number without a fraction (``5`` or ``5.0``), never text or a boolean."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError("must be a whole number")
    if isinstance(value, float) and not value.is_integer():
        raise ValueError("must be a whole number")
    return int(value)


class SearchRequest(BaseModel):
    """What a caller asks: validated before anything reads the store."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    user_id: Identifier
    project_id: Identifier | None = None
    #: any text with at least one word (letters or digits) in it
    query: str = Field(min_length=1, max_length=2000, pattern=r"[\w'@.-]")
    k: Annotated[int, BeforeValidator(_whole_number)] = Field(default=10, ge=1, le=200)
    now: UtcDateTime | None = None
    after: UtcDateTime | None = None
    before: UtcDateTime | None = None
    kinds: list[Annotated[str, Field(pattern=_KIND_PATTERN)]] | None = Field(
        default=None, max_length=len(MEMORY_KINDS)
    )
    tags: list[Tag] | None = Field(default=None, max_length=32)
    #: also return superseded, forgotten and pruned memories (the history)
    include_history: StrictBool = False
    #: also search the summaries of archived memories (otherwise only when the active
    #: results are fewer than asked or weak, or the query asks about the past)
    include_archived: StrictBool = False

    @field_validator("query")
    @classmethod
    def _has_words(cls, value: str) -> str:
        value = without_controls(value)  # a pasted NUL or tab is no part of a question
        if not plain_words(value):
            raise ValueError("must contain at least one word")
        return value

    @field_validator("kinds")
    @classmethod
    def _known_kinds(cls, value: list[str] | None) -> list[str] | None:
        if value is None:
            return None
        unknown = sorted(set(value) - set(MEMORY_KINDS))
        if unknown:
            raise ValueError(f"unknown kind {unknown[0]!r} (known: {', '.join(MEMORY_KINDS)})")
        return value


class SearchResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    memory_id: str
    kind: str
    content: str
    score: float
    session_id: str | None
    occurred_at: datetime | None
    speaker: str | None
    source_event_ids: list[str]
    entities: list[str]
    confidence: float | None = None
    superseded_by: str | None = None
    forgotten: bool = False
    #: an archived memory: ``content`` is its summary, the original is at ``storage_ref``
    archived: bool = False
    storage_ref: str | None = None


class SearchResponse(BaseModel):
    results: list[SearchResult]
    intent: Intent
    took_ms: float


def plain_words(query: str) -> str:
    """The query with parser syntax removed, so any user text searches as words."""
    return " ".join(_QUERY_SYNTAX.sub(" ", query).split())


class Searcher:
    """Answers :class:`SearchRequest` s from a store.

    Args:
        store: the projections.
        embed: the query embedder of the model the store's vectors were made with (None:
            no vector retrieval).
        model: that model's name (vectors of other models are not searched).
        weights: fusion and adjustment weights.
        clock: the current time, when a request gives no ``now``.
    """

    def __init__(
        self,
        store: ProjectionStore,
        embed: Callable[[str], np.ndarray] | None = None,
        model: str | None = None,
        weights: RankingWeights | None = None,
        clock: Clock = system_clock,
    ) -> None:
        self.store = store
        self._embed = embed
        self._model = model
        self.weights = weights or RankingWeights()
        self._clock = clock
        self._intent = IntentClassifier(embed)
        self._pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="memstream-search")
        self._non_empty: set[str] = set()
        self._user_counts: dict[tuple[str, str], tuple[int, float]] = {}

    def search(self, request: SearchRequest) -> SearchResponse:
        """The best ``request.k`` memories, fused and adjusted (see the module docstring).

        The three retrievers run at once on a small thread pool (LanceDB releases the
        GIL), and so do the row and access look-ups that follow.
        """
        started = time.perf_counter()
        now = request.now or self._clock()
        w = self.weights
        depth = max(w.candidates, request.k)
        where = _filters(request, "memories")
        pool = self._pool
        text_job = pool.submit(self._full_text, request.query, where, depth)
        vector_job = pool.submit(self._vector_ids, request, depth)
        entity_job = pool.submit(self._entity_rows, request, where, depth, now)
        query_vector, vector_ids = vector_job.result()
        intent = self._intent(request.query, query_vector)
        text_rows, entity_rows = text_job.result(), entity_job.result()

        rows: dict[str, dict[str, Any]] = {}
        for found in (text_rows, entity_rows):
            rows.update((r["memory_id"], r) for r in found)
        lists = [
            (w.full_text, [r["memory_id"] for r in text_rows]),
            (w.vector, vector_ids),
            (w.entity, [r["memory_id"] for r in entity_rows]),
        ]
        fused = fuse([(weight, ids) for weight, ids in lists if ids], w.rrf_k)
        missing = [m for m in fused if m not in rows]
        fetch_job = pool.submit(self.store.by_ids, MEMORIES, missing, _ROW_COLUMNS, where)
        access_job = pool.submit(self._access_counts, request.user_id, list(fused))
        state_job = pool.submit(self._states, request.user_id, list(fused))
        rows.update((r["memory_id"], r) for r in fetch_job.result())
        accesses = access_job.result()
        states = state_job.result()
        if not request.include_history:
            fused = {m: s for m, s in fused.items() if not is_hidden(states.get(m))}
        for m, state in states.items():
            if m in rows:
                rows[m] = {
                    **rows[m],
                    "confidence": effective_confidence(rows[m].get("confidence"), state),
                    "_state": state,
                }
        span = query_range(request.query, now)
        scored = sorted(
            (
                (
                    adjusted(
                        score,
                        rows[m],
                        now=now,
                        weights=w,
                        intent=intent,
                        access_count=accesses.get(m, 0),
                        time_range=span,
                    ),
                    m,
                )
                for m, score in fused.items()
                if m in rows
            ),
            reverse=True,
        )[: request.k]
        names = self._entity_names([rows[m] for _, m in scored])
        results = [_result(rows[m], score, names) for score, m in scored]
        if self._has_rows(ARCHIVE_INDEX) and self._wants_archive(request, results, span, now):
            results = self._with_archived(request, results)
        took = (time.perf_counter() - started) * 1000
        return SearchResponse(results=results, intent=intent, took_ms=round(took, 2))

    def _wants_archive(
        self,
        request: SearchRequest,
        found: list[SearchResult],
        span: tuple[datetime, datetime] | None,
        now: datetime,
    ) -> bool:
        """Look in the archive when asked to, when the active results are fewer than
        asked, when the best of them is weak (under ``archive_weak_score``: no retriever
        ranked it near the top), or when the query asks about the past ("did we ever",
        "back in 2023", a time older than the hot window)."""
        if request.include_archived or len(found) < request.k:
            return True
        if found[0].score < self.weights.archive_weak_score:
            return True
        if _ASKS_ABOUT_PAST.search(request.query):
            return True
        hot_since = now - timedelta(days=self.weights.hot_window_days)
        return span is not None and span[0] < hot_since

    def _with_archived(
        self, request: SearchRequest, active: list[SearchResult]
    ) -> list[SearchResult]:
        """The active results boosted by ``active_boost``, merged with the best archived
        summaries (scored by their full-text rank as the fusion would)."""
        where = filters.all_of(_filters(request, "vectors"), ARCHIVED)
        try:
            rows = self.store.full_text(
                plain_words(request.query), where, request.k, _ARCHIVE_COLUMNS, ARCHIVE_INDEX
            )
        except (ValueError, RuntimeError, OSError):  # no summary indexed yet
            rows = []
        seen = {r.memory_id for r in active}
        rows = [r for r in rows if r["memory_id"] not in seen]
        if not rows:
            return active
        w = self.weights
        merged = [
            r.model_copy(update={"score": round(r.score * w.active_boost, 6)}) for r in active
        ]
        merged += [
            SearchResult(
                memory_id=r["memory_id"],
                kind=r["kind"] or "episode",
                content=r["summary"],
                score=round(w.full_text / (w.rrf_k + rank), 6),
                session_id=r["session_id"],
                occurred_at=r["occurred_at"],
                speaker=r["speaker"],
                source_event_ids=[],
                entities=[],
                archived=True,
                storage_ref=r["storage_ref"],
            )
            for rank, r in enumerate(rows, start=1)
        ]
        merged.sort(key=lambda r: (-r.score, r.memory_id))
        return merged[: request.k]

    def _vector_ids(
        self, request: SearchRequest, depth: int
    ) -> tuple[np.ndarray | None, list[str]]:
        """The query's vector and the ids of the nearest memory vectors of its model."""
        if self._embed is None:
            return None, []
        query_vector = self._embed(request.query)
        if self.weights.vector <= 0 or not self._has_rows(VECTORS):
            return query_vector, []
        vector_where = filters.all_of(
            _filters(request, "vectors"), filters.equals("model", self._model or "")
        )
        exact = self._user_count(VECTORS, request.user_id) < self.weights.exact_vector_search_below
        nearest = self.store.nearest(query_vector.tolist(), vector_where, depth, exact=exact)
        return query_vector, [memory_id for memory_id, _ in nearest]

    def _user_count(self, table: str, user_id: str) -> int:
        """How many rows of ``table`` belong to ``user_id`` (remembered for a minute)."""
        now = time.monotonic()
        cached = self._user_counts.get((table, user_id))
        if cached is None or now - cached[1] > 60:
            count = self.store.count(table, filters.equals("user_id", user_id))
            cached = (count, now)
            self._user_counts[(table, user_id)] = cached
        return cached[0]

    def _entity_rows(
        self, request: SearchRequest, where: str, depth: int, now: datetime
    ) -> list[dict[str, Any]]:
        """Memories linked to the entities the query names, most entities matched first."""
        if self.weights.entity <= 0:
            return []
        mentions = [m for m in extract_mentions(request.query, None, now) if m.type != "date"]
        if not mentions:
            return []
        ids = self._entity_ids(request.user_id, mentions, self.weights.entity_max_share)
        rows = self.store.with_entities(ids, where, depth, _ROW_COLUMNS)
        wanted = set(ids)
        rows.sort(key=lambda r: -len(wanted.intersection(r["entity_ids"] or ())))
        return rows

    def _access_counts(self, user_id: str, memory_ids: list[str]) -> dict[str, int]:
        """How often ``user_id`` was shown each memory (by memory id)."""
        if not memory_ids or not self._has_rows(ACCESS):
            return {}
        keys = [access_id(user_id, m) for m in memory_ids]
        found = self.store.by_ids(ACCESS, keys, ["memory_id", "access_count"])
        return {r["memory_id"]: int(r["access_count"]) for r in found}

    def _states(self, user_id: str, memory_ids: list[str]) -> dict[str, dict[str, Any]]:
        """What happened to these memories since they were written (by memory id)."""
        if not memory_ids or not self._has_rows(MEMORY_STATE):
            return {}
        found = self.store.by_ids(MEMORY_STATE, [state_id(user_id, m) for m in memory_ids])
        return {r["memory_id"]: r for r in found}

    def _has_rows(self, table: str) -> bool:
        """Whether ``table`` has rows (once it has, it is not asked again)."""
        if table not in self._non_empty and self.store.count(table):
            self._non_empty.add(table)
        return table in self._non_empty

    def _full_text(self, query: str, where: str, depth: int) -> list[dict[str, Any]]:
        if not self._has_rows(MEMORIES):
            return []
        try:
            return self.store.full_text(plain_words(query), where, depth, _ROW_COLUMNS)
        except (ValueError, RuntimeError):  # no full-text index yet (the first seconds)
            return []

    def _entity_ids(
        self, user_id: str, mentions: Sequence[EntityMention], max_share: float
    ) -> list[str]:
        """The ids of the query's entities and of every alias they answer to.

        An entity in more than ``max_share`` of the user's memories (the user's own
        name, a chat partner's) says little about which memory is meant: left out.
        """
        keys = [m.key for m in mentions]
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
            for alias in row["aliases"] or ():
                ids[entity_id(user_id, row["type"], alias)] = None
        return list(ids)

    def _entity_names(self, rows: Sequence[dict[str, Any]]) -> dict[str, str]:
        ids = list(dict.fromkeys(e for r in rows for e in (r.get("entity_ids") or ())))
        if not ids:
            return {}
        found = self.store.by_ids(ENTITIES, ids, ["entity_id", "canonical_name"])
        return {r["entity_id"]: r["canonical_name"] for r in found}


def search(
    store: ProjectionStore, request: SearchRequest, *, weights: RankingWeights | None = None
) -> list[SearchResult]:
    """Full text and entities only (no embedder): the results of ``request``."""
    return Searcher(store, weights=weights).search(request).results


#: Queries about the past look in the archive too.
_ASKS_ABOUT_PAST = re.compile(
    r"\b(did (we|i|you) ever|have (we|i|you) ever|back in|years? ago|long ago|"
    r"used to|in the past|way back)\b",
    re.IGNORECASE,
)
_ARCHIVE_COLUMNS = [
    "memory_id",
    "kind",
    "summary",
    "session_id",
    "occurred_at",
    "speaker",
    "storage_ref",
]


def _filters(request: SearchRequest, table: str) -> str:
    """The scope, kind, tag and time filters of a request for ``memories`` or ``vectors``."""
    if table == "memories":
        scope = scope_filter(request.user_id, request.project_id)
    else:  # the vectors table has the scope columns, not the lifecycle ones
        user = filters.equals("user_id", request.user_id)
        project = (
            filters.is_null("project_id")
            if request.project_id is None
            else filters.any_of(
                filters.is_null("project_id"), filters.equals("project_id", request.project_id)
            )
        )
        scope = filters.all_of(user, project)
    parts = [scope]
    if request.kinds:
        parts.append(filters.is_in("kind", request.kinds))
    if request.tags and table == "memories":
        parts.append(filters.has_any("tags", request.tags))
    if request.after:
        parts.append(filters.at_least("occurred_at", request.after))
    if request.before:
        parts.append(filters.before("occurred_at", request.before))
    return filters.all_of(*parts)


def _result(row: dict[str, Any], score: float, names: dict[str, str]) -> SearchResult:
    state = row.get("_state")
    return SearchResult(
        memory_id=row["memory_id"],
        kind=row["kind"],
        content=row["content"],
        score=round(score, 6),
        session_id=row["session_id"],
        occurred_at=row["occurred_at"],
        speaker=row["speaker"],
        source_event_ids=list(row["source_event_ids"] or []),
        entities=[names[e] for e in (row.get("entity_ids") or ()) if e in names],
        confidence=None if row.get("confidence") is None else round(float(row["confidence"]), 6),
        superseded_by=state["superseded_by"] if state else None,
        forgotten=bool(state and state["forgotten_at"] is not None),
    )
