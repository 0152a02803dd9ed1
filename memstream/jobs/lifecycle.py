"""The lifecycle jobs: close sessions, consolidate them into facts, decay, reflect.

Each job reads the projections, asks a pure function (or an extractor, a reflection
writer: rules or a language model) what to do, and returns the events carrying those
decisions; the caller publishes them (the
worker's timer, or ``memstream jobs``), and the projector applies them like any other
event. Nothing here writes a table: the log stays the truth, and replaying it never
runs a job again. Every job takes ``now``; none reads a clock.

Model calls are slow and may fail: sessions are consolidated ``model_concurrency`` at
a time, and a session whose extraction fails (after the model client's own retries) is
reported in :attr:`JobResult.failed` and left unconsolidated, so the next run tries it
again.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import partial
from typing import Any, Protocol

from memstream.adapters.language_models import ModelError, combined_usage
from memstream.adapters.reflection import LocalReflector, Week
from memstream.events.vocabulary import (
    DERIVED_KINDS,
    ConfidenceDecayed,
    DerivedMemory,
    Event,
    FactsConsolidated,
    MemoryLink,
    MemoryPruned,
    ReflectionWritten,
    SessionClosed,
    TokenUsage,
)
from memstream.policies.decay import DecayCandidate, decay_decisions, is_stable_fact
from memstream.policies.lifecycle import LifecyclePolicy
from memstream.projections.memory_state import effective_confidence, is_hidden
from memstream.projections.sessions import (
    is_open,
    needs_consolidation,
    session_key,
    sessions_to_close,
)
from memstream.queries.memory_usage import usage_of
from memstream.storage import filters
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.lance.tables import ENTITIES, MEMORIES
from memstream.streams.topics import MESSAGES
from memstream.text.extractor import Turn

__all__ = [
    "Extractor",
    "JobResult",
    "LifecycleJobs",
    "LifecyclePolicy",
    "Linker",
    "Reflector",
    "UserFilter",
    "closure_key",
    "week_before",
]

log = logging.getLogger(__name__)

#: Whether a job works on a user here (the users of the partitions a worker owns).
UserFilter = Callable[[str], bool]

#: Sessions whose turns are read in one scan.
_SESSIONS_PER_READ = 500


class Extractor(Protocol):
    """Turns a closed session's turns into memories (a model, or rules)."""

    name: str

    def extract(
        self, user_id: str, session_id: str, turns: Sequence[Turn]
    ) -> tuple[list[DerivedMemory], TokenUsage | None]: ...


class Linker(Protocol):
    """What links a session's statements back to earlier memories."""

    def links(
        self, user_id: str, episodes: Sequence[Mapping[str, Any]]
    ) -> tuple[list[MemoryLink], TokenUsage | None]: ...


class Reflector(Protocol):
    """Writes a user's weekly reflection (a model, or rules)."""

    name: str

    def reflect(self, week: Week, decided_at: datetime) -> ReflectionWritten | None: ...


@dataclass(frozen=True)
class JobResult:
    """What a job decided (events in publishing order) and what it could not do
    (closure or user → reason), to be tried again at the next run."""

    events: list[Event]
    failed: dict[str, str] = field(default_factory=dict)
    #: sessions left for a later run by the run's bounds (how many, or how much text)
    waiting: int = 0


def closure_key(user_id: str, session_id: str, through: datetime) -> str:
    """Names one closure of a session (``user|session|through``)."""
    return f"{user_id}|{session_id}|{through.isoformat()}"


def week_before(now: datetime) -> tuple[datetime, datetime]:
    """The last whole ISO week (Monday 00:00 UTC to Monday 00:00) before ``now``."""
    monday = (now - timedelta(days=now.weekday())).replace(
        hour=0, minute=0, second=0, microsecond=0
    )
    return monday - timedelta(days=7), monday


class LifecycleJobs:
    """The jobs over one store.

    Args:
        store: the projections to read.
        extractor: what turns sessions into facts.
        policy: gaps, rates, thresholds and concurrency.
        reflector: what writes weekly reflections (the local rules by default).
        linker: what links a consolidated session's statements to earlier memories
            (:class:`memstream.jobs.linking.NearestLinker`; None: no links).
    """

    def __init__(
        self,
        store: ProjectionStore,
        extractor: Extractor,
        policy: LifecyclePolicy,
        reflector: Reflector | None = None,
        linker: Linker | None = None,
    ) -> None:
        self.store = store
        self.extractor = extractor
        self.policy = policy
        self.reflector: Reflector = reflector or LocalReflector()
        self.linker = linker

    # -- sessions and consolidation ------------------------------------------------

    def _closures(
        self, pending: list[dict[str, Any]], now: datetime, as_of: bool
    ) -> list[SessionClosed]:
        return sessions_to_close(
            [r for r in pending if is_open(r)],
            self.store.queries.watermarks(MESSAGES),
            now,
            self.policy.session_gap,
            self.policy.session_idle,
            event_now=now if as_of else None,
        )

    def _pending(self, user_id: str | None, partitions: set[int] | None) -> list[dict[str, Any]]:
        rows = self.store.queries.sessions_needing_work(user_id)
        if partitions is None:
            return rows
        return [r for r in rows if r["log_partition"] in partitions]

    def consolidate(
        self,
        now: datetime,
        user_id: str | None = None,
        skip: frozenset[str] = frozenset(),
        partitions: set[int] | None = None,
        limit: int | None = None,
        as_of: bool = False,
        characters: int | None = None,
    ) -> JobResult:
        """Close what the rule closes, then consolidate every closed, unconsolidated span.

        With ``as_of``, ``now`` is the event-time clock too (a run for a given time, not
        the worker's timer): see :func:`memstream.projections.sessions.sessions_to_close`.

        The result holds the ``SessionClosed`` and ``FactsConsolidated`` events in
        publishing order, and the closures whose extraction failed. ``skip`` names
        closures (:func:`closure_key`) already being handled (closed or consolidated by
        events not applied yet); ``limit`` caps how many sessions one run closes, and
        how many it consolidates, and ``characters`` how much text of their turns it
        reads (a run's time is in proportion to its text: a session that would pass the
        bound waits for the next run, unless it is the run's first).
        """
        self.store.refresh()
        pending = self._pending(user_id, partitions)
        closed = [
            e
            for e in self._closures(pending, now, as_of)
            if closure_key(e.user_id, e.session_id, e.through) not in skip
        ][:limit]
        rows = {r["session_key"]: dict(r) for r in pending}
        for event in closed:  # consolidate what this run closes, without waiting for it
            row = rows.get(session_key(event.user_id, event.session_id))
            if row is not None:
                row["closed_through"] = event.through
        wanted = [
            row
            for row in sorted(rows.values(), key=lambda r: r["session_key"])
            if needs_consolidation(row) and _closure_of(row) not in skip
        ]
        todo = wanted[:limit]
        events: list[Event] = list(closed)
        failed: dict[str, str] = {}
        workers = max(1, min(self.policy.model_concurrency, len(todo)))
        budget = _TextBudget(characters)
        with ThreadPoolExecutor(workers, thread_name_prefix="consolidate") as pool:
            run = map if workers == 1 else pool.map  # rules need no threads
            for start in range(0, len(todo), _SESSIONS_PER_READ):
                episodes = self.store.queries.session_episodes(
                    [_span(r) for r in todo[start : start + _SESSIONS_PER_READ]]
                )
                chunk = budget.take(todo[start : start + _SESSIONS_PER_READ], episodes)
                if not chunk:
                    break
                attempt = partial(self._attempt, episodes=episodes, now=now)
                for row, outcome in zip(chunk, run(attempt, chunk), strict=True):
                    if isinstance(outcome, str):
                        log.warning("consolidating %s failed: %s", _closure_of(row), outcome)
                        failed[_closure_of(row)] = outcome
                    else:
                        events.append(outcome)
        return JobResult(events, failed, len(wanted) - budget.taken)

    def _attempt(
        self,
        row: dict[str, Any],
        episodes: dict[tuple[str, str], list[dict[str, Any]]],
        now: datetime,
    ) -> FactsConsolidated | str:
        """The session's consolidation, or why the extractor failed."""
        try:
            return self._consolidated(row, episodes[(row["user_id"], row["session_id"])], now)
        except ModelError as exc:
            return str(exc)

    def _consolidated(
        self, row: dict[str, Any], episodes: list[dict[str, Any]], now: datetime
    ) -> FactsConsolidated:
        """Extract facts from a session's turns after ``consolidated_through`` up to
        ``closed_through``."""
        through: datetime = row["closed_through"]
        turns = [
            Turn(
                event_id=(e["source_event_ids"] or [e["memory_id"]])[0],
                speaker=e["speaker"],
                role=e["role"],
                content=e["content"],
                occurred_at=e["occurred_at"],
            )
            for e in episodes
        ]
        memories, usage = self.extractor.extract(row["user_id"], row["session_id"], turns)
        links: list[MemoryLink] = []
        linking: TokenUsage | None = None
        if self.linker is not None:
            links, linking = self.linker.links(row["user_id"], episodes)
        return FactsConsolidated(
            event_id=f"consolidated|{row['session_key']}|{through.isoformat()}",
            user_id=row["user_id"],
            project_id=row["project_id"],
            session_id=row["session_id"],
            through=through,
            extractor=self.extractor.name,
            memories=memories,
            links=links,
            usage=combined_usage(usage, linking),
            decided_at=now,
        )

    # -- decay ---------------------------------------------------------------------

    def decay(
        self, now: datetime, user_id: str | None = None, owns: UserFilter | None = None
    ) -> list[ConfidenceDecayed | MemoryPruned]:
        """New confidences as of ``now`` and the memories to prune, per user (of those
        ``owns`` accepts, if given)."""
        self.store.refresh()
        out: list[ConfidenceDecayed | MemoryPruned] = []
        for user, candidates in sorted(self._decay_candidates(user_id).items()):
            if owns is not None and not owns(user):
                continue
            decayed, pruned = decay_decisions(
                user, candidates, now, self.policy.decay_rates, self.policy.prune_threshold
            )
            out.extend(e for e in (decayed, pruned) if e is not None)
        return out

    def weak_facts(self, user_id: str, now: datetime) -> list[dict[str, Any]]:
        """A user's memories within ``weak_margin`` above the prune threshold (or under
        it, not pruned yet), weakest first, with the confidence decay would give now."""
        self.store.refresh()
        limit = self.policy.prune_threshold + self.policy.weak_margin
        found = []
        for c in self._decay_candidates(user_id).get(user_id, []):
            if is_hidden(c.state):
                continue
            current = effective_confidence(c.confidence, c.state)
            if current <= limit:
                found.append({"memory_id": c.memory_id, "kind": c.kind, "confidence": current})
        found.sort(key=lambda f: (f["confidence"], f["memory_id"]))
        return found

    def _decay_candidates(self, user_id: str | None) -> dict[str, list[DecayCandidate]]:
        kinds = [k for k in DERIVED_KINDS if k in self.policy.decay_rates]
        where = filters.all_of(
            filters.is_in("kind", kinds),
            filters.equals("user_id", user_id) if user_id is not None else "",
        )
        columns = ["memory_id", "user_id", "kind", "confidence", "occurred_at", "attribute"]
        rows = self.store.scan(MEMORIES, [*columns, "content"], where).to_pylist()
        if not rows:
            return {}
        used = usage_of(self.store, rows)
        by_user: dict[str, list[DecayCandidate]] = {}
        for r in rows:
            u = used[r["memory_id"]]
            by_user.setdefault(r["user_id"], []).append(
                DecayCandidate(
                    memory_id=r["memory_id"],
                    kind=r["kind"],
                    confidence=float(r["confidence"] if r["confidence"] is not None else 1.0),
                    occurred_at=r["occurred_at"],
                    access_count=u.access_count,
                    last_accessed=u.last_accessed,
                    state=u.state,
                    stable=is_stable_fact(r["kind"], r["attribute"], r["content"]),
                )
            )
        return by_user

    # -- reflection ----------------------------------------------------------------

    def reflect(
        self, now: datetime, user_id: str | None = None, owns: UserFilter | None = None
    ) -> JobResult:
        """A reflection per user on the last whole week before ``now`` (users with new
        facts that week only, of those ``owns`` accepts, if given); users whose
        reflection failed are in ``failed``."""
        self.store.refresh()
        start, end = week_before(now)
        week = filters.all_of(
            filters.at_least("occurred_at", start), filters.before("occurred_at", end)
        )
        scope = filters.equals("user_id", user_id) if user_id is not None else ""
        facts = self.store.scan(
            MEMORIES,
            where=filters.all_of(
                week, scope, filters.is_in("kind", ["fact", "preference", "procedure", "opinion"])
            ),
        ).to_pylist()
        by_user: dict[str, list[dict[str, Any]]] = {}
        for f in facts:
            by_user.setdefault(f["user_id"], []).append(f)
        out: list[Event] = []
        failed: dict[str, str] = {}
        for user, user_facts in sorted(by_user.items()):
            if owns is not None and not owns(user):
                continue
            learned = Week(user, start, end, user_facts, self._mentions(user, week))
            try:
                event = self.reflector.reflect(learned, now)
            except ModelError as exc:
                log.warning("reflecting on %s's week failed: %s", user, exc)
                failed[user] = str(exc)
                continue
            if event is not None:
                out.append(event)
        return JobResult(out, failed)

    def _mentions(self, user_id: str, week: str) -> dict[str, int]:
        episodes = self.store.scan(
            MEMORIES,
            ["entity_ids"],
            filters.all_of(
                filters.equals("user_id", user_id), filters.equals("kind", "episode"), week
            ),
        ).to_pylist()
        counts = Counter(e for row in episodes for e in (row["entity_ids"] or []))
        if not counts:
            return {}
        names = {
            r["entity_id"]: r["canonical_name"]
            for r in self.store.by_ids(ENTITIES, list(counts))
            if r["type"] == "person"
        }
        return {names[e]: n for e, n in counts.items() if e in names}


def _span(row: Mapping[str, Any]) -> tuple[str, str, datetime | None, datetime]:
    return (row["user_id"], row["session_id"], row["consolidated_through"], row["closed_through"])


def _closure_of(row: Mapping[str, Any]) -> str:
    return closure_key(row["user_id"], row["session_id"], row["closed_through"])


class _TextBudget:
    """How much text of sessions' turns a consolidation run may still read (None: no
    bound); the run's first session is taken whatever its size."""

    def __init__(self, characters: int | None) -> None:
        self.left = characters
        self.taken = 0

    def take(
        self,
        rows: list[dict[str, Any]],
        episodes: dict[tuple[str, str], list[dict[str, Any]]],
    ) -> list[dict[str, Any]]:
        """The first of ``rows`` whose turns fit what is left (all, without a bound)."""
        if self.left is None:
            self.taken += len(rows)
            return rows
        chosen = []
        for row in rows:
            turns = episodes.get((row["user_id"], row["session_id"]), [])
            size = sum(len(e["content"] or "") for e in turns)
            if self.taken and size > self.left:
                break
            self.left -= size
            self.taken += 1
            chosen.append(row)
        return chosen
