"""Property: any event the API accepts is applied by the worker's projector or
dead-lettered; nothing in it can raise out of a fold and stop a partition."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest
from hypothesis import HealthCheck, find, given, settings
from hypothesis import strategies as st

from memstream.application import accepted_event
from memstream.events.codec import encode
from memstream.events.errors import InvalidEvent
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.lance.tables import MEMORIES
from memstream.storage.log_records import LogRecord
from memstream.streams.projector import Projector
from memstream.streams.topics import topic_for
from memstream.testing import FakeClock

T0 = datetime(2024, 6, 1, tzinfo=UTC)

hostile_text = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=0, max_size=80
) | st.sampled_from(
    [
        "I met John Smith yesterday",
        "three years ago in May, last Friday, 2024-02-30",
        "see https://x.com/\x01 #tag @bob a@b.c $12",
        "9000 years ago, in 9999, tomorrow",
        "\x00",
    ]
)
zones = st.integers(-14 * 60, 14 * 60).map(lambda m: timezone(timedelta(minutes=m)))
times = st.datetimes(  # hypothesis takes naive bounds and adds the zones itself
    min_value=datetime(1, 1, 2),  # noqa: DTZ001
    max_value=datetime(9999, 12, 30),  # noqa: DTZ001
    timezones=zones,
).map(lambda t: t.isoformat()) | st.sampled_from(["2024-05-01T10:00:00Z", "2024-05-02"])
identifiers = st.sampled_from(["ana", "ana", "bob", "a.b@c", "x" * 200, "alice\n", "\x00", ""])


def documents() -> st.SearchStrategy[dict[str, Any]]:
    message = st.fixed_dictionaries(
        {
            "user_id": identifiers,
            "session_id": identifiers,
            "role": st.sampled_from(["user", "assistant", "robot"]),
            "content": hostile_text,
            "occurred_at": times,
        },
        optional={
            "speaker": hostile_text,
            "tags": st.lists(hostile_text, max_size=3),
            "metadata": st.dictionaries(hostile_text, hostile_text, max_size=3),
        },
    )
    remember = st.fixed_dictionaries(
        {
            "type": st.just("remember_fact"),
            "user_id": identifiers,
            "content": hostile_text,
            "occurred_at": times,
        },
        optional={"subject": hostile_text, "attribute": hostile_text},
    )
    command = st.fixed_dictionaries(
        {
            "type": st.sampled_from(["confirm_fact", "forget", "correct_fact"]),
            "user_id": identifiers,
            "memory_id": identifiers,
            "new_content": hostile_text,
            "occurred_at": times,
        }
    )
    ended = st.fixed_dictionaries(
        {"type": st.just("session_ended"), "user_id": identifiers, "session_id": identifiers},
        optional={"occurred_at": times, "ended_at": times},
    )
    return message | remember | command | ended


@pytest.fixture(scope="module")
def projector(tmp_path_factory: pytest.TempPathFactory) -> Projector:
    """One store for every example: it is kept under pytest's temporary folder, not leaked."""
    store = ProjectionStore(str(tmp_path_factory.mktemp("accepted")))
    return Projector(store, "memstream", FakeClock(T0))


_offset = [0]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(documents(), min_size=1, max_size=6))
def test_what_the_api_accepts_is_applied_or_dead_lettered(
    projector: Projector, docs: list[dict[str, Any]]
) -> None:
    records = []
    for document in docs:
        try:
            event = accepted_event(document)
        except InvalidEvent:
            continue  # answered 422: never reaches the log
        _offset[0] += 1
        records.append(
            LogRecord("e1", topic_for(event.type), 0, _offset[0], T0, b"k", encode(event))
        )
    result = projector.apply(records)  # must not raise
    assert result.applied + len(result.dead_letters) + result.skipped == len(records)
    assert projector.store.count(MEMORIES) >= 0


def test_the_documents_include_accepted_events_of_every_channel_type() -> None:
    """The property above is not vacuous: its documents include accepted events."""
    for kind in ("message", "remember_fact", "session_ended"):
        found = find(documents(), lambda d, kind=kind: _accepted_as(d, kind))
        assert accepted_event(found).type == kind


def _accepted_as(document: dict[str, Any], kind: str) -> bool:
    try:
        return accepted_event(document).type == kind
    except InvalidEvent:
        return False
