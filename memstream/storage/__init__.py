"""Where memstream keeps data, knowing nothing of events: LanceDB tables
(:mod:`.lance`), the Parquet event archive and cold store (:mod:`.archive`), the
intake journal, data keys, claims, filesystems (local or S3).

Its modules, named in ``__all__``, are imported by name; importing the package alone
loads none of them."""

from __future__ import annotations

__all__ = [
    "archive",
    "canonical",
    "claims",
    "data_keys",
    "document_originals",
    "durable",
    "errors",
    "filesystems",
    "filters",
    "headroom",
    "journal",
    "lance",
    "layout",
    "log_records",
    "moments",
    "path_names",
    "schemas",
    "shared_folder",
    "signing_key",
    "state_folder",
    "user_rows",
    "write_tokens",
]
