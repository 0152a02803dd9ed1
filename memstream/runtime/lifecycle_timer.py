"""The worker's lifecycle timer: closes and consolidates sessions, decays, reflects,
archives.

Every ``lifecycle_every_seconds`` the timer runs the consolidation job over the
sessions of the ``memory.messages`` partitions this worker holds (at most
``consolidate_per_tick`` of them, holding at most ``consolidate_characters_per_tick`` of
text, per round, with more rounds while work remains and ingest is quiet), with the
wall clock as processing time, and publishes what it decided to ``memory.lifecycle``
(keyed by user). While ingest is backlogged (the last fetch of
the episodes consumer came back full) the timer waits, for up to
``lifecycle_max_defer_seconds``: lifecycle work shares the worker's cores and yields
them to the hot path, then catches up. Decay runs every ``decay_every_hours``,
reflection every ``reflect_every_days``, archiving (then merging the cold store's small
files) every ``archive_every_hours`` (first one interval after the worker starts).

The work is sharded, not led: every job works on the users of the partitions this
worker owns (:func:`memstream.streams.partitioning.partition_of`), so it spreads with the
partitions and no user is worked on by two workers at once. A run a rebalance cuts off
is done again by the partitions' next owner; its events are idempotent (a closure is
consolidated once, whoever publishes it; an archived original is written under the
same name again).

Closures published but not applied yet are remembered for a while so that the next
tick does not extract them again (the projector would ignore the duplicate anyway). A
closure whose extraction failed (a model down, a malformed answer) is tried again after
a backoff that doubles with each failure (see :mod:`memstream.jobs.lifecycle_schedule`, which
keeps this state); a failing run is logged and retried at the next tick; ingest goes on.
"""

from __future__ import annotations

import asyncio
import logging
import time
from datetime import datetime
from typing import Any

import faust

from memstream.adapters.embedders import Embedder
from memstream.clock import Clock, system_clock
from memstream.events.codec import encode
from memstream.events.vocabulary import Event, FactsConsolidated, MemoryArchived
from memstream.jobs.lifecycle import closure_key
from memstream.jobs.lifecycle_runs import LifecycleRuns, runs_location
from memstream.jobs.lifecycle_schedule import Cadence, LifecycleSchedule
from memstream.observability import metrics, tracing
from memstream.runtime.assembly import make_archiver, make_lifecycle, make_model
from memstream.settings import Settings
from memstream.streams.batch_consumer import EpisodeConsumer
from memstream.streams.partitioning import partition_of
from memstream.streams.projector import Projector
from memstream.streams.sealing import sealed_records
from memstream.streams.topics import LIFECYCLE, MESSAGES

__all__ = ["add_lifecycle_timer", "schedule_for"]

log = logging.getLogger(__name__)


def schedule_for(settings: Settings, clock: Clock = system_clock) -> LifecycleSchedule:
    """The lifecycle schedule ``settings`` describe."""
    cadence = Cadence(
        tick=settings.lifecycle_every_seconds,
        max_defer=settings.lifecycle_max_defer_seconds,
        decay=settings.decay_every_hours * 3600,
        reflect=settings.reflect_every_days * 86400,
        archive=settings.archive_every_hours * 3600,
    )
    return LifecycleSchedule(cadence, clock)


def add_lifecycle_timer(
    app: faust.App,
    settings: Settings,
    projector: Projector,
    episodes: EpisodeConsumer,
    embedder: Embedder | None = None,
    clock: Clock = system_clock,
) -> Any:
    """Register the lifecycle timer on ``app``."""
    model = make_model(settings)
    jobs = make_lifecycle(settings, projector.store, model)
    archiver = make_archiver(settings, projector.store, embedder, model)
    sink = app.topic(
        LIFECYCLE,
        key_serializer="raw",
        value_serializer="raw",
        partitions=settings.messages_partitions,
    )
    schedule = schedule_for(settings, clock)
    runs = LifecycleRuns(runs_location(settings.data_location))

    def decide(now: datetime, partitions: set[int]) -> tuple[list[Event], int]:
        """The events of one round, and how many sessions wait for another."""
        count = settings.messages_partitions

        def owns(user_id: str) -> bool:
            return partition_of(user_id, count) in partitions

        with metrics.timed_job("consolidate"), tracing.span("lifecycle consolidate"):
            result = jobs.consolidate(
                now,
                skip=schedule.skipped(),
                partitions=partitions,
                limit=settings.consolidate_per_tick,
                characters=settings.consolidate_characters_per_tick,
            )
        for key, reason in result.failed.items():
            attempts, delay = schedule.failed(key)
            log.warning(
                "closure %s: attempt %d failed (%s); next in %.0f s", key, attempts, reason, delay
            )
        events = result.events
        runs.record("consolidate", now, events)
        if schedule.due("decay", True):
            with metrics.timed_job("decay"), tracing.span("lifecycle decay"):
                decayed = jobs.decay(now, owns=owns)
            events.extend(decayed)
            runs.record("decay", now, decayed)
            schedule.ran("decay")
        if schedule.due("reflect", True):
            with metrics.timed_job("reflect"), tracing.span("lifecycle reflect"):
                reflected = jobs.reflect(now, owns=owns)
            events.extend(reflected.events)
            runs.record("reflect", now, reflected.events)
            if not reflected.failed:  # a failed week is tried again at the next tick
                schedule.ran("reflect")
        if schedule.due("archive", True):
            with (
                metrics.timed_job("archive"),
                tracing.span("lifecycle archive"),
                projector.erasing,  # never the originals of a user being erased
            ):
                written = archiver.cold.bytes_written
                archived = archiver.archive(now, limit=settings.archive_per_run, owns=owns)
                metrics.ARCHIVE_BYTES.inc(archiver.cold.bytes_written - written)
                events.extend(archived)
                runs.record("archive", now, archived)
                # small files of earlier runs, in the folders of this worker's users
                merged = archiver.cold.compact(owns=owns)
            metrics.ARCHIVED.inc(sum(isinstance(e, MemoryArchived) for e in archived))
            if merged:
                log.debug("cold store: %d small files merged", merged)
            schedule.ran("archive")
        return events, result.waiting

    @app.timer(interval=settings.lifecycle_every_seconds)  # type: ignore[untyped-decorator]
    async def lifecycle() -> None:
        partitions = episodes.assigned(MESSAGES)
        if not partitions or not schedule.start_tick(episodes.backlogged):
            return  # no partitions here, or ingest first
        while True:  # more rounds while there is more to do and ingest is quiet
            started = time.perf_counter()
            try:
                events, waiting = await asyncio.to_thread(decide, clock(), partitions)
            except Exception:
                log.exception(
                    "lifecycle jobs failed; retrying in %.0f s", settings.lifecycle_every_seconds
                )
                return
            records = sealed_records(
                projector.keys, [(e.user_id.encode(), encode(e)) for e in events]
            )
            sent = [await sink.send(key=key, value=value) for key, value in records]
            await asyncio.gather(*sent)
            for key in _in_flight(events):
                schedule.published(key)
            metrics.LIFECYCLE_EVENTS.inc(len(events))
            if events:
                took = time.perf_counter() - started
                log.info("lifecycle: published %d events (%.2f s)", len(events), took)
            if not waiting or episodes.backlogged:
                await asyncio.to_thread(runs.write, schedule, clock())
                return

    return lifecycle


def _in_flight(events: list[Event]) -> set[str]:
    """The closures a round's events settle: each one consolidated. A session closed
    but left for a later round (by the round's bounds) is not: the next round closes it
    again (the same event, applied once) and consolidates it."""
    return {
        closure_key(e.user_id, e.session_id, e.through)
        for e in events
        if isinstance(e, FactsConsolidated)
    }
