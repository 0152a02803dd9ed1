"""The LanceDB side of storage: the tables of a projection generation, the gateway over
them, the domain queries retrieval and jobs ask, index and compaction upkeep, the
ways a keyed merge starts (scanning the keys, or through their index beside a
partition's fence row), compaction beside fenced writers, and the look for keys held
twice among new rows.

Its modules, named in ``__all__``, are imported by name; importing the package alone
loads none of them."""

from __future__ import annotations

__all__ = [
    "fence_rows",
    "fenced_compaction",
    "key_checks",
    "merges",
    "queries",
    "store",
    "tables",
    "upkeep",
]
