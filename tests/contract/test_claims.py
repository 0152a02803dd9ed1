"""Partition ownership epochs, leases and key uniqueness under concurrent processes,
on real LanceDB tables (a local folder; the scale-out test covers S3)."""

from __future__ import annotations

import multiprocessing
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from memstream.storage.claims import Lease, PartitionClaims
from memstream.storage.lance.fence_rows import fence_key
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.lance.tables import (
    ENTITIES,
    FIXED_SCHEMAS,
    KEYS,
    LEASES,
    MEMORIES,
    OWNER_GUARDED,
    SESSIONS,
)
from memstream.storage.log_records import LogPosition, LogRecord
from memstream.storage.schemas import ENTITIES_SCHEMA, LEASES_SCHEMA
from memstream.streams.projector import Projector
from memstream.testing import FakeClock
from tests.support.rows import entity_row, memory_row

WRITERS = 4
NOW = datetime(2026, 5, 1, tzinfo=UTC)


def _insert_same_keys(folder: str, rounds: int, barrier: Any, fences: frozenset[str]) -> None:
    store = ProjectionStore(folder)
    for r in range(rounds):
        barrier.wait()
        store.insert_absent(MEMORIES, [memory_row(f"r{r}-{i}") for i in range(20)], fences=fences)
        store.upsert(ENTITIES, [entity_row(f"r{r}-{i}", r) for i in range(20)], fences=fences)


def _claim_race(folder: str, me: str, rounds: int, barrier: Any, results: Any) -> None:
    claims = PartitionClaims(ProjectionStore(folder), "memstream")
    for _ in range(rounds):
        barrier.wait()
        results.put((me, claims.claim([0, 1], me, NOW)))
        barrier.wait()


def _lease_race(folder: str, me: str, rounds: int, barrier: Any, results: Any) -> None:
    lease = Lease(ProjectionStore(folder), "upkeep", me, timedelta(seconds=30))
    for r in range(rounds):
        barrier.wait()
        results.put((r, me, lease.acquire(time.time_ns())))
        barrier.wait()
        if r % 2 == 1:
            lease.release()  # every other round the holder lets go


def _run(target: Any, args_of: Any) -> None:
    context = multiprocessing.get_context("spawn")
    processes = [context.Process(target=target, args=args_of(i)) for i in range(WRITERS)]
    for p in processes:
        p.start()
    for p in processes:
        p.join(120)
        assert p.exitcode == 0


@pytest.mark.parametrize(
    ("indexed", "fences"),
    [(False, frozenset()), (True, frozenset()), (True, frozenset({"0"}))],
    ids=["new-tables", "indexed-keys", "indexed-keys-fenced"],
)
def test_concurrent_inserts_of_the_same_new_keys_keep_one_row_each(
    tmp_path: Path, indexed: bool, fences: frozenset[str]
) -> None:
    """Processes inserting the same new keys at once (a frozen worker waking beside its
    successor) leave one row of each, also once upkeep has indexed the key column: a
    merge without a fence row scans the keys (LanceDB's merge through a key's index lets
    both inserts commit), one of a partition's writer goes through the index and updates
    the partition's fence row, on which the two commits conflict."""
    folder = str(tmp_path / "db")
    store = ProjectionStore(folder)
    if indexed:
        store.insert_absent(MEMORIES, [memory_row("seed")])
        store.upsert(ENTITIES, [entity_row("seed", 0)])
        store.upkeep.ensure_indexes([MEMORIES, ENTITIES])
        for name in (MEMORIES, ENTITIES):
            assert (KEYS[name],) in {tuple(i.columns) for i in store.table(name).list_indices()}
    barrier = multiprocessing.get_context("spawn").Barrier(WRITERS)
    _run(_insert_same_keys, lambda i: (folder, 8, barrier, fences))
    seeded = 1 if indexed else 0
    for name in (MEMORIES, ENTITIES):
        ids = ProjectionStore(folder).scan(name, [KEYS[name]]).column(0).to_pylist()
        assert len(ids) == 8 * 20 + seeded, name
        assert len(set(ids)) == len(ids), name
        held = ProjectionStore(folder).table(name).to_arrow().column(KEYS[name]).to_pylist()
        assert sorted(k for k in held if k.startswith("|fence|")) == sorted(
            fence_key(p) for p in fences
        ), name


def test_racing_claims_give_each_epoch_to_exactly_one_worker(tmp_path: Path) -> None:
    folder = str(tmp_path / "db")
    ProjectionStore(folder)
    context = multiprocessing.get_context("spawn")
    barrier, results = context.Barrier(WRITERS), context.Queue()
    rounds = 5
    _run(_claim_race, lambda i: (folder, f"w{i}", rounds, barrier, results))
    claimed = [results.get() for _ in range(WRITERS * rounds)]
    for partition in (0, 1):
        epochs = [epochs[partition] for _, epochs in claimed]
        assert len(epochs) == len(set(epochs))  # no epoch was given twice
    owners = PartitionClaims(ProjectionStore(folder), "memstream").owners([0, 1])
    newest = {p: max(e[p] for _, e in claimed) for p in (0, 1)}
    assert {p: o.epoch for p, o in owners.items()} == newest
    for p, owner in owners.items():
        assert (owner.owner, newest[p]) in {(me, e[p]) for me, e in claimed}


def test_a_lease_has_one_holder_at_a_time_and_expires(tmp_path: Path) -> None:
    folder = str(tmp_path / "db")
    ProjectionStore(folder)
    context = multiprocessing.get_context("spawn")
    barrier, results = context.Barrier(WRITERS), context.Queue()
    rounds = 6
    _run(_lease_race, lambda i: (folder, f"w{i}", rounds, barrier, results))
    outcome = [results.get() for _ in range(WRITERS * rounds)]
    holders = Counter(r for r, _, won in outcome if won)
    assert holders == Counter({r: 1 for r in range(rounds)})
    # a round after a release goes to whoever wins; a kept lease stays with its holder
    by_round = {r: me for r, me, won in outcome if won}
    for r in range(0, rounds, 2):
        assert by_round[r + 1] == by_round[r]

    store = ProjectionStore(folder)
    dead = Lease(store, "upkeep", "dead", timedelta(seconds=0.5))
    other = Lease(store, "upkeep", "other", timedelta(seconds=30))
    for r in range(rounds):
        Lease(store, "upkeep", f"w{r % WRITERS}", timedelta(0)).release()
    now = time.time_ns()
    assert dead.acquire(now)
    assert not other.acquire(now)
    later = now + 600_000_000  # the holder died: 0.6 s on, its lease has run out
    assert other.acquire(later)
    assert not dead.held(later)


def test_a_lease_stays_held_until_the_last_user_in_its_process_gives_it_back(
    tmp_path: Path,
) -> None:
    """The upkeep timer, the first batch's indexing and an erasure of one worker share
    its lease: the first to finish must not free it under the others, or another
    worker compacts beside them (a compaction preempted, its files left behind)."""
    store = ProjectionStore(str(tmp_path / "db"))
    here = Lease(store, "upkeep", "w0", timedelta(seconds=30))
    elsewhere = Lease(store, "upkeep", "w1", timedelta(seconds=30))
    assert here.take(time.time_ns())  # the upkeep timer
    assert not here.take(time.time_ns())  # the indexing waits for the next upkeep
    assert here.take(time.time_ns(), alone=False)  # an erasure shares it
    here.give_back()  # the upkeep is done; the erasure is not
    assert here.held(time.time_ns())
    assert not elsewhere.take(time.time_ns())
    here.give_back()
    assert not here.held(time.time_ns())
    assert elsewhere.take(time.time_ns())
    assert not here.take(time.time_ns(), alone=False)  # another process has it


def test_a_lease_inserted_twice_before_its_key_was_marked_has_one_holder(
    tmp_path: Path,
) -> None:
    """Workers opening a new store together can each insert the lease row before the
    primary key is marked: every process then reads the same row, so one holds it."""
    store = ProjectionStore(str(tmp_path / "db"))
    now = time.time_ns()
    rows = [
        {"lease": "upkeep", "holder": "w0", "expires_ns": now + 30 * 10**9},
        {"lease": "upkeep", "holder": "w1", "expires_ns": now + 31 * 10**9},
    ]
    store.table(LEASES).add(pa.Table.from_pylist(rows, schema=LEASES_SCHEMA))
    first, second = (Lease(store, "upkeep", w, timedelta(seconds=30)) for w in ("w0", "w1"))
    assert [first.held(now), second.held(now)] == [False, True]
    assert not first.acquire(now) and second.acquire(now)
    second.release()
    assert first.acquire(time.time_ns()) and not second.held(time.time_ns())
    assert not second.acquire(time.time_ns())


def test_a_guarded_write_never_puts_back_an_older_state(tmp_path: Path) -> None:
    store = ProjectionStore(str(tmp_path / "db"))

    def entity(count: int, offset: int) -> dict[str, Any]:
        row = {name: None for name in ENTITIES_SCHEMA.names}
        row.update(
            entity_id="u|person|ana",
            user_id="u",
            type="person",
            canonical_name="Ana",
            key="ana",
            mention_count=count,
            applied_epoch="E",
            applied_partition=3,
            applied_offset=offset,
        )
        return row

    assert store.upsert(ENTITIES, [entity(5, 50)], guarded=True) == 1
    assert store.upsert(ENTITIES, [entity(2, 20)], guarded=True) == 0  # a zombie's fold
    assert store.upsert(ENTITIES, [entity(7, 70)], guarded=True) == 1
    assert store.scan(ENTITIES).to_pylist()[0]["mention_count"] == 7

    position = {("memory.messages", 3): LogPosition("E", "memory.messages", 3, 90)}
    store.save_checkpoints("g", position, NOW, owner_epochs={3: 2})
    stale = {("memory.messages", 3): LogPosition("E", "memory.messages", 3, 40)}
    store.save_checkpoints("g", stale, NOW, owner_epochs={3: 1})  # an older owner
    assert store.load_checkpoints("g")[("memory.messages", 3)].offset == 90
    later = {("memory.messages", 3): LogPosition("E", "memory.messages", 3, 95)}
    store.save_checkpoints("g", later, NOW, owner_epochs={3: 2})
    assert store.load_checkpoints("g")[("memory.messages", 3)].offset == 95
    assert pa.types.is_int64(store.table("checkpoints").schema.field("owner_epoch").type)


def test_an_erasures_overwrite_puts_back_what_another_writer_committed_meanwhile(
    tmp_path: Path,
) -> None:
    """The erasure rewrites a table by overwriting it with the rows it read; a row
    another worker committed between that read and the overwrite is put back."""
    folder = str(tmp_path / "db")
    eraser, other = ProjectionStore(folder), ProjectionStore(folder)
    eraser.insert_absent(MEMORIES, [memory_row("a"), memory_row("b")])
    table = eraser.table(MEMORIES)
    read_at, rows = int(table.version), table.to_arrow()
    other.insert_absent(MEMORIES, [memory_row("c")])  # committed during the rewrite
    written = table.add(rows, mode="overwrite")
    assert sorted(eraser.scan(MEMORIES, ["memory_id"]).column(0).to_pylist()) == ["a", "b"]
    assert eraser.upkeep.put_back_rows_written_meanwhile(MEMORIES, read_at, written.version) == 1
    ids = sorted(eraser.scan(MEMORIES, ["memory_id"]).column(0).to_pylist())
    assert ids == ["a", "b", "c"]
    # with nothing committed in between, nothing is put back
    read_at, rows = int(table.version), table.to_arrow()
    written = table.add(rows, mode="overwrite")
    assert eraser.upkeep.put_back_rows_written_meanwhile(MEMORIES, read_at, written.version) == 0


def test_upkeep_makes_a_key_held_twice_single_again(tmp_path: Path) -> None:
    """What a frozen worker's insert across a compaction has been seen to leave: two rows
    of one key. Upkeep, under the compaction window, keeps one and leaves the rest."""
    store = ProjectionStore(str(tmp_path / "projections"))
    rows = [
        {"memory_id": f"m{i}", "kind": "episode", "user_id": "ana", "content": f"turn {i}",
         "search_text": f"turn {i}"}
        for i in range(5)
    ]  # fmt: skip
    store.append(MEMORIES, rows)
    store.append(MEMORIES, rows[1:3])  # two keys written twice, as the race leaves them
    projector = Projector(
        store, consumer="memstream", clock=FakeClock(datetime(2024, 5, 1, tzinfo=UTC))
    )
    projector.upkeep(timedelta(minutes=1))
    ids = store.scan(MEMORIES, ["memory_id"]).column("memory_id").to_pylist()
    assert sorted(ids) == [f"m{i}" for i in range(5)]
    assert projector.duplicates_dropped == 2
    projector.upkeep(timedelta(minutes=1))  # nothing more to drop
    assert projector.duplicates_dropped == 2


def test_a_partition_claimed_while_its_batch_is_archived_gets_no_row_from_it(
    tmp_path: Path,
) -> None:
    """A worker that froze after its ownership check, while archiving a batch, and woke
    after another worker claimed the partition, inserts none of the batch's rows."""

    from memstream.events.codec import encode
    from memstream.storage.archive.event_archive import EventArchive
    from memstream.storage.filesystems import resolve_location
    from memstream.streams.delivery.fencing import Fence, Fenced
    from memstream.testing import message

    at = datetime(2024, 5, 1, tzinfo=UTC)
    folder = str(tmp_path / "projections")
    frozen = Fence(PartitionClaims(ProjectionStore(folder), "memstream"), FakeClock(at), "frozen")
    successor = Fence(PartitionClaims(ProjectionStore(folder), "memstream"), FakeClock(at), "next")
    frozen.take({0})

    class ClaimedMeanwhile(EventArchive):
        def write(self, records: Any) -> Any:
            written = super().write(records)
            successor.take({0})  # what a freeze here lets the new owner do
            return written

    store = ProjectionStore(folder)
    projector = Projector(
        store,
        consumer="memstream",
        clock=FakeClock(at),
        archive=ClaimedMeanwhile(resolve_location(str(tmp_path / "events"))),
        fence=frozen,
        partitions=8,
    )
    records = [
        LogRecord("e1", "memory.messages", 0, i, at, b"ana", encode(message(event_id=f"m{i}")))
        for i in range(5)
    ]
    with pytest.raises(Fenced):
        projector.apply(records)
    assert store.count(MEMORIES) == 0


def _owned_row(name: str, epoch: int | None, claim: str = "memstream|3") -> dict[str, Any]:
    """A row of the owner-guarded table ``name``: its required columns filled, the rest
    empty, written under ``epoch`` of ``claim``."""
    fills = {pa.string(): "x", pa.int64(): 1, pa.int32(): 1, pa.float64(): 0.5}
    schema = FIXED_SCHEMAS[name]
    row: dict[str, Any] = {
        f.name: (fills.get(f.type, NOW) if not f.nullable else None) for f in schema
    }
    row.update({KEYS[name]: "u|k", "user_id": "u", "owner_claim": claim, "owner_epoch": epoch})
    return row


@pytest.mark.parametrize("name", sorted(OWNER_GUARDED))
def test_a_folded_row_is_replaced_only_by_its_partitions_owner_or_a_later_one(
    tmp_path: Path, name: str
) -> None:
    store = ProjectionStore(str(tmp_path / "db"))
    assert store.upsert(name, [_owned_row(name, 2)], guarded=True) == 1
    assert store.upsert(name, [_owned_row(name, 1)], guarded=True) == 0  # an older owner
    assert store.upsert(name, [_owned_row(name, 2)], guarded=True) == 1  # the owner again
    assert store.upsert(name, [_owned_row(name, None)], guarded=True) == 1  # no fence
    assert store.upsert(name, [_owned_row(name, 3)], guarded=True) == 1
    # an epoch of another claim (the partition count or the group changed) is not compared
    assert store.upsert(name, [_owned_row(name, 1, "memstream|5")], guarded=True) == 1
    [row] = store.scan(name).to_pylist()
    assert (row["owner_claim"], row["owner_epoch"]) == ("memstream|5", 1)


def test_a_worker_frozen_inside_a_session_fold_cannot_put_its_older_fold_back(
    tmp_path: Path,
) -> None:
    """A worker that froze between reading a session row and writing it back, while
    another worker claimed the partition and wrote the row, has its write refused and
    stops as fenced; the row keeps the new owner's fold."""
    from memstream.events.codec import encode
    from memstream.streams.delivery.fencing import Fence, Fenced
    from memstream.streams.partitioning import partition_of
    from memstream.testing import message

    at = datetime(2024, 5, 1, tzinfo=UTC)
    folder = str(tmp_path / "projections")
    partition = partition_of("alice", 8)

    def fence(name: str) -> Fence:
        return Fence(PartitionClaims(ProjectionStore(folder), "memstream"), FakeClock(at), name)

    def records(first: int, count: int) -> list[LogRecord]:
        events = [
            message(event_id=f"m{i}", user_id="alice", session_id="s", occurred_at=at
                    + timedelta(minutes=i))
            for i in range(first, first + count)
        ]  # fmt: skip
        return [
            LogRecord("e1", "memory.messages", partition, i, at, b"alice", encode(e))
            for i, e in enumerate(events, start=first)
        ]

    frozen_fence, next_fence = fence("frozen"), fence("next")
    frozen_fence.take({partition})
    successor = Projector(
        ProjectionStore(folder), "memstream", FakeClock(at), fence=next_fence, partitions=8
    )

    class FrozenAfterItsRead(ProjectionStore):
        def rows_by_key(self, name: str, keys: Any) -> dict[str, dict[str, Any]]:
            found = super().rows_by_key(name, keys)
            if name == SESSIONS and not next_fence.held:
                next_fence.take({partition})  # what a freeze here lets the new owner do
                successor.apply(records(0, 6))
                successor.flush()
            return found

    frozen = Projector(
        FrozenAfterItsRead(folder), "memstream", FakeClock(at), fence=frozen_fence, partitions=8
    )
    with pytest.raises(Fenced):
        frozen.apply(records(0, 3))
        frozen.flush()
    assert next_fence.held  # the freeze happened inside the session fold
    [row] = ProjectionStore(folder).scan(SESSIONS).to_pylist()
    assert row["last_at"] == at + timedelta(minutes=5)  # the new owner's, not the older fold
    assert (row["owner_claim"], row["owner_epoch"]) == (f"memstream|{partition}", 2)


def test_a_store_written_before_owner_columns_gets_them_empty_and_guards_from_then_on(
    tmp_path: Path,
) -> None:
    import lancedb

    folder = str(tmp_path / "db")
    old_schema = pa.schema([f for f in FIXED_SCHEMAS[SESSIONS] if not f.name.startswith("owner_")])
    old_row = {k: v for k, v in _owned_row(SESSIONS, None).items() if k in old_schema.names}
    lancedb.connect(folder).create_table(
        SESSIONS, pa.Table.from_pylist([old_row], schema=old_schema)
    )
    store = ProjectionStore(folder)
    assert store.table(SESSIONS).schema.names == FIXED_SCHEMAS[SESSIONS].names
    assert store.scan(SESSIONS).to_pylist()[0]["owner_epoch"] is None
    assert store.upsert(SESSIONS, [_owned_row(SESSIONS, 2)], guarded=True) == 1
    assert store.upsert(SESSIONS, [_owned_row(SESSIONS, 1)], guarded=True) == 0
