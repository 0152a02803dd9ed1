"""What upkeep's look for keys held twice costs as a table grows: every key counted (the
look before) against the rows written since the last look (the look now).

For each size, ``memories`` is filled with that many rows (many users, the key's BTree
built as upkeep builds it), then ``--batches`` batches of ``--batch`` new rows are
appended, each followed by both looks: the whole key column counted
(``TableUpkeep.duplicate_keys``), and only the fragments added since the last look,
each of their keys counted through the index (``TableUpkeep.new_keys_held_twice``).
Median and slowest of each, in one process, nothing else running (no worker: no
embedder, no lifecycle timer).

Usage: python bench/key_checks.py [--sizes 1000000,3000000] [--batch 2000] [--batches 5]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time

import pyarrow as pa

from memstream.storage.lance.store import ProjectionStore
from memstream.storage.lance.tables import MEMORIES
from memstream.storage.schemas import MEMORIES_SCHEMA

_FILL = 250_000


def _rows(start: int, count: int) -> pa.Table:
    ids = [f"ep-{i:012x}" for i in range(start, start + count)]
    users = [f"user{i % 1000}" for i in range(start, start + count)]
    columns = {
        "memory_id": ids,
        "user_id": users,
        "kind": ["episode"] * count,
        "content": ["a turn of a conversation"] * count,
        "search_text": ["a turn of a conversation"] * count,
    }
    table = pa.table(columns)
    missing = [f for f in MEMORIES_SCHEMA if f.name not in columns]
    for field in missing:
        table = table.append_column(field, pa.nulls(count, field.type))
    return table.select(MEMORIES_SCHEMA.names).cast(MEMORIES_SCHEMA)


def _ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="1000000,3000000")
    parser.add_argument("--batch", type=int, default=2000)
    parser.add_argument("--batches", type=int, default=5)
    args = parser.parse_args()
    print("one process, nothing else running (no worker, no embedder, no lifecycle timer)")
    for size in (int(s) for s in args.sizes.split(",")):
        with tempfile.TemporaryDirectory() as folder:
            store = ProjectionStore(folder)
            for start in range(0, size, _FILL):
                store.append(MEMORIES, _rows(start, min(_FILL, size - start)))
            store.table(MEMORIES).optimize()
            store.upkeep.ensure_indexes([MEMORIES])
            since = store.upkeep.new_keys_held_twice(MEMORIES, 0).upto
            every, fresh = [], []
            for n in range(args.batches):
                store.append(MEMORIES, _rows(size + n * args.batch, args.batch))
                started = time.perf_counter()
                assert store.upkeep.duplicate_keys(MEMORIES) == []
                every.append(_ms(started))
                started = time.perf_counter()
                looked = store.upkeep.new_keys_held_twice(MEMORIES, since)
                fresh.append(_ms(started))
                assert looked.repeated == [] and looked.read == args.batch
                since = looked.upto
            print(
                f"{size:>10,} rows: every key counted p50 {statistics.median(every):7.1f} ms "
                f"(max {max(every):7.1f}); rows since the last look p50 "
                f"{statistics.median(fresh):6.1f} ms (max {max(fresh):6.1f}); "
                f"{statistics.median(every) / (size / 1e6):.0f} ms per million rows before"
            )


if __name__ == "__main__":
    main()
