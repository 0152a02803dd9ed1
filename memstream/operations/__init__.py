"""The operations layer: every use case of memstream, called alike by each front door.

Build one :class:`Operations` from settings (with the event sink and the clock), call its
methods, render what they answer. :mod:`memstream.operations.errors` says what they can
refuse.
"""

from memstream.operations.application import (
    Accepted,
    ArchiveReport,
    Expanded,
    InvalidEvents,
    JobReport,
    Operations,
    accepted_event,
    open_store,
    state_digest,
)
from memstream.operations.errors import (
    NotAvailable,
    NotFound,
    OperationError,
    StorageFull,
    Unavailable,
)
from memstream.operations.sinks import BrokerSink, DrainState, EventSink

__all__ = [
    "Accepted",
    "ArchiveReport",
    "BrokerSink",
    "DrainState",
    "EventSink",
    "Expanded",
    "InvalidEvents",
    "JobReport",
    "NotAvailable",
    "NotFound",
    "OperationError",
    "Operations",
    "StorageFull",
    "Unavailable",
    "accepted_event",
    "open_store",
    "state_digest",
]
