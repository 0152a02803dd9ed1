"""Arrow schemas of the LanceDB tables and the Parquet event archive.

This module owns column names and types only; it knows nothing of events or Kafka
clients. Columns that record a log position (``log_*``) are provenance: they say where
a row came from in one life of the log and are left out of state digests.
"""

from __future__ import annotations

import pyarrow as pa

__all__ = [
    "ARCHIVE_SCHEMA",
    "CHECKPOINTS_SCHEMA",
    "DEAD_LETTERS_SCHEMA",
    "MEMORIES_SCHEMA",
    "POSITION_COLUMNS",
    "Checkpoint",
]

#: (log_epoch, offset) of the last applied record of one (topic, partition).
Checkpoint = tuple[str, int]

_UTC = pa.timestamp("us", tz="UTC")

#: Columns that locate a row in one life of the log, not part of its meaning.
POSITION_COLUMNS = ("log_epoch", "log_topic", "log_partition", "log_offset")

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
