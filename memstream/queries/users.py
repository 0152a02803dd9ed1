"""The users a deployment holds memories of, and the known ids closest to one it holds
none of (a typo, another case: ``Ana`` for ``ana``).

A user is known while the tables hold a memory of theirs, hot or archived. Their
tenant is the part of the id before the first ``:`` (``acme:bob`` is ``acme``'s); an
id without one belongs to no tenant.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from memstream.events.user_ids import tenant_of
from memstream.projections.archiving import ARCHIVED
from memstream.queries.hidden import hidden_memories
from memstream.storage import filters
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.lance.tables import ARCHIVE_INDEX, MEMORIES

__all__ = ["holds_memories", "known_users"]


def known_users(store: ProjectionStore, tenant: str | None = None) -> list[dict[str, Any]]:
    """Each user with memories (of ``tenant``, or every user): ``user_id``, ``memories``
    (hot, and shown by reads: superseded and forgotten ones left out), ``archived`` and
    ``last_at`` (when their newest memory happened), by id."""
    hot = _per_user(store.scan(MEMORIES, ["user_id", "occurred_at"]))
    hidden: dict[str, int] = {}
    for (user, _), n in hidden_memories(store).items():
        hidden[user] = hidden.get(user, 0) + n
    cold = _per_user(store.scan(ARCHIVE_INDEX, ["user_id", "occurred_at"], ARCHIVED))
    users = []
    for user_id in sorted(set(hot) | set(cold)):
        if tenant is not None and tenant_of(user_id) != tenant:
            continue
        (count, last), (archived, archived_last) = (
            hot.get(user_id, (0, None)),
            cold.get(user_id, (0, None)),
        )
        times = [t for t in (last, archived_last) if t is not None]
        users.append(
            {
                "user_id": user_id,
                "memories": count - hidden.get(user_id, 0),
                "archived": archived,
                "last_at": max(times) if times else None,
            }
        )
    return users


def _per_user(rows: pa.Table) -> dict[str, tuple[int, Any]]:
    """(rows, newest ``occurred_at``) per user of ``rows``."""
    if rows.num_rows == 0:
        return {}
    grouped = rows.group_by("user_id").aggregate([("user_id", "count"), ("occurred_at", "max")])
    return {
        user: (int(count), last)
        for user, count, last in zip(
            grouped.column("user_id").to_pylist(),
            grouped.column("user_id_count").to_pylist(),
            grouped.column("occurred_at_max").to_pylist(),
            strict=True,
        )
    }


def holds_memories(store: ProjectionStore, user_id: str) -> bool:
    """Whether the tables hold a memory of ``user_id``, hot or archived."""
    mine = filters.equals("user_id", user_id)
    return store.count(MEMORIES, mine) > 0 or store.count(ARCHIVE_INDEX, mine) > 0
