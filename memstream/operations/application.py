"""The operations layer: each use case of memstream as one method of :class:`Operations`.

The CLI, the HTTP API (and every front door to come) parse their input, call one of
these methods and render what it answers; none of them opens a store, builds an event or
publishes on its own. An ``Operations`` is built once from settings, with the event sink
and the clock passed in; the store, the embedder and the lifecycle parts are opened on
first use, so ``publish`` never loads a model and a search never waits for the broker.

Methods are coroutines (blocking store reads run in a thread), so an asyncio server calls
them directly and the CLI runs each in ``asyncio.run``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator, Sequence
from datetime import datetime, timedelta
from typing import IO, Any, Literal, TypeVar

import pyarrow as pa
from pydantic import ValidationError

from memstream.models.embedders import Embedder
from memstream.models.language_models import JsonModel
from memstream.models.tokens import count_tokens
from memstream.operations import commands, transfer
from memstream.operations.admission import ReadAdmission
from memstream.operations.callers import LOCAL, Caller
from memstream.operations.documents import (
    DOCUMENT_DONE,
    DocumentAccepted,
    document_view,
    embedded_chunks,
    received_view,
    submission,
)
from memstream.operations.errors import LessHistory, NotAvailable, NotFound, Unavailable
from memstream.operations.intake import channel_events, door_checked
from memstream.operations.results import (
    Accepted,
    ArchiveReport,
    ContextBlock,
    Erased,
    Expanded,
    JobReport,
)
from memstream.operations.sinks import BrokerSink, EventSink
from memstream.operations.stores import open_store
from memstream.portability.exports import EXPORT_FORMATS, ExportFormat
from memstream.portability.imports import open_import
from memstream.projections.archiving import archive_id
from memstream.projections.clock import Clock, system_clock
from memstream.projections.codec import problems_of
from memstream.projections.coldness import ColdDecision
from memstream.projections.context import Assembly, assemble, complexity
from memstream.projections.digest import digest_tables
from memstream.projections.documents import document_key
from memstream.projections.errors import InvalidEvent, InvalidQuery
from memstream.projections.events import (
    DocumentRemoved,
    Event,
    MemoryAccessed,
    MemoryRestored,
    in_time_range,
)
from memstream.projections.memory_state import is_hidden, state_id
from memstream.projections.scope import plain_text, scope_filter, valid_identifier, valid_tag
from memstream.projections.short_ids import looks_short, prefix_range, short_id
from memstream.projections.vectors import vectors_table
from memstream.queries.context import context_candidates
from memstream.queries.explain import explanation
from memstream.queries.memory_list import ListRequest, MemoryPage, list_memories
from memstream.queries.profiles import entity_profile, memory_document, memory_history
from memstream.queries.search import Searcher, SearchRequest, SearchResponse
from memstream.queries.search_documents import MEMORY_KINDS
from memstream.queries.stats import stats as compute_stats
from memstream.queries.user_state import user_digest
from memstream.queries.users import known_users
from memstream.storage.document_originals import DocumentOriginals
from memstream.storage.event_archive import EventArchive
from memstream.storage.filesystems import Location
from memstream.storage.filters import all_of as filters_all_of
from memstream.storage.filters import equals, literal
from memstream.storage.lance_store import ProjectionStore
from memstream.storage.lance_tables import (
    ARCHIVE_INDEX,
    DOCUMENTS,
    MEMORIES,
    MEMORY_STATE,
    STATE_TABLES,
)
from memstream.storage.layout import DataLayout
from memstream.storage.schemas import NOT_STATE_COLUMNS, vectors_schema
from memstream.streams import components, history, reembedding, replay
from memstream.streams.archiver import Archiver, NotArchived
from memstream.streams.lifecycle import LifecycleJobs
from memstream.streams.partitioning import partition_of
from memstream.streams.projector import Projector
from memstream.streams.publisher import CheckedLine, check_lines
from memstream.streams.replay import ReplayReport
from memstream.streams.sealing import data_keys_of, erasure_event, record_keys_of
from memstream.streams.settings import EmbedderName, Settings
from memstream.streams.telemetry import metrics, tracing
from memstream.streams.topics import (
    COMMANDS,
    LIFECYCLE,
    MESSAGES,
    PROJECTED_TOPICS,
    end_offsets,
    read_epoch,
    start_offsets,
)
from memstream.tenancy.audit import AuditLog

__all__ = ["LogEnd", "Operations"]

log = logging.getLogger(__name__)

#: The largest context block one may ask for.
MAX_CONTEXT_TOKENS = 32_000
#: How long a search's access report may take before it is given up (best effort).
ACCESS_REPORT_SECONDS = 5.0

Job = Literal["consolidate", "decay", "reflect"]
#: The log's end offsets per (topic, partition) and its epoch, or (None, None) when the
#: broker cannot be reached.
LogEnd = tuple[dict[tuple[str, int], int] | None, str | None]
_T = TypeVar("_T")

#: The most memories one page of a list holds.
MAX_LISTED = 200
#: Seconds a wait for a document no one has seen gives it to appear (just submitted).
UNKNOWN_DOCUMENT_WAIT = 5.0


class Operations:
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
        self._pending: set[asyncio.Task[None]] = set()
        self._reads = ReadAdmission(settings.searches_at_once, settings.searches_waiting)
        self._audit_log: AuditLog | None = None

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

    # -- publishing ------------------------------------------------------------------------

    async def publish(self, documents: Sequence[Any], caller: Caller = LOCAL) -> Accepted:
        """Validate every document as a channel event, then publish them all, or none
        (audited per user, with the count of the user's events).

        Raises:
            InvalidEvents: naming, per index, what is wrong (nothing was published).
        """
        events = channel_events(documents, self.clock())
        with tracing.span("publish", events=len(events), door=caller.door):
            accepted = Accepted(await self.sink.publish(events))
        for kind, count in Counter(event.type for event in events).items():
            metrics.PUBLISHED.labels(kind, caller.door).inc(count)
        users = Counter(event.user_id for event in events)
        for user_id, count in users.items():
            self._audited(caller, "publish", user_id, 202, events=count)
        return accepted

    async def publish_lines(
        self, lines: Sequence[bytes], caller: Caller = LOCAL
    ) -> list[CheckedLine]:
        """Publish JSON lines: valid events to their topics, invalid lines to the
        dead-letter topic with their reason; every line as checked (the valid ones
        audited per user, as :meth:`publish` audits)."""
        checked = check_lines(lines, self.clock())
        with tracing.span("publish", events=len(checked), door=caller.door):
            await self.sink.publish_lines(checked)
        for kind, count in Counter(c.event.type for c in checked if c.event).items():
            metrics.PUBLISHED.labels(kind, caller.door).inc(count)
        users = Counter(c.event.user_id for c in checked if c.event is not None)
        for user_id, count in users.items():
            self._audited(caller, "publish", user_id, 202, events=count)
        return checked

    # -- search and reads ------------------------------------------------------------------

    async def search(self, request: SearchRequest) -> SearchResponse:
        """Hybrid search; the memories returned are then reported as accessed (in the
        background, best effort: the answer never waits for the broker)."""
        for index, tag in enumerate(request.tags or ()):
            valid_tag(f"tags.{index}", tag)
        with _measured_read("search"):
            async with self._reads.turn():
                response = await self._blocking(self.searcher.search, request)
            _stages(response.timings)
        if response.results:
            accessed = MemoryAccessed(
                user_id=request.user_id,
                memory_ids=[r.memory_id for r in response.results],
                accessed_at=self.clock(),
            )
            task = asyncio.create_task(self._report_access(accessed))
            self._pending.add(task)
            task.add_done_callback(self._pending.discard)
        return response

    async def _report_access(self, event: MemoryAccessed) -> None:
        try:
            await asyncio.wait_for(self.sink.publish([event]), ACCESS_REPORT_SECONDS)
        except (Unavailable, TimeoutError) as exc:  # reinforcement is best effort
            log.warning("could not publish %s: %s", event.type, exc or "timed out")
        except Exception:
            log.warning("could not publish %s", event.type, exc_info=True)

    async def memory(self, user_id: str, memory_id: str) -> dict[str, Any]:
        """One memory as stored (hot or archived)."""
        memory_id = await self._memory_named(user_id, memory_id)
        found = await self._blocking(memory_document, self.store, user_id, memory_id)
        if found is None:
            raise NotFound(f"no memory {memory_id} for user {user_id}")
        return found

    async def history(self, user_id: str, memory_id: str) -> list[dict[str, Any]]:
        """The memories that replaced one another through this one, oldest first."""
        memory_id = await self._memory_named(user_id, memory_id)
        chain = await self._blocking(memory_history, self.store, user_id, memory_id)
        if chain is None:
            raise NotFound(f"no memory {memory_id} for user {user_id}")
        return chain

    async def entity(
        self, user_id: str, name: str, project_id: str | None = None
    ) -> dict[str, Any]:
        """An entity's profile: aliases, mentions, and the timeline and memories of the
        user (with ``project_id``: of no project, and that project's; never another's)."""
        scope_filter(user_id, project_id)  # the doors' rule for identifiers
        plain_text("name", name)
        profile = await self._blocking(entity_profile, self.store, user_id, name, project_id)
        if profile is None:
            raise NotFound(f"no entity named {name!r} for user {user_id}")
        return profile

    async def context(
        self,
        user_id: str,
        query: str,
        project_id: str | None = None,
        budget_tokens: int | None = None,
        now: datetime | None = None,
    ) -> ContextBlock:
        """The memory block to put before an agent's answer, within ``budget_tokens``
        (default: by the query's complexity); its context is None when nothing relevant
        is found, so a caller can leave the block out."""
        started = time.perf_counter()
        try:
            request = SearchRequest(user_id=user_id, project_id=project_id, query=query)
        except ValidationError as exc:
            raise InvalidQuery("; ".join(problems_of(exc))) from None
        scope_filter(user_id, project_id)  # the doors' rule for identifiers
        if budget_tokens is not None and not 1 <= budget_tokens <= MAX_CONTEXT_TOKENS:
            raise InvalidQuery(f"budget_tokens: must be 1 to {MAX_CONTEXT_TOKENS}")
        when = now or self.clock()
        judged = complexity(query)
        budget = budget_tokens or (
            self.settings.context_complex_tokens
            if judged == "complex"
            else self.settings.context_simple_tokens
        )

        def build() -> Assembly:
            found = context_candidates(self.searcher, request, when)
            return assemble(found, budget, count_tokens)

        with _measured_read("context"):
            async with self._reads.turn():
                assembly = await self._blocking(build)
        sections = [
            {
                "name": s.name,
                "tokens": s.tokens,
                "lines": [
                    {
                        "memory_id": line.memory_id,
                        "kind": line.kind,
                        "text": line.text,
                        "occurred_at": line.occurred_at,
                        "archived": line.archived,
                        "source_event_ids": list(line.sources),
                    }
                    for line in s.lines
                ],
            }
            for s in assembly.sections
        ]
        took = (time.perf_counter() - started) * 1000
        return ContextBlock(assembly.context, sections, assembly.tokens, budget, judged, took)

    async def explain(
        self, user_id: str, memory_id: str, now: datetime | None = None
    ) -> dict[str, Any]:
        """Why a memory exists: where it came from, what replaced what, what commands did
        to it, the entities it links, and how its confidence got where it is now."""
        memory_id = await self._memory_named(user_id, memory_id)
        rates = components.lifecycle_policy(self.settings).decay_rates
        found = await self._blocking(
            explanation, self.store, user_id, memory_id, now or self.clock(), rates
        )
        if found is None:
            raise NotFound(f"no memory {memory_id} for user {user_id}")
        return found

    async def users(self, tenant: str | None = None) -> list[dict[str, Any]]:
        """The users memory is held of (of ``tenant``, or all): their counts and when
        their newest memory happened (see :mod:`memstream.queries.users`)."""
        if tenant is not None:
            valid_identifier("tenant", tenant)
        return await self._blocking(known_users, self.store, tenant)

    async def stats(self, user_id: str | None = None) -> dict[str, Any]:
        """Memory counts, dead letters and the lag behind the log: of one user (their own
        dead letters, their partition's lag), or of the deployment, with the applied
        offsets (see :func:`memstream.queries.stats.stats`)."""
        if user_id is not None:
            valid_identifier("user_id", user_id)
        offsets, epoch = await self.log_position()
        if user_id is not None and offsets:  # the lag of the user's own partition
            mine = (MESSAGES, partition_of(user_id, len(offsets)))
            offsets = {mine: offsets[mine]} if mine in offsets else None
        document: dict[str, Any] = await self._blocking(
            lambda: compute_stats(self.store, user_id, end_offsets=offsets, log_epoch=epoch)
        )
        return document

    async def log_position(self, timeout: float = 5.0) -> LogEnd:
        """The message topic's end offsets and the log epoch; (None, None) if the broker
        does not answer within ``timeout`` seconds."""
        bootstrap = self.settings.bootstrap
        try:
            ends = await asyncio.wait_for(end_offsets(bootstrap, MESSAGES), timeout)
            epoch = await asyncio.wait_for(
                read_epoch(bootstrap, self.clock(), create=False), timeout
            )
        except Exception:  # the broker is down: lag unknown
            return None, None
        return {(MESSAGES, p): off for p, off in ends.items()}, epoch

    async def digest(self, user_id: str | None = None) -> tuple[str, dict[str, tuple[int, str]]]:
        """The state digest, and per state table its row count and digest; of one user's
        rows (see :mod:`memstream.queries.user_state`), or of the whole store."""
        if user_id is not None:
            valid_identifier("user_id", user_id)
            return await self._blocking(user_digest, self.store, user_id)

        def compute() -> tuple[str, dict[str, tuple[int, str]]]:
            tables = {name: self.store.scan(name).to_pylist() for name in STATE_TABLES}
            per_table = {
                name: (len(rows), digest_tables({name: rows}, ignore=NOT_STATE_COLUMNS))
                for name, rows in tables.items()
            }
            return digest_tables(tables, ignore=NOT_STATE_COLUMNS), per_table

        return await self._blocking(compute)

    # -- the memory commands ---------------------------------------------------------------

    async def remember(self, fields: dict[str, Any], caller: Caller = LOCAL) -> Accepted:
        """``remember_fact``: a memory stated by the user or an agent. The same statement
        in the same scope is one memory (see :func:`commands.remembering`): while its
        memory stands, remembering it again publishes nothing and answers that memory;
        once it was forgotten or replaced, it is remembered anew."""
        now = self.clock()
        event, memory_id = commands.remembering(fields, now)
        try:
            door_checked(event)
        except InvalidEvent as exc:
            raise InvalidQuery("; ".join(exc.problems)) from None
        standing = await self._blocking(self._standing, event.user_id, memory_id)
        if standing is True:
            self._audited(caller, "remember", event.user_id, 200)  # stored before
            return Accepted([], memory_id)
        if standing is False:
            event, memory_id = commands.remembering(fields, now, again=True)
        accepted = Accepted(await self.sink.publish([event]), memory_id)
        self._audited(caller, "remember", event.user_id, 202)
        return accepted

    def _standing(self, user_id: str, memory_id: str) -> bool | None:
        """Whether a memory of the user stands (True), was forgotten or replaced (False),
        or is not stored (None: never written, or not applied yet)."""
        try:
            store = self.store
        except NotFound:  # no projections yet
            return None
        mine = equals("user_id", user_id)
        stored = store.by_ids(MEMORIES, [memory_id], columns=["memory_id"], where=mine)
        archived = store.by_ids(ARCHIVE_INDEX, [archive_id(user_id, memory_id)], ["memory_id"])
        if not stored and not archived:
            return None
        states = store.by_ids(MEMORY_STATE, [state_id(user_id, memory_id)])
        return not is_hidden(states[0] if states else None)

    async def correct(
        self, user_id: str, memory_id: str, content: str, caller: Caller = LOCAL
    ) -> Accepted:
        """``correct_fact``: the new content replaces the memory, which stays as history."""
        memory_id = await self._memory_named(user_id, memory_id)
        event, new_id = await self._command(
            commands.correction, self.store, user_id, memory_id, content, self.clock()
        )
        accepted = Accepted(await self.sink.publish([event]), new_id)
        self._audited(caller, "correct", user_id, 202)
        return accepted

    async def confirm(self, user_id: str, memory_id: str, caller: Caller = LOCAL) -> Accepted:
        """``confirm_fact``: full confidence, never decays."""
        memory_id = await self._memory_named(user_id, memory_id)
        event = await self._command(
            commands.confirmation, self.store, user_id, memory_id, self.clock()
        )
        accepted = Accepted(await self.sink.publish([event]), memory_id)
        self._audited(caller, "confirm", user_id, 202)
        return accepted

    async def forget(self, user_id: str, memory_id: str, caller: Caller = LOCAL) -> Accepted:
        """``forget``: never returned by search again; kept for history."""
        memory_id = await self._memory_named(user_id, memory_id)
        event = await self._command(
            commands.forgetting, self.store, user_id, memory_id, self.clock()
        )
        accepted = Accepted(await self.sink.publish([event]), memory_id)
        self._audited(caller, "forget", user_id, 202)
        return accepted

    async def _memory_named(self, user_id: str, memory_id: str) -> str:
        """The full id of the user's memory ``memory_id`` names: the id itself, or the one
        id of theirs (hot or archived) its short form begins
        (:mod:`memstream.projections.short_ids`).

        Raises:
            InvalidQuery: a malformed id, or a short form that begins several ids.
        """
        _owner(user_id, memory_id)
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

    async def _command(self, build: Callable[..., Awaitable[_T] | _T], *args: Any) -> Any:
        try:
            return await self._blocking(build, *args)
        except commands.UnknownMemory as exc:
            raise NotFound(str(exc)) from None

    # -- documents -------------------------------------------------------------------------

    async def add_document(
        self,
        user_id: str,
        data: bytes,
        *,
        name: str | None = None,
        media_type: str | None = None,
        title: str | None = None,
        document_id: str | None = None,
        project_id: str | None = None,
        tags: Sequence[str] = (),
        caller: Caller = LOCAL,
    ) -> DocumentAccepted:
        """Take a document: its original is stored in the data location under its
        checksum, then ``DocumentSubmitted`` is published (the documents lane parses
        it). The same bytes as the document's current version publish nothing."""
        event = submission(
            user_id,
            data,
            self.clock(),
            max_bytes=self.settings.document_max_bytes,
            name=name,
            media_type=media_type,
            title=title,
            document_id=document_id,
            project_id=project_id,
            tags=tags,
        )
        current = await self._blocking(self._document_row, user_id, event.document_id)
        if (
            current is not None
            and current["checksum"] == event.checksum
            and current["status"] != "removed"
        ):
            self._audited(caller, "document_add", user_id, 200, document=event.document_id)
            return DocumentAccepted(event.document_id, event.checksum, False, [])
        originals = DocumentOriginals(DataLayout(self.settings.data_location).documents)
        await self._blocking(originals.put, user_id, data)
        accepted = await self.sink.publish([event])
        self._audited(caller, "document_add", user_id, 202, document=event.document_id)
        return DocumentAccepted(event.document_id, event.checksum, True, accepted)

    def _document_row(self, user_id: str, document_id: str) -> dict[str, Any] | None:
        try:
            store = self.store
        except NotFound:  # no projections yet
            return None
        rows = store.by_ids(DOCUMENTS, [document_key(user_id, document_id)])
        return dict(rows[0]) if rows else None

    async def document(
        self,
        user_id: str,
        document_id: str,
        wait_seconds: float = 0.0,
        checksum: str | None = None,
    ) -> dict[str, Any]:
        """A document's status; with ``wait_seconds``, waits that long at most for it
        (its version ``checksum``, if given: one just submitted) to be indexed, empty
        or failed (for a document it does not know at all, a few seconds at most).

        Raises:
            NotFound: the user has no such document (or it is not applied yet).
        """
        valid_identifier("user_id", user_id)
        valid_identifier("document_id", document_id)
        row = await self._document_when(
            user_id,
            document_id,
            wait_seconds,
            lambda r: r["status"] in DOCUMENT_DONE and checksum in (None, r["checksum"]),
            checksum is None,
        )
        if wait_seconds and row is not None and row["status"] in DOCUMENT_DONE:
            self._searches_see_now(user_id)
        if checksum is not None and (row is None or row["checksum"] != checksum):
            return received_view(user_id, document_id, checksum)  # accepted, not applied yet
        if row is None:
            raise NotFound(f"no document {document_id} for user {user_id}")
        view = document_view(row)
        view["embedded_chunks"] = await self._blocking(embedded_chunks, self.store, row)
        return view

    async def _document_when(
        self,
        user_id: str,
        document_id: str,
        wait_seconds: float,
        done: Callable[[dict[str, Any]], bool],
        may_be_unknown: bool,
    ) -> dict[str, Any] | None:
        """The document's row once ``done`` says so, or after ``wait_seconds`` (for a
        document not seen at all and ``may_be_unknown``, a few seconds at most)."""
        started = time.monotonic()
        while True:
            if self._store is not None:
                await self._blocking(self._store.refresh)
            row = await self._blocking(self._document_row, user_id, document_id)
            waited = time.monotonic() - started
            # a document not seen yet may be on its way (just submitted), for a moment
            unknown = row is None and may_be_unknown and waited >= UNKNOWN_DOCUMENT_WAIT
            if (row is not None and done(row)) or unknown or waited >= wait_seconds:
                return row
            await asyncio.sleep(0.2)

    def _searches_see_now(self, user_id: str) -> None:
        """Searches answered here from now on see what a wait saw applied (a document
        indexed or removed), not the user's memories as held in memory a moment ago
        (they are read again at the user's next search)."""
        if self._searcher is not None:
            self._searcher.forget(user_id)

    async def remove_document(
        self,
        user_id: str,
        document_id: str,
        wait_seconds: float = 0.0,
        caller: Caller = LOCAL,
    ) -> dict[str, Any]:
        """Remove a document: ``DocumentRemoved`` soft-deletes the chunks and facts of
        every version of it (a document removed already publishes nothing). With
        ``wait_seconds``, waits that long at most for the removal to be applied; the
        answer's ``document`` is then the document's status.

        Raises:
            NotFound: the user has no such document (or it is not applied yet).
        """
        valid_identifier("user_id", user_id)
        valid_identifier("document_id", document_id)
        row = await self._blocking(self._document_row, user_id, document_id)
        if row is None:
            raise NotFound(f"no document {document_id} for user {user_id}")
        if row["status"] == "removed":
            self._audited(caller, "document_remove", user_id, 200, document=document_id)
            return {"document_id": document_id, "removed": True, "accepted": []}
        now = self.clock()
        event = DocumentRemoved(
            event_id=f"removed:{document_id}:{now.strftime('%Y%m%dT%H%M%S.%fZ')}",
            user_id=user_id,
            document_id=document_id,
            occurred_at=now,
        )
        accepted = await self.sink.publish([event])
        self._audited(caller, "document_remove", user_id, 202, document=document_id)
        answer: dict[str, Any] = {
            "document_id": document_id,
            "removed": False,
            "accepted": accepted,
        }
        if wait_seconds:
            row = await self._document_when(
                user_id, document_id, wait_seconds, lambda r: r["status"] == "removed", False
            )
            answer["document"] = document_view(row) if row is not None else None
            if row is not None and row["status"] == "removed":
                self._searches_see_now(user_id)
        return answer

    async def documents(self, user_id: str) -> list[dict[str, Any]]:
        """The user's documents, newest first."""
        valid_identifier("user_id", user_id)

        def rows() -> list[dict[str, Any]]:
            try:
                store = self.store
            except NotFound:
                return []
            mine: list[dict[str, Any]] = store.scan(
                DOCUMENTS, where=equals("user_id", user_id)
            ).to_pylist()
            return mine

        found = await self._blocking(rows)
        found.sort(key=lambda r: (r["submitted_at"], r["document_id"]), reverse=True)
        return [document_view(r) for r in found]

    # -- erasure ---------------------------------------------------------------------------

    async def erase(
        self, user_id: str, wait_seconds: float = 120.0, caller: Caller = LOCAL
    ) -> Erased:
        """Erase everything of ``user_id``: destroy the user's data keys (from then on
        nothing sealed under them opens, in the log, the journal or the event archive),
        publish ``UserErased`` so every projection and the cold store drop the user, and
        wait up to ``wait_seconds`` for the worker to finish (``complete``). Asking
        again finishes an erasure a crash interrupted."""
        valid_identifier("user_id", user_id)
        started = time.perf_counter()
        keys = data_keys_of(self.settings)
        erasure = await self._blocking(keys.erase, user_id, self.clock())
        await self.sink.publish([erasure_event(erasure)])
        deadline = time.monotonic() + wait_seconds
        while keys.is_pending(user_id) and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
        complete = not keys.is_pending(user_id)
        if self._searcher is not None:
            self._searcher.forget(user_id)
        self._audited(caller, "erase", user_id, 200 if complete else 202)
        return Erased(
            user_id, erasure.key_ids, erasure.requested_at, complete, time.perf_counter() - started
        )

    # -- cold storage ----------------------------------------------------------------------

    async def expand(self, user_id: str, memory_id: str) -> Expanded:
        """An archived memory's original, read from cold storage exactly as archived
        (three expansions in 30 days restore it)."""
        memory_id = await self._memory_named(user_id, memory_id)
        try:
            expansion = await self._blocking(
                self.archiver().expand, user_id, memory_id, self.clock()
            )
        except NotArchived:
            raise await self._not_archived(user_id, memory_id) from None
        await self.sink.publish(expansion.events)
        restoring = any(isinstance(e, MemoryRestored) for e in expansion.events)
        return Expanded(memory_id, expansion.original, restoring)

    async def restore(
        self, user_id: str, memory_id: str | None, caller: Caller = LOCAL
    ) -> Accepted:
        """Bring an archived memory (or, with None, all the user's) back to the hot
        tables, with its vector."""
        valid_identifier("user_id", user_id)
        if memory_id is not None:
            memory_id = await self._memory_named(user_id, memory_id)
        try:
            events = await self._blocking(self.archiver().restore, user_id, memory_id, self.clock())
        except NotArchived:
            raise await self._not_archived(user_id, memory_id or "") from None
        accepted = await self.sink.publish(events) if events else []
        self._audited(caller, "restore", user_id, 202, memories=len(events))
        return Accepted(accepted, memory_id)

    async def _not_archived(self, user_id: str, memory_id: str) -> NotFound:
        """What to say of a memory that is not in cold storage: that it is hot, or that
        the user has no such memory."""
        hot = await self._blocking(
            lambda: self.store.by_ids(
                MEMORIES, [memory_id], ["memory_id"], where=equals("user_id", user_id)
            )
        )
        if hot:
            return NotFound(
                f"memory {memory_id} of {user_id} is not archived: it is in the hot tables "
                f"(`memstream explain --user {user_id} {short_id(memory_id)}` shows it)"
            )
        return NotFound(f"no memory {memory_id} for user {user_id}")

    # -- lifecycle jobs, run once ------------------------------------------------------------

    async def run_job(
        self,
        job: Job,
        now: datetime | None = None,
        user_id: str | None = None,
        dry_run: bool = False,
        caller: Caller = LOCAL,
    ) -> JobReport:
        """Run a lifecycle job once as of ``now`` and publish what it decided (unless
        ``dry_run``; a job asked for one user is audited). A ``now`` given is the clock
        for every rule, event time included (a user's last session closes once its last
        turn is a session gap before it)."""
        when = now or self.clock()
        jobs = self.lifecycle()
        events: list[Event]
        failed: dict[str, str] = {}
        if job == "decay":
            events = list(await self._blocking(jobs.decay, when, user_id))
        else:
            if job == "consolidate":
                result = await self._blocking(
                    lambda: jobs.consolidate(when, user_id, as_of=now is not None)
                )
            else:
                result = await self._blocking(jobs.reflect, when, user_id)
            events, failed = result.events, result.failed
        publish = bool(events) and not dry_run
        if publish:
            await self.sink.publish(events)
            if user_id is not None:
                self._audited(caller, job, user_id, 202, events=len(events))
        return JobReport(events, failed, publish)

    async def list_memories(self, request: ListRequest) -> MemoryPage:
        """A page of the user's memories (see :mod:`memstream.queries.memory_list`).

        Raises:
            InvalidQuery: a malformed id, kind, limit or cursor.
        """
        valid_identifier("user_id", request.user_id)
        for name in ("session_id", "project_id"):
            value = getattr(request, name)
            if value is not None:
                valid_identifier(name, value)
        if request.kind is not None and request.kind not in MEMORY_KINDS:
            raise InvalidQuery(f"kind: must be one of {', '.join(MEMORY_KINDS)}")
        if not 1 <= request.limit <= MAX_LISTED:
            raise InvalidQuery(f"limit: must be from 1 to {MAX_LISTED}")
        for name in ("after", "before"):
            moment = getattr(request, name)
            try:
                if moment is not None:
                    in_time_range(moment)
            except ValueError as exc:
                raise InvalidQuery(f"{name}: {exc}") from None
        if self._store is not None:
            await self._blocking(self._store.refresh)
        try:
            store = self.store
        except NotFound:  # no projections yet: nothing to list
            return MemoryPage([], None)
        return await self._blocking(list_memories, store, request)

    # -- export and import ------------------------------------------------------------------

    def export(
        self,
        user_id: str,
        export_format: ExportFormat,
        counted: Callable[[int], None] | None = None,
        caller: Caller = LOCAL,
    ) -> Iterator[bytes]:
        """The user's export, a piece at a time, produced as it is read (see
        :mod:`memstream.operations.transfer`); ``counted`` follows its progress.

        Raises:
            InvalidQuery: a malformed user id or an unknown format.
        """
        valid_identifier("user_id", user_id)
        if export_format not in EXPORT_FORMATS:
            raise InvalidQuery(f"format: must be one of {', '.join(EXPORT_FORMATS)}")
        self._audited(caller, "export", user_id, 200, format=export_format)

        store: ProjectionStore | None = None
        if export_format != "events":  # opened now: a refusal comes before any byte
            store = self.store
            store.refresh()
        return transfer.export_stream(
            self.settings, store, user_id, export_format, self.clock(), counted
        )

    async def import_file(
        self,
        user_id: str,
        source: IO[bytes],
        caller: Caller = LOCAL,
        progress: Callable[[int, int], None] | None = None,
    ) -> transfer.ImportReport:
        """Import the file ``source`` (seekable) for ``user_id`` (see
        :mod:`memstream.portability.imports`), read as a stream: each batch's document
        originals stored, then its events published; ``progress`` is told (published,
        read so far) after each batch.

        Raises:
            UnknownShape: the file is none of the shapes read (nothing published).
            Unavailable: the log refused a batch (those before it are published;
                importing the file again is safe).
        """
        valid_identifier("user_id", user_id)
        stream = await self._blocking(open_import, source, user_id)
        batches = stream.batches(transfer.IMPORT_BATCH)
        published = originals = 0
        kinds: Counter[str] = Counter()
        with tracing.span("import", door=caller.door):
            while (batch := await self._blocking(next, batches, None)) is not None:
                stored, events = batch
                originals += await self._blocking(
                    transfer.store_originals, self.settings, user_id, stored
                )
                if events:
                    await self.sink.publish(events)
                published += len(events)
                kinds.update(event.type for event in events)
                if progress is not None:
                    progress(published, published)
        for kind, count in kinds.items():
            metrics.PUBLISHED.labels(kind, caller.door).inc(count)
        plan = stream.plan
        skipped = len(plan.skipped) + plan.more_skipped
        self._audited(caller, "import", user_id, 202, events=published, skipped=skipped)
        return transfer.ImportReport(
            plan.shape, published, originals, plan.skipped, plan.more_skipped
        )

    async def weak_facts(self, user_id: str, now: datetime | None = None) -> list[dict[str, Any]]:
        """The user's memories near the prune threshold, weakest first."""
        valid_identifier("user_id", user_id)
        found: list[dict[str, Any]] = await self._blocking(
            self.lifecycle().weak_facts, user_id, now or self.clock()
        )
        return found

    async def archive_candidates(
        self, now: datetime | None = None, user_id: str | None = None
    ) -> list[ColdDecision]:
        """Who the archive job would move now, and why (nothing is written)."""
        return await self._blocking(self.archiver().candidates, now or self.clock(), user_id)

    async def archive(
        self, now: datetime | None = None, user_id: str | None = None
    ) -> ArchiveReport:
        """Move what is cold to the cold store, publish the archive events, then merge
        small cold files."""
        archiver = self.archiver(summarizing=True)
        events: list[Event] = list(
            await self._blocking(archiver.archive, now or self.clock(), user_id)
        )
        if events:
            await self.sink.publish(events)
        merged = await self._blocking(archiver.cold.compact)
        return ArchiveReport(events, merged)

    # -- rebuilding ------------------------------------------------------------------------

    async def replay(
        self,
        source: Literal["kafka", "archive"],
        into: str,
        swap: bool = False,
        writers: int = 1,
    ) -> tuple[replay.ReplayReport, str | None]:
        """Rebuild the projections into ``into`` from the log or the event archive; with
        ``swap`` switch the data folder to them; with ``writers`` above one, from the
        archive by that many processes, each writing a group of partitions. Answers the
        report and the generation switched to, if any."""
        if writers > 1 and source != "archive":
            raise InvalidQuery(
                "replay with several writers reads the event archive: --source archive"
            )
        target = self.settings.location_of(into)
        cold_store = components.make_cold_store(self.settings)
        keys = record_keys_of(self.settings)
        vector_model = components.embedder_model(self.settings)
        if writers > 1:
            report = await self._blocking(
                lambda: replay.rebuild_by_partitions(
                    self.settings.data_location,
                    target,
                    self.settings.consumer_group,
                    writers,
                    cold_store=cold_store,
                    keys=keys,
                    vector_model=vector_model,
                )
            )
        else:
            records = await self._log_records(source)
            report = await self._blocking(
                lambda: replay.rebuild(
                    records,
                    target,
                    self.settings.consumer_group,
                    cold_store=cold_store,
                    keys=keys,
                    vector_model=vector_model,
                )
            )
        generation = self.switch(into) if swap else None
        return report, generation

    async def reembed(
        self,
        embedder: EmbedderName,
        source: Literal["kafka", "archive"],
        into: str,
        progress: Callable[[int], None] | None = None,
    ) -> tuple[ReplayReport, int]:
        """Rebuild the projections into ``into`` with the vectors of ``embedder``: the log
        replayed keeping that model's vectors, then every memory without one embedded,
        published (acknowledged before it is stored) and stored
        (:mod:`memstream.streams.reembedding`).
        The data folder's projections keep serving; ``switch`` moves to the new ones.
        Answers the replay's report and how many memories were embedded (``progress``
        hears the running count after each batch)."""
        settings = self.settings.model_copy(update={"embedder": embedder})
        model = await self._blocking(components.make_embedder, settings)
        if model is None:
            raise InvalidQuery("reembed needs an embedder, not none")
        records = await self._log_records(source)
        target = settings.location_of(into)
        cold_store = components.make_cold_store(settings)
        report = await self._blocking(
            lambda: replay.rebuild(
                records,
                target,
                settings.consumer_group,
                vector_dimension=model.dimension,
                cold_store=cold_store,
                keys=record_keys_of(settings),
                vector_model=model.model,
            )
        )
        store = ProjectionStore.at(
            DataLayout(target).projections(), vector_dimension=model.dimension
        )
        projector = Projector(
            store,
            settings.consumer_group,
            self.clock,
            cold_store=cold_store,
            vector_model=model.model,
        )
        batches = reembedding.missing_vectors(
            store, model, self.clock(), settings.embed_context_turns, settings.embed_batch_size
        )
        embedded = 0
        schema = vectors_schema(model.dimension)
        while (events := await self._blocking(next, batches, None)) is not None:
            await self.sink.publish(events)  # in the log before the store has them
            await self._blocking(projector.add_vectors, vectors_table(events, schema, model.model))
            embedded += len(events)
            if progress is not None:
                progress(embedded)
        await self._blocking(store.optimize, timedelta(minutes=1))
        return report, embedded

    async def _log_records(self, source: Literal["kafka", "archive"]) -> Iterator[pa.Table]:
        if source == "archive":
            return replay.archive_batches(self.settings.data_location)
        epoch = await read_epoch(self.settings.bootstrap, self.clock(), create=False)
        if epoch is None:
            raise NotAvailable(f"the log at {self.settings.bootstrap} has no memstream topics")
        starts = await start_offsets(self.settings.bootstrap, PROJECTED_TOPICS)
        missing = await self._blocking(lambda: self._history_missing_from(epoch, starts))
        if missing:
            raise LessHistory(
                f"a replay from Kafka would miss memories: {missing}. "
                "`--source archive` replays the whole history"
            )
        return replay.kafka_batches(self.settings.bootstrap, epoch)

    def _history_missing_from(
        self, log_epoch: str, starts: dict[tuple[str, int], int]
    ) -> str | None:
        """What the log (life ``log_epoch``, earliest offsets ``starts``) lacks of what the
        event archive and the projections in use know of."""
        archived = EventArchive(DataLayout(self.settings.data_location).events).files()
        live = DataLayout(self.settings.data_location).existing_projections()
        applied = (
            {}
            if live is None
            else ProjectionStore.at(live).load_checkpoints(self.settings.consumer_group)
        )
        return history.log_shortfall(log_epoch, starts, archived, applied)

    def switch(self, into: str, force: bool = False) -> str:
        """Switch the data folder to the projections a replay or re-embedding built in
        ``into`` (the worker stopped); answers the generation now in use.

        Raises:
            LessHistory: unless ``force``, when they applied less of any partition than
                the projections in use (switching would lose what they lack).
        """
        rebuilt = self.settings.location_of(into)
        if not force:
            self._refuse_less_history(into, rebuilt)
        return replay.switch_generation(rebuilt, self.settings.data_location)

    def _refuse_less_history(self, into: str, rebuilt: Location) -> None:
        live_tables = DataLayout(self.settings.data_location).existing_projections()
        rebuilt_tables = DataLayout(rebuilt).existing_projections()
        if live_tables is None or rebuilt_tables is None:
            return  # nothing to lose, or nothing to switch to (which switching says)
        live, new = ProjectionStore.at(live_tables), ProjectionStore.at(rebuilt_tables)
        consumer = self.settings.consumer_group
        short = history.store_shortfalls(
            live.load_checkpoints(consumer),
            new.load_checkpoints(consumer),
            (MESSAGES, COMMANDS, LIFECYCLE),
        )
        held, live_held = _memories_held(new), _memories_held(live)
        if not short and held >= live_held:
            return
        behind = f"{history.describe_shortfalls(short)}; " if short else ""
        raise LessHistory(
            f"{into} holds less history than the projections in use: {behind}it holds "
            f"{held:,} memories (hot and archived), the live ones {live_held:,}. Stop the "
            "worker and replay again (`--source archive` holds the whole history), or give "
            "--force to switch all the same and lose the difference"
        )


def _memories_held(store: ProjectionStore) -> int:
    """The memories a store holds: those in the hot tables and those archived."""
    return store.count(MEMORIES) + store.count(ARCHIVE_INDEX)


def _owner(user_id: str, memory_id: str) -> None:
    valid_identifier("user_id", user_id)
    valid_identifier("memory_id", memory_id)


@contextlib.contextmanager
def _measured_read(operation: str) -> Iterator[None]:
    """Count and time a search or a context block (an error counts as one), in a span."""
    started = time.perf_counter()
    with tracing.span(operation):
        try:
            yield
        except BaseException:
            metrics.SEARCHES.labels(operation, "error").inc()
            raise
    metrics.SEARCHES.labels(operation, "ok").inc()
    metrics.SEARCH_SECONDS.labels(operation).observe(time.perf_counter() - started)


#: A search's phases, in order, and the stages that run side by side within each (see
#: ``Searcher.search``).
_SEARCH_PHASES = {
    "retrieve": ("view", "embed", "full_text", "archived_text", "vectors", "entities"),
    "look_up": ("rows", "access", "state"),
    "rank": (),
}


def _stages(timings: dict[str, float]) -> None:
    """Each stage of a search (milliseconds, as Server-Timing says) in its histogram and,
    when tracing, as a child span of the search's."""
    for stage, ms in timings.items():
        metrics.SEARCH_STAGE_SECONDS.labels(stage).observe(ms / 1000)
    tracing.stage_spans(timings, time.time_ns(), _SEARCH_PHASES)
