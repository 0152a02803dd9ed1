"""The insert window: while upkeep compacts the insert-only tables, a fenced writer
inserts into them without touching fence rows (a fence row's update deletes a row, and
would preempt the compaction), and with them again once the window closes."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from memstream.events.codec import encode
from memstream.storage.claims import Lease, PartitionClaims
from memstream.storage.lance.fence_rows import fence_key
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.lance.tables import MEMORIES
from memstream.storage.log_records import LogRecord
from memstream.streams.delivery.fencing import Fence
from memstream.streams.partitioning import partition_of
from memstream.streams.projector import Projector, core
from memstream.testing import FakeClock, message

T0 = datetime(2024, 5, 1, 9, 0, tzinfo=UTC)
PARTITIONS = 4


def record(offset: int) -> LogRecord:
    event = message(event_id=f"m{offset}", user_id="ana", content=f"turn {offset}", occurred_at=T0)
    partition = partition_of("ana", PARTITIONS)
    return LogRecord("e1", "memory.messages", partition, offset, T0, b"ana", encode(event))


def fence_address(store: ProjectionStore) -> list[int]:
    key = fence_key(str(partition_of("ana", PARTITIONS)))
    query = store.table(MEMORIES).search().where(f"memory_id = '{key}'")
    return query.select(["memory_id", "_rowaddr"]).to_arrow().column("_rowaddr").to_pylist()


@pytest.mark.parametrize("other_process", [False, True], ids=["this-process", "another-process"])
def test_inserts_during_the_compaction_of_insert_only_tables_leave_the_fence_row_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, other_process: bool
) -> None:
    folder = str(tmp_path / "projections")
    store = ProjectionStore(folder)

    def window(holder: str) -> Lease:
        return Lease(store, "insert-compaction-window", holder, timedelta(seconds=60))

    fence = Fence(PartitionClaims(store, "memstream"), FakeClock(T0), "worker")
    fence.take(range(PARTITIONS))
    writer = Projector(
        store, "memstream", FakeClock(T0), fence=fence, partitions=PARTITIONS,
        insert_window=window("worker"),
    )  # fmt: skip
    writer.apply([record(0)])
    first = fence_address(store)
    assert len(first) == 1  # the write updated its partition's fence row
    compactor = writer if not other_process else Projector(
        ProjectionStore(folder), "memstream", FakeClock(T0), insert_window=window("other"),
    )  # fmt: skip
    # the grace outlasts how old an answer about the window a writer acts on
    grace = core._INSERT_WINDOW_LOOK_SECONDS + 0.05
    monkeypatch.setattr("memstream.streams.projector.upkeep.WINDOW_GRACE_SECONDS", grace)
    compact = compactor.store.upkeep.optimize_table
    during: list[Any] = []

    def compact_with_a_batch_beside(name: str, retain: timedelta, **options: bool) -> None:
        if name == MEMORIES:
            batch = threading.Thread(target=writer.apply, args=([record(1)],))
            batch.start()
            batch.join(timeout=60)
            during.append(fence_address(store))
        compact(name, retain, **options)

    monkeypatch.setattr(compactor.store.upkeep, "optimize_table", compact_with_a_batch_beside)
    compactor.upkeep(timedelta(hours=1))
    assert during == [first]  # the batch inserted its row without the fence row
    assert writer.store.count(MEMORIES) == 2
    writer.apply([record(2)])  # the window closed: fenced again
    assert fence_address(store) != first
    assert writer.store.count(MEMORIES) == 3
