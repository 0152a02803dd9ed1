"""The access projection: how often, and when last, searches returned each memory (pure).

``fold_accesses`` turns ``MemoryAccessed`` events into the ``access`` rows they change.
Rows remember the log position of the last event applied to them, so a batch applied
twice counts once. Ranking reads these rows to reinforce what is used.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from projections.entities import newer_than_row
from projections.events import MemoryAccessed

__all__ = ["fold_accesses"]


def fold_accesses(
    existing: Mapping[str, Mapping[str, Any]],
    accesses: Iterable[tuple[MemoryAccessed, tuple[str, int, int]]],
) -> dict[str, dict[str, Any]]:
    """The ``access`` rows the events change, given the current rows by memory id."""
    changed: dict[str, dict[str, Any]] = {}
    for event, position in accesses:
        for memory_id in dict.fromkeys(event.memory_ids):
            row = changed.get(memory_id) or existing.get(memory_id)
            if not newer_than_row(position, row):
                continue
            previous = None if row is None else row["last_accessed"]
            changed[memory_id] = {
                "memory_id": memory_id,
                "user_id": event.user_id,
                "access_count": (0 if row is None else int(row["access_count"])) + 1,
                "last_accessed": event.accessed_at
                if previous is None
                else max(previous, event.accessed_at),
                "applied_epoch": position[0],
                "applied_partition": position[1],
                "applied_offset": position[2],
            }
    return changed
