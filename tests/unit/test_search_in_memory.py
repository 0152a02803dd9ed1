"""Searching a user held in memory: the ranking that reads only the candidates it
needs answers what scoring every candidate answers (the same memories, order and
scores, whatever the query names: people, places, dates, a speaker, "when"; its
filters and ``k``), and the entity retriever finds in memory what it finds in the
tables.

Real LanceDB tables, filled by the projector from events: two speakers' turns over
four sessions, vectors, facts citing turns (restatements), access reports, a memory
forgotten and decayed confidences."""

from __future__ import annotations

import hashlib
import math
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memstream.events.codec import encode
from memstream.events.vocabulary import (
    ConfidenceDecayed,
    ConfidenceUpdate,
    DerivedMemory,
    FactsConsolidated,
    ForgetMemory,
    MemoryAccessed,
)
from memstream.policies.ranking_weights import RankingWeights
from memstream.projections.vectors import embedding_events
from memstream.queries.search import candidates as candidates_module
from memstream.queries.search.candidates import best_rows as _best
from memstream.queries.search.candidates import request_filters as _filters
from memstream.queries.search.candidates import restated_rows
from memstream.queries.search.candidates import wanted_of as _wanted
from memstream.queries.search.ranking import without_restatements
from memstream.queries.search.searcher import Searcher, SearchRequest
from memstream.queries.search.session_turns import turns_said
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.lance.tables import MEMORIES
from memstream.storage.log_records import LogRecord
from memstream.streams.projector import Projector
from memstream.testing import FakeClock, message

AT = datetime(2024, 5, 1, 12, tzinfo=UTC)
NOW = AT + timedelta(days=40)
MODEL = "bag-of-words-test"
LINES = [
    ("Ana", "I adopted a cat named Miso last week"),
    ("Ben", "Miso is a lovely name, does she like tuna?"),
    ("Ana", "She loves tuna and sleeps on the piano"),
    ("Ben", "I am moving to Lisbon in May for a new job"),
    ("Ana", "Lisbon is beautiful, you will love the trams"),
    ("Ben", "My sister Carla lives in Porto"),
    ("Ana", "I met Carla at the conference in Porto on 12 March"),
    ("Ben", "The job at Farfetch starts on 3 June"),
    ("Ana", "I quit the hospital and now work as a software tester"),
    ("Ben", "Congratulations on the new job, when did you start?"),
    ("Ana", "I started testing at Farfetch two weeks ago"),
    ("Ben", "We should meet in Lisbon when you visit"),
]


def bag_of_words(text: str) -> np.ndarray:
    """A deterministic unit vector: texts sharing words are near."""
    vector = np.zeros(64, dtype=np.float32)
    for word in text.lower().split():
        digest = hashlib.sha256(word.strip("?,.").encode()).digest()
        vector[digest[0] % 64] += 1.0 if digest[1] % 2 else -1.0
    norm = float(np.linalg.norm(vector))
    return vector / norm if norm else vector + 1.0 / math.sqrt(64)


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> ProjectionStore:
    store = ProjectionStore(str(tmp_path_factory.mktemp("in-memory") / "projections"))
    projector = Projector(store, "test", clock=FakeClock(NOW))
    offsets = iter(range(10_000))

    def apply(*events: Any) -> None:
        projector.apply(
            [LogRecord("e", "t", 0, next(offsets), NOW, None, encode(e)) for e in events]
        )

    turns = []
    for session in range(4):
        for n, (speaker, text) in enumerate(LINES):
            at = AT + timedelta(days=7 * session, minutes=n)
            turns.append(
                message(
                    event_id=f"t{session}-{n}",
                    user_id="ana",
                    session_id=f"s{session}",
                    speaker=speaker,
                    role="user" if speaker == "Ana" else "assistant",
                    content=f"{text} ({session})" if session else text,
                    occurred_at=at,
                )
            )
    apply(*turns)
    facts = [
        DerivedMemory(
            memory_id=f"fact-{n}",
            kind="fact",
            content=content,
            confidence=0.9,
            importance=importance,
            speaker="Ana",
            session_id="s0",
            source_event_ids=sources,
            occurred_at=AT + timedelta(minutes=30),
        )
        for n, (content, importance, sources) in enumerate(
            [
                ("Ana has a cat named Miso who loves tuna", 0.8, ["t0-0", "t0-2"]),
                ("Ben moves to Lisbon in May for a job at Farfetch", 0.6, ["t0-3", "t0-7"]),
                ("Ana works as a software tester", 0.9, ["t0-8"]),
                ("Carla, Ben's sister, lives in Porto", 0.4, ["t0-5"]),
            ]
        )
    ]
    apply(
        FactsConsolidated(
            event_id="consolidated-s0",
            user_id="ana",
            session_id="s0",
            through=AT + timedelta(minutes=20),
            extractor="test",
            memories=facts,
            decided_at=AT + timedelta(minutes=30),
        )
    )
    rows = store.scan(MEMORIES, where="user_id = 'ana'").to_pylist()
    vectors = np.stack([bag_of_words(r["content"]) for r in rows])
    keys = [(r["memory_id"], "ana", None, r["kind"], r["occurred_at"]) for r in rows]
    apply(*embedding_events(keys, vectors, MODEL, "1", NOW))
    by_content = {r["content"]: r["memory_id"] for r in rows}
    lisbon = by_content["Lisbon is beautiful, you will love the trams (2)"]
    tuna = by_content["She loves tuna and sleeps on the piano (1)"]
    apply(MemoryAccessed(user_id="ana", memory_ids=[lisbon, tuna], accessed_at=NOW))
    apply(MemoryAccessed(user_id="ana", memory_ids=[lisbon], accessed_at=NOW))
    forgotten = by_content["I quit the hospital and now work as a software tester (3)"]
    apply(ForgetMemory(event_id="f1", user_id="ana", memory_id=forgotten, occurred_at=NOW))
    apply(
        ConfidenceDecayed(
            event_id="decayed-1",
            user_id="ana",
            as_of=NOW,
            updates=[
                ConfidenceUpdate(memory_id="fact-1", confidence=0.3),
                ConfidenceUpdate(memory_id="fact-3", confidence=0.5),
            ],
        )
    )
    store.upkeep.ensure_indexes()
    return store


QUERIES = [
    "What does Miso like to eat?",
    "When did Ben move to Lisbon?",
    "Where does Carla live?",
    "What did Ana say about her job?",
    "when did Ana start at Farfetch",
    "What happened in Porto on 12 March?",
    "tuna piano",
    "Ben",
    "What is Ana's job now?",
    "trams in Lisbon last month",
]


#: Every name counts, however many of this small store's memories it is in.
NAMES_COUNT = RankingWeights(entity_max_share=1.0)


def _in_memory(store: ProjectionStore) -> Searcher:
    """A searcher that keeps the user in memory."""
    return Searcher(
        store,
        embed=bag_of_words,
        model=MODEL,
        weights=NAMES_COUNT,
        clock=FakeClock(NOW),
        cache_rows=10_000,
    )


def _answers(searcher: Searcher, request: SearchRequest) -> list[tuple[str, float, bool]]:
    found = searcher.search(request).results
    return [(r.memory_id, r.score, r.forgotten) for r in found]


@pytest.mark.parametrize("k", [1, 3, 8, 40])
def test_ranking_what_it_needs_answers_as_ranking_every_candidate(
    store: ProjectionStore, k: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In memory, rows are read and scored only while a candidate left could still
    make the first k; reading and scoring them all (one step) answers the same."""
    searcher = _in_memory(store)
    requests = [
        SearchRequest(user_id="ana", query=query, k=k, **extra)
        for query in QUERIES
        for extra in ({}, {"kinds": ["episode"]}, {"include_history": True})
    ]
    lazily = [_answers(searcher, request) for request in requests]
    monkeypatch.setattr(candidates_module, "_RANKED_AT_ONCE", 1_000_000)
    assert [_answers(searcher, request) for request in requests] == lazily
    assert all(lazily) and any(len(found) == k for found in lazily)


def test_the_entity_retriever_finds_in_memory_what_it_finds_in_the_tables(
    store: ProjectionStore,
) -> None:
    """The user's entities and the memories linked to them, read from memory, are those
    the tables give, in the same order; results carry the entities' names."""
    searcher = _in_memory(store)
    view = searcher._view("ana", {})
    assert view is not None
    named = 0
    for query in QUERIES:
        for kinds in (None, ["episode"], ["fact"]):
            request = SearchRequest(user_id="ana", query=query, kinds=kinds)
            mentions = searcher._query_mentions(query, NOW)
            where, wanted = _filters(request, "memories"), _wanted(request)
            from_memory = searcher._entity_rows(request, mentions, where, wanted, None, 50, view)
            from_tables = searcher._entity_rows(request, mentions, where, wanted, None, 50, None)
            assert [r["memory_id"] for r in from_memory] == [r["memory_id"] for r in from_tables]
            named += bool(from_memory)
    assert named >= 10  # the queries name people and places the memories link to
    found = searcher.search(SearchRequest(user_id="ana", query="Where does Carla live?"))
    assert any("Carla" in r.entities for r in found.results), found.results


candidates = st.lists(
    st.tuples(
        st.floats(0.001, 1.0),  # fused score
        st.floats(0.0, 1.0),  # adjustment, as a share of the bound
        st.sampled_from(["episode", "fact"]),
        st.lists(st.sampled_from(["e1", "e2", "e3", "e4"]), max_size=2),
        st.booleans(),  # whether the request may see it
    ),
    max_size=120,
)


@settings(max_examples=200, deadline=None)
@given(found=candidates, k=st.integers(1, 30), bound=st.floats(1.0, 3.0))
def test_ranking_only_what_it_needs_returns_what_ranking_all_returns(
    found: list[tuple[float, float, str, list[str], bool]], k: int, bound: float
) -> None:
    fused = {f"m{n}": score for n, (score, *_rest) in enumerate(found)}
    every = {
        f"m{n}": {"kind": kind, "source_event_ids": sources, "_adjust": share * bound}
        for n, (_, share, kind, sources, visible) in enumerate(found)
        if visible
    }
    rows: dict[str, dict[str, Any]] = {}
    read: list[str] = []

    def fetch(chosen: list[str]) -> None:
        read.extend(chosen)
        rows.update((m, every[m]) for m in chosen if m in every)

    def score_of(m: str) -> float:
        return fused[m] * float(rows[m]["_adjust"])

    best = _best(fused, rows, fetch, score_of, bound, k)
    scored = sorted(((fused[m] * float(r["_adjust"]), m) for m, r in every.items()), reverse=True)
    shown = set(
        without_restatements(
            [(m, every[m]["kind"], every[m]["source_event_ids"]) for _, m in scored]
        )
    )
    assert best == [(s, m) for s, m in scored if m in shown][:k]
    assert len(read) == len(set(read))  # each candidate read once at most
    # the facts left out as restatements among those ranked at least as high as the
    # k-th result: exactly what ranking all gives, though only some were read
    last = best[-1][0] if len(best) >= k else -1.0
    restated = [
        (s, m) for s, m in scored if s >= last and m not in shown and every[m]["kind"] == "fact"
    ]
    assert restated_rows(fused, rows, score_of, best, k) == restated


@pytest.mark.parametrize("kinds", [None, ["episode"], ["fact"]])
def test_what_the_turns_say_is_read_in_memory_as_in_the_tables(
    store: ProjectionStore, kinds: list[str] | None
) -> None:
    """What each memory says (a statement, a question, a reply, another), worked out once per
    memory in the view, is what reading the turns from the table gives, the replies'
    statements included, for what the request's filter lets through."""
    searcher = _in_memory(store)
    view = searcher._view("ana", {})
    assert view is not None
    request = SearchRequest(user_id="ana", query="anything", kinds=kinds)
    where, wanted = _filters(request, "memories"), _wanted(request)
    ids = store.scan(MEMORIES, ["memory_id"], "user_id = 'ana'").column("memory_id").to_pylist()
    some = ids[::3]  # both speakers' turns: the replies among them bring the turn before
    in_memory = turns_said(store, some, view.order, {}, where, wanted, view)
    from_tables = turns_said(store, some, view.order, {}, where, wanted, None)
    assert in_memory == from_tables
    if kinds != ["fact"]:  # Ana states, Ben replies; his replies bring her turn before
        assert "statement" in set(in_memory.values())
        assert set(in_memory.values()) & {"reply", "short reply"}
        assert set(in_memory) - set(some)
