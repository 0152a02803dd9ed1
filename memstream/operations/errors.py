"""What an operation can refuse, so every front door answers alike.

::

    OperationError                  the root: one line the user can act on
    ├── NotFound                    no such memory, entity or archived original (404)
    ├── NotAvailable                this deployment cannot do that here (501)
    └── Unavailable                 the log cannot take events right now (503)
        └── StorageFull             a disk is nearly full (507)

Invalid input is :class:`projections.errors.ProjectionError` (422), raised before
anything is read or published.
"""

from __future__ import annotations

__all__ = ["NotAvailable", "NotFound", "OperationError", "StorageFull", "Unavailable"]


class OperationError(Exception):
    """An operation could not be carried out; the message says why."""


class NotFound(OperationError, LookupError):
    """The user has no memory, entity or archived original by that name."""


class NotAvailable(OperationError):
    """This deployment has no part for that (no cold store, no lifecycle jobs)."""


class Unavailable(OperationError):
    """The event sink (the broker) cannot take events right now: try again shortly."""


class StorageFull(Unavailable):
    """A disk memstream writes to is nearly full: events are refused until space is freed."""
