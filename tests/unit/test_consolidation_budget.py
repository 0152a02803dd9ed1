"""A consolidation run reads a bounded amount of text: its sessions are taken in order
while their turns fit ``characters``, the rest wait for the next run, and a session
longer than the bound is still consolidated (alone, as a run's first). Real LanceDB
tables filled by the projector; the rules extractor."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from memstream.events.codec import encode
from memstream.events.vocabulary import FactsConsolidated, SessionEnded
from memstream.jobs.lifecycle import LifecycleJobs
from memstream.policies.lifecycle import LifecyclePolicy
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.log_records import LogRecord
from memstream.streams.projector import Projector
from memstream.testing import FakeClock, message
from memstream.text.extractor import LocalExtractor

T0 = datetime(2025, 6, 2, 9, tzinfo=UTC)
#: (session, its turns' characters): the third is longer than the bound on its own
SESSIONS = [("s1", 3_000), ("s2", 3_000), ("s3", 9_000), ("s4", 1_000)]


def test_a_run_consolidates_sessions_while_their_text_fits_the_bound(tmp_path: Path) -> None:
    store = ProjectionStore(str(tmp_path / "projections"))
    projector = Projector(store, "test", clock=FakeClock(T0))
    offsets = iter(range(10_000))

    def apply(topic: str, events: list[Any]) -> None:
        projector.apply(
            [LogRecord("e", topic, 0, next(offsets), T0, b"ana", encode(e)) for e in events]
        )

    for n, (session, size) in enumerate(SESSIONS):
        at = T0 + timedelta(hours=n)
        sentence = "I live in Porto and I work as a nurse at Santa Maria hospital. "
        turns = [
            message(
                event_id=f"{session}-{t}",
                user_id="ana",
                session_id=session,
                speaker="Ana",
                content=(sentence * (size // len(sentence) // 2 + 1))[: size // 2],
                occurred_at=at + timedelta(minutes=t),
            )
            for t in range(2)
        ]
        ended = SessionEnded(
            event_id=f"end-{session}",
            user_id="ana",
            session_id=session,
            occurred_at=at + timedelta(minutes=2),
        )
        apply("memory.messages", [*turns, ended])
    jobs = LifecycleJobs(store, LocalExtractor(), LifecyclePolicy())
    now = T0 + timedelta(days=1)

    def consolidated_in_a_run() -> list[str]:
        result = jobs.consolidate(now, characters=6_500)
        apply("memory.lifecycle", result.events)
        return [e.session_id for e in result.events if isinstance(e, FactsConsolidated)]

    assert consolidated_in_a_run() == ["s1", "s2"]  # 6,000 characters; s3 would pass 6,500
    assert consolidated_in_a_run() == ["s3"]  # alone: longer than the bound, first of its run
    assert consolidated_in_a_run() == ["s4"]
    assert consolidated_in_a_run() == []
