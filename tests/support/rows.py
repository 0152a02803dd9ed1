"""Rows of the projection tables as tests write them straight into a store: a memory
and an entity of user ``u`` (what the key and concurrency tests need, the rest empty)."""

from __future__ import annotations

from typing import Any

from memstream.storage.schemas import ENTITIES_SCHEMA, MEMORIES_SCHEMA

__all__ = ["entity_row", "memory_row"]


def memory_row(memory_id: str, user: str = "u") -> dict[str, Any]:
    row: dict[str, Any] = {name: None for name in MEMORIES_SCHEMA.names}
    row.update(memory_id=memory_id, kind="episode", user_id=user, content="c", search_text="c")
    return row


def entity_row(entity_id: str, count: int) -> dict[str, Any]:
    row: dict[str, Any] = {name: None for name in ENTITIES_SCHEMA.names}
    row.update(entity_id=entity_id, user_id="u", type="person", canonical_name=entity_id,
               key=entity_id, mention_count=count)  # fmt: skip
    return row
