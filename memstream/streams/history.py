"""How much of the history a source or a store holds, and what would be lost without it.

Two refusals rest on these pure functions over log positions:

- a replay from Kafka refuses when the log no longer reaches back to the start of the
  history (:func:`log_shortfall`): after a restart of the embedded broker, which keeps
  its log in memory, the log holds only what came since, while the event archive and
  the live projections know of earlier lives of the log;
- a switch refuses projections that hold less history than the live ones
  (:func:`store_shortfalls`): a partition of the topics that carry memories (messages,
  commands, lifecycle decisions) the rebuilt store applied less of than the live one.
  Vectors (recomputed by ``reembed``) and access reports (usage, not memories) are not
  counted: a re-embedding publishes vectors the live worker applies too.

A log's lives (epochs) are named so that their names sort by when they began.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass

from memstream.storage.archive.event_archive import ArchiveFile
from memstream.storage.log_records import Checkpoints, LogPosition

__all__ = ["Shortfall", "describe_shortfalls", "log_shortfall", "store_shortfalls"]


def log_shortfall(
    log_epoch: str,
    log_starts: Mapping[tuple[str, int], int],
    archived: Iterable[ArchiveFile],
    applied: Checkpoints,
) -> str | None:
    """What of the history the log at hand no longer holds, in words, or None when it
    holds all of it.

    Args:
        log_epoch: the log's life now.
        log_starts: its earliest offset per (topic, partition).
        archived: the event archive's files.
        applied: the live projections' positions per (topic, partition).
    """
    earlier: dict[str, int] = defaultdict(int)
    for archive_file in archived:
        if archive_file.log_epoch < log_epoch:
            earlier[archive_file.log_epoch] += (
                archive_file.last_offset - archive_file.first_offset + 1
            )
    for position in applied.values():
        if position.log_epoch < log_epoch:
            earlier.setdefault(position.log_epoch, 0)
    if earlier:
        records = sum(earlier.values())
        lives = "an earlier life" if len(earlier) == 1 else f"{len(earlier)} earlier lives"
        counted = f"{records:,} archived records of " if records else ""
        return (
            f"the log holds only its life since {_when(log_epoch)}; {counted}{lives} of the "
            f"log (before a restart of the broker) are not in it"
        )
    trimmed = sorted((tp, start) for tp, start in log_starts.items() if start > 0)
    if trimmed:
        (topic, partition), start = trimmed[0]
        more = f" (and {len(trimmed) - 1} more partitions)" if len(trimmed) > 1 else ""
        return (
            f"the log no longer holds the start of {topic}/{partition}: it begins at offset "
            f"{start:,}{more}"
        )
    return None


@dataclass(frozen=True)
class Shortfall:
    """A partition that rebuilt projections applied less of than the live ones."""

    topic: str
    partition: int
    live: LogPosition
    rebuilt: LogPosition | None

    def describe(self) -> str:
        applied = (
            "none of it applied"
            if self.rebuilt is None
            else f"applied through offset {self.rebuilt.offset:,}"
            + _of_life(self.rebuilt, self.live)
        )
        return (
            f"{self.topic}/{self.partition} {applied}, the live ones through offset "
            f"{self.live.offset:,}"
        )


def store_shortfalls(
    live: Checkpoints, rebuilt: Checkpoints, topics: Collection[str]
) -> list[Shortfall]:
    """Each (topic, partition) of ``topics`` the ``rebuilt`` store applied less of than
    the ``live`` one, in topic and partition order."""
    behind = []
    for tp in sorted(tp for tp in live if tp[0] in topics):
        here, there = live[tp], rebuilt.get(tp)
        if there is None or (there.log_epoch, there.offset) < (here.log_epoch, here.offset):
            behind.append(Shortfall(tp[0], tp[1], here, there))
    return behind


def describe_shortfalls(shortfalls: list[Shortfall]) -> str:
    """The first shortfall in words, and how many more partitions fall short."""
    first = shortfalls[0].describe()
    rest = len(shortfalls) - 1
    return first if not rest else f"{first} (and {rest} more partitions)"


def _of_life(position: LogPosition, live: LogPosition) -> str:
    if position.log_epoch == live.log_epoch:
        return ""
    return f" of the log's life since {_when(position.log_epoch)}"


def _when(log_epoch: str) -> str:
    """``20261126T025652Z-0c735e2c`` as ``2026-11-26 02:56:52 UTC``."""
    stamp = log_epoch.split("-", 1)[0]
    if len(stamp) != 16 or stamp[8] != "T":
        return log_epoch
    return f"{stamp[0:4]}-{stamp[4:6]}-{stamp[6:8]} {stamp[9:11]}:{stamp[11:13]}:{stamp[13:15]} UTC"
