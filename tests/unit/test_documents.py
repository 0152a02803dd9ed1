"""Documents through their events, without a broker: originals stored by checksum (a
local folder and S3 on loopback), the documents lane's reading of a submission, and the
fold of a document's events into its status, versions and chunk memories (Hypothesis:
parts delivered twice or late, versions replaced)."""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import docx
import pytest
from fpdf import FPDF
from hypothesis import given, settings
from hypothesis import strategies as st
from support.documents import T0, submitted

from memstream.adapters.document_parsing import (
    DOCX,
    DocumentUnreadable,
    media_type_of,
    parse_document,
)
from memstream.adapters.tokens import count_tokens
from memstream.application import state_digest
from memstream.application.documents import submission
from memstream.events.codec import encode
from memstream.events.vocabulary import (
    CHUNKS_PER_EVENT,
    DocumentChunked,
    DocumentFailed,
    DocumentRemoved,
    DocumentSubmitted,
    Event,
    UserErased,
)
from memstream.jobs.document_lane import ReadLimits, read_submission
from memstream.projections.documents import (
    CHUNK_KIND,
    DocumentState,
    apply_documents,
    chunk_memory_id,
    chunk_rows,
    document_key,
    fold_document,
    superseded_memory_ids,
)
from memstream.queries.search.searcher import Searcher, SearchRequest
from memstream.storage.document_originals import DocumentOriginals, OriginalMissing, checksum_of
from memstream.storage.errors import StorageError
from memstream.storage.filesystems import resolve_location
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.lance.tables import DOCUMENTS
from memstream.storage.layout import DataLayout
from memstream.storage.log_records import LogPosition, LogRecord
from memstream.streams.projector import Projector
from memstream.streams.topics import topic_for
from memstream.testing import FakeClock
from memstream.text.extractor import LocalExtractor


def lease_pdf(pages: int = 5) -> bytes:
    document = FPDF()
    document.set_font("helvetica", size=11)
    for n in range(1, pages + 1):
        document.add_page()
        topic = "Renewal" if n == 3 else f"Topic {n}"
        body = (
            "The tenant may renew the lease for two more years by written notice."
            if n == 3
            else f"Page {n} says the rent is paid on the first day of each month."
        )
        document.multi_cell(0, 6, f"{n} {topic}\n{body}")
    return bytes(document.output())


@pytest.fixture(params=["local", "s3"])
def originals(request: pytest.FixtureRequest, tmp_path: Path) -> DocumentOriginals:
    """Originals under a data location on a local folder or on S3 on loopback."""
    if request.param == "local":
        location = resolve_location(str(tmp_path / "data"))
    else:
        endpoint = request.getfixturevalue("s3_endpoint")
        bucket = request.getfixturevalue("new_bucket")("docs")
        location = resolve_location(
            f"s3://{bucket}/data", s3_endpoint=endpoint, s3_region="us-east-1"
        )
    return DocumentOriginals(DataLayout(location).documents)


def test_originals_round_trip_by_checksum_once_per_user_and_go_with_erasure(
    originals: DocumentOriginals,
) -> None:
    data = lease_pdf(2)
    checksum = originals.put("acme:ana", data)
    assert checksum == checksum_of(data)
    assert originals.put("acme:ana", data) == checksum  # again: nothing new
    assert originals.get("acme:ana", checksum) == data
    originals.put("acme:/../bo", b"bo's notes")
    assert originals.checksums("acme:ana") == [checksum]
    with pytest.raises(OriginalMissing):
        originals.get("acme:/../bo", checksum)  # stored per user
    assert originals.erase_user("acme:ana") == 1
    with pytest.raises(OriginalMissing):
        originals.get("acme:ana", checksum)
    assert originals.get("acme:/../bo", checksum_of(b"bo's notes")) == b"bo's notes"
    with pytest.raises(ValueError, match="not a checksum"):
        originals.get("acme:ana", "../../etc/passwd")


def test_damaged_original_is_refused(tmp_path: Path) -> None:
    originals = DocumentOriginals(resolve_location(str(tmp_path / "documents")))
    checksum = originals.put("ana", b"the real bytes")
    (tmp_path / "documents" / "ana" / checksum).write_bytes(b"other bytes")
    with pytest.raises(StorageError, match="damaged"):
        originals.get("ana", checksum)


def test_a_submission_becomes_chunked_parts_with_pages_and_sections() -> None:
    data = lease_pdf(5)
    event = submitted(data, "application/pdf")
    events = read_submission(event, lambda u, c: data, count_tokens, T0)
    assert [type(e) for e in events] == [DocumentChunked]
    [chunked] = events
    assert isinstance(chunked, DocumentChunked)
    assert chunked.pages == 5 and chunked.total == len(chunked.chunks) >= 1
    renewal = [c for c in chunked.chunks if "renew" in c.text]
    assert renewal and renewal[0].page <= 3 <= renewal[0].last_page
    assert renewal[0].headings[-1] == "3 Renewal"
    # read again (a lane that died before committing): the very same events
    assert read_submission(event, lambda u, c: data, count_tokens, T0) == events


def lease_docx() -> bytes:
    document = docx.Document()
    document.add_heading("Lease", 0)
    document.add_heading("Rent", 1)
    document.add_paragraph("The rent is 900 euros a month.")
    document.add_page_break()
    document.add_heading("Renewal", 1)
    document.add_heading("Notice", 2)
    document.add_paragraph("The tenant may renew the lease for two more years.")
    table = document.add_table(rows=2, cols=2)
    cells = {(0, 0): "Year", (0, 1): "Rent", (1, 0): "2026", (1, 1): "900"}
    for (row, column), text in cells.items():
        table.cell(row, column).text = text
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def test_a_docx_is_read_with_its_headings_tables_and_page_breaks() -> None:
    data = lease_docx()
    assert media_type_of(data, "lease.docx") == media_type_of(data) == DOCX
    parsed = parse_document(data, DOCX)
    assert (parsed.pages, parsed.title) == (2, "Lease")
    assert [(b.text, b.page, b.headings) for b in parsed.blocks] == [
        ("The rent is 900 euros a month.", 1, ("Lease", "Rent")),
        ("The tenant may renew the lease for two more years.", 2, ("Lease", "Renewal", "Notice")),
        ("Year | Rent\n2026 | 900", 2, ("Lease", "Renewal", "Notice")),
    ]
    [chunked] = read_submission(submitted(data, DOCX), lambda u, c: data, count_tokens, T0)
    assert isinstance(chunked, DocumentChunked) and chunked.pages == 2
    [chunk] = chunked.chunks  # one section (the title's), short: one chunk over both pages
    assert (chunk.page, chunk.last_page, chunk.headings) == (1, 2, ["Lease"])
    with pytest.raises(DocumentUnreadable, match=r"notes\.docx says DOCX, but is not"):
        media_type_of(b"plain words", "notes.docx")
    with pytest.raises(DocumentUnreadable, match=r"notes\.txt says text/plain, but is a DOCX"):
        media_type_of(data, "notes.txt")
    [failed] = read_submission(
        submitted(b"PK\x03\x04word/", DOCX), lambda u, c: b"PK\x03\x04word/", count_tokens, T0
    )
    assert isinstance(failed, DocumentFailed) and failed.error_class == "corrupt" and failed.final


def test_a_long_document_comes_in_parts_and_failures_say_why() -> None:
    text = "\n\n".join(f"Paragraph {i}. " + "word " * 60 for i in range(200)).encode()
    event = submitted(text, "text/plain")
    parts = read_submission(event, lambda u, c: text, count_tokens, T0, ReadLimits(target=100))
    assert len(parts) > 1 and all(isinstance(p, DocumentChunked) for p in parts)
    total = sum(len(p.chunks) for p in parts if isinstance(p, DocumentChunked))
    assert all(len(p.chunks) <= CHUNKS_PER_EVENT for p in parts if isinstance(p, DocumentChunked))
    assert {p.total for p in parts if isinstance(p, DocumentChunked)} == {total}

    def missing(user_id: str, checksum: str) -> bytes:
        raise OriginalMissing("no original")

    tries = [read_submission(event, missing, count_tokens, T0, attempt=n)[0] for n in (1, 2, 3)]
    assert [(f.error_class, f.final) for f in tries if isinstance(f, DocumentFailed)] == [
        ("missing", False),
        ("missing", False),
        ("missing", True),
    ]
    bad = b"%PDF-1.7 not really"
    [failed] = read_submission(
        submitted(bad, "application/pdf"), lambda u, c: bad, count_tokens, T0
    )
    assert isinstance(failed, DocumentFailed)
    assert (failed.error_class, failed.final) == (
        "corrupt",
        True,
    ) and "cannot be read" in failed.message
    empty = read_submission(submitted(b"", "text/plain"), lambda u, c: b"", count_tokens, T0)
    assert [(e.total, e.chunks) for e in empty if isinstance(e, DocumentChunked)] == [(0, [])]


def _fold(
    events: list[DocumentSubmitted | DocumentChunked | DocumentFailed],
) -> DocumentState | None:
    state = None
    for event in events:
        state = fold_document(state, event)
    return state


def test_status_follows_the_events_and_versions_supersede_chunks() -> None:
    v1, v2 = b"# Lease\n\nFirst version.", b"# Lease\n\nSecond version, renewed."
    first, second = submitted(v1), submitted(v2)
    [chunked1] = read_submission(first, lambda u, c: v1, count_tokens, T0)
    [chunked2] = read_submission(second, lambda u, c: v2, count_tokens, T0)
    state = _fold([first])
    assert state is not None and state.status == "received" and state.versions == (first.checksum,)
    state = _fold([first, first, chunked1])
    assert state is not None and (state.status, state.chunks, state.total) == ("indexed", 1, 1)
    before = state
    state = fold_document(state, second)
    assert state is not None and state.versions == (first.checksum, second.checksum)
    assert superseded_memory_ids(before, state) == [
        chunk_memory_id("ana", "lease", first.event_id, 0)
    ]
    assert fold_document(state, chunked1) == state  # the old version's late part
    state = fold_document(state, chunked2)
    assert state is not None and state.status == "indexed"
    failed = DocumentFailed(
        event_id="f", user_id="ana", document_id="lease", checksum=second.checksum,
        error_class="corrupt", message="the PDF cannot be read", attempt=1, final=True,
        occurred_at=T0,
    )  # fmt: skip
    assert fold_document(_fold([first, second]), failed).status == "failed"  # type: ignore[union-attr]
    assert fold_document(None, chunked1) is None


def test_chunks_are_memories_that_cite_their_page_and_section() -> None:
    data = lease_pdf(4)
    [chunked] = read_submission(
        submitted(data, "application/pdf"), lambda u, c: data, count_tokens, T0
    )
    assert isinstance(chunked, DocumentChunked)
    rows = chunk_rows(chunked, LogPosition("e1", "memory.documents", 0, 7), "submit-1")
    assert [r["kind"] for r in rows] == [CHUNK_KIND] * len(rows)
    renewal = next(r for r in rows if "renew" in str(r["content"]))
    metadata = json.loads(str(renewal["metadata"]))
    assert metadata["citation"].startswith("Lease, p") and metadata["citation"].endswith(
        "§3 Renewal"
    )
    assert "Lease" in str(renewal["search_text"]) and "3 Renewal" in str(renewal["search_text"])
    assert renewal["source_event_ids"] == ["submit-1", chunked.event_id]


@settings(max_examples=50, deadline=None)
@given(
    st.integers(1, 5),
    st.lists(st.integers(0, 4), max_size=12),
)
def test_parts_count_once_in_any_order_and_the_status_ends_indexed(
    parts: int, replays: list[int]
) -> None:
    """Parts of a version delivered in any order, some more than once: the chunk count
    is the version's, and the status is ``indexed`` once every part is in."""
    event = submitted(b"x" * parts)
    chunked = [
        DocumentChunked(
            event_id=f"c{i}",
            user_id="ana",
            document_id="lease",
            checksum=event.checksum,
            submission=event.event_id,
            title="Lease",
            pages=1,
            first=i * 2,
            total=parts * 2,
            chunks=[
                {
                    "index": i * 2 + j,
                    "text": "t",
                    "page": 1,
                    "last_page": 1,
                    "start": 0,
                    "end": 1,
                    "tokens": 1,
                }  # type: ignore[list-item]
                for j in range(2)
            ],
            occurred_at=T0 + timedelta(seconds=i),
        )
        for i in range(parts)
    ]
    order = [chunked[r % parts] for r in replays] + chunked
    state = _fold([event, *order])
    assert state is not None and state.chunks == parts * 2 and state.status == "indexed"


class DocumentLog:
    """Document events applied by the worker's projector to a real store, in order."""

    def __init__(self, tmp_path: Path) -> None:
        self.store = ProjectionStore(str(tmp_path / "projections"))
        self.originals = DocumentOriginals(resolve_location(str(tmp_path / "documents")))
        self.projector = Projector(self.store, "memstream", FakeClock(T0), originals=self.originals)
        self.offset = 0
        self.records: list[LogRecord] = []

    def submit(self, data: bytes, media_type: str, **fields: str) -> DocumentSubmitted:
        event = submitted(data, media_type, **fields)
        assert self.originals.put(event.user_id, data) == event.checksum
        self.apply([event])
        self.apply(
            read_submission(event, self.originals.get, count_tokens, T0, extractor=LocalExtractor())
        )
        self.store.upkeep.ensure_indexes(ann=False)  # as the worker does after its first batch
        return event

    def apply(self, events: Sequence[Event]) -> None:
        records = []
        for event in events:
            records.append(
                LogRecord("e1", topic_for(event.type), 0, self.offset, T0, b"ana", encode(event))
            )
            self.offset += 1
        result = self.projector.apply(records)
        assert result.dead_letters == []
        self.records.extend(records)

    def search(self, query: str, user_id: str = "ana") -> list[Any]:
        request = SearchRequest(user_id=user_id, query=query, now=T0 + timedelta(days=1), k=5)
        return Searcher(self.store, clock=lambda: T0).search(request).results

    def document(self, user_id: str = "ana", document_id: str = "lease") -> dict[str, Any]:
        [row] = self.store.by_ids(DOCUMENTS, [document_key(user_id, document_id)])
        return dict(row)


def test_a_document_is_found_by_its_page_and_a_new_version_replaces_it(tmp_path: Path) -> None:
    log = DocumentLog(tmp_path)
    data = lease_pdf(5)
    first = log.submit(data, "application/pdf")
    row = log.document()
    assert (row["status"], row["pages"], row["versions"]) == ("indexed", 5, [first.checksum])
    assert row["chunks"] == row["total"] >= 1
    [top, *_] = log.search("when can the tenant renew the lease")
    assert "renew" in top.content and top.kind == CHUNK_KIND
    assert top.document is not None and top.document.citation == "Lease, p. 3, §3 Renewal"

    log.submit(data, "application/pdf")  # the same bytes again: nothing changes
    assert log.document() == row

    second = log.submit(b"# Lease\n\n## Renewal\n\nRenewal is no longer possible.", "text/markdown")
    row = log.document()
    assert row["versions"] == [first.checksum, second.checksum] and row["status"] == "indexed"
    found = log.search("when can the tenant renew the lease")
    assert found and all("two more years" not in r.content for r in found)
    assert "no longer possible" in found[0].content

    # back to the first version (submitted again): its chunks are found again
    log.submit(data, "application/pdf", event_id="submit-again")
    row = log.document()
    assert row["versions"] == [first.checksum, second.checksum, first.checksum]
    [top, *_] = log.search("when can the tenant renew the lease")
    assert "two more years" in top.content and row["status"] == "indexed"

    log.apply([UserErased(event_id="erase-ana", user_id="ana", requested_at=T0)])
    assert log.store.by_ids(DOCUMENTS, [document_key("ana", "lease")]) == []
    assert log.originals.checksums("ana") == [] and log.search("renew") == []


def test_a_replay_of_the_log_rebuilds_the_same_documents_without_their_originals(
    tmp_path: Path,
) -> None:
    """The log holds what the lane read: a replay into a new store, with no original
    to read and no parser called, gives the same state, the documents table included."""
    log = DocumentLog(tmp_path / "live")
    log.submit(lease_pdf(4), "application/pdf")
    log.submit(b"# Lease\n\nA second version.", "text/markdown")
    log.submit(NOTES, "text/markdown", document_id="notes")
    log.apply([removal("notes")])
    replayed = ProjectionStore(str(tmp_path / "replayed"))
    projector = Projector(replayed, "memstream", FakeClock(T0))  # no originals at all
    projector.apply(log.records)
    projector.flush()
    log.projector.flush()
    assert state_digest(replayed) == state_digest(log.store)
    assert len(replayed.by_ids(DOCUMENTS, [document_key("ana", "notes")])) == 1


NOTES = b"""# About me

I live in Lisbon. My sister Ana lives in Porto.

## Pets

My cat Miso likes tuna.
"""


def removal(document_id: str, event_id: str = "remove-1") -> DocumentRemoved:
    return DocumentRemoved(
        event_id=event_id, user_id="ana", document_id=document_id, occurred_at=T0
    )


def test_facts_come_from_the_chunks_citing_them_and_go_with_their_version(
    tmp_path: Path,
) -> None:
    log = DocumentLog(tmp_path)
    first = log.submit(NOTES, "text/markdown", document_id="notes", title="Notes")
    row = log.document(document_id="notes")
    assert row["status"] == "indexed" and len(row["fact_ids"]) >= 3
    facts = {r["memory_id"]: r for r in log.store.by_ids("memories", row["fact_ids"])}
    [home] = [f for f in facts.values() if f["attribute"] == "lives_in" and f["value"] == "Lisbon"]
    chunk = chunk_memory_id("ana", "notes", first.event_id, 0)
    assert home["source_memory_ids"] == [chunk] and home["channel"] == "document"
    assert json.loads(home["metadata"])["citation"] == "Notes, p. 1, §About me"
    assert any(r.memory_id == home["memory_id"] for r in log.search("where does ana live"))

    # a new version: the old facts are superseded by it, the new ones take their place
    second = log.submit(
        b"# About me\n\nI live in Berlin now.", "text/markdown", document_id="notes", title="Notes"
    )
    row = log.document(document_id="notes")
    states = {s["memory_id"]: s for s in log.store.scan("memory_state").to_pylist()}
    assert states[home["memory_id"]]["valid_until"] is not None
    current = log.store.by_ids("memories", row["fact_ids"])
    assert [f["value"] for f in current if f["attribute"] == "lives_in"] == ["Berlin"]
    found = [r.content for r in log.search("where does ana live")]
    assert found and not any("Lisbon" in c for c in found)

    # removal: every version's chunks and facts are forgotten, nothing is found
    log.apply([removal("notes"), removal("notes", "remove-again")])
    row = log.document(document_id="notes")
    assert row["status"] == "removed"
    states = {s["memory_id"]: s for s in log.store.scan("memory_state").to_pylist()}
    every = [
        chunk,
        *facts,
        chunk_memory_id("ana", "notes", second.event_id, 0),
        *row["fact_ids"],
    ]
    assert all(states[m]["forgotten_reason"] == "removed" for m in every)
    assert log.search("Lisbon") == [] and log.search("Berlin") == []

    # the same bytes submitted again after the removal: a new version, found again
    log.submit(NOTES, "text/markdown", document_id="notes", title="Notes", event_id="again")
    row = log.document(document_id="notes")
    assert row["status"] == "indexed" and len(row["versions"]) == 3
    assert any("Lisbon" in r.content for r in log.search("where does ana live"))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["v1", "v2", "v1-parts", "v2-parts", "remove"]), max_size=14))
def test_no_chunk_or_fact_outlives_a_removal_in_any_order(steps: list[str]) -> None:
    """Versions submitted, their parts delivered (late, twice, after another version or
    after a removal) and removals, in any order: once the document ends removed, every
    chunk and fact ever written for it is forgotten, whatever version it came from."""
    texts = {"v1": NOTES, "v2": b"# About me\n\nI live in Berlin now.\n\n" + b"More. " * 600}
    submissions = {
        name: submitted(data, "text/markdown", document_id="notes", event_id=f"s-{name}")
        for name, data in texts.items()
    }
    parts = {
        name: read_submission(
            submissions[name],
            lambda u, c, data=data: data,
            count_tokens,
            T0,
            ReadLimits(target=60),
            extractor=LocalExtractor(),
        )
        for name, data in texts.items()
    }
    rows: dict[str, dict[str, Any]] = {}
    written: set[str] = set()
    forgotten: set[str] = set()
    for n, step in enumerate(steps):
        if step == "remove":
            events: list[Any] = [removal("notes", f"remove-{n}")]
        elif step.endswith("-parts"):
            events = parts[step.removesuffix("-parts")]
        else:
            events = [submissions[step]]
        for event in events:
            changes = apply_documents(rows, [(event, LogPosition("e1", "memory.documents", 0, n))])
            rows.update(changes.rows)
            written.update(str(m["memory_id"]) for m in changes.memories)
            forgotten.update(s.memory_id for s in changes.states if s.forgotten_reason == "removed")
    if rows and next(iter(rows.values()))["status"] == "removed":
        assert written <= forgotten


def _titled_pdf() -> bytes:
    document = FPDF()
    document.set_title("Tenancy Agreement 2026")
    document.set_font("helvetica", size=11)
    document.add_page()
    document.multi_cell(0, 6, "The rent is 900 euros a month.")
    return bytes(document.output())


def _titled_docx() -> bytes:
    document = docx.Document()
    document.core_properties.title = "Tenancy Agreement 2026"
    document.add_heading("Rent", 1)
    document.add_paragraph("The rent is 900 euros a month.")
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("lease.pdf", _titled_pdf()),
        ("lease.docx", _titled_docx()),
        ("lease.md", b"# Tenancy Agreement 2026\n\nThe rent is 900 euros a month.\n"),
    ],
)
def test_a_document_sent_without_a_title_is_known_by_its_own(
    tmp_path: Path, name: str, data: bytes
) -> None:
    """The title a PDF's or DOCX's properties or a Markdown file's first heading give
    replace the file's name once the document is read; a title given is kept."""
    event = submission("ana", data, T0, max_bytes=10**7, name=name)
    assert (event.title, event.title_given) == (name, False)
    log = DocumentLog(tmp_path)
    log.apply([event])
    assert log.document(document_id=name)["title"] == name  # until it is read
    log.apply(read_submission(event, lambda u, c: data, count_tokens, T0))
    row = log.document(document_id=name)
    assert row["status"] == "indexed" and row["title"] == "Tenancy Agreement 2026"

    given = submission("ana", data, T0, max_bytes=10**7, name=name, title="My lease")
    assert given.title_given
    assert {e.title for e in read_submission(given, lambda u, c: data, count_tokens, T0)} == {
        "My lease"
    }


@pytest.mark.parametrize(("given", "known_as"), [("   ", "lease.pdf"), ("T" * 10_000, "T" * 500)])
def test_a_blank_or_huge_title_property_is_no_title_or_is_cut(given: str, known_as: str) -> None:
    document = FPDF()
    document.set_title(given)
    document.set_font("helvetica", size=11)
    document.add_page()
    document.multi_cell(0, 6, "The rent is 900 euros a month.")
    data = bytes(document.output())
    event = submission("ana", data, T0, max_bytes=10**7, name="lease.pdf")
    parts = read_submission(event, lambda u, c: data, count_tokens, T0)
    assert [type(p).__name__ for p in parts] == ["DocumentChunked"]
    assert parts[0].title == known_as


@pytest.mark.parametrize(
    ("name", "starts", "ends"),
    [("lease.md", "lease.md", ""), ("my notes.md", "my-notes-", ".md"),
     ("résumé.md", "resume-", ".md"), ("契約.md", "document-", ".md"),
     ("日本語のノート", "document-", ""), ("..", "document-", ""), ("a\ud800b.txt", "ab-", ".txt"),
     ("x" * 300 + ".pdf", "x" * 120 + "-", ".pdf"), ("a." + "y" * 199, "a.", "")],
)  # fmt: skip
def test_any_file_name_gives_a_safe_document_id(name: str, starts: str, ends: str) -> None:
    from memstream.application.documents import document_id_of
    from memstream.policies.scope import valid_path_identifier

    document_id = document_id_of(name)
    assert document_id.startswith(starts) and document_id.endswith(ends), document_id
    assert valid_path_identifier("document_id", document_id) == document_id
    if starts != name:  # derived: names that would meet stay apart
        assert document_id != document_id_of(name + " ")


@pytest.mark.parametrize(
    ("data", "name", "declared", "said"),
    [(b"plain words", "report.pdf", None, "declared application/pdf, but its bytes are text"),
     (b"\x89PNG\r\n\x1a\n\x00", "scan.png", "application/pdf",
      "declared application/pdf, but its bytes are neither text, a PDF nor a DOCX"),
     (b"%PDF-1.7 ...", "notes.md", None, "declared text/markdown, but its bytes are a PDF")],
)  # fmt: skip
def test_a_type_the_bytes_contradict_is_refused_at_the_door_naming_both(
    data: bytes, name: str, declared: str | None, said: str
) -> None:
    from memstream.application.documents import submission
    from memstream.events.errors import InvalidQuery

    with pytest.raises(InvalidQuery) as refused:
        submission("ana", data, datetime(2026, 1, 1, tzinfo=UTC), max_bytes=10**6, name=name,
                   media_type=declared)  # fmt: skip
    assert str(refused.value) == f"file: {said}"
    empty = submission("ana", b"", datetime(2026, 1, 1, tzinfo=UTC), max_bytes=10, name=name,
                       media_type=declared)  # fmt: skip
    assert empty.size == 0  # an empty document is empty, whatever it claims to be
