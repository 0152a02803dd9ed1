"""The ``archive_index`` rows of archived memories, folded from archive events (pure).

A row is the memory as archived by its owner, keyed by user and memory
(:func:`archive_id`): an event naming another user's memory makes a row of its own that
never touches the owner's. It holds the summary and the storage reference from the
newest ``MemoryArchived``
(the checksum stays in the event and in the Parquet row itself),
the newest archive and restore times, and every expansion time. Times only move
forward and expansions only accumulate, so folding the events in any order gives the
same row: a memory is archived while its newest archive is later than its newest
restore (:func:`is_archived`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime, timedelta
from typing import Any

from projections.events import MemoryArchived, MemoryExpanded, MemoryRestored
from projections.lattice import greatest
from storage import filters

__all__ = [
    "ARCHIVED",
    "ArchiveEvent",
    "archive_id",
    "expansions_within",
    "fold_archive_events",
    "hot_rows",
    "is_archived",
    "original_of",
]

ArchiveEvent = MemoryArchived | MemoryRestored | MemoryExpanded
Row = dict[str, Any]


def archive_id(user_id: str, memory_id: str) -> str:
    """The key of an ``archive_index`` row: the memory as archived by its owner."""
    return f"{user_id}|{memory_id}"


def is_archived(row: Mapping[str, Any] | None) -> bool:
    """True when the row's newest archive is later than its newest restore."""
    if row is None or row.get("archived_at") is None:
        return False
    restored = row.get("restored_at")
    return restored is None or row["archived_at"] > restored


#: :func:`is_archived` as a filter on ``archive_index``.
ARCHIVED = filters.all_of(
    filters.is_not_null("archived_at"),
    filters.any_of(
        filters.is_null("restored_at"), filters.column_greater("archived_at", "restored_at")
    ),
)


def expansions_within(row: Mapping[str, Any], now: datetime, window: timedelta) -> int:
    """How often the original was expanded in ``(now - window, now]``."""
    return sum(1 for t in row.get("expanded_at") or [] if now - window < t <= now)


#: What an ``archive_index`` row takes from the newest ``MemoryArchived`` of its memory.
_FROM_NEWEST_ARCHIVE = (
    "project_id",
    "kind",
    "session_id",
    "speaker",
    "summary",
    "tags",
    "importance",
    "occurred_at",
    "storage_ref",
    "reason",
    "hotness",
    "archived_at",
)


def _empty(user_id: str, memory_id: str) -> Row:
    return {
        **dict.fromkeys(_FROM_NEWEST_ARCHIVE),
        "archive_id": archive_id(user_id, memory_id),
        "memory_id": memory_id,
        "user_id": user_id,
        "summary": "",
        "tags": [],
        "storage_ref": "",
        "restored_at": None,
        "expanded_at": [],
    }


def fold_archive_events(
    existing: Mapping[str, Mapping[str, Any]], events: Iterable[ArchiveEvent]
) -> dict[str, Row]:
    """The changed rows (by :func:`archive_id`) after folding ``events`` into
    ``existing`` (rows by archive id)."""
    out: dict[str, Row] = {}
    for e in events:
        key = archive_id(e.user_id, e.memory_id)
        current = out.get(key) or existing.get(key)
        row = dict(current) if current is not None else _empty(e.user_id, e.memory_id)
        if isinstance(e, MemoryArchived):
            if row["archived_at"] is None or e.archived_at >= row["archived_at"]:
                row.update({name: getattr(e, name) for name in _FROM_NEWEST_ARCHIVE})
                row["tags"] = list(e.tags)
        elif isinstance(e, MemoryRestored):
            row["restored_at"] = greatest(row["restored_at"], e.restored_at)
        else:
            row["expanded_at"] = sorted({*(row["expanded_at"] or []), e.expanded_at})
        out[key] = row
    return out


def original_of(memory: Mapping[str, Any], vector: Mapping[str, Any] | None) -> Row:
    """The original kept in the cold store: the ``memories`` row (``memory_columns``
    of it) and its vector row's vector, model and source event."""
    return {
        **memory,
        "vector": list(vector["vector"]) if vector is not None else None,
        "vector_model": vector["model"] if vector is not None else None,
        "vector_source_event_id": vector["source_event_id"] if vector is not None else None,
    }


def hot_rows(original: Mapping[str, Any], memory_columns: Iterable[str]) -> tuple[Row, Row | None]:
    """The ``memories`` row and the ``vectors`` row (None without a vector) an original
    restores: the inverse of :func:`original_of`."""
    memory = {k: original[k] for k in memory_columns}
    if original["vector"] is None:
        return memory, None
    vector = {
        "memory_id": original["memory_id"],
        "user_id": original["user_id"],
        "project_id": original["project_id"],
        "kind": original["kind"],
        "occurred_at": original["occurred_at"],
        "model": original["vector_model"],
        "source_event_id": original["vector_source_event_id"],
        "vector": original["vector"],
    }
    return memory, vector
