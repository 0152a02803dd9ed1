"""A document applied but never read, with the embedded broker's log gone (a SIGKILL
and a restart), is read when ``memstream up`` starts again: the documents table says
which submissions did not finish, and each is published again."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest

from memstream.operations.documents import submission
from memstream.projections.codec import encode
from memstream.projections.events import DocumentSubmitted
from memstream.storage.document_originals import DocumentOriginals
from memstream.storage.filesystems import resolve_location
from memstream.storage.lance_store import ProjectionStore
from memstream.storage.layout import DataLayout
from memstream.storage.log_records import LogRecord
from memstream.streams.projector import Projector
from memstream.streams.topics import DOCUMENTS
from memstream.streams.unread_documents import unread_submissions
from memstream.testing import FakeClock, WorkerProcess, wait_until

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


def _received(data: Path, count: int) -> list[DocumentSubmitted]:
    """``count`` documents of two users submitted and applied, none read: what a stop
    between the projector and the documents lane leaves."""
    layout = DataLayout(resolve_location(str(data)))
    originals = DocumentOriginals(layout.documents)
    store = ProjectionStore.at(layout.projections())
    events = []
    for n in range(count):
        user = "ana" if n % 2 else "bob"
        body = f"# Note {n}\n\nThe greenhouse key number {n} hangs by the door.".encode()
        originals.put(user, body)
        events.append(submission(user, body, T0 + timedelta(seconds=n), max_bytes=10_000,
                                 name=f"note-{n}.md"))  # fmt: skip
    records = [
        LogRecord("old-log", DOCUMENTS, 0, i, T0, e.user_id.encode(), encode(e))
        for i, e in enumerate(events)
    ]
    Projector(store, consumer="memstream", clock=FakeClock(T0)).apply(records)
    return events


def test_the_unread_submissions_are_those_the_table_holds_unfinished(tmp_path: Path) -> None:
    data = tmp_path / "data"
    events = _received(data, 4)
    store = ProjectionStore.at(DataLayout(resolve_location(str(data))).projections())
    assert unread_submissions(store) == events  # the same events, oldest first


@pytest.mark.broker
@pytest.mark.slow
def test_documents_applied_but_unread_before_a_stop_are_read_after_it(tmp_path: Path) -> None:
    data = tmp_path / "data"
    events = _received(data, 10)
    up = WorkerProcess(data).start()
    try:
        up.wait_serving()

        def statuses() -> list[str]:
            return [
                d["status"]
                for user in ("ana", "bob")
                for d in httpx.get(
                    f"{up.api_url}/v1/documents", params={"user_id": user}, timeout=10
                ).json()["documents"]
            ]

        wait_until(lambda: statuses() == ["indexed"] * len(events), timeout=120)
        assert "10 documents not read before the last stop" in up.log()
    finally:
        assert up.stop(timeout=60) == 0
