"""Replay by partitions: several processes, each the only writer of its partitions'
users, rebuild the same projections as one process replaying the whole archive."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from memstream.events.codec import from_document
from memstream.jobs.replay import ReplayReport, archive_batches, rebuild, rebuild_by_partitions
from memstream.projections.digest import digest_tables
from memstream.storage.archive.event_archive import EventArchive
from memstream.storage.data_keys import DataKeys
from memstream.storage.filesystems import Location, resolve_location
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.lance.tables import DEAD_LETTERS, STATE_TABLES
from memstream.storage.layout import DataLayout
from memstream.storage.log_records import LogRecord
from memstream.storage.schemas import NOT_STATE_COLUMNS
from memstream.streams.partitioning import partition_of
from memstream.streams.sealing import RecordKeys
from memstream.streams.topics import topic_for

pytestmark = pytest.mark.slow

AT = datetime(2024, 5, 1, tzinfo=UTC)
EPOCH = "20240501T000000Z-aaaa"
PARTITIONS = 4


def _documents(user: str) -> list[dict[str, Any]]:
    said = [
        {
            "event_id": f"{user}-m{i}",
            "user_id": user,
            "session_id": f"s{i // 10}",
            "role": "user",
            "speaker": user.split(":")[1].title(),
            "content": f"{user.split(':')[1].title()} met Friend{i % 4} in Lisbon about topic {i}.",
            "occurred_at": (AT + timedelta(minutes=i)).isoformat(),
        }
        for i in range(30)
    ]
    return [
        *said,
        {
            "type": "session_ended",
            "event_id": f"{user}-end",
            "user_id": user,
            "session_id": "s0",
            "occurred_at": (AT + timedelta(hours=2)).isoformat(),
        },
        {
            "type": "remember_fact",
            "event_id": f"{user}-r1",
            "user_id": user,
            "content": f"{user} likes tea",
            "occurred_at": AT.isoformat(),
        },
    ]


def _archive(data: Location, keys: RecordKeys) -> None:
    """Twelve users' events, each in its user's partition of its topic, sealed under
    the user's data key, and one record no memstream could read (dead-lettered the
    same either way)."""
    records: list[LogRecord] = []
    offsets: dict[tuple[str, int], int] = {}
    for n in range(12):
        user = f"acme:user-{n}"
        partition = partition_of(user, PARTITIONS)
        for document in _documents(user):
            event = from_document(document)
            topic = topic_for(event.type)
            offset = offsets.get((topic, partition), 0)
            offsets[(topic, partition)] = offset + 1
            records.append(
                LogRecord(
                    EPOCH, topic, partition, offset, AT, user.encode(), keys.seal_event(event)
                )
            )
    bad = ("memory.messages", partition_of("acme:user-0", PARTITIONS))
    records.append(LogRecord(EPOCH, bad[0], bad[1], offsets[bad], AT, b"acme:user-0", b"{nope"))
    EventArchive(DataLayout(data).events).write(records)


def _state(into: Location) -> tuple[str, int]:
    projections = DataLayout(into).existing_projections()
    assert projections is not None
    store = ProjectionStore.at(projections)
    tables = {name: store.scan(name).to_pylist() for name in STATE_TABLES}
    return digest_tables(tables, ignore=NOT_STATE_COLUMNS), store.count(DEAD_LETTERS)


def test_writers_by_partition_rebuild_what_one_writer_does(tmp_path: Path) -> None:
    data = resolve_location(str(tmp_path / "data"))
    keys = RecordKeys(DataKeys(tmp_path / "data-keys"))  # the writers open with them
    _archive(data, keys)
    reports: dict[int, ReplayReport] = {}
    states = {}
    for writers in (1, 2, 3):
        into = resolve_location(str(tmp_path / f"replayed-{writers}"))
        if writers == 1:
            reports[writers] = rebuild(
                archive_batches(data), into, "memstream", workers=1, keys=keys
            )
        else:
            reports[writers] = rebuild_by_partitions(data, into, "memstream", writers, keys=keys)
        states[writers] = _state(into)
    assert states[1][1] == 1  # the bad record
    assert states[2] == states[1] and states[3] == states[1]
    for writers in (2, 3):
        assert (reports[writers].records, reports[writers].applied) == (
            reports[1].records,
            reports[1].applied,
        )
        assert reports[writers].dead_letters == 1
