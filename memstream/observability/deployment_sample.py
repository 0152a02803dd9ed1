"""One look at the deployment: each partition's end offset and the next offset its
projection applies, and this server's searches since the look before (what the console
samples every ``console_sample_seconds`` and its health page reads, pure)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from memstream.storage.log_records import LogPosition

__all__ = ["Offsets", "Sample", "applied_next"]

#: (topic, partition) -> an offset
Offsets = dict[tuple[str, int], int]


@dataclass(frozen=True)
class Sample:
    """One look at the deployment: when, each partition's end offset and the next
    offset its projection applies (per topic), and this server's searches since the
    sample before (per second, p50 and p99 in ms; None without searches)."""

    at: datetime
    ends: Offsets
    applied: Offsets
    searches_per_second: float | None = None
    search_p50_ms: float | None = None
    search_p99_ms: float | None = None
    broker_answered: bool = True
    #: the log's epoch the offsets are of (None: not known)
    log_epoch: str | None = None

    def lag(self, topic: str | None = None) -> int:
        """Records not yet applied (of ``topic``, or of every topic sampled)."""
        return sum(
            max(0, end - self.applied.get(key, 0))
            for key, end in self.ends.items()
            if topic is None or key[0] == topic
        )


def applied_next(checkpoints: dict[tuple[str, int], LogPosition], log_epoch: str | None) -> Offsets:
    """The next offset to apply per (topic, partition): a checkpoint of another life of
    the log counts as nothing applied."""
    return {
        key: at.offset + 1
        for key, at in checkpoints.items()
        if log_epoch is None or at.log_epoch == log_epoch
    }
