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

Each part carries the facts the extractor (the worker's: local rules, or a language
model) derived from its chunks, each citing its chunk, so replay never extracts again.
A model that fails leaves the part's facts empty and says why (``facts_error``): the
chunks are indexed all the same.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, cast

from memstream.adapters.document_parsing import (
    DocumentUnreadable,
    UnsupportedMediaType,
    parse_document,
)
from memstream.adapters.language_models import ModelError
from memstream.events.identifier_rules import derived_memory_id
from memstream.events.vocabulary import (
    CHUNKS_PER_EVENT,
    DerivedMemory,
    DocumentChunk,
    DocumentChunked,
    DocumentErrorClass,
    DocumentFailed,
    DocumentSubmitted,
    TokenUsage,
)
from memstream.projections.documents import chunk_memory_id
from memstream.storage.document_originals import OriginalMissing
from memstream.text.chunks import Chunk, chunk_blocks
from memstream.text.extractor import Turn

if TYPE_CHECKING:
    from memstream.jobs.lifecycle import Extractor

__all__ = [
    "ReadLimits",
    "chunked_submission",
    "document_facts",
    "lane_died",
    "lane_ready",
    "missing_original",
    "parser_failed",
    "read_submission",
    "read_timed_out",
    "with_facts",
]

#: The most facts one part carries (``DocumentChunked.facts``).
_FACTS_PER_PART = 500


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
    extractor: Extractor | None = None,
) -> list[DocumentChunked | DocumentFailed]:
    """The events that say what version ``event.checksum`` of the document holds
    (``read(user_id, checksum)`` gives its bytes; ``count`` counts tokens), with the
    facts ``extractor`` derives from its chunks (none without one)."""
    limits = limits or ReadLimits()
    try:
        data = read(event.user_id, event.checksum)
    except OriginalMissing as exc:
        return [missing_original(event, str(exc), now, limits, attempt)]
    return chunked_submission(event, data, count, now, limits, attempt, extractor)


def missing_original(
    event: DocumentSubmitted, message: str, now: datetime, limits: ReadLimits, attempt: int
) -> DocumentFailed:
    """The failure of try ``attempt`` to read a missing original (final at the last)."""
    return _failed(event, "missing", message, attempt, attempt >= limits.tries, now)


def parser_failed(
    event: DocumentSubmitted, exc: BaseException, now: datetime, attempt: int
) -> DocumentFailed:
    """The final failure of a document a parser raised an error of its own on (one no
    rule of memstream's foresaw), named by its class: ``too_complex`` where the parser
    refused the document's structure (XML entities that amplify, nesting), else
    ``corrupt``. The message names the error's class, never its text: a parser's
    message may quote the document, and what is shown of a failure never does."""
    text = str(exc)[:500].lower()
    complex_ = any(w in text for w in ("amplification", "recursion", "too deep"))
    error_class: DocumentErrorClass = "too_complex" if complex_ else "corrupt"
    reason = "its structure is too deep or amplifies" if complex_ else "the parser failed on it"
    message = f"the document cannot be read: {reason} ({type(exc).__name__})"
    return _failed(event, error_class, message, attempt, True, now)


def lane_died(event: DocumentSubmitted, now: datetime, attempt: int) -> DocumentFailed:
    """The final failure of a document whose reading killed the process reading it (a
    parser that crashed on it, or memory it exhausted): reading it again would too."""
    message = "reading the document stopped the process reading it (a parser crash or no memory)"
    return _failed(event, "corrupt", message, attempt, True, now)


def read_timed_out(
    event: DocumentSubmitted, seconds: float, now: datetime, attempt: int
) -> DocumentFailed:
    """The final failure of a document whose reading took longer than ``seconds``
    (its structure costs more than a document may: reading it again would too)."""
    message = f"reading the document took longer than {seconds:g} s, the limit"
    return _failed(event, "too_complex", message, attempt, True, now)


def lane_ready() -> None:
    """Nothing: run on a lane just started, so its start (the process, the imports of
    this module) is not counted in the time of the first document it reads."""


def chunked_submission(
    event: DocumentSubmitted,
    data: bytes,
    count: Callable[[str], int],
    now: datetime,
    limits: ReadLimits,
    attempt: int = 1,
    extractor: Extractor | None = None,
) -> list[DocumentChunked | DocumentFailed]:
    """What :func:`read_submission` makes of the original's bytes ``data`` (all of its
    work but the read: what the documents lane runs in a process of its own)."""
    try:
        parsed = parse_document(data, event.media_type, max_pages=limits.max_pages)
    except DocumentUnreadable as exc:
        return [
            _failed(event, cast(DocumentErrorClass, exc.error_class), str(exc), attempt, True, now)
        ]
    except UnsupportedMediaType as exc:
        return [_failed(event, "mismatched", str(exc), attempt, True, now)]
    except MemoryError:
        message = "reading the document took more memory than a document may"
        return [_failed(event, "too_large", message, attempt, True, now)]
    except Exception as exc:  # any parser's own error: the same bytes fail the same way
        return [parser_failed(event, exc, now, attempt)]
    chunks = chunk_blocks(parsed.blocks, count, target=limits.target, overlap=limits.overlap)
    firsts = list(range(0, len(chunks), CHUNKS_PER_EVENT)) or [0]  # no text: one empty part
    parts = [chunks[i : i + CHUNKS_PER_EVENT] for i in range(0, len(chunks), CHUNKS_PER_EVENT)]
    own = " ".join((parsed.title or "")[:2000].split())[:500]
    if not event.title_given and own:  # the document's own, for its file name
        event = event.model_copy(update={"title": own})
    return [
        _part(event, first, part, len(chunks), parsed.pages, extractor)
        for first, part in zip(firsts, parts or [[]], strict=True)
    ]


def _part(
    event: DocumentSubmitted,
    first: int,
    part: list[Chunk],
    total: int,
    pages: int,
    extractor: Extractor | None,
) -> DocumentChunked:
    event_id = f"chunked:{event.event_id}:{first}"
    facts: list[DerivedMemory] = []
    usage: TokenUsage | None = None
    error: str | None = None
    if extractor is not None and part:
        texts = [(c.index, c.text) for c in part]
        facts, usage, error = document_facts(event, event_id, texts, extractor)
    return DocumentChunked(
        event_id=event_id,
        user_id=event.user_id,
        project_id=event.project_id,
        document_id=event.document_id,
        checksum=event.checksum,
        submission=event.event_id,
        title=event.title,
        pages=pages,
        first=first,
        total=total,
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
        extractor=extractor.name if extractor is not None else None,
        facts=facts,
        facts_error=error,
        usage=usage,
        occurred_at=event.occurred_at,
    )


def with_facts(
    event: DocumentSubmitted, part: DocumentChunked, extractor: Extractor
) -> DocumentChunked:
    """``part`` with the facts ``extractor`` derives from its chunks (for a part made
    without an extractor: a language model is called from the worker, not the lane's
    process)."""
    if not part.chunks:
        return part
    texts = [(c.index, c.text) for c in part.chunks]
    facts, usage, error = document_facts(event, part.event_id, texts, extractor)
    return part.model_copy(
        update={"extractor": extractor.name, "facts": facts, "facts_error": error, "usage": usage}
    )


def document_facts(
    event: DocumentSubmitted,
    part_event_id: str,
    texts: Sequence[tuple[int, str]],
    extractor: Extractor,
) -> tuple[list[DerivedMemory], TokenUsage | None, str | None]:
    """The facts ``extractor`` derives from a part's chunks (``texts``: index and
    text), a ``document``'s turns (its "I" is the user who added it, but nothing it
    says of itself becomes a statement of the user's): each names the chunk it comes from
    (``source_memory_ids``) and the events that brought it, with an id of the
    document's version. Or why there are none."""
    chunk_ids = {
        chunk_memory_id(event.user_id, event.document_id, event.event_id, index): text
        for index, text in texts
    }
    turns = [
        Turn(
            event_id=chunk_id,
            speaker=None,
            role="document",
            content=text,
            occurred_at=event.occurred_at,
        )
        for chunk_id, text in chunk_ids.items()
    ]
    try:
        found, usage = extractor.extract(event.user_id, event.document_id, turns)
    except ModelError as exc:
        return [], None, f"the extractor failed: {exc}"[:2000]
    facts = [
        memory.model_copy(
            update={
                "memory_id": derived_memory_id(
                    "docfact", event.user_id, event.document_id, event.event_id, memory.memory_id
                ),
                "session_id": None,
                "source_memory_ids": [m for m in memory.source_event_ids if m in chunk_ids],
                "source_event_ids": [event.event_id, part_event_id],
            }
        )
        for memory in found[:_FACTS_PER_PART]
    ]
    return facts, usage, None


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
