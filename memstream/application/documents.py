"""Submitting documents and reading their status: what every front door shares.

:func:`submission` checks a document at the door (its size; its type, as its sender or
its name says, else as its bytes say, and bytes that contradict the type declared are
refused there, naming both; a name that is no identifier gives a safe document id) and
builds its ``DocumentSubmitted`` event;
the caller stores the original first, then publishes the event, so the documents lane
never reads a checksum whose bytes are not there. :func:`document_view` is the
status document the API, the CLI, the client and MCP answer with.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import PurePath
from typing import TYPE_CHECKING, Any, cast

from memstream.adapters.document_parsing import (
    DocumentUnreadable,
    UnsupportedMediaType,
    claimed_media_type,
    media_type_of,
    what_bytes_are,
)
from memstream.application.errors import OperationError
from memstream.events.errors import InvalidQuery
from memstream.events.vocabulary import DocumentSubmitted, MediaType
from memstream.policies.scope import (
    is_identifier,
    valid_identifier,
    valid_path_identifier,
    valid_tag,
)
from memstream.projections.documents import chunk_memory_id
from memstream.storage.document_originals import checksum_of

if TYPE_CHECKING:
    from memstream.storage.lance.store import ProjectionStore

#: The most chunk ids asked of the vectors table in one read.
_IDS_A_READ = 2_000

__all__ = [
    "DOCUMENT_DONE",
    "DocumentAccepted",
    "TooLarge",
    "UnsupportedDocument",
    "document_id_of",
    "document_view",
    "embedded_chunks",
    "received_view",
    "submission",
]

#: The statuses a document does not leave without a new version.
DOCUMENT_DONE = frozenset({"indexed", "empty", "failed", "removed"})


class TooLarge(OperationError):
    """A document over the size limit (413)."""


class UnsupportedDocument(OperationError):
    """A document of a type memstream does not read (415): the message names those it does."""


#: What a document id may not hold (see :func:`document_id_of`).
_NOT_IN_AN_ID = re.compile(r"[^A-Za-z0-9_.:@+-]+")


@dataclass(frozen=True)
class DocumentAccepted:
    """A document taken: its id, the version's checksum, and whether the version is
    new (False: the same bytes were submitted before, nothing was published)."""

    document_id: str
    checksum: str
    new: bool
    event_ids: list[str]
    #: where the submission was put in the log (None: nothing was published)
    token: str | None = None


def submission(
    user_id: str,
    data: bytes,
    now: datetime,
    *,
    max_bytes: int,
    name: str | None = None,
    media_type: str | None = None,
    title: str | None = None,
    document_id: str | None = None,
    project_id: str | None = None,
    tags: Sequence[str] = (),
) -> DocumentSubmitted:
    """The ``DocumentSubmitted`` event of ``data`` (the document id defaults to the
    file's name, the title to the name too, until the document, read, gives its own).

    Raises:
        TooLarge: over ``max_bytes``.
        UnsupportedDocument: not a type memstream reads.
        InvalidQuery: an identifier or tag that breaks the rules.
    """
    valid_identifier("user_id", user_id)
    if len(data) > max_bytes:
        raise TooLarge(f"the document is {len(data):,} bytes; the limit is {max_bytes:,}")
    try:
        media = claimed_media_type(data, name, media_type)
    except UnsupportedMediaType as exc:
        raise UnsupportedDocument(str(exc)) from None
    if data.strip():  # an empty one is empty, whatever it claims to be
        try:
            media_type_of(data, name, media_type)
        except (DocumentUnreadable, UnsupportedMediaType):
            raise InvalidQuery(
                f"file: declared {media}, but its bytes are {what_bytes_are(data)}"
            ) from None
    base = PurePath(name).name if name else None
    document_id = document_id or (document_id_of(base) if base else None)
    if not document_id:
        raise InvalidQuery("document_id: needed when the document has no file name")
    valid_path_identifier("document_id", document_id)
    if project_id is not None:
        valid_identifier("project_id", project_id)
    tags = [valid_tag("tags", tag).lower() for tag in tags]
    given = " ".join((title or "").split())[:500]
    title = given or " ".join((base or document_id).split())[:500]
    checksum = checksum_of(data)
    return DocumentSubmitted(
        # one id per submission: the same bytes again are refused before this when they
        # are the current version; submitted again after another version, they are new
        event_id=f"submitted:{document_id}:{checksum[:16]}:{now.strftime('%Y%m%dT%H%M%S.%fZ')}",
        user_id=user_id,
        project_id=project_id,
        document_id=document_id,
        title=title or document_id,
        title_given=bool(given),
        media_type=cast(MediaType, media),
        size=len(data),
        checksum=checksum,
        tags=tags,
        occurred_at=now,
    )


def document_id_of(name: str) -> str:
    """The document id a file's ``name`` gives when none is sent: the name itself when
    it keeps the identifier rule; else its letters in ASCII where they have a form
    there, ``-`` for the rest, and 8 hex digits of the name so that no two names meet
    (``my notes.md``: ``my-notes-1b2c3d4e.md``; ``契約.md``: ``document-5f6a7b8c.md``)."""
    if is_identifier(name) and name not in (".", ".."):
        return name
    path = PurePath(name)
    # a file type's ending, kept when it is one (short); a long "ending" is part of the name
    suffix = path.suffix if len(path.suffix) <= 16 and is_identifier(path.suffix) else ""
    stem = name[: len(name) - len(suffix)] if suffix else name
    ascii_letters = unicodedata.normalize("NFKD", stem).encode("ascii", "ignore").decode()
    slug = _NOT_IN_AN_ID.sub("-", ascii_letters).strip("-.")[:120]
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"{slug or 'document'}-{digest}{suffix}"


def document_view(row: Mapping[str, Any]) -> dict[str, Any]:
    """What a document's status says to a user (a ``documents`` row, presented)."""
    view: dict[str, Any] = {
        "document_id": row["document_id"],
        "user_id": row["user_id"],
        "project_id": row["project_id"],
        "title": row["title"],
        "media_type": row["media_type"],
        "size": row["size"],
        "status": row["status"],
        "version": len(row["versions"] or ()),
        "checksum": row["checksum"],
        "pages": row["pages"],
        "chunks": row["chunks"],
        "total_chunks": row["total"],
        "facts": len(row.get("fact_ids") or ()),
        "tags": list(row["tags"] or ()),
        "submitted_at": row["submitted_at"],
        "updated_at": row["updated_at"],
    }
    if row["status"] == "failed":
        view["error"] = {"class": row["error_class"], "message": row["error_message"]}
    if row.get("facts_error"):
        view["facts_error"] = row["facts_error"]
    if row["tries"]:
        view["tries"] = row["tries"]
    return view


def embedded_chunks(store: ProjectionStore, row: Mapping[str, Any]) -> int:
    """How many of the current version's chunks (a ``documents`` row's) have their
    vector: findable by meaning too, not only by their words."""
    from memstream.storage.lance.tables import VECTORS

    submission = row.get("submitted_event_id")
    if not submission or not row["chunks"]:
        return 0
    ids = [
        chunk_memory_id(row["user_id"], row["document_id"], submission, index)
        for index in range(row["total"] or row["chunks"])
    ]
    return sum(
        len(store.by_ids(VECTORS, ids[start : start + _IDS_A_READ], columns=["memory_id"]))
        for start in range(0, len(ids), _IDS_A_READ)
    )


def received_view(user_id: str, document_id: str, checksum: str) -> dict[str, Any]:
    """The status of a version accepted and not applied yet: ``received``."""
    return {
        "document_id": document_id,
        "user_id": user_id,
        "status": "received",
        "checksum": checksum,
        "chunks": 0,
        "total_chunks": 0,
    }
