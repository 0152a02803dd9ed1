"""Bookkeeping of exactly-once delivery: the checkpoints (offsets kept with the rows they
produced, per log epoch), where a partition resumes, event-time watermarks, waiting out
the compaction window, and forgetting the partitions this worker lost."""

from __future__ import annotations

import logging
from datetime import datetime

from memstream.storage.lance.tables import (
    WATERMARKS,
)
from memstream.streams.projector.core import (
    ProjectorCore,
)

log = logging.getLogger(__name__)

__all__ = ["Bookkeeping"]


class Bookkeeping(ProjectorCore):
    """The projector's checkpoints and watermarks (see the module docstring)."""

    def reload_checkpoints(self) -> None:
        """Read the checkpoints again (another worker may have advanced them, and its
        partitions' watermarks), after writing what is still unwritten."""
        self.flush()
        self.store.refresh()  # the rows another worker wrote for them, too
        self._checkpoints = self.store.load_checkpoints(self.consumer)
        self._watermarks = None

    def forget(self, partitions: frozenset[int] | set[int]) -> None:
        """Drop what is held in memory for ``partitions`` (another worker owns them now):
        deferred bookkeeping, checkpoints and watermarks; the owner has its own."""
        with self._writing:
            self._forget(partitions)

    def resume_offset(self, topic: str, partition: int, log_epoch: str) -> int | None:
        """The offset to read next, or None when nothing of this log epoch is applied."""
        stored = self._checkpoints.get((topic, partition))
        if stored is None or stored.log_epoch != log_epoch:
            return None
        return stored.offset + 1

    def _advance_watermarks(self, newest: dict[tuple[str, int], datetime]) -> None:
        """Note the partitions whose event time moved forward (written at the next
        flush). The stored watermarks are read once: a partition is written by the
        worker holding it, and a rebalance reloads them (``reload_checkpoints``)."""
        if self._watermarks is None:
            self._watermarks = {
                (r["topic"], r["partition"]): r["event_time"]
                for r in self.store.scan(WATERMARKS).to_pylist()
            }
        for key, at in newest.items():
            before = self._watermarks.get(key)
            if before is None or at > before:
                self._watermarks[key] = at
                self._unsaved_watermarks[key] = at
