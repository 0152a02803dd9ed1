"""One writer per partition: the worker's claim on the partitions it was assigned.

Kafka assigns each partition of the projected topics to one worker of the group (the
range assignor gives a member the same partition numbers of every topic, so a user's
messages, commands and lifecycle events land on one worker). When a worker is assigned
partitions it claims them in the store (:class:`memstream.storage.claims.PartitionClaims`), which
raises each one's ownership epoch and so fences every earlier owner. Before each write
of a batch (and of the deferred bookkeeping) the projector checks that the stored epochs
of the batch's partitions are still the ones this worker claimed; if another worker has
claimed one since, the check raises :class:`Fenced`, nothing more of the batch is
written, and the consumer lets the partition go until Kafka assigns it again.

That covers a worker that lost a rebalance and one frozen past its session timeout (a
GC pause, SIGSTOP, a stalled disk) that wakes up with a batch in hand: it finds the new
owner's epoch on its next check. A freeze inside one table write, after its check, is
caught by the store itself: checkpoints are written only by the current epoch or a
later one, folded entity and access rows only by a later log position, and the rows
folded from several topics (sessions, memory state, documents, the archive index) only
under the epoch they were last written with or a later one
(:data:`memstream.storage.lance.tables.UPDATE_GUARDS`), so a late write cannot put an older state
back (the projector checks its fence again when the store refuses one); rows inserted
by key are inserted once: each write updates its partitions' fence rows in the same
commit, so two writers of a partition conflict at commit and the second one's merge
runs again over the first one's rows (:mod:`memstream.storage.lance.fence_rows`).
"""

from __future__ import annotations

import logging
import os
import socket
from collections.abc import Iterable

from memstream.clock import Clock
from memstream.storage.claims import PartitionClaims

__all__ = ["Fence", "Fenced", "writer_name"]

log = logging.getLogger(__name__)


class Fenced(Exception):
    """Another worker owns these partitions now: this one must not write for them."""

    def __init__(self, partitions: Iterable[int]) -> None:
        self.partitions = frozenset(partitions)
        super().__init__(f"partitions {sorted(self.partitions)} are owned by another worker now")


def writer_name() -> str:
    """How a worker names itself in the ownership table: host and process."""
    return f"{socket.gethostname()}:{os.getpid()}"


class Fence:
    """The partitions this worker holds, with the epochs it claimed them under."""

    def __init__(self, claims: PartitionClaims, clock: Clock, owner: str | None = None) -> None:
        self._claims = claims
        self._clock = clock
        self.owner = owner or writer_name()
        self.held: dict[int, int] = {}
        #: batches (or bookkeeping) dropped because a partition had moved on
        self.fenced_writes = 0

    def take(self, partitions: Iterable[int]) -> None:
        """Claim ``partitions`` (assigned by Kafka): their earlier owners are fenced."""
        wanted = set(partitions)
        if wanted:
            self.held.update(self._claims.claim(wanted, self.owner, self._clock()))
            log.info(
                "writing partitions %s (epochs %s)",
                sorted(wanted),
                ", ".join(f"{p}:{self.held[p]}" for p in sorted(wanted)),
            )

    def give_up(self, partitions: Iterable[int]) -> None:
        """Stop writing ``partitions`` (revoked)."""
        for p in partitions:
            self.held.pop(p, None)

    def lost(self, partitions: Iterable[int]) -> set[int]:
        """Of ``partitions``, those this worker may not write now (never claimed, or
        claimed by another worker since); they are given up."""
        wanted = set(partitions)
        lost = wanted - set(self.held)
        lost |= self._claims.lost({p: self.held[p] for p in wanted - lost})
        if lost:
            self.give_up(lost)
            self.fenced_writes += 1
            log.warning(
                "partitions %s were claimed by another worker: nothing more is written "
                "for them here",
                sorted(lost),
            )
        return lost

    def check(self, partitions: Iterable[int]) -> None:
        """Raise :class:`Fenced` unless this worker still owns every one of ``partitions``."""
        lost = self.lost(partitions)
        if lost:
            raise Fenced(lost)
