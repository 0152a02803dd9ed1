"""Opening the projections a data folder uses now, and digesting their state."""

from __future__ import annotations

from datetime import timedelta

from memstream.application.errors import NotFound
from memstream.projections.digest import digest_tables
from memstream.settings import Settings
from memstream.storage.filters import equals
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.lance.tables import STATE_TABLES
from memstream.storage.layout import DataLayout
from memstream.storage.schemas import NOT_STATE_COLUMNS

__all__ = ["open_store", "state_digest"]


def open_store(
    settings: Settings, read_consistency_seconds: float | None = None
) -> ProjectionStore:
    """The projections the data folder uses now.

    Raises:
        NotFound: when no worker has written projections there yet.
    """
    location = DataLayout(settings.data_location).existing_projections()
    if location is None:
        raise NotFound(f"no projections in {settings.data} yet: run `memstream up` and publish")
    interval = (
        None if read_consistency_seconds is None else timedelta(seconds=read_consistency_seconds)
    )
    return ProjectionStore.at(location, read_consistency_interval=interval)


def state_digest(store: ProjectionStore, user_id: str | None = None) -> str:
    """The digest of a store's state tables (of one user's rows, if given), ignoring log
    positions."""
    where = equals("user_id", user_id) if user_id is not None else None
    tables = {name: store.scan(name, where=where).to_pylist() for name in STATE_TABLES}
    return digest_tables(tables, ignore=NOT_STATE_COLUMNS)
