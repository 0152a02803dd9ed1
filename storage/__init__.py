"""Where memstream keeps data, knowing nothing of events: LanceDB tables, the Parquet
event archive and cold store, the intake journal, filesystems (local or S3).

Its modules, named in ``__all__``, are imported by name; importing the package alone
loads none of them."""

from __future__ import annotations

__all__ = [
    "canonical",
    "claims",
    "cold_refs",
    "cold_store",
    "data_keys",
    "durable",
    "errors",
    "event_archive",
    "filesystems",
    "filters",
    "headroom",
    "journal",
    "lance_queries",
    "lance_store",
    "lance_tables",
    "lance_upkeep",
    "layout",
    "log_records",
    "merges",
    "path_names",
    "schemas",
    "shared_folder",
    "state_folder",
    "user_rows",
]
