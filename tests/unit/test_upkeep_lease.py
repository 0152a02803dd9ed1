"""Upkeep keeps its lease while a table's compaction outlasts the lease's time to live
(a large table on a loaded machine), so no other process takes it and compacts beside
it: upkeep runs on one process at a time."""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memstream.events.codec import encode
from memstream.storage.claims import Lease
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.lance.tables import MEMORIES
from memstream.storage.log_records import LogRecord
from memstream.streams.projector import Projector
from memstream.streams.projector import upkeep as upkeep_module
from memstream.testing import FakeClock, message

T0 = datetime(2024, 5, 1, 9, 0, tzinfo=UTC)


def test_no_other_process_takes_the_lease_while_a_long_compaction_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(upkeep_module, "LEASE_RENEW_SECONDS", 0.2)
    store = ProjectionStore(str(tmp_path / "projections"))
    lease = Lease(store, "upkeep", "this-worker", timedelta(seconds=2))
    other = Lease(store, "upkeep", "another-worker", timedelta(seconds=2))
    projector = Projector(store, "memstream", FakeClock(T0))
    turn = message(event_id="m0", user_id="ana", content="a turn", occurred_at=T0)
    projector.apply([LogRecord("e1", "memory.messages", 0, 0, T0, b"ana", encode(turn))])
    compact = store.upkeep.compact_beside_writers  # memories: insert-only

    def compact_slowly(name: str, retain: timedelta) -> object:
        if name == MEMORIES:  # more than twice the lease's time to live
            time.sleep(5.0)
        return compact(name, retain)

    monkeypatch.setattr(store.upkeep, "compact_beside_writers", compact_slowly)
    assert lease.take(time.time_ns())
    upkeep = threading.Thread(
        target=projector.upkeep, args=(timedelta(hours=1), lambda: lease.acquire(time.time_ns()))
    )
    started = time.monotonic()
    upkeep.start()
    taken_beside = []  # (when, taken) of each try by the other holder
    while upkeep.is_alive():
        taken_beside.append((time.monotonic() - started, other.acquire(time.time_ns())))
        time.sleep(0.1)
    upkeep.join()
    assert not any(taken for _, taken in taken_beside)
    assert any(when > 2.5 for when, _ in taken_beside)  # tried after the lease's 2 s ran out
    lease.give_back()
    assert other.acquire(time.time_ns())  # free once upkeep gave it back
