"""Documents as a fold over their events: status, versions, and their chunks as memories.

A document's state (:class:`DocumentState`) is a fold of its ``DocumentSubmitted``,
``DocumentChunked``, ``DocumentFailed`` and ``DocumentRemoved`` events, in log order:

- ``received``: a version was submitted (new bytes: the versions grow by one, the chunk
  count starts again; the same bytes again change nothing);
- ``chunked``: some of the version's chunks are in, not all;
- ``indexed``: all its chunks are memories (found by full text from then on);
- ``empty``: the version holds no text;
- ``failed``: it cannot be read, with the class and the message of the failure (a try
  that will be made again only counts the tries);
- ``removed``: its chunks and facts, of every version, are soft-deleted (a submission
  starts it again, as a new version even with the same bytes).

Events of a version that a newer one replaced are ignored, and a part of the chunks
delivered twice counts once. Each chunk is a memory of kind ``chunk`` whose id is made
from the user, the document, the submission that brought its version and the chunk's
index (:func:`chunk_memory_id`), so the chunks a new version supersedes are known without
reading anything, and a version submitted again after another one gets chunks of its
own (the superseded ones stay history). The facts the extractor derived from a
version's chunks come with them, each citing its chunk; the state keeps their ids, and
those of the versions replaced (``retired_ids``), so a new version supersedes the old
one's facts too and a removal reaches every version, all without reading anything.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from memstream.events.identifier_rules import derived_memory_id
from memstream.events.vocabulary import (
    CHUNKS_PER_EVENT,
    DocumentChunk,
    DocumentChunked,
    DocumentFailed,
    DocumentRemoved,
    DocumentSubmitted,
)
from memstream.projections.derived import derived_row
from memstream.projections.entities import entity_ids_for
from memstream.projections.memory_rows import memory_row
from memstream.projections.memory_state import StateChange
from memstream.storage.log_records import LogPosition
from memstream.text.mentions import extract_mentions

__all__ = [
    "CHUNK_KIND",
    "DOCUMENT_CHANNEL",
    "DOCUMENT_STATUSES",
    "DocumentChanges",
    "DocumentEvent",
    "DocumentState",
    "apply_documents",
    "chunk_memory_id",
    "chunk_rows",
    "citation",
    "current_memory_ids",
    "document_key",
    "fact_rows",
    "fold_document",
    "removed_memory_ids",
    "state_from_row",
    "state_row",
    "superseded_memory_ids",
]

#: The kind of the memories a document's chunks become.
CHUNK_KIND = "chunk"
DOCUMENT_STATUSES = ("received", "chunked", "indexed", "empty", "failed", "removed")
#: The ``channel`` of the memories a document brings: its chunks and their facts.
DOCUMENT_CHANNEL = "document"

DocumentEvent = DocumentSubmitted | DocumentChunked | DocumentFailed | DocumentRemoved


@dataclass(frozen=True)
class DocumentState:
    """Where a document stands: its current version (``checksum``), what it is, its
    status, its chunks (``total`` in all, ``parts`` the first indexes of the parts
    applied), the ids of the facts derived from them (and why none, if the extractor
    failed), the failure if any, every version submitted, oldest first, and the ids of
    the chunks and facts of the versions replaced."""

    user_id: str
    document_id: str
    project_id: str | None
    title: str
    media_type: str
    size: int
    checksum: str
    status: str
    submitted_at: datetime
    updated_at: datetime
    versions: tuple[str, ...]
    tags: tuple[str, ...] = ()
    pages: int = 0
    total: int = 0
    chunks: int = 0
    parts: frozenset[int] = frozenset()
    tries: int = 0
    error_class: str | None = None
    error_message: str | None = None
    submitted_event_id: str | None = None
    fact_ids: tuple[str, ...] = ()
    facts_error: str | None = None
    retired_ids: tuple[str, ...] = ()
    #: False while the title is the file's name: the document's own, once read, replaces it
    title_given: bool = True


def fold_document(state: DocumentState | None, event: DocumentEvent) -> DocumentState | None:
    """``state`` after ``event`` (None: no document yet, and the event does not start
    one: only a submission does)."""
    if isinstance(event, DocumentSubmitted):
        if state is not None and state.checksum == event.checksum and state.status != "removed":
            return state  # the same bytes again
        versions = (*state.versions, event.checksum) if state is not None else (event.checksum,)
        retired = () if state is None else (*state.retired_ids, *current_memory_ids(state))
        return DocumentState(
            user_id=event.user_id,
            document_id=event.document_id,
            project_id=event.project_id,
            title=event.title,
            media_type=event.media_type,
            size=event.size,
            checksum=event.checksum,
            status="received",
            submitted_at=event.occurred_at,
            updated_at=event.occurred_at,
            versions=versions,
            tags=tuple(event.tags),
            submitted_event_id=event.event_id,
            retired_ids=tuple(dict.fromkeys(retired)),
            title_given=event.title_given,
        )
    if state is None or state.status == "removed":
        return state
    if isinstance(event, DocumentRemoved):
        return replace(state, status="removed", updated_at=event.occurred_at)
    if event.checksum != state.checksum or state.status == "failed":
        return state  # a version replaced since, or one already given up on
    if isinstance(event, DocumentChunked) and event.submission != state.submitted_event_id:
        return state  # the same bytes read for a submission that changed nothing
    if isinstance(event, DocumentFailed):
        if not event.final:
            return replace(state, tries=max(state.tries, event.attempt))
        return replace(
            state,
            status="failed",
            tries=max(state.tries, event.attempt),
            error_class=event.error_class,
            error_message=event.message,
            updated_at=event.occurred_at,
        )
    if event.first in state.parts:
        return state  # a part delivered twice
    chunks = state.chunks + len(event.chunks)
    status = "empty" if event.total == 0 else "indexed" if chunks >= event.total else "chunked"
    return replace(
        state,
        title=event.title,
        pages=event.pages,
        total=event.total,
        chunks=chunks,
        parts=state.parts | {event.first},
        status=status,
        updated_at=event.occurred_at,
        fact_ids=tuple(dict.fromkeys((*state.fact_ids, *(f.memory_id for f in event.facts)))),
        facts_error=event.facts_error or state.facts_error,
    )


def current_memory_ids(state: DocumentState) -> list[str]:
    """The memories of the document's current version: the chunks applied, then the
    facts derived from them."""
    submission = state.submitted_event_id or ""
    chunks = [
        chunk_memory_id(state.user_id, state.document_id, submission, index)
        for first in sorted(state.parts)
        for index in range(first, min(first + CHUNKS_PER_EVENT, state.total))
    ]
    return [*chunks, *state.fact_ids]


def chunk_memory_id(user_id: str, document_id: str, submission: str, index: int) -> str:
    """The memory id of chunk ``index`` of the version a document's ``submission``
    (its ``DocumentSubmitted`` event id) brought."""
    return derived_memory_id("chunk", user_id, document_id, submission, str(index))


def superseded_memory_ids(before: DocumentState | None, after: DocumentState | None) -> list[str]:
    """The memories a fold step superseded: the chunks and facts of the version
    ``after`` replaced (none if the document was removed: those are forgotten already)."""
    if (
        before is None
        or after is None
        or before.status == "removed"
        or before.submitted_event_id == after.submitted_event_id
    ):
        return []
    return current_memory_ids(before)


def removed_memory_ids(before: DocumentState | None, after: DocumentState | None) -> list[str]:
    """The memories a fold step removed: every version's chunks and facts."""
    if before is None or after is None or before.status == "removed" or after.status != "removed":
        return []
    return [*after.retired_ids, *current_memory_ids(after)]


def citation(title: str, page: int, last_page: int, headings: list[str] | tuple[str, ...]) -> str:
    """How an agent cites a chunk: ``title, p. 3, §Renewal`` (pages ``pp. 3-4``)."""
    pages = f"p. {page}" if page == last_page else f"pp. {page}-{last_page}"
    section = f", §{headings[-1]}" if headings else ""
    return f"{title}, {pages}{section}"


def chunk_rows(
    event: DocumentChunked, position: LogPosition, submitted_event_id: str | None = None
) -> list[dict[str, object]]:
    """The ``memories`` rows of the chunks ``event`` carries: the chunk's text, found
    by the document's title and headings too, with its citation in ``metadata``."""
    return [_chunk_row(event, chunk, position, submitted_event_id) for chunk in event.chunks]


def _chunk_row(
    event: DocumentChunked,
    chunk: DocumentChunk,
    position: LogPosition,
    submitted_event_id: str | None,
) -> dict[str, object]:
    heading_path = " > ".join(chunk.headings)
    search_text = "\n".join(part for part in (event.title, heading_path, chunk.text) if part)
    mentions = extract_mentions(chunk.text, None, event.occurred_at)
    metadata = {
        "document_id": event.document_id,
        "title": event.title,
        "checksum": event.checksum,
        "chunk": chunk.index,
        "of": event.total,
        "page": chunk.page,
        "last_page": chunk.last_page,
        "headings": chunk.headings,
        "span": [chunk.start, chunk.end],
        "citation": citation(event.title, chunk.page, chunk.last_page, chunk.headings),
    }
    sources = [submitted_event_id] if submitted_event_id else []
    return memory_row(
        memory_id=chunk_memory_id(event.user_id, event.document_id, event.submission, chunk.index),
        kind=CHUNK_KIND,
        user_id=event.user_id,
        project_id=event.project_id,
        channel=DOCUMENT_CHANNEL,
        content=chunk.text,
        search_text=search_text,
        metadata=json.dumps(metadata, ensure_ascii=False, sort_keys=True),
        entity_ids=entity_ids_for(event.user_id, mentions),
        source_event_ids=[*sources, event.event_id],
        occurred_at=event.occurred_at,
        position=position,
    )


def fact_rows(event: DocumentChunked, position: LogPosition) -> list[dict[str, object]]:
    """The ``memories`` rows of the facts ``event`` carries, each with the citation of
    the chunk it comes from in ``metadata``."""
    cited = {
        chunk_memory_id(event.user_id, event.document_id, event.submission, c.index): c
        for c in event.chunks
    }
    rows = []
    for fact in event.facts:
        row = derived_row(event.user_id, event.project_id, fact, position, DOCUMENT_CHANNEL)
        chunk = next((cited[m] for m in fact.source_memory_ids if m in cited), None)
        metadata: dict[str, object] = {"document_id": event.document_id, "title": event.title}
        if chunk is not None:
            metadata |= {
                "chunk": chunk.index,
                "page": chunk.page,
                "citation": citation(event.title, chunk.page, chunk.last_page, chunk.headings),
            }
        row["metadata"] = json.dumps(metadata, ensure_ascii=False, sort_keys=True)
        rows.append(row)
    return rows


def document_key(user_id: str, document_id: str) -> str:
    """The key of a document's row: its user's and its own id (a document id is the
    user's own name for it)."""
    return f"{user_id}|{document_id}"


def state_row(state: DocumentState) -> dict[str, Any]:
    """The ``documents`` row of ``state``."""
    return {
        "document_key": document_key(state.user_id, state.document_id),
        "user_id": state.user_id,
        "document_id": state.document_id,
        "project_id": state.project_id,
        "title": state.title,
        "media_type": state.media_type,
        "size": state.size,
        "checksum": state.checksum,
        "status": state.status,
        "submitted_at": state.submitted_at,
        "updated_at": state.updated_at,
        "submitted_event_id": state.submitted_event_id,
        "versions": list(state.versions),
        "tags": list(state.tags),
        "pages": state.pages,
        "total": state.total,
        "chunks": state.chunks,
        "parts": sorted(state.parts),
        "tries": state.tries,
        "error_class": state.error_class,
        "error_message": state.error_message,
        "fact_ids": list(state.fact_ids),
        "facts_error": state.facts_error,
        "retired_ids": list(state.retired_ids),
        "title_given": state.title_given,
    }


def state_from_row(row: Mapping[str, Any]) -> DocumentState:
    """The state a ``documents`` row holds."""
    return DocumentState(
        user_id=row["user_id"],
        document_id=row["document_id"],
        project_id=row["project_id"],
        title=row["title"],
        media_type=row["media_type"],
        size=row["size"],
        checksum=row["checksum"],
        status=row["status"],
        submitted_at=row["submitted_at"],
        updated_at=row["updated_at"],
        submitted_event_id=row["submitted_event_id"],
        versions=tuple(row["versions"] or ()),
        tags=tuple(row["tags"] or ()),
        pages=row["pages"] or 0,
        total=row["total"] or 0,
        chunks=row["chunks"] or 0,
        parts=frozenset(row["parts"] or ()),
        tries=row["tries"] or 0,
        error_class=row["error_class"],
        error_message=row["error_message"],
        fact_ids=tuple(row.get("fact_ids") or ()),
        facts_error=row.get("facts_error"),
        retired_ids=tuple(row.get("retired_ids") or ()),
        title_given=row.get("title_given") is not False,  # unknown: as it was given
    )


@dataclass
class DocumentChanges:
    """What a batch of document events changes: ``rows`` of ``documents`` (by key),
    the ``memories`` rows to insert (chunks and their facts), and the ``memory_state``
    changes retiring the chunks and facts of replaced versions (superseded by the new
    version's first chunk, kept as history as a superseded fact is) or of removed
    documents (forgotten)."""

    rows: dict[str, dict[str, Any]] = field(default_factory=dict)
    memories: list[dict[str, object]] = field(default_factory=list)
    states: list[StateChange] = field(default_factory=list)


def apply_documents(
    existing: Mapping[str, Mapping[str, Any]],
    events: Sequence[tuple[DocumentEvent, LogPosition]],
) -> DocumentChanges:
    """Fold ``events`` (in log order) into the documents' ``existing`` rows, by key."""
    changes = DocumentChanges()
    states: dict[str, DocumentState | None] = {
        key: state_from_row(row) for key, row in existing.items()
    }
    for event, position in events:
        key = document_key(event.user_id, event.document_id)
        before = states.get(key)
        after = fold_document(before, event)
        if after is None or after == before:
            continue
        states[key] = after
        changes.rows[key] = state_row(after)
        successor = chunk_memory_id(
            after.user_id, after.document_id, after.submitted_event_id or "", 0
        )
        changes.states.extend(
            StateChange(
                memory_id, event.user_id, valid_until=event.occurred_at, superseded_by=successor
            )
            for memory_id in superseded_memory_ids(before, after)
        )
        changes.states.extend(
            StateChange(
                memory_id, event.user_id, forgotten_at=event.occurred_at, forgotten_reason="removed"
            )
            for memory_id in removed_memory_ids(before, after)
        )
        if isinstance(event, DocumentChunked):
            changes.memories.extend(chunk_rows(event, position, after.submitted_event_id))
            changes.memories.extend(fact_rows(event, position))
    return changes
