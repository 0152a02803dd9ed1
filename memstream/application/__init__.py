"""The operations layer: every use case of memstream, called alike by each front door.

Build one :class:`Operations` from settings (with the event sink and the clock), call a
use case of one of its groups (``ops.reads.search``, ``ops.changes.remember``,
``ops.documents.add``, ``ops.upkeep.erase``…), render what it answers.
:mod:`memstream.application.errors` says what they can refuse.

Names are imported from their modules when first used: a command that only publishes,
or only talks to a running server, never loads the store or the model.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memstream.application.errors import (
        LessHistory,
        NotAvailable,
        NotFound,
        OperationError,
        Overloaded,
        StorageFull,
        Unavailable,
    )
    from memstream.application.intake import InvalidEvents, accepted_event
    from memstream.application.operations import Operations
    from memstream.application.read_after_write import NotYetApplied
    from memstream.application.results import (
        Accepted,
        ArchiveReport,
        ContextBlock,
        Expanded,
        JobReport,
    )
    from memstream.application.sinks import BrokerSink, DrainState, EventSink
    from memstream.application.stores import open_store, state_digest

#: The module that defines each name of ``__all__``.
_HOMES = {
    "Operations": "operations",
    "LessHistory": "errors",
    "NotAvailable": "errors",
    "NotFound": "errors",
    "OperationError": "errors",
    "Overloaded": "errors",
    "StorageFull": "errors",
    "Unavailable": "errors",
    "NotYetApplied": "read_after_write",
    "InvalidEvents": "intake",
    "accepted_event": "intake",
    "Accepted": "results",
    "ArchiveReport": "results",
    "ContextBlock": "results",
    "Expanded": "results",
    "JobReport": "results",
    "BrokerSink": "sinks",
    "DrainState": "sinks",
    "EventSink": "sinks",
    "open_store": "stores",
    "state_digest": "stores",
}

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
    "LessHistory",
    "NotAvailable",
    "NotFound",
    "NotYetApplied",
    "OperationError",
    "Operations",
    "Overloaded",
    "StorageFull",
    "Unavailable",
    "accepted_event",
    "open_store",
    "state_digest",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value
