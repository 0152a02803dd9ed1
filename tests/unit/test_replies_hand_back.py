"""An assistant's reply found hands its score to the user's statement it replies to (a
short reply, a restatement of it, all of its score, and ranks below it), and a user's
question ranks below what was told: what each turn said, the hand-back and
the lowering are pure; then through a real searcher, over the tables and over the read
model."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memstream.events.codec import encode
from memstream.queries.search.neighbours import (
    OTHER,
    QUESTION,
    REPLY,
    SHORT_REPLY,
    SHORT_REPLY_CHARACTERS,
    STATEMENT,
    SessionOrder,
    handed_back,
    questions_lowered,
    turn_said,
)
from memstream.queries.search.searcher import Searcher, SearchRequest
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.log_records import LogRecord
from memstream.streams.projector import Projector
from memstream.testing import FakeClock, message

AT = datetime(2024, 5, 1, 12, tzinfo=UTC)


def test_what_a_turn_said() -> None:
    assert turn_said("user", "The vet said Biscuit has to lose two kilos.") == STATEMENT
    assert turn_said("user", "my knees hurt") == STATEMENT  # no sentence end at all
    assert turn_said("user", "Which boots? And which socks?") == QUESTION
    # a statement with a question after it still tells something
    assert turn_said("user", "I got a puppy. What should she eat?") == STATEMENT
    assert turn_said("user", "What is v1.2 of the API?") == QUESTION  # a dot inside a word
    # a long turn is not read through: what it pastes tells something
    assert turn_said("user", "Why? " * 1_000) == STATEMENT
    assert turn_said("user", "Why? " * 100) == QUESTION
    assert turn_said("assistant", "Longer walks help.") == SHORT_REPLY
    assert turn_said("assistant", "x" * SHORT_REPLY_CHARACTERS) == SHORT_REPLY
    assert turn_said("assistant", "x" * (SHORT_REPLY_CHARACTERS + 1)) == REPLY
    assert turn_said("tool", "exit code 0") == OTHER
    assert turn_said(None, "a note") == OTHER


def _order(*turns: str) -> SessionOrder:
    return SessionOrder.of_sorted(list(turns), ["s"] * len(turns))


def test_a_reply_hands_its_score_to_the_statement_before_it() -> None:
    order = _order("statement", "reply", "question", "answer")
    said = {"statement": STATEMENT, "reply": REPLY, "question": QUESTION, "answer": REPLY}
    scores = {"reply": 1.0, "answer": 0.8}
    # the statement gets its share; the question the answer replies to gets nothing
    out, through = handed_back(scores, order, said, 0.95)
    assert out == pytest.approx({"reply": 1.0, "answer": 0.8, "statement": 0.95})
    assert through == {"statement": "reply"}
    # a statement found on its own keeps the better of the two, found by itself
    assert handed_back({**scores, "statement": 2.0}, order, said, 0.95)[0]["statement"] == 2.0
    assert handed_back({**scores, "statement": 2.0}, order, said, 0.95)[1] == {}
    assert handed_back(scores, order, said, 0.0) == (scores, {})
    # a reply that opens its session hands nothing back; a turn after it takes nothing
    assert handed_back({"statement": 1.0}, _order("reply", "statement"), said, 0.95) == (
        {"statement": 1.0},
        {},
    )


def test_a_short_reply_restates_the_statement_and_ranks_below_it() -> None:
    order = _order("statement", "ack", "question", "short answer")
    said = {"statement": STATEMENT, "ack": SHORT_REPLY, "question": QUESTION}
    said["short answer"] = SHORT_REPLY
    scores = {"ack": 1.0, "short answer": 0.8}
    out, through = handed_back(scores, order, said, 0.95, restatement_weight=0.5)
    # the statement gets all of the echo's score and the echo half of its own; a short
    # reply to a question is the answer to it, and keeps its score
    assert out == pytest.approx({"statement": 1.0, "ack": 0.5, "short answer": 0.8})
    assert through == {"statement": "ack"}
    # a statement found better on its own keeps its score; the echo is lowered still
    out, through = handed_back({**scores, "statement": 2.0}, order, said, 0.95, 0.5)
    assert out["statement"] == 2.0 and out["ack"] == 0.5 and through == {}
    # weight 1: the echo as found (the statement ties it)
    assert handed_back(scores, order, said, 0.95, 1.0)[0]["ack"] == 1.0


@given(
    st.lists(
        st.sampled_from([STATEMENT, QUESTION, REPLY, SHORT_REPLY, OTHER]), min_size=1, max_size=8
    ),
    st.lists(st.floats(0.0, 1.0), min_size=8, max_size=8),
    st.floats(0.0, 2.0),
    st.floats(0.0, 1.0),
)
def test_only_statements_just_before_a_found_reply_gain(
    kinds: list[str], found: list[float], share: float, weight: float
) -> None:
    turns = [f"t{i}" for i in range(len(kinds))]
    said = dict(zip(turns, kinds, strict=True))
    scores = {t: found[i] for i, t in enumerate(turns) if i % 2 == 0}
    out, through = handed_back(scores, _order(*turns), said, share, weight)
    for i, turn in enumerate(turns):
        before = scores.get(turn, 0.0)
        after_it = turns[i + 1] if i + 1 < len(turns) else None
        before_it = turns[i - 1] if i > 0 else None
        replied = after_it in scores and said[after_it] in (REPLY, SHORT_REPLY)
        if kinds[i] == STATEMENT and replied:
            handed = scores[after_it] * (1.0 if said[after_it] == SHORT_REPLY else share)
            handed = 0.0 if share <= 0 else handed
            assert out.get(turn, 0.0) == pytest.approx(max(before, handed))
            assert (turn in through) == (handed > before)
        elif kinds[i] == SHORT_REPLY and before_it is not None and said[before_it] == STATEMENT:
            assert turn not in through
            lowered = before * weight if share > 0 and turn in scores else before
            assert out.get(turn, 0.0) == pytest.approx(lowered)
        else:
            assert turn not in through
            assert out.get(turn, 0.0) == before
            assert (turn in out) == (turn in scores)


def test_a_users_question_is_ranked_at_its_weight() -> None:
    said = {"q": QUESTION, "s": STATEMENT, "r": REPLY}
    scores = {"q": 1.0, "s": 0.5, "r": 0.5, "unknown": 0.2}
    assert questions_lowered(scores, said, 0.4) == pytest.approx(
        {"q": 0.4, "s": 0.5, "r": 0.5, "unknown": 0.2}
    )
    assert questions_lowered(scores, said, 1.0) == scores


SESSION = [
    ("user", "The vet said Biscuit has to lose two kilos before spring."),
    (
        "assistant",
        "A slow plan with measured meals and longer walks works for a spaniel: weigh her "
        "food for each meal, swap half the treats for green beans, add ten minutes to the "
        "morning walk each week, and weigh her every fortnight at the practice.",
    ),
    ("user", "Can she swim in cold lakes?"),
    ("assistant", "Most spaniels swim well, but keep walks by cold water short."),
]
OTHERS = [f"A note about walks number {i} in the park." for i in range(8)]
#: a statement, and the assistant's few words back that restate it in other words
ECHOED = [
    ("user", "My partner Tom works nights at the fire station."),
    ("assistant", "Shift work is hard on couples."),
]


@pytest.fixture(params=[0, 10_000], ids=["tables", "read-model"])
def store(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[tuple[ProjectionStore, int]]:
    store = ProjectionStore(str(tmp_path / "projections"))
    events = [
        message(event_id=f"e{i}", role=role, content=text, occurred_at=AT + timedelta(0, i))
        for i, (role, text) in enumerate(SESSION)
    ]
    events += [
        message(event_id=f"o{i}", session_id=f"other-{i}", content=text, occurred_at=AT)
        for i, text in enumerate(OTHERS)
    ]
    events += [
        message(event_id=f"echo{i}", session_id="echoed", role=role, content=text, occurred_at=at)
        for i, (role, text) in enumerate(ECHOED)
        for at in [AT + timedelta(0, i)]
    ]
    Projector(store, "test", clock=FakeClock(AT)).apply(
        [LogRecord("e", "t", 0, n, AT, None, encode(e)) for n, e in enumerate(events)]
    )
    store.upkeep.ensure_indexes()
    yield store, request.param


def _found(store: tuple[ProjectionStore, int], query: str, k: int, **weights: float) -> list[str]:
    """What Alice's search for ``query`` finds first (``k``), the ranking's ``weights``
    changed, over the tables or the read model (``store``)."""
    projections, cache_rows = store
    searcher = Searcher(projections, clock=FakeClock(AT), cache_rows=cache_rows)
    searcher.weights = replace(searcher.weights, **weights)
    request = SearchRequest(user_id="alice", query=query, k=k)
    return [r.content for r in searcher.search(request).results]


def test_the_statement_a_found_reply_answers_is_found_with_it(
    store: tuple[ProjectionStore, int],
) -> None:
    """Full text finds the two replies (and notes of other sessions) by "walks"; the
    statement the first reply answers shares no word with the query and ranks beside
    it only when the reply hands its score back. The question the second reply answers
    gets nothing: the reply is what answers it."""

    def found(share: float) -> list[str]:
        return _found(store, "spaniel walks", 4, reply_share=share, neighbour_share=0.0)

    assert SESSION[0][1] not in found(0.0)
    with_hand_back = found(0.95)
    assert SESSION[0][1] in with_hand_back
    assert with_hand_back.index(SESSION[0][1]) > with_hand_back.index(SESSION[1][1])
    assert found(1.5)[0] == SESSION[0][1]  # more than the reply's whole score: above it
    assert SESSION[2][1] not in found(1.5)


def test_the_statement_ranks_above_the_short_reply_that_restates_it(
    store: tuple[ProjectionStore, int],
) -> None:
    """Only the assistant's few words share the query's words; the statement they
    restate comes first. As found, the echo ties the statement, ahead of the long reply
    that shares one word ("works"); at half its score it falls below that reply."""

    def found(weight: float) -> list[str]:
        query = "shift work hard on couples"
        return _found(store, query, 2, restatement_weight=weight, neighbour_share=0.0)

    assert sorted(found(1.0)) == sorted(text for _, text in ECHOED)
    assert found(0.5) == [ECHOED[0][1], SESSION[1][1]]


def test_the_reply_ranks_above_the_question_it_answers(
    store: tuple[ProjectionStore, int],
) -> None:
    """The question says more of the query's words than the reply that answers it; at
    its weight it ranks below the reply."""

    def found(weight: float) -> list[str]:
        return _found(store, "swim in cold lakes", 2, question_weight=weight)

    assert found(1.0) == [SESSION[2][1], SESSION[3][1]]
    assert found(0.4) == [SESSION[3][1], SESSION[2][1]]


def test_a_trace_shows_the_turns_stage_apart_from_the_spread(
    store: tuple[ProjectionStore, int],
) -> None:
    """The playground's "with neighbours" is the score after the spread alone; what the
    hand-back and the question weight did shows in the score "as said"."""
    from memstream.queries.search.trace import SearchTrace

    projections, cache_rows = store
    searcher = Searcher(projections, clock=FakeClock(AT), cache_rows=cache_rows)
    searcher.weights = replace(searcher.weights, neighbour_share=0.0, reply_share=0.95)
    trace = SearchTrace()
    searcher.search(SearchRequest(user_id="alice", query="spaniel walks", k=4), trace)
    by_content = {c.row.get("content"): c for c in trace.candidates.values()}
    statement, reply = by_content[SESSION[0][1]], by_content[SESSION[1][1]]
    assert statement.fused == statement.spread == 0.0  # found through its reply alone
    assert statement.said == pytest.approx(0.95 * reply.spread)
    assert reply.said == reply.spread > 0

    searcher.weights = replace(searcher.weights, question_weight=0.4, reply_share=0.0)
    trace = SearchTrace()
    searcher.search(SearchRequest(user_id="alice", query="swim in cold lakes", k=2), trace)
    question = next(c for c in trace.candidates.values() if c.row.get("content") == SESSION[2][1])
    assert question.said == pytest.approx(0.4 * question.spread) and question.spread > 0


def test_results_say_who_said_them(store: tuple[ProjectionStore, int]) -> None:
    """Each turn found carries its role as published: the echo is the assistant's, the
    statement it was found through the user's, and so on for every turn found."""
    projections, cache_rows = store
    searcher = Searcher(projections, clock=FakeClock(AT), cache_rows=cache_rows)
    request = SearchRequest(user_id="alice", query="shift work hard on couples", k=20)
    said = {r.content: r.role for r in searcher.search(request).results}
    roles = {text: role for role, text in SESSION + ECHOED}  # the other notes: the user's
    assert said == {text: roles.get(text, "user") for text in said}
    assert said[ECHOED[1][1]] == "assistant" and said[ECHOED[0][1]] == "user"
    # the command line says so
    from memstream.cli.render import search_results

    shown = search_results(searcher.search(request).model_dump(mode="json"))
    assert f"assistant: {ECHOED[1][1]}" in shown
    assert f"assistant: {ECHOED[0][1]}" not in shown and ECHOED[0][1] in shown


def test_a_block_shows_the_statement_not_the_short_reply_that_echoes_it(
    store: tuple[ProjectionStore, int],
) -> None:
    """Only the echo says the question's words; the block quotes the user's statement
    it was found through and leaves the echo out, saying why. Without the cut-off the
    block holds both, as found."""
    from memstream.adapters.tokens import count_tokens
    from memstream.policies.limits import CONTEXT_MIN_SIMILARITY
    from memstream.projections.episodes import memory_id_for
    from memstream.queries.context.assembly import A_SHORT_REPLY, assemble
    from memstream.queries.context.gathering import context_candidates

    projections, cache_rows = store
    searcher = Searcher(projections, clock=FakeClock(AT), cache_rows=cache_rows)
    request = SearchRequest(user_id="alice", query="shift work hard on couples")

    def block(cutoff: float | None) -> tuple[str, list[tuple[str, str, str]]]:
        candidates = context_candidates(searcher, request, AT, None, cutoff)
        made = assemble(candidates, 600, count_tokens)
        return made.context or "", made.left_out

    text, left_out = block(CONTEXT_MIN_SIMILARITY)
    assert ECHOED[0][1] in text and ECHOED[1][1] not in text
    echo = memory_id_for("alice", "echo1")
    assert [why for memory_id, _, why in left_out if memory_id == echo] == [A_SHORT_REPLY]
    as_found, _ = block(None)
    assert ECHOED[0][1] in as_found and ECHOED[1][1] in as_found


def test_a_blocks_turns_of_a_time_hold_no_short_reply_either(
    store: tuple[ProjectionStore, int],
) -> None:
    """Asked of a day, a block lists that day's turns found for the question, the
    user's statement and not the assistant's echo of it (as found, without the
    cut-off, the echo is there)."""
    from memstream.adapters.tokens import count_tokens
    from memstream.policies.limits import CONTEXT_MIN_SIMILARITY
    from memstream.queries.context.assembly import assemble
    from memstream.queries.context.gathering import context_candidates

    projections, cache_rows = store
    searcher = Searcher(projections, clock=FakeClock(AT), cache_rows=cache_rows)
    request = SearchRequest(user_id="alice", query="what did I say yesterday about shift work")
    the_next_day = AT + timedelta(days=1)

    def block(cutoff: float | None) -> str:
        candidates = context_candidates(searcher, request, the_next_day, None, cutoff)
        return assemble(candidates, 2_000, count_tokens).context or ""

    text = block(CONTEXT_MIN_SIMILARITY)
    assert ECHOED[0][1] in text and SESSION[0][1] in text
    assert ECHOED[1][1] not in text and SESSION[3][1] not in text
    assert ECHOED[1][1] in block(None)


def test_only_an_assistants_short_turn_is_a_short_reply() -> None:
    """A user's few words, a long reply, an archived turn and a fact are not."""
    from memstream.queries.context.relevance import short_reply
    from memstream.queries.search.request import SearchResult

    def result(role: str | None, content: str, **changed: object) -> SearchResult:
        fields: dict[str, object] = {
            "memory_id": "m", "kind": "episode", "content": content, "score": 1.0,
            "session_id": "s", "occurred_at": AT, "speaker": None, "role": role,
            "source_event_ids": [], "entities": [],
        }  # fmt: skip
        return SearchResult.model_validate({**fields, **changed})

    assert short_reply(result("assistant", ECHOED[1][1]))
    assert not short_reply(result("user", ECHOED[1][1]))
    assert not short_reply(result("assistant", SESSION[1][1]))  # long: an answer
    assert not short_reply(result("assistant", ECHOED[1][1], archived=True))
    assert not short_reply(result(None, ECHOED[1][1], kind="fact"))
