"""Documents accepted and applied but never read, read after a restart.

The embedded broker keeps its log in memory: after a stop, a ``DocumentSubmitted`` the
projector applied (its document ``received``, or ``chunked`` part of the way) but the
documents lane had not read yet is no longer in any log, and the intake journal has let
it go (it was applied). The ``documents`` table still says so: each such row holds the
whole submission. At start, before the worker consumes, every one is published again
with its own event id, so the lane reads it (the projector takes the submission once; a
part read twice is taken once too).
"""

from __future__ import annotations

from typing import Any, cast

from memstream.projections.events import DocumentSubmitted, MediaType
from memstream.storage import filters
from memstream.storage.lance_store import ProjectionStore
from memstream.storage.lance_tables import DOCUMENTS
from memstream.streams.publisher import Publisher
from memstream.streams.sealing import RecordKeys

__all__ = ["UNREAD", "publish_unread", "unread_submissions"]

#: The statuses of a document whose reading did not finish.
UNREAD = ("received", "chunked")


def unread_submissions(store: ProjectionStore) -> list[DocumentSubmitted]:
    """The submission of every document whose reading did not finish, oldest first."""
    rows = store.scan(DOCUMENTS, where=filters.is_in("status", UNREAD)).to_pylist()
    rows.sort(key=lambda r: (r["submitted_at"], r["document_key"]))
    return [_submission(row) for row in rows if row["submitted_event_id"]]


def _submission(row: dict[str, Any]) -> DocumentSubmitted:
    return DocumentSubmitted(
        event_id=row["submitted_event_id"],
        user_id=row["user_id"],
        project_id=row["project_id"],
        document_id=row["document_id"],
        title=row["title"],
        media_type=cast(MediaType, row["media_type"]),
        size=row["size"],
        checksum=row["checksum"],
        tags=list(row["tags"] or ()),
        occurred_at=row["submitted_at"],
    )


async def publish_unread(bootstrap: str, store: ProjectionStore, keys: RecordKeys | None) -> int:
    """Publish again the submission of every document whose reading did not finish;
    answers how many."""
    submissions = unread_submissions(store)
    if submissions:
        async with Publisher(bootstrap, keys=keys) as publisher:
            await publisher.publish(submissions)
    return len(submissions)
