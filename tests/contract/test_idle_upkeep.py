"""Upkeep leaves alone what no commit changed: an idle deployment's upkeep writes
nothing, a table written since is compacted, and versions kept by the last upkeep are
removed once ``retain`` has passed, written to or not.

Real LanceDB tables in a temporary folder; the projector's own upkeep."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from support.rows import memory_row

from memstream.storage.claims import Lease
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.lance.tables import MEMORIES
from memstream.streams.projector import Projector
from memstream.testing import FakeClock

RETAIN = timedelta(seconds=1)


def _rows(start: int, count: int) -> list[dict[str, Any]]:
    return [memory_row(f"m{i}", "ana") for i in range(start, start + count)]


def _versions(store: ProjectionStore) -> dict[str, int]:
    return {name: store.version(name) for name in store.table_names}


def _fragments(store: ProjectionStore, name: str) -> int:
    return int(store.table(name).stats()["fragment_stats"]["num_fragments"])


def _projector(tmp_path: Path) -> tuple[ProjectionStore, Projector, FakeClock]:
    store = ProjectionStore(str(tmp_path / "projections"))
    clock = FakeClock(datetime(2024, 5, 1, tzinfo=UTC))
    return store, Projector(store, "memstream", clock), clock


def test_an_upkeep_after_no_write_commits_nothing(tmp_path: Path) -> None:
    store, projector, _ = _projector(tmp_path)
    for start in range(0, 30, 10):
        store.append(MEMORIES, _rows(start, 10))
    projector.upkeep(RETAIN)  # compacts, indexes
    projector.upkeep(RETAIN)  # finds its own commits: nothing left to do
    before = _versions(store)
    projector.upkeep(RETAIN)
    assert _versions(store) == before  # not even an empty delete of old moments


def test_a_table_written_since_is_compacted_and_the_others_are_not_touched(
    tmp_path: Path,
) -> None:
    store, projector, _ = _projector(tmp_path)
    store.append(MEMORIES, _rows(0, 10))
    projector.upkeep(RETAIN)
    projector.upkeep(RETAIN)
    before = _versions(store)
    for start in range(10, 40, 10):
        store.append(MEMORIES, _rows(start, 10))
    written = _fragments(store, MEMORIES)
    assert written == 4
    projector.upkeep(RETAIN)
    assert _fragments(store, MEMORIES) < written
    after = _versions(store)
    assert after[MEMORIES] > before[MEMORIES] + 3  # the appends, then upkeep's commits
    assert {n: v for n, v in after.items() if n != MEMORIES} == {
        n: v for n, v in before.items() if n != MEMORIES
    }


def test_versions_kept_are_removed_once_retain_has_passed_without_a_write(
    tmp_path: Path,
) -> None:
    store, projector, clock = _projector(tmp_path)
    for start in range(0, 30, 10):
        store.append(MEMORIES, _rows(start, 10))
    keep_all = timedelta(hours=1)  # however slow these upkeeps, they remove no version
    projector.upkeep(keep_all)
    projector.upkeep(keep_all)  # the table settled
    kept = len(store.table(MEMORIES).list_versions())
    assert kept > 1
    time.sleep(RETAIN.total_seconds() + 0.2)  # LanceDB dates versions by the wall clock
    projector.upkeep(RETAIN)  # upkept a moment ago by the projector's clock: left alone
    assert len(store.table(MEMORIES).list_versions()) == kept
    clock.advance(seconds=RETAIN.total_seconds())
    projector.upkeep(RETAIN)
    assert len(store.table(MEMORIES).list_versions()) == 1


def test_an_upkeep_stopped_by_a_lost_lease_is_done_whole_next_time(tmp_path: Path) -> None:
    store, projector, _ = _projector(tmp_path)
    for start in range(0, 30, 10):
        store.append(MEMORIES, _rows(start, 10))
    projector.upkeep(RETAIN, still_mine=lambda: False)
    assert _fragments(store, MEMORIES) == 3  # stopped before the first table
    projector.upkeep(RETAIN)
    assert _fragments(store, MEMORIES) == 1


def test_the_timer_takes_the_lease_only_when_a_table_besides_the_claims_changed(
    tmp_path: Path,
) -> None:
    store, projector, _ = _projector(tmp_path)
    assert projector.upkeep_due(RETAIN)  # never upkept here
    projector.upkeep(RETAIN)
    projector.upkeep(RETAIN)
    assert not projector.upkeep_due(RETAIN)
    lease = Lease(store, "upkeep", "worker-a", timedelta(minutes=2))
    assert lease.take(time.time_ns())  # a commit to the leases table alone
    assert not projector.upkeep_due(RETAIN)
    store.append(MEMORIES, _rows(0, 1))
    assert projector.upkeep_due(RETAIN)
