"""How fresh reads are, and reads that wait for a write: the write-token wait
(``after_write``), the freshness an answer carries, and the background sampling of the
worker's checkpoints, the log's ends and the user's memories without vectors that keeps
it cheap (see :mod:`memstream.application.freshness_gauge`). The base of
:class:`memstream.application.reading.MemoryReads`."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Coroutine
from typing import Any

from memstream.application.core import ACCESS_REPORT_SECONDS, Parts, UseCase
from memstream.application.errors import NotFound
from memstream.application.freshness_gauge import FreshnessGauge, LogEnds
from memstream.application.read_after_write import (
    Waited,
    WaitFor,
    read_token,
    wait_for_write,
)
from memstream.policies.scope import valid_identifier
from memstream.queries.freshness import Freshness, freshness_of
from memstream.queries.stats import embedding_lag
from memstream.storage.lance.tables import MEMORIES, VECTORS
from memstream.storage.log_records import Checkpoints
from memstream.storage.write_tokens import behind
from memstream.streams.partitioning import partition_of
from memstream.streams.topics import PROJECTED_TOPICS, log_ends, read_epoch

log = logging.getLogger(__name__)

__all__ = ["FreshReads"]


class FreshReads(UseCase):
    """Waiting for writes, and saying how fresh a read is (see the module docstring)."""

    def __init__(self, parts: Parts) -> None:
        super().__init__(parts)
        #: what the store's views are known to hold: how fresh reads are, said in their
        #: answers, and whether a read after a write need wait (see
        #: :mod:`memstream.application.freshness_gauge`)
        self._gauge = FreshnessGauge(parts.read_consistency)
        #: work beside the reads (samples, access reports, served records)
        self._pending: set[asyncio.Task[None]] = set()

    async def settle(self) -> None:
        """Wait (briefly) for the work still running beside the reads: access reports
        and served records on their way to the log, samples of the checkpoints."""
        if self._pending:
            await asyncio.wait(set(self._pending), timeout=ACCESS_REPORT_SECONDS)

    async def after_write(
        self,
        token: str | None,
        user_id: str,
        wait: WaitFor = "applied",
        seconds: float | None = None,
    ) -> Waited | None:
        """Wait until the projections hold the write ``token`` names (with ``wait`` =
        "vectors", until the user's memories have their vectors too), then read the
        tables as of their newest versions; how long that took (None: no token).
        ``seconds``: the longest wait (default ``read_after_write_seconds``).

        Raises:
            InvalidQuery: ``token`` is not a write token.
            NotYetApplied: not within ``seconds`` (503 with ``Retry-After``).
        """
        if token is None:
            return None
        written = read_token(token)
        valid_identifier("user_id", user_id)
        consumer = self.settings.consumer_group

        def checkpoints() -> Checkpoints:
            try:
                return self.store.load_checkpoints(consumer)
            except NotFound:  # no projections yet: nothing applied
                return {}

        vectors = None
        if wait == "vectors" and self.settings.embedder != "none":
            vectors = lambda: self._vectors_pending_now(user_id)  # noqa: E731
        else:
            held = self._gauge.reflected(time.monotonic())
            if held is not None and not behind(written, held):
                return Waited(0.0, {})  # in the views already: nothing to read or refresh
        limit = seconds if seconds is not None else self.settings.read_after_write_seconds
        waited = await wait_for_write(written, checkpoints, vectors_pending=vectors, seconds=limit)
        store = self.store
        taken = time.monotonic()
        await self._blocking(store.see_latest)
        self._gauge.sampled(taken, waited.checkpoints, refreshed=True)
        return waited

    async def _freshness(self, user_id: str, *, refresh: bool = False) -> Freshness:
        """How fresh a read of ``user_id`` that starts now is (called before the read:
        after a pause it reads the checkpoints first; with ``refresh``, or in a process
        whose views never move by themselves, it also brings every table to its newest
        version). See :mod:`memstream.application.freshness_gauge`."""
        gauge = self._gauge
        now = time.monotonic()
        applied = None if refresh else gauge.applied(now)
        if applied is None:
            applied = await self._blocking(self._sample, refresh or not gauge.views_refresh)
        elif gauge.sample_due(now) and gauge.start("checkpoints"):
            self._in_background(self._sample_beside(), "checkpoints")
        reflected = gauge.reflected(time.monotonic())
        if gauge.ends_due(now) and gauge.start("ends"):
            self._in_background(self._ask_log_ends(), "ends")
        pending_vectors = None
        if self.settings.embedder != "none":
            pending_vectors, again = gauge.pending_vectors(user_id, now)
            if pending_vectors is None:
                pending_vectors = await self._blocking(self._count_vectors, user_id)
            elif again and gauge.start(f"vectors:{user_id}"):
                self._in_background(self._count_beside(user_id), f"vectors:{user_id}")
        ends = gauge.ends()
        return freshness_of(
            partition_of(user_id, self.settings.messages_partitions),
            reflected,
            ends.ends if ends is not None else None,
            ends.epoch if ends is not None else None,
            pending_vectors,
            applied=applied,
        )

    def _sample(self, refresh: bool) -> Checkpoints:
        """Read the worker's checkpoints as of their newest version (with ``refresh``,
        then bring every table to its newest version) and keep them in the gauge."""
        taken = time.monotonic()
        try:
            store = self.store
            checkpoints = store.load_checkpoints(self.settings.consumer_group)
        except NotFound:  # no projections yet: nothing applied
            return {}
        if refresh:
            store.see_latest()
        self._gauge.sampled(taken, checkpoints, refreshed=refresh)
        return checkpoints

    def _vectors_pending_now(self, user_id: str) -> int:
        """The user's memories without a vector, counted on the newest versions of both
        tables: a view a moment old (a reader's) may not hold the memories a write just
        made, and would answer that none waits."""
        self.store.refresh((MEMORIES, VECTORS))
        return embedding_lag(self.store, user_id)

    def _count_vectors(self, user_id: str) -> int:
        taken = time.monotonic()
        try:
            pending = embedding_lag(self.store, user_id)
        except NotFound:
            pending = 0
        self._gauge.counted(user_id, taken, pending)
        return pending

    async def _sample_beside(self) -> None:
        await self._blocking(self._sample, False)

    async def _count_beside(self, user_id: str) -> None:
        await self._blocking(self._count_vectors, user_id)

    async def _ask_log_ends(self) -> None:  # in the background: no read waits on it
        self._gauge.ended(await self._log_ends(timeout=15.0), time.monotonic())

    def _in_background(self, work: Coroutine[Any, Any, None], name: str) -> None:
        """Run ``work`` beside the reads (best effort: a failure is logged, and marks
        ``name`` done in the gauge either way)."""

        async def run() -> None:
            try:
                await work
            except Exception:
                log.warning("could not update how fresh reads are (%s)", name, exc_info=True)
            finally:
                self._gauge.finish(name)

        task = asyncio.create_task(run())
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    async def _log_ends(self, timeout: float = 5.0) -> LogEnds | None:
        """The end offset of every partition of every projected topic, and the log's
        epoch (None: the broker did not answer within ``timeout``)."""
        bootstrap = self.settings.bootstrap
        taken = time.monotonic()
        try:
            ends = await asyncio.wait_for(log_ends(bootstrap, PROJECTED_TOPICS), timeout)
            epoch = await asyncio.wait_for(
                read_epoch(bootstrap, self.clock(), create=False), timeout
            )
        except Exception:  # the broker is down: what waits is unknown
            return None
        return LogEnds(taken, ends, epoch)
