"""An entity found by its id, and the entities mentioned with it: what the console's
entity page draws as a graph. An id (not a name) is what an address carries: a name
is words of the user's memories, and those never go into a URL."""

from __future__ import annotations

from collections import Counter
from typing import Any

from memstream.queries.profiles import linked_ids
from memstream.storage import filters
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.lance.tables import ENTITIES, MEMORIES

__all__ = ["co_mentioned", "entity_of"]

_ENTITY_COLUMNS = ["entity_id", "canonical_name", "type", "aliases", "mention_count"]


def entity_of(store: ProjectionStore, user_id: str, entity_id: str) -> dict[str, Any] | None:
    """The ``entities`` row ``entity_id`` of ``user_id`` (None: no such entity of theirs)."""
    rows = store.by_ids(ENTITIES, [entity_id], _ENTITY_COLUMNS, filters.equals("user_id", user_id))
    return rows[0] if rows else None


def co_mentioned(
    store: ProjectionStore, user_id: str, entity: dict[str, Any], limit: int = 16
) -> list[dict[str, Any]]:
    """The entities mentioned in the same current memories as ``entity`` (an
    ``entities`` row), most often first, each with ``together`` (how many memories)."""
    mine = linked_ids(user_id, entity)
    rows = store.queries.with_entities(
        sorted(mine),
        filters.all_of(filters.equals("user_id", user_id), filters.is_null("valid_until")),
        limit=5_000,
        columns=["memory_id", "entity_ids"],
        table_name=MEMORIES,
    )
    together = Counter(
        other for r in rows for other in set(r["entity_ids"] or ()) if other not in mine
    )
    if not together:
        return []
    found = store.by_ids(
        ENTITIES, list(together), _ENTITY_COLUMNS, filters.equals("user_id", user_id)
    )
    neighbours = [{**r, "together": together[r["entity_id"]]} for r in found]
    neighbours.sort(key=lambda r: (-r["together"], r["canonical_name"]))
    return neighbours[:limit]
