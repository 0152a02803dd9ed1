"""Upkeep's grace before it compacts the updated tables (so other processes' updates
already under way land first) does not hold up this worker's own batches: they are
applied during it, and only the compaction itself takes the write lock."""

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
from memstream.streams import projector as projector_module
from memstream.streams.projector import Projector
from memstream.testing import FakeClock, message, wait_until

T0 = datetime(2024, 5, 1, 9, 0, tzinfo=UTC)


def record(offset: int) -> LogRecord:
    event = message(event_id=f"m{offset}", user_id="ana", content=f"turn {offset}", occurred_at=T0)
    return LogRecord("e1", "memory.messages", 0, offset, T0, b"ana", encode(event))


def test_a_batch_is_applied_while_upkeep_waits_out_its_grace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(projector_module, "WINDOW_GRACE_SECONDS", 3.0)
    store = ProjectionStore(str(tmp_path / "projections"))
    window = Lease(store, "compaction-window", "this-worker", timedelta(seconds=60))
    projector = Projector(store, "memstream", FakeClock(T0), window=window)
    projector.apply([record(0)])
    upkeep = threading.Thread(target=projector.upkeep, args=(timedelta(hours=1),))
    upkeep.start()
    try:
        wait_until(lambda: window.held(time.time_ns()), timeout=30, interval=0.01)
        projector.apply([record(1)])  # during the grace
        applied_during_the_grace = upkeep.is_alive()
    finally:
        upkeep.join(timeout=60)
    assert applied_during_the_grace
    assert not window.held(time.time_ns())  # released once the compaction was done
    assert store.count(MEMORIES) == 2
