"""The intake journal: frames that survive torn writes, segments that seal only when the
log has every record, a sweeper that removes what is applied and publishes again what a
crash left, and a full disk reported as such."""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest
from aiokafka import AIOKafkaConsumer, TopicPartition
from hypothesis import given
from hypothesis import strategies as st

from memstream.storage.journal import Journal, JournalRecord, Seal, read_frames
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.log_records import LogPosition
from memstream.streams.errors import DiskFull
from memstream.streams.journal_lane import JournalLane
from memstream.streams.journal_sweeper import JournalSweeper, applied_past
from memstream.streams.publisher import Publisher
from memstream.streams.topics import MESSAGES, TopicSpec, ensure_topics

records_strategy = st.lists(
    st.builds(
        JournalRecord,
        topic=st.sampled_from(["memory.messages", "memory.commands"]),
        key=st.none() | st.binary(max_size=20),
        value=st.binary(max_size=200),
    ),
    max_size=20,
)


@given(records_strategy)
def test_frames_read_back_exactly(records: list[JournalRecord]) -> None:
    data = b"".join(r.frame() for r in records)
    assert list(read_frames(data)) == records


@given(records_strategy, st.data())
def test_a_torn_or_corrupt_tail_yields_a_prefix_of_the_records(
    records: list[JournalRecord], data: st.DataObject
) -> None:
    raw = b"".join(r.frame() for r in records)
    cut = data.draw(st.integers(0, len(raw)))
    assert records[: len(list(read_frames(raw[:cut])))] == list(read_frames(raw[:cut]))
    if raw:
        at = data.draw(st.integers(0, len(raw) - 1))
        damaged = raw[:at] + bytes([raw[at] ^ 0xFF]) + raw[at + 1 :]
        read = list(read_frames(damaged))
        assert read == records[: len(read)]
        assert len(read) < len(records)


def batch(n: int, tag: str = "e") -> list[JournalRecord]:
    return [JournalRecord(MESSAGES, b"ana", f"{tag}{i}".encode()) for i in range(n)]


def test_a_segment_is_sealed_with_its_positions_once_every_batch_reached_the_log(
    tmp_path: Path,
) -> None:
    journal = Journal(tmp_path).create()
    writer = journal.writer()
    first = writer.append([batch(2)], epoch=lambda: "E1")
    second = writer.append([batch(3, "f")], epoch=lambda: "E1")
    writer.acknowledge(first, {(MESSAGES, 0): 4})
    writer.acknowledge(second, {(MESSAGES, 0): 7, (MESSAGES, 1): 2})
    [segment] = journal.segments()
    with segment.claimed() as ours:
        assert not ours, "its writer holds it"
    writer.close()
    assert segment.sealed() == Seal("E1", {(MESSAGES, 0): 7, (MESSAGES, 1): 2})
    assert [r.value for r in segment.records()] == [b"e0", b"e1", b"f0", b"f1", b"f2"]


def test_a_batch_the_broker_refused_leaves_an_orphan_for_the_sweeper(tmp_path: Path) -> None:
    journal = Journal(tmp_path).create()
    writer = journal.writer(max_seconds=0)  # a new segment for every append
    kept = writer.append([batch(1)], epoch=lambda: "E1")
    refused = writer.append([batch(1, "r")], epoch=lambda: "E1")
    writer.acknowledge(kept, {(MESSAGES, 0): 0})
    writer.acknowledge(refused, None)
    writer.close()
    sealed, orphan = journal.segments()
    assert sealed.sealed() is not None
    assert orphan.sealed() is None
    with orphan.claimed() as ours:
        assert ours
    assert [r.value for r in orphan.records()] == [b"r0"]


def test_applied_past_needs_every_position_in_the_same_epoch() -> None:
    seal = Seal("E1", {(MESSAGES, 0): 7, (MESSAGES, 1): 2})

    def stored(*at: tuple[str, int, int]) -> dict[tuple[str, int], LogPosition]:
        return {(MESSAGES, p): LogPosition(epoch, MESSAGES, p, offset) for epoch, p, offset in at}

    assert applied_past(seal, stored(("E1", 0, 7), ("E1", 1, 9)))
    assert not applied_past(seal, stored(("E1", 0, 6), ("E1", 1, 9)))
    assert not applied_past(seal, stored(("E1", 0, 7)))
    assert not applied_past(seal, stored(("E2", 0, 70), ("E2", 1, 90)))


def test_a_full_disk_is_reported_and_later_appends_work_again(
    small_filesystem: Callable[[str], Path],
) -> None:
    journal = Journal(small_filesystem("1m") / "journal").create()
    journal.set_log_epoch("E1")
    big = [JournalRecord(MESSAGES, None, b"x" * 300_000)]

    async def run() -> None:
        lane = JournalLane(journal)
        with pytest.raises(DiskFull, match="No space left"):
            for _ in range(10):
                lane.acknowledge(await lane.append(big), {(MESSAGES, 0): 0})
        for segment in journal.segments():  # as the sweeper would, once applied
            with segment.claimed() as ours:
                if ours:
                    segment.remove()
        appended = await lane.append(batch(1))
        lane.acknowledge(appended, {(MESSAGES, 0): 1})
        lane.close()

    asyncio.run(run())
    sealed = [s for s in journal.segments() if s.sealed() is not None]
    assert [r.value for s in sealed for r in s.records()][-1:] == [b"e0"]


async def _values(bootstrap: str, topic: str) -> list[bytes]:
    consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False)
    await consumer.start()
    try:
        partitions = [TopicPartition(topic, p) for p in range(2)]
        consumer.assign(partitions)
        ends = await consumer.end_offsets(partitions)
        for tp in partitions:
            consumer.seek(tp, 0)
        found: list[bytes] = []
        while sum(ends.values()) > len(found):
            batches = await consumer.getmany(timeout_ms=1000)
            found += [r.value for records in batches.values() for r in records]
        return found
    finally:
        await consumer.stop()


@pytest.mark.broker
def test_the_sweeper_removes_applied_segments_and_publishes_orphans_again(
    tmp_path: Path, broker: str
) -> None:
    topic = f"journal-test-{tmp_path.name[-12:]}"
    asyncio.run(ensure_topics(broker, [TopicSpec(topic, 2)]))
    journal = Journal(tmp_path / "journal").create()
    journal.set_log_epoch("E2")
    store = ProjectionStore(str(tmp_path / "projections"))
    writer = journal.writer(max_seconds=0)
    applied = writer.append([[JournalRecord(topic, b"k", b"applied")]], epoch=lambda: "E2")
    writer.acknowledge(applied, {(topic, 0): 3})
    old_log = writer.append([[JournalRecord(topic, b"k", b"old-log")]], epoch=lambda: "E1")
    writer.acknowledge(old_log, {(topic, 1): 0})
    crashed = writer.append([[JournalRecord(topic, b"k", b"crashed")]], epoch=lambda: "E2")
    writer.acknowledge(crashed, None)
    writer.close()
    open_writer = journal.writer()
    open_writer.append([[JournalRecord(topic, b"k", b"in-flight")]], epoch=lambda: "E2")
    now = datetime(2024, 1, 1, tzinfo=UTC)
    store.save_checkpoints("memstream", {(topic, 0): LogPosition("E2", topic, 0, 3)}, now)

    sweeper = JournalSweeper(journal, broker, store, "memstream", "E2")
    report = asyncio.run(sweeper.sweep())

    assert (report.removed, report.republished_segments, report.republished_records) == (1, 2, 2)
    assert sorted(asyncio.run(_values(broker, topic))) == [b"crashed", b"old-log"]
    names = [s.sealed() for s in journal.segments()]
    assert [n.epoch if n else None for n in names] == ["E2", "E2", None]  # open one untouched
    again = asyncio.run(sweeper.sweep())
    assert again.republished_records == 0 and again.removed + again.waiting == 2
    open_writer.close()


def test_publisher_without_a_journal_folder_says_what_to_do(tmp_path: Path) -> None:
    from memstream.settings import Settings
    from memstream.streams.errors import BrokerError
    from memstream.streams.publisher import publisher_for

    async def make(settings: Settings) -> Publisher:
        return publisher_for(settings)

    with pytest.raises(BrokerError, match="start `memstream up`"):
        asyncio.run(make(Settings(data=str(tmp_path / "nowhere"))))


def test_a_write_refused_by_a_full_disk_leaves_none_of_its_records(
    small_filesystem: Callable[[str], Path],
) -> None:
    """A 507 takes nothing: the frames of a refused batch that did reach the file are
    cut away, so no sweep ever produces part of it."""
    journal = Journal(small_filesystem("1m") / "journal").create()
    writer = journal.writer()
    kept = writer.append([batch(3)], epoch=lambda: "E1")
    writer.acknowledge(kept, None)  # an orphan for the sweeper, as after a crash
    refused = [JournalRecord(MESSAGES, None, bytes([i % 256]) * 1000) for i in range(2000)]
    with pytest.raises(OSError):
        writer.append([refused], epoch=lambda: "E1")
    writer.close()
    values = [r.value for s in journal.segments() for r in s.records()]
    assert values == [b"e0", b"e1", b"e2"]


@pytest.mark.broker
def test_a_segment_whose_seal_cannot_be_written_is_produced_once(
    tmp_path: Path, broker: str, small_filesystem: Callable[[str], Path]
) -> None:
    """On a disk too full to write a seal, sweep after sweep produces nothing more; once
    space is back, the seal is written."""
    topic = f"journal-full-{tmp_path.name[-12:]}"
    asyncio.run(ensure_topics(broker, [TopicSpec(topic, 2)]))
    disk = small_filesystem("1m")
    journal = Journal(disk / "journal").create()
    writer = journal.writer()
    orphan = writer.append([[JournalRecord(topic, b"k", b"orphan")]], epoch=lambda: "E1")
    writer.acknowledge(orphan, None)
    writer.close()
    filler = disk / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
    try:  # fill the disk to the last byte
        for size in (1 << 16, 1 << 10, 1):
            with contextlib.suppress(OSError):
                while True:
                    os.write(fd, b"\0" * size)
    finally:
        os.close(fd)
    store = ProjectionStore(str(tmp_path / "projections"))
    sweeper = JournalSweeper(journal, broker, store, "memstream", "E3")
    reports = [asyncio.run(sweeper.sweep()) for _ in range(4)]
    assert [r.republished_records for r in reports] == [1, 0, 0, 0]
    assert asyncio.run(_values(broker, topic)) == [b"orphan"]
    assert all(s.sealed() is None for s in journal.segments())
    filler.unlink()
    asyncio.run(sweeper.sweep())
    (seal,) = [s.sealed() for s in journal.segments()]
    assert seal is not None and seal.epoch == "E3"
    assert asyncio.run(_values(broker, topic)) == [b"orphan"]
