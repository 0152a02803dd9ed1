"""Ranking is pure: fusion and adjustment computed from their arguments alone."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memstream.policies.ranking_weights import RankingWeights
from memstream.queries.search.ranking import (
    adjusted,
    adjustment_bound,
    adjustment_terms,
    fuse,
    with_unembedded,
    without_restatements,
)
from memstream.queries.search.request import Intent

NOW = datetime(2024, 6, 1, tzinfo=UTC)


def test_fusion_adds_each_lists_weighted_reciprocal_rank() -> None:
    scores = fuse([(1.0, ["a", "b"]), (0.5, ["b", "c"])], rrf_k=5.0)
    assert scores == pytest.approx({"a": 1 / 6, "b": 1 / 7 + 0.5 / 6, "c": 0.5 / 7})
    assert fuse([], rrf_k=5.0) == {}


def _row(**fields: object) -> dict[str, object]:
    return {"content": "we met", "occurred_at": NOW - timedelta(days=3), **fields}


def test_adjustment_rewards_importance_access_and_the_named_time() -> None:
    weights = RankingWeights()
    plain = adjusted(
        1.0, _row(), now=NOW, weights=weights, intent="what", access_count=0, time_range=None
    )
    assert plain == pytest.approx(1.0 + weights.importance * 0.5)
    important = adjusted(
        1.0,
        _row(importance=1.0),
        now=NOW,
        weights=weights,
        intent="what",
        access_count=9,
        time_range=(NOW - timedelta(days=7), NOW),
    )
    assert important > plain
    assert important == pytest.approx(
        1.0 + weights.importance + weights.access * 2.302585093 + weights.time_phrase
    )


def test_adjustment_scales_by_confidence() -> None:
    weights = RankingWeights()
    kept = adjusted(
        2.0,
        _row(confidence=0.5),
        now=NOW,
        weights=weights,
        intent="what",
        access_count=0,
        time_range=None,
    )
    full = adjusted(
        2.0, _row(), now=NOW, weights=weights, intent="what", access_count=0, time_range=None
    )
    assert kept == pytest.approx(full / 2)


def test_a_memory_that_says_again_what_a_better_one_says_is_left_out() -> None:
    ranked = [
        ("fact-hold", "fact", ["e1"]),  # "John typically holds it for 30-60 seconds."
        ("ep-1", "episode", ["e1"]),  # the turn it came from: said already
        ("ep-2", "episode", ["e2"]),
        ("fact-job", "fact", ["e2"]),  # its turn is shown verbatim above
        ("fact-home", "fact", ["e1"]),  # another fact from e1's turn: says something else
        ("fact-both", "preference", ["e1", "e3"]),  # e3 is new
        ("ep-3", "episode", ["e3"]),  # a fact above came from it
        ("chunk-1", "chunk", ["d1"]),
        ("chunk-1b", "chunk", ["d1"]),  # chunks are not turns: left as they are
        ("cmd-1", "fact", []),  # a remembered fact rests on no turn
    ]
    assert without_restatements(ranked) == [
        "fact-hold",
        "ep-2",
        "fact-home",
        "fact-both",
        "chunk-1",
        "chunk-1b",
        "cmd-1",
    ]


@settings(max_examples=300, deadline=None)
@given(
    score=st.floats(0.0, 2.0),
    importance=st.none() | st.floats(0.0, 1.0),
    confidence=st.none() | st.floats(0.0, 1.0),
    days_ago=st.none() | st.integers(-5, 400),
    speaker=st.sampled_from([None, "Ana", "Ben"]),
    named=st.sampled_from([None, "Ana"]),
    intent=st.sampled_from(["what", "when", "who"]),
    accesses=st.integers(0, 1000),
    most_accessed=st.integers(0, 1000),
    in_range=st.booleans(),
    recency=st.sampled_from([0.0, 0.2]),
    dated=st.booleans(),
)
def test_no_adjustment_exceeds_its_bound(
    score: float,
    importance: float | None,
    confidence: float | None,
    days_ago: int | None,
    speaker: str | None,
    named: str | None,
    intent: Intent,
    accesses: int,
    most_accessed: int,
    in_range: bool,
    recency: float,
    dated: bool,
) -> None:
    """Search reads a candidate's row only while ``adjustment_bound`` times its fused
    score could beat the results it has: no adjusted score may exceed it."""
    weights = RankingWeights(recency=recency)
    occurred = None if days_ago is None else NOW - timedelta(days=days_ago)
    row = _row(
        content="we met on 3 May" if dated else "we met",
        occurred_at=occurred,
        importance=importance,
        confidence=confidence,
        speaker=speaker,
    )
    span = (NOW - timedelta(days=30), NOW) if in_range else None
    accesses = min(accesses, most_accessed)
    found = adjusted(
        score,
        row,
        now=NOW,
        weights=weights,
        intent=intent,
        access_count=accesses,
        time_range=span,
        speaker=named,
    )
    bound = adjustment_bound(weights, intent, most_accessed, span is not None, named is not None)
    assert found <= score * bound + 1e-12


@pytest.mark.parametrize("recency", [0.0, 0.2])
def test_the_bound_is_met_by_a_memory_at_every_bonus(recency: float) -> None:
    """The bound is tight: a memory of now, important, confident, the most shown,
    dated, in the named time and said by the named speaker gets exactly it."""
    weights = RankingWeights(recency=recency)
    row = _row(
        content="we met on 3 May", occurred_at=NOW, importance=1.0, confidence=1.0, speaker="Ana"
    )
    span = (NOW - timedelta(days=1), NOW + timedelta(days=1))
    found = adjusted(
        2.0,
        row,
        now=NOW,
        weights=weights,
        intent="when",
        access_count=7,
        time_range=span,
        speaker="Ana",
    )
    assert found == pytest.approx(2.0 * adjustment_bound(weights, "when", 7, True, True))


_WHEN = st.datetimes(
    min_value=datetime(2020, 1, 1),  # noqa: DTZ001 (hypothesis takes naive bounds)
    max_value=datetime(2025, 1, 1),  # noqa: DTZ001
    timezones=st.just(UTC),
)


@given(
    score=st.floats(0, 1),
    occurred=st.none() | _WHEN,
    importance=st.none() | st.floats(0, 1),
    confidence=st.none() | st.floats(0, 1),
    access=st.integers(0, 50),
    intent=st.sampled_from(["what", "when", "who", "why"]),
    ranged=st.booleans(),
    speaker=st.sampled_from([None, "Ana", "Bob"]),
    content=st.sampled_from(["met on 3 May 2024", "a plain note", "yesterday at noon"]),
)
def test_the_adjustments_a_trace_shows_are_those_the_ranking_applies(
    score: float,
    occurred: datetime | None,
    importance: float | None,
    confidence: float | None,
    access: int,
    intent: Intent,
    ranged: bool,
    speaker: str | None,
    content: str,
) -> None:
    """``adjusted`` is written out for speed; ``adjustment_terms`` (what the console's
    playground shows) must name exactly the bonuses it adds."""
    row = {"occurred_at": occurred, "importance": importance, "confidence": confidence,
           "content": content, "speaker": "Ana"}  # fmt: skip
    now = datetime(2025, 1, 1, tzinfo=UTC)
    span = (datetime(2023, 1, 1, tzinfo=UTC), datetime(2024, 1, 1, tzinfo=UTC)) if ranged else None
    context = {
        "now": now,
        "weights": RankingWeights(),
        "intent": intent,
        "access_count": access,
        "time_range": span,
        "speaker": speaker,
    }
    terms = adjustment_terms(row, **context)  # type: ignore[arg-type]
    factor = 1.0
    for term in terms.values():
        factor += term
    expected = score * factor * (1.0 if confidence is None else confidence)
    assert adjusted(score, row, **context) == pytest.approx(expected, rel=1e-12, abs=1e-15)  # type: ignore[arg-type]


@given(
    st.dictionaries(st.sampled_from("abcdefgh"), st.floats(0, 1), max_size=8),
    st.lists(st.sampled_from("abcdefgh"), max_size=8),
    st.sets(st.sampled_from("abcdefgh")),
)
def test_a_memory_without_its_vector_gains_the_vector_share_of_its_text_rank(
    fused: dict[str, float], text: list[str], unembedded: set[str]
) -> None:
    scores = with_unembedded(fused, text, unembedded.__contains__, 1.0, 60.0)
    assert scores.keys() == fused.keys()
    ranks = {m: r for r, m in enumerate(dict.fromkeys(text), start=1)}
    for m, score in scores.items():
        gained = 1.0 / (60.0 + ranks[m]) if m in ranks and m in unembedded else 0.0
        assert score == pytest.approx(fused[m] + gained)
