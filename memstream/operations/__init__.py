"""The operations layer: every use case of memstream, called alike by each front door.

Build one :class:`Operations` from settings (with the event sink and the clock), call its
methods, render what they answer. :mod:`memstream.operations.errors` says what they can
refuse.
"""

from memstream.operations.application import Operations
from memstream.operations.errors import (
    NotAvailable,
    NotFound,
    OperationError,
    Overloaded,
    StorageFull,
    Unavailable,
)
from memstream.operations.intake import InvalidEvents, accepted_event
from memstream.operations.results import (
    Accepted,
    ArchiveReport,
    ContextBlock,
    Expanded,
    JobReport,
)
from memstream.operations.sinks import BrokerSink, DrainState, EventSink
from memstream.operations.stores import open_store, state_digest

__all__ = [
    "Accepted",
    "ArchiveReport",
    "BrokerSink",
    "ContextBlock",
    "DrainState",
    "EventSink",
    "Expanded",
    "InvalidEvents",
    "JobReport",
    "NotAvailable",
    "NotFound",
    "OperationError",
    "Operations",
    "Overloaded",
    "StorageFull",
    "Unavailable",
    "accepted_event",
    "open_store",
    "state_digest",
]
