"""What every use case of memstream shares: :class:`Parts` (the settings, the event
sink, the clock, and the parts opened on first use: the store, the embedder, the
language model, the searcher, the lifecycle jobs, the archiver, the audit log) and
:class:`UseCase`, the base of each group of use cases over them (:mod:`.reading`,
:mod:`.changing`, :mod:`.document_cases`, :mod:`.upkeep`, :mod:`.rebuilding`,
:mod:`.observing`). :class:`~memstream.application.operations.Operations` builds one
``Parts`` and one object of each group over it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any, Literal, TypeVar

from memstream.adapters.embedders import Embedder
from memstream.adapters.language_models import JsonModel
from memstream.application.callers import Caller
from memstream.application.sinks import BrokerSink, EventSink
from memstream.application.stores import open_store
from memstream.clock import Clock, system_clock
from memstream.events.errors import InvalidQuery
from memstream.events.short_ids import looks_short, prefix_range
from memstream.jobs.archiver import Archiver
from memstream.jobs.lifecycle import LifecycleJobs
from memstream.policies.limits import MAX_LISTED
from memstream.policies.scope import valid_identifier
from memstream.queries.search.searcher import Searcher
from memstream.runtime import assembly as components
from memstream.settings import Settings
from memstream.storage.filters import all_of as filters_all_of
from memstream.storage.filters import equals, literal
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.lance.tables import ARCHIVE_INDEX, MEMORIES
from memstream.tenancy.audit import AuditLog

__all__ = [
    "ACCESS_REPORT_SECONDS",
    "MAX_LISTED",
    "UNKNOWN_DOCUMENT_WAIT",
    "Job",
    "LogEnd",
    "OverParts",
    "Parts",
    "UseCase",
    "check_owner",
    "in_thread",
]

log = logging.getLogger(__name__)

#: How long a search's access report may take before it is given up (best effort).
ACCESS_REPORT_SECONDS = 5.0

Job = Literal["consolidate", "decay", "reflect"]
#: The log's end offsets per (topic, partition) and its epoch, or (None, None) when the
#: broker cannot be reached.
LogEnd = tuple[dict[tuple[str, int], int] | None, str | None]
_T = TypeVar("_T")

#: Seconds a wait for a document no one has seen gives it to appear (just submitted).
UNKNOWN_DOCUMENT_WAIT = 5.0


async def in_thread(call: Callable[..., _T], *args: Any) -> _T:
    """``call(*args)`` run in a thread (the store's calls block)."""
    return await asyncio.to_thread(call, *args)


class Parts:
    """The parts every use case shares, over one data location, each opened on first use
    (the arguments are :class:`~memstream.application.operations.Operations`'s).

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
        self.settings = settings
        self.sink: EventSink = sink if sink is not None else BrokerSink(settings)
        self.clock = clock
        self.read_consistency = read_consistency_seconds
        self._store = store
        self._embedder: Embedder | None = None
        self._embedder_loaded = False
        self._model: JsonModel | None = None
        self._model_loaded = False
        self._searcher: Searcher | None = None
        self._audit_log: AuditLog | None = None

    @property
    def audit_log(self) -> AuditLog:
        if self._audit_log is None:
            self._audit_log = AuditLog(self.settings.log_dir)
        return self._audit_log

    @property
    def store(self) -> ProjectionStore:
        if self._store is None:
            self._store = open_store(self.settings, self.read_consistency)
        return self._store

    @property
    def opened_store(self) -> ProjectionStore | None:
        """The store if it was opened (None: nothing has read it yet)."""
        return self._store

    @property
    def embedder(self) -> Embedder | None:
        if not self._embedder_loaded:
            self._embedder = components.make_embedder(self.settings)
            self._embedder_loaded = True
        return self._embedder

    @property
    def model(self) -> JsonModel | None:
        if not self._model_loaded:
            self._model = components.make_model(self.settings)
            self._model_loaded = True
        return self._model

    @property
    def searcher(self) -> Searcher:
        if self._searcher is None:
            self._searcher = components.make_searcher(
                self.settings,
                self.store,
                components.make_embedder(
                    self.settings, 1, self.settings.query_embed_threads, queries=True
                ),
                self.clock,
                stale_seconds=self.read_consistency or 0.0,
            )
        return self._searcher

    @property
    def opened_searcher(self) -> Searcher | None:
        """The searcher if one was made (None: nothing has searched yet)."""
        return self._searcher

    def lifecycle(self) -> LifecycleJobs:
        return components.make_lifecycle(self.settings, self.store, self.model)

    def archiver(self, summarizing: bool = False) -> Archiver:
        """Expansion and restore; with ``summarizing``, the archive job's summarizer and
        embedder too."""
        if not summarizing:
            return components.make_archiver(self.settings, self.store)
        return components.make_archiver(self.settings, self.store, self.embedder, self.model)


class OverParts:
    """Something built over the shared :class:`Parts`, reaching the settings, the sink,
    the clock and the store through them."""

    def __init__(self, parts: Parts) -> None:
        self.parts = parts

    @property
    def settings(self) -> Settings:
        return self.parts.settings

    @property
    def sink(self) -> EventSink:
        return self.parts.sink

    @property
    def clock(self) -> Clock:
        return self.parts.clock

    @property
    def store(self) -> ProjectionStore:
        """The projections (opened now if nothing opened them yet)."""
        return self.parts.store


class UseCase(OverParts):
    """One group of use cases over the shared :class:`Parts`: besides what
    :class:`OverParts` reaches, a blocking call run in a thread, an audit line for a
    change, and a memory's full id from its short form."""

    def _audited(
        self, caller: Caller, operation: str, user_id: str, status: int, **detail: str | int
    ) -> None:
        """One audit line for a change ``caller`` made (see :mod:`.callers`)."""
        self.parts.audit_log.record(
            operation,
            key_id=caller.key_id,
            tenant=caller.tenant,
            user_id=user_id,
            status=status,
            detail={"door": caller.door, **detail},
        )

    _blocking = staticmethod(in_thread)

    async def _memory_named(self, user_id: str, memory_id: str) -> str:
        """The full id of the user's memory ``memory_id`` names: the id itself, or the one
        id of theirs (hot or archived) its short form begins
        (:mod:`memstream.events.short_ids`).

        Raises:
            InvalidQuery: a malformed id, or a short form that begins several ids.
        """
        check_owner(user_id, memory_id)
        if not looks_short(memory_id):
            return memory_id
        found = await self._blocking(self._ids_beginning, user_id, memory_id)
        if memory_id in found or not found:
            return memory_id
        if len(found) > 1:
            named = ", ".join(sorted(found)[:3])
            raise InvalidQuery(
                f"memory_id: {memory_id} begins {len(found)} memories of {user_id} ({named}"
                f"{', …' if len(found) > 3 else ''}): give more of it"
            )
        return found.pop()

    def _ids_beginning(self, user_id: str, prefix: str) -> set[str]:
        low, high = prefix_range(prefix)
        within = f"memory_id >= {literal(low)} AND memory_id < {literal(high)}"
        mine = filters_all_of(equals("user_id", user_id), within)
        found: set[str] = set()
        for table in (MEMORIES, ARCHIVE_INDEX):
            found.update(
                self.store.scan(table, ["memory_id"], mine).column("memory_id").to_pylist()
            )
        return found


def check_owner(user_id: str, memory_id: str) -> None:
    valid_identifier("user_id", user_id)
    valid_identifier("memory_id", memory_id)


#: A search's phases, in order, and the stages that run side by side within each (see
#: ``Searcher.search``).
SEARCH_PHASES = {
    "retrieve": ("view", "embed", "full_text", "archived_text", "vectors", "entities"),
    "look_up": ("rows", "access", "state"),
    "rank": (),
}
