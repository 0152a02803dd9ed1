"""Hybrid retrieval: full text, vectors and entities, fused, then adjusted.

A search runs up to three retrievers over the memories a user may see (the scope rule,
:mod:`memstream.policies.scope`, plus the request's kind, tag and time filters, all built from
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

import heapq
import math
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

import numpy as np

from memstream.clock import Clock, system_clock
from memstream.policies.ranking_weights import RankingWeights
from memstream.projections.access import access_id
from memstream.projections.documents import CHUNK_KIND
from memstream.projections.memory_state import is_hidden, links_of, state_id
from memstream.queries.search.candidates import (
    Nearness,
    best_first,
    best_rows,
    embedded_query,
    request_filters,
    restated_rows,
    result_of,
    scored_as_hot,
    wanted_of,
    with_state,
)
from memstream.queries.search.intent import IntentClassifier
from memstream.queries.search.linked import followed
from memstream.queries.search.neighbours import handed_back, questions_lowered, spread
from memstream.queries.search.ranking import (
    adjusted,
    adjustment_bound,
    adjustment_terms,
    fuse,
    with_unembedded,
)
from memstream.queries.search.read_model import ReadModel
from memstream.queries.search.request import (
    DocumentSource,
    Intent,
    SearchRequest,
    SearchResponse,
    SearchResult,
    plain_words,
)
from memstream.queries.search.retrievers import Retrievers
from memstream.queries.search.session_turns import hot_rows, session_order, turns_said
from memstream.queries.search.speakers import named_speaker, named_speakers
from memstream.queries.search.trace import SearchTrace
from memstream.queries.search.tracing import traced_ranking, traced_retrievers
from memstream.queries.search.user_caches import UserCaches
from memstream.queries.search.user_view import ROW_COLUMNS, RequestFilter, UserView
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.lance.tables import (
    ACCESS,
    MEMORIES,
    MEMORY_STATE,
)
from memstream.text.time_phrases import query_range

__all__ = [
    "Nearness",
    "SearchRequest",
    "SearchResponse",
    "SearchResult",
    "Searcher",
    "plain_words",
    "search",
]


class Searcher(Retrievers):
    """Answers :class:`SearchRequest` s from a store.

    Args:
        store: the projections.
        embed: the query embedder of the model the store's vectors were made with (None:
            no vector retrieval).
        model: that model's name (vectors of other models are not searched).
        weights: fusion and adjustment weights.
        clock: the current time, when a request gives no ``now``.
        cache_rows: most rows (memories and vectors) of recently searched users kept in
            memory (:mod:`memstream.queries.search.read_model`); 0 asks the tables for every search.
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
        self._non_empty: set[str] = set()  # tables known to hold rows
        self._stale_seconds = stale_seconds
        self._cache_rows = cache_rows
        self._caches = UserCaches(
            ReadModel(store, model or "", cache_rows, stale_seconds) if cache_rows > 0 else None
        )
        self._in_flight = 0
        self._in_flight_lock = threading.Lock()

    def over(self, store: ProjectionStore) -> Searcher:
        """A searcher like this one (query embedder, model, weights, clock, rows kept)
        over ``store``: one that reads a past moment scores as this one would have."""
        return Searcher(
            store,
            embed=self._embed,
            model=self._model,
            weights=self.weights,
            clock=self._clock,
            cache_rows=self._cache_rows,
        )

    @property
    def in_flight(self) -> int:
        """How many searches this searcher is answering now."""
        return self._in_flight

    def forget(self, user_id: str) -> None:
        """Drop what is kept of ``user_id`` in memory (the user was erased)."""
        self._caches.forget(user_id)

    def search(
        self, request: SearchRequest, trace: SearchTrace | None = None, *, restated: bool = False
    ) -> SearchResponse:
        """The best ``request.k`` memories, fused and adjusted (see the module docstring).

        The query is embedded on a small thread pool from the start. A user the read
        model holds (:mod:`~memstream.queries.search.read_model`) is searched in this thread
        meanwhile
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

        ``trace``, when given, is filled with the whole path
        (:mod:`~memstream.queries.search.trace`). ``restated``: the answer's
        ``restated`` also gives the facts left out of the first ``k`` as saying again
        what a turn above says (a context block states those that resolve a date).
        """
        with self._in_flight_lock:
            self._in_flight += 1
        try:
            return self._search(request, trace, restated)
        finally:
            with self._in_flight_lock:
                self._in_flight -= 1

    def _search(
        self, request: SearchRequest, trace: SearchTrace | None, restated: bool = False
    ) -> SearchResponse:
        started = time.perf_counter()
        stages: dict[str, float] = {}
        found = self._retrieve(request, stages, started)
        if trace is not None:
            traced_retrievers(trace, found.text_rows, found.nearness, found.entity_rows)
        looked = self._look_up(request, found, stages, trace)
        return self._rank(request, found, looked, stages, started, trace, restated)

    def _retrieve(
        self, request: SearchRequest, stages: dict[str, float], started: float
    ) -> _Retrieved:
        """Every retriever's list: the query embedded while full text, the archive and
        the entities are searched, then the nearest vectors (see :meth:`search`)."""
        now = request.now or self._clock()
        w = self.weights
        depth = max(w.candidates, request.k)
        pool = self._pool
        # First: the model runs while the rest is prepared. It embeds the query without
        # the name of a speaker it says (the speakers as of the user's last view); when
        # the view brought up to date says otherwise, the query is embedded again.
        # the speakers of the user's last view: the query is embedded without the name it
        # says before the view is brought up to date
        embedded = embedded_query(request.query, self._caches.speakers(request.user_id))
        embed_job = (
            pool.submit(_timed, stages, "embed", self._embed, embedded)
            if self._embed is not None
            else None
        )
        view = self._view(request.user_id, stages)
        speakers = self._remember_speakers(request.user_id, view)
        # the user's speakers the query names, found once (the one it names, if it names
        # one, is the one among these)
        named = frozenset(named_speakers(request.query, speakers)) if speakers else frozenset()
        with_known_speakers = embedded_query(request.query, named)
        if self._embed is not None and with_known_speakers != embedded:
            embed_job = pool.submit(_timed, stages, "embed", self._embed, with_known_speakers)
        where = request_filters(request, "memories")
        wanted = wanted_of(request)  # the same, as the read model's masks
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
        intent = self._intent(request.query, query_vector)
        if text_job is not None:
            hot_text = text_job.result()
        cold_text = cold_text_job.result()
        if view is not None and cold_text:
            cold_text = scored_as_hot(cold_text, request.query, view)
        text_rows = best_first([*hot_text, *cold_text], depth)
        entity_rows = entity_job.result()
        retrieved = time.perf_counter()
        stages["retrieve"] = (retrieved - started) * 1000
        return _Retrieved(
            now, depth, view, where, wanted, cold, query_vector, nearness, intent,
            text_rows, entity_rows, retrieved, named,
        )  # fmt: skip

    def _look_up(
        self,
        request: SearchRequest,
        found: _Retrieved,
        stages: dict[str, float],
        trace: SearchTrace | None = None,
    ) -> _LookedUp:
        """The lists fused, and the rows, access counts and states of what they hold."""
        w, pool, view = self.weights, self._pool, found.view
        where, wanted = found.where, found.wanted
        text_rows, entity_rows, retrieved = found.text_rows, found.entity_rows, found.retrieved
        vector_ids, cold_vector_rows = found.nearness.memory_ids, found.nearness.archived_rows

        rows: dict[str, dict[str, Any]] = {}
        # a view's full-text hits are ids and scores (their rows are read as ranked);
        # the archive's are rows
        text_with_rows = text_rows if view is None else [r for r in text_rows if r.get("_archived")]
        for listed in (text_with_rows, entity_rows, cold_vector_rows):
            for r in listed:
                if r["memory_id"] not in rows or not r.get("_archived"):
                    rows[r["memory_id"]] = r
        lists = [
            (w.full_text, [r["memory_id"] for r in text_rows]),
            (w.vector, vector_ids),
            (w.entity, [r["memory_id"] for r in entity_rows]),
        ]
        fused = fuse([(weight, list(dict.fromkeys(ids))) for weight, ids in lists if ids], w.rrf_k)
        if found.query_vector is not None and w.vector > 0:
            archived = {r["memory_id"] for r in text_rows if r.get("_archived")}
            fused = with_unembedded(
                fused,
                [r["memory_id"] for r in text_rows],
                lambda m: found.nearness.unembedded(m, m in archived),
                w.vector,
                w.rrf_k,
            )
        if trace is not None:
            for m, score in fused.items():
                trace.candidate(m).fused = score
        spreads = w.neighbour_share > 0 and w.neighbour_reach > 0
        through: dict[str, str] = {}
        order = None
        if (spreads or w.reply_share > 0 or w.question_weight != 1) and fused:
            order = session_order(self.store, fused, rows, where, wanted, found.cold, view)
            if spreads:
                fused = spread(fused, order, w.neighbour_share, w.neighbour_reach)
        linked_through: dict[str, str] = {}
        read_states: tuple[frozenset[str], dict[str, Any]] = (frozenset(), {})  # asked, found
        if w.link_share > 0 and w.link_reach > 0 and fused:  # links of the best candidates
            if view is None:
                best = heapq.nlargest(4 * w.link_reach, fused, key=fused.__getitem__)
                read_states = (frozenset(best), self._states(request.user_id, best))
            linking = view.states if view is not None else read_states[1]
            fused, linked_through = followed(
                fused, lambda m: links_of(linking.get(m)), w.link_share, w.link_reach,
                lambda m: not request.include_history and is_hidden(linking.get(m)),
            )  # fmt: skip
        if trace is not None:
            for m, score in fused.items():
                trace.candidate(m).spread = score
            for m, source in linked_through.items():
                trace.candidate(m).linked_from = source
        if order is not None and (w.reply_share > 0 or w.question_weight != 1):
            said = turns_said(self.store, fused, order, rows, where, wanted, view)
            fused, through = handed_back(fused, order, said, w.reply_share, w.restatement_weight)
            fused = questions_lowered(fused, said, w.question_weight)
        through = {**linked_through, **through}
        missing = [m for m in fused if m not in rows]  # found by vector only, or beside
        ids = list(fused)
        if view is not None:
            # rows are read from the view as the ranking needs them (see best_rows)
            accesses = {m: view.access[m] for m in ids if m in view.access}
            states = {m: view.states[m] for m in ids if m in view.states}
            # who said them counts only for a speaker the query names (named_speaker)
            said_by = view.speakers_of(missing, wanted) if found.named else set()
        else:
            fetch_job = pool.submit(
                _timed, stages, "rows", hot_rows, self.store, missing, where, wanted, None
            )
            access_job = pool.submit(
                _timed, stages, "access", self._access_counts, request.user_id, ids
            )
            unread = [m for m in ids if m not in read_states[0]]  # not read for the links
            state_job = pool.submit(_timed, stages, "state", self._states, request.user_id, unread)
            rows.update((r["memory_id"], r) for r in fetch_job.result())
            accesses = access_job.result()
            states = {**read_states[1], **state_job.result()}
            said_by = set()
        looked_up = time.perf_counter()
        stages["look_up"] = (looked_up - retrieved) * 1000
        return _LookedUp(fused, rows, accesses, states, said_by, looked_up, through)

    def _rank(
        self,
        request: SearchRequest,
        found: _Retrieved,
        looked: _LookedUp,
        stages: dict[str, float],
        started: float,
        trace: SearchTrace | None = None,
        restated: bool = False,
    ) -> SearchResponse:
        """The first k, adjusted and ranked, with their entities and sources (and the
        facts they leave out as restatements, when asked)."""
        w, now, view = self.weights, found.now, found.view
        wanted, intent = found.wanted, found.intent
        query_vector, nearness = found.query_vector, found.nearness
        fused, rows, accesses, states = looked.fused, looked.rows, looked.accesses, looked.states
        said_by, looked_up = looked.said_by, looked.looked_up
        if trace is not None:
            for m, score in fused.items():
                trace.candidate(m).said = score
        if not request.include_history:
            hidden = {m for m, state in states.items() if is_hidden(state)}
            if hidden:  # a memory without a state is never hidden
                fused = {m: s for m, s in fused.items() if m not in hidden}
        if trace is not None:
            for m in set(trace.candidates) - set(fused):
                if is_hidden(states.get(m)):
                    trace.candidates[m].outcome = "hidden"
        if request.min_similarity is not None and query_vector is not None:
            floor = request.min_similarity
            if trace is not None:
                for m in fused:
                    if not nearness.reaches(m, floor):
                        trace.candidate(m).outcome = "under the similarity floor"
            fused = {m: s for m, s in fused.items() if nearness.reaches(m, floor)}
        for m in states:
            if m in rows:
                rows[m] = with_state(rows[m], states[m])
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
                    (r["memory_id"], with_state(r, states.get(r["memory_id"]))) for r in found
                )

        bound = adjustment_bound(
            w, intent, max(accesses.values(), default=0), span is not None, speaker is not None
        )
        if trace is None:
            scored = best_rows(fused, rows, read, score_of, bound, request.k)
        else:  # every candidate scored: the same first k (see best_rows)
            everything = best_rows(fused, rows, read, score_of, math.inf, len(fused) or 1)
            scored = everything[: request.k]
            traced_ranking(
                trace, fused, rows, everything, request.k, span, speaker,
                lambda m: adjustment_terms(
                    rows[m], now=now, weights=w, intent=intent,
                    access_count=accesses.get(m, 0), time_range=span, speaker=speaker,
                ),
            )  # fmt: skip
        left_out = restated_rows(fused, rows, score_of, scored, request.k) if restated else []
        names = self._entity_names([rows[m] for _, m in (*scored, *left_out)], view)
        sources = self._document_sources([m for _, m in scored if rows[m]["kind"] == CHUNK_KIND])

        def result(score: float, m: str) -> SearchResult:
            passage, similarity = nearness.passages.get(m), nearness.similarity.get(m)
            return result_of(
                rows[m], score, names, sources.get(m), passage, similarity, looked.through.get(m)
            )

        results = [result(score, m) for score, m in scored]
        finished = time.perf_counter()
        stages["rank"] = (finished - looked_up) * 1000
        took = (finished - started) * 1000
        timings = {name: round(ms, 2) for name, ms in stages.items()}
        return SearchResponse(
            results=results,
            intent=intent,
            took_ms=round(took, 2),
            timings=timings,
            restated=[result(score, m) for score, m in left_out],
        )

    def _document_sources(self, memory_ids: list[str]) -> dict[str, DocumentSource]:
        """Where the chunks among the results come from: one look-up, for chunks only."""
        if not memory_ids:
            return {}
        rows = self.store.by_ids(MEMORIES, memory_ids, ["memory_id", "metadata"])
        return {r["memory_id"]: DocumentSource.model_validate_json(r["metadata"]) for r in rows}

    def _remember_speakers(self, user_id: str, view: UserView | None) -> frozenset[str] | None:
        """The speakers of ``view`` (None without one), kept for the user's next search."""
        speakers = None if view is None else view.speakers
        self._caches.remember_speakers(user_id, speakers)
        return speakers

    def _view(self, user_id: str, stages: dict[str, float]) -> UserView | None:
        """The user's hot memories in memory, up to date, if they fit the read model."""
        read_model = self._caches.read_model
        if read_model is None or not self._has_rows(MEMORIES):
            return None
        expected = self._user_count(MEMORIES, user_id)
        return _timed(stages, "view", read_model.view, user_id, expected)

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


def search(
    store: ProjectionStore, request: SearchRequest, *, weights: RankingWeights | None = None
) -> list[SearchResult]:
    """Full text and entities only (no embedder): the results of ``request``."""
    return Searcher(store, weights=weights).search(request).results


T = TypeVar("T")


def _timed(stages: dict[str, float], name: str, work: Callable[..., T], *args: Any) -> T:
    """``work(*args)``, its wall time recorded in ``stages[name]`` (ms)."""
    started = time.perf_counter()
    try:
        return work(*args)
    finally:
        stages[name] = (time.perf_counter() - started) * 1000


def _ready(value: T) -> Future[T]:
    """A future that already has ``value``."""
    done: Future[T] = Future()
    done.set_result(value)
    return done


@dataclass
class _Retrieved:
    """What the retrievers found for one search, and what the next phases need of it."""

    now: datetime
    depth: int
    view: UserView | None
    where: str
    wanted: RequestFilter
    cold: str | None
    query_vector: np.ndarray | None
    nearness: Nearness
    intent: Intent
    text_rows: list[dict[str, Any]]
    entity_rows: list[dict[str, Any]]
    retrieved: float
    #: the speakers of the user's hot memories the query names
    named: frozenset[str]


@dataclass
class _LookedUp:
    """The fused candidates of one search with their rows, access counts and states."""

    fused: dict[str, float]
    rows: dict[str, dict[str, Any]]
    accesses: dict[str, int]
    states: dict[str, dict[str, Any]]
    said_by: set[str | None]
    looked_up: float
    #: each statement found through the assistant's reply to it: that reply
    through: dict[str, str]
