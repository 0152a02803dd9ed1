"""What of the history a log or a rebuilt store lacks (streams.history), in positions."""

from __future__ import annotations

from memstream.events.codec import encode
from memstream.storage.archive.event_archive import ArchiveFile
from memstream.storage.log_records import LogPosition, log_record
from memstream.streams.batches import prepare_batch
from memstream.streams.history import describe_shortfalls, log_shortfall, store_shortfalls
from memstream.testing import message

FIRST = "20261101T080000Z-aaaaaaaa"
SECOND = "20261126T025652Z-0c735e2c"
MESSAGES = "memory.messages"


def _archived(epoch: str, first: int, last: int, partition: int = 0) -> ArchiveFile:
    return ArchiveFile(
        path=f"events/epoch={epoch}/{MESSAGES}/{partition}/{first}.parquet",
        log_epoch=epoch,
        topic=MESSAGES,
        partition=partition,
        first_offset=first,
        last_offset=last,
    )


def _at(epoch: str, offset: int, partition: int = 0, topic: str = MESSAGES) -> LogPosition:
    return LogPosition(epoch, topic, partition, offset)


def test_a_log_that_holds_the_whole_history_lacks_nothing() -> None:
    archived = [_archived(SECOND, 0, 99), _archived(SECOND, 0, 40, partition=1)]
    applied = {(MESSAGES, 0): _at(SECOND, 99)}
    assert log_shortfall(SECOND, {(MESSAGES, 0): 0}, archived, applied) is None


def test_a_log_restarted_since_the_archive_began_lacks_the_earlier_lives() -> None:
    archived = [_archived(FIRST, 0, 14_999), _archived(FIRST, 15_000, 15_009)]
    archived += [_archived(SECOND, 0, 106)]
    said = log_shortfall(SECOND, {}, archived, {(MESSAGES, 0): _at(SECOND, 106)})
    assert said == (
        "the log holds only its life since 2026-11-26 02:56:52 UTC; 15,010 archived records "
        "of an earlier life of the log (before a restart of the broker) are not in it"
    )


def test_projections_of_an_earlier_life_tell_of_history_the_archive_lost() -> None:
    said = log_shortfall(SECOND, {}, [], {(MESSAGES, 3): _at(FIRST, 7, partition=3)})
    assert said is not None and "an earlier life of the log" in said


def test_a_log_trimmed_by_retention_lacks_its_first_offsets() -> None:
    starts = {(MESSAGES, 0): 0, (MESSAGES, 2): 1_500, (MESSAGES, 5): 20}
    said = log_shortfall(SECOND, starts, [], {})
    assert said == (
        "the log no longer holds the start of memory.messages/2: it begins at offset 1,500 "
        "(and 1 more partitions)"
    )


def test_a_rebuilt_store_behind_the_live_one_falls_short_where_it_is_behind() -> None:
    live = {
        (MESSAGES, 0): _at(SECOND, 106),
        (MESSAGES, 1): _at(SECOND, 50, partition=1),
        ("memory.embeddings", 0): _at(SECOND, 9, topic="memory.embeddings"),
    }
    rebuilt = {(MESSAGES, 0): _at(FIRST, 5_000), (MESSAGES, 1): _at(SECOND, 50, partition=1)}
    short = store_shortfalls(live, rebuilt, {MESSAGES})
    assert [(s.topic, s.partition) for s in short] == [(MESSAGES, 0)]
    assert describe_shortfalls(short) == (
        "memory.messages/0 applied through offset 5,000 of the log's life since "
        "2026-11-01 08:00:00 UTC, the live ones through offset 106"
    )


def test_a_rebuilt_store_at_or_past_the_live_one_falls_short_nowhere() -> None:
    live = {(MESSAGES, 0): _at(FIRST, 10), (MESSAGES, 1): _at(SECOND, 3, partition=1)}
    rebuilt = {(MESSAGES, 0): _at(SECOND, 0), (MESSAGES, 1): _at(SECOND, 3, partition=1)}
    assert store_shortfalls(live, rebuilt, {MESSAGES}) == []


def test_a_partition_the_rebuilt_store_never_applied_falls_short() -> None:
    live = {(MESSAGES, 0): _at(SECOND, 2), (MESSAGES, 4): _at(SECOND, 8, partition=4)}
    short = store_shortfalls(live, {(MESSAGES, 0): _at(SECOND, 2)}, {MESSAGES})
    assert describe_shortfalls(short) == (
        "memory.messages/4 none of it applied, the live ones through offset 8"
    )


def test_a_replayed_batch_spanning_two_lives_of_the_log_ends_in_the_later_one() -> None:
    records = [
        log_record(epoch, MESSAGES, 0, offset, 0, b"ana", encode(message(event_id=f"e{n}")))
        for n, (epoch, offset) in enumerate([(FIRST, 10), (FIRST, 11), (SECOND, 0), (SECOND, 1)])
    ]
    batch = prepare_batch(records, {})
    assert batch.newest[(MESSAGES, 0)] == _at(SECOND, 1)
