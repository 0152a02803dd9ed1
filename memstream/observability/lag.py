"""Consumer lag, and partitions that stall (pure: positions and time are passed in).

A partition's lag is its end offset minus the next offset its consumer will apply.
An idle partition (no lag) is healthy however long it stays idle; a partition whose
next offset has not moved for ``threshold`` seconds while records wait is stalled, and
is reported once (a WARNING naming it and its lag) until it moves again.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

__all__ = ["Position", "Stall", "StallWatch", "lag_of"]

#: (consumer group, topic, partition)
Partition = tuple[str, str, int]


@dataclass(frozen=True, slots=True)
class Position:
    """Where a partition ends, and the next offset its consumer applies."""

    end: int
    next: int

    @property
    def lag(self) -> int:
        return max(0, self.end - self.next)


def lag_of(positions: Mapping[Partition, Position]) -> int:
    """The records waiting in all ``positions``."""
    return sum(p.lag for p in positions.values())


@dataclass(frozen=True, slots=True)
class Stall:
    """A partition whose consumer has not moved for ``seconds`` with ``lag`` waiting."""

    partition: Partition
    lag: int
    seconds: float

    def __str__(self) -> str:
        group, topic, number = self.partition
        return (
            f"{topic}/{number} has not moved for {self.seconds:.0f} s with {self.lag} "
            f"records waiting (consumer group {group})"
        )


@dataclass
class StallWatch:
    """Finds stalled partitions among successive observations."""

    threshold: float
    _since: dict[Partition, tuple[int, float]] = field(default_factory=dict)
    _reported: set[Partition] = field(default_factory=set)

    def observe(self, positions: Mapping[Partition, Position], now: float) -> list[Stall]:
        """The partitions newly found stalled at ``now`` (each reported once per stall)."""
        found: list[Stall] = []
        for key in list(self._since):
            if key not in positions:  # no longer held here
                del self._since[key]
                self._reported.discard(key)
        for key, position in positions.items():
            if position.lag == 0:  # caught up: nothing waits
                self._since.pop(key, None)
                self._reported.discard(key)
                continue
            seen = self._since.get(key)
            if seen is None or seen[0] != position.next:
                # the wait starts when records are first seen waiting at this offset
                self._since[key] = (position.next, now)
                self._reported.discard(key)
                continue
            waited = now - seen[1]
            if waited >= self.threshold and key not in self._reported:
                self._reported.add(key)
                found.append(Stall(key, position.lag, waited))
        return found

    @property
    def stalled(self) -> int:
        """How many partitions are stalled now."""
        return len(self._reported)
