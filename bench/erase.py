"""Erasure benchmark: how long erasing a user with N memories (some archived) takes.

Builds, on real LanceDB tables and a local Parquet cold store in a temporary folder,
with the projector and the record keys the worker uses (every record sealed under its
user's data key, as ``memstream up`` receives them):

- one user with ``--memories`` memories (LoCoMo turns as text, cycled with a counter
  so every row differs; random unit vectors of 384 dimensions, said so here), a fifth of
  them dated two years back and then archived by the archive job (originals in the
  cold store, summaries in ``archive_index``);
- ``--others`` other users with ``--other-memories`` memories each, sharing the tables,
  who must keep every row.

Then it erases the user as the worker does: the data key is destroyed and noted
(:meth:`DataKeys.erase`), and the ``UserErased`` record is applied by the projector,
which deletes the user's rows from every table, rewrites what compaction would leave
holding them, rebuilds the full-text indexes, drops old versions and deletes the
user's cold-store folders. It prints the time of each part and checks the result.
Not included: the broker's round trip of the one ``UserErased`` record (milliseconds),
and the wait of an API call for the worker to pick it up (one batch window, 0.5 s).

Nothing else runs beside it (no embedder, no lifecycle timer, no broker).

Usage: python bench/erase.py [--memories 100000] [--others 5] [--other-memories 20000]
"""

from __future__ import annotations

import argparse
import json
import logging
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

from memstream.jobs.archiver import Archiver
from memstream.policies.coldness import ColdPolicy
from memstream.projections.vectors import embedding_events
from memstream.storage.archive.cold_store import ColdStore
from memstream.storage.data_keys import DataKeys
from memstream.storage.filesystems import resolve_location
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.lance.tables import ARCHIVE_INDEX, MEMORIES, STATE_TABLES, VECTORS
from memstream.storage.log_records import LogRecord
from memstream.storage.schemas import COLD_ORIGINAL_SCHEMA
from memstream.streams.projector import Projector
from memstream.streams.sealing import RecordKeys, erasure_event
from memstream.testing import FakeClock, message

NOW = datetime(2026, 6, 1, tzinfo=UTC)
MODEL = "bench-random"
BENCH = Path(__file__).parents[1] / ".." / "shared" / "bench" / "locomo10_events.jsonl"


class Log:
    """Sealed records of one partition per topic, as the worker reads them."""

    def __init__(self, keys: RecordKeys) -> None:
        self.keys = keys
        self.offsets: dict[str, int] = {}

    def records(self, topic: str, events: list[Any]) -> list[LogRecord]:
        first = self.offsets.get(topic, 0)
        self.offsets[topic] = first + len(events)
        return [
            LogRecord("e1", topic, 0, first + j, NOW, e.user_id.encode(), self.keys.seal_event(e))
            for j, e in enumerate(events)
        ]


def texts(n: int) -> list[str]:
    turns = [json.loads(line)["content"] for line in BENCH.read_text().splitlines() if line]
    return [f"{turns[i % len(turns)]} (#{i})" for i in range(n)]


def build_user(
    store: ProjectionStore, projector: Projector, log: Log, user: str, n: int, old: float
) -> None:
    contents = texts(n)
    rng = np.random.default_rng(abs(hash(user)) % 2**32)
    for start in range(0, n, 5000):
        events = [
            message(
                event_id=f"{user}-m{i}",
                user_id=user,
                session_id=f"s{i // 20}",
                content=contents[i],
                occurred_at=(NOW - timedelta(days=730) if i < n * old else NOW - timedelta(days=1))
                + timedelta(seconds=i),
            )
            for i in range(start, min(n, start + 5000))
        ]
        projector.apply(log.records("memory.messages", events))
        store.refresh()
        rows = store.scan(
            MEMORIES,
            ["memory_id", "user_id", "project_id", "kind", "occurred_at"],
            f"user_id = '{user}' AND log_offset >= {log.offsets['memory.messages'] - len(events)}",
        ).to_pylist()
        memories = [
            (r["memory_id"], r["user_id"], r["project_id"], r["kind"], r["occurred_at"])
            for r in rows
        ]
        vectors = rng.standard_normal((len(memories), 384)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        embedded = embedding_events(memories, vectors, MODEL, "1", NOW)
        projector.apply(log.records("memory.embeddings", embedded))
    projector.flush()


def counts(store: ProjectionStore, user: str) -> dict[str, int]:
    store.refresh()
    return {name: store.count(name, f"user_id = '{user}'") for name in STATE_TABLES}


def main() -> None:
    logging.basicConfig(level="WARNING", format="  %(message)s")
    logging.getLogger("memstream.storage.lance.upkeep").setLevel("INFO")
    parser = argparse.ArgumentParser()
    parser.add_argument("--memories", type=int, default=100_000)
    parser.add_argument("--others", type=int, default=5)
    parser.add_argument("--other-memories", type=int, default=20_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        store = ProjectionStore(str(tmp / "projections"))
        cold = ColdStore(resolve_location(str(tmp / "cold")), COLD_ORIGINAL_SCHEMA)
        keys = RecordKeys(DataKeys(tmp / "data-keys"))
        projector = Projector(store, "bench", FakeClock(NOW), cold_store=cold, keys=keys)
        log = Log(keys)
        started = time.perf_counter()
        build_user(store, projector, log, "big", args.memories, old=0.2)
        for k in range(args.others):
            build_user(store, projector, log, f"other{k}", args.other_memories, old=0.2)
        archiver = Archiver(store, cold, ColdPolicy())
        archived = archiver.archive(NOW, user_id="big", limit=args.memories)
        for start in range(0, len(archived), 2000):
            projector.apply(log.records("memory.lifecycle", archived[start : start + 2000]))
        projector.flush()
        store.upkeep.optimize(retain=timedelta(0))
        print(
            f"built {args.memories:,} memories of the user to erase ({len(archived):,} of them "
            f"archived, {len(cold.files())} cold files) and {args.others} x "
            f"{args.other_memories:,} of other users, with vectors, in "
            f"{time.perf_counter() - started:.0f} s"
        )
        before = counts(store, "big")
        others_before = {f"other{k}": counts(store, f"other{k}") for k in range(args.others)}
        total = {name: store.count(name) for name in (MEMORIES, VECTORS, ARCHIVE_INDEX)}
        print(f"rows of the user: {before}; all users: {total}")

        started = time.perf_counter()
        erasure = keys.keys.erase("big", NOW)
        destroyed = time.perf_counter() - started
        record = log.records("memory.commands", [erasure_event(erasure)])
        projector.apply(record)
        projector.flush()
        took = time.perf_counter() - started
        after = counts(store, "big")
        others_after = {f"other{k}": counts(store, f"other{k}") for k in range(args.others)}
        assert not any(after.values()), after
        assert others_after == others_before, "another user's rows changed"
        assert not list((tmp / "cold").rglob("user=big/month=*")), "cold files left"
        assert not keys.keys.is_pending("big")
        print(
            f"erased a user with {args.memories:,} memories ({len(archived):,} archived) in "
            f"{took:.1f} s (key destroyed in {destroyed * 1000:.1f} ms; the rest: rows, "
            f"rewrites, full-text indexes, versions, cold files); target under 60 s"
        )
        print(f"rows of the user after: {after}; other users unchanged")


if __name__ == "__main__":
    main()
