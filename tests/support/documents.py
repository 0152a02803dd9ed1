"""Documents as the document tests build them: a submission of some bytes at a fixed time."""

from __future__ import annotations

from datetime import UTC, datetime

from memstream.events.vocabulary import (
    DocumentSubmitted,
)
from memstream.storage.document_originals import checksum_of

__all__ = ["T0", "submitted"]


T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


def submitted(data: bytes, media_type: str = "text/markdown", **fields: str) -> DocumentSubmitted:
    return DocumentSubmitted(
        event_id=fields.get("event_id", f"submit-{checksum_of(data)[:12]}"),
        user_id=fields.get("user_id", "ana"),
        document_id=fields.get("document_id", "lease"),
        title=fields.get("title", "Lease"),
        media_type=media_type,  # type: ignore[arg-type]
        size=len(data),
        checksum=checksum_of(data),
        occurred_at=T0,
    )
