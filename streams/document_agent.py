"""The documents lane of a worker: submitted documents in, their chunks out.

A faust agent reads ``memory.documents`` in the worker's consumer group. For each
``DocumentSubmitted`` it reads the version's original from the data location, then
parses and chunks it, and finds facts in the chunks by the local rules, in a process of
its own at low priority (:class:`~memstream.streams.lanes.ProcessLane`: a long PDF
holds neither the cores nor the interpreter's lock the chat turns the worker applies
need; a language model is called from a thread instead), and publishes what
:func:`~memstream.streams.document_lane.read_submission` made of it (chunks, and the
facts derived from them) to the same topic, keyed by user (so the events of a document
stay in order). The other events of the topic are the projector's. A missing original
is tried again after a pause, a bounded number of times; a parse failure is published
once, final, and so is a document that killed the process reading it.

Delivery is at least once: a worker that dies before its offset is committed reads the
submission again after a restart (or another worker does, after a rebalance) and
publishes the same events with the same ids, which the projector applies once. So no
document stays ``received`` for good: the submission stays in the log until it is read.
"""

from __future__ import annotations

import asyncio
import logging
from concurrent.futures import Executor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

import faust

from memstream.models.tokens import count_tokens
from memstream.projections.clock import Clock
from memstream.projections.codec import decode, encode
from memstream.projections.errors import InvalidEvent
from memstream.projections.events import DocumentChunked, DocumentFailed, DocumentSubmitted
from memstream.projections.local_extractor import LocalExtractor
from memstream.storage.document_originals import DocumentOriginals, OriginalMissing
from memstream.streams.document_lane import (
    ReadLimits,
    chunked_submission,
    lane_died,
    missing_original,
    parser_failed,
    with_facts,
)
from memstream.streams.lifecycle import Extractor
from memstream.streams.sealing import RecordKeys, opened_values, sealed_records
from memstream.streams.settings import Settings
from memstream.streams.topics import DOCUMENTS

__all__ = ["add_document_agent"]

log = logging.getLogger(__name__)

#: Seconds before reading a missing original again (doubling each time).
RETRY_PAUSE_SECONDS = 1.0


def add_document_agent(
    app: faust.App,
    settings: Settings,
    originals: DocumentOriginals,
    clock: Clock,
    lane: Executor | None = None,
    keys: RecordKeys | None = None,
    limits: ReadLimits | None = None,
    extractor: Extractor | None = None,
) -> None:
    """Register the documents lane's agent on ``app`` (reading on ``lane``; facts
    derived from the chunks by ``extractor``, if any)."""
    limits = limits or ReadLimits(max_pages=settings.document_max_pages)
    topic = app.topic(
        DOCUMENTS,
        key_serializer="raw",
        value_serializer="raw",
        partitions=settings.messages_partitions,
    )

    # The local rules run in the lane's process; a language model is called from here.
    in_lane = extractor if isinstance(extractor, LocalExtractor) else None

    async def events_of(
        event: DocumentSubmitted, attempt: int
    ) -> list[DocumentChunked | DocumentFailed]:
        """What ``read_submission`` makes of the submission, its work split: the read
        and a model's calls on threads, the parsing, chunking and rules on ``lane``."""
        try:
            data = await asyncio.to_thread(originals.get, event.user_id, event.checksum)
        except OriginalMissing as exc:
            return [missing_original(event, str(exc), clock(), limits, attempt)]
        loop = asyncio.get_running_loop()
        try:
            results: list[DocumentChunked | DocumentFailed] = list(
                await loop.run_in_executor(
                    lane,
                    chunked_submission,
                    event,
                    data,
                    count_tokens,
                    clock(),
                    limits,
                    attempt,
                    in_lane,
                )
            )
        except BrokenProcessPool:
            if getattr(lane, "closed", False):
                raise asyncio.CancelledError from None  # stopping: read again after
            return [lane_died(event, clock(), attempt)]
        except Exception as exc:  # the lane's own failure: never the agent's death
            log.warning("document %s: %s", event.document_id, exc, exc_info=True)
            return [parser_failed(event, exc, clock(), attempt)]
        if extractor is not None and in_lane is None:
            results = [
                await asyncio.to_thread(with_facts, event, r, extractor)
                if isinstance(r, DocumentChunked)
                else r
                for r in results
            ]
        return results

    async def read(event: DocumentSubmitted) -> None:
        for attempt in range(1, limits.tries + 1):
            results = await events_of(event, attempt)
            records = sealed_records(
                keys, [(event.user_id.encode(), encode(result)) for result in results]
            )
            sent = [await topic.send(key=key, value=value) for key, value in records]
            await asyncio.gather(*sent)
            first = results[0]
            if not isinstance(first, DocumentFailed) or first.final:
                outcome = first.error_class if isinstance(first, DocumentFailed) else "chunked"
                log.info(
                    "document %s of %s (%s): %s", event.document_id, event.user_id,
                    event.checksum[:12], outcome,
                )  # fmt: skip
                return
            await asyncio.sleep(RETRY_PAUSE_SECONDS * 2 ** (attempt - 1))

    @app.agent(topic, concurrency=1, name="memstream.documents")
    async def read_documents(stream: Any) -> None:
        async for value in stream:
            for plain in opened_values(keys, [bytes(value)]):
                try:
                    event = decode(plain)
                except InvalidEvent:
                    continue  # the projector dead-letters it
                if isinstance(event, DocumentSubmitted):
                    await read(event)
