"""How memories have been used: their access row and their state row, read together for
the jobs that judge memories by use (decay, archiving)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from memstream.projections.access import access_id
from memstream.projections.memory_state import state_id
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.lance.tables import ACCESS, MEMORY_STATE

__all__ = ["Usage", "usage_of"]

#: Memories whose access and state rows are fetched with one query.
_PAGE = 5000


@dataclass(frozen=True)
class Usage:
    """A memory's access count, last access and ``memory_state`` row (or None)."""

    access_count: int = 0
    last_accessed: datetime | None = None
    state: dict[str, Any] | None = None


def usage_of(store: ProjectionStore, rows: Sequence[Mapping[str, Any]]) -> dict[str, Usage]:
    """The usage of each memory row (``memory_id`` and ``user_id``), by memory id. An
    access or state row of another user never counts. Rows are read ``_PAGE`` memories
    per query."""
    if len(rows) > _PAGE:
        out: dict[str, Usage] = {}
        for start in range(0, len(rows), _PAGE):
            out.update(usage_of(store, rows[start : start + _PAGE]))
        return out
    if not rows:
        return {}
    access = {
        r["access_id"]: r
        for r in store.by_ids(ACCESS, [access_id(r["user_id"], r["memory_id"]) for r in rows])
    }
    states = {
        r["state_id"]: r
        for r in store.by_ids(MEMORY_STATE, [state_id(r["user_id"], r["memory_id"]) for r in rows])
    }
    out = {}
    for r in rows:
        a = access.get(access_id(r["user_id"], r["memory_id"]))
        out[r["memory_id"]] = Usage(
            access_count=int(a["access_count"]) if a else 0,
            last_accessed=a["last_accessed"] if a else None,
            state=states.get(state_id(r["user_id"], r["memory_id"])),
        )
    return out
