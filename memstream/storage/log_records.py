"""Positions in the log and the records found at them: the worker's transport types.

A :class:`LogPosition` says where a record sits in one life (epoch) of the log; records,
checkpoints and the row guards of folded tables all speak of positions with it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime

__all__ = ["Checkpoints", "LogPosition", "LogRecord", "log_record"]


@dataclass(frozen=True, slots=True)
class LogPosition:
    """Where a record sits in one life (epoch) of the log, and (when known) when the log
    received it; the time takes no part in comparisons."""

    log_epoch: str
    topic: str
    partition: int
    offset: int
    timestamp: datetime | None = field(default=None, compare=False)

    @property
    def topic_partition(self) -> tuple[str, int]:
        return self.topic, self.partition

    def covers(self, other: LogPosition) -> bool:
        """Whether ``other`` (same topic and partition) is at or before this position in
        the same life of the log."""
        return self.log_epoch == other.log_epoch and other.offset <= self.offset


#: The last applied position per (topic, partition).
Checkpoints = Mapping[tuple[str, int], LogPosition]


@dataclass(frozen=True, slots=True)
class LogRecord:
    """One log record: where it was and the bytes it carried."""

    log_epoch: str
    topic: str
    partition: int
    offset: int
    timestamp: datetime
    key: bytes | None
    value: bytes

    @property
    def position(self) -> LogPosition:
        return LogPosition(self.log_epoch, self.topic, self.partition, self.offset, self.timestamp)


def log_record(
    log_epoch: str,
    topic: str,
    partition: int,
    offset: int,
    timestamp_ms: int,
    key: bytes | None,
    value: bytes | None,
) -> LogRecord:
    """A LogRecord from a Kafka record's fields (timestamp in milliseconds)."""
    stamp = datetime.fromtimestamp(timestamp_ms / 1000.0, UTC)
    return LogRecord(log_epoch, topic, partition, offset, stamp, key, value or b"")
