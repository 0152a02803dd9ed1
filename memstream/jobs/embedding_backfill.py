"""Vectors for memories the embedder agent never saw: the backlog is found in the store.

The embedder agent embeds messages as they pass through the log. After a restart the
embedded broker's log starts empty, so memories whose messages were applied but not
yet embedded would wait forever. The backfill looks in the projections instead: every
memory without a vector row gets one, the vector the agent would have made (an
episode's own, pooled with the session's earlier turns'; a derived memory's content
alone). It runs while the agent is idle, on the worker that holds partition 0 of
``memory.messages``, and publishes ``EmbeddingComputed`` like the agent does (the same
event ids, so a vector computed twice is one row).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from memstream.adapters.embedders import Embedder
from memstream.events.codec import encode
from memstream.events.vocabulary import EmbeddingComputed
from memstream.jobs.embedding_agent import (
    EmbeddedMemory,
    Turn,
    passage_embeddings,
    said_alone,
    vectors_in_context,
)
from memstream.projections.vectors import embedding_events
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.lance.tables import MEMORIES, VECTORS
from memstream.text.passages import OWN_VECTORS

__all__ = ["missing_embedding_events", "missing_embeddings"]

_COLUMNS = [
    "memory_id",
    "kind",
    "user_id",
    "project_id",
    "session_id",
    "speaker",
    "content",
    "search_text",
    "occurred_at",
]
_MIN = datetime.min.replace(tzinfo=UTC)


def missing_embeddings(
    store: ProjectionStore, embedder: Embedder, now: datetime, turns: int, batch: int
) -> Iterator[list[tuple[bytes, bytes]]]:
    """(key, value) records of ``EmbeddingComputed`` for every memory without a vector,
    ``batch`` memories at a time (embedding happens as the iterator is consumed). Nothing
    is read beyond two row counts while every memory has its vector."""
    for events in missing_embedding_events(store, embedder, now, turns, batch):
        yield [(e.user_id.encode(), encode(e)) for e in events]


def missing_embedding_events(
    store: ProjectionStore, embedder: Embedder, now: datetime, turns: int, batch: int
) -> Iterator[list[EmbeddingComputed]]:
    """The ``EmbeddingComputed`` events of :func:`missing_embeddings`."""
    if store.count(MEMORIES) <= store.count(VECTORS, OWN_VECTORS):
        return
    embedded = store.scan(VECTORS, columns=["memory_id"], where=OWN_VECTORS).column("memory_id")
    memories = store.scan(MEMORIES, columns=_COLUMNS)
    missing_mask = pc.invert(pc.is_in(memories.column("memory_id"), value_set=embedded))
    missing = memories.filter(missing_mask).to_pylist()
    texts = _texts(missing, memories, turns)
    for start in range(0, len(missing), batch):
        chunk = missing[start : start + batch]
        described: list[EmbeddedMemory] = [
            (m["memory_id"], m["user_id"], m["project_id"], m["kind"], m["occurred_at"])
            for m in chunk
        ]
        vectors, own = vectors_in_context(embedder, texts[start : start + batch])
        yield embedding_events(described, vectors, embedder.model, embedder.version, now)
        contents = [m["content"] for m in chunk]  # only episodes have earlier turns
        alone = said_alone(described, contents, texts[start : start + batch], own, embedder, now)
        if alone:
            yield alone
        episodes = [
            (memory, m["speaker"], m["content"])
            for memory, m in zip(described, chunk, strict=True)
            if m["kind"] == "episode"
        ]
        passages = passage_embeddings(episodes, embedder, now)
        if passages:
            yield passages


def _texts(
    missing: list[dict[str, Any]], memories: pa.Table, turns: int
) -> list[tuple[str, list[Turn]]]:
    """Each memory's text and the earlier turns the agent pools it with (an episode's
    session's, taken from ``memories``, the rows already read; none for the others)."""
    sessions = {(m["user_id"], m["session_id"]) for m in missing if m["kind"] == "episode"}
    earlier: dict[tuple[str, str], list[tuple[datetime, str]]] = defaultdict(list)
    if sessions and turns > 0:
        for row in memories.to_pylist():
            key = (row["user_id"], row["session_id"])
            if row["kind"] == "episode" and key in sessions:
                earlier[key].append((row["occurred_at"] or _MIN, row["search_text"]))
        for turns_of_session in earlier.values():
            turns_of_session.sort(key=lambda t: t[0])
    texts: list[tuple[str, list[Turn]]] = []
    for m in missing:
        if m["kind"] != "episode":
            texts.append((m["content"], []))
            continue
        at = m["occurred_at"] or _MIN
        before = [text for when, text in earlier[(m["user_id"], m["session_id"])] if when < at]
        texts.append((m["search_text"], [(t, None) for t in before[-turns:]] if turns else []))
    return texts
