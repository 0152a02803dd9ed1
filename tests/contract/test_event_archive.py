"""The Parquet event archive on a real folder: overlaps, compaction, crash windows."""

from __future__ import annotations

import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memstream.storage.archive.event_archive import EventArchive
from memstream.storage.filesystems import resolve_location
from memstream.storage.log_records import LogRecord

T0 = datetime(2024, 6, 1, tzinfo=UTC)


def record(offset: int, partition: int = 0) -> LogRecord:
    return LogRecord(
        "e1",
        "memory.messages",
        partition,
        offset,
        T0 + timedelta(milliseconds=offset),
        b"k",
        f"value {partition}/{offset}".encode(),
    )


def archive_in(folder: Path) -> EventArchive:
    return EventArchive(resolve_location(str(folder)))


def positions(archive: EventArchive) -> list[tuple[int, int]]:
    return [(r.partition, r.offset) for r in archive.read()]


def test_compaction_merges_small_files_and_keeps_every_record_once(tmp_path: Path) -> None:
    archive = archive_in(tmp_path)
    for start in range(0, 100, 10):  # ten batches on two partitions
        archive.write([record(o, p) for p in (0, 1) for o in range(start, start + 10)])
    archive.write([record(o, 0) for o in range(20, 30)])  # a batch re-applied after a crash
    before = positions(archive)
    assert len(archive.files()) == 20  # the re-applied batch overwrote its own file

    removed = archive.compact(target_rows=50)

    assert removed == 20
    assert [(f.partition, f.first_offset, f.last_offset) for f in archive.files()] == [
        (0, 0, 49),
        (0, 50, 99),
        (1, 0, 49),
        (1, 50, 99),
    ]
    assert positions(archive) == before == sorted(before)
    assert [r.value for r in archive.read()][:2] == [b"value 0/0", b"value 0/1"]


def test_a_crash_between_writing_the_merged_file_and_removing_the_parts(tmp_path: Path) -> None:
    archive = archive_in(tmp_path)
    for start in range(0, 40, 10):
        archive.write([record(o) for o in range(start, start + 10)])
    parts = archive.files()
    merged = EventArchive(resolve_location(str(tmp_path)))
    merged.write([record(o) for o in range(0, 40)])  # what compaction writes first

    assert positions(archive) == [(0, o) for o in range(40)]  # parts are covered, read once
    assert archive.compact() == len(parts)  # the covered parts are removed on the next run
    assert [(f.first_offset, f.last_offset) for f in archive.files()] == [(0, 39)]
    assert positions(archive) == [(0, o) for o in range(40)]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    cuts=st.lists(st.integers(1, 30), min_size=1, max_size=8),
    rewrites=st.lists(st.integers(0, 7), max_size=3),
    target=st.integers(5, 80),
)
def test_compaction_never_changes_what_is_read(
    cuts: list[int], rewrites: list[int], target: int
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        archive = archive_in(Path(folder))
        batches, start = [], 0
        for size in cuts:
            batches.append([record(o) for o in range(start, start + size)])
            start += size
        for batch in batches:
            archive.write(batch)
        for index in rewrites:
            if index < len(batches):
                archive.write(batches[index])
        archive.write([record(o) for o in range(0, min(start, 7))])  # an overlapping file
        before = positions(archive)
        archive.compact(target_rows=target)
        assert positions(archive) == before == [(0, o) for o in range(start)]
        archive.compact(target_rows=target)
        assert positions(archive) == before


def test_replay_of_an_archive_with_nulls_and_republished_duplicates(tmp_path: Path) -> None:
    """Every nullable field null, the same events again in a later log epoch (a file
    published twice across a restart): the replay applies each event once."""
    from datetime import UTC, datetime, timedelta

    from memstream.events.codec import encode, from_document
    from memstream.jobs.replay import archive_batches, rebuild
    from memstream.storage.lance.store import ProjectionStore
    from memstream.storage.lance.tables import MEMORIES
    from memstream.storage.layout import DataLayout
    from memstream.streams.topics import topic_for

    at = datetime(2024, 5, 1, tzinfo=UTC)
    documents = [
        {
            "event_id": f"n{i}",
            "user_id": "ana",
            "project_id": None,
            "session_id": f"s{i % 3}",
            "role": "user",
            "speaker": None,
            "content": f"note {i}",
            "occurred_at": (at + timedelta(minutes=i)).isoformat(),
        }
        for i in range(40)
    ]
    documents += [
        {
            "type": "session_ended",
            "event_id": "end",
            "user_id": "ana",
            "session_id": "s0",
            "occurred_at": at.isoformat(),
        },
        {
            "type": "remember_fact",
            "event_id": "r1",
            "user_id": "ana",
            "content": "Ana likes tea",
            "subject": None,
            "attribute": None,
            "value": None,
            "speaker": None,
            "project_id": None,
            "occurred_at": at.isoformat(),
        },
    ]
    events = [from_document(d) for d in documents]
    data = resolve_location(str(tmp_path / "data"))
    archive = EventArchive(DataLayout(data).events)
    for epoch in ("20240501T000000Z-aaaa", "20240502T000000Z-bbbb"):
        archive.write(
            [
                LogRecord(epoch, topic_for(e.type), 0, offset, at, b"ana", encode(e))
                for offset, e in enumerate(events)
            ]
        )
    into = resolve_location(str(tmp_path / "replayed"))
    report = rebuild(archive_batches(data), into, "memstream", workers=2)
    assert report.dead_letters == 0 and report.records == 2 * len(events)
    projections = DataLayout(into).existing_projections()
    assert projections is not None
    ids = ProjectionStore.at(projections).scan(MEMORIES).column("memory_id").to_pylist()
    assert len(ids) == len(set(ids)) == 41


class _MergedWhileListed(EventArchive):
    """An archive a running worker compacts right after a reader listed its files (the
    reader then finds the files it planned to read gone)."""

    def files(self, *args: object, **kwargs: object) -> list:  # type: ignore[type-arg]
        listed = super().files(*args, **kwargs)  # type: ignore[arg-type]
        if not getattr(self, "_merged", False):
            self._merged = True
            assert EventArchive.compact(self, target_rows=50) > 0
        return listed


def test_a_reader_whose_files_were_merged_meanwhile_reads_them_from_the_merged_file(
    tmp_path: Path,
) -> None:
    archive = archive_in(tmp_path)
    for start in range(0, 40, 10):
        archive.write([record(o, p) for p in (0, 1) for o in range(start, start + 10)])
    before = positions(archive)
    merging = _MergedWhileListed(resolve_location(str(tmp_path)))
    assert positions(merging) == before  # every record once, none missing
    assert len(archive.files()) == 2  # the small files are gone: one merged per partition
