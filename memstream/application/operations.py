"""The operations layer: each use case of memstream as one method of :class:`Operations`,
the one façade over the use-case modules.

The CLI, the HTTP API (and every front door to come) parse their input, call one of
these methods and render what it answers; none of them opens a store, builds an event or
publishes on its own. An ``Operations`` is built once from settings, with the event sink
and the clock passed in; the store, the embedder and the lifecycle parts are opened on
first use, so ``publish`` never loads a model and a search never waits for the broker.

Methods are coroutines (blocking store reads run in a thread), so an asyncio server calls
them directly and the CLI runs each in ``asyncio.run``.
"""

from __future__ import annotations

from memstream.application.changing import MemoryChanges
from memstream.application.document_cases import DocumentCases
from memstream.application.observing import Observing
from memstream.application.reading import MemoryReads
from memstream.application.rebuilding import Rebuilding
from memstream.application.upkeep import Upkeep

__all__ = ["Operations"]


class Operations(MemoryReads, MemoryChanges, DocumentCases, Upkeep, Rebuilding, Observing):
    """Every use case of memstream, over one data location (see the module docstring).

    Args:
        settings: the deployment's settings.
        sink: where events are published (default: a :class:`BrokerSink` for settings).
        clock: the current time, for commands, access reports and jobs without ``now``.
        store: the projections (default: the data folder's, opened on first use).
        read_consistency_seconds: how stale a long-lived reader's view may get.
    """
