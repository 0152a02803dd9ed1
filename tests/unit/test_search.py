"""Hybrid search over real LanceDB tables: scope isolation, filters, fusion, vectors.

Rows are written by the real projector (messages, then ``EmbeddingComputed`` events
made with the real MiniLM embedder), so the tables are what the worker builds.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memstream.adapters.embedders import MiniLMEmbedder, QueryEmbeddingCache
from memstream.events.codec import encode
from memstream.events.errors import InvalidQuery
from memstream.projections.episodes import memory_id_for, search_text
from memstream.projections.vectors import embedding_events
from memstream.queries.search.searcher import Searcher, SearchRequest
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.log_records import LogRecord
from memstream.streams.projector import Projector
from memstream.testing import FakeClock, message

AT = datetime(2024, 5, 1, 12, tzinfo=UTC)

MEMORIES = {
    "alice": [
        ("Alice", "My cat Tom loves tuna and sleeps all day", ["pets"], "2024-04-01"),
        ("Alice", "I play the cello on Tuesday evenings", [], "2024-04-20"),
        ("Alice", "Bob's birthday party is at the lake house", ["family"], "2024-04-28"),
        ("Alice", "The project deadline moved to Friday", ["work"], "2024-04-30"),
    ],
    "bob": [
        ("Bob", "My cat Tom is allergic to tuna; secret code 4321", ["pets"], "2024-04-02"),
        ("Bob", "I play the cello too, with Alice", [], "2024-04-21"),
    ],
}


@pytest.fixture(scope="module", params=[0, 10_000], ids=["tables", "read-model"])
def searcher(
    tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> Iterator[Searcher]:
    """A searcher asking the tables for everything, and one keeping users in memory."""
    store = ProjectionStore(str(tmp_path_factory.mktemp("search") / "projections"))
    projector = Projector(store, "test", clock=FakeClock(AT))
    events = [
        message(
            event_id=f"{user}-{i}",
            user_id=user,
            speaker=speaker,
            content=text,
            tags=tags,
            occurred_at=f"{day}T10:00:00Z",
        )
        for user, rows in MEMORIES.items()
        for i, (speaker, text, tags, day) in enumerate(rows)
    ]
    embedder = MiniLMEmbedder(threads=1)
    vectors = embedder.embed([search_text(e.speaker, e.content) for e in events])
    computed = embedding_events(
        [
            (memory_id_for(e.user_id, e.event_id), e.user_id, None, "episode", e.occurred_at)
            for e in events
        ],
        vectors,
        embedder.model,
        embedder.version,
        AT,
    )
    records = [_record(i, encode(e)) for i, e in enumerate([*events, *computed])]
    projector.apply(records)
    store.upkeep.ensure_indexes()
    yield Searcher(
        store,
        QueryEmbeddingCache(embedder),
        embedder.model,
        clock=FakeClock(AT),
        cache_rows=request.param,
    )


def _record(offset: int, value: bytes) -> LogRecord:
    return LogRecord("e", "t", 0, offset, AT, None, value)


def contents(searcher: Searcher, **request: object) -> list[str]:
    response = searcher.search(SearchRequest.model_validate(request))
    return [r.content for r in response.results]


def test_a_paraphrase_is_found_by_the_vectors(searcher: Searcher) -> None:
    found = contents(searcher, user_id="alice", query="which musical instrument do I practice")
    assert found[0] == "I play the cello on Tuesday evenings"


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    query=st.one_of(
        st.sampled_from(
            [
                "secret code 4321",
                "cat Tom tuna",
                "' OR '1'='1",
                '" ; DROP TABLE memories; --',
                "user_id = 'bob'",
                "Bob",
                "cello Alice",
            ]
        ),
        st.text(min_size=1, max_size=40),
    ),
    tags=st.one_of(
        st.none(), st.lists(st.sampled_from(["pets", "work", "x'y", "a b"]), max_size=2)
    ),
)
def test_a_user_never_sees_another_users_memory(
    searcher: Searcher, query: str, tags: list[str] | None
) -> None:
    try:
        request = SearchRequest(user_id="alice", query=query, tags=tags, k=50)
    except ValueError:
        return  # rejected before reading: nothing was shown
    for result in searcher.search(request).results:
        assert result.source_event_ids[0].startswith("alice-")


def test_filters_by_kind_tag_and_time(searcher: Searcher) -> None:
    assert contents(searcher, user_id="alice", query="cat", tags=["pets"]) == [
        "My cat Tom loves tuna and sleeps all day"
    ]
    late = contents(
        searcher, user_id="alice", query="cello cat party deadline", after="2024-04-25T00:00:00Z"
    )
    assert set(late) == {
        "Bob's birthday party is at the lake house",
        "The project deadline moved to Friday",
    }
    assert contents(searcher, user_id="alice", query="cat", kinds=["fact"]) == []


def test_a_time_phrase_favours_memories_of_that_time(searcher: Searcher) -> None:
    now = "2024-05-01T12:00:00Z"
    assert contents(searcher, user_id="alice", query="what did I do yesterday", now=now)[0] == (
        "The project deadline moved to Friday"
    )


def test_a_time_phrase_boosts_without_filtering_and_both_times_are_shown(
    searcher: Searcher,
) -> None:
    now = "2024-05-01T12:00:00Z"
    request = SearchRequest(user_id="alice", query="what about my cat yesterday", now=now, k=10)
    results = searcher.search(request).results
    # the cat was mentioned weeks before "yesterday": still found, the phrase only favours
    assert "My cat Tom loves tuna and sleeps all day" in [r.content for r in results]
    for result in results:
        assert result.recorded_at == AT  # when the log received it
        assert result.occurred_at is not None and result.occurred_at != result.recorded_at


def test_intent_is_classified(searcher: Searcher) -> None:
    for query, intent in [
        ("when is the party", "when"),
        ("why did the deadline move", "why"),
        ("who plays the cello", "who"),
        ("what does my cat eat", "what"),
    ]:
        assert searcher.search(SearchRequest(user_id="alice", query=query)).intent == intent


def test_bad_requests_are_refused_before_reading(searcher: Searcher) -> None:
    for bad in (
        {"user_id": "alice' OR '1'='1", "query": "x"},
        {"user_id": "alice", "query": "   "},
        {"user_id": "alice", "query": "x", "kinds": ["secrets"]},
        {"user_id": "alice", "query": "x", "k": "5"},
        {"user_id": "alice", "query": "x", "include_history": 1},
        {"user_id": "alice", "query": "x", "now": 1714521600},
        {"user_id": "alice", "query": "x", "now": "0001-01-01T00:00:00+14:00"},
    ):
        with pytest.raises(ValueError):
            SearchRequest.model_validate(bad)
    # An empty time range is no error: it matches nothing.
    empty = {"user_id": "alice", "query": "x", "after": "2024-05-01", "before": "2024-04-01"}
    assert searcher.search(SearchRequest.model_validate(empty)).results == []
    with pytest.raises(InvalidQuery):
        from memstream.policies.scope import scope_filter

        scope_filter("alice", "p' OR 1=1")


@pytest.mark.parametrize(
    "query",
    ["what does the cat eat", "cello on Tuesday", "Bob party lake", "deadline last week"],
)
def test_a_traced_search_returns_what_a_search_returns_and_shows_why(
    searcher: Searcher, query: str
) -> None:
    from memstream.queries.search.trace import SearchTrace

    request = SearchRequest(user_id="alice", query=query, k=2)
    plain = searcher.search(request).results
    trace = SearchTrace()
    traced = searcher.search(request, trace).results
    assert [(r.memory_id, r.score) for r in traced] == [(r.memory_id, r.score) for r in plain]
    returned = [c for c in trace.ordered() if c.outcome == "returned"]
    assert [c.memory_id for c in returned] == [r.memory_id for r in plain]
    for rank, (candidate, result) in enumerate(zip(returned, plain, strict=True), start=1):
        assert candidate.rank == rank
        assert candidate.hits, "a returned memory was found by some retriever"
        factor = 1.0 + sum(candidate.adjustments.values())
        confidence = 1.0 if candidate.confidence is None else candidate.confidence
        assert candidate.said * factor * confidence == pytest.approx(result.score, abs=1e-6)
    others = [c for c in trace.candidates.values() if c.outcome != "returned"]
    assert all(c.rank is None for c in others)
    # four memories of alice's, two returned: the rest are below k or restatements
    assert {c.outcome for c in others} <= {"below k", "restated"}
    bobs = {memory_id_for("bob", f"bob-{i}") for i in range(len(MEMORIES["bob"]))}
    assert not bobs & set(trace.candidates), "another user's memory is never a candidate"
    assert all(c.row["content"] for c in trace.candidates.values())
    assert set(trace.found) == {"full_text", "vector", "entity"}
