"""Indexes built by several upkeeps at once (the episodes consumer's first indexing and
the upkeep timer, or several processes on one data folder): the one that loses the
commit race looks again instead of crashing, and every index is there once."""

from __future__ import annotations

import threading
from datetime import UTC, datetime
from pathlib import Path

from memstream.events.codec import encode
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.lance.tables import MEMORIES
from memstream.storage.log_records import LogRecord
from memstream.streams.projector import Projector
from memstream.testing import FakeClock, message

T0 = datetime(2024, 1, 1, tzinfo=UTC)


def test_concurrent_indexing_of_a_new_table_neither_fails_nor_duplicates(tmp_path: Path) -> None:
    for round_ in range(3):
        folder = str(tmp_path / f"round-{round_}")
        store = ProjectionStore(folder)
        said = [message(event_id=f"e{i}", user_id="ana") for i in range(100)]
        records = [
            LogRecord("e1", "memory.messages", 0, i, T0, b"ana", encode(e))
            for i, e in enumerate(said)
        ]
        Projector(store, "memstream", FakeClock(T0)).apply(records)
        upkeeps = [ProjectionStore(folder) for _ in range(4)]
        errors: list[BaseException] = []

        threads = [threading.Thread(target=_index, args=(u, errors)) for u in upkeeps]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert errors == []
        store.refresh()
        columns = [tuple(i.columns) for i in store.table(MEMORIES).list_indices()]
        assert len(columns) == len(set(columns)) == 5, columns


def _index(upkeep: ProjectionStore, errors: list[BaseException]) -> None:
    try:
        upkeep.upkeep.ensure_indexes([MEMORIES])
    except Exception as exc:  # collected for the test's assertion
        errors.append(exc)
