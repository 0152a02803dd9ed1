"""The embeddings projection: ``EmbeddingComputed`` events into ``vectors`` rows (pure).

The vector travels in the event as base64 float32, so a replay rebuilds the rows from
the log without calling a model. A store holds the vectors of one model: events of
another model (the log keeps every model's vectors across a ``memstream reembed``), or
of another dimension, are left out.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from datetime import datetime

import numpy as np
import pyarrow as pa

from memstream.events.vocabulary import EmbeddingComputed

__all__ = ["decode_vector", "embedding_events", "encode_vector", "vectors_table"]


def encode_vector(vector: np.ndarray) -> str:
    """A float vector as base64 of little-endian float32 values."""
    return base64.b64encode(np.asarray(vector, dtype="<f4").tobytes()).decode("ascii")


def decode_vector(text: str) -> np.ndarray:
    return np.frombuffer(base64.b64decode(text), dtype="<f4")


def vectors_table(
    events: Sequence[EmbeddingComputed], schema: pa.Schema, model: str | None = None
) -> pa.Table:
    """The ``vectors`` rows of ``events`` that fit ``schema``'s dimension and are of
    ``model`` (None: of any model), the first per memory."""
    dimension = schema.field("vector").type.list_size
    chosen: dict[str, EmbeddingComputed] = {}
    for event in events:
        if event.dimension == dimension and (model is None or event.model == model):
            chosen.setdefault(event.memory_id, event)
    kept = list(chosen.values())
    flat = (
        np.concatenate([decode_vector(e.vector) for e in kept])
        if kept
        else np.zeros(0, dtype="<f4")
    )
    vectors = pa.FixedSizeListArray.from_arrays(pa.array(flat, type=pa.float32()), dimension)
    return pa.Table.from_arrays(
        [
            pa.array([e.memory_id for e in kept], pa.string()),
            pa.array([e.user_id for e in kept], pa.string()),
            pa.array([e.project_id for e in kept], pa.string()),
            pa.array([e.kind for e in kept], pa.string()),
            pa.array([e.occurred_at for e in kept], schema.field("occurred_at").type),
            pa.array([e.model for e in kept], pa.string()),
            pa.array([e.event_id for e in kept], pa.string()),
            vectors,
        ],
        schema=schema,
    )


def embedding_events(
    memories: Sequence[tuple[str, str, str | None, str, datetime | None]],
    vectors: np.ndarray,
    model: str,
    version: str,
    computed_at: datetime,
) -> list[EmbeddingComputed]:
    """One ``EmbeddingComputed`` per (memory id, user, project, kind, time) and vector.

    The event id is made of the memory id and the model, so embedding a memory twice
    with the same model yields the same event (and one vector row).
    """
    return [
        EmbeddingComputed(
            event_id=f"{memory_id}|{model}|{version}",
            memory_id=memory_id,
            user_id=user_id,
            project_id=project_id,
            kind=kind,
            occurred_at=occurred_at,
            model=model,
            model_version=version,
            dimension=int(vector.shape[0]),
            vector=encode_vector(vector),
            computed_at=computed_at,
        )
        for (memory_id, user_id, project_id, kind, occurred_at), vector in zip(
            memories, vectors, strict=True
        )
    ]
