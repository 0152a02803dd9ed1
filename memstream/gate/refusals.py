"""The HTTP status each refusal of the operations layer is answered with, at every door
(the API's error handlers, the console's pages, MCP's transport)."""

from __future__ import annotations

from memstream.application import (
    LessHistory,
    NotAvailable,
    NotFound,
    StorageFull,
    Unavailable,
)
from memstream.application.documents import TooLarge, UnsupportedDocument
from memstream.events.errors import ProjectionError
from memstream.tenancy.limits import RateLimited

__all__ = ["STATUS_OF", "status_of"]

#: The status each refusal of the operations layer is answered with.
STATUS_OF: tuple[tuple[type[Exception], int], ...] = (
    (ProjectionError, 422),
    (TooLarge, 413),
    (UnsupportedDocument, 415),
    (NotFound, 404),
    (NotAvailable, 501),
    (LessHistory, 409),
    (StorageFull, 507),
    (Unavailable, 503),
    (RateLimited, 429),
)


def status_of(exc: Exception) -> int | None:
    """The HTTP status a refusal of the operations layer is answered with (None: not
    one of them)."""
    return next((code for kind, code in STATUS_OF if isinstance(exc, kind)), None)
