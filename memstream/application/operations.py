"""The operations layer's façade: one :class:`Operations` per process, holding one object
per group of use cases over one set of shared parts.

The CLI, the HTTP API, MCP and the console (and every front door to come) parse their
input, call one use case and render what it answers; none of them opens a store, builds
an event or publishes on its own:

- ``ops.reads``: search, a memory and its history, an entity, a context block, the
  playground, explanations, a page of memories, users, statistics, freshness, the
  write-token wait and the log of what was served (:mod:`.reading`);
- ``ops.changes``: publishing events, remember, correct, confirm, forget
  (:mod:`.changing`);
- ``ops.documents``: adding, reading the status of, listing and removing documents
  (:mod:`.document_cases`);
- ``ops.upkeep``: erasure, expanding and restoring archived memories, the lifecycle
  jobs and the archive (:mod:`.upkeep`);
- ``ops.rebuilding``: export, import, replay, re-embedding and switching data folders
  (:mod:`.rebuilding`);
- ``ops.observing`` and ``ops.health``: the console's reads and the health page's
  figures (:mod:`.observing`, :mod:`.health_figures`).

An ``Operations`` is built once from settings, with the event sink and the clock passed
in; the store, the embedder and the lifecycle parts are opened on first use
(:class:`~memstream.application.core.Parts`), so a publish never loads a model and a
search never waits for the broker. Use cases are coroutines (blocking store reads run in
a thread), so an asyncio server awaits them and the CLI runs each in ``asyncio.run``.
"""

from __future__ import annotations

from functools import cached_property

from memstream.application.changing import MemoryChanges
from memstream.application.core import OverParts, Parts, in_thread
from memstream.application.document_cases import DocumentCases
from memstream.application.health_figures import HealthFigures
from memstream.application.observing import Observing
from memstream.application.reading import MemoryReads
from memstream.application.rebuilding import Rebuilding
from memstream.application.sinks import EventSink
from memstream.application.upkeep import Upkeep
from memstream.clock import Clock, system_clock
from memstream.settings import Settings
from memstream.storage.lance.store import ProjectionStore

__all__ = ["Operations"]


class Operations(OverParts):
    """Every use case of memstream, over one data location (see the module docstring).

    Args:
        settings: the deployment's settings.
        sink: where events are published (default: a :class:`BrokerSink` for settings).
        clock: the current time, for commands, access reports and jobs without ``now``.
        store: the projections (default: the data folder's, opened on first use).
        read_consistency_seconds: how stale a long-lived reader's view may get.
    """

    def __init__(
        self,
        settings: Settings,
        *,
        sink: EventSink | None = None,
        clock: Clock = system_clock,
        store: ProjectionStore | None = None,
        read_consistency_seconds: float | None = None,
    ) -> None:
        super().__init__(
            Parts(
                settings,
                sink=sink,
                clock=clock,
                store=store,
                read_consistency_seconds=read_consistency_seconds,
            )
        )
        self.reads = MemoryReads(self.parts)
        self.changes = MemoryChanges(self.parts)
        self.documents = DocumentCases(self.parts, self.reads)
        self.upkeep = Upkeep(self.parts, self.reads)
        self.rebuilding = Rebuilding(self.parts)
        self.observing = Observing(self.parts)

    @cached_property
    def health(self) -> HealthFigures:
        """The figures of the deployment's health page (the console's)."""
        return HealthFigures(self.parts.store, self.parts.settings, in_thread)

    async def close(self) -> None:
        """Wait (briefly) for reports still on their way to the log, then close the
        sink."""
        await self.reads.settle()
        await self.parts.sink.close()
