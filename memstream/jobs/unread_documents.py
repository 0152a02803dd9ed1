"""Documents accepted and applied but not read: found in the documents table.

The documents lane takes a submission off the log as soon as it is queued, so what it
has not read when it stops (or loses a partition) is in no log it will read again; with
the embedded broker the whole log is gone after a stop, and the intake journal has let
the submission go once it was applied. The ``documents`` table still says so: each
row ``received`` (or ``chunked`` part of the way) holds the whole submission. The lane
sweeps these rows for the partitions it owns, at start and every few seconds after, and
reads each one it does not hold already (see :mod:`memstream.jobs.document_queue`),
so after any stop, crash or rebalance every applied submission is read.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any, cast

from memstream.events.vocabulary import DocumentSubmitted, MediaType
from memstream.storage import filters
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.lance.tables import DOCUMENTS
from memstream.streams.partitioning import partition_of

__all__ = ["UNREAD", "unread_submissions"]

#: The statuses of a document whose reading did not finish.
UNREAD = ("received", "chunked")


def unread_submissions(
    store: ProjectionStore,
    partitions: Collection[int] | None = None,
    count: int = 1,
) -> list[DocumentSubmitted]:
    """The submission of every document whose reading did not finish, oldest first;
    with ``partitions``, only of the users those of ``count`` partitions hold."""
    rows = store.scan(DOCUMENTS, where=filters.is_in("status", UNREAD)).to_pylist()
    if partitions is not None:
        owned = set(partitions)
        rows = [r for r in rows if partition_of(r["user_id"], count) in owned]
    rows.sort(key=lambda r: (r["submitted_at"], r["document_key"]))
    return [_submission(row) for row in rows if row["submitted_event_id"]]


def _submission(row: dict[str, Any]) -> DocumentSubmitted:
    return DocumentSubmitted(
        event_id=row["submitted_event_id"],
        user_id=row["user_id"],
        project_id=row["project_id"],
        document_id=row["document_id"],
        title=row["title"],
        title_given=row.get("title_given") is not False,
        media_type=cast(MediaType, row["media_type"]),
        size=row["size"],
        checksum=row["checksum"],
        tags=list(row["tags"] or ()),
        occurred_at=row["submitted_at"],
    )
