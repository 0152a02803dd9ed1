"""Upkeep of memory on request: running a lifecycle job now, the weak facts and archive
candidates it would act on, archiving, expanding and restoring archived memories, and
erasing a user."""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import time
from datetime import datetime
from typing import TYPE_CHECKING, Any

from memstream.application.callers import LOCAL, Caller
from memstream.application.core import Job, Parts, UseCase
from memstream.application.erasure_probes import ErasureSample, probe_reads, sample_of
from memstream.application.erasure_receipts import receipt_body, signed
from memstream.application.errors import NotFound
from memstream.application.results import (
    Accepted,
    ArchiveReport,
    Erased,
    Expanded,
    JobReport,
)
from memstream.events.short_ids import short_id
from memstream.events.vocabulary import (
    Event,
    MemoryRestored,
)
from memstream.jobs.archiver import NotArchived
from memstream.observability import tracing
from memstream.policies.coldness import ColdDecision
from memstream.policies.scope import valid_identifier
from memstream.runtime import assembly as components
from memstream.storage.data_keys import DataKeys
from memstream.storage.filters import equals
from memstream.storage.lance.tables import DOCUMENTS, MEMORIES
from memstream.storage.shared_folder import SharedFolder
from memstream.storage.signing_key import SigningKey
from memstream.streams.sealing import data_keys_of, erasure_event

if TYPE_CHECKING:
    from memstream.application.reading import MemoryReads

__all__ = ["Upkeep"]

log = logging.getLogger(__name__)


class Upkeep(UseCase):
    """The use cases of upkeep on request (see the module docstring); an erasure's
    receipt asks every read path of ``reads`` for the user afterwards."""

    def __init__(self, parts: Parts, reads: MemoryReads) -> None:
        super().__init__(parts)
        self._reads = reads

    async def erase(
        self, user_id: str, wait_seconds: float = 120.0, caller: Caller = LOCAL
    ) -> Erased:
        """Erase everything of ``user_id``: destroy the user's data keys (from then on
        nothing sealed under them opens, in the log, the journal or the event archive),
        publish ``UserErased`` so every projection and the cold store drop the user, and
        wait up to ``wait_seconds`` for the worker to finish (``complete``). Asking
        again finishes an erasure a crash interrupted. A complete erasure's answer
        carries its receipt: what each store removed, and what every read path found
        of the user afterwards, signed (:mod:`.erasure_receipts`)."""
        valid_identifier("user_id", user_id)
        with tracing.memory_span("delete_memory_store", user_id):
            return await self._erase(user_id, wait_seconds, caller)

    async def _erase(self, user_id: str, wait_seconds: float, caller: Caller) -> Erased:
        started = time.perf_counter()
        rows = await self._blocking(self._holds_rows, user_id)
        sample = await self._blocking(sample_of, self._reads, user_id)
        keys = data_keys_of(self.settings)
        erasure = await self._blocking(keys.erase, user_id, self.clock())
        await self.sink.publish([erasure_event(erasure)])
        deadline = time.monotonic() + wait_seconds
        while keys.is_pending(user_id) and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
        complete = not keys.is_pending(user_id)
        if self.parts.opened_searcher is not None:
            self.parts.opened_searcher.forget(user_id)
        receipt = None
        if complete:
            try:
                receipt = await self._receipt(
                    user_id, erasure.key_ids, erasure.requested_at, keys, sample
                )
            except Exception:  # the erasure is done: its answer says so, without a receipt
                log.warning("the erasure of a user is complete; its receipt failed", exc_info=True)
        self._audited(caller, "erase", user_id, 200 if complete else 202)
        return Erased(
            user_id,
            erasure.key_ids,
            erasure.requested_at,
            complete,
            time.perf_counter() - started,
            held=rows or bool(erasure.key_ids),
            receipt=receipt,
        )

    async def _receipt(
        self,
        user_id: str,
        key_ids: tuple[str, ...],
        requested_at: datetime,
        keys: DataKeys,
        sample: ErasureSample,
    ) -> dict[str, Any]:
        """The signed receipt of ``user_id``'s finished erasure, kept beside the others."""
        probes = await probe_reads(self._reads, user_id, sample)
        removed = await self._blocking(keys.removed_by_erasure, user_id)
        body = receipt_body(user_id, requested_at, self.clock(), key_ids, removed, probes)
        receipt = await self._blocking(signed, body, self.signing_key())
        user = hashlib.sha256(user_id.encode()).hexdigest()[:32]  # the store lists no ids
        name = f"{user}/{requested_at:%Y%m%dT%H%M%S%f}.json"
        folder = SharedFolder(self.settings.erasure_receipts_location)
        await self._blocking(folder.write, name, json.dumps(receipt, indent=1).encode())
        return receipt

    def decay_rate(self, kind: str) -> float | None:
        """How fast the confidence of a memory of ``kind`` decays while unused, per day
        (None: a kind that does not decay)."""
        return components.lifecycle_policy(self.settings).decay_rates.get(kind)

    def signing_key(self) -> SigningKey:
        """The deployment's signing key (see :mod:`memstream.storage.signing_key`)."""
        return SigningKey(SharedFolder(self.settings.signing_key_location))

    def _holds_rows(self, user_id: str) -> bool:
        """Whether the projections hold a memory or a document of ``user_id``."""
        try:
            store = self.store
        except NotFound:  # no projections yet: nothing of anyone
            return False
        store.refresh()
        mine = equals("user_id", user_id)
        return any(store.count(table, mine) > 0 for table in (MEMORIES, DOCUMENTS))

    async def expand(self, user_id: str, memory_id: str) -> Expanded:
        """An archived memory's original, read from cold storage exactly as archived
        (three expansions in 30 days restore it)."""
        memory_id = await self._memory_named(user_id, memory_id)
        try:
            expansion = await self._blocking(
                self.parts.archiver().expand, user_id, memory_id, self.clock()
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
            events = await self._blocking(
                self.parts.archiver().restore, user_id, memory_id, self.clock()
            )
        except NotArchived:
            raise await self._not_archived(user_id, memory_id or "") from None
        accepted = Accepted.of(await self.sink.publish(events), memory_id) if events else None
        self._audited(caller, "restore", user_id, 202, memories=len(events))
        return accepted or Accepted([], memory_id)

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
        jobs = self.parts.lifecycle()
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

    async def weak_facts(self, user_id: str, now: datetime | None = None) -> list[dict[str, Any]]:
        """The user's memories near the prune threshold, weakest first."""
        valid_identifier("user_id", user_id)
        found: list[dict[str, Any]] = await self._blocking(
            self.parts.lifecycle().weak_facts, user_id, now or self.clock()
        )
        return found

    async def archive_candidates(
        self, now: datetime | None = None, user_id: str | None = None
    ) -> list[ColdDecision]:
        """Who the archive job would move now, and why (nothing is written)."""
        return await self._blocking(self.parts.archiver().candidates, now or self.clock(), user_id)

    async def archive(
        self, now: datetime | None = None, user_id: str | None = None
    ) -> ArchiveReport:
        """Move what is cold to the cold store, publish the archive events, then merge
        small cold files."""
        archiver = self.parts.archiver(summarizing=True)
        events: list[Event] = list(
            await self._blocking(archiver.archive, now or self.clock(), user_id)
        )
        if events:
            await self.sink.publish(events)
        merged = await self._blocking(archiver.cold.compact)
        return ArchiveReport(events, merged)
