"""The documents lane of a worker: submitted documents in, their chunks out.

A faust agent reads ``memory.documents`` in the worker's consumer group and queues each
``DocumentSubmitted`` in a :class:`~memstream.jobs.document_queue.FairQueue`;
``document_readers`` readers take from it in turns across tenants and users, so a big
document holds one reader and the other users' documents pass it on the others. A
reader reads the version's original from the data location, then parses and chunks it,
and finds facts in the chunks by the local rules, in a process of its own at low
priority (:class:`~memstream.runtime.lanes.ProcessLane`, one a reader: a long PDF holds
neither the cores nor the interpreter's lock the chat turns the worker applies need; a
language model is called from a thread instead), and publishes what
:func:`~memstream.jobs.document_lane.read_submission` made of it (chunks, and the
facts derived from them) to the same topic, keyed by user (so the events of a document
stay in order). The other events of the topic are the projector's. The work is done in
steps: parse and chunk, then find each part's facts, each part published as soon as it
is done, so a big document shows its progress (chunks read of its total) and is
searchable part by part. Big documents hold at most one reader fewer than the lane has
(:class:`~memstream.jobs.document_queue.FairQueue`). A missing original is tried again
after a pause, a bounded number of times; a parse failure is published once, final,
and so is a document that killed the process reading it or whose parsing and chunking
took longer than its time (``document_read_seconds``, and
``document_read_seconds_per_megabyte`` more for each megabyte: time bounded by size,
not by a fixed limit; its process is killed). A part whose facts take longer than
``document_read_seconds`` is published without them, saying why.

A submission leaves the log's reading as soon as it is queued; what was queued but not
read when the worker stops, crashes or loses the partition is found again in the
documents table (:mod:`memstream.jobs.unread_documents`): at start and every
``SWEEP_SECONDS`` the lane queues every unfinished submission of the partitions it owns
that it does not hold already. A submission read twice (a sweep and the log both
bring it, or a new owner reads what the old one was reading) publishes the same events
with the same ids, which the projector applies once. So no document stays
``received`` for good.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Collection, Sequence
from concurrent.futures import Executor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

import faust

from memstream.adapters.tokens import count_tokens
from memstream.clock import Clock
from memstream.events.codec import decode, encode
from memstream.events.errors import InvalidEvent
from memstream.events.vocabulary import DocumentChunked, DocumentFailed, DocumentSubmitted
from memstream.jobs.document_lane import (
    ReadLimits,
    chunked_submission,
    lane_died,
    lane_ready,
    missing_original,
    parser_failed,
    read_timed_out,
    with_facts,
)
from memstream.jobs.document_queue import FairQueue, Work
from memstream.jobs.lifecycle import Extractor
from memstream.settings import Settings
from memstream.storage.document_originals import DocumentOriginals, OriginalMissing
from memstream.streams.partitioning import partition_of
from memstream.streams.sealing import RecordKeys, opened_values, sealed_records
from memstream.streams.topics import DOCUMENTS
from memstream.text.extractor import LocalExtractor

__all__ = [
    "BIG_DOCUMENT_BYTES",
    "LANE_START_SECONDS",
    "MAX_WAITING",
    "SWEEP_SECONDS",
    "DocumentLane",
    "Unread",
    "add_document_agent",
]

log = logging.getLogger(__name__)

#: The longest a lane's new child may take to start (spawned, its imports done) before
#: the read it was started for counts as a lane that died.
LANE_START_SECONDS = 120.0

#: Seconds before reading a missing original again (doubling each time).
RETRY_PAUSE_SECONDS = 1.0
#: Seconds between two sweeps of the documents table for unread submissions.
SWEEP_SECONDS = 15.0
#: The most submissions waiting in the lane; the log is read no further meanwhile.
MAX_WAITING = 5_000
#: A document this large or larger is big: big ones leave a reader to the others.
BIG_DOCUMENT_BYTES = 5_000_000

#: The unfinished submissions of the given partitions (of ``count``), oldest first.
Unread = Callable[[Collection[int], int], list[DocumentSubmitted]]


class DocumentLane:
    """The documents lane of one worker: submissions queued fairly, read on ``lanes``
    (processes of their own, at a lower priority), their chunks (or why not) published
    with facts derived by ``extractor``; ``unread`` finds the submissions applied but not
    read, ``keys`` seal and open the records, ``limits`` bound a read."""

    def __init__(
        self,
        app: faust.App,
        settings: Settings,
        originals: DocumentOriginals,
        clock: Clock,
        lanes: Sequence[Executor] = (),
        keys: RecordKeys | None = None,
        limits: ReadLimits | None = None,
        extractor: Extractor | None = None,
        unread: Unread | None = None,
    ) -> None:
        self.app, self.settings, self.originals, self.clock = app, settings, originals, clock
        self.keys, self.extractor, self.unread = keys, extractor, unread
        self.limits = limits or ReadLimits(max_pages=settings.document_max_pages)
        self.readers: Sequence[Executor | None] = list(lanes) or [None]
        self.count = settings.messages_partitions
        self.topic = app.topic(
            DOCUMENTS, key_serializer="raw", value_serializer="raw", partitions=self.count
        )
        big_readers = max(1, len(self.readers) - 1)
        self.queue: FairQueue[DocumentSubmitted] = FairQueue(big_readers, BIG_DOCUMENT_BYTES)
        self.changed = asyncio.Event()  # work was queued or finished
        # The local rules run in the lane's process; a language model is called from here.
        self.in_lane = extractor if isinstance(extractor, LocalExtractor) else None

    def read_seconds(self, size: int) -> float:
        """How long parsing and chunking a document of ``size`` bytes may take."""
        per_megabyte = self.settings.document_read_seconds_per_megabyte
        return self.settings.document_read_seconds + per_megabyte * size / 1_000_000

    async def events_of(
        self, event: DocumentSubmitted, attempt: int, lane: Executor | None
    ) -> list[DocumentChunked | DocumentFailed]:
        """What ``read_submission`` makes of the submission, without facts: the read on a
        thread, the parsing and chunking on ``lane``."""
        try:
            data = await asyncio.to_thread(self.originals.get, event.user_id, event.checksum)
        except OriginalMissing as exc:
            return [missing_original(event, str(exc), self.clock(), self.limits, attempt)]
        loop = asyncio.get_running_loop()
        if getattr(lane, "cold", False):  # a child's start is not the document's time
            try:
                await asyncio.wait_for(loop.run_in_executor(lane, lane_ready), LANE_START_SECONDS)
            except TimeoutError:  # a child that cannot start: a new one for the next try
                _restart(lane)
                return [lane_died(event, self.clock(), attempt)]
            except BrokenProcessPool:
                _unless_stopping(lane)
                return [lane_died(event, self.clock(), attempt)]
        work = loop.run_in_executor(
            lane, chunked_submission, event, data, count_tokens, self.clock(), self.limits,
            attempt, None,
        )  # fmt: skip
        limit = self.read_seconds(len(data))
        try:
            results: list[DocumentChunked | DocumentFailed] = list(
                await asyncio.wait_for(work, limit)
            )
        except TimeoutError:
            _restart(lane)  # the child goes, with what it was doing
            return [read_timed_out(event, limit, self.clock(), attempt)]
        except BrokenProcessPool:
            _unless_stopping(lane)
            return [lane_died(event, self.clock(), attempt)]
        except Exception as exc:  # the lane's own failure: never the reader's death
            log.warning(  # its class alone: an error's text may quote the document
                "document %s: reading it failed (%s)", event.document_id, type(exc).__name__
            )
            return [parser_failed(event, exc, self.clock(), attempt)]
        return results

    async def with_facts(
        self, event: DocumentSubmitted, part: DocumentChunked, lane: Executor | None
    ) -> DocumentChunked:
        """``part`` with the facts the extractor finds in its chunks: the local rules on
        ``lane``, a model from a thread. Past ``document_read_seconds``, or if the lane's
        process dies, the part goes without facts, saying why."""
        if self.extractor is None or not part.chunks:
            return part
        if self.in_lane is None:
            return await asyncio.to_thread(with_facts, event, part, self.extractor)
        loop = asyncio.get_running_loop()
        work = loop.run_in_executor(lane, with_facts, event, part, self.in_lane)
        try:
            return await asyncio.wait_for(work, self.settings.document_read_seconds)
        except TimeoutError:
            _restart(lane)
            why = f"finding facts took longer than {self.settings.document_read_seconds:g} s"
        except BrokenProcessPool:
            _unless_stopping(lane)
            why = "finding facts stopped the process reading the document"
        except Exception as exc:  # the rules' own failure: the chunks go on without facts
            why = f"finding facts failed ({type(exc).__name__})"
        return part.model_copy(update={"extractor": self.in_lane.name, "facts_error": why})

    async def publish(self, event: DocumentSubmitted, results: Sequence[Any]) -> None:
        records = sealed_records(
            self.keys, [(event.user_id.encode(), encode(result)) for result in results]
        )
        sent = [await self.topic.send(key=key, value=value) for key, value in records]
        await asyncio.gather(*sent)

    async def read(self, event: DocumentSubmitted, lane: Executor | None) -> None:
        for attempt in range(1, self.limits.tries + 1):
            results = await self.events_of(event, attempt, lane)
            first = results[0]
            if isinstance(first, DocumentFailed):
                await self.publish(event, [first])
                if first.final:
                    self.told(event, first.error_class)
                    return
                await asyncio.sleep(RETRY_PAUSE_SECONDS * 2 ** (attempt - 1))
                continue
            parts = [part for part in results if isinstance(part, DocumentChunked)]
            for part in parts:  # each part out as soon as its facts are found
                await self.publish(event, [await self.with_facts(event, part, lane)])
            self.told(event, "chunked")
            return

    @staticmethod
    def told(event: DocumentSubmitted, outcome: str) -> None:
        log.info(
            "document %s of %s (%s): %s", event.document_id, event.user_id,
            event.checksum[:12], outcome,
        )  # fmt: skip

    def enqueue(self, event: DocumentSubmitted) -> bool:
        work = Work(
            submission=event.event_id,
            user_id=event.user_id,
            document_id=event.document_id,
            partition=partition_of(event.user_id, self.count),
            item=event,
            size=event.size,
        )
        if not self.queue.put(work, time.monotonic()):
            return False
        self.changed.set()
        return True

    async def reader(self, lane: Executor | None) -> None:
        while True:
            work = self.queue.take()
            if work is None:
                self.changed.clear()
                await self.changed.wait()
                continue
            try:
                await self.read(work.item, lane)
            except asyncio.CancelledError:
                self.queue.drop(work)  # read again after (the table still says unread)
                raise
            except Exception:  # publishing failed (the broker is gone): a sweep retries
                log.exception("document %s: reading it failed", work.document_id)
                self.queue.drop(work)
            else:
                self.queue.done(work, time.monotonic())
            self.changed.set()

    def owned(self) -> set[int]:
        assigned = self.app.consumer.assignment() if self.app.consumer is not None else set()
        return {tp.partition for tp in assigned if tp.topic == DOCUMENTS}

    async def sweep(self) -> None:
        """Queue what the table says is unread, of the partitions this lane owns, when
        they change and every ``SWEEP_SECONDS``; let go of what waits for partitions it
        lost."""
        held: set[int] = set()
        last = float("-inf")
        while True:
            partitions = self.owned()
            if lost := held - partitions:
                self.queue.drop_partitions(lost)
            due = partitions != held or time.monotonic() - last >= SWEEP_SECONDS
            held = partitions
            if partitions and self.unread is not None and due:
                last = time.monotonic()
                try:
                    found = await asyncio.to_thread(self.unread, partitions, self.count)
                except Exception:  # the store is unreachable now: the next sweep
                    log.exception("finding the documents not read failed")
                    found = []
                queued = sum(self.enqueue(event) for event in found)
                if queued:
                    log.info("%d documents applied but not read: reading them", queued)
            await asyncio.sleep(1.0)


def add_document_agent(lane: DocumentLane) -> None:
    """Register the documents lane's agent on its app: one reader on each of its lanes
    (one on the loop's default pool without any), facts derived from the chunks by its
    extractor, if any; its ``unread`` finds the submissions applied but not read."""
    app, keys = lane.app, lane.keys
    queue, topic = lane.queue, lane.topic

    @app.agent(topic, concurrency=1, name="memstream.documents")
    async def read_documents(stream: Any) -> None:
        tasks = [asyncio.create_task(lane.reader(reader_lane)) for reader_lane in lane.readers]
        tasks.append(asyncio.create_task(lane.sweep()))
        try:
            async for value in stream:
                for plain in opened_values(keys, [bytes(value)]):
                    try:
                        event = decode(plain)
                    except InvalidEvent:
                        continue  # the projector dead-letters it
                    if isinstance(event, DocumentSubmitted):
                        while len(queue) >= MAX_WAITING:
                            await asyncio.sleep(0.5)
                        lane.enqueue(event)
        finally:
            for task in tasks:
                task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.gather(*tasks)


def _restart(lane: Executor | None) -> None:
    """Kill the process of ``lane`` (a read that ran out of time); the next read
    starts a new one."""
    restart = getattr(lane, "restart", None)
    if restart is not None:
        restart()


def _unless_stopping(lane: Executor | None) -> None:
    """Called when ``lane`` broke: if it broke because it was closed, the worker is
    stopping, and the document is cancelled (read again after the restart) rather than
    failed as a lane that died."""
    if getattr(lane, "closed", False):
        raise asyncio.CancelledError from None
