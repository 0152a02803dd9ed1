"""A document applied but never read, with the embedded broker's log gone (a SIGKILL
and a restart), is read when ``memstream up`` starts again: the documents table says
which submissions did not finish, and the documents lane reads each again; and a big
document holds one reader while the other users' documents pass it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest

from memstream.application.documents import submission
from memstream.client import MemoryClient
from memstream.events.codec import encode
from memstream.events.vocabulary import DocumentSubmitted
from memstream.jobs.unread_documents import unread_submissions
from memstream.storage.document_originals import DocumentOriginals
from memstream.storage.filesystems import resolve_location
from memstream.storage.journal import Journal
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.layout import DataLayout
from memstream.storage.log_records import LogRecord
from memstream.streams.partitioning import partition_of
from memstream.streams.projector import Projector
from memstream.streams.topics import DOCUMENTS
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
    ana = partition_of("ana", 4)
    assert unread_submissions(store, {ana}, 4) == [e for e in events if e.user_id == "ana"]
    assert unread_submissions(store, set(), 4) == []


def _big_markdown(megabytes: int) -> bytes:
    """A Markdown file of ``megabytes`` of numbered sections of prose."""
    words = [
        "tenant",
        "lease",
        "rent",
        "deposit",
        "notice",
        "renewal",
        "clause",
        "premises",
        "repair",
        "payment",
    ]
    section = " ".join(words * 9)
    parts = []
    for n in range(megabytes * 1_000_000 // (len(section) * 3 + 20) + 1):
        parts.append(f"## Section {n}\n\n{section} {n}.\n\n{section}.\n\n{section}.\n\n")
    return "".join(parts).encode()


@pytest.mark.broker
@pytest.mark.slow
@pytest.mark.timeout(900)
def test_small_documents_pass_a_big_one_and_a_sigkill_loses_none(tmp_path: Path) -> None:
    """Ten users' small documents behind one user's 10 MB file: the small ones are
    indexed while the big one is read; ``up`` is SIGKILLed in the middle of that read
    (once the intake journal has let the submission go: the documents table alone says
    it is unread) and started again, and the big one ends indexed too."""
    data = tmp_path / "data"
    # no embedder: reading and indexing are what is tested (the big one's thousands of
    # chunks would keep a core embedding for the rest of the test, and slow the suite)
    up = WorkerProcess(data, env={"MEMSTREAM_EMBEDDER": "none"}).start()
    users = [f"user{n}" for n in range(10)]

    def status(user: str) -> str | None:
        found = httpx.get(f"{up.api_url}/v1/documents", params={"user_id": user}, timeout=30)
        documents = found.json()["documents"]
        return documents[0]["status"] if documents else None

    def journal_holds_big(client: MemoryClient) -> bool:
        """Whether a segment of the intake journal holds the big one's submission (a
        message makes the writer seal the segment before, once it is 2 s old)."""
        client.publish({"type": "message", "user_id": "nudge", "session_id": "s",
                        "role": "user", "content": "hello"})  # fmt: skip
        segments = Journal(data / "journal").segments()
        return any(b"big.md" in segment.path.read_bytes() for segment in segments)

    try:
        up.wait_serving()
        with MemoryClient(up.api_url, timeout=120) as client:
            # 10 MB: read in about 23 s on a quiet machine, several times the 3 to 9 s
            # from its submission to the kill (read twice, it is the suite's costliest
            # test after the scale-out scenarios: 74 s of CPU at 15 MB)
            client.add_document("big", data=_big_markdown(10), filename="big.md")
            for n, user in enumerate(users):
                client.add_document(user, text=f"Note {n}: the ferry leaves at {n} o'clock.",
                                    document_id="note", title=f"note {n}")  # fmt: skip
            wait_until(lambda: all(status(u) == "indexed" for u in users), timeout=120)
            # the journal lets the applied submissions go: then the table alone holds them
            wait_until(lambda: not journal_holds_big(client), timeout=60, interval=3)
        assert status("big") == "received"  # still being read
        up.kill()
        up.start()
        up.wait_serving()
        wait_until(lambda: status("big") == "indexed", timeout=600)
        assert "1 documents applied but not read: reading them" in up.log()
        assert all(status(u) == "indexed" for u in users)
    finally:
        up.stop(timeout=60)


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
        assert "10 documents applied but not read: reading them" in up.log()
    finally:
        assert up.stop(timeout=60) == 0


@pytest.mark.broker
@pytest.mark.slow
def test_a_document_that_takes_too_long_to_read_fails_and_the_reader_goes_on(
    tmp_path: Path,
) -> None:
    """Reading past ``document_read_seconds`` kills the reading process: the document
    ends ``failed`` (``too_complex``, the limit named) and the next one is read."""
    data = tmp_path / "data"
    env = {"MEMSTREAM_DOCUMENT_READ_SECONDS": "2", "MEMSTREAM_DOCUMENT_READERS": "1",
           "MEMSTREAM_DOCUMENT_READ_SECONDS_PER_MEGABYTE": "0"}  # fmt: skip
    up = WorkerProcess(data, env=env).start()
    try:
        up.wait_serving()
        with MemoryClient(up.api_url, timeout=120) as client:
            client.add_document("ana", data=_big_markdown(12), filename="slow.md")
            client.add_document("ana", text="The ferry leaves at nine.", document_id="note",
                                title="note")  # fmt: skip

            def shown() -> dict[str, dict[str, object]]:
                return {d["document_id"]: d for d in client.documents("ana")}

            wait_until(lambda: shown().get("note", {}).get("status") == "indexed", timeout=120)
            slow = shown()["slow.md"]
        assert slow["status"] == "failed", slow
        assert slow["error"] == {
            "class": "too_complex",
            "message": "reading the document took longer than 2 s, the limit",
        }
    finally:
        assert up.stop(timeout=60) == 0
