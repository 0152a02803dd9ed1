"""The embedder agent: new messages in, ``EmbeddingComputed`` events out.

A faust agent reads ``memory.messages`` in its own consumer group, takes messages in
batches (``embed_batch_size``, or what arrived within ``embed_within_seconds``), embeds
their search text on a worker thread, and publishes one ``EmbeddingComputed`` per
memory to ``memory.embeddings``, keyed by user. The projector then writes the vectors;
a replay applies the events and never calls the model. Records that do not decode are
skipped here (the projector dead-letters them). Delivery is at least once: an event
published twice has the same id and yields one vector row.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from datetime import datetime
from typing import Any

import faust

from projections.codec import decode, encode
from projections.embedders import Embedder
from projections.episodes import memory_id_for, search_text
from projections.errors import InvalidEvent
from projections.events import MessageEvent
from projections.vectors import embedding_events
from streams.settings import Settings
from streams.topics import EMBEDDINGS, MESSAGES

__all__ = ["add_embedder_agent", "embed_values"]

log = logging.getLogger(__name__)


def embed_values(
    values: list[bytes], embedder: Embedder, now: datetime
) -> list[tuple[bytes, bytes]]:
    """(key, value) records of the ``EmbeddingComputed`` events for raw message values."""
    messages: list[MessageEvent] = []
    for value in values:
        try:
            event = decode(value)
        except InvalidEvent:
            continue  # the projector sends it to the dead-letter topic
        if isinstance(event, MessageEvent):
            messages.append(event)
    if not messages:
        return []
    vectors = embedder.embed([search_text(m.speaker, m.content) for m in messages])
    events = embedding_events(
        [
            (
                memory_id_for(m.user_id, m.event_id),
                m.user_id,
                m.project_id,
                "episode",
                m.occurred_at,
            )
            for m in messages
        ],
        vectors,
        embedder.model,
        embedder.version,
        now,
    )
    return [(e.user_id.encode(), encode(e)) for e in events]


def add_embedder_agent(
    app: faust.App, settings: Settings, embedder: Embedder, clock: Callable[[], datetime]
) -> Any:
    """Register the embedder agent on ``app``."""
    source = app.topic(
        MESSAGES,
        key_serializer="raw",
        value_serializer="raw",
        partitions=settings.messages_partitions,
    )
    sink = app.topic(
        EMBEDDINGS,
        key_serializer="raw",
        value_serializer="raw",
        partitions=settings.messages_partitions,
    )

    @app.agent(source, concurrency=1, name="memstream.embedder")
    async def embed_messages(stream: Any) -> None:
        async for values in stream.take(
            settings.embed_batch_size, within=settings.embed_within_seconds
        ):
            records = await asyncio.to_thread(
                embed_values, [bytes(v) for v in values], embedder, clock()
            )
            sent = [await sink.send(key=key, value=value) for key, value in records]
            await asyncio.gather(*sent)
            log.debug("embedded %d messages", len(records))

    return embed_messages
