"""What memstream holds of one user: their rows of every state table, and a digest of them.

The digest is what an export and import round trip is checked by: two stores hold the
same memory of a user when the user's rows agree on every column but where and when
a log carried the events (log positions, and ``ingested_at``, the time the log at hand
received an event, which a store that imports the events receives anew).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from memstream.projections.digest import digest_tables
from memstream.storage import filters
from memstream.storage.lance.tables import STATE_TABLES
from memstream.storage.schemas import NOT_STATE_COLUMNS

if TYPE_CHECKING:
    from memstream.storage.lance.store import ProjectionStore

__all__ = ["USER_DIGEST_IGNORES", "user_digest", "user_tables"]

#: Columns a user's digest leaves out: where and when a log carried the events.
USER_DIGEST_IGNORES = (*NOT_STATE_COLUMNS, "ingested_at")


def user_tables(
    store: ProjectionStore, user_id: str, tables: Sequence[str] = STATE_TABLES
) -> dict[str, list[dict[str, Any]]]:
    """The user's rows of each of ``tables``, in no particular order."""
    where = filters.equals("user_id", user_id)
    return {name: store.scan(name, where=where).to_pylist() for name in tables}


def user_digest(store: ProjectionStore, user_id: str) -> tuple[str, dict[str, tuple[int, str]]]:
    """The digest of the user's state, and per state table the user's row count and
    digest."""
    tables = user_tables(store, user_id)
    per_table = {
        name: (len(rows), digest_tables({name: rows}, ignore=USER_DIGEST_IGNORES))
        for name, rows in tables.items()
    }
    return digest_tables(tables, ignore=USER_DIGEST_IGNORES), per_table
