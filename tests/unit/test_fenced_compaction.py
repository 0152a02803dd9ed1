"""Compacting the insert-only tables beside fenced writers: a writer's fenced insert that
commits after the compaction planned (so it deletes its fence row from a fragment of
the plan's version) does not preempt the compaction, because the fragments holding a
live fence row are left out of it; leave them in and the compaction is refused."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pyarrow.compute as pc
import pytest

from memstream.events.codec import encode
from memstream.storage.claims import PartitionClaims
from memstream.storage.lance import fenced_compaction
from memstream.storage.lance.fence_rows import fence_key
from memstream.storage.lance.store import ProjectionStore, is_commit_conflict
from memstream.storage.lance.tables import MEMORIES
from memstream.storage.log_records import LogRecord
from memstream.streams.delivery.fencing import Fence
from memstream.streams.partitioning import partition_of
from memstream.streams.projector import Projector
from memstream.testing import FakeClock, message

T0 = datetime(2024, 5, 1, 9, 0, tzinfo=UTC)
PARTITIONS = 4
USERS = ("ana", "ben", "caro", "dev")


def record(user: str, offset: int) -> LogRecord:
    event = message(
        event_id=f"{user}-{offset}", user_id=user, content=f"turn {offset}", occurred_at=T0
    )
    partition = partition_of(user, PARTITIONS)
    return LogRecord("e1", "memory.messages", partition, offset, T0, user.encode(), encode(event))


def fenced_writer(folder: str) -> Projector:
    fence = Fence(PartitionClaims(ProjectionStore(folder), "memstream"), FakeClock(T0), "worker")
    fence.take(range(PARTITIONS))
    return Projector(
        ProjectionStore(folder), "memstream", FakeClock(T0), fence=fence, partitions=PARTITIONS
    )


def fence_fragment(store: ProjectionStore, user: str) -> int:
    """The fragment holding the fence row of ``user``'s partition."""
    key = fence_key(str(partition_of(user, PARTITIONS)))
    query = store.table(MEMORIES).search().where(f"memory_id = '{key}'")
    (address,) = query.select(["memory_id", "_rowaddr"]).to_arrow().column("_rowaddr").to_pylist()
    return int(address) >> 32


def a_batch_after_the_plan(
    monkeypatch: pytest.MonkeyPatch, batch: Callable[[], object], leave_out: bool = True
) -> list[list[int]]:
    """Make the next compaction find its fence rows, then let ``batch`` commit before it
    compacts (at the version it found them in); answers the fragments it left out."""
    found = fenced_compaction.fence_fragments
    left_out: list[list[int]] = []

    def then_a_batch(dataset: Any) -> list[int]:
        fragments = found(dataset) if leave_out else []
        if dataset.uri.rstrip("/").endswith(f"{MEMORIES}.lance"):
            batch()  # commits after the version the compaction plans on
            left_out.append(fragments)
        return fragments

    monkeypatch.setattr(fenced_compaction, "fence_fragments", then_a_batch)
    return left_out


def filled(folder: str) -> Projector:
    """A fenced writer that wrote ten batches of four partitions: many small fragments,
    each partition's fence row in the newest of the fragments its batches wrote."""
    writer = fenced_writer(folder)
    for offset in range(10):
        writer.apply([record(user, offset) for user in USERS])
    return writer


def test_a_fenced_insert_during_the_compaction_neither_waits_nor_preempts_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    writer = filled(str(tmp_path / "p"))
    store = writer.store
    before = store.upkeep.table_shapes()[MEMORIES][1]
    fence_before = fence_fragment(store, "ana")
    left_out = a_batch_after_the_plan(monkeypatch, lambda: writer.apply([record("ana", 10)]))

    compacted = store.upkeep.compact_beside_writers(MEMORIES, timedelta(hours=1))

    assert compacted is not None and compacted.fragments_removed > 0
    assert fence_before in left_out[0]  # the fragment the batch deleted a row from
    assert fence_fragment(store, "ana") != fence_before  # the batch kept its fence row
    assert store.upkeep.table_shapes()[MEMORIES][1] < before
    assert store.count(MEMORIES) == len(USERS) * 10 + 1
    keys = pc.value_counts(store.table(MEMORIES).to_arrow().column("memory_id"))
    assert max(keys.field("counts").to_pylist()) == 1


def test_the_same_compaction_with_the_fence_fragments_in_it_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What leaving them out buys: the batch's deleted fence row preempts it."""
    writer = filled(str(tmp_path / "p"))
    a_batch_after_the_plan(monkeypatch, lambda: writer.apply([record("ana", 10)]), False)

    with pytest.raises(Exception) as refused:
        writer.store.upkeep.compact_beside_writers(MEMORIES, timedelta(hours=1))

    assert is_commit_conflict(refused.value)
    assert writer.store.count(MEMORIES) == len(USERS) * 10 + 1  # nothing lost either way


def test_upkeep_compacts_the_insert_only_tables_while_a_batch_lands(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    writer = filled(str(tmp_path / "p"))
    landed: list[int] = []

    def batch() -> None:
        writer.apply([record(user, 10) for user in USERS])
        landed.append(writer.store.count(MEMORIES))

    before = writer.store.upkeep.table_shapes()[MEMORIES][1]
    a_batch_after_the_plan(monkeypatch, batch)
    writer.upkeep(timedelta(hours=1))

    assert landed == [len(USERS) * 11]
    assert writer.store.upkeep.table_shapes()[MEMORIES][1] < before
    assert writer.compactions_preempted == 0
    assert writer.store.count(MEMORIES) == len(USERS) * 11
    writer.apply([record(user, 11) for user in USERS])  # and on, fenced
    assert writer.store.count(MEMORIES) == len(USERS) * 12
