"""The access projection: how often, and when last, searches returned each memory (pure).

``fold_accesses`` turns ``MemoryAccessed`` events into the ``access`` rows they change.
A row is keyed by the user and the memory (:func:`access_id`), like ``memory_state``: an
event of one user naming another user's memory makes a row nobody reads for the owner,
so it never changes the owner's reinforcement, decay or archival. Rows remember the
log position of the last event applied to them, so a batch applied twice counts once.
Ranking reads these rows to reinforce what is used.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from memstream.events.vocabulary import MemoryAccessed
from memstream.projections.entities import guard_columns, newer_than_row
from memstream.storage.log_records import LogPosition

__all__ = ["access_id", "fold_accesses"]


def access_id(user_id: str, memory_id: str) -> str:
    """The key of an access row: the memory as used by one user."""
    return f"{user_id}|{memory_id}"


def fold_accesses(
    existing: Mapping[str, Mapping[str, Any]],
    accesses: Iterable[tuple[MemoryAccessed, LogPosition]],
) -> dict[str, dict[str, Any]]:
    """The ``access`` rows the events change, given the current rows by access id."""
    changed: dict[str, dict[str, Any]] = {}
    for event, position in accesses:
        for memory_id in dict.fromkeys(event.memory_ids):
            key = access_id(event.user_id, memory_id)
            row = changed.get(key) or existing.get(key)
            if not newer_than_row(position, row):
                continue
            previous = None if row is None else row["last_accessed"]
            changed[key] = {
                "access_id": key,
                "memory_id": memory_id,
                "user_id": event.user_id,
                "access_count": (0 if row is None else int(row["access_count"])) + 1,
                "last_accessed": event.accessed_at
                if previous is None
                else max(previous, event.accessed_at),
                **guard_columns(position),
            }
    return changed
