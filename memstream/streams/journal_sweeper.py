"""Keeping the intake journal short, and re-publishing what a crash left in it.

The worker sweeps the journal (:mod:`memstream.storage.journal`) at start and then every few
seconds. For each segment:

- sealed, and the stored checkpoints have applied the log past every position it names
  (in the same log epoch): every record is archived and applied, so it is removed;
- sealed for the current log but not yet applied past: left for a later sweep;
- orphaned (no writer holds it: the writer died, or the broker refused a batch), or
  sealed for a log that is gone (the embedded broker restarted): its records are
  produced again into the current log and the segment is sealed for it.

Producing a record again is harmless: events carry their idempotency key, so the
projections change only for records that never reached them. But a segment is produced
again once per sweeper: when its seal cannot be written (a full disk), the sweeper keeps
the positions it produced the segment at and tries only the seal on later sweeps, so a
disk that stays full never multiplies the log.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from pathlib import Path

from memstream.observability import metrics
from memstream.storage.journal import Journal, Positions, Seal, Segment
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.log_records import Checkpoints
from memstream.streams.publisher import Publisher

__all__ = ["JournalSweeper", "SweepReport", "applied_past"]

log = logging.getLogger(__name__)

#: (topic, partition) -> (log epoch, last applied offset), as the store keeps them.


def applied_past(seal: Seal, checkpoints: Checkpoints) -> bool:
    """True when the checkpoints cover every position of a sealed segment."""
    for at, offset in seal.positions.items():
        checkpoint = checkpoints.get(at)
        if checkpoint is None or checkpoint.log_epoch != seal.epoch or checkpoint.offset < offset:
            return False
    return True


@dataclass(frozen=True)
class SweepReport:
    removed: int = 0
    republished_segments: int = 0
    republished_records: int = 0
    waiting: int = 0


class JournalSweeper:
    """Sweeps ``journal`` for the worker on log ``epoch``.

    Args:
        journal: the intake journal.
        bootstrap: the broker to re-publish to.
        store: where the checkpoints are.
        consumer: the consumer group whose checkpoints count.
        epoch: the log epoch the worker runs on.
    """

    def __init__(
        self, journal: Journal, bootstrap: str, store: ProjectionStore, consumer: str, epoch: str
    ) -> None:
        self._journal = journal
        self._bootstrap = bootstrap
        self._store = store
        self._consumer = consumer
        self._epoch = epoch
        #: segments produced again whose seal could not be written yet, with where
        #: they went (tried again each sweep; never produced a second time)
        self._unsealed: dict[Path, Positions] = {}

    async def sweep(self) -> SweepReport:
        """One pass over the journal (see the module docstring)."""
        segments = self._journal.segments()
        metrics.JOURNAL_SEGMENTS.set(len(segments))
        if not segments:
            return SweepReport()
        checkpoints = await asyncio.to_thread(self._store.load_checkpoints, self._consumer)
        removed = waiting = 0
        stale: list[Segment] = []
        for segment in segments:
            seal = segment.sealed()
            if seal is not None and applied_past(seal, checkpoints):
                segment.remove()
                removed += 1
            elif seal is not None and seal.epoch == self._epoch:
                waiting += 1
            else:
                stale.append(segment)
        segments_done, records = await self._republish(stale) if stale else (0, 0)
        metrics.JOURNAL_SEGMENTS.set(len(segments) - removed)
        metrics.JOURNAL_REPUBLISHED.inc(records)
        if segments_done:
            log.info(
                "intake journal: %d records of %d segments published again",
                records,
                segments_done,
            )
        return SweepReport(removed, segments_done, records, waiting)

    async def _republish(self, segments: list[Segment]) -> tuple[int, int]:
        done = records_sent = 0
        fresh = [s for s in segments if not self._sealed_again(s)]
        if not fresh:
            return 0, 0
        async with Publisher(self._bootstrap) as publisher:
            for segment in fresh:
                with segment.claimed() as ours:
                    if not ours:  # its writer is still at it
                        continue
                    seal = segment.sealed()
                    if seal is not None and seal.epoch == self._epoch:
                        continue  # sealed between the listing and the claim
                    records = segment.records()
                    if not records:
                        segment.remove()
                        continue
                    positions = await publisher.republish(records)
                    done += 1
                    records_sent += len(records)
                    self._unsealed[segment.path] = positions
                    self._sealed_again(segment, first=True)
        return done, records_sent

    def _sealed_again(self, segment: Segment, first: bool = False) -> bool:
        """Whether ``segment`` was produced again by this sweeper (sealing it now if its
        seal is still unwritten); False for a segment it has not produced. Says so the
        ``first`` time a seal fails, not at every sweep."""
        positions = self._unsealed.get(segment.path)
        if positions is None:
            return False
        try:
            segment.seal(self._epoch, positions)
        except OSError as exc:
            if not first:
                return True
            log.warning(
                "intake journal: cannot seal %s yet (%s); it is not produced again",
                segment.path.name,
                exc.strerror or exc,
            )
            return True
        del self._unsealed[segment.path]
        return True
