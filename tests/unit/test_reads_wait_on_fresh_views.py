"""A read that waits for a write's vectors counts them on the tables' newest versions.

A server reads through views that may be a moment old (``api_read_consistency_seconds``).
The checkpoints a wait reads are always the newest, and they are written after the rows
they cover; if the vectors still to make were counted on an older view of the memories,
a wait could see the write applied, count none of its memories, and answer that no
vector is pending while the write's own memories have none.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memstream.application import Operations
from memstream.application.read_after_write import NotYetApplied
from memstream.events.codec import encode
from memstream.settings import Settings
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.log_records import LogRecord
from memstream.storage.write_tokens import WriteToken
from memstream.streams.projector import Projector
from memstream.testing import FakeClock, message

T0 = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)
EPOCH = "2026-11-02T09:00:00+00:00"


def _apply(store: ProjectionStore, user_id: str, texts: list[str], first_offset: int) -> None:
    records = [
        LogRecord(
            EPOCH,
            "memory.messages",
            0,
            first_offset + i,
            T0,
            user_id.encode(),
            encode(message(user_id=user_id, content=text, occurred_at=T0 + timedelta(seconds=i))),
        )
        for i, text in enumerate(texts)
    ]
    projector = Projector(store, consumer="memstream", clock=FakeClock(T0))
    projector.apply(records)
    projector.flush()


def test_a_wait_for_vectors_does_not_answer_from_a_view_older_than_the_write(
    tmp_path: Path,
) -> None:
    location = str(tmp_path / "projections")
    writer = ProjectionStore(location)
    _apply(writer, "ben", ["Ben keeps bees."], first_offset=0)
    reader = ProjectionStore(location, read_consistency_interval=timedelta(hours=1))
    ops = Operations(Settings(data=str(tmp_path)), store=reader, clock=FakeClock(T0))
    _apply(writer, "ana", ["My sister Rita lives in Braga.", "I moved to Porto."], first_offset=1)
    assert reader.count("memories", "user_id = 'ana'") == 0  # the reader's view is older

    token = WriteToken(EPOCH, {("memory.messages", 0): 2}).text()
    with pytest.raises(NotYetApplied, match="2 of the user's memories wait for their vector"):
        asyncio.run(ops.reads.after_write(token, "ana", wait="vectors", seconds=0.3))
    applied = asyncio.run(ops.reads.after_write(token, "ana", wait="applied", seconds=0.3))
    assert applied is not None  # the rows are there; only their vectors are not
    assert asyncio.run(ops.reads.freshness("ana"))["pending_vectors"] == 2
