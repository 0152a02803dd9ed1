"""The LanceDB tables of a projection generation: their names, schemas and keys.

``memories`` (one row per memory, insert-only), ``vectors`` (one embedding per memory,
insert-only, with the memory's scope columns), ``entities``, ``access``, ``sessions``,
``memory_state``, ``archive_index`` and ``watermarks`` (small rows updated in place),
``checkpoints`` and ``dead_letters``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeAlias

import pyarrow as pa

from storage.schemas import (
    ACCESS_SCHEMA,
    ARCHIVE_INDEX_SCHEMA,
    CHECKPOINTS_SCHEMA,
    DEAD_LETTERS_SCHEMA,
    ENTITIES_SCHEMA,
    MEMORIES_SCHEMA,
    MEMORY_STATE_SCHEMA,
    SESSIONS_SCHEMA,
    WATERMARKS_SCHEMA,
)

__all__ = [
    "ACCESS",
    "ARCHIVE_INDEX",
    "CHECKPOINTS",
    "DEAD_LETTERS",
    "DERIVED_COLUMNS",
    "ENTITIES",
    "FIXED_SCHEMAS",
    "INSERT_ONLY",
    "KEYS",
    "MEMORIES",
    "MEMORY_STATE",
    "REPLAY_FILLED_COLUMNS",
    "RETIRED_COLUMNS",
    "SESSIONS",
    "STATE_TABLES",
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

STATE_TABLES = (MEMORIES, VECTORS, ENTITIES, ACCESS, SESSIONS, MEMORY_STATE, ARCHIVE_INDEX)

#: Tables whose rows are only ever inserted: compaction never conflicts with their writer.
INSERT_ONLY = frozenset({MEMORIES, VECTORS, DEAD_LETTERS})

#: Rows to write: dicts, or an Arrow table already in the table's schema.
Rows: TypeAlias = Sequence[Mapping[str, Any]] | pa.Table
