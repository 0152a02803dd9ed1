"""Keyed writes as memory grows: fence rows against the merge through the key's index
(which lets two writers both insert a key) and the merge that scans every key.

For each size (default 1M and 3M memories), a data folder is made by ``memstream up``,
then its large tables are filled directly (``memories`` and ``vectors`` with the size,
``entities`` with a quarter of it, ``sessions`` with a twentieth; 10,000 users) and
compacted and indexed as upkeep does (the vectors' ANN index included, unless
``--no-ann``: a worker would build it at start, beside the measurement). Then:

1. one merge of ``--batch`` new rows into ``memories`` and into ``vectors``, in this
   process, nothing else running: scanning the key column (a write without a fence
   row), through the key's index (no fence row: unsafe, the baseline), and through the
   index with a partition's fence row (what the worker does); median and slowest of
   ``--merges`` each, and what the scan costs per million rows;
2. the worker (``memstream up`` on that folder, the embedder and the lifecycle timer
   stopped, table upkeep every 30 s as deployed), after a first worker that is not
   measured (``--warm-up`` messages: it creates the partitions' fence rows and reads
   the indexes from disk, which would otherwise land on the first run), in turn with
   this code (fence rows) and with the merge joining through the index without them
   (the baseline, patched into the child at start), ``--rounds`` times each,
   alternating: ``--messages``
   messages published at once and the time until all are in ``memories``; then
   ``--rate`` messages/s for ``--seconds`` (60: two upkeeps) and each one's
   publish-to-searchable latency (``ingest.latency``: a row in ``memories`` is
   searchable, full text covers rows not yet indexed).

With ``--keep DIR`` each size's filled folder is kept in ``DIR/<size>`` and used again by
a later run (a fill of 10M rows and its indexes take the better part of an hour), and
``--workers-only`` skips part 1.

Usage: python bench/keyed_writes.py [--sizes 1000000,3000000] [--rounds 2] [--no-ann]
       [--keep DIR] [--merges-only | --workers-only]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import pyarrow as pa
from ingest import QUIET_LANES, events, latency, open_store, publish_all

from memstream.storage.lance.fence_rows import fenced_merge
from memstream.storage.lance.merges import keyed_merge
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.lance.tables import ENTITIES, KEYS, MEMORIES, SESSIONS, VECTORS
from memstream.testing import WorkerProcess, wait_until

_USERS = 10_000
#: Marks this sitting's messages: a kept folder already holds the last sitting's, whose
#: ids a message of the same id would repeat (and be stored once, never counted).
_SITTING = time.strftime("%Y%m%dT%H%M%S")
_CHUNK = 250_000
#: What the child worker imports at start for the baseline: keyed merges through the
#: key's index and no fence rows (the merge before fence rows, without the scan).
_INDEX_JOIN = """
import sys

import memstream.storage.lance.store as store
import memstream.streams.projector.core as core

store.keyed_merge = lambda table, key: table.merge_insert(key)
core.ProjectorCore._fences_of = lambda self, rows: frozenset()
print("keyed merges: through the key's index, no fence rows", file=sys.stderr, flush=True)
"""
_VARIANTS = ("fence rows", "index join")


def _filled(schema: pa.Schema, count: int, **columns: Any) -> pa.Table:
    table = pa.table(columns)
    for field in schema:
        if field.name not in table.column_names:
            table = table.append_column(field.name, pa.nulls(count, field.type))
    return table.select(schema.names).cast(schema)


def _memories(store: ProjectionStore, start: int, count: int) -> pa.Table:
    ids = [f"ep-{i:012x}" for i in range(start, start + count)]
    text = ["a turn of a conversation about coffee and the river"] * count
    return _filled(
        store.schema(MEMORIES), count, memory_id=ids, kind=["episode"] * count,
        user_id=[f"fill{i % _USERS}" for i in range(start, start + count)],
        content=text, search_text=text,
    )  # fmt: skip


def _vectors(store: ProjectionStore, start: int, count: int) -> pa.Table:
    dimension = store.vector_dimension
    flat = np.random.default_rng(start).standard_normal(count * dimension, dtype=np.float32)
    vectors = pa.FixedSizeListArray.from_arrays(pa.array(flat), dimension)
    return _filled(
        store.schema(VECTORS), count,
        memory_id=[f"ep-{i:012x}" for i in range(start, start + count)],
        user_id=[f"fill{i % _USERS}" for i in range(start, start + count)],
        model=["minilm"] * count, vector=vectors,
    )  # fmt: skip


def _entities(store: ProjectionStore, start: int, count: int) -> pa.Table:
    ids = [f"fill{i % _USERS}|person|p{i:010x}" for i in range(start, start + count)]
    return _filled(
        store.schema(ENTITIES), count, entity_id=ids,
        user_id=[f"fill{i % _USERS}" for i in range(start, start + count)],
        type=["person"] * count, canonical_name=[f"P{i}" for i in range(start, start + count)],
        key=[f"p{i:010x}" for i in range(start, start + count)], mention_count=[1] * count,
    )  # fmt: skip


def _sessions(store: ProjectionStore, start: int, count: int) -> pa.Table:
    users = [f"fill{i % _USERS}" for i in range(start, start + count)]
    sessions = [f"s{i}" for i in range(start, start + count)]
    return _filled(
        store.schema(SESSIONS), count,
        session_key=[f"{u}|{s}" for u, s in zip(users, sessions, strict=True)],
        user_id=users, session_id=sessions,
    )  # fmt: skip


_FILLS: dict[str, tuple[Callable[[ProjectionStore, int, int], pa.Table], float]] = {
    MEMORIES: (_memories, 1.0),
    VECTORS: (_vectors, 1.0),
    ENTITIES: (_entities, 0.25),
    SESSIONS: (_sessions, 0.05),
}


def fill(store: ProjectionStore, size: int, ann: bool) -> None:
    started = time.perf_counter()
    for name, (rows_of, share) in _FILLS.items():
        total = int(size * share)
        for start in range(0, total, _CHUNK):
            store.append(name, rows_of(store, start, min(_CHUNK, total - start)))
    filled = time.perf_counter() - started
    for name in _FILLS:  # compacted as upkeep compacts them
        store.upkeep.optimize_table(name, timedelta(days=1), build_missing_indexes=False)
    store.upkeep.ensure_indexes(ann=ann)
    print(
        f"filled {size:,} memories and vectors, {size // 4:,} entities, {size // 20:,} "
        f"sessions ({_USERS:,} users) in {filled:.0f} s; compacted and indexed in "
        f"{time.perf_counter() - started - filled:.0f} s (ANN index: {'yes' if ann else 'no'})",
        flush=True,
    )


def merge_costs(store: ProjectionStore, size: int, batch: int, merges: int) -> None:
    """One merge of ``batch`` new rows, three ways, per large table."""
    fresh = [10**9]

    def rows(name: str) -> pa.Table:
        fresh[0] += batch
        return _FILLS[name][0](store, fresh[0], batch)

    ways: dict[str, Callable[[Any, str, pa.Table], Any]] = {
        "scan": lambda t, k, d: keyed_merge(t, k).when_not_matched_insert_all().execute(d),
        "index": lambda t, k, d: t.merge_insert(k).when_not_matched_insert_all().execute(d),
        "fenced": lambda t, k, d: fenced_merge(t, k, d, {"0"}, update=False),
    }
    for name in (MEMORIES, VECTORS):
        table, key = store.table(name), KEYS[name]
        store.insert_absent(name, rows(name), fences={"0"})  # the fence row exists
        took: dict[str, list[float]] = {way: [] for way in ways}
        for _ in range(merges):
            for way, merge in ways.items():
                data = rows(name)
                started = time.perf_counter()
                merge(table, key, data)
                took[way].append((time.perf_counter() - started) * 1000)
        line = ", ".join(
            f"{way} {statistics.median(ms):.0f} ms (slowest {max(ms):.0f})"
            for way, ms in took.items()
        )
        per_million = (statistics.median(took["scan"]) - statistics.median(took["index"])) / (
            size / 1e6
        )
        print(
            f"  one {batch:,}-row merge into {name} at {size:,} rows: {line}; "
            f"the scan costs {per_million:.0f} ms per million rows more",
            flush=True,
        )


def throughput(worker: WorkerProcess, store: ProjectionStore, n: int, tag: str) -> float:
    table = store.table(MEMORIES)
    table.checkout_latest()
    base = table.count_rows()
    started = time.perf_counter()
    asyncio.run(publish_all(worker.bootstrap, events(n, tag)))

    def all_in() -> bool:
        worker.check_alive()
        table.checkout_latest()
        return bool(table.count_rows() >= base + n)

    wait_until(all_in, timeout=1200, interval=0.05)
    return n / (time.perf_counter() - started)


def run_worker(data: Path, variant: str, patch: Path, args: argparse.Namespace, n: int) -> str:
    env = {**QUIET_LANES, "MEMSTREAM_OPTIMIZE_EVERY_SECONDS": "30"}
    if variant == "index join":
        env["PYTHONPATH"] = str(patch)
    worker = WorkerProcess(data, env=env).start()
    try:
        worker.wait_ready(timeout=300)
        store = open_store(data)
        rate = throughput(worker, store, args.messages, f"t{_SITTING}-{n}")
        p50, p99, share = latency(worker, store, args.rate, args.seconds, f"lat{_SITTING}-{n}")
        runs, seconds = _upkeep_figures(worker)
    finally:
        worker.stop()
    return (
        f"ingest {rate:,.0f} msg/s; at {args.rate} msg/s publish-to-searchable p50 "
        f"{p50:,.0f} ms, p99 {p99:,.0f} ms ({share:.0%} seen); {runs} upkeep runs "
        f"took {seconds:.1f} s"
    )


def warm_up(data: Path, messages: int) -> None:
    """A first worker on the folder, not measured: its messages create each partition's
    fence rows in the tables they reach (a scanning merge each, once per table and
    partition, as a deployment's first writes do) and read the indexes from disk, so
    neither lands on whichever variant runs first."""
    if not messages:
        return
    worker = WorkerProcess(data, env=QUIET_LANES).start()
    try:
        worker.wait_ready(timeout=300)
        rate = throughput(worker, open_store(data), messages, f"warm{_SITTING}")
    finally:
        worker.stop()
    print(f"  warm-up (not measured): {messages:,} messages at {rate:,.0f} msg/s", flush=True)


def _upkeep_figures(worker: WorkerProcess) -> tuple[int, float]:
    """How many upkeep runs the worker finished, and their time in all."""
    text = httpx.get(f"{worker.metrics_url}/metrics", timeout=10).text
    figures = {
        line.split()[0]: float(line.split()[1])
        for line in text.splitlines()
        if line.startswith("memstream_upkeep_duration_seconds_")
    }
    return int(figures.get("memstream_upkeep_duration_seconds_count", 0)), figures.get(
        "memstream_upkeep_duration_seconds_sum", 0.0
    )


@contextlib.contextmanager
def _folder(keep: str | None, size: int) -> Iterator[Path]:
    """Where a size's data folder lives: kept under ``keep``, else a temporary one."""
    if keep is None:
        with tempfile.TemporaryDirectory() as folder:
            yield Path(folder)
        return
    folder = Path(keep) / str(size)
    folder.mkdir(parents=True, exist_ok=True)
    yield folder


def _filled_folder(folder: Path, size: int, ann: bool) -> tuple[Path, Path]:
    """The data folder of ``size`` rows (filled unless a kept one already is) and the
    baseline's patch folder."""
    data, patch, done = folder / "data", folder / "patch", folder / "filled"
    patch.mkdir(exist_ok=True)
    (patch / "sitecustomize.py").write_text(_INDEX_JOIN)
    if done.exists() and done.read_text() == f"{size} ann={ann}":
        print(f"using the folder filled before: {folder}", flush=True)
        return data, patch
    shutil.rmtree(data, ignore_errors=True)  # a fill cut short is begun again
    with WorkerProcess(data, env=QUIET_LANES):
        pass  # makes the data folder and its tables
    fill(open_store(data), size, ann)
    done.write_text(f"{size} ann={ann}")
    return data, patch


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="1000000,3000000")
    parser.add_argument("--batch", type=int, default=2000)
    parser.add_argument("--merges", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--messages", type=int, default=20_000)
    parser.add_argument("--rate", type=int, default=500)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--no-ann", action="store_true", help="no ANN index on the vectors")
    parser.add_argument(
        "--warm-up", type=int, default=5000, help="messages of an unmeasured first worker"
    )
    parser.add_argument("--keep", help="keep each size's filled folder here, and reuse it")
    parts = parser.add_mutually_exclusive_group()
    parts.add_argument("--merges-only", action="store_true", help="part 1 only")
    parts.add_argument("--workers-only", action="store_true", help="part 2 only")
    args = parser.parse_args()
    print("worker: embedder and lifecycle timer stopped, table upkeep every 30 s", flush=True)
    for size in (int(s) for s in args.sizes.split(",")):
        with _folder(args.keep, size) as folder:
            data, patch = _filled_folder(folder, size, not args.no_ann)
            if not args.workers_only:
                merge_costs(open_store(data), size, args.batch, args.merges)
            if args.merges_only:
                continue
            warm_up(data, args.warm_up)
            runs = 0
            for round_ in range(args.rounds):
                for variant in _VARIANTS if round_ % 2 == 0 else reversed(_VARIANTS):
                    runs += 1
                    result = run_worker(data, variant, patch, args, runs)
                    print(f"  {size:,} memories, {variant}: {result}", flush=True)


if __name__ == "__main__":
    main()
