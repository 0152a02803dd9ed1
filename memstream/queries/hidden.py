"""The memories held that no read shows by default: superseded, forgotten (a removed
document's chunks and facts among them) or pruned. Counts of what a user has leave them
out, as the memory list and search do, and say how many there are beside."""

from __future__ import annotations

from collections import Counter

from memstream.storage import filters
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.lance.tables import MEMORIES, MEMORY_STATE

__all__ = ["HIDDEN_STATE", "hidden_memories"]

#: :func:`memstream.projections.memory_state.is_hidden` as a filter on ``memory_state``.
HIDDEN_STATE = filters.any_of(
    filters.is_not_null("superseded_by"), filters.is_not_null("forgotten_at")
)
#: How many memory ids one look-up names.
_SLICE = 1000


def hidden_memories(store: ProjectionStore, user_id: str | None = None) -> Counter[tuple[str, str]]:
    """How many hot memories are hidden, by (user, kind), of ``user_id`` or everyone."""
    mine = filters.equals("user_id", user_id) if user_id is not None else ""
    states = store.scan(
        MEMORY_STATE, ["memory_id", "user_id"], filters.all_of(mine, HIDDEN_STATE)
    ).to_pylist()
    by_user: dict[str, list[str]] = {}
    for row in states:
        by_user.setdefault(row["user_id"], []).append(row["memory_id"])
    found: Counter[tuple[str, str]] = Counter()
    for user, ids in by_user.items():
        for start in range(0, len(ids), _SLICE):
            rows = store.by_ids(
                MEMORIES, ids[start : start + _SLICE], ["kind"], filters.equals("user_id", user)
            )
            found.update((user, str(r["kind"])) for r in rows)
    return found
