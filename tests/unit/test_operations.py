"""The operations layer over a real store: what a lifecycle job run once decides."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path

from memstream.application import Operations
from memstream.events.codec import encode
from memstream.events.vocabulary import SessionClosed
from memstream.settings import Settings
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.log_records import LogRecord
from memstream.streams.projector import Projector
from memstream.testing import FakeClock, message

T0 = datetime(2024, 5, 1, 9, 0, tzinfo=UTC)


def test_a_job_run_for_a_given_time_closes_the_last_session_by_event_time(
    tmp_path: Path,
) -> None:
    """``jobs consolidate --now T``: "I moved to Porto", said three hours before T in the
    user's last session, is closed and consolidated at once; the worker's timer at the
    same moment (no ``now`` given) still waits, since the turns have just arrived."""
    store = ProjectionStore(str(tmp_path / "projections"))
    arrived = T0 + timedelta(hours=3)
    said = [
        message(user_id="ana", session_id="s1", content="I live in Lisbon.", occurred_at=T0),
        message(
            user_id="ana",
            session_id="s1",
            content="I moved to Porto last week.",
            occurred_at=T0 + timedelta(minutes=1),
        ),
    ]
    records = [
        LogRecord("e1", "memory.messages", 0, i, arrived, b"ana", encode(e))
        for i, e in enumerate(said)
    ]
    Projector(store, consumer="memstream", clock=FakeClock(arrived)).apply(records)
    clock = FakeClock(arrived)
    operations = Operations(Settings(data=str(tmp_path)), store=store, clock=clock)

    as_of = asyncio.run(operations.upkeep.run_job("consolidate", arrived, dry_run=True))
    closed = [e for e in as_of.events if isinstance(e, SessionClosed)]
    assert [(e.session_id, e.reason, e.closed_at) for e in closed] == [("s1", "gap", arrived)]
    assert any(type(e).__name__ == "FactsConsolidated" for e in as_of.events)
    assert not as_of.published

    timer_like = asyncio.run(operations.upkeep.run_job("consolidate", dry_run=True))
    assert timer_like.events == []
