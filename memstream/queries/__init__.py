"""Read services over the projections: hybrid search, context blocks, entity profiles and
history, memory lists, served answers rendered again, statistics, access and state
look-ups. They read LanceDB tables; they never write.

Its modules, named in ``__all__``, are imported by name; importing the package alone
loads none of them."""

from __future__ import annotations

__all__ = [
    "as_of",
    "context",
    "document_parts",
    "entity_graph",
    "explain",
    "freshness",
    "hidden",
    "memory_list",
    "memory_usage",
    "profiles",
    "search",
    "served",
    "stats",
    "user_state",
    "users",
]
