"""Reading memory: search, one memory and its history, an entity, a context block, an
explanation, a page of memories, users, statistics, the log's position and digests.

Reads run in a thread (the store's calls block), at most as many at once as the
read admission allows; a search reports what it returned as a best-effort
``MemoryAccessed`` event. Each read may ask for memory ``as_of`` a past moment
(:mod:`memstream.application.past_views`); how fresh an answer is, and the wait for a
write token, are in :mod:`memstream.application.fresh_reads`."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from datetime import datetime
from typing import Any, TypeVar

from pydantic import ValidationError

from memstream.adapters.tokens import count_tokens
from memstream.application.admission import ReadAdmission
from memstream.application.callers import Caller
from memstream.application.core import SEARCH_PHASES, LogEnd, Parts
from memstream.application.errors import NotFound
from memstream.application.past_views import PastView, PastViews, find_moment, no_longer_kept
from memstream.application.read_after_write import WaitFor
from memstream.application.results import ContextBlock
from memstream.application.served_log import ServedLog
from memstream.events.errors import InvalidQuery
from memstream.events.identifier_rules import in_time_range
from memstream.events.problems import problems_of
from memstream.events.vocabulary import ContextServed, Event, MemoryAccessed
from memstream.observability import metrics, tracing
from memstream.policies.limits import MAX_CONTEXT_TOKENS, MAX_LISTED
from memstream.policies.scope import plain_text, scope_filter, valid_identifier, valid_tag
from memstream.projections.digest import digest_tables
from memstream.queries.context.assembly import Assembly, assemble, complexity
from memstream.queries.context.gathering import context_candidates, context_request
from memstream.queries.explain import explanation
from memstream.queries.memory_list import ListRequest, MemoryPage, list_memories
from memstream.queries.profiles import entity_profile, memory_document, memory_history
from memstream.queries.search.request import MEMORY_KINDS
from memstream.queries.search.searcher import (
    Searcher,
    SearchRequest,
    SearchResponse,
    SearchResult,
)
from memstream.queries.search.trace import SearchTrace
from memstream.queries.served import answer_digest, block_lines, result_lines, search_text
from memstream.queries.stats import stats as compute_stats
from memstream.queries.stats import user_freshness
from memstream.queries.user_state import user_digest
from memstream.queries.users import known_users
from memstream.runtime import assembly as components
from memstream.storage.lance.store import is_gone
from memstream.storage.lance.tables import STATE_TABLES
from memstream.storage.schemas import NOT_STATE_COLUMNS
from memstream.streams.partitioning import partition_of
from memstream.streams.topics import MESSAGES, end_offsets, read_epoch

log = logging.getLogger(__name__)

#: Which of a search's results a door shows (in their order).
Shown = Callable[[list[SearchResult]], list[SearchResult]]

_T = TypeVar("_T")

__all__ = ["MemoryReads"]


class MemoryReads(ServedLog):
    """The use cases that read memory (see the module docstring)."""

    def __init__(self, parts: Parts) -> None:
        super().__init__(parts)
        self._reads = ReadAdmission(self.settings.searches_at_once, self.settings.searches_waiting)
        self._past_views: PastViews | None = None

    async def _read(self, past: PastView | None, read: Callable[..., _T], *args: Any) -> _T:
        """``read(store, *args)`` on a thread, over memory as it stood at ``past`` (or as
        it stands now)."""
        if past is None:
            return await self._blocking(read, self.store, *args)
        return await self._in_past(past, read, past.store, *args)

    async def _in_past(self, past: PastView, call: Callable[..., _T], *args: Any) -> _T:
        """``call(*args)`` on a thread, reading ``past``'s view.

        Raises:
            NotFound: upkeep or an erasure removed files of the view since it was opened
                (the view is let go; the moment is no longer kept).
        """
        try:
            return await self._blocking(call, *args)
        except Exception as exc:
            if not is_gone(exc):
                raise
            if self._past_views is not None:
                self._past_views.forget(past)
            raise no_longer_kept(past.recorded_at) from None

    async def _past(self, user_id: str, as_of: str) -> PastView:
        """Memory of ``user_id`` as it stood at the moment ``as_of`` names (a time or a
        write token; see :mod:`memstream.application.past_views`).

        Raises:
            InvalidQuery: ``as_of`` is neither.
            NotFound: nothing of the user was recorded by then, or no longer kept.
        """
        valid_identifier("user_id", user_id)

        def view() -> PastView:
            store = self.store
            if self._past_views is None:
                self._past_views = PastViews(self.parts.searcher)
            partition = partition_of(user_id, self.settings.messages_partitions)
            moment = find_moment(store, self.settings.consumer_group, partition, as_of)
            return self._past_views.view(store, moment, as_of)

        return await self._blocking(view)

    async def search(
        self, request: SearchRequest, caller: Caller | None = None, shown: Shown | None = None
    ) -> SearchResponse:
        """Hybrid search (after the write ``request.after_write`` names, if given); the
        memories returned are then reported as accessed, and the answer as served to
        ``caller`` (in the background, best effort: the answer never waits for the
        broker). ``shown``: which of the results the caller shows (a door that filters
        them further): the answer holds those, and they alone are reported and recorded."""
        for index, tag in enumerate(request.tags or ()):
            valid_tag(f"tags.{index}", tag)
        await self.after_write(request.after_write, request.user_id, request.wait)
        if request.as_of is not None:
            return await self._search_past(request, request.as_of, caller, shown)
        with (
            tracing.memory_span("search_memory", request.user_id, query=request.query) as span,
            _measured_read("search"),
        ):
            async with self._reads.turn():
                freshness = await self._freshness(request.user_id)
                response = await self._blocking(self.parts.searcher.search, request)
            _stages(response.timings)
            span.records(len(response.results))
        response.freshness = freshness
        if shown is not None:
            response.results = shown(response.results)
        if response.results:
            accessed_at = self.clock()

            def reports() -> list[Event | None]:
                accessed = MemoryAccessed(
                    user_id=request.user_id,
                    memory_ids=[r.memory_id for r in response.results],
                    accessed_at=accessed_at,
                )
                served = None
                if self._records_for(caller):  # the lines and digest only for a record
                    served = self._search_served(request, response, caller, freshness.position)
                return [accessed, served]

            self._report_after(reports)
        return response

    def _search_served(
        self,
        request: SearchRequest,
        response: SearchResponse,
        caller: Caller | None,
        position: str | None,
        asked: str | None = None,
    ) -> ContextServed | None:
        found = response.results
        return self._served(
            caller,
            request.user_id,
            "search",
            request.query,
            result_lines(found),
            answer_digest(search_text((r.memory_id, r.content) for r in found)),
            project_id=request.project_id,
            as_of=position,
            asked_as_of=asked,
        )

    async def _search_past(
        self, request: SearchRequest, as_of: str, caller: Caller | None, shown: Shown | None
    ) -> SearchResponse:
        """``search`` of memory as it stood at ``as_of``, ranked as of then (unless the
        request gives ``now``); reading the past is no use of a memory: no access is
        reported (what was served is)."""
        with (
            tracing.memory_span("search_memory", request.user_id, query=request.query) as span,
            _measured_read("search"),
        ):
            async with self._reads.turn():
                past = await self._past(request.user_id, as_of)
                then = request.model_copy(update={"now": request.now or past.recorded_at})
                response = await self._in_past(past, past.searcher.search, then)
            _stages(response.timings)
            span.records(len(response.results))
        response.as_of = past.as_of
        if shown is not None:
            response.results = shown(response.results)
        if response.results and self._records_for(caller):
            self._report(
                [self._search_served(request, response, caller, past.as_of.position, as_of)]
            )
        return response

    async def memory(
        self, user_id: str, memory_id: str, as_of: str | None = None
    ) -> dict[str, Any]:
        """One memory as stored (hot or archived); with ``as_of``, as it stood then."""
        memory_id = await self._memory_named(user_id, memory_id)
        past = await self._past(user_id, as_of) if as_of is not None else None
        found = await self._read(past, memory_document, user_id, memory_id)
        if found is None:
            raise NotFound(f"no memory {memory_id} for user {user_id}{_then(past)}")
        return _stamped(found, past)

    async def history(
        self, user_id: str, memory_id: str, as_of: str | None = None
    ) -> list[dict[str, Any]]:
        """The memories that replaced one another through this one, oldest first; with
        ``as_of``, the chain as it stood then."""
        memory_id = await self._memory_named(user_id, memory_id)
        past = await self._past(user_id, as_of) if as_of is not None else None
        chain = await self._read(past, memory_history, user_id, memory_id)
        if chain is None:
            raise NotFound(f"no memory {memory_id} for user {user_id}{_then(past)}")
        return chain

    async def entity(
        self, user_id: str, name: str, project_id: str | None = None, as_of: str | None = None
    ) -> dict[str, Any]:
        """An entity's profile: aliases, mentions, and the timeline and memories of the
        user (with ``project_id``: of no project, and that project's; never another's);
        with ``as_of``, as it stood then."""
        scope_filter(user_id, project_id)  # the doors' rule for identifiers
        plain_text("name", name)
        past = await self._past(user_id, as_of) if as_of is not None else None
        profile = await self._read(past, entity_profile, user_id, name, project_id)
        if profile is None:
            raise NotFound(f"no entity named {name!r} for user {user_id}{_then(past)}")
        return _stamped(profile, past)

    async def context(
        self,
        user_id: str,
        query: str,
        project_id: str | None = None,
        budget_tokens: int | None = None,
        now: datetime | None = None,
        cutoff: bool | None = None,
        as_of: str | None = None,
        caller: Caller | None = None,
    ) -> ContextBlock:
        """The memory block to put before an agent's answer, within ``budget_tokens``
        (default: by the query's complexity); its context is None when nothing relevant
        is found, so a caller can leave the block out. ``cutoff``: leave out what bears
        not on the query (None: as the settings say). ``as_of``: the block memory as it
        stood then would have given (at that time, unless ``now`` says otherwise). The
        block is reported as served to ``caller``, in the background."""
        started = time.perf_counter()
        request = self._context_request(user_id, query, project_id, budget_tokens)
        budget, judged = self._budget(query, budget_tokens)

        def build(searcher: Searcher, when: datetime) -> Assembly:
            found = context_candidates(searcher, request, when, None, self._cutoff(cutoff))
            return assemble(found, budget, count_tokens)

        with (
            tracing.memory_span("search_memory", user_id, query=query) as span,
            _measured_read("context"),
        ):
            async with self._reads.turn():
                if as_of is not None:
                    past = await self._past(user_id, as_of)
                    assembly = await self._in_past(
                        past, build, past.searcher, now or past.recorded_at
                    )
                    span.records(sum(len(section.lines) for section in assembly.sections))
                    served: tuple[str | None, str | None] = (past.as_of.position, as_of)
                    block = replace(_block(assembly, budget, judged, started), as_of=past.as_of)
                else:
                    freshness = await self._freshness(user_id)
                    assembly = await self._blocking(build, self.parts.searcher, now or self.clock())
                    span.records(sum(len(section.lines) for section in assembly.sections))
                    served = (freshness.position, None)
                    block = replace(_block(assembly, budget, judged, started), freshness=freshness)
        if assembly.context is not None and self._records_for(caller):
            record = self._served(
                caller,
                user_id,
                "context",
                query,
                block_lines(assembly),
                answer_digest(assembly.context),
                project_id=project_id,
                as_of=served[0],
                asked_as_of=served[1],
                budget_tokens=budget,
            )
            self._report([record])
        return block

    def _cutoff(self, asked: bool | None = None) -> float | None:
        """The similarity a block's lines sharing no word with the question must reach
        (None: no cut-off; see :mod:`memstream.queries.context.relevance`), when a
        request asks for the cut-off or not (None: as the settings say)."""
        wanted = self.settings.context_cutoff if asked is None else asked
        return self.settings.context_min_similarity if wanted else None

    def _context_request(
        self, user_id: str, query: str, project_id: str | None, budget_tokens: int | None
    ) -> SearchRequest:
        try:
            request = SearchRequest(user_id=user_id, project_id=project_id, query=query)
        except ValidationError as exc:
            raise InvalidQuery("; ".join(problems_of(exc))) from None
        scope_filter(user_id, project_id)  # the doors' rule for identifiers
        if budget_tokens is not None and not 1 <= budget_tokens <= MAX_CONTEXT_TOKENS:
            raise InvalidQuery(f"budget_tokens: must be 1 to {MAX_CONTEXT_TOKENS}")
        return request

    def _budget(self, query: str, budget_tokens: int | None) -> tuple[int, str]:
        """The block's budget (``budget_tokens``, else by the query's complexity) and
        how the query was judged."""
        judged = complexity(query)
        budget = budget_tokens or (
            self.settings.context_complex_tokens
            if judged == "complex"
            else self.settings.context_simple_tokens
        )
        return budget, judged

    async def playground(
        self, request: SearchRequest, budget_tokens: int | None = None
    ) -> tuple[SearchResponse, SearchTrace, ContextBlock]:
        """What the console's playground shows for ``request``: the answer ``search``
        gives, with its whole path (:mod:`memstream.queries.search.trace`), and the
        block ``context`` gives for its query, reported as accessed by no one (looking
        at how memory ranks is no use of it).

        A request that only names a user, a project, a query, ``k`` and ``now`` (what a
        context block's search names) is searched once, as deep as the block's search
        (:data:`~memstream.queries.context.gathering.CONTEXT_DEPTH`): its first ``k``
        are the results (scoring every candidate gives the same first ``k`` at any
        depth), and the block is built from them all. Any other is searched, then its
        block built, as the two routes would."""
        for index, tag in enumerate(request.tags or ()):
            valid_tag(f"tags.{index}", tag)
        started = time.perf_counter()
        self._context_request(request.user_id, request.query, request.project_id, budget_tokens)
        when = request.now or self.clock()
        budget, judged = self._budget(request.query, budget_tokens)
        plain = SearchRequest(
            user_id=request.user_id, project_id=request.project_id, query=request.query
        )
        deep = context_request(plain, when)
        shared = request.k <= deep.k and _names_only_scope(request)
        trace = SearchTrace()

        def build() -> tuple[SearchResponse, Assembly]:
            if not shared:
                response = self.parts.searcher.search(request, trace)
                found = context_candidates(self.parts.searcher, plain, when, None, self._cutoff())
                return response, assemble(found, budget, count_tokens)
            full = self.parts.searcher.search(deep, trace, restated=True)
            trace.keep(request.k)
            response = full.model_copy(update={"results": full.results[: request.k]})
            found = context_candidates(self.parts.searcher, plain, when, full, self._cutoff())
            return response, assemble(found, budget, count_tokens)

        with _measured_read("playground"):
            async with self._reads.turn():
                freshness = await self._freshness(request.user_id)
                response, assembly = await self._blocking(build)
        response.freshness = freshness
        block = replace(_block(assembly, budget, judged, started), freshness=freshness)
        return response, trace, block

    async def explain(
        self,
        user_id: str,
        memory_id: str,
        now: datetime | None = None,
        as_of: str | None = None,
    ) -> dict[str, Any]:
        """Why a memory exists: where it came from, what replaced what, what commands did
        to it, the entities it links, and how its confidence got where it is now (with
        ``as_of``: where it was then)."""
        memory_id = await self._memory_named(user_id, memory_id)
        rates = components.lifecycle_policy(self.settings).decay_rates
        past = await self._past(user_id, as_of) if as_of is not None else None
        when = now or (past.recorded_at if past is not None else self.clock())
        found = await self._read(past, explanation, user_id, memory_id, when, rates)
        if found is None:
            raise NotFound(f"no memory {memory_id} for user {user_id}{_then(past)}")
        return _stamped(found, past)

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

    async def freshness(
        self,
        user_id: str,
        after_write: str | None = None,
        wait: WaitFor = "applied",
        seconds: float | None = None,
    ) -> dict[str, Any]:
        """How fresh reads of ``user_id`` are (after the write ``after_write`` names, if
        given): the position of the user's partitions the projections hold (a token),
        the user's records in the log not applied yet (None when the broker does not
        answer), and the user's memories waiting for their vector."""
        waited = await self.after_write(after_write, user_id, wait, seconds)
        valid_identifier("user_id", user_id)
        known = await self._log_ends()
        partition = partition_of(user_id, self.settings.messages_partitions)
        ends, epoch = (known.ends, known.epoch) if known is not None else (None, None)
        vectors = self.settings.embedder != "none"

        def read() -> dict[str, Any]:
            try:
                store = self.store
            except NotFound:  # no projections yet
                return user_freshness(user_id, partition, {}, ends, epoch, 0 if vectors else None)
            checkpoints = store.load_checkpoints(self.settings.consumer_group)
            pending_vectors = self._vectors_pending_now(user_id) if vectors else None
            return user_freshness(user_id, partition, checkpoints, ends, epoch, pending_vectors)

        document: dict[str, Any] = await self._blocking(read)
        document["waited_ms"] = round(waited.seconds * 1000, 1) if waited is not None else None
        return document

    async def log_position(self, timeout: float = 5.0, topic: str = MESSAGES) -> LogEnd:
        """The end offsets of ``topic`` (the messages') and the log epoch; (None, None)
        if the broker does not answer within ``timeout`` seconds."""
        bootstrap = self.settings.bootstrap
        try:
            ends = await asyncio.wait_for(end_offsets(bootstrap, topic), timeout)
            epoch = await asyncio.wait_for(
                read_epoch(bootstrap, self.clock(), create=False), timeout
            )
        except Exception:  # the broker is down: lag unknown
            return None, None
        return {(topic, p): off for p, off in ends.items()}, epoch

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
        if request.tag is not None:
            valid_tag("tag", request.tag)
            request = replace(request, tag=request.tag.strip().lower())
        for name in ("after", "before"):
            moment = getattr(request, name)
            try:
                if moment is not None:
                    in_time_range(moment)
            except ValueError as exc:
                raise InvalidQuery(f"{name}: {exc}") from None
        if request.as_of is not None:
            past = await self._past(request.user_id, request.as_of)
            page = await self._in_past(past, list_memories, past.store, request)
            return replace(page, as_of=past.as_of)
        freshness = await self._freshness(request.user_id, refresh=True)
        try:
            store = self.store
        except NotFound:  # no projections yet: nothing to list
            return MemoryPage([], None, freshness)
        page = await self._blocking(list_memories, store, request)
        return replace(page, freshness=freshness)


def _then(past: PastView | None) -> str:
    """What a "no such memory" says of the moment it was asked at."""
    return "" if past is None else f" as of {past.recorded_at.isoformat()}"


def _stamped(document: dict[str, Any], past: PastView | None) -> dict[str, Any]:
    """``document`` with the moment it reflects, when it is of a past one."""
    if past is None:
        return document
    return {**document, "as_of": past.as_of.model_dump(mode="json")}


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


def _stages(timings: dict[str, float]) -> None:
    """Each stage of a search (milliseconds, as Server-Timing says) in its histogram and,
    when tracing, as a child span of the search's."""
    for stage, ms in timings.items():
        metrics.SEARCH_STAGE_SECONDS.labels(stage).observe(ms / 1000)
    tracing.stage_spans(timings, time.time_ns(), SEARCH_PHASES)


def _names_only_scope(request: SearchRequest) -> bool:
    """Whether ``request`` filters nothing a context block's search does not (no kinds,
    tags, times, similarity floor or history; archived memories searched)."""
    return (
        request.after is None
        and request.before is None
        and not request.kinds
        and not request.tags
        and request.min_similarity is None
        and not request.include_history
        and request.include_archived
    )


def _block(assembly: Assembly, budget: int, judged: str, started: float) -> ContextBlock:
    """The context block ``assembly`` is, as the operations answer it."""
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
    left_out = [
        {"memory_id": memory_id, "section": section, "reason": reason}
        for memory_id, section, reason in assembly.left_out
    ]
    return ContextBlock(assembly.context, sections, assembly.tokens, budget, judged, took, left_out)
