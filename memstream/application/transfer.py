"""Export and import of one user: the reading and writing around
:mod:`memstream.portability`.

An export reads what the worker has applied: the ``events`` format the event archive
(opened with the data keys: a decrypted copy for the owner, and nothing of an erased
user), the others the projections. It is a stream of bytes, produced as it is read, so a
large user never sits in memory. An import stores the document originals a file
carries, then publishes its events a batch at a time, durably, as any publish is.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime

from memstream.events.vocabulary import Event
from memstream.portability.exports import (
    ExportFormat,
    dossier,
    event_lines,
    export_header,
    json_document,
)
from memstream.portability.import_plan import Skipped
from memstream.queries.memory_list import every_memory
from memstream.queries.user_state import user_tables
from memstream.settings import Settings
from memstream.storage import filters
from memstream.storage.document_originals import DocumentOriginals, OriginalMissing
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.lance.tables import DOCUMENTS, ENTITIES, EXPORTED_TABLES
from memstream.storage.layout import DataLayout
from memstream.streams.sealing import record_keys_of
from memstream.streams.user_history import user_events

__all__ = ["IMPORT_BATCH", "ImportReport", "export_stream", "store_originals"]

#: Events an import publishes at a time.
IMPORT_BATCH = 500


@dataclass(frozen=True)
class ImportReport:
    """What an import did: the file's shape, the events published (a second import of
    the same file publishes them again, and changes nothing), the originals stored and
    the entries skipped."""

    shape: str
    published: int
    originals: int
    skipped: list[Skipped]
    #: entries skipped past those named in ``skipped``
    more_skipped: int = 0
    #: where the import's events were put in the log (None: none were published)
    token: str | None = None


def export_stream(
    settings: Settings,
    store: ProjectionStore | None,
    user_id: str,
    export_format: ExportFormat,
    now: datetime,
    counted: Callable[[int], None] | None = None,
) -> Iterator[bytes]:
    """The user's export in ``export_format``, a piece at a time (``store``: the
    projections, which the ``json`` and ``markdown`` formats read). ``counted`` is told
    of each event (``events``) or memory (the others) written."""
    header = export_header(user_id, export_format, now)
    if export_format == "events":
        yield from _events(settings, user_id, header, counted)
        return
    if store is None:
        raise ValueError(f"the {export_format} export reads the projections: give the store")
    if export_format == "json":
        tables = [(n, _rows(store, n, user_id, counted)) for n in EXPORTED_TABLES]
        yield from json_document(header, tables)
    else:
        yield from _dossier(store, user_id, now, counted)


def _events(
    settings: Settings,
    user_id: str,
    header: dict[str, object],
    counted: Callable[[int], None] | None,
) -> Iterator[bytes]:
    originals = DocumentOriginals(DataLayout(settings.data_location).documents)

    def original_of(checksum: str) -> bytes | None:
        try:
            return originals.get(user_id, checksum)
        except OriginalMissing:
            return None

    keys = record_keys_of(settings)
    archived = user_events(settings.data_location, keys, user_id)

    def events() -> Iterator[Event]:
        for number, found in enumerate(archived, start=1):
            if counted is not None:
                counted(number)
            yield found.event

    yield from event_lines(header, events(), original_of)


def _rows(
    store: ProjectionStore, name: str, user_id: str, counted: Callable[[int], None] | None
) -> Iterator[dict[str, object]]:
    rows = store.scan(name, where=filters.equals("user_id", user_id)).to_pylist()
    for number, row in enumerate(rows, start=1):
        if counted is not None and name == "memories":
            counted(number)
        yield row


def _dossier(
    store: ProjectionStore, user_id: str, now: datetime, counted: Callable[[int], None] | None
) -> Iterator[bytes]:
    memories = every_memory(store, user_id)
    if counted is not None:
        counted(len(memories))
    tables = user_tables(store, user_id, (ENTITIES, DOCUMENTS))
    for part in dossier(user_id, now, memories, tables[ENTITIES], tables[DOCUMENTS]):
        yield part.encode("utf-8")


def store_originals(settings: Settings, user_id: str, found: list[bytes]) -> int:
    """Store the document originals an import ``found``; how many."""
    if not found:
        return 0
    originals = DocumentOriginals(DataLayout(settings.data_location).documents)
    for data in found:
        originals.put(user_id, data)
    return len(found)
