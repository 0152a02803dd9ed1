"""One user's events, as the event archive holds them: opened, decoded, in log order.

The worker archives every valid record it applies (sealed under its user's key), so the
archive is the user's whole applied history, across lives of the log. This reads every
file of each projected topic (the archive does not say how many partitions the topics
had, and a repartitioned topic moved users between partitions), keeps the records keyed
by the user, opens them with the data keys and decodes them (upcasting old schema
versions). A record sealed under a
destroyed key (the user was erased) opens to nothing and is left out, and so is a
plaintext record the log received before the user's erasure: what an erasure destroyed
never comes back through an export. Topics come one after the other (messages first),
as a replay reads them; within a topic, in log order.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime

import pyarrow as pa
import pyarrow.compute as pc

from memstream.events.codec import decode
from memstream.events.vocabulary import Event, UserErased
from memstream.storage.archive.event_archive import EventArchive, records_from_table
from memstream.storage.filesystems import Location
from memstream.storage.layout import DataLayout
from memstream.streams.sealing import RecordKeys
from memstream.streams.topics import PROJECTED_TOPICS

__all__ = ["ArchivedEvent", "user_events"]

_BATCH = 5_000


@dataclass(frozen=True, slots=True)
class ArchivedEvent:
    """An event of the user and when the log received it."""

    topic: str
    received_at: datetime
    event: Event


def user_events(data: Location, keys: RecordKeys | None, user_id: str) -> Iterator[ArchivedEvent]:
    """Every archived event of ``user_id`` (see the module docstring).

    Args:
        data: the data location whose event archive is read.
        keys: opens sealed records (None: the archive holds plaintext).
        user_id: whose events.
    """
    archive = EventArchive(DataLayout(data).events)
    key = user_id.encode("utf-8")
    for topic in PROJECTED_TOPICS:
        for table in archive.read_tables(topic, _BATCH):
            yield from _events_of(_keyed(table, key), keys, user_id)


def _keyed(table: pa.Table, key: bytes) -> pa.Table:
    return table.filter(pc.equal(table.column("key"), pa.scalar(key, pa.binary())))


def _events_of(table: pa.Table, keys: RecordKeys | None, user_id: str) -> Iterator[ArchivedEvent]:
    for record in records_from_table(table):
        opened = keys.open_naming_user(record.value) if keys is not None else (record.value, None)
        if opened is None:
            continue  # sealed under a destroyed key
        event = decode(opened[0])
        if isinstance(event, UserErased) or event.user_id != user_id:
            continue
        if keys is not None and keys.admit(record, user_id, opened[1]) is None:
            continue  # plaintext the log received before the user's erasure
        yield ArchivedEvent(record.topic, record.timestamp, event)
