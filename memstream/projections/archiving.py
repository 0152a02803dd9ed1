"""The ``archive_index`` rows of archived memories, folded from archive events (pure).

A row is the memory as archived by its owner, keyed by user and memory
(:func:`archive_id`): an event naming another user's memory makes a row of its own that
never touches the owner's. It holds what the newest ``MemoryArchived`` says: the
summary, speaker first, as the full-text index sees it (:func:`summary_of` gives it
back), the vector as 4-bit values (:mod:`memstream.projections.compact_vectors`), the provenance
and the storage reference (split so that a batch's rows share one file name:
:func:`storage_ref_of` joins it back; the checksum stays in the event and in the Parquet
row itself); the newest archive and restore times, and every expansion time. Times only
move forward and expansions only accumulate, so folding the events in any order gives
the same row: a memory is archived while its newest archive is later than its newest
restore (:func:`is_archived`).

A store searches the vectors of one model. An archived memory whose row holds another
model's vector (archived before a ``memstream reembed``) takes the store model's vector
of the memory when one is computed (:func:`adopt_vectors`), whether the log delivers
that vector before the archiving (a replay reads the topics one after the other) or
after it (a re-embedding of a store that has archived memories).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

import numpy as np

from memstream.events.vocabulary import MemoryArchived, MemoryExpanded, MemoryRestored
from memstream.projections.compact_vectors import pack_int4
from memstream.projections.episodes import search_text
from memstream.projections.lattice import greatest
from memstream.storage import filters
from memstream.storage.archive.cold_refs import StorageRef

__all__ = [
    "ARCHIVED",
    "ArchiveEvent",
    "adopt_vectors",
    "archive_id",
    "expansions_within",
    "fold_archive_events",
    "hot_rows",
    "is_archived",
    "original_of",
    "storage_ref_of",
    "summary_of",
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


def _split_ref(text: str, memory_id: str) -> Row:
    """``storage_file`` and ``storage_version`` of a storage reference naming
    ``memory_id``; one naming anything else (never written by the archiver) is kept
    whole in ``storage_file``, with an empty version."""
    try:
        ref = StorageRef.parse(text)
    except ValueError:
        ref = None
    if ref is None or ref.memory_id != memory_id:
        return {"storage_file": text, "storage_version": ""}
    return {"storage_file": ref.path, "storage_version": ref.version}


def storage_ref_of(row: Mapping[str, Any]) -> str:
    """An archive index row's storage reference, as its ``MemoryArchived`` gave it."""
    if row["storage_version"] == "":
        return str(row["storage_file"])
    return str(StorageRef(row["storage_file"], row["memory_id"], row["storage_version"]))


def summary_of(row: Mapping[str, Any]) -> str:
    """An archived memory's summary: its ``search_text`` without the speaker in front."""
    text = str(row["search_text"])
    speaker = row.get("speaker")
    prefix = f"{speaker}: " if speaker else ""
    return text[len(prefix) :] if prefix and text.startswith(prefix) else text


def expansions_within(row: Mapping[str, Any], now: datetime, window: timedelta) -> int:
    """How often the original was expanded in ``(now - window, now]``."""
    return sum(1 for t in row.get("expanded_at") or [] if now - window < t <= now)


#: What an ``archive_index`` row takes from the newest ``MemoryArchived`` of its memory.
_FROM_NEWEST_ARCHIVE = (
    "project_id",
    "kind",
    "session_id",
    "speaker",
    "tags",
    "importance",
    "occurred_at",
    "reason",
    "hotness",
    "archived_at",
    "confidence",
    "source_event_ids",
    "entity_ids",
)


def _searchable(e: MemoryArchived) -> Row:
    """The columns search reads of an archived memory, derived from its event."""
    vector = scale = None
    if e.summary_vector:
        vector, scale = pack_int4(e.summary_vector)
    return {
        "search_text": search_text(e.speaker, e.summary),  # the inverse of summary_of
        **_split_ref(e.storage_ref, e.memory_id),
        "vector": vector,
        "vector_scale": scale,
        "vector_model": e.summary_model if vector is not None else None,
    }


def _empty(user_id: str, memory_id: str) -> Row:
    return {
        **dict.fromkeys(_FROM_NEWEST_ARCHIVE),
        "archive_id": archive_id(user_id, memory_id),
        "memory_id": memory_id,
        "user_id": user_id,
        "search_text": "",
        "tags": [],
        "storage_file": "",
        "storage_version": None,
        "vector": None,
        "vector_scale": None,
        "vector_model": None,
        "restored_at": None,
        "expanded_at": [],
    }


def adopt_vectors(
    rows: Mapping[str, Mapping[str, Any]],
    vectors: Mapping[str, Sequence[float] | np.ndarray],
    model: str,
) -> dict[str, Row]:
    """The archived ``rows`` (by archive id) changed to hold the vector ``vectors`` gives
    their memory (by memory id) where their own vector is not of ``model``."""
    out: dict[str, Row] = {}
    for key, row in rows.items():
        vector = vectors.get(row["memory_id"])
        if vector is None or row.get("vector_model") == model or not is_archived(row):
            continue
        packed, scale = pack_int4(vector)
        out[key] = {**row, "vector": packed, "vector_scale": scale, "vector_model": model}
    return out


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
                row.update(_searchable(e))
                row["tags"] = list(e.tags)
                # empty as None: what an event from before provenance was kept gives
                row["source_event_ids"] = list(e.source_event_ids) or None
                row["entity_ids"] = list(e.entity_ids) or None
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
