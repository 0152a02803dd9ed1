"""Who may write what now: partition ownership epochs and leases, kept in LanceDB.

Both are compare-and-set writes: a LanceDB merge whose update carries a condition on
the stored row. When two processes race, LanceDB commits one and makes the other
re-run its merge against the new row, where the condition no longer holds, so exactly
one wins and each learns which from the rows the merge changed. That holds on a local
folder and on S3 alike (S3 commits are conditional PUTs), so no lock service is needed.

- :class:`PartitionClaims`: every partition of a consumer has an ownership epoch that
  rises with each claim. A worker claims the partitions Kafka assigns it, and before it
  commits it checks that the stored epoch is still its own: a worker that was frozen
  past its session timeout (or lost a rebalance it did not hear of) finds a later epoch
  and drops its batch (:mod:`memstream.streams.delivery.fencing`).
- :class:`Lease`: work one process at a time may do (compaction, index upkeep, version
  cleanup). It is held until it expires unless renewed, so it outlives no holder's death
  by more than its time to live.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import pyarrow as pa

from memstream.storage import filters
from memstream.storage.lance.merges import keyed_merge
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.lance.tables import LEASES, PARTITION_OWNERS
from memstream.storage.schemas import LEASES_SCHEMA, PARTITION_OWNERS_SCHEMA

__all__ = ["Lease", "Owner", "PartitionClaims"]

#: Conditions of the compare-and-set merges (``target``: the stored row).
_LATER_EPOCH = "source.epoch > target.epoch"
#: How many times a claim that lost a race to another claim of the same partition
#: claims again (Kafka gave the partition to one of them: the last claim must win).
_CLAIM_ATTEMPTS = 8


@dataclass(frozen=True)
class Owner:
    """A partition's current owner: who and under which epoch."""

    epoch: int
    owner: str


def _owner_key(consumer: str, partition: int) -> str:
    return f"{consumer}|{partition}"


class PartitionClaims:
    """The ownership epochs of one consumer's partitions."""

    def __init__(self, store: ProjectionStore, consumer: str) -> None:
        self._table = store.table(PARTITION_OWNERS)
        self._store = store
        self.consumer = consumer
        #: the table version at which ``_verified`` (epoch by partition) was last read
        self._verified_at: int | None = None
        self._verified: dict[int, int] = {}

    def owners(self, partitions: Iterable[int]) -> dict[int, Owner]:
        """The stored owner of each of ``partitions`` that has one, read fresh."""
        wanted = sorted(set(partitions))
        if not wanted:
            return {}
        self._table.checkout_latest()
        keys = [_owner_key(self.consumer, p) for p in wanted]
        rows = (
            self._table.search()
            .where(filters.is_in("owner_key", keys))
            .select(["partition", "epoch", "owner"])
            .limit(len(keys))
            .to_list()
        )
        return {int(r["partition"]): Owner(int(r["epoch"]), str(r["owner"])) for r in rows}

    def claim(self, partitions: Iterable[int], owner: str, now: datetime) -> dict[int, int]:
        """Take ``partitions`` for ``owner``: each gets an epoch above every earlier one
        (which fences their previous owners). Answers the epoch per partition."""
        wanted = sorted(set(partitions))
        epochs: dict[int, int] = {}
        for _ in range(_CLAIM_ATTEMPTS):
            if not wanted:
                return epochs
            current = self.owners(wanted)
            asked = {p: (current[p].epoch if p in current else 0) + 1 for p in wanted}
            rows: list[dict[str, object]] = [
                {
                    "owner_key": _owner_key(self.consumer, p),
                    "consumer": self.consumer,
                    "partition": p,
                    "epoch": asked[p],
                    "owner": owner,
                    "claimed_at": now,
                }
                for p in wanted
            ]
            self._merge(rows)
            after = self.owners(wanted)
            for p, epoch in asked.items():
                if after.get(p) == Owner(epoch, owner):
                    epochs[p] = epoch
            wanted = [p for p in wanted if p not in epochs]
        if wanted:
            raise RuntimeError(f"could not claim partitions {wanted}: other claims keep winning")
        return epochs

    def _merge(self, rows: list[dict[str, object]]) -> None:
        data = pa.Table.from_pylist(rows, schema=PARTITION_OWNERS_SCHEMA)
        table = self._table
        self._store.retrying(
            lambda: (
                keyed_merge(table, "owner_key")
                .when_matched_update_all(where=_LATER_EPOCH)
                .when_not_matched_insert_all()
                .execute(data)
            )
        )

    def lost(self, held: dict[int, int]) -> set[int]:
        """The partitions of ``held`` (epoch by partition) whose stored epoch is not
        the one held any more: claimed by another worker since."""
        if not held:
            return set()
        self._table.checkout_latest()
        version = int(self._table.version)
        if version == self._verified_at and all(
            self._verified.get(p) == epoch for p, epoch in held.items()
        ):
            return set()  # no claim since the last look (any claim makes a version)
        stored = self.owners(held)
        lost = {p for p, epoch in held.items() if p not in stored or stored[p].epoch != epoch}
        if not lost:
            self._verified_at, self._verified = version, dict(held)
        return lost


#: The most rows of one lease read (one, but for the inserts of a new store's first moments).
_MOST_ROWS = 16


class Lease:
    """A named lease one holder at a time has, until it expires or is released.

    Time is wall-clock nanoseconds, passed in: holders on different hosts must keep
    their clocks within a small part of ``ttl`` of each other (NTP does).

    The holder is the process, so two users of one lease in a process (the upkeep
    timer, the first batch's indexing, an erasure) would both "acquire" it, and the
    first to release it would free it under the other: they :meth:`take` it and
    :meth:`give_back` it instead; :meth:`acquire` alone renews it.
    """

    def __init__(self, store: ProjectionStore, name: str, holder: str, ttl: timedelta) -> None:
        self._store = store
        self._table = store.table(LEASES)
        self.name = name
        self.holder = holder
        self.ttl_ns = int(ttl.total_seconds() * 1e9)
        #: the leases table's version when the row was last read, and the row
        self._seen: tuple[int, dict[str, Any] | None] | None = None
        #: the users of the lease in this process now (see :meth:`take`)
        self._users = 0
        self._counting = threading.Lock()

    def take(self, now_ns: int, alone: bool = True) -> bool:
        """Take the lease for one user in this process; False while another process has
        it, or (``alone``) while another user here has it. Each True is ended by one
        :meth:`give_back`; the lease is released when the last user here gives it back.

        The upkeep timer and the first batch's indexing take it ``alone`` (their
        compactions and index builds would preempt each other). An erasure shares it
        with this process's upkeep, whose table rewrites its own locks keep apart
        from the erasure's, rather than wait for an upkeep that waits for it."""
        with self._counting:
            if alone and self._users:
                return False
            if not self.acquire(now_ns):
                return False
            self._users += 1
            return True

    def give_back(self) -> None:
        """End a :meth:`take`; the last user here releases the lease."""
        with self._counting:
            self._users -= 1
            if self._users == 0:
                self.release()

    def acquire(self, now_ns: int) -> bool:
        """Take (or renew) the lease until ``now_ns + ttl``; False while another holds it.
        Nothing is written while another holder's lease runs (a write would be a new
        version of the table for nothing)."""
        row = self._row()
        if row is not None and row["holder"] != self.holder and row["expires_ns"] > now_ns:
            return False
        data = pa.Table.from_pylist(
            [{"lease": self.name, "holder": self.holder, "expires_ns": now_ns + self.ttl_ns}],
            schema=LEASES_SCHEMA,
        )
        free_or_mine = (
            f"target.expires_ns < {int(now_ns)} OR target.holder = {filters.literal(self.holder)}"
        )
        self._cas(data, free_or_mine, insert=True)
        return self.held(now_ns)

    def held(self, now_ns: int) -> bool:
        """True while this holder has the lease and it has not expired at ``now_ns``."""
        row = self._row()
        return row is not None and row["holder"] == self.holder and row["expires_ns"] > now_ns

    def held_by_another(self, now_ns: int) -> bool:
        """True while another holder has the lease (cheap when the leases table has not
        changed since the last look: one version check)."""
        self._table.checkout_latest()
        version = int(self._table.version)
        if self._seen is None or self._seen[0] != version:
            self._seen = (version, self._row())
        row = self._seen[1]
        return row is not None and row["holder"] != self.holder and row["expires_ns"] > now_ns

    def release(self) -> None:
        """Give the lease up now (if held), so another process need not wait it out."""
        data = pa.Table.from_pylist(
            [{"lease": self.name, "holder": self.holder, "expires_ns": 0}], schema=LEASES_SCHEMA
        )
        self._cas(data, f"target.holder = {filters.literal(self.holder)}", insert=False)

    def _row(self) -> dict[str, Any] | None:
        """The lease's row. Processes that open a new store together can each insert
        the lease before its key is marked as the table's primary key (the mark is what
        makes LanceDB refuse the second insert), leaving a row per holder: the row that
        runs longest (the later holder name on a tie) is the lease, so every process
        reads the same holder and at most one holds it."""
        self._table.checkout_latest()
        rows = (
            self._table.search()
            .where(filters.equals("lease", self.name))
            .select(["holder", "expires_ns"])
            .limit(_MOST_ROWS)
            .to_list()
        )
        return dict(max(rows, key=lambda r: (r["expires_ns"], r["holder"]))) if rows else None

    def _cas(self, data: pa.Table, where: str, *, insert: bool) -> None:
        table = self._table

        def merge() -> object:
            builder = keyed_merge(table, "lease").when_matched_update_all(where=where)
            if insert:
                builder = builder.when_not_matched_insert_all()
            return builder.execute(data)

        self._store.retrying(merge)
