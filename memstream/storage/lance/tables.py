"""The LanceDB tables of a projection generation: their names, schemas and keys.

``memories`` (one row per memory, insert-only), ``vectors`` (one embedding per memory,
insert-only, with the memory's scope columns), ``entities``, ``access``, ``sessions``,
``memory_state``, ``archive_index``, ``documents`` and ``watermarks`` (small rows updated
in place),
``checkpoints`` and ``dead_letters``; ``served``, what was given to whom
(insert-only); ``moments``, which versions of the state tables
held what a writer had applied when (:mod:`memstream.storage.moments`);
``partition_owners`` and ``leases``, who may write what now (:mod:`memstream.storage.claims`).

Every table's key column is marked as its primary key, so that two writers inserting
the same new key at once conflict (and one retries) instead of both adding the row; the
tables of users' rows also hold a fence row per partition, which each write of the
partition's owner updates (:mod:`memstream.storage.lance.fence_rows`), so that the
conflict holds when the merge goes through the key's index too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeAlias

import pyarrow as pa

from memstream.storage.schemas import (
    ACCESS_SCHEMA,
    ARCHIVE_INDEX_SCHEMA,
    CHECKPOINTS_SCHEMA,
    DEAD_LETTERS_SCHEMA,
    DOCUMENTS_SCHEMA,
    ENTITIES_SCHEMA,
    LEASES_SCHEMA,
    MEMORIES_SCHEMA,
    MEMORY_STATE_SCHEMA,
    MOMENTS_SCHEMA,
    OWNER_COLUMNS,
    PARTITION_OWNERS_SCHEMA,
    SERVED_SCHEMA,
    SESSIONS_SCHEMA,
    WATERMARKS_SCHEMA,
)

__all__ = [
    "ACCESS",
    "ARCHIVE_INDEX",
    "CHECKPOINTS",
    "DEAD_LETTERS",
    "DERIVED_COLUMNS",
    "DOCUMENTS",
    "ENTITIES",
    "EXPORTED_TABLES",
    "FENCED_TABLES",
    "FIXED_SCHEMAS",
    "INSERT_ONLY",
    "KEYS",
    "LEASES",
    "MEMORIES",
    "MEMORY_STATE",
    "MOMENTS",
    "NEW_EMPTY_COLUMNS",
    "OWNER_GUARDED",
    "PARTITION_OWNERS",
    "REPLAY_FILLED_COLUMNS",
    "RETIRED_COLUMNS",
    "SERVED",
    "SESSIONS",
    "STATE_TABLES",
    "UPDATE_GUARDS",
    "USER_TABLES",
    "VECTORS",
    "WATERMARKS",
    "Rows",
]

MEMORIES = "memories"
VECTORS = "vectors"
ENTITIES = "entities"
ACCESS = "access"
CHECKPOINTS = "checkpoints"
DEAD_LETTERS = "dead_letters"
SESSIONS = "sessions"
MEMORY_STATE = "memory_state"
WATERMARKS = "watermarks"
ARCHIVE_INDEX = "archive_index"
PARTITION_OWNERS = "partition_owners"
LEASES = "leases"
DOCUMENTS = "documents"
MOMENTS = "moments"
SERVED = "served"

FIXED_SCHEMAS = {
    MEMORIES: MEMORIES_SCHEMA,
    ENTITIES: ENTITIES_SCHEMA,
    ACCESS: ACCESS_SCHEMA,
    CHECKPOINTS: CHECKPOINTS_SCHEMA,
    DEAD_LETTERS: DEAD_LETTERS_SCHEMA,
    SESSIONS: SESSIONS_SCHEMA,
    MEMORY_STATE: MEMORY_STATE_SCHEMA,
    WATERMARKS: WATERMARKS_SCHEMA,
    ARCHIVE_INDEX: ARCHIVE_INDEX_SCHEMA,
    PARTITION_OWNERS: PARTITION_OWNERS_SCHEMA,
    LEASES: LEASES_SCHEMA,
    DOCUMENTS: DOCUMENTS_SCHEMA,
    MOMENTS: MOMENTS_SCHEMA,
    SERVED: SERVED_SCHEMA,
}
KEYS = {
    MEMORIES: "memory_id",
    VECTORS: "memory_id",
    ENTITIES: "entity_id",
    ACCESS: "access_id",
    CHECKPOINTS: "checkpoint_id",
    DEAD_LETTERS: "dead_letter_id",
    SESSIONS: "session_key",
    MEMORY_STATE: "state_id",
    WATERMARKS: "watermark_id",
    ARCHIVE_INDEX: "archive_id",
    PARTITION_OWNERS: "owner_key",
    LEASES: "lease",
    DOCUMENTS: "document_key",
    MOMENTS: "moment_id",
    SERVED: "served_id",
}
#: The tables that hold projected state (what a replay must rebuild identically).
#: Columns added since a table was first written, and how to fill them from old rows.
DERIVED_COLUMNS: dict[str, dict[str, str]] = {
    ACCESS: {"access_id": "concat(user_id, '|', memory_id)"},
    ARCHIVE_INDEX: {
        "archive_id": "concat(user_id, '|', memory_id)",
        # projections.episodes.search_text of the speaker and the summary
        "search_text": "concat_ws(': ', nullif(speaker, ''), summary)",
        # projections.archiving's split of the storage reference
        "storage_file": "regexp_replace(storage_ref, '#[^#]*$', '')",
        "storage_version": "nullif(regexp_replace(storage_ref, '^.*#[^@]*@?', ''), '')",
    },
}
#: Columns an older memstream wrote that later ones derive others from and then drop
#: (with their indexes), after :data:`DERIVED_COLUMNS`.
RETIRED_COLUMNS: dict[str, tuple[str, ...]] = {ARCHIVE_INDEX: ("summary", "storage_ref")}
#: Nullable columns added since a table was first written that old rows cannot fill
#: (they come from events): added empty; a replay fills them.
REPLAY_FILLED_COLUMNS: dict[str, tuple[str, ...]] = {
    ARCHIVE_INDEX: (
        "confidence",
        "vector",
        "vector_scale",
        "vector_model",
        "source_event_ids",
        "entity_ids",
    ),
}

#: Nullable columns added since a table was first written that old rows leave empty
#: (their meaning starts with the next write).
NEW_EMPTY_COLUMNS: dict[str, tuple[str, ...]] = {
    CHECKPOINTS: ("owner_epoch",),
    DOCUMENTS: ("fact_ids", "facts_error", "retired_ids", *OWNER_COLUMNS, "title_given"),
    SESSIONS: OWNER_COLUMNS,
    MEMORY_STATE: (*OWNER_COLUMNS, "links"),
    ARCHIVE_INDEX: OWNER_COLUMNS,
}

#: Conditions (LanceDB merge ``where``, ``target`` the stored row, ``source`` the new
#: one) under which a guarded upsert replaces a stored row: a row folded from one topic
#: only by a later position in its partition; a row folded from several topics, and a
#: checkpoint, only by its partition's current owner or a later one. A writer that lost a
#: partition while it was frozen therefore cannot put an older state back (see
#: :mod:`memstream.streams.delivery.fencing`). Rows written without a fence (one worker) carry no
#: position or owner and are always replaced.
_LATER_POSITION = (
    "target.applied_epoch IS NULL OR source.applied_epoch IS NULL"
    " OR target.applied_partition <> source.applied_partition"
    " OR source.applied_epoch > target.applied_epoch"
    " OR (source.applied_epoch = target.applied_epoch"
    " AND source.applied_offset > target.applied_offset)"
)
_SAME_OR_LATER_OWNER = (
    "target.owner_epoch IS NULL OR source.owner_epoch IS NULL"
    " OR source.owner_epoch >= target.owner_epoch"
)
#: Epochs count per claim (consumer group and partition): a row last written under
#: another claim (the partition count or the group changed since) is not compared.
_SAME_OR_LATER_CLAIM = (
    "target.owner_claim IS NULL OR source.owner_claim IS NULL"
    f" OR target.owner_claim <> source.owner_claim OR {_SAME_OR_LATER_OWNER}"
)
#: Folded tables whose rows carry the writer's claim (:data:`OWNER_COLUMNS`).
OWNER_GUARDED = frozenset({SESSIONS, MEMORY_STATE, ARCHIVE_INDEX, DOCUMENTS})
UPDATE_GUARDS: dict[str, str] = {
    ENTITIES: _LATER_POSITION,
    ACCESS: _LATER_POSITION,
    CHECKPOINTS: _SAME_OR_LATER_OWNER,
    **dict.fromkeys(OWNER_GUARDED, _SAME_OR_LATER_CLAIM),
}

STATE_TABLES = (
    MEMORIES,
    VECTORS,
    ENTITIES,
    ACCESS,
    SESSIONS,
    MEMORY_STATE,
    ARCHIVE_INDEX,
    DOCUMENTS,
)

#: Every table holding rows of a user (what an erasure empties of them): the state, and
#: the log of what was served (rebuilt by a replay too, but not memory: no digest of
#: memory counts it, and no read of memory as of a moment reads it).
USER_TABLES = (*STATE_TABLES, SERVED)
#: The tables with a fence row per partition, updated by each keyed write of its
#: owner, so that two writers of a partition cannot both insert a key
#: (:mod:`memstream.storage.lance.fence_rows`): every table of users' rows.
FENCED_TABLES = frozenset(USER_TABLES)
#: The tables a user's ``json`` export carries: every state table but the vectors (the
#: events export carries them), and the log of what agents were shown of the user.
EXPORTED_TABLES = (*(n for n in STATE_TABLES if n != VECTORS), SERVED)

#: Tables whose users' rows are only ever inserted (a key's copies are the same row):
#: compacted beside their writers, around the fragments holding a fence row
#: (:mod:`memstream.storage.lance.fenced_compaction`).
INSERT_ONLY = frozenset({MEMORIES, VECTORS, DEAD_LETTERS, MOMENTS, SERVED})

#: Rows to write: dicts, or an Arrow table already in the table's schema.
Rows: TypeAlias = Sequence[Mapping[str, Any]] | pa.Table
