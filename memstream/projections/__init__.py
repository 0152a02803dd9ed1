"""The folds from events to rows (pure): episodes, entities, vectors, sessions, derived
memories, memory state and links, access, what was served, documents, archive index
rows, and the digest of projected state. Time is passed in; nothing here reads or writes storage.

Its modules, named in ``__all__``, are imported by name; importing the package alone
loads none of them."""

from __future__ import annotations

__all__ = [
    "access",
    "archiving",
    "compact_vectors",
    "derived",
    "digest",
    "documents",
    "entities",
    "episodes",
    "lattice",
    "links",
    "memory_rows",
    "memory_state",
    "served",
    "sessions",
    "vectors",
]
