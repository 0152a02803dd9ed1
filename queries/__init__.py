"""Read services over the projections: hybrid search, entity profiles and history, memory
statistics, access and state look-ups, and the read model that keeps recently searched
users in memory. They read LanceDB tables; they never write.

Its modules, named in ``__all__``, are imported by name; importing the package alone
loads none of them."""

from __future__ import annotations

__all__ = [
    "context",
    "explain",
    "memory_usage",
    "profiles",
    "read_model",
    "search",
    "search_documents",
    "stats",
    "term_index",
    "users",
]
