"""The projector on real LanceDB tables and a real Parquet archive in tmp_path."""

from __future__ import annotations

import json
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memstream.application import state_digest
from memstream.events.codec import encode
from memstream.storage.archive.event_archive import EventArchive
from memstream.storage.filesystems import resolve_location
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.lance.tables import DEAD_LETTERS, ENTITIES, MEMORIES
from memstream.storage.log_records import LogPosition, LogRecord
from memstream.streams.projector import Projector
from memstream.testing import FakeClock, message

T0 = datetime(2024, 6, 1, tzinfo=UTC)


def record(offset: int, value: bytes, epoch: str = "e1", partition: int = 0) -> LogRecord:
    return LogRecord(
        epoch, "memory.messages", partition, offset, T0 + timedelta(seconds=offset), b"k", value
    )


def messages(n: int, user: str = "alice", start: int = 0) -> list[LogRecord]:
    return [
        record(
            start + i,
            encode(message(event_id=f"m{start + i}", user_id=user, content=f"note {start + i}")),
        )
        for i in range(n)
    ]


def accessed(user: str, memory_ids: list[str], offset: int, days: int = 0) -> LogRecord:
    """A ``memory_accessed`` record at ``offset`` of ``memory.access``."""
    event = {
        "type": "memory_accessed",
        "user_id": user,
        "memory_ids": memory_ids,
        "accessed_at": (T0 + timedelta(days=days)).isoformat(),
    }
    return LogRecord(
        "e1", "memory.access", 0, offset, T0, user.encode(), json.dumps(event).encode()
    )


def projector(store: ProjectionStore, archive: EventArchive | None = None) -> Projector:
    return Projector(store, consumer="memstream", clock=FakeClock(T0), archive=archive)


def test_applies_rows_and_stores_checkpoint(store: ProjectionStore) -> None:
    result = projector(store).apply(messages(5))
    assert result.applied == 5 and not result.dead_letters
    assert store.count(MEMORIES) == 5
    assert store.load_checkpoints("memstream") == {
        ("memory.messages", 0): LogPosition("e1", "memory.messages", 0, 4)
    }


def test_reapplying_a_batch_changes_nothing(store: ProjectionStore) -> None:
    batch = messages(5)
    projector(store).apply(batch)
    before = state_digest(store)
    result = projector(store).apply(batch)  # a restarted worker re-reads the batch
    assert result.skipped == 5
    assert state_digest(store) == before and store.count(MEMORIES) == 5


def test_republished_event_id_is_stored_once(store: ProjectionStore) -> None:
    p = projector(store)
    p.apply(messages(3))
    again = [record(10 + r.offset, r.value) for r in messages(3)]
    assert p.apply(again).skipped == 0
    assert store.count(MEMORIES) == 3


def _mentions(store: ProjectionStore) -> dict[str, int]:
    return {r["canonical_name"]: r["mention_count"] for r in store.scan(ENTITIES).to_pylist()}


@pytest.mark.parametrize("replaying", [False, True])
def test_a_message_sent_again_mentions_its_entities_once(
    store: ProjectionStore, replaying: bool
) -> None:
    """A retried publish or an import stores a message again under a new offset: its
    entities are counted once; the same record applied again (after a crash, before
    the checkpoint) is counted once too."""
    said = encode(message(event_id="m1", user_id="ana", content="I met Maria in Porto."))
    other = encode(message(event_id="m2", user_id="ana", content="Then I called Maria again."))
    p = Projector(store, "memstream", FakeClock(T0), sole_writer_of_empty_store=replaying)
    p.apply([record(0, said)])
    assert _mentions(store) == {"Maria": 1, "Porto": 1}
    p.apply([record(1, said), record(2, other), record(3, said)])
    assert _mentions(store) == {"Maria": 2, "Porto": 1}
    if not replaying:  # records written before a crash, read again (no checkpoint of them)
        again = Projector(store, "restarted", FakeClock(T0))
        again.apply([record(2, other), record(3, said), record(4, said)])
        assert _mentions(store) == {"Maria": 2, "Porto": 1}


def test_a_replay_of_a_log_with_republished_duplicates_writes_each_row_once(
    store: ProjectionStore,
) -> None:
    replaying = Projector(store, "memstream", FakeClock(T0), sole_writer_of_empty_store=True)
    replaying.apply(messages(3))
    again = [record(r.offset, r.value, epoch="e2") for r in messages(3)]  # a later log epoch
    assert replaying.apply(again).applied == 3
    assert store.count(MEMORIES) == 3


def test_bad_records_become_dead_letters_and_the_rest_applies(store: ProjectionStore) -> None:
    batch = [*messages(2), record(2, b"{broken"), record(3, json.dumps({"user_id": "x"}).encode())]
    batch += messages(2, start=4)
    result = projector(store).apply(batch)
    assert result.applied == 4
    assert [d.record.offset for d in result.dead_letters] == [2, 3]
    letters = store.scan(DEAD_LETTERS).to_pylist()
    assert {row["value"] for row in letters} == {b"{broken", b'{"user_id": "x"}'}
    assert all(row["reason"] for row in letters)
    assert store.load_checkpoints()[("memory.messages", 0)] == LogPosition(
        "e1", "memory.messages", 0, 5
    )


def test_checkpoint_of_another_log_epoch_is_ignored(store: ProjectionStore) -> None:
    p = projector(store)
    p.apply(messages(10))
    assert p.resume_offset("memory.messages", 0, "e1") == 10
    assert p.resume_offset("memory.messages", 0, "e2") is None
    # The new log starts at offset 0 again: its records must apply, not be skipped.
    fresh = [record(i, encode(message(event_id=f"new{i}"))) for i in range(3)]
    fresh = [
        LogRecord("e2", r.topic, r.partition, r.offset, r.timestamp, r.key, r.value) for r in fresh
    ]
    assert p.apply(fresh).applied == 3
    assert store.count(MEMORIES) == 13


def test_valid_events_are_archived_exactly(tmp_path: Path, store: ProjectionStore) -> None:
    archive = EventArchive(resolve_location(str(tmp_path / "events")))
    batch = [*messages(3), record(3, b"garbage")]
    projector(store, archive).apply(batch)
    archived = list(archive.read())
    assert [r.value for r in archived] == [r.value for r in batch[:3]]


def test_full_text_index_finds_rows_written_after_it(store: ProjectionStore) -> None:
    p = projector(store)
    p.apply(messages(3))
    store.upkeep.ensure_indexes()
    p.apply([record(3, encode(message(event_id="late", content="zanzibar trip")))])
    rows = store.queries.full_text("zanzibar", "user_id = 'alice'", 5, ["memory_id", "content"])
    assert [r["content"] for r in rows] == ["zanzibar trip"]


# Hypothesis on the real sink: batching and re-delivery never change the state.
offsets_and_ids = st.lists(
    st.tuples(st.sampled_from("abcdef"), st.sampled_from(["ana", "bo"])), min_size=1, max_size=12
)


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    offsets_and_ids, st.integers(min_value=1, max_value=5), st.integers(min_value=0, max_value=11)
)
def test_real_store_batches_and_redelivery_equal_one_pass(
    items: list[tuple[str, str]], size: int, redeliver_from: int
) -> None:
    log = [
        record(i, encode(message(event_id=eid, user_id=user, content=f"c {eid}")))
        for i, (eid, user) in enumerate(items)
    ]
    with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
        one_pass = ProjectionStore(a)
        projector(one_pass).apply(log)
        batched = ProjectionStore(b)
        p = projector(batched)
        for start in range(0, len(log), size):
            p.apply(log[start : start + size])
        # Rows written but no checkpoint for them (a crash in between): they come again.
        lost_checkpoint = Projector(batched, consumer="restarted", clock=FakeClock(T0))
        lost_checkpoint.apply(log[min(redeliver_from, len(log) - 1) :])
        assert state_digest(batched) == state_digest(one_pass)


def test_catching_up_from_the_archive_after_the_log_was_lost(tmp_path: Path) -> None:
    from memstream.streams.recovery import catch_up_from_archive

    archive = EventArchive(resolve_location(str(tmp_path / "events")))
    store = ProjectionStore(str(tmp_path / "live"))
    said = [
        record(i, encode(message(event_id=f"m{i}", user_id="u", session_id=f"s{i // 3}")))
        for i in range(9)
    ]
    # The worker applies the batch (bookkeeping deferred), then dies with its broker.
    dying = Projector(
        store,
        consumer="memstream",
        clock=FakeClock(T0),
        archive=archive,
        flush_every_seconds=3600,
    )
    dying.apply(said)
    assert store.load_checkpoints("memstream") == {}  # never flushed
    read = catch_up_from_archive(store, archive, "e2", "memstream", FakeClock(T0))
    assert read == 9
    reference = ProjectionStore(str(tmp_path / "reference"))
    projector(reference).apply(said)
    store.refresh()
    assert state_digest(store) == state_digest(reference)
    assert catch_up_from_archive(store, archive, "e2", "memstream", FakeClock(T0)) == 0


def test_a_record_no_fold_can_take_is_dead_lettered_and_the_partition_moves_on(
    store: ProjectionStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    import memstream.streams.projector.spine

    real_fold = memstream.streams.projector.spine.fold_accesses

    def fold_that_cannot_take_bob(existing: Any, accesses: Any) -> Any:
        if any(event.user_id == "bob" for event, _ in accesses):
            raise ValueError("a value no rule expected")
        return real_fold(existing, accesses)

    monkeypatch.setattr(
        memstream.streams.projector.spine, "fold_accesses", fold_that_cannot_take_bob
    )
    poison = accessed("bob", ["ep-1"], offset=7)
    result = projector(store).apply([*messages(2), poison, *messages(2, start=2)])
    assert result.applied == 4 and store.count(MEMORIES) == 4
    [dead] = result.dead_letters
    assert dead.record.offset == 7
    assert dead.reason == "cannot be applied: ValueError: a value no rule expected"
    assert store.load_checkpoints("memstream")[("memory.access", 0)] == LogPosition(
        "e1", "memory.access", 0, 7
    )
    assert store.scan(DEAD_LETTERS).column("value").to_pylist() == [poison.value]


def test_a_store_failure_is_not_dead_lettered_but_stops_the_batch(
    store: ProjectionStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    import memstream.streams.projector.spine

    def store_away(existing: Any, accesses: Any) -> Any:
        raise OSError("the store is unreachable")

    monkeypatch.setattr(memstream.streams.projector.spine, "fold_accesses", store_away)
    with pytest.raises(OSError):
        projector(store).apply([accessed("ana", ["ep-1"], offset=0)])
    assert store.count(DEAD_LETTERS) == 0 and store.load_checkpoints("memstream") == {}


def test_a_dead_letter_too_large_for_the_topic_carries_a_reference() -> None:
    from memstream.streams.batch_consumer import DLQ_VALUE_LIMIT, dead_letter_value
    from memstream.streams.batches import DeadLetter

    big = DeadLetter(record(3, b"x" * (DLQ_VALUE_LIMIT + 1)), "not JSON")
    value, headers = dead_letter_value(big)
    assert json.loads(value)["dead_letter_id"] == "e1|memory.messages|0|3"
    assert ("memstream-value", b"reference") in headers
    small = DeadLetter(record(4, b"{broken"), "not JSON")
    assert dead_letter_value(small)[0] == b"{broken"


def test_an_access_event_of_another_user_changes_nothing_of_the_owner(
    store: ProjectionStore,
) -> None:
    from memstream.projections.episodes import memory_id_for
    from memstream.queries.memory_usage import usage_of

    p = projector(store)
    p.apply(messages(2))
    ids = [memory_id_for("alice", "m0"), memory_id_for("alice", "m1")]

    p.apply([accessed("alice", ids, offset=o, days=o) for o in (0, 1)])
    before = usage_of(store, [{"memory_id": m, "user_id": "alice"} for m in ids])
    p.apply([accessed("bob", ids, offset=o, days=o) for o in (2, 3, 4)])
    after = usage_of(store, [{"memory_id": m, "user_id": "alice"} for m in ids])
    assert after == before and {u.access_count for u in after.values()} == {2}


def test_an_access_table_written_before_rows_were_keyed_by_user_is_migrated(
    tmp_path: Path,
) -> None:
    import lancedb
    import pyarrow as pa

    from memstream.queries.memory_usage import usage_of
    from memstream.storage.schemas import ACCESS_SCHEMA

    old_schema = pa.schema([f for f in ACCESS_SCHEMA if f.name != "access_id"])
    old_row = {
        "memory_id": "ep-1",
        "user_id": "alice",
        "access_count": 3,
        "last_accessed": T0,
        "applied_epoch": "e1",
        "applied_partition": 0,
        "applied_offset": 5,
    }
    folder = tmp_path / "old"
    lancedb.connect(str(folder)).create_table(
        "access", pa.Table.from_pylist([old_row], schema=old_schema)
    )
    store = ProjectionStore(str(folder))
    [usage] = usage_of(store, [{"memory_id": "ep-1", "user_id": "alice"}]).values()
    assert usage.access_count == 3
    projector(store).apply([accessed("alice", ["ep-1"], offset=6, days=30)])
    [usage] = usage_of(store, [{"memory_id": "ep-1", "user_id": "alice"}]).values()
    assert usage.access_count == 4


def test_an_archive_index_written_by_0_4_0_is_migrated_and_searched(tmp_path: Path) -> None:
    """0.4.0 kept the summary without the speaker, indexed for full text; today the
    speaker-first text is kept once (the summary read back from it), with provenance and
    a compact vector that a replay fills."""
    import json as _json

    import lancedb
    import pyarrow as pa
    from lancedb.index import FTS

    from memstream.projections.archiving import summary_of
    from memstream.queries.search.searcher import Searcher, SearchRequest
    from memstream.storage.lance.tables import ARCHIVE_INDEX
    from memstream.storage.schemas import ARCHIVE_INDEX_SCHEMA

    columns = _json.loads(
        (Path(__file__).parents[1] / "fixtures" / "log-0.4.0" / "columns.json").read_text()
    )[ARCHIVE_INDEX]
    now_fields = {f.name: f for f in ARCHIVE_INDEX_SCHEMA}
    old_schema = pa.schema(
        [now_fields.get(c) or pa.field(c, pa.string(), nullable=False) for c in columns]
    )
    old_row = {
        "archive_id": "ana|ep-1",
        "memory_id": "ep-1",
        "user_id": "ana",
        "kind": "episode",
        "speaker": "Ana",
        "summary": "We walked the dunes near Comporta.",
        "tags": [],
        "occurred_at": T0,
        "storage_ref": "user=ana/month=2024-05/batch-1.parquet#ep-1@abc",
        "reason": "older than 365 days",
        "hotness": 0.0,
        "archived_at": T0,
        "expanded_at": [],
    }
    folder = tmp_path / "old"
    unspoken = {**old_row, "archive_id": "ana|ep-2", "memory_id": "ep-2", "speaker": None}
    unspoken["summary"] = "A note: buy sunscreen."
    table = lancedb.connect(str(folder)).create_table(
        ARCHIVE_INDEX, pa.Table.from_pylist([old_row, unspoken], schema=old_schema)
    )
    table.create_index("summary", config=FTS(with_position=False))
    store = ProjectionStore(str(folder))
    rows = {r["memory_id"]: r for r in store.scan(ARCHIVE_INDEX).to_pylist()}
    assert rows["ep-1"]["search_text"] == "Ana: We walked the dunes near Comporta."
    assert rows["ep-2"]["search_text"] == "A note: buy sunscreen."
    assert all(summary_of(r) == {"ep-1": old_row, "ep-2": unspoken}[m]["summary"]
               for m, r in rows.items())  # fmt: skip
    row = rows["ep-1"]
    assert "summary" not in row and row["vector"] is None and row["source_event_ids"] is None
    store.upkeep.ensure_indexes([ARCHIVE_INDEX])
    request = SearchRequest(user_id="ana", query="dunes Comporta", now=T0)
    [found] = Searcher(store).search(request).results
    assert found.archived and found.content == old_row["summary"] and found.speaker == "Ana"


def test_a_command_sent_twice_in_one_batch_writes_one_memory(store: ProjectionStore) -> None:
    remember = {
        "type": "remember_fact",
        "event_id": "again",
        "user_id": "ana",
        "content": "Ana likes tea",
        "occurred_at": "2024-05-01T00:00:00Z",
    }
    value = json.dumps(remember).encode()
    twice = [LogRecord("e1", "memory.commands", 0, i, T0, b"ana", value) for i in range(2)]
    projector(store).apply(twice)
    assert store.count(MEMORIES) == 1
