"""What the documents lane makes of a submitted document: its chunks, or why not.

:func:`read_submission` takes a ``DocumentSubmitted`` event, reads the version's
original bytes (``read``), parses them, cuts them into chunks and returns the events to
publish: ``DocumentChunked`` parts of at most ``CHUNKS_PER_EVENT`` chunks (one part with
no chunk for a document without text), or one ``DocumentFailed``. A parse error is final
at once (the same bytes fail the same way every time, so retrying cannot help and must
not block what comes after); a missing original is tried again ``tries`` times, then
final. The event ids are made from the document, the version and the part, so a
submission read twice (a lane that died before its offset was committed) publishes the
same events, which the projector takes once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import cast

from memstream.models.document_parsing import (
    DocumentUnreadable,
    UnsupportedMediaType,
    parse_document,
)
from memstream.projections.chunks import chunk_blocks
from memstream.projections.events import (
    CHUNKS_PER_EVENT,
    DocumentChunk,
    DocumentChunked,
    DocumentErrorClass,
    DocumentFailed,
    DocumentSubmitted,
)
from memstream.storage.document_originals import OriginalMissing

__all__ = ["ReadLimits", "read_submission"]


@dataclass(frozen=True)
class ReadLimits:
    """How far the lane reads: ``max_pages`` of a PDF, chunks of ``target`` tokens
    with ``overlap``, and ``tries`` reads of a missing original before giving up."""

    max_pages: int = 2000
    target: int = 400
    overlap: int = 40
    tries: int = 3


def read_submission(
    event: DocumentSubmitted,
    read: Callable[[str, str], bytes],
    count: Callable[[str], int],
    now: datetime,
    limits: ReadLimits | None = None,
    attempt: int = 1,
) -> list[DocumentChunked | DocumentFailed]:
    """The events that say what version ``event.checksum`` of the document holds
    (``read(user_id, checksum)`` gives its bytes; ``count`` counts tokens)."""
    limits = limits or ReadLimits()
    try:
        data = read(event.user_id, event.checksum)
    except OriginalMissing as exc:
        return [_failed(event, "missing", str(exc), attempt, attempt >= limits.tries, now)]
    try:
        parsed = parse_document(data, event.media_type, max_pages=limits.max_pages)
    except DocumentUnreadable as exc:
        return [
            _failed(event, cast(DocumentErrorClass, exc.error_class), str(exc), attempt, True, now)
        ]
    except UnsupportedMediaType as exc:
        return [_failed(event, "mismatched", str(exc), attempt, True, now)]
    chunks = chunk_blocks(parsed.blocks, count, target=limits.target, overlap=limits.overlap)
    title = event.title
    firsts = list(range(0, len(chunks), CHUNKS_PER_EVENT)) or [0]  # no text: one empty part
    parts = [chunks[i : i + CHUNKS_PER_EVENT] for i in range(0, len(chunks), CHUNKS_PER_EVENT)]
    return [
        DocumentChunked(
            event_id=f"chunked:{event.event_id}:{first}",
            user_id=event.user_id,
            project_id=event.project_id,
            document_id=event.document_id,
            checksum=event.checksum,
            submission=event.event_id,
            title=title,
            pages=parsed.pages,
            first=first,
            total=len(chunks),
            chunks=[
                DocumentChunk(
                    index=c.index,
                    text=c.text,
                    page=c.page,
                    last_page=c.last_page,
                    headings=list(c.headings),
                    start=c.start,
                    end=c.end,
                    tokens=c.tokens,
                )
                for c in part
            ],
            occurred_at=event.occurred_at,
        )
        for first, part in zip(firsts, parts or [[]], strict=True)
    ]


def _failed(
    event: DocumentSubmitted,
    error_class: DocumentErrorClass,
    message: str,
    attempt: int,
    final: bool,
    now: datetime,
) -> DocumentFailed:
    return DocumentFailed(
        event_id=f"failed:{event.event_id}:{attempt}",
        user_id=event.user_id,
        document_id=event.document_id,
        checksum=event.checksum,
        error_class=error_class,
        message=message[:2000],
        attempt=attempt,
        final=final,
        occurred_at=now,
    )
