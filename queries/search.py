"""Hybrid retrieval: full text, vectors and entities, fused, then adjusted.

A search runs up to three retrievers over the memories a user may see (the scope rule,
:mod:`memstream.projections.scope`, plus the request's kind, tag and time filters, all built from
validated values; the query text goes to the BM25 index and the embedder as text,
never into a filter):

- full text: BM25 over the speaker-prefixed content;
- vectors: cosine nearest neighbours of the query's embedding, among vectors made by
  the same model;
- entities: memories linked to the people, places, dates... the query names, resolved
  through each entity's aliases.

Each looks in the hot tables and in the archive index (archived memories: their
summary, speaker first; their vector at 4 bits a dimension; their entities) and ranks
both by one score, so an archived memory is found as it was when hot; it comes back
with its provenance and storage reference.

The ranked lists are fused by weighted reciprocal rank fusion, then each score is
adjusted by recency, importance, confidence, access and (for "when" questions) whether
the memory names a date. Time phrases in the query ("last week", "in May") resolved
against ``now`` favour memories of that time; explicit ``after``/``before`` filter.
Superseded and soft-deleted rows are never returned, nor a memory that says again what
a better-ranked one says (a turn a fact above came from, a fact whose turns are shown
above): the ``k`` results are ``k`` pieces of evidence.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TypeVar

import numpy as np
import pyarrow as pa

from memstream.projections.access import access_id
from memstream.projections.archiving import ARCHIVED, storage_ref_of, summary_of
from memstream.projections.clock import Clock, system_clock
from memstream.projections.compact_vectors import unpack_int4
from memstream.projections.documents import CHUNK_KIND
from memstream.projections.entities import (
    EntityMention,
    entity_group,
    entity_id,
    extract_mentions,
)
from memstream.projections.intent import IntentClassifier
from memstream.projections.memory_state import effective_confidence, is_hidden, state_id
from memstream.projections.neighbours import SessionOrder, spread
from memstream.projections.passages import passage_of, passages
from memstream.projections.ranking import (
    RankingWeights,
    adjusted,
    adjustment_bound,
    fuse,
    without_restatements,
)
from memstream.projections.scope import scope_filter
from memstream.projections.speakers import named_speaker, without_speaker
from memstream.projections.timephrases import query_range
from memstream.queries.read_model import ROW_COLUMNS, ReadModel, RequestFilter, UserView
from memstream.queries.search_documents import (
    DocumentSource,
    PassageSpan,
    SearchRequest,
    SearchResponse,
    SearchResult,
    plain_words,
)
from memstream.storage import filters
from memstream.storage.lance_store import ProjectionStore
from memstream.storage.lance_tables import (
    ACCESS,
    ARCHIVE_INDEX,
    ENTITIES,
    MEMORIES,
    MEMORY_STATE,
    VECTORS,
)

__all__ = [
    "Nearness",
    "SearchRequest",
    "SearchResponse",
    "SearchResult",
    "Searcher",
    "plain_words",
    "search",
]


class Searcher:
    """Answers :class:`SearchRequest` s from a store.

    Args:
        store: the projections.
        embed: the query embedder of the model the store's vectors were made with (None:
            no vector retrieval).
        model: that model's name (vectors of other models are not searched).
        weights: fusion and adjustment weights.
        clock: the current time, when a request gives no ``now``.
        cache_rows: most rows (memories and vectors) of recently searched users kept in
            memory (:mod:`memstream.queries.read_model`); 0 asks the tables for every search.
        stale_seconds: how stale what it keeps (the users in memory, which users have
            archived memories, their decoded archive vectors) may be: the reader's read
            consistency; 0 asks the tables whether they moved before every search.
    """

    def __init__(
        self,
        store: ProjectionStore,
        embed: Callable[[str], np.ndarray] | None = None,
        model: str | None = None,
        weights: RankingWeights | None = None,
        clock: Clock = system_clock,
        cache_rows: int = 0,
        stale_seconds: float = 0.0,
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
        self._cold_vectors: OrderedDict[tuple[str, int], tuple[pa.Table, np.ndarray]] = (
            OrderedDict()
        )
        self._cold_lock = threading.Lock()
        #: the archive index's version, and which users have rows in it then
        self._archive_users: tuple[int, dict[str, bool]] = (-1, {})
        self._stale_seconds = stale_seconds
        self._read_model = (
            ReadModel(store, model or "", cache_rows, stale_seconds) if cache_rows > 0 else None
        )
        #: the speakers of each user's view last made, so that the query is embedded
        #: without the name it says before the view is brought up to date
        self._speakers: OrderedDict[str, frozenset[str]] = OrderedDict()
        self._speakers_lock = threading.Lock()
        self._in_flight = 0
        self._in_flight_lock = threading.Lock()

    @property
    def in_flight(self) -> int:
        """How many searches this searcher is answering now."""
        return self._in_flight

    def forget(self, user_id: str) -> None:
        """Drop what is kept of ``user_id`` in memory (the user was erased)."""
        if self._read_model is not None:
            self._read_model.forget(user_id)
        with self._speakers_lock:
            self._speakers.pop(user_id, None)
        self._non_empty.discard(user_id)
        for key in [k for k in self._user_counts if user_id in k]:
            self._user_counts.pop(key, None)
        with self._cold_lock:
            for cold in [k for k in self._cold_vectors if k[0] == user_id]:
                self._cold_vectors.pop(cold, None)
        self._archive_users = (-1, {})

    def search(self, request: SearchRequest) -> SearchResponse:
        """The best ``request.k`` memories, fused and adjusted (see the module docstring).

        The query is embedded on a small thread pool from the start. A user the read
        model holds (:mod:`memstream.queries.read_model`) is searched in this thread meanwhile
        (BM25, then the vectors once the embedding is there; rows, access counts and
        states come from memory); the archive's and the entities' retrievers run on the
        pool (LanceDB releases the GIL), and for a user not held, so do the hot
        retrievers and the row, access and state look-ups. Each retriever looks in the
        hot tables and in the archive index alike and ranks what it found in both by one
        score (BM25, cosine, entities matched), so an archived memory competes with the
        hot ones on equal terms.

        The answer's ``timings`` say where the time went (ms): ``view`` (bringing the
        user's rows in memory up to date), ``embed``, each retriever (``full_text`` and
        ``archived_text``, ``vectors``, ``entities``; they overlap) and ``retrieve``, the
        wall time until all answered; each look-up (``rows``, ``access``, ``state``, for
        a user not held; they overlap too) and ``look_up``, its wall time; then ``rank``
        (fusion, adjustments, entity names).
        """
        with self._in_flight_lock:
            self._in_flight += 1
        try:
            return self._search(request)
        finally:
            with self._in_flight_lock:
                self._in_flight -= 1

    def _search(self, request: SearchRequest) -> SearchResponse:
        started = time.perf_counter()
        stages: dict[str, float] = {}
        now = request.now or self._clock()
        w = self.weights
        depth = max(w.candidates, request.k)
        pool = self._pool
        # First: the model runs while the rest is prepared. It embeds the query without
        # the name of a speaker it says (the speakers as of the user's last view); when
        # the view brought up to date says otherwise, the query is embedded again.
        embedded = _embedded_query(request.query, self._speakers.get(request.user_id))
        embed_job = (
            pool.submit(_timed, stages, "embed", self._embed, embedded)
            if self._embed is not None
            else None
        )
        view = self._view(request.user_id, stages)
        speakers = self._remember_speakers(request.user_id, view)
        with_known_speakers = _embedded_query(request.query, speakers)
        if self._embed is not None and with_known_speakers != embedded:
            embed_job = pool.submit(_timed, stages, "embed", self._embed, with_known_speakers)
        where = _filters(request, "memories")
        wanted = _wanted(request)  # the same, as the read model's masks
        cold = self._archive_filter(request)
        # what has nothing to look for is not handed to the pool (a hand-off costs more
        # than the nothing it would do)
        cold_text_job = (
            _ready([])
            if cold is None
            else pool.submit(
                _timed,
                stages,
                "archived_text",
                self._archived_full_text,
                request.query,
                cold,
                depth,
            )
        )
        mentions = self._query_mentions(request.query, now)

        def linked_rows() -> list[dict[str, Any]]:
            return _timed(
                stages,
                "entities",
                self._entity_rows,
                request,
                mentions,
                where,
                wanted,
                cold,
                depth,
                view,
            )

        entity_job: Future[list[dict[str, Any]]]
        if not mentions:
            entity_job = _ready([])
        elif view is not None and cold is None:  # in memory: here
            entity_job = _ready(linked_rows())
        else:
            entity_job = pool.submit(linked_rows)

        # A user in memory is searched in this thread: in-memory work handed to other
        # threads would only wait for the interpreter lock.
        def hot_full_text() -> list[dict[str, Any]]:
            return _timed(
                stages, "full_text", self._full_text, request.query, where, wanted, depth, view
            )

        text_job = None if view is not None else pool.submit(hot_full_text)
        hot_text = hot_full_text() if text_job is None else []
        query_vector = embed_job.result() if embed_job is not None else None
        nearness = _timed(
            stages, "vectors", self._vector_ids, request, wanted, query_vector, cold, depth, view
        )
        vector_ids, cold_vector_rows = nearness.memory_ids, nearness.archived_rows
        intent = self._intent(request.query, query_vector)
        if text_job is not None:
            hot_text = text_job.result()
        cold_text = cold_text_job.result()
        if view is not None and cold_text:
            cold_text = _scored_as_hot(cold_text, request.query, view)
        text_rows = _best_first([*hot_text, *cold_text], depth)
        entity_rows = entity_job.result()
        retrieved = time.perf_counter()
        stages["retrieve"] = (retrieved - started) * 1000

        rows: dict[str, dict[str, Any]] = {}
        for found in (text_rows, entity_rows, cold_vector_rows):
            for r in found:
                if r["memory_id"] not in rows or not r.get("_archived"):
                    rows[r["memory_id"]] = r
        lists = [
            (w.full_text, [r["memory_id"] for r in text_rows]),
            (w.vector, vector_ids),
            (w.entity, [r["memory_id"] for r in entity_rows]),
        ]
        fused = fuse([(weight, list(dict.fromkeys(ids))) for weight, ids in lists if ids], w.rrf_k)
        if w.neighbour_share > 0 and w.neighbour_reach > 0 and fused:
            order = self._session_order(fused, rows, where, wanted, cold, view)
            fused = spread(fused, order, w.neighbour_share, w.neighbour_reach)
        missing = [m for m in fused if m not in rows]  # found by vector only, or beside
        ids = list(fused)
        if view is not None:
            # rows are read from the view as the ranking needs them (see _best)
            accesses = {m: view.access[m] for m in ids if m in view.access}
            states = {m: view.states[m] for m in ids if m in view.states}
            said_by = view.speakers_of(missing, wanted)
        else:
            fetch_job = pool.submit(
                _timed, stages, "rows", self._hot_rows, missing, where, wanted, None
            )
            access_job = pool.submit(
                _timed, stages, "access", self._access_counts, request.user_id, ids
            )
            state_job = pool.submit(_timed, stages, "state", self._states, request.user_id, ids)
            rows.update((r["memory_id"], r) for r in fetch_job.result())
            accesses = access_job.result()
            states = state_job.result()
            said_by = set()
        looked_up = time.perf_counter()
        stages["look_up"] = (looked_up - retrieved) * 1000
        if not request.include_history:
            fused = {m: s for m, s in fused.items() if not is_hidden(states.get(m))}
        if request.min_similarity is not None and query_vector is not None:
            fused = {m: s for m, s in fused.items() if nearness.reaches(m, request.min_similarity)}
        for m in states:
            if m in rows:
                rows[m] = _with_state(rows[m], states[m])
        span = query_range(request.query, now)
        said_by.update(r["speaker"] for r in rows.values())
        speaker = named_speaker(request.query, said_by)

        def score_of(m: str) -> float:
            return adjusted(
                fused[m],
                rows[m],
                now=now,
                weights=w,
                intent=intent,
                access_count=accesses.get(m, 0),
                time_range=span,
                speaker=speaker,
            )

        def read(chosen: list[str]) -> None:
            """Bring the rows of ``chosen`` the view holds (with their states) into ``rows``
            (without a view, every row is read already)."""
            if view is not None:
                found = view.rows([m for m in chosen if m not in rows], ROW_COLUMNS, wanted)
                rows.update(
                    (r["memory_id"], _with_state(r, states.get(r["memory_id"]))) for r in found
                )

        bound = adjustment_bound(
            w, intent, max(accesses.values(), default=0), span is not None, speaker is not None
        )
        scored = _best(fused, rows, read, score_of, bound, request.k)
        names = self._entity_names([rows[m] for _, m in scored], view)
        sources = self._document_sources([m for _, m in scored if rows[m]["kind"] == CHUNK_KIND])
        results = [
            _result(
                rows[m],
                score,
                names,
                sources.get(m),
                nearness.passages.get(m),
                nearness.similarity.get(m),
            )
            for score, m in scored
        ]
        finished = time.perf_counter()
        stages["rank"] = (finished - looked_up) * 1000
        took = (finished - started) * 1000
        timings = {name: round(ms, 2) for name, ms in stages.items()}
        return SearchResponse(
            results=results, intent=intent, took_ms=round(took, 2), timings=timings
        )

    def _document_sources(self, memory_ids: list[str]) -> dict[str, DocumentSource]:
        """Where the chunks among the results come from: one look-up, for chunks only."""
        if not memory_ids:
            return {}
        rows = self.store.by_ids(MEMORIES, memory_ids, ["memory_id", "metadata"])
        return {r["memory_id"]: DocumentSource.model_validate_json(r["metadata"]) for r in rows}

    def _session_order(
        self,
        fused: dict[str, float],
        rows: dict[str, dict[str, Any]],
        where: str,
        wanted: RequestFilter,
        cold: str | None,
        view: UserView | None,
    ) -> SessionOrder:
        """The order of the turns of the sessions the fused memories belong to, hot and
        archived. The rows it had to read (hot memories found by vector alone, whose
        sessions it needs; the archived turns of those sessions) are added to ``rows``."""
        if view is not None and cold is None:
            return view.order  # every hot turn of the user, in order
        found_by_vector = [m for m in fused if m not in rows]
        rows.update(
            (r["memory_id"], r) for r in self._hot_rows(found_by_vector, where, wanted, view)
        )
        sessions = sorted({rows[m]["session_id"] for m in fused if m in rows} - {None})
        if not sessions:
            return SessionOrder.of(())
        if view is not None:
            hot = view.session_turns(sessions)
        else:
            hot = self.store.scan(
                MEMORIES,
                ["memory_id", "session_id", "occurred_at"],
                filters.all_of(
                    where, filters.equals("kind", "episode"), filters.is_in("session_id", sessions)
                ),
            ).to_pylist()
        archived: list[dict[str, Any]] = []
        if cold is not None:
            turns = filters.any_of(filters.equals("kind", "episode"), filters.is_null("kind"))
            in_sessions = filters.all_of(cold, turns, filters.is_in("session_id", sessions))
            found = self.store.scan(ARCHIVE_INDEX, _ARCHIVE_COLUMNS, in_sessions).to_pylist()
            archived = [_archived_row(r) for r in found]
            rows.update((r["memory_id"], r) for r in archived if r["memory_id"] not in rows)
        return SessionOrder.of([*hot, *archived])

    def _hot_rows(
        self, memory_ids: list[str], where: str, wanted: RequestFilter, view: UserView | None
    ) -> list[dict[str, Any]]:
        """The search rows of these hot memories that the request may see: from the
        view when there is one, else from the table."""
        if view is not None:
            return view.rows(memory_ids, ROW_COLUMNS, wanted)
        return self.store.by_ids(MEMORIES, memory_ids, ROW_COLUMNS, where)

    def _remember_speakers(self, user_id: str, view: UserView | None) -> frozenset[str] | None:
        """The speakers of ``view`` (None without one), kept for the user's next search."""
        with self._speakers_lock:
            if view is None:
                self._speakers.pop(user_id, None)
                return None
            self._speakers[user_id] = view.speakers
            self._speakers.move_to_end(user_id)
            while len(self._speakers) > _SPEAKERS_KEPT:
                self._speakers.popitem(last=False)
            return view.speakers

    def _view(self, user_id: str, stages: dict[str, float]) -> UserView | None:
        """The user's hot memories in memory, up to date, if they fit the read model."""
        if self._read_model is None or not self._has_rows(MEMORIES):
            return None
        expected = self._user_count(MEMORIES, user_id)
        return _timed(stages, "view", self._read_model.view, user_id, expected)

    def _archive_filter(self, request: SearchRequest) -> str | None:
        """The request's filter on the archive index (its archived rows), or None when
        the archive is not searched (not asked, or the user has nothing archived)."""
        if not request.include_archived or not self._has_archived(request.user_id):
            return None
        return filters.all_of(_filters(request, "archive"), ARCHIVED)

    def _has_archived(self, user_id: str) -> bool:
        """Whether the user has rows in the archive index (asked again once it changes;
        whether it changed, at most every ``stale_seconds``)."""
        version = self.store.version(ARCHIVE_INDEX, self._stale_seconds)
        with self._cold_lock:
            if self._archive_users[0] != version:
                self._archive_users = (version, {})
            known = self._archive_users[1].get(user_id)
        if known is None:
            known = self.store.count(ARCHIVE_INDEX, filters.equals("user_id", user_id)) > 0
            with self._cold_lock:
                if self._archive_users[0] == version:
                    self._archive_users[1][user_id] = known
        return known

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
        if view is not None:
            nearest = view.nearest(query_vector, wanted, reach, self._pool)
        elif self._has_rows(VECTORS):
            vector_where = filters.all_of(
                _filters(request, "vectors"), filters.equals("model", self._model or "")
            )
            exact = (
                self._user_count(VECTORS, request.user_id) < self.weights.exact_vector_search_below
            )
            nearest = self.store.nearest(query_vector.tolist(), vector_where, reach, exact=exact)
        archived: dict[str, tuple[float, dict[str, Any]]] = {}
        if cold is not None:
            archived = self._nearest_archived(query_vector, cold, depth)
        hot, matched = _by_memory(nearest)
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
            _unlisted_similarity(lists),
        )

    def _nearest_archived(
        self, query_vector: np.ndarray, cold: str, depth: int
    ) -> dict[str, tuple[float, dict[str, Any]]]:
        """The archived memories nearest the query by their 4-bit vectors (exact: every
        archived vector the filter lets through): cosine distance and search row by id."""
        where = filters.all_of(cold, filters.equals("vector_model", self._model or ""))
        table, matrix = self._archived_vectors(where, len(query_vector))
        if table.num_rows == 0:
            return {}
        query = np.asarray(query_vector, dtype=np.float32)
        cosine = (matrix @ query) / (float(np.linalg.norm(query)) or 1.0)
        best = np.argsort(-cosine, kind="stable")[:depth]
        rows = table.take(pa.array(best, type=pa.int64())).to_pylist()
        return {
            r["memory_id"]: (float(1.0 - cosine[i]), _archived_row(r))
            for i, r in zip(best, rows, strict=True)
        }

    def _archived_vectors(self, where: str, dimension: int) -> tuple[pa.Table, np.ndarray]:
        """The search columns and unit vectors of the archived memories ``where``
        selects, read once per version of the archive index (it changes only when
        memories are archived, expanded or restored) and kept for the next searches."""
        key = (where, self.store.version(ARCHIVE_INDEX, self._stale_seconds))
        with self._cold_lock:
            cached = self._cold_vectors.get(key)
            if cached is not None:
                self._cold_vectors.move_to_end(key)
                return cached
        table = self.store.compact_vectors(where, _ARCHIVE_COLUMNS)
        matrix = unpack_int4(
            table.column("vector").to_pylist(), table.column("vector_scale").to_pylist(), dimension
        )
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        found = (table.drop_columns(["vector", "vector_scale"]), matrix / norms)
        with self._cold_lock:
            self._cold_vectors[key] = found
            while sum(t.num_rows for t, _ in self._cold_vectors.values()) > _COLD_ROWS_KEPT:
                self._cold_vectors.popitem(last=False)
        return found

    def _user_count(self, table: str, user_id: str) -> int:
        """How many rows of ``table`` belong to ``user_id`` (remembered for a minute)."""
        now = time.monotonic()
        cached = self._user_counts.get((table, user_id))
        if cached is None or now - cached[1] > 60:
            count = self.store.count(table, filters.equals("user_id", user_id))
            cached = (count, now)
            self._user_counts[(table, user_id)] = cached
        return cached[0]

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
            rows = self.store.with_entities(ids, where, depth, ROW_COLUMNS)
        if cold is not None:
            found = self.store.with_entities(ids, cold, depth, _ARCHIVE_COLUMNS, ARCHIVE_INDEX)
            rows += [_archived_row(r) for r in found]
        named = set(ids)
        rows.sort(
            key=lambda r: (
                -len(named.intersection(r["entity_ids"] or ())),
                -(r["occurred_at"] or _EPOCH).timestamp(),
            )
        )
        return rows[:depth]

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

    def _full_text(
        self,
        query: str,
        where: str,
        wanted: RequestFilter,
        depth: int,
        view: UserView | None = None,
    ) -> list[dict[str, Any]]:
        """BM25 over the hot memories, best first: in ``view`` (the user's own word
        statistics; ``wanted`` filters) when given, else in the tables' full-text index
        (``where`` filters)."""
        if not self._has_rows(MEMORIES):
            return []
        if view is not None:
            return view.full_text(query, wanted, depth, ROW_COLUMNS)
        try:
            return self.store.full_text(plain_words(query), where, depth, ROW_COLUMNS)
        except (ValueError, RuntimeError):  # no full-text index yet (the first seconds)
            return []

    def _archived_full_text(self, query: str, cold: str | None, depth: int) -> list[dict[str, Any]]:
        """BM25 over the archived summaries (speaker first), best first."""
        if cold is None:
            return []
        words = plain_words(query)
        try:
            found = self.store.full_text(words, cold, depth, _ARCHIVE_COLUMNS, ARCHIVE_INDEX)
        except (ValueError, RuntimeError, OSError):  # no summary indexed yet
            return []
        return [_archived_row(r) for r in found]

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


def search(
    store: ProjectionStore, request: SearchRequest, *, weights: RankingWeights | None = None
) -> list[SearchResult]:
    """Full text and entities only (no embedder): the results of ``request``."""
    return Searcher(store, weights=weights).search(request).results


#: Most archived vectors a searcher keeps decoded (float32: 1.5 kB each at 384 dimensions).
_COLD_ROWS_KEPT = 100_000
#: What search reads of an archived memory (see :func:`_archived_row`).
_ARCHIVE_COLUMNS = [
    *("search_text" if c == "content" else c for c in ROW_COLUMNS),  # the summary
    "storage_file",
    "storage_version",
]
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
#: How many users' speakers a searcher keeps between searches.
_SPEAKERS_KEPT = 10_000
T = TypeVar("T")


def _timed(stages: dict[str, float], name: str, work: Callable[..., T], *args: Any) -> T:
    """``work(*args)``, its wall time recorded in ``stages[name]`` (ms)."""
    started = time.perf_counter()
    try:
        return work(*args)
    finally:
        stages[name] = (time.perf_counter() - started) * 1000


def _with_state(row: dict[str, Any], state: dict[str, Any] | None) -> dict[str, Any]:
    """``row`` with the confidence its state gives it, and the state (a row without a
    state as it is)."""
    if state is None:
        return row
    confidence = effective_confidence(row.get("confidence"), state)
    return {**row, "confidence": confidence, "_state": state}


#: How many candidates :func:`_best` reads and scores at a time (at least; 2k when more).
_RANKED_AT_ONCE = 32


def _best(
    fused: dict[str, float],
    rows: dict[str, dict[str, Any]],
    read: Callable[[list[str]], None],
    score_of: Callable[[str], float],
    bound: float,
    k: int,
) -> list[tuple[float, str]]:
    """The ``k`` best (adjusted score, memory id) of the ``fused`` candidates, less
    restatements, best first: exactly what scoring every candidate would give.

    Candidates are taken by fused score, best first, a few at a time; ``read`` brings
    their rows into ``rows`` (a candidate without a row is not one the request may
    see). Since no adjustment multiplies a fused score by more than ``bound``, once the
    ``k``-th result kept scores above ``bound`` times the next candidate's fused score,
    no candidate left can enter or change the first ``k`` (whether a memory restates
    another depends only on those above it), and the rest are never read."""
    order = sorted(fused, key=lambda m: (-fused[m], m))
    step = max(2 * k, _RANKED_AT_ONCE)
    scored: list[tuple[float, str]] = []
    kept: list[tuple[float, str]] = []
    for start in range(0, len(order), step):
        chosen = order[start : start + step]
        read(chosen)
        scored.extend((score_of(m), m) for m in chosen if m in rows)
        scored.sort(reverse=True)
        ranked = [(m, rows[m]["kind"], rows[m].get("source_event_ids") or ()) for _, m in scored]
        shown = set(without_restatements(ranked))
        kept = [(score, m) for score, m in scored if m in shown]
        following = start + step
        if (
            following < len(order)
            and len(kept) >= k
            and kept[k - 1][0] > bound * fused[order[following]]
        ):
            break
    return kept[:k]


def _ready(value: T) -> Future[T]:
    """A future that already has ``value``."""
    done: Future[T] = Future()
    done.set_result(value)
    return done


def _embedded_query(query: str, speakers: frozenset[str] | None) -> str:
    """The text the query vector is made of: the query without the name of the one
    speaker among ``speakers`` (the user's hot memories') it names
    (:mod:`memstream.projections.speakers`); the query itself when the speakers are not known."""
    speaker = named_speaker(query, speakers) if speakers else None
    return without_speaker(query, speaker) if speaker else query


def _scored_as_hot(
    archived: list[dict[str, Any]], query: str, view: UserView
) -> list[dict[str, Any]]:
    """The archive's full-text hits with the BM25 score their summaries have by the
    word statistics of the user's hot memories, the statistics the hot hits were scored
    by: scores of two indexes (the archive's weighs words among everyone's summaries)
    are not on one scale, and the hot and archived hits are ranked in one list. Left as
    they are for a user with no hot memory."""
    if not view.terms.live:
        return archived
    scores = view.terms.score(query, [r["search_text"] for r in archived])
    return [{**r, "_score": score} for r, score in zip(archived, scores, strict=True)]


def _best_first(rows: list[dict[str, Any]], depth: int) -> list[dict[str, Any]]:
    """Full-text rows of the hot tables and of the archive as one list, by BM25 score."""
    return sorted(rows, key=lambda r: -r["_score"])[:depth]


def _archived_row(row: dict[str, Any]) -> dict[str, Any]:
    """An archive index row in the shape of a hot search row: its summary as content."""
    out = {**row, "content": summary_of(row), "storage_ref": storage_ref_of(row)}
    out["_archived"] = True
    out["kind"] = out["kind"] or "episode"
    return out


def _wanted(request: SearchRequest) -> RequestFilter:
    """The request's filters besides its user, for the read model's masks."""
    return RequestFilter(
        project_id=request.project_id,
        kinds=tuple(request.kinds) if request.kinds else None,
        tags=tuple(request.tags) if request.tags else None,
        after=request.after,
        before=request.before,
    )


def _filters(request: SearchRequest, table: str) -> str:
    """The scope, kind, tag and time filters of a request for ``memories``, ``vectors``
    or ``archive`` (the archive index)."""
    # vectors and the archive have the scope columns, not the lifecycle ones
    scope = scope_filter(request.user_id, request.project_id, include_deleted=table != "memories")
    parts = [scope]
    if request.kinds:
        parts.append(filters.is_in("kind", request.kinds))
    if request.tags and table != "vectors":
        parts.append(filters.has_any("tags", request.tags))
    if request.after:
        parts.append(filters.at_least("occurred_at", request.after))
    if request.before:
        parts.append(filters.before("occurred_at", request.before))
    return filters.all_of(*parts)


@dataclass(frozen=True)
class Nearness:
    """What the vector retriever found: the memories nearest the query (``memory_ids``,
    nearest first), the search rows of the archived ones among them, the passage a long
    turn was found by, each listed memory's cosine similarity to the query, and the
    most a memory it did not list can be similar (None: such a memory may have no
    vector to judge it by)."""

    memory_ids: list[str]
    archived_rows: list[dict[str, Any]]
    passages: dict[str, int]
    similarity: dict[str, float]
    unlisted: float | None

    def reaches(self, memory_id: str, floor: float) -> bool:
        """Whether the memory is (or may be) at least ``floor`` similar to the query."""
        similarity = self.similarity.get(memory_id)
        if similarity is None:
            return self.unlisted is None or self.unlisted >= floor
        return similarity >= floor


def _unlisted_similarity(lists: list[tuple[list[tuple[str, float]], int]]) -> float | None:
    """The most a memory that none of ``lists`` (each (id, distance) pairs, and how many
    it was asked for) holds can be similar to the query: it is no nearer than the
    farthest one of a full list. None when a list is not full: what it left out has no
    vector to judge it by."""
    if any(len(found) < asked for found, asked in lists):
        return None
    return 1.0 - min(max(d for _, d in found) for found, _ in lists)


def _by_memory(nearest: list[tuple[str, float]]) -> tuple[list[tuple[str, float]], dict[str, int]]:
    """(memory id, distance) from (vector row id, distance), nearest first: a long turn
    once, as near as its nearest row; and which passage that row is, when it is one."""
    best: dict[str, float] = {}
    matched: dict[str, int] = {}
    for vector_id, distance in sorted(nearest, key=lambda pair: pair[1]):
        memory_id, index = passage_of(vector_id)
        if memory_id in best:
            continue
        best[memory_id] = distance
        if index is not None:
            matched[memory_id] = index
    return list(best.items()), matched


def _passage(row: dict[str, Any], index: int | None) -> PassageSpan | None:
    """Where passage ``index`` is in the row's content (None: no passage, or an
    archived row whose content is a summary)."""
    if index is None or row.get("_archived"):
        return None
    found = passages(row["content"])
    if index >= len(found):
        return None
    return PassageSpan(index=index, start=found[index].start, end=found[index].end)


def _result(
    row: dict[str, Any],
    score: float,
    names: dict[str, str],
    document: DocumentSource | None = None,
    passage: int | None = None,
    similarity: float | None = None,
) -> SearchResult:
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
        archived=bool(row.get("_archived")),
        storage_ref=row.get("storage_ref"),
        document=document,
        passage=_passage(row, passage),
        similarity=similarity,
    )
