"""What an operation can refuse, so every front door answers alike.

::

    OperationError                  the root: one line the user can act on
    ├── NotFound                    no such memory, entity or archived original (404)
    ├── NotAvailable                this deployment cannot do that here (501)
    ├── LessHistory                 the result would hold less history than there is (409)
    └── Unavailable                 the log cannot take events right now (503)
        ├── StorageFull             a disk is nearly full (507)
        └── Overloaded              as many searches as it can answer are under way (503)

Invalid input is :class:`memstream.events.errors.ProjectionError` (422), raised before
anything is read or published.
"""

from __future__ import annotations

from memstream.storage.errors import MemstreamError

__all__ = [
    "LessHistory",
    "NotAvailable",
    "NotFound",
    "OperationError",
    "Overloaded",
    "StorageFull",
    "Unavailable",
]


class OperationError(MemstreamError):
    """An operation could not be carried out; the message says why."""


class NotFound(OperationError, LookupError):
    """The user has no memory, entity or archived original by that name."""


class NotAvailable(OperationError):
    """This deployment has no part for that (no cold store, no lifecycle jobs)."""


class LessHistory(OperationError):
    """A replay's source, or a store to switch to, holds less of the history than the
    projections in use: going on would lose memories."""


class Unavailable(OperationError):
    """The event sink (the broker) cannot take events right now: try again shortly.

    Attributes:
        taken: of a publish refused part-way, the ids of the events that were taken all
            the same (durable: they will be applied); the others were not. Publishing
            them all again with the same event ids is safe either way.
    """

    #: seconds a caller should wait before trying again
    retry_after = 5

    def __init__(self, message: str = "", taken: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.taken = taken


class Overloaded(Unavailable):
    """The process answers as many searches as it can, and as many wait: try again."""

    retry_after = 1


class StorageFull(Unavailable):
    """A disk memstream writes to is nearly full: events are refused until space is freed."""
