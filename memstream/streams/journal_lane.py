"""Appending to the intake journal from an event loop, with group commit.

A publisher's records are fsync'd to the journal (:mod:`memstream.storage.journal`) before they
are produced. Concurrent publishes (the HTTP API serves many at once) share one write
and one fsync: whoever arrives while a write is under way waits for the next one, which
takes everything queued by then. The fsync runs on a worker thread, so the loop keeps
serving.
"""

from __future__ import annotations

import asyncio
import errno
from collections.abc import Sequence

from memstream.storage.journal import Appended, Journal, JournalRecord, JournalWriter, Positions
from memstream.streams.errors import DiskFull, PublishError

__all__ = ["JournalLane"]


class JournalLane:
    """The async front of a :class:`~memstream.storage.journal.JournalWriter`.

    Args:
        journal: the journal folder (the worker has written the log's epoch there).
    """

    def __init__(self, journal: Journal) -> None:
        self._journal = journal
        self._writer: JournalWriter = journal.writer()
        self._queue: list[tuple[Sequence[JournalRecord], asyncio.Future[Appended]]] = []
        self._flusher: asyncio.Task[None] | None = None

    @property
    def folder(self) -> str:
        return str(self._journal.folder)

    async def append(self, records: Sequence[JournalRecord]) -> Appended:
        """Return once ``records`` are on disk (fsync'd).

        Raises:
            DiskFull: the journal's disk is full.
            PublishError: the journal could not be written for another reason.
        """
        future: asyncio.Future[Appended] = asyncio.get_running_loop().create_future()
        self._queue.append((records, future))
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.create_task(self._flush())
        return await future

    def acknowledge(self, appended: Appended, positions: Positions | None) -> None:
        """The batch reached the log at ``positions`` (None: it did not)."""
        self._writer.acknowledge(appended, positions)

    def close(self) -> None:
        self._writer.close()

    async def _flush(self) -> None:
        while self._queue:
            waiting, self._queue = self._queue, []
            try:
                appended = await asyncio.to_thread(
                    self._writer.append, [records for records, _ in waiting], self._epoch
                )
            except OSError as exc:
                kind = DiskFull if exc.errno in (errno.ENOSPC, errno.EDQUOT) else PublishError
                error = kind(
                    f"cannot write the intake journal in {self.folder}: {exc.strerror or exc}"
                )
                for _, future in waiting:
                    if not future.done():
                        future.set_exception(error)
                continue
            for _, future in waiting:
                if not future.done():
                    future.set_result(appended)

    def _epoch(self) -> str:
        return self._journal.log_epoch() or "unknown"
