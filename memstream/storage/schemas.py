"""Arrow schemas of the LanceDB tables and the Parquet event archive.

This module owns column names and types only; it knows nothing of events or Kafka
clients. Columns that record a log position (``log_*``) are provenance: they say where
a row came from in one life of the log and are left out of state digests.
"""

from __future__ import annotations

import pyarrow as pa

__all__ = [
    "ACCESS_SCHEMA",
    "ARCHIVE_INDEX_SCHEMA",
    "ARCHIVE_SCHEMA",
    "CHECKPOINTS_SCHEMA",
    "COLD_ORIGINAL_SCHEMA",
    "DEAD_LETTERS_SCHEMA",
    "DEFAULT_VECTOR_DIMENSION",
    "DOCUMENTS_SCHEMA",
    "ENTITIES_SCHEMA",
    "LEASES_SCHEMA",
    "LINK_TYPE",
    "MEMORIES_SCHEMA",
    "MEMORY_STATE_SCHEMA",
    "MOMENTS_SCHEMA",
    "NOT_STATE_COLUMNS",
    "OWNER_COLUMNS",
    "PARTITION_OWNERS_SCHEMA",
    "POSITION_COLUMNS",
    "SERVED_SCHEMA",
    "SESSIONS_SCHEMA",
    "WATERMARKS_SCHEMA",
    "vectors_schema",
]


_UTC = pa.timestamp("us", tz="UTC")

#: Columns that locate a row in one life of the log, not part of its meaning.
POSITION_COLUMNS = (
    "log_epoch",
    "log_topic",
    "log_partition",
    "log_offset",
    "log_received_at",
)
#: Where an updated row's last applied event sat in the log (the guard that makes
#: applying a batch twice count it once).
APPLIED_COLUMNS = ("applied_epoch", "applied_partition", "applied_offset")
#: Which worker's claim on the row's partition (consumer and partition) and under which
#: ownership epoch a folded row was last written (the guard that keeps a worker that lost
#: the partition from putting an older fold back; see ``storage.lance_tables``).
OWNER_COLUMNS = ("owner_claim", "owner_epoch")
#: Columns left out of state digests: log positions and writers, not meaning.
NOT_STATE_COLUMNS = (*POSITION_COLUMNS, *APPLIED_COLUMNS, *OWNER_COLUMNS)

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
        # derived memories: what they derive from (facts a reflection sums up, the
        # memory a correction replaces), and what they state.
        pa.field("source_memory_ids", pa.list_(pa.string())),
        pa.field("subject", pa.string()),
        pa.field("attribute", pa.string()),
        pa.field("value", pa.string()),
        # "user|subject|attribute" when the subject holds one value at a time: the
        # newest fact of a slot supersedes the older ones.
        pa.field("slot", pa.string()),
        pa.field("occurred_at", _UTC),
        pa.field("ingested_at", _UTC),
        pa.field("valid_until", _UTC),
        pa.field("log_epoch", pa.string()),
        pa.field("log_topic", pa.string()),
        pa.field("log_partition", pa.int32()),
        pa.field("log_offset", pa.int64()),
    ]
)

_OWNER = [pa.field("owner_claim", pa.string()), pa.field("owner_epoch", pa.int64())]

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
        # "user|memory": a user's use of a memory (another user's events never touch it)
        pa.field("access_id", pa.string(), nullable=False),
        pa.field("memory_id", pa.string(), nullable=False),
        pa.field("user_id", pa.string(), nullable=False),
        pa.field("access_count", pa.int64()),
        pa.field("last_accessed", _UTC),
        *_APPLIED,
    ]
)


#: One row per (user, session): the span of event time its turns cover, and how far
#: the lifecycle jobs have closed and consolidated it. Every column merges by min/max,
#: so folding the same events in any order gives the same row.
SESSIONS_SCHEMA = pa.schema(
    [
        pa.field("session_key", pa.string(), nullable=False),
        pa.field("user_id", pa.string(), nullable=False),
        pa.field("project_id", pa.string()),
        pa.field("session_id", pa.string(), nullable=False),
        pa.field("first_at", _UTC),
        pa.field("last_at", _UTC),
        pa.field("ended_at", _UTC),
        pa.field("closed_through", _UTC),
        pa.field("closed_reason", pa.string()),
        pa.field("consolidated_through", _UTC),
        pa.field("extractor", pa.string()),
        # when the log last received a turn of it (processing time: the idle rule)
        pa.field("log_received_at", _UTC),
        pa.field("log_partition", pa.int32()),
        *_OWNER,
    ]
)

#: One row per (user, document): the fold of the document's events (see
#: ``projections.documents``): its current version, status, chunks and versions.
DOCUMENTS_SCHEMA = pa.schema(
    [
        pa.field("document_key", pa.string(), nullable=False),
        pa.field("user_id", pa.string(), nullable=False),
        pa.field("document_id", pa.string(), nullable=False),
        pa.field("project_id", pa.string()),
        pa.field("title", pa.string(), nullable=False),
        pa.field("media_type", pa.string(), nullable=False),
        pa.field("size", pa.int64(), nullable=False),
        pa.field("checksum", pa.string(), nullable=False),
        pa.field("status", pa.string(), nullable=False),
        pa.field("submitted_at", _UTC),
        pa.field("updated_at", _UTC),
        pa.field("submitted_event_id", pa.string()),
        pa.field("versions", pa.list_(pa.string())),
        pa.field("tags", pa.list_(pa.string())),
        pa.field("pages", pa.int32()),
        pa.field("total", pa.int32()),
        pa.field("chunks", pa.int32()),
        pa.field("parts", pa.list_(pa.int32())),
        pa.field("tries", pa.int32()),
        pa.field("error_class", pa.string()),
        pa.field("error_message", pa.string()),
        # the facts derived from the current version's chunks, and why none
        pa.field("fact_ids", pa.list_(pa.string())),
        pa.field("facts_error", pa.string()),
        # the chunks and facts of the versions replaced (a removal forgets them too)
        pa.field("retired_ids", pa.list_(pa.string())),
        pa.field("title_given", pa.bool_()),
        *_OWNER,
    ]
)

#: An earlier memory a memory refers back to (:class:`memstream.events.vocabulary.MemoryLink`).
LINK_TYPE = pa.struct(
    [
        pa.field("linked_id", pa.string(), nullable=False),
        pa.field("relation", pa.string(), nullable=False),
        pa.field("strength", pa.float64(), nullable=False),
    ]
)

#: What happened to a memory after it was written: superseded, forgotten or pruned,
#: confirmed, decayed, linked to the earlier memories it refers back to. A row exists
#: only for memories something happened to; each column pair merges by min or max, and
#: the links by union, so the row is the same in any order of events.
MEMORY_STATE_SCHEMA = pa.schema(
    [
        # "user|memory": a command naming another user's memory changes nothing of it.
        pa.field("state_id", pa.string(), nullable=False),
        pa.field("memory_id", pa.string(), nullable=False),
        pa.field("user_id", pa.string(), nullable=False),
        pa.field("valid_until", _UTC),
        pa.field("superseded_by", pa.string()),
        pa.field("forgotten_at", _UTC),
        pa.field("forgotten_reason", pa.string()),
        pa.field("protected_at", _UTC),
        pa.field("confidence", pa.float64()),
        pa.field("confidence_as_of", _UTC),
        *_OWNER,
        # added after the owner columns: a store written before links has them there
        pa.field("links", pa.list_(LINK_TYPE)),
    ]
)

#: The newest event time applied per partition of ``memory.messages``.
WATERMARKS_SCHEMA = pa.schema(
    [
        pa.field("watermark_id", pa.string(), nullable=False),
        pa.field("topic", pa.string(), nullable=False),
        pa.field("partition", pa.int32(), nullable=False),
        pa.field("event_time", _UTC),
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
        # the ownership epoch of the partition's writer (storage.claims): a checkpoint
        # is never replaced by one of an older epoch (a worker that lost the partition)
        pa.field("owner_epoch", pa.int64()),
    ]
)

#: One row per partition a writer's checkpoint save moved: what it had applied there
#: by then (a write token of every topic's position in the partition), when, and the
#: version of each state table that holds exactly that (``storage.moments``): what an
#: ``as_of`` read checks the tables out at. Insert-only.
MOMENTS_SCHEMA = pa.schema(
    [
        pa.field("moment_id", pa.string(), nullable=False),
        pa.field("consumer", pa.string(), nullable=False),
        pa.field("partition", pa.int32(), nullable=False),
        pa.field("recorded_at", _UTC, nullable=False),
        pa.field("position", pa.string(), nullable=False),
        # {"memories": 12, ...}: compact JSON, sorted by table name
        pa.field("versions", pa.string(), nullable=False),
    ]
)

#: What memstream gave callers (``ContextServed`` events, :mod:`memstream.projections.served`):
#: one row per answer, its lines as compact JSON, the memory ids they quote as a list
#: (so "where was this memory used" is one filter).
SERVED_SCHEMA = pa.schema(
    [
        pa.field("served_id", pa.string(), nullable=False),
        pa.field("user_id", pa.string(), nullable=False),
        pa.field("served_at", _UTC, nullable=False),
        pa.field("answer", pa.string(), nullable=False),
        pa.field("door", pa.string(), nullable=False),
        pa.field("key_id", pa.string()),
        pa.field("tenant", pa.string()),
        pa.field("agent", pa.string()),
        pa.field("session_id", pa.string()),
        pa.field("project_id", pa.string()),
        pa.field("question", pa.string(), nullable=False),
        pa.field("as_of", pa.string()),
        pa.field("asked_as_of", pa.string()),
        pa.field("budget_tokens", pa.int32()),
        pa.field("memory_ids", pa.list_(pa.string()), nullable=False),
        pa.field("lines", pa.string(), nullable=False),
        pa.field("digest", pa.string(), nullable=False),
    ]
)

#: Who writes each partition of a consumer now (storage.claims): the epoch rises with
#: every claim, and the writer checks it is still its own before it commits.
PARTITION_OWNERS_SCHEMA = pa.schema(
    [
        pa.field("owner_key", pa.string(), nullable=False),
        pa.field("consumer", pa.string(), nullable=False),
        pa.field("partition", pa.int32(), nullable=False),
        pa.field("epoch", pa.int64(), nullable=False),
        pa.field("owner", pa.string(), nullable=False),
        pa.field("claimed_at", _UTC),
    ]
)

#: Leases on work one process at a time may do (storage.claims), such as upkeep.
LEASES_SCHEMA = pa.schema(
    [
        pa.field("lease", pa.string(), nullable=False),
        pa.field("holder", pa.string(), nullable=False),
        # nanoseconds since the epoch (compared in the lease's compare-and-set)
        pa.field("expires_ns", pa.int64(), nullable=False),
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


#: One row per memory ever archived: its summary, where its original is, and when it
#: was archived, restored and expanded. It is archived while ``archived_at`` is later
#: than ``restored_at`` (both only move forward, so the order events arrive in does not
#: matter).
ARCHIVE_INDEX_SCHEMA = pa.schema(
    [
        # "user|memory": the memory as archived by its owner
        pa.field("archive_id", pa.string(), nullable=False),
        pa.field("memory_id", pa.string(), nullable=False),
        pa.field("user_id", pa.string(), nullable=False),
        pa.field("project_id", pa.string()),
        pa.field("kind", pa.string()),
        pa.field("session_id", pa.string()),
        pa.field("speaker", pa.string()),
        # the summary as the full-text index sees it: the speaker first, as in
        # ``memories`` (projections.archiving.summary_of gives the summary back)
        pa.field("search_text", pa.string(), nullable=False),
        pa.field("tags", pa.list_(pa.string())),
        pa.field("importance", pa.float32()),
        pa.field("occurred_at", _UTC),
        # where the original is: the storage reference without the memory id (which
        # is this row's), so a batch's rows share one file name and it packs small
        # (projections.archiving.storage_ref_of gives the reference back)
        pa.field("storage_file", pa.string(), nullable=False),
        pa.field("storage_version", pa.string()),
        # what else search needs of an archived memory: its compact vector (4 bits a
        # dimension, see projections.compact_vectors) and its provenance
        pa.field("confidence", pa.float32()),
        pa.field("vector", pa.binary()),
        pa.field("vector_scale", pa.float32()),
        pa.field("vector_model", pa.string()),
        pa.field("source_event_ids", pa.list_(pa.string())),
        pa.field("entity_ids", pa.list_(pa.string())),
        pa.field("reason", pa.string()),
        pa.field("hotness", pa.float64()),
        pa.field("archived_at", _UTC),
        pa.field("restored_at", _UTC),
        pa.field("expanded_at", pa.list_(_UTC)),
        *_OWNER,
    ]
)

#: An archived memory's original in the cold store: its ``memories`` row and its vector
#: (if it had one). Nothing that depends on when it was archived (the reason and the
#: hotness are in the archive event and index): a re-run of an interrupted batch
#: writes the same originals.
COLD_ORIGINAL_SCHEMA = pa.schema(
    [
        *MEMORIES_SCHEMA,
        pa.field("vector", pa.list_(pa.float32())),
        pa.field("vector_model", pa.string()),
        pa.field("vector_source_event_id", pa.string()),
    ]
)
