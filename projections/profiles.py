"""Reading one memory, and an entity's profile, within a user's scope.

``memory_document`` returns a memory as the API shows it (with its entities' names and
its access count); ``entity_profile`` resolves a name through normalized keys and
aliases and returns the entity with its linked memories and a monthly timeline.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from projections.entities import entity_id, normalize_name
from storage import filters
from storage.lance_store import ACCESS, ENTITIES, MEMORIES, ProjectionStore
from storage.schemas import NOT_STATE_COLUMNS

__all__ = ["entity_profile", "memory_document"]

_HIDDEN = {*NOT_STATE_COLUMNS, "search_text"}
_LINKED_SHOWN = 20


def memory_document(store: ProjectionStore, user_id: str, memory_id: str) -> dict[str, Any] | None:
    """The memory ``memory_id`` if ``user_id`` owns it, else None."""
    rows = store.by_ids(MEMORIES, [memory_id], where=filters.equals("user_id", user_id))
    if not rows:
        return None
    row = {k: v for k, v in rows[0].items() if k not in _HIDDEN}
    ids = list(row.get("entity_ids") or ())
    names = {
        r["entity_id"]: r["canonical_name"]
        for r in store.by_ids(ENTITIES, ids, ["entity_id", "canonical_name"])
    }
    row["entities"] = [names[e] for e in ids if e in names]
    access = store.by_ids(ACCESS, [memory_id], ["access_count", "last_accessed"])
    row["access_count"] = int(access[0]["access_count"]) if access else 0
    row["last_accessed"] = access[0]["last_accessed"] if access else None
    return row


def entity_profile(store: ProjectionStore, user_id: str, name: str) -> dict[str, Any] | None:
    """The entity ``name`` (or an alias of it) of ``user_id``, with its memories."""
    key = normalize_name(name)
    if not key:
        return None
    rows = store.scan(
        ENTITIES,
        where=filters.all_of(filters.equals("user_id", user_id), filters.has_any("aliases", [key])),
    ).to_pylist()
    if not rows:
        return None
    entity = max(rows, key=lambda r: r["mention_count"])
    ids = [entity_id(user_id, entity["type"], alias) for alias in entity["aliases"] or ()]
    linked = store.with_entities(
        ids,
        filters.all_of(filters.equals("user_id", user_id), filters.is_null("valid_until")),
        limit=1_000_000,
        columns=["memory_id", "kind", "content", "speaker", "session_id", "occurred_at"],
    )
    timeline = Counter(
        r["occurred_at"].strftime("%Y-%m") for r in linked if r["occurred_at"] is not None
    )
    return {
        "entity_id": entity["entity_id"],
        "name": entity["canonical_name"],
        "type": entity["type"],
        "aliases": list(entity["aliases"] or ()),
        "mention_count": int(entity["mention_count"]),
        "first_seen": entity["first_seen"],
        "last_seen": entity["last_seen"],
        "memories": linked[:_LINKED_SHOWN],
        "memory_count": len(linked),
        "timeline": [{"month": month, "memories": n} for month, n in sorted(timeline.items())],
    }
