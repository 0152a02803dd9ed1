"""A found turn lifts the turns beside it in its session, and a query is about the
speaker it names: the order of turns, spreading a score, the speaker a query names and
the query without that name are pure; then through a real searcher."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from memstream.events.codec import encode
from memstream.queries.search.neighbours import SessionOrder, spread
from memstream.queries.search.searcher import Searcher, SearchRequest
from memstream.queries.search.speakers import named_speaker, without_speaker
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.log_records import LogRecord
from memstream.streams.projector import Projector
from memstream.testing import FakeClock, message

AT = datetime(2024, 5, 1, 12, tzinfo=UTC)


def _turn(memory_id: str, session: str | None, seconds: int) -> dict[str, object]:
    return {
        "memory_id": memory_id,
        "session_id": session,
        "occurred_at": AT + timedelta(0, seconds),
    }


def test_turns_are_ordered_by_time_within_their_session() -> None:
    order = SessionOrder.of(
        [_turn("c", "s1", 2), _turn("a", "s1", 0), _turn("x", "s2", 0), _turn("b", "s1", 1)]
    )
    assert order.neighbours("a") == ["b"]
    assert order.neighbours("b") == ["a", "c"]
    assert order.neighbours("c") == ["b"]
    assert order.neighbours("x") == []  # alone in its session
    assert order.neighbours("a", reach=2) == ["b", "c"]
    assert order.neighbours("b", reach=2) == ["a", "c"]
    assert order.neighbours("unknown") == []
    assert SessionOrder.of([_turn("n", None, 0)]).neighbours("n") == []


@given(st.permutations([_turn(f"m{i}", f"s{i % 3}", i // 3) for i in range(9)]))
def test_the_order_does_not_depend_on_the_order_rows_come_in(rows: list[dict[str, object]]) -> None:
    order = SessionOrder.of(rows)
    assert order.position["m0"] == ("s0", 0) and order.position["m6"] == ("s0", 2)
    assert order.neighbours("m3") == ["m0", "m6"]


def test_a_score_is_shared_with_the_turns_beside_it_once() -> None:
    order = SessionOrder.of([_turn(m, "s", i) for i, m in enumerate("abcd")])
    spread_out = spread({"a": 1.0, "b": 0.5}, order, share=0.2, reach=1)
    assert spread_out == pytest.approx({"a": 1.1, "b": 0.7, "c": 0.1})
    spread_out = spread({"a": 1.0, "b": 0.5}, order, share=0.2, reach=2)
    # c has a and b before it: the best of them counts, once
    assert spread_out == pytest.approx({"a": 1.1, "b": 0.7, "c": 0.2, "d": 0.1})
    assert spread({"a": 1.0}, order, share=0.0) == {"a": 1.0}
    assert spread({"a": 1.0}, order, share=0.2, reach=0) == {"a": 1.0}


@given(
    st.lists(st.floats(0.0, 1.0), min_size=7, max_size=7),
    st.integers(0, 6),
    st.integers(1, 4),
)
def test_a_turn_gets_at_most_one_share_from_each_side(
    found: list[float], middle: int, reach: int
) -> None:
    """However many turns around it were found, a turn gets at most a share of the
    best before it and of the best after it: in a small store, where most turns are
    found, a turn amid found ones does not outgrow the best match."""
    order = SessionOrder.of([_turn(f"t{i}", "s", i) for i in range(7)])
    scores = {f"t{i}": s for i, s in enumerate(found) if i != middle}
    spread_out = spread(scores, order, share=0.3, reach=reach)
    before = [found[i] for i in range(max(0, middle - reach), middle)]
    after = [found[i] for i in range(middle + 1, min(7, middle + reach + 1))]
    expected = 0.3 * (max(before, default=0.0) + max(after, default=0.0))
    assert spread_out.get(f"t{middle}", 0.0) == pytest.approx(expected)


def test_the_speaker_a_query_names() -> None:
    speakers = {"Caroline", "Melanie", None}
    assert named_speaker("What did caroline research?", speakers) == "Caroline"
    assert named_speaker("How did Caroline help Melanie?", speakers) is None
    assert named_speaker("What did Carol research?", speakers) is None
    assert named_speaker("What did Ann say?", {"Anna"}) is None
    assert named_speaker("Where does Mary-Jo live?", {"Mary-Jo", "Jo"}) == "Mary-Jo"


def test_the_query_without_the_speakers_name() -> None:
    assert without_speaker("What activities does Melanie partake in?", "Melanie") == (
        "What activities does partake in?"
    )
    assert without_speaker("What is melanie's favourite book?", "Melanie") == (
        "What is favourite book?"
    )
    assert without_speaker("Why did Melanie\u2019s dog bark?", "Melanie") == "Why did dog bark?"
    assert without_speaker("Where does Mary-Jo live?", "Jo") == "Where does Mary-Jo live?"
    assert without_speaker("Melanie?", "Melanie") == "Melanie?"  # nothing would be left
    assert without_speaker("Melanie painting", "Melanie") == "Melanie painting"


def test_a_query_naming_the_unnamed_user_is_embedded_as_asked() -> None:
    """The unnamed user's statements are told by "the user" and say it ("The user
    joined a climbing gym."): the query keeps the words, a named speaker's name goes."""
    from memstream.queries.search.candidates import embedded_query

    speakers = frozenset({"the user", "Melanie"})
    asked = "What sport did the user take up?"
    assert named_speaker(asked, speakers) == "the user"  # their statements still count
    assert embedded_query(asked, speakers) == asked
    assert embedded_query("What sport did Melanie take up?", speakers) == (
        "What sport did take up?"
    )


SESSION = [
    ("Alice", "What did you name the new puppy you adopted?"),
    ("Bob", "We called him Biscuit, after his colour."),
    ("Alice", "I painted the fence on Sunday."),
]


@pytest.fixture(params=[0, 10_000], ids=["tables", "read-model"])
def store(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[tuple[ProjectionStore, int]]:
    store = ProjectionStore(str(tmp_path / "projections"))
    events = [
        message(event_id=f"e{i}", speaker=who, content=text, occurred_at=AT + timedelta(0, i))
        for i, (who, text) in enumerate(SESSION)
    ]
    events.append(
        message(event_id="other", session_id="s2", content="Biscuit recipes", occurred_at=AT)
    )
    Projector(store, "test", clock=FakeClock(AT)).apply(
        [LogRecord("e", "t", 0, n, AT, None, encode(e)) for n, e in enumerate(events)]
    )
    store.upkeep.ensure_indexes()
    yield store, request.param


def test_the_answer_beside_a_found_question_is_found(store: tuple[ProjectionStore, int]) -> None:
    """Full text alone finds the question turn; the answer after it shares no word
    with the query and comes with it, after it, and only through spreading."""
    projections, cache_rows = store
    searcher = Searcher(projections, clock=FakeClock(AT), cache_rows=cache_rows)

    def found(share: float, reach: int = 2) -> list[str]:
        searcher.weights = replace(searcher.weights, neighbour_share=share, neighbour_reach=reach)
        request = SearchRequest(user_id="alice", query="new puppy adopted")
        return [r.content for r in searcher.search(request).results]

    assert found(0.0) == [SESSION[0][1]]
    # not the turn of another session; the one two turns on only with a reach of two
    assert found(0.3, reach=1) == [SESSION[0][1], SESSION[1][1]]
    assert found(0.3) == [SESSION[0][1], SESSION[1][1], SESSION[2][1]]


def test_the_speaker_named_comes_first(store: tuple[ProjectionStore, int]) -> None:
    projections, cache_rows = store
    searcher = Searcher(projections, clock=FakeClock(AT), cache_rows=cache_rows)
    # Alice's turn is a question: at its own weight, so that only the speaker counts
    searcher.weights = replace(searcher.weights, neighbour_share=0.0, question_weight=1.0)

    def first(query: str) -> str | None:
        results = searcher.search(SearchRequest(user_id="alice", query=query)).results
        return results[0].speaker

    question = "What did Bob say of the puppy they adopted?"  # Alice's turn has more words
    assert first(question) == "Bob"
    searcher.weights = replace(searcher.weights, speaker=0.0)
    assert first(question) == "Alice"


def test_the_query_is_embedded_without_the_speaker_it_names(
    store: tuple[ProjectionStore, int],
) -> None:
    """The user's speakers are known where the user is held in memory: there the query
    vector is made of the query without the name; the tables alone embed it whole."""
    projections, cache_rows = store
    embedded: list[str] = []

    def embed(text: str) -> np.ndarray:
        embedded.append(text)
        return np.ones(384, dtype=np.float32) / np.sqrt(384)

    searcher = Searcher(projections, clock=FakeClock(AT), cache_rows=cache_rows, embed=embed)

    def vector_of(query: str) -> str:
        searcher.search(SearchRequest(user_id="alice", query=query))
        return embedded[-1]

    named = "What did name the puppy?" if cache_rows else "What did Bob name the puppy?"
    assert vector_of("What did Bob name the puppy?") == named
    both = "How did Alice and Bob meet?"
    assert vector_of(both) == both  # two named: neither left out
    embedded.clear()  # the speakers are known from the first search on: one embedding
    assert vector_of("What did Bob name the puppy?") == named and len(embedded) == 1
