"""What every use case of memstream shares: the settings, the event sink, the clock,
the parts opened on first use (the store, the embedder, the language model, the
searcher, the lifecycle jobs, the archiver), the audit log, and running a blocking
call in a thread. The use cases are mixins over this core (:mod:`.reading`,
:mod:`.changing`, :mod:`.document_cases`, :mod:`.upkeep`, :mod:`.rebuilding`);
:class:`~memstream.application.operations.Operations` is their one façade.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any, Literal, TypeVar

from memstream.adapters.embedders import Embedder
from memstream.adapters.language_models import JsonModel
from memstream.application.admission import ReadAdmission
from memstream.application.callers import Caller
from memstream.application.freshness_gauge import FreshnessGauge
from memstream.application.past_views import PastViews
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
    "OperationsCore",
    "check_owner",
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


class OperationsCore:
    """The state every use case shares, over one data location (the arguments are
    :class:`~memstream.application.operations.Operations`'s).

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
        self._store = store
        self._read_consistency = read_consistency_seconds
        self._embedder: Embedder | None = None
        self._embedder_loaded = False
        self._model: JsonModel | None = None
        self._model_loaded = False
        self._searcher: Searcher | None = None
        self._past_views: PastViews | None = None
        self._pending: set[asyncio.Task[None]] = set()
        self._reads = ReadAdmission(settings.searches_at_once, settings.searches_waiting)
        self._audit_log: AuditLog | None = None
        #: what the store's views are known to hold: how fresh reads are, said in their
        #: answers, and whether a read after a write need wait (see
        #: :mod:`memstream.application.freshness_gauge`)
        self._gauge = FreshnessGauge(read_consistency_seconds)

    # -- parts, opened on first use ------------------------------------------------------

    @property
    def audit_log(self) -> AuditLog:
        if self._audit_log is None:
            self._audit_log = AuditLog(self.settings.log_dir)
        return self._audit_log

    def _audited(
        self, caller: Caller, operation: str, user_id: str, status: int, **detail: str | int
    ) -> None:
        """One audit line for a change ``caller`` made (see :mod:`.callers`)."""
        self.audit_log.record(
            operation,
            key_id=caller.key_id,
            tenant=caller.tenant,
            user_id=user_id,
            status=status,
            detail={"door": caller.door, **detail},
        )

    @property
    def store(self) -> ProjectionStore:
        if self._store is None:
            self._store = open_store(self.settings, self._read_consistency)
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
                components.make_embedder(self.settings, 1, self.settings.query_embed_threads),
                self.clock,
                stale_seconds=self._read_consistency or 0.0,
            )
        return self._searcher

    def lifecycle(self) -> LifecycleJobs:
        return components.make_lifecycle(self.settings, self.store, self.model)

    def archiver(self, summarizing: bool = False) -> Archiver:
        """Expansion and restore; with ``summarizing``, the archive job's summarizer and
        embedder too."""
        if not summarizing:
            return components.make_archiver(self.settings, self.store)
        return components.make_archiver(self.settings, self.store, self.embedder, self.model)

    async def close(self) -> None:
        """Wait (briefly) for access reports still on their way, then close the sink."""
        if self._pending:
            await asyncio.wait(set(self._pending), timeout=ACCESS_REPORT_SECONDS)
        await self.sink.close()

    @staticmethod
    async def _blocking(call: Callable[..., _T], *args: Any) -> _T:
        return await asyncio.to_thread(call, *args)

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
