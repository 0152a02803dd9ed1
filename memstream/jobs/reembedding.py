"""Re-embedding: a store's vectors made again by another embedder, kept in the log.

A store searches the vectors of one model. Changing the embedder of a deployment with
memories means every memory needs a vector of the new model, and the log must hold
them, so that a replay rebuilds the same store without calling a model. ``memstream
reembed`` does it in three steps while the live projections keep serving with the old
vectors:

1. replay the log into a folder of its own, keeping only vectors of the new model
   (:func:`memstream.jobs.replay.rebuild` with ``vector_model``): any a re-embedding that
   stopped half-way already published are kept;
2. embed every memory that has none (:func:`missing_vectors`): hot memories as the
   embedder agent would (a turn pooled with its session's earlier turns), archived ones
   from their summary as the archiver does, publish each batch as ``EmbeddingComputed``
   events (acknowledged: in the log), then add them to the new projections;
3. the operator stops the worker and switches the data folder to the new projections
   (``memstream switch``), then runs with the new embedder.

The old model's vectors stay in the log; the new store leaves them out.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime

import pyarrow.compute as pc

from memstream.adapters.embedders import Embedder
from memstream.events.vocabulary import EmbeddingComputed
from memstream.jobs.embedding_backfill import missing_embedding_events
from memstream.projections.archiving import is_archived, summary_of
from memstream.projections.vectors import embedding_events
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.lance.tables import ARCHIVE_INDEX

__all__ = ["missing_archived_vectors", "missing_vectors"]

_ARCHIVE_COLUMNS = [
    "memory_id",
    "user_id",
    "project_id",
    "kind",
    "occurred_at",
    "speaker",
    "search_text",
    "vector_model",
    "archived_at",
    "restored_at",
]


def missing_vectors(
    store: ProjectionStore, embedder: Embedder, now: datetime, turns: int, batch: int
) -> Iterator[list[EmbeddingComputed]]:
    """``EmbeddingComputed`` events, ``batch`` memories at a time, for every hot memory
    without a vector and every archived memory without one of ``embedder``'s model."""
    yield from missing_embedding_events(store, embedder, now, turns, batch)
    yield from missing_archived_vectors(store, embedder, now, batch)


def missing_archived_vectors(
    store: ProjectionStore, embedder: Embedder, now: datetime, batch: int
) -> Iterator[list[EmbeddingComputed]]:
    """The vectors of archived memories whose index row holds another model's vector
    (or none), each made from the memory's summary."""
    if not store.count(ARCHIVE_INDEX):
        return
    rows = store.scan(ARCHIVE_INDEX, columns=_ARCHIVE_COLUMNS)
    other_model = pc.fill_null(pc.not_equal(rows.column("vector_model"), embedder.model), True)
    wanted = [r for r in rows.filter(other_model).to_pylist() if is_archived(r)]
    wanted.sort(key=lambda r: (r["user_id"], r["memory_id"]))
    for start in range(0, len(wanted), batch):
        chunk = wanted[start : start + batch]
        vectors = embedder.embed([summary_of(r) for r in chunk])
        described = [
            (r["memory_id"], r["user_id"], r["project_id"], r["kind"], r["occurred_at"])
            for r in chunk
        ]
        yield embedding_events(described, vectors, embedder.model, embedder.version, now)
