"""Upkeep's look for keys held twice reads only the rows written since its last look,
finds a copy of a key however old the first row of it is, and holds no lock.

Real LanceDB tables in a temporary folder; the projector's own upkeep."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memstream.storage.lance.key_checks import end_address
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.lance.tables import MEMORIES
from memstream.streams.projector import Projector
from memstream.testing import FakeClock


def _rows(start: int, count: int) -> list[dict[str, Any]]:
    return [
        {"memory_id": f"m{i}", "kind": "episode", "user_id": "ana", "content": f"turn {i}",
         "search_text": f"turn {i}"}
        for i in range(start, start + count)
    ]  # fmt: skip


def test_each_look_reads_the_rows_written_since_and_finds_an_old_keys_copy(
    tmp_path: Path,
) -> None:
    store = ProjectionStore(str(tmp_path / "projections"))
    store.append(MEMORIES, _rows(0, 5000))
    store.upkeep.ensure_indexes([MEMORIES])
    first = store.upkeep.new_keys_held_twice(MEMORIES, 0)
    assert (first.repeated, first.read) == ([], 5000)
    store.append(MEMORIES, _rows(5000, 10))
    second = store.upkeep.new_keys_held_twice(MEMORIES, first.upto)
    assert (second.repeated, second.read) == ([], 10)  # the new rows alone
    store.append(MEMORIES, _rows(7, 1) + _rows(6000, 3))  # m7 again, written long after
    third = store.upkeep.new_keys_held_twice(MEMORIES, second.upto)
    assert (third.repeated, third.read) == (["m7"], 4)
    nothing = store.upkeep.new_keys_held_twice(MEMORIES, third.upto)
    assert (nothing.repeated, nothing.read, nothing.upto) == ([], 0, third.upto)


def test_upkeep_looks_beside_a_held_write_lock_and_drops_the_copies_once(
    tmp_path: Path,
) -> None:
    store = ProjectionStore(str(tmp_path / "projections"))
    store.append(MEMORIES, _rows(0, 50))
    projector = Projector(store, "memstream", FakeClock(datetime(2024, 5, 1, tzinfo=UTC)))
    projector.upkeep(timedelta(minutes=1))
    store.append(MEMORIES, _rows(10, 2))  # two keys written twice, as a race leaves them
    looked: dict[str, Any] = {}
    with projector._writing:  # a batch being written: the look does not wait for it
        thread = threading.Thread(target=lambda: looked.update(projector._check_keys()))
        thread.start()
        thread.join(timeout=60)
        assert not thread.is_alive()
    assert looked[MEMORIES].repeated == ["m10", "m11"]
    projector.upkeep(timedelta(minutes=1))
    ids = store.scan(MEMORIES, ["memory_id"]).column("memory_id").to_pylist()
    assert sorted(ids) == sorted(f"m{i}" for i in range(50))
    assert projector.duplicates_dropped == 2
    projector.upkeep(timedelta(minutes=1))
    assert projector.duplicates_dropped == 2


def test_a_worker_looks_only_at_the_rows_written_since_it_started(tmp_path: Path) -> None:
    """A starting worker does not read every key the tables hold: its looks start at the
    rows written from then on, and still find a copy of an old key written since."""
    store = ProjectionStore(str(tmp_path / "projections"))
    store.append(MEMORIES, _rows(0, 5000))
    store.append(MEMORIES, _rows(3, 1))  # held twice before this worker started
    projector = Projector(store, "memstream", FakeClock(datetime(2024, 5, 1, tzinfo=UTC)))
    projector.look_for_keys_from_here()
    assert projector._check_keys() == {}
    store.append(MEMORIES, _rows(7, 1) + _rows(6000, 2))
    looked = projector._check_keys()[MEMORIES]
    assert (looked.repeated, looked.read) == (["m7"], 3)


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    appends=st.lists(st.integers(min_value=1, max_value=40), min_size=0, max_size=12),
    deleted=st.sets(st.integers(min_value=0, max_value=11), max_size=4),
    compacted=st.booleans(),
)
def test_the_end_found_by_asking_for_the_last_fragment_is_the_end_every_address_gives(
    tmp_path_factory: pytest.TempPathFactory, appends: list[int], deleted: set[int], compacted: bool
) -> None:
    """Whatever fragments a table holds (appends of any size, whole appends deleted,
    the last among them, a compaction), the end the large tables' questions find is the
    one every row address gives."""
    store = ProjectionStore(str(tmp_path_factory.mktemp("ends") / "projections"))
    table = store.table(MEMORIES)
    start = 0
    for n, count in enumerate(appends):
        store.append(MEMORIES, _rows(start, count))
        if n in deleted:
            table.delete(
                f"memory_id IN ({', '.join(repr(f'm{i}') for i in range(start, start + count))})"
            )
        start += count
    if compacted:
        table.optimize()
    read = end_address(table, read_all_below=10**9)
    assert end_address(table, read_all_below=0) == read
    if appends and not compacted:
        assert read >> 32 <= len(appends) * 2  # a fragment per append (and per delete)
