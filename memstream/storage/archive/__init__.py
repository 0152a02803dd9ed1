"""Parquet archives: the event archive (every valid input event, as the log carried it),
the cold store of archived memories' originals, and the references between them.

Its modules, named in ``__all__``, are imported by name; importing the package alone
loads none of them."""

from __future__ import annotations

__all__ = [
    "cold_refs",
    "cold_store",
    "event_archive",
]
