"""The archive job, and expanding and restoring archived memories.

:meth:`Archiver.archive` selects cold memories (:mod:`memstream.policies.coldness`), and for
each user-month batch: summarizes each memory (local extractive summary, or a language
model when one is configured; a short chat turn is its own summary), keeps each
memory's vector (or embeds the summary of one without, when an embedder is configured)
and its provenance, writes the full originals (row and vector) to the Parquet cold
store under a name derived from the batch's memory ids, reads them back and checks
their checksums, and returns one ``MemoryArchived`` per memory for the caller to
publish. The projector
then moves each memory out of the hot tables. A crash before publishing leaves the
memories hot (a re-run writes the same file again); after publishing, the projector
finishes the move however often the events are applied: every memory ends up exactly
once, hot or archived.

:meth:`Archiver.expand` reads an original back (and returns the ``MemoryExpanded``
to publish, plus a ``MemoryRestored`` once a memory was expanded often enough);
:meth:`Archiver.restore` returns the ``MemoryRestored`` events of one memory or of all a
user's archived memories. Nothing here writes a table; time is passed in.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import pyarrow.compute as pc

from memstream.adapters.embedders import Embedder
from memstream.adapters.summarizer import local_summaries
from memstream.events.vocabulary import MemoryArchived, MemoryExpanded, MemoryRestored
from memstream.policies.coldness import ColdCandidate, ColdDecision, ColdPolicy, cold_decisions
from memstream.projections.archiving import (
    ARCHIVED,
    archive_id,
    expansions_within,
    is_archived,
    original_of,
    storage_ref_of,
)
from memstream.projections.memory_state import is_hidden
from memstream.queries.memory_usage import usage_of
from memstream.storage import filters
from memstream.storage.archive.cold_store import ColdStore, StorageRef
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.lance.tables import ARCHIVE_INDEX, MEMORIES, VECTORS
from memstream.storage.schemas import MEMORIES_SCHEMA

__all__ = ["Archiver", "Expansion", "NotArchived"]

#: A memory expanded this often within ``_PROMOTE_WINDOW`` is restored automatically.
PROMOTE_AFTER_EXPANSIONS = 3
_PROMOTE_WINDOW = timedelta(days=30)
_BATCH = 1000


class NotArchived(LookupError):
    """The memory is not archived (never was, restored since, or another user's)."""


@dataclass(frozen=True)
class Expansion:
    """An archived memory's original, and the events reading it gives rise to."""

    original: dict[str, Any]
    events: list[MemoryExpanded | MemoryRestored]


class Archiver:
    """Archive, expand and restore over one store and one cold store."""

    def __init__(
        self,
        store: ProjectionStore,
        cold: ColdStore,
        policy: ColdPolicy,
        embedder: Embedder | None = None,
        summarizer: Callable[[Sequence[str]], list[str]] = local_summaries,
    ) -> None:
        self.store = store
        self.cold = cold
        self.policy = policy
        self.embedder = embedder
        self.summarizer = summarizer

    def candidates(self, now: datetime, user_id: str | None = None) -> list[ColdDecision]:
        """The memories the criteria select as of ``now``, coldest first (one user at a
        time, reading only memories old enough to have been idle long enough for some
        rule, and counting the user's hot memories for the budget)."""
        self.store.refresh()
        policy = self.policy
        old_enough = filters.at_most("occurred_at", now - timedelta(days=policy.youngest_idle_days))
        users = [user_id] if user_id is not None else self._users(old_enough)
        decisions: list[ColdDecision] = []
        for user in users:
            mine = filters.equals("user_id", user)
            rows = self.store.scan(
                MEMORIES,
                ["memory_id", "user_id", "occurred_at", "importance"],
                filters.all_of(mine, old_enough),
            ).to_pylist()
            hot = {user: self.store.count(MEMORIES, mine)}
            decisions += self._decide(rows, now, hot)
        decisions.sort(key=lambda d: (d.hotness, -d.idle_days, d.memory_id))
        return decisions

    def _users(self, where: str) -> list[str]:
        column = self.store.scan(MEMORIES, ["user_id"], where).column("user_id")
        return sorted(str(u) for u in pc.unique(column).to_pylist())

    def _decide(
        self, rows: Sequence[dict[str, Any]], now: datetime, hot: dict[str, int]
    ) -> list[ColdDecision]:
        used = usage_of(self.store, rows)
        candidates = []
        for r in rows:
            if r["occurred_at"] is None:
                continue
            u = used[r["memory_id"]]
            candidates.append(
                ColdCandidate(
                    memory_id=r["memory_id"],
                    user_id=r["user_id"],
                    occurred_at=r["occurred_at"],
                    importance=float(r["importance"] if r["importance"] is not None else 0.5),
                    access_count=u.access_count,
                    last_accessed=u.last_accessed,
                    protected=bool(u.state and u.state["protected_at"] is not None),
                    hidden=is_hidden(u.state),
                )
            )
        return cold_decisions(candidates, now, self.policy, hot)

    def archive(
        self,
        now: datetime,
        user_id: str | None = None,
        limit: int | None = None,
        owns: Callable[[str], bool] | None = None,
    ) -> list[MemoryArchived]:
        """Write the originals of the cold memories (at most ``limit``, of the users
        ``owns`` accepts, if given) to the cold store and return the
        ``MemoryArchived`` events."""
        decisions = [d for d in self.candidates(now, user_id) if owns is None or owns(d.user_id)][
            :limit
        ]
        out: list[MemoryArchived] = []
        for start in range(0, len(decisions), _BATCH):
            out.extend(self._archive_batch(decisions[start : start + _BATCH], now))
        return out

    def _archive_batch(
        self, decisions: Sequence[ColdDecision], now: datetime
    ) -> list[MemoryArchived]:
        ids = [d.memory_id for d in decisions]
        rows = {r["memory_id"]: r for r in self.store.by_ids(MEMORIES, ids)}
        vectors = {r["memory_id"]: r for r in self.store.by_ids(VECTORS, ids)}
        groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
        for d in decisions:
            row = rows.get(d.memory_id)
            if row is None or row["user_id"] != d.user_id:
                continue
            original = original_of(
                {k: row[k] for k in MEMORIES_SCHEMA.names}, vectors.get(d.memory_id)
            )
            groups[(d.user_id, row["occurred_at"].strftime("%Y-%m"))].append(original)
        decided = {d.memory_id: d for d in decisions}
        out = []
        for (user, month), originals in sorted(groups.items()):
            refs = self.cold.write(user, month, originals)
            summaries = self.summarizer([o["content"] for o in originals])
            vectors_of = self._summary_vectors(originals, summaries)
            for i, o in enumerate(originals):
                (ref, checksum), d = refs[o["memory_id"]], decided[o["memory_id"]]
                vector, model = vectors_of[i]
                out.append(
                    MemoryArchived(
                        event_id=f"archived|{o['memory_id']}|{now.isoformat()}",
                        user_id=user,
                        memory_id=o["memory_id"],
                        project_id=o["project_id"],
                        kind=o["kind"],
                        session_id=o["session_id"],
                        speaker=o["speaker"],
                        tags=list(o["tags"] or []),
                        importance=o["importance"],
                        confidence=o["confidence"],
                        occurred_at=o["occurred_at"],
                        source_event_ids=list(o["source_event_ids"] or []),
                        entity_ids=list(o["entity_ids"] or []),
                        summary=summaries[i] or o["content"][:320] or "(empty)",
                        summary_vector=vector,
                        summary_model=model,
                        storage_ref=str(ref),
                        checksum=checksum,
                        reason=d.reason,
                        hotness=min(1.0, d.hotness),
                        archived_at=now,
                    )
                )
        return out

    def _summary_vectors(
        self, originals: Sequence[dict[str, Any]], summaries: Sequence[str]
    ) -> list[tuple[list[float] | None, str | None]]:
        """The vector each archived memory is found by, and its model: the memory's own
        vector (it stands for the whole memory, and search compares it with queries
        embedded by the same model); for a memory without one, its summary's, when an
        embedder is configured."""
        wanted = self.embedder.model if self.embedder is not None else None
        out: list[tuple[list[float] | None, str | None]] = [
            (o["vector"], o["vector_model"])
            if o["vector"] is not None and (wanted is None or o["vector_model"] == wanted)
            else (None, None)
            for o in originals
        ]
        missing = [i for i, (vector, _) in enumerate(out) if vector is None]
        if missing and self.embedder is not None:
            embedded = self.embedder.embed([summaries[i] for i in missing]).tolist()
            for i, vector in zip(missing, embedded, strict=True):
                out[i] = (vector, wanted)
        return out

    def _archived_row(self, user_id: str, memory_id: str) -> dict[str, Any]:
        self.store.refresh([ARCHIVE_INDEX])
        key, mine = archive_id(user_id, memory_id), filters.equals("user_id", user_id)
        found = self.store.by_ids(ARCHIVE_INDEX, [key], where=mine)
        if not found or not is_archived(found[0]):
            raise NotArchived(f"memory {memory_id} of {user_id} is not archived")
        return found[0]

    def expand(self, user_id: str, memory_id: str, now: datetime) -> Expansion:
        """The original of an archived memory, exactly as it was archived, with the
        ``MemoryExpanded`` to publish (and a ``MemoryRestored`` when this is its third
        expansion within 30 days)."""
        row = self._archived_row(user_id, memory_id)
        original = self.cold.read(StorageRef.parse(storage_ref_of(row)))
        events: list[MemoryExpanded | MemoryRestored] = [
            MemoryExpanded(user_id=user_id, memory_id=memory_id, expanded_at=now)
        ]
        if expansions_within(row, now, _PROMOTE_WINDOW) + 1 >= PROMOTE_AFTER_EXPANSIONS:
            events.append(
                MemoryRestored(
                    user_id=user_id,
                    memory_id=memory_id,
                    storage_ref=storage_ref_of(row),
                    reason=f"expanded {PROMOTE_AFTER_EXPANSIONS} times within 30 days",
                    restored_at=now,
                )
            )
        return Expansion(original, events)

    def restore(
        self, user_id: str, memory_id: str | None, now: datetime, reason: str = "requested"
    ) -> list[MemoryRestored]:
        """``MemoryRestored`` for one archived memory, or (``memory_id`` None) for every
        archived memory of the user."""
        if memory_id is not None:
            rows = [self._archived_row(user_id, memory_id)]
        else:
            self.store.refresh([ARCHIVE_INDEX])
            rows = self.store.scan(
                ARCHIVE_INDEX,
                ["memory_id", "storage_file", "storage_version"],
                filters.all_of(filters.equals("user_id", user_id), ARCHIVED),
            ).to_pylist()
        return [
            MemoryRestored(
                user_id=user_id,
                memory_id=r["memory_id"],
                storage_ref=storage_ref_of(r),
                reason=reason,
                restored_at=now,
            )
            for r in sorted(rows, key=lambda r: r["memory_id"])
        ]
