"""The embedder agent: new messages in, ``EmbeddingComputed`` events out.

A faust agent reads ``memory.messages`` in its own consumer group, takes messages in
batches (``embed_batch_size``, or what arrived within ``embed_within_seconds``), embeds
each one's search text once, alone, on a worker thread, pools it with the vectors of the
session's two previous turns (:func:`memstream.projections.episodes.turn_in_context`), and
publishes one ``EmbeddingComputed`` per memory to ``memory.embeddings``, keyed by user.
The passages of long turns (:mod:`memstream.text.passages`) are a third agent's work on
the same messages, embedded :data:`PASSAGES_PER_CALL` at a time: one user's long pastes
(a hundred passages each) never hold other users' turns back for more than one such
call, and a message's offset is committed only once both agents are done with it.
The previous turns and their vectors come from a bounded in-memory window per session;
when a session is not in it (after a restart) their texts are read from the
``memories`` table and embedded again. The projector then writes the vectors;
a replay applies the events and never calls the model. Records that do not decode are
skipped here (the projector dead-letters them). Delivery is at least once: an event
published twice has the same id and yields one vector row. A second agent embeds the
memories that ``memory.lifecycle`` and ``memory.commands`` write (facts, reflections,
remembered and corrected facts), each by its content alone, and documents' chunks: it
takes ``embed_batch_size / CHUNKS_PER_EVENT`` records at a time (:func:`derived_take`: a
document's part holds up to that many chunks), so a call embeds about
``embed_batch_size`` texts and a 50 MB document's 25,000 chunks move the embedding lag
and the committed offsets as they go, and leave the lane to the chat turns between
calls.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Executor
from datetime import datetime
from functools import partial
from typing import Any

import faust
import numpy as np

from memstream.adapters.embedders import Embedder
from memstream.clock import Clock
from memstream.events.codec import decode, encode
from memstream.events.errors import InvalidEvent
from memstream.events.vocabulary import (
    CHUNKS_PER_EVENT,
    CorrectFact,
    DerivedMemory,
    DocumentChunked,
    EmbeddingComputed,
    FactsConsolidated,
    MessageEvent,
    ReflectionWritten,
    RememberFact,
)
from memstream.observability import metrics, tracing
from memstream.projections.derived import command_memory
from memstream.projections.documents import CHUNK_KIND, chunk_memory_id
from memstream.projections.episodes import (
    CONTEXT_TURNS,
    memory_id_for,
    search_text,
    turn_in_context,
)
from memstream.projections.vectors import embedding_events
from memstream.settings import Settings
from memstream.streams.sealing import RecordKeys, opened_values, sealed_records
from memstream.streams.topics import COMMANDS, DOCUMENTS, EMBEDDINGS, LIFECYCLE, MESSAGES
from memstream.text.passages import LONG_TURN_CHARACTERS, passage_id, passages

__all__ = [
    "PASSAGES_PER_CALL",
    "EmbeddedMemory",
    "SessionWindow",
    "add_embedder_agent",
    "derived_memories",
    "derived_take",
    "embed_derived_values",
    "embed_passages",
    "embed_turns",
    "embed_values",
    "embedding_records",
    "passage_embeddings",
    "passage_texts",
    "passages_of",
    "said_alone",
    "vectors_in_context",
]

#: The most passages one call to the model embeds (what a turn waits behind at most).
PASSAGES_PER_CALL = 32

#: (user, session, before) -> the search texts of the session's turns before that time.
EarlierTurns = Callable[[str, str, datetime], list[str]]
#: A turn's search text and its own vector (None: not embedded in this process yet).
Turn = tuple[str, np.ndarray | None]


class SessionWindow:
    """The last few turns of recently active sessions, with their vectors (bounded,
    least recent evicted)."""

    def __init__(
        self,
        lookup: EarlierTurns | None = None,
        sessions: int = 50_000,
        turns: int = CONTEXT_TURNS,
    ) -> None:
        self.turns = turns
        self._lookup = lookup
        self._size = sessions
        self._turns: OrderedDict[tuple[str, str], list[Turn]] = OrderedDict()

    def earlier(self, message: MessageEvent) -> list[Turn]:
        key = (message.user_id, message.session_id)
        turns = self._turns.get(key)
        if turns is None and self.turns > 0 and self._lookup is not None:
            looked_up = self._lookup(message.user_id, message.session_id, message.occurred_at)
            turns = [(text, None) for text in looked_up]
        if not turns:
            return []
        return turns[-self.turns :] if self.turns > 0 else []

    def remember(self, user_id: str, session_id: str, turns: list[Turn]) -> None:
        """Keep ``turns`` (oldest first) as the session's latest turns."""
        key = (user_id, session_id)
        self._turns[key] = turns[-self.turns :] if self.turns > 0 else []
        self._turns.move_to_end(key)
        while len(self._turns) > self._size:
            self._turns.popitem(last=False)


log = logging.getLogger(__name__)


def embed_values(
    values: list[bytes],
    embedder: Embedder,
    now: datetime,
    window: SessionWindow | None = None,
    with_passages: bool = True,
) -> list[tuple[bytes, bytes]]:
    """(key, value) records of the ``EmbeddingComputed`` events for raw message values:
    each turn's, and its passages' (unless not ``with_passages``)."""
    window = window or SessionWindow()
    messages = _messages(values)
    if not messages:
        return []
    turns: list[tuple[str, list[Turn]]] = []
    pending: dict[tuple[str, str], list[Turn]] = {}  # this batch's turns, per session
    for m in messages:
        key = (m.user_id, m.session_id)
        earlier = pending[key] if key in pending else window.earlier(m)
        current = search_text(m.speaker, m.content)
        turns.append((current, earlier[-window.turns :] if window.turns > 0 else []))
        pending[key] = [*earlier, (current, None)]
    vectors, own = vectors_in_context(embedder, turns)
    described: list[EmbeddedMemory] = [
        (memory_id_for(m.user_id, m.event_id), m.user_id, m.project_id, "episode", m.occurred_at)
        for m in messages
    ]
    records = embedding_records(described, vectors, embedder, now)
    alone = said_alone(described, [m.content for m in messages], turns, own, embedder, now)
    records += [(e.user_id.encode(), encode(e)) for e in alone]
    if with_passages:
        said = [
            (memory, m.speaker, m.content) for memory, m in zip(described, messages, strict=True)
        ]
        records += [
            (e.user_id.encode(), encode(e)) for e in passage_embeddings(said, embedder, now)
        ]
    for (user_id, session_id), kept in pending.items():  # only once the batch is embedded
        window.remember(user_id, session_id, [(t, own[t] if v is None else v) for t, v in kept])
    return records


def said_alone(
    memories: Sequence[EmbeddedMemory],
    contents: Sequence[str],
    turns: Sequence[tuple[str, list[Turn]]],
    own: Mapping[str, np.ndarray],
    embedder: Embedder,
    now: datetime,
) -> list[EmbeddingComputed]:
    """One ``EmbeddingComputed`` per short turn pooled with earlier turns, of its row
    ``<memory id>+p0``: the turn's own vector (made already, no call to the model).

    Search takes a memory as near as its nearest row, so a turn is found by what it says
    in its conversation and by what it says alone (a long turn's passages are its alone
    rows). Pooling made a reply near the questions about what it answers, and a plain
    statement far from a question that only implies it ("Is a banana a good snack for
    me?" and "I've been diagnosed with type 2 diabetes"); measured by the cosine alone
    over every turn, recall@10 on LoCoMo's tuning half: 0.495 alone, 0.513 pooled, 0.557
    the nearer of the two; on the corpus's implied questions 0.341, 0.098 and 0.293."""
    kept = [
        (memory, own[text])
        for memory, content, (text, earlier) in zip(memories, contents, turns, strict=True)
        if earlier and len(content) <= LONG_TURN_CHARACTERS  # a long turn has passages
    ]
    if not kept:
        return []
    alone: list[EmbeddedMemory] = [
        (passage_id(memory_id, 0), user_id, project_id, kind, at)
        for (memory_id, user_id, project_id, kind, at), _ in kept
    ]
    vectors = np.vstack([vector for _, vector in kept]).astype(np.float32)
    vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)  # unit, as pooled
    return embedding_events(alone, vectors, embedder.model, embedder.version, now)


def embed_turns(
    values: list[bytes], embedder: Embedder, now: datetime, window: SessionWindow
) -> list[tuple[bytes, bytes]]:
    """:func:`embed_values` without the passages (the turns agent's work)."""
    return embed_values(values, embedder, now, window, with_passages=False)


def passages_of(values: list[bytes]) -> list[tuple[EmbeddedMemory, str]]:
    """(passage, text to embed) of every passage of the long turns among raw message
    ``values`` (none for short turns)."""
    return [
        passage
        for m in _messages(values)
        for passage in passage_texts(
            (memory_id_for(m.user_id, m.event_id), m.user_id, m.project_id, "episode",
             m.occurred_at),
            m.speaker,
            m.content,
        )
    ]  # fmt: skip


def embed_passages(
    work: list[tuple[EmbeddedMemory, str]], embedder: Embedder, now: datetime
) -> list[tuple[bytes, bytes]]:
    """The (key, value) records of the ``EmbeddingComputed`` of passages ``work``."""
    if not work:
        return []
    vectors = embedder.embed([text for _, text in work])
    return embedding_records([memory for memory, _ in work], vectors, embedder, now)


def _messages(values: list[bytes]) -> list[MessageEvent]:
    messages: list[MessageEvent] = []
    for value in values:
        try:
            event = decode(value)
        except InvalidEvent:
            continue  # the projector sends it to the dead-letter topic
        if isinstance(event, MessageEvent):
            messages.append(event)
    return messages


def vectors_in_context(
    embedder: Embedder, turns: list[tuple[str, list[Turn]]]
) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Each turn's vector pooled with its earlier turns' (``(text, [earlier turns])``;
    a memory that stands alone has none), and every text's own vector by text. Each
    text not yet embedded is embedded once, in one call to the model."""
    wanted = dict.fromkeys(
        [t for t, _ in turns] + [t for _, earlier in turns for t, v in earlier if v is None]
    )
    own = dict(zip(wanted, embedder.embed(list(wanted)), strict=True))
    pooled = [
        turn_in_context(own[text], [own[t] if v is None else v for t, v in earlier])
        for text, earlier in turns
    ]
    vectors = np.vstack(pooled) if pooled else np.zeros((0, embedder.dimension), np.float32)
    return vectors, own


#: (memory id, user, project, kind, time): what an ``EmbeddingComputed`` says of a memory.
EmbeddedMemory = tuple[str, str, str | None, str, datetime | None]


def embedding_records(
    memories: list[EmbeddedMemory], vectors: np.ndarray, embedder: Embedder, now: datetime
) -> list[tuple[bytes, bytes]]:
    """The (key, value) records of one ``EmbeddingComputed`` per memory (its vector made
    by ``embedder``), keyed by user."""
    events = embedding_events(memories, vectors, embedder.model, embedder.version, now)
    return [(e.user_id.encode(), encode(e)) for e in events]


def passage_texts(
    memory: EmbeddedMemory, speaker: str | None, content: str
) -> list[tuple[EmbeddedMemory, str]]:
    """(passage, text to embed) of each passage of a long turn (none for a short one):
    a passage is embedded alone, with the speaker's name like its turn
    (:mod:`memstream.text.passages`)."""
    memory_id, user_id, project_id, kind, occurred_at = memory
    return [
        (
            (passage_id(memory_id, p.index), user_id, project_id, kind, occurred_at),
            search_text(speaker, content[p.start : p.end]),
        )
        for p in passages(content)
    ]


def passage_embeddings(
    turns: list[tuple[EmbeddedMemory, str | None, str]], embedder: Embedder, now: datetime
) -> list[EmbeddingComputed]:
    """One ``EmbeddingComputed`` per passage of the long turns among ``turns`` (memory,
    speaker, content), their texts embedded in one call (none for short turns)."""
    found = [p for memory, speaker, text in turns for p in passage_texts(memory, speaker, text)]
    if not found:
        return []
    vectors = embedder.embed([text for _, text in found])
    return embedding_events(
        [memory for memory, _ in found], vectors, embedder.model, embedder.version, now
    )


def derived_memories(values: list[bytes]) -> list[tuple[EmbeddedMemory, str]]:
    """(memory, text to embed) of the memories lifecycle events and commands write,
    and of the chunks of documents."""
    found: list[tuple[EmbeddedMemory, str]] = []
    for value in values:
        try:
            event = decode(value)
        except InvalidEvent:
            continue
        written: list[tuple[str, str | None, DerivedMemory]] = []
        if isinstance(event, FactsConsolidated):
            written.extend((event.user_id, event.project_id, m) for m in event.memories)
        elif isinstance(event, ReflectionWritten):
            written.append((event.user_id, None, event.memory))
        elif isinstance(event, RememberFact | CorrectFact):
            written.append((event.user_id, event.project_id, command_memory(event)))
        elif isinstance(event, DocumentChunked):
            found.extend(
                (
                    (
                        chunk_memory_id(
                            event.user_id, event.document_id, event.submission, chunk.index
                        ),
                        event.user_id,
                        event.project_id,
                        CHUNK_KIND,
                        event.occurred_at,
                    ),
                    chunk.text,
                )
                for chunk in event.chunks
            )
        found.extend(
            ((m.memory_id, user, project, m.kind, m.occurred_at), m.content)
            for user, project, m in written
        )
    return found


def derived_take(batch_size: int) -> int:
    """How many records the derived agent takes at a time: a document's part holds up
    to ``CHUNKS_PER_EVENT`` chunks, so a take holds about ``batch_size`` texts."""
    return max(1, batch_size // CHUNKS_PER_EVENT)


def embed_derived_values(
    values: list[bytes], embedder: Embedder, now: datetime, window: SessionWindow | None = None
) -> list[tuple[bytes, bytes]]:
    """(key, value) records of the ``EmbeddingComputed`` events for the memories that
    lifecycle events and commands write (their content alone: a fact stands by itself)
    and for documents' chunks (their text)."""
    memories = derived_memories(values)
    if not memories:
        return []
    return embedding_records(
        [memory for memory, _ in memories],
        embedder.embed([text for _, text in memories]),
        embedder,
        now,
    )


Embed = Callable[[list[bytes], Embedder, datetime, SessionWindow], list[tuple[bytes, bytes]]]


async def _embed_until_done(
    values: list[bytes],
    embedder: Embedder,
    clock: Clock,
    window: SessionWindow,
    embed: Embed = embed_values,
    lane: Executor | None = None,
) -> list[tuple[bytes, bytes]]:
    """Embed a batch on ``lane`` (default: a thread of the loop's pool), retrying with
    backoff while the embedder fails (an API down, a malformed answer): a batch is never
    skipped, the embedding lag grows meanwhile."""
    return await _until_done(
        lambda: embed(values, embedder, clock(), window), lane, f"a batch of {len(values)}"
    )


async def _until_done(
    work: Callable[[], list[tuple[bytes, bytes]]], lane: Executor | None, what: str
) -> list[tuple[bytes, bytes]]:
    delay = 1.0
    loop = asyncio.get_running_loop()
    while True:
        try:
            return await loop.run_in_executor(lane, work)
        except Exception:
            log.exception("embedding %s failed; retrying in %.0f s", what, delay)
            await asyncio.sleep(delay)
            delay = min(delay * 2, 60.0)


def add_embedder_agent(
    app: faust.App,
    settings: Settings,
    embedder: Embedder,
    clock: Clock,
    earlier_turns: EarlierTurns | None = None,
    lane: Executor | None = None,
    keys: RecordKeys | None = None,
) -> Callable[[], float]:
    """Register the embedder agents on ``app``, embedding on ``lane`` (see
    :mod:`memstream.runtime.lanes`); return a function giving the monotonic time the agents last
    took a batch."""
    window = SessionWindow(earlier_turns, turns=settings.embed_context_turns)
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

    derived_source = app.topic(
        LIFECYCLE,
        COMMANDS,
        DOCUMENTS,
        key_serializer="raw",
        value_serializer="raw",
        partitions=settings.messages_partitions,
    )

    last_active = [time.monotonic()]

    def agent(
        name: str,
        embed: Embed,
        lane_name: str,
        taken: int = settings.embed_batch_size,
    ) -> Any:
        async def embed_batches(stream: Any) -> None:
            async for events in stream.take_events(taken, within=settings.embed_within_seconds):
                last_active[0] = time.monotonic()
                oldest = min(e.message.timestamp or time.time() for e in events)
                metrics.EMBEDDING_OLDEST.set(max(0.0, time.time() - oldest))
                started, started_ns = time.perf_counter(), time.time_ns()
                records = await _embed_until_done(
                    opened_values(keys, [bytes(e.value) for e in events]),
                    embedder,
                    clock,
                    window,
                    embed,
                    lane,
                )
                metrics.EMBEDDING_SECONDS.labels(lane_name).observe(time.perf_counter() - started)
                records = sealed_records(keys, records)
                sent = [await sink.send(key=key, value=value) for key, value in records]
                await asyncio.gather(*sent)
                metrics.EMBEDDINGS.labels(lane_name).inc(len(records))
                log.debug("%s: embedded %d memories", name, len(records))
                metrics.EMBEDDING_DELAY.observe(max(0.0, time.time() - oldest))
                metrics.EMBEDDING_OLDEST.set(0)
                if tracing.enabled():
                    tracing.message_spans(
                        [e.message for e in events], started_ns, time.time_ns(), "embed"
                    )

        return embed_batches

    app.agent(source, concurrency=1, name="memstream.embedder")(
        agent("memstream.embedder", embed_turns, "messages")
    )
    passage_source = app.topic(
        MESSAGES,
        key_serializer="raw",
        value_serializer="raw",
        partitions=settings.messages_partitions,
    )

    @app.agent(passage_source, concurrency=1, name="memstream.embedder.passages")
    async def embed_long_turns(stream: Any) -> None:
        taken, within = settings.embed_batch_size, settings.embed_within_seconds
        async for events in stream.take_events(taken, within=within):
            work = passages_of(opened_values(keys, [bytes(e.value) for e in events]))
            for start in range(0, len(work), PASSAGES_PER_CALL):
                last_active[0] = time.monotonic()
                part = work[start : start + PASSAGES_PER_CALL]
                records = await _until_done(
                    partial(embed_passages, part, embedder, clock()), lane, "passages"
                )
                sent = [await sink.send(key=k, value=v) for k, v in sealed_records(keys, records)]
                await asyncio.gather(*sent)
                metrics.EMBEDDINGS.labels("passages").inc(len(records))

    app.agent(derived_source, concurrency=1, name="memstream.embedder.derived")(
        agent(
            "memstream.embedder.derived",
            embed_derived_values,
            "derived",
            derived_take(settings.embed_batch_size),
        )
    )
    return lambda: last_active[0]
