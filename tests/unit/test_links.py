"""Links from a later statement back to the earlier ones it refers to: which links are
derived and with what relation (pure), how they join in a memory's state (in any order
of events), how search follows them (pure), then the whole path over real tables: a
session consolidated with the vectors of the real embedder, its event applied, and a
search (over the tables and over the read model) finding the earlier statement through
the later one."""

from __future__ import annotations

import itertools
import shutil
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import lancedb
import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st
from support.model_server import ModelServer, model_server

from memstream.adapters.embedders import MiniLMEmbedder
from memstream.adapters.language_models import OpenAIModel
from memstream.events.codec import decode, encode
from memstream.events.vocabulary import FactsConsolidated, ForgetMemory, MemoryLink
from memstream.jobs.lifecycle import LifecycleJobs
from memstream.jobs.linking import NearestLinker
from memstream.jobs.model_linking import ModelLinker
from memstream.policies.lifecycle import LifecyclePolicy
from memstream.projections.episodes import memory_id_for, search_text
from memstream.projections.links import Candidate, Statement, derive_links, relation_of
from memstream.projections.memory_state import StateChange, links_of, merge_states
from memstream.projections.vectors import embedding_events
from memstream.queries.context.relevance import bearing_results
from memstream.queries.search.linked import UNDER_THE_SOURCE, followed
from memstream.queries.search.searcher import Searcher, SearchRequest
from memstream.queries.search.trace import SearchTrace
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.lance.tables import MEMORY_STATE, STATE_TABLES
from memstream.storage.log_records import LogRecord
from memstream.storage.schemas import MEMORY_STATE_SCHEMA
from memstream.streams.projector import Projector
from memstream.testing import FakeClock, message
from memstream.text.extractor import LocalExtractor

AT = datetime(2025, 1, 12, 9, tzinfo=UTC)
LATER = AT + timedelta(days=60)


def _candidate(memory_id: str, similarity: float, **fields: object) -> Candidate:
    values: dict[str, object] = {
        "session_id": "s1",
        "occurred_at": AT,
        "role": "user",
        "content": f"statement {memory_id}.",
        "similarity": similarity,
    }
    values.update(fields)
    return Candidate(memory_id, **values)  # type: ignore[arg-type]


def test_a_statement_links_to_the_nearest_earlier_statements_of_other_sessions() -> None:
    later = Statement("m9", "s2", LATER, "My calves already ache since I signed up.", "Kwame")
    candidates = {
        "m9": [
            _candidate("near", 0.6),
            _candidate("nearer", 0.7),
            _candidate("weak", 0.29),
            _candidate("same-session", 0.9, session_id="s2"),
            _candidate("after", 0.9, occurred_at=LATER + timedelta(1)),
            _candidate("reply", 0.9, role="assistant"),
            _candidate("question", 0.9, content="Should I run?"),
            _candidate("someone else's", 0.9, speaker="Abena"),
            _candidate("m9", 1.0),  # itself
        ]
    }
    links = derive_links([later], candidates, per_statement=5, min_strength=0.3)
    assert [(x.linked_id, x.strength) for x in links] == [("nearer", 0.7), ("near", 0.6)]
    assert {x.relation for x in links} == {"cause"} and {x.memory_id for x in links} == {"m9"}
    assert [x.linked_id for x in derive_links([later], candidates, 1, 0.3)] == ["nearer"]
    # a question of the user links to nothing: it tells nothing to refer back from
    asked = Statement("m8", "s2", LATER, "Should I worry about my calves?")
    assert derive_links([asked], {"m8": candidates["m9"]}, 5, 0.3) == []


@pytest.mark.parametrize(
    ("later", "relation"),
    [
        ("Actually it was the left knee, not the right.", "correction"),
        ("My calves ache since I signed up for the race.", "cause"),
        ("I'm training for my first triathlon in September.", "goal"),
        ("Honesty is important to me, always.", "value"),
        ("The boiler is still broken.", "state"),
        ("Abena booked a cruise round the Greek islands.", "refers_to"),
    ],
)
def test_the_relation_is_read_from_the_later_statements_cue_words(
    later: str, relation: str
) -> None:
    assert relation_of(later) == relation


_LINKS = st.lists(
    st.tuples(
        st.sampled_from(["a", "b", "c"]),
        st.sampled_from(["refers_to", "cause", "goal"]),
        st.sampled_from([0.3, 0.5, 0.9]),
    ),
    max_size=4,
).map(tuple)


@given(st.lists(st.tuples(st.sampled_from(["m1", "m2"]), _LINKS), min_size=1, max_size=5))
def test_a_states_links_join_the_same_in_any_order(changes: list[tuple[str, tuple]]) -> None:
    """Each earlier memory once, its strongest link: whatever order the events came in,
    and whether one came twice."""
    made = [StateChange(m, "alice", links=links) for m, links in changes]
    merged = [merge_states({}, order) for order in itertools.permutations(made)]
    assert all(m == merged[0] for m in merged)
    assert merge_states(merged[0], made) == merged[0]  # applied again: the same
    for memory_id, row in merged[0].items():
        given_links = [x for m, links in changes if f"alice|{m}" == memory_id for x in links]
        kept = links_of(row)
        assert [x[0] for x in kept] == sorted({x[0] for x in given_links})
        for linked_id, _, strength in kept:
            assert strength == max(s for i, _, s in given_links if i == linked_id)


def test_search_follows_the_links_of_its_best_candidates() -> None:
    links = {"later": [("earlier", "cause", 0.5), ("older", "refers_to", 0.4), ("other", "", 1)]}
    scores = {"later": 1.0, "other": 0.96, "older": 0.1}
    out, through = followed(scores, lambda m: links.get(m, []), share=1.0, reach=1)
    # at least its share of the source's score, never above UNDER_THE_SOURCE of it
    assert out == pytest.approx({"later": 1.0, "other": 0.96, "earlier": 0.5, "older": 0.4})
    assert through == {"earlier": "later", "older": "later"}
    out, _ = followed(scores, lambda m: links.get(m, []), share=3.0, reach=1)
    assert out["earlier"] == pytest.approx(UNDER_THE_SOURCE) and out["other"] == 0.96
    # only the best ``reach`` are followed; share 0 or reach 0 changes nothing
    assert followed({**scores, "other": 2.0}, lambda m: links.get(m, []), 1.0, 1)[1] == {}
    assert followed(scores, lambda m: links.get(m, []), 0.0, 1) == (scores, {})
    assert followed(scores, lambda m: links.get(m, []), 1.0, 0) == (scores, {})


def test_a_consolidation_written_before_links_replays_with_none() -> None:
    old = (
        b'{"type":"facts_consolidated","schema_version":1,"event_id":"c","user_id":"u",'
        b'"session_id":"s","through":"2025-01-12T09:00:00Z","extractor":"local",'
        b'"memories":[],"decided_at":"2025-01-12T09:00:00Z"}'
    )
    event = decode(old)
    assert isinstance(event, FactsConsolidated) and event.links == []
    linked = event.model_copy(
        update={"links": [MemoryLink(memory_id="a", linked_id="b", strength=0.5)]}
    )
    assert decode(encode(linked)) == linked


EARLIER = [
    "My physio told me to stop running until the tendon heals.",
    "We painted the kitchen a pale blue over the weekend.",
]
LATER_SAID = "I signed up for the Bristol half-marathon and my calves already ache."


@pytest.fixture(scope="module")
def linked_store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ProjectionStore]:
    """Two earlier statements in one session, the later one in another, embedded by the
    real model, the later session consolidated by the real jobs and applied."""
    store = ProjectionStore(str(tmp_path_factory.mktemp("links") / "projections"))
    events = [
        message(event_id=f"e{i}", session_id="s1", content=t, occurred_at=AT + timedelta(0, i))
        for i, t in enumerate(EARLIER)
    ]
    events.append(message(event_id="later", session_id="s2", content=LATER_SAID,
                          occurred_at=LATER))  # fmt: skip
    embedder = MiniLMEmbedder(threads=1)
    computed = embedding_events(
        [
            (memory_id_for(e.user_id, e.event_id), e.user_id, None, "episode", e.occurred_at)
            for e in events
        ],
        embedder.embed([search_text(e.speaker, e.content) for e in events]),
        embedder.model,
        embedder.version,
        AT,
    )
    projector = Projector(store, "test", clock=FakeClock(LATER))
    records = [encode(e) for e in [*events, *computed]]
    projector.apply([LogRecord("e", "t", 0, n, AT, None, r) for n, r in enumerate(records)])
    jobs = LifecycleJobs(
        store, LocalExtractor(), LifecyclePolicy(), linker=NearestLinker(store, embedder.model)
    )
    decided = jobs.consolidate(LATER + timedelta(days=1)).events
    projector.apply(
        [
            LogRecord("l", "t", 0, n, AT, None, encode(e))
            for n, e in enumerate(decided, start=len(records))
        ]
    )
    store.upkeep.ensure_indexes()
    yield store


def test_consolidation_links_the_later_statement_to_what_it_refers_back_to(
    linked_store: ProjectionStore,
) -> None:
    later_id = memory_id_for("alice", "later")
    [state] = linked_store.by_ids(MEMORY_STATE, [f"alice|{later_id}"])
    linked = links_of(state)
    assert [x[0] for x in linked][:1] == [memory_id_for("alice", "e0")]
    assert all(x[0] != memory_id_for("alice", "e1") or x[2] < linked[0][2] for x in linked)
    assert linked[0][1] == "refers_to" and 0.3 <= linked[0][2] <= 1


@pytest.mark.parametrize("cache_rows", [0, 10_000], ids=["tables", "read-model"])
def test_a_question_about_the_later_statement_finds_the_earlier_through_it(
    linked_store: ProjectionStore, cache_rows: int
) -> None:
    """Full text finds the later statement by its words; the physio's advice shares none
    with the question and is found only through the link, just under it."""
    searcher = Searcher(linked_store, clock=FakeClock(LATER), cache_rows=cache_rows)
    request = SearchRequest(user_id="alice", query="why do my calves ache", k=3)

    searcher.weights = replace(searcher.weights, link_share=0.0)
    assert [r.content for r in searcher.search(request).results] == [LATER_SAID]

    searcher.weights = replace(searcher.weights, link_share=1.0, link_reach=1)
    results = searcher.search(request).results
    assert [r.content for r in results][:2] == [LATER_SAID, EARLIER[0]]
    assert results[1].found_through == results[0].memory_id
    # a context block keeps it: the later statement bears on the question
    kept = bearing_results(results, request.query, {"calv", "ach"}, 0.3)
    assert EARLIER[0] in [r.content for r in kept]

    trace = SearchTrace()
    searcher.search(request, trace)
    followed_to = trace.candidates[results[1].memory_id]
    assert followed_to.linked_from == results[0].memory_id and followed_to.fused == 0.0


def test_the_configured_model_chooses_the_links_and_the_vectors_stand_in_when_it_fails(
    linked_store: ProjectionStore,
) -> None:
    """The model is shown the later statement with its earlier candidates, nearest
    first, and links it to the one it names (here the least near, which the vectors
    would not choose first); a number naming no candidate is dropped. When the call
    fails after its retries, the session gets the vectors' links."""
    later, physio, kitchen = (memory_id_for("alice", e) for e in ("later", "e0", "e1"))
    [episodes] = linked_store.queries.session_episodes(
        [("alice", "s2", None, LATER + timedelta(days=1))]
    ).values()
    nearest = NearestLinker(linked_store, MiniLMEmbedder(threads=1).model)
    with model_server() as url:
        model = OpenAIModel("sk-test", model="gpt-4.1-mini", base_url=f"{url}/v1",
                            max_retries=1, backoff_seconds=0.0, sleep=lambda _: None)  # fmt: skip
        links, usage = ModelLinker(model, nearest).links("alice", episodes)
        assert usage is not None and usage.calls == 1
        assert [(x.memory_id, x.linked_id, x.relation, x.strength) for x in links] == [
            (later, kitchen, "cause", 0.8)
        ]
        prompt = ModelServer.requests[-1]["body"]["messages"][1]["content"]
        assert prompt.index(EARLIER[0]) < prompt.index(EARLIER[1]) and LATER_SAID in prompt

        ModelServer.plan = ["500", "500"]
        fallen_back, usage = ModelLinker(model, nearest).links("alice", episodes)
        assert (fallen_back, usage) == nearest.links("alice", episodes)
        assert fallen_back[0].linked_id == physio and usage is None


def test_a_moment_before_links_existed_is_searched_without_them(tmp_path: Path) -> None:
    """A store written before the ``links`` column: opened now, the column is added; a
    search of a version from before (a past moment), through the rows kept in memory,
    reads its states without the column, as states that never had a link."""
    folder = str(tmp_path / "projections")
    store = ProjectionStore(folder)
    Projector(store, "test", clock=FakeClock(AT)).apply(
        [LogRecord("e", "t", 0, 0, AT, None, encode(message(content="The boiler broke.")))]
    )
    old_schema = pa.schema([f for f in MEMORY_STATE_SCHEMA if f.name != "links"])
    lancedb.connect(folder).drop_table(MEMORY_STATE)
    lancedb.connect(folder).create_table(MEMORY_STATE, schema=old_schema).add(
        [{"state_id": "alice|m0", "memory_id": "m0", "user_id": "alice", "confidence": 0.5}]
    )
    before = lancedb.connect(folder).open_table(MEMORY_STATE).version
    store = ProjectionStore(folder)  # an upgrade: the column is added
    assert "links" in store.table(MEMORY_STATE).schema.names
    pinned = store.pinned(
        {name: store.version(name) for name in STATE_TABLES} | {MEMORY_STATE: before}
    )
    assert "links" not in pinned.table(MEMORY_STATE).schema.names
    searcher = Searcher(pinned, clock=FakeClock(AT), cache_rows=10_000)
    found = searcher.search(SearchRequest(user_id="alice", query="boiler", k=3)).results
    assert [r.content for r in found] == ["The boiler broke."]


def test_a_hidden_memory_lifts_nothing_it_links_to() -> None:
    links = {"forgotten": [("earlier", "cause", 0.9)], "shown": [("other", "state", 0.5)]}
    scores = {"forgotten": 1.0, "shown": 0.8}
    out, through = followed(scores, lambda m: links.get(m, []), 1.0, 1, {"forgotten"}.__contains__)
    assert "earlier" not in out and through == {"other": "shown"}
    assert out["other"] == pytest.approx(0.4)


@pytest.mark.parametrize("cache_rows", [0, 10_000], ids=["tables", "read-model"])
def test_a_forgotten_later_statement_leads_to_nothing(
    linked_store: ProjectionStore, tmp_path: Path, cache_rows: int
) -> None:
    """Once the later statement is forgotten, a search no longer reaches what it
    referred back to through it; a search of the history (forgotten memories shown)
    does (asked of a copy of the linked store)."""
    copy = tmp_path / "projections"
    shutil.copytree(linked_store.uri, copy)
    store = ProjectionStore(str(copy))
    forget = ForgetMemory(user_id="alice", memory_id=memory_id_for("alice", "later"),
                          occurred_at=LATER + timedelta(days=2))  # fmt: skip
    Projector(store, "test", clock=FakeClock(LATER)).apply(
        [LogRecord("c", "t", 0, 1_000, AT, None, encode(forget))]
    )
    searcher = Searcher(store, clock=FakeClock(LATER), cache_rows=cache_rows)
    request = SearchRequest(user_id="alice", query="why do my calves ache", k=3)
    found = [r.content for r in searcher.search(request).results]
    assert LATER_SAID not in found and EARLIER[0] not in found  # (its fact may be found)
    history = request.model_copy(update={"include_history": True})
    assert [r.content for r in searcher.search(history).results][:2] == [LATER_SAID, EARLIER[0]]


def test_the_store_query_and_the_read_at_once_find_the_same_links(
    linked_store: ProjectionStore,
) -> None:
    """A small user's earlier vectors are read at once and compared in memory; a big
    one's are asked of the store's nearest-vector query per statement: the same links."""
    [episodes] = linked_store.queries.session_episodes(
        [("alice", "s2", None, LATER + timedelta(days=1))]
    ).values()
    model = MiniLMEmbedder(threads=1).model
    read_at_once = NearestLinker(linked_store, model).links("alice", episodes)
    asked_each = NearestLinker(linked_store, model, scan_at_most=0).links("alice", episodes)
    assert read_at_once[0] and [
        (x.memory_id, x.linked_id, x.relation, x.strength) for x in read_at_once[0]
    ] == [(x.memory_id, x.linked_id, x.relation, pytest.approx(x.strength, abs=1e-5))
          for x in asked_each[0]]  # fmt: skip
