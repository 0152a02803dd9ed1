"""Catching up from the event archive when the log the worker last read is gone.

The embedded broker keeps its log in memory: when the worker dies with it, the next
start reads a new log epoch, and records of the previous one that were archived (the
projector archives a batch before it writes anything else) but not fully applied are
no longer in any log. Session rows, watermarks and checkpoints are written once a
second, and a crash may cut a batch short, so there can be such records. At start,
before consuming, the records of the previous epoch beyond its stored checkpoints are
applied again from the archive; applying is idempotent, so applying a few twice
changes nothing.
"""

from __future__ import annotations

import logging

from memstream.clock import Clock
from memstream.storage.archive.cold_store import ColdStore
from memstream.storage.archive.event_archive import EventArchive, records_from_table
from memstream.storage.lance.store import ProjectionStore
from memstream.streams.projector import Projector
from memstream.streams.sealing import RecordKeys

__all__ = ["catch_up_from_archive"]

log = logging.getLogger(__name__)


def catch_up_from_archive(
    store: ProjectionStore,
    archive: EventArchive,
    epoch: str,
    consumer: str,
    clock: Clock,
    cold_store: ColdStore | None = None,
    keys: RecordKeys | None = None,
    vector_model: str | None = None,
) -> int:
    """Apply the archived records of the newest earlier log epoch that lie beyond the
    stored checkpoints; return how many records were read. Nothing is listed when the
    current epoch already has checkpoints (a restart on a log that survived)."""
    checkpoints = store.load_checkpoints(consumer)
    if any(at.log_epoch == epoch for at in checkpoints.values()):
        return 0
    earlier = {f.log_epoch for f in archive.files() if f.log_epoch < epoch}
    if not earlier:
        return 0
    previous = max(earlier)
    after = {
        (previous, at.topic, at.partition): at.offset
        for at in checkpoints.values()
        if at.log_epoch == previous
    }
    # The records are archived already: this projector does not archive them again.
    projector = Projector(
        store, consumer, clock, cold_store=cold_store, keys=keys, vector_model=vector_model
    )
    read = 0
    for table in archive.read_tables(epoch=previous, after=after):
        records = records_from_table(table)
        read += len(records)
        projector.apply(records)
    projector.flush()
    if read:
        log.info("caught up %d archived records of log epoch %s", read, previous)
    return read
