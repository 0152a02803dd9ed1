"""The episodes projection as a pure fold, and its event-sourcing invariants (Hypothesis)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from functools import reduce

from hypothesis import given, settings
from hypothesis import strategies as st

from memstream.projections import episodes
from memstream.projections.digest import digest_rows
from memstream.projections.episodes import LoggedEvent
from memstream.storage.log_records import LogPosition
from memstream.storage.schemas import POSITION_COLUMNS
from memstream.testing import message

T0 = datetime(2024, 1, 1, tzinfo=UTC)


def logged(event_id: str, user: str, offset: int, content: str = "hello") -> LoggedEvent:
    event = message(event_id=event_id, user_id=user, content=content)
    position = LogPosition("e1", "memory.messages", 0, offset, T0 + timedelta(seconds=offset))
    return LoggedEvent(event, position)


def fold(
    state: dict[str, dict[str, object]], batch: list[LoggedEvent]
) -> dict[str, dict[str, object]]:
    return reduce(episodes.apply, batch, state)


def sink(
    rows: list[dict[str, object]], state: dict[str, dict[str, object]]
) -> dict[str, dict[str, object]]:
    """What an insert-if-absent table does with rows."""
    out = dict(state)
    for row in rows:
        out.setdefault(str(row["memory_id"]), row)
    return out


# A log: events drawn from a few users and ids, so duplicates are common.
logs = st.lists(
    st.tuples(
        st.sampled_from(["e1", "e2", "e3", "e4"]),
        st.sampled_from(["ana", "bo"]),
        st.text(min_size=1, max_size=5).filter(str.strip),
    ),
    max_size=25,
).map(
    lambda items: [
        logged(eid, user, offset, text) for offset, (eid, user, text) in enumerate(items)
    ]
)


def test_row_carries_message_fields_and_provenance() -> None:
    item = logged("e1", "ana", 7)
    row = episodes.episode_row(item.event, item.position)
    assert row["kind"] == "episode"
    assert row["source_event_ids"] == ["e1"]
    assert row["ingested_at"] == T0 + timedelta(seconds=7)
    assert row["log_offset"] == 7 and row["valid_until"] is None
    assert row["memory_id"] == episodes.memory_id_for("ana", "e1")


def test_same_event_id_for_two_users_is_two_memories() -> None:
    assert episodes.memory_id_for("ana", "e1") != episodes.memory_id_for("bo", "e1")


def test_search_text_puts_the_speaker_first() -> None:
    assert episodes.search_text("Ana", "hi") == "Ana: hi"
    assert episodes.search_text(None, "hi") == "hi"


@given(logs)
def test_applying_an_event_twice_equals_once(log: list[LoggedEvent]) -> None:
    once = fold({}, log)
    assert fold(once, log) == once
    for item in log:
        assert episodes.apply(episodes.apply(once, item), item) == episodes.apply(once, item)


@given(logs, st.integers(min_value=1, max_value=10))
def test_batches_equal_one_by_one(log: list[LoggedEvent], size: int) -> None:
    state: dict[str, dict[str, object]] = {}
    for start in range(0, len(log), size):
        state = sink(episodes.rows_to_insert(log[start : start + size]), state)
    assert state == fold({}, log)


@given(logs, st.randoms())
def test_order_across_users_does_not_matter(log: list[LoggedEvent], rnd: object) -> None:
    # Kafka keeps order within a partition (one user); partitions interleave freely.
    by_user: dict[str, list[LoggedEvent]] = {}
    for item in log:
        by_user.setdefault(item.event.user_id, []).append(item)
    interleaved: list[LoggedEvent] = []
    queues = [list(v) for v in by_user.values()]
    while any(queues):
        q = rnd.choice([q for q in queues if q])  # type: ignore[attr-defined]
        interleaved.append(q.pop(0))
    strip = [*list(POSITION_COLUMNS), "ingested_at"]
    assert digest_rows(fold({}, interleaved).values(), strip) == digest_rows(
        fold({}, log).values(), strip
    )


@settings(max_examples=50)
@given(logs)
def test_digest_ignores_row_order_and_positions(log: list[LoggedEvent]) -> None:
    rows = list(fold({}, log).values())
    moved = [
        {**r, "log_offset": 10_000 + i, "log_epoch": "other"} for i, r in enumerate(reversed(rows))
    ]
    assert digest_rows(rows, POSITION_COLUMNS) == digest_rows(moved, POSITION_COLUMNS)
