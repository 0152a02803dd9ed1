"""Archive benchmark: bytes per memory hot and archived, archive throughput, summary
search, expansion, and hot search before and after archiving 80% of a user.

Builds, on real LanceDB tables and a local Parquet cold store in a temporary folder,
one user with N memories (LoCoMo turns as text, cycled with a counter so that every
row differs; random unit vectors of the default 384 dimensions, said so here), with the
projector the worker uses. 80% of them (the oldest) are dated two years back. Then:

1. bytes per memory in the hot tables: the ``memories`` and ``vectors`` folders
   (rows, full-text, scalar and label indexes, and the ANN index once there are
   100,000 vectors) after compaction, divided by the memories;
2. hot search latency (full text + vector, through :class:`Searcher`) before archiving;
3. archive throughput: ``Archiver.archive`` (local summaries, Parquet write and
   read-back check) plus applying the ``MemoryArchived`` events, memories/s;
4. bytes per archived memory in ``archive_index`` (after compaction and indexing), and
   the ratio to the hot figure;
5. summary search latency: whole searches with ``include_archived`` (hot retrievers
   and the archive), and the summary full-text search alone; hot search latency after
   archiving;
6. expansion latency: ``Archiver.expand`` of random archived memories (local Parquet),
   and the Parquet read alone, before and after compacting the cold store's small
   files into parts.

Usage: python bench/archive.py [--memories 100000] [--queries 200]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

from memstream.events.codec import encode
from memstream.jobs.archiver import Archiver
from memstream.policies.coldness import ColdPolicy
from memstream.projections.vectors import embedding_events
from memstream.queries.search.searcher import Searcher, SearchRequest
from memstream.storage.archive.cold_store import ColdStore, StorageRef
from memstream.storage.filesystems import resolve_location
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.lance.tables import ARCHIVE_INDEX, MEMORIES, VECTORS
from memstream.storage.log_records import LogRecord
from memstream.storage.schemas import COLD_ORIGINAL_SCHEMA
from memstream.streams.projector import Projector
from memstream.testing import FakeClock, message

NOW = datetime(2026, 6, 1, tzinfo=UTC)
MODEL = "bench-random"
BENCH = Path(__file__).parents[1] / ".." / "shared" / "bench" / "locomo10_events.jsonl"


def folder_bytes(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def texts(n: int) -> list[str]:
    turns = [json.loads(line)["content"] for line in BENCH.read_text().splitlines() if line]
    return [f"{turns[i % len(turns)]} (#{i})" for i in range(n)]


def log_records(topic: str, events: list[Any], first: int) -> list[LogRecord]:
    """``events`` as the records of partition 0 of ``topic`` from offset ``first``."""
    return [
        LogRecord("e1", topic, 0, first + j, NOW, b"ana", encode(e)) for j, e in enumerate(events)
    ]


def build(store: ProjectionStore, projector: Projector, n: int) -> None:
    contents = texts(n)
    old = int(n * 0.8)
    offset = 0
    rng = np.random.default_rng(7)
    for start in range(0, n, 5000):
        events = [
            message(
                event_id=f"m{i}",
                user_id="ana",
                session_id=f"s{i // 20}",
                content=contents[i],
                occurred_at=(NOW - timedelta(days=730) if i < old else NOW - timedelta(days=1))
                + timedelta(seconds=i),
            )
            for i in range(start, min(n, start + 5000))
        ]
        records = log_records("memory.messages", events, offset)
        offset += len(records)
        projector.apply(records)
        store.refresh()
        rows = store.scan(
            MEMORIES,
            ["memory_id", "user_id", "project_id", "kind", "occurred_at"],
            f"log_offset >= {offset - len(records)}",
        ).to_pylist()
        keys = [
            (r["memory_id"], r["user_id"], r["project_id"], r["kind"], r["occurred_at"])
            for r in rows
        ]
        vectors = rng.standard_normal((len(keys), 384)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        records = log_records(
            "memory.embeddings", embedding_events(keys, vectors, MODEL, "1", NOW), offset
        )
        offset += len(records)
        projector.apply(records)
    projector.flush()


def searches(store: ProjectionStore, queries: list[str], **kw: object) -> list[float]:
    rng = np.random.default_rng(11)

    def embed(query: str) -> np.ndarray:
        v = rng.standard_normal(384).astype(np.float32)
        return v / np.linalg.norm(v)

    searcher = Searcher(store, embed=embed, model=MODEL, clock=lambda: NOW)
    took = []
    for q in queries:
        started = time.perf_counter()
        searcher.search(SearchRequest(user_id="ana", query=q, k=10, now=NOW, **kw))  # type: ignore[arg-type]
        took.append((time.perf_counter() - started) * 1000)
    return took


def quantiles(took: list[float]) -> str:
    q = statistics.quantiles(took, n=100)
    return f"p50 {q[49]:.1f} ms, p95 {q[94]:.1f} ms, p99 {q[98]:.1f} ms"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--memories", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()
    n = args.memories
    queries = [" ".join(t.split()[:4]) for t in random.Random(3).sample(texts(5000), args.queries)]
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        store = ProjectionStore(str(tmp / "projections"))
        cold = ColdStore(resolve_location(str(tmp / "cold")), COLD_ORIGINAL_SCHEMA)
        projector = Projector(store, "bench", FakeClock(NOW), cold_store=cold)
        started = time.perf_counter()
        build(store, projector, n)
        store.upkeep.optimize(retain=timedelta(0))
        print(f"built {n:,} memories with vectors in {time.perf_counter() - started:.1f} s")
        hot_bytes = folder_bytes(tmp / "projections" / "memories.lance") + folder_bytes(
            tmp / "projections" / "vectors.lance"
        )
        per_hot = hot_bytes / n
        print(f"hot tables: {hot_bytes / 1e6:.1f} MB, {per_hot:,.0f} bytes per memory")
        print(f"hot search before archiving ({n:,} hot): {quantiles(searches(store, queries))}")

        archiver = Archiver(store, cold, ColdPolicy())
        started = time.perf_counter()
        events = archiver.archive(NOW)
        decided = time.perf_counter() - started
        offset = 10_000_000
        for start in range(0, len(events), 2000):
            chunk = events[start : start + 2000]
            projector.apply(log_records("memory.lifecycle", chunk, offset + start))
        projector.flush()
        total = time.perf_counter() - started
        archived = len(events)
        print(
            f"archived {archived:,} memories in {total:.1f} s ({archived / total:,.0f}/s; "
            f"select+summarize+write+verify {decided:.1f} s, apply {total - decided:.1f} s); "
            f"{len(cold.files())} Parquet files, {folder_bytes(tmp / 'cold') / 1e6:.1f} MB"
        )
        store.upkeep.optimize(retain=timedelta(0))
        index_bytes = folder_bytes(tmp / "projections" / "archive_index.lance")
        per_index = index_bytes / archived
        print(
            f"archive index: {index_bytes / 1e6:.1f} MB, {per_index:,.0f} bytes per archived "
            f"memory = {per_index / per_hot:.1%} of a hot one (target at most 25%)"
        )
        store.refresh()
        print(
            f"hot rows now {store.count(MEMORIES):,}, vectors {store.count(VECTORS):,}, "
            f"archive index {store.count(ARCHIVE_INDEX):,}"
        )
        took = searches(store, queries, include_archived=True)
        print(f"search with include_archived ({archived:,} archived): {quantiles(took)}")
        took = []
        where = "user_id = 'ana' AND (restored_at IS NULL OR archived_at > restored_at)"
        for q in queries:
            t0 = time.perf_counter()
            store.queries.full_text(q, where, 10, ["memory_id", "search_text"], ARCHIVE_INDEX)
            took.append((time.perf_counter() - t0) * 1000)
        print(f"summary full-text search alone ({archived:,} archived): {quantiles(took)}")
        after = quantiles(searches(store, queries))
        print(f"hot search after archiving 80% ({n - archived:,} hot): {after}")
        sample = random.Random(5).sample([e.memory_id for e in events], min(200, archived))
        refs = {e.memory_id: StorageRef.parse(e.storage_ref) for e in events}
        expansions, reads = time_expansions(archiver, cold, sample, refs)
        print(f"expansion from local Parquet: {quantiles(expansions)}")
        print(f"  of which the Parquet read: {quantiles(reads)}")
        started = time.perf_counter()
        merged = cold.compact()
        print(
            f"compaction merged {merged} files into {len(cold.files())} "
            f"in {time.perf_counter() - started:.1f} s"
        )
        expansions, reads = time_expansions(archiver, cold, sample, refs)
        print(f"expansion after compaction: {quantiles(expansions)}")
        print(f"  of which the Parquet read: {quantiles(reads)}")


def time_expansions(
    archiver: Archiver, cold: ColdStore, sample: list[str], refs: dict[str, StorageRef]
) -> tuple[list[float], list[float]]:
    """Milliseconds of each whole expansion (index row, Parquet read, events) and of
    the Parquet read alone."""
    expansions, reads = [], []
    for memory_id in sample:
        t0 = time.perf_counter()
        archiver.expand("ana", memory_id, NOW)
        t1 = time.perf_counter()
        cold.read(refs[memory_id])
        expansions.append((t1 - t0) * 1000)
        reads.append((time.perf_counter() - t1) * 1000)
    return expansions, reads


if __name__ == "__main__":
    main()
