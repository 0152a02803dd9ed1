"""Arrow schemas of the LanceDB tables and the Parquet event archive.

This module owns column names and types only; it knows nothing of events or Kafka
clients. Columns that record a log position (``log_*``) are provenance: they say where
a row came from in one life of the log and are left out of state digests.
"""

from __future__ import annotations

import pyarrow as pa

__all__ = [
    "ACCESS_SCHEMA",
    "ARCHIVE_SCHEMA",
    "CHECKPOINTS_SCHEMA",
    "DEAD_LETTERS_SCHEMA",
    "DEFAULT_VECTOR_DIMENSION",
    "ENTITIES_SCHEMA",
    "MEMORIES_SCHEMA",
    "NOT_STATE_COLUMNS",
    "POSITION_COLUMNS",
    "Checkpoint",
    "vectors_schema",
]

#: (log_epoch, offset) of the last applied record of one (topic, partition).
Checkpoint = tuple[str, int]

_UTC = pa.timestamp("us", tz="UTC")

#: Columns that locate a row in one life of the log, not part of its meaning.
POSITION_COLUMNS = ("log_epoch", "log_topic", "log_partition", "log_offset")
#: Where an updated row's last applied event sat in the log (the guard that makes
#: applying a batch twice count it once).
APPLIED_COLUMNS = ("applied_epoch", "applied_partition", "applied_offset")
#: Columns left out of state digests: log positions, not meaning.
NOT_STATE_COLUMNS = (*POSITION_COLUMNS, *APPLIED_COLUMNS)

MEMORIES_SCHEMA = pa.schema(
    [
        pa.field("memory_id", pa.string(), nullable=False),
        pa.field("kind", pa.string(), nullable=False),
        pa.field("user_id", pa.string(), nullable=False),
        pa.field("project_id", pa.string()),
        pa.field("session_id", pa.string()),
        pa.field("channel", pa.string()),
        pa.field("role", pa.string()),
        pa.field("speaker", pa.string()),
        pa.field("content", pa.string(), nullable=False),
        # content with the speaker's name in front: what the full-text index covers.
        pa.field("search_text", pa.string(), nullable=False),
        pa.field("metadata", pa.string()),
        pa.field("tags", pa.list_(pa.string())),
        pa.field("entity_ids", pa.list_(pa.string())),
        pa.field("importance", pa.float32()),
        pa.field("confidence", pa.float32()),
        pa.field("source_event_ids", pa.list_(pa.string())),
        pa.field("occurred_at", _UTC),
        pa.field("ingested_at", _UTC),
        pa.field("valid_until", _UTC),
        pa.field("log_epoch", pa.string()),
        pa.field("log_topic", pa.string()),
        pa.field("log_partition", pa.int32()),
        pa.field("log_offset", pa.int64()),
    ]
)

_APPLIED = [
    pa.field("applied_epoch", pa.string()),
    pa.field("applied_partition", pa.int32()),
    pa.field("applied_offset", pa.int64()),
]

#: One row per (user, entity): names it answers to and how often it was mentioned.
ENTITIES_SCHEMA = pa.schema(
    [
        pa.field("entity_id", pa.string(), nullable=False),
        pa.field("user_id", pa.string(), nullable=False),
        pa.field("type", pa.string(), nullable=False),
        pa.field("canonical_name", pa.string(), nullable=False),
        pa.field("key", pa.string(), nullable=False),
        pa.field("aliases", pa.list_(pa.string())),
        pa.field("mention_count", pa.int64()),
        pa.field("first_seen", _UTC),
        pa.field("last_seen", _UTC),
        *_APPLIED,
    ]
)

#: How often, and when last, searches returned a memory.
ACCESS_SCHEMA = pa.schema(
    [
        pa.field("memory_id", pa.string(), nullable=False),
        pa.field("user_id", pa.string(), nullable=False),
        pa.field("access_count", pa.int64()),
        pa.field("last_accessed", _UTC),
        *_APPLIED,
    ]
)


#: The dimension of the default embedder's vectors (all-MiniLM-L6-v2).
DEFAULT_VECTOR_DIMENSION = 384


def vectors_schema(dimension: int = DEFAULT_VECTOR_DIMENSION) -> pa.Schema:
    """One vector per memory, with the memory's scope columns for prefiltered search."""
    return pa.schema(
        [
            pa.field("memory_id", pa.string(), nullable=False),
            pa.field("user_id", pa.string(), nullable=False),
            pa.field("project_id", pa.string()),
            pa.field("kind", pa.string()),
            pa.field("occurred_at", _UTC),
            pa.field("model", pa.string(), nullable=False),
            pa.field("source_event_id", pa.string()),
            pa.field("vector", pa.list_(pa.float32(), dimension)),
        ]
    )


CHECKPOINTS_SCHEMA = pa.schema(
    [
        pa.field("checkpoint_id", pa.string(), nullable=False),
        pa.field("consumer", pa.string(), nullable=False),
        pa.field("topic", pa.string(), nullable=False),
        pa.field("partition", pa.int32(), nullable=False),
        pa.field("log_epoch", pa.string(), nullable=False),
        pa.field("offset", pa.int64(), nullable=False),
        pa.field("updated_at", _UTC),
    ]
)

DEAD_LETTERS_SCHEMA = pa.schema(
    [
        pa.field("dead_letter_id", pa.string(), nullable=False),
        pa.field("log_epoch", pa.string()),
        pa.field("topic", pa.string()),
        pa.field("partition", pa.int32()),
        pa.field("offset", pa.int64()),
        pa.field("key", pa.binary()),
        pa.field("value", pa.binary()),
        pa.field("reason", pa.string()),
        pa.field("received_at", _UTC),
    ]
)

#: One row per valid input event, exactly the bytes the log carried.
ARCHIVE_SCHEMA = pa.schema(
    [
        pa.field("log_epoch", pa.string(), nullable=False),
        pa.field("topic", pa.string(), nullable=False),
        pa.field("partition", pa.int32(), nullable=False),
        pa.field("offset", pa.int64(), nullable=False),
        pa.field("timestamp", _UTC, nullable=False),
        pa.field("key", pa.binary()),
        pa.field("value", pa.binary(), nullable=False),
    ]
)
