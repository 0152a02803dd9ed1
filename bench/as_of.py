"""What reading memory ``as_of`` a past moment costs, and what recording moments costs.

Messages of ``--users`` users (``--messages`` each, spread over the day before) are
applied by the worker's projector to real LanceDB tables in a temporary folder, a batch
of ``--batch`` records at a time, each batch's checkpoints saved (so each records a
moment, as the worker does every ``checkpoint_every_seconds`` while busy). Then one
user's memory is read in-process, searched and listed, now and ``as_of`` the moment half
way through:

- *search now*: a search of the user's memory as it is;
- *search as_of, first*: the first ``as_of`` read of a moment (finding the moment among
  the partition's, checking out every state table at its versions), once per moment
  asked, over ``--moments`` different moments;
- *search as_of, again*: later reads of a moment already open (the reader keeps the last
  four);
- *list now* and *list as_of*: the first page of the user's memory list.

Also printed: how long recording a batch's moments took (one row per partition moved,
and the newest version of each state table asked), against the batch's whole apply.

No embedder (full text, names and time only) and no lifecycle run: nothing but this
process reads or writes the tables.

Usage: python bench/as_of.py [--users 20] [--messages 500] [--batch 200] [--moments 10]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from memstream.application import Operations
from memstream.events.codec import encode
from memstream.queries.memory_list import ListRequest
from memstream.queries.search.request import SearchRequest
from memstream.settings import Settings
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.log_records import LogRecord
from memstream.storage.write_tokens import WriteToken
from memstream.streams.partitioning import partition_of
from memstream.streams.projector import Projector
from memstream.testing import FakeClock, message

WORDS = [
    "garden",
    "lisbon",
    "porto",
    "bike",
    "office",
    "train",
    "coffee",
    "piano",
    "sister",
    "dentist",
    "invoice",
    "trip",
    "museum",
    "cat",
    "dog",
    "recipe",
    "market",
    "river",
    "bridge",
    "concert",
]


def _text(user: int, index: int) -> str:
    picked = [WORDS[(user * 7 + index * (k + 3)) % len(WORDS)] for k in range(6)]
    return f"Note {index}: the {picked[0]} near the {picked[1]}, then {' and '.join(picked[2:])}."


def _percentiles(samples: list[float]) -> str:
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    return f"p50 {statistics.median(ordered):7.2f} ms  p99 {p99:7.2f} ms  (n={len(ordered)})"


def _timed(run: Callable[[], Any], times: int) -> list[float]:
    taken = []
    for _ in range(times):
        started = time.perf_counter()
        run()
        taken.append((time.perf_counter() - started) * 1000)
    return taken


class _NoLog:
    """Where the reads' access reports go: nowhere (this benchmark has no broker)."""

    async def publish(self, events: Any) -> Any:
        return None

    async def publish_lines(self, lines: Any) -> Any:
        return None

    async def close(self) -> None:
        return None


class _Timing(ProjectionStore):
    """The store, timing its moment records (the cost the worker's flush pays)."""

    recorded: list[float]

    def record_moments(self, *args: Any, **kwargs: Any) -> None:
        started = time.perf_counter()
        super().record_moments(*args, **kwargs)
        self.recorded.append((time.perf_counter() - started) * 1000)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", type=int, default=20)
    parser.add_argument("--messages", type=int, default=500)
    parser.add_argument("--batch", type=int, default=200)
    parser.add_argument("--moments", type=int, default=10)
    args = parser.parse_args()
    settings = Settings(data="unused", embedder="none")
    start = datetime.now(UTC).replace(microsecond=0) - timedelta(days=1)
    with tempfile.TemporaryDirectory() as folder:
        store = _Timing(str(Path(folder) / "tables"))
        store.recorded = []
        clock = FakeClock(start)
        projector = Projector(store, consumer=settings.consumer_group, clock=clock)
        offsets: dict[int, int] = {}
        records = []
        for index in range(args.messages):
            for user in range(args.users):
                user_id = f"user-{user}"
                partition = partition_of(user_id, settings.messages_partitions)
                offset = offsets.get(partition, -1) + 1
                offsets[partition] = offset
                at = start + timedelta(seconds=index * 60 + user)
                event = message(
                    event_id=f"{user_id}-{index}", user_id=user_id, session_id=f"s{index // 50}",
                    speaker=user_id, content=_text(user, index), occurred_at=at,
                )  # fmt: skip
                key = user_id.encode()
                records.append(
                    LogRecord("e1", "memory.messages", partition, offset, at, key, encode(event))
                )
        flushes = []
        tokens = []
        started = time.perf_counter()
        for first in range(0, len(records), args.batch):
            batch = records[first : first + args.batch]
            clock.advance(minutes=1)
            batch_started = time.perf_counter()
            projector.apply(batch)  # its checkpoints saved, its moments recorded
            flushes.append((time.perf_counter() - batch_started) * 1000)
            last = batch[-1]
            tokens.append(WriteToken("e1", {(last.topic, last.partition): last.offset}))
        applied = time.perf_counter() - started
        print(
            f"{len(records)} messages of {args.users} users applied in {applied:.1f} s, "
            f"{len(flushes)} batches"
        )
        print(f"recording a batch's moments: {_percentiles(store.recorded)}")
        print(f"a batch's apply, all of it:  {_percentiles(flushes)}")

        reader = ProjectionStore(str(Path(folder) / "tables"))
        ops = Operations(Settings(data=folder, embedder="none"), sink=_NoLog(), store=reader)
        user = "user-0"
        moment = (start + timedelta(minutes=len(flushes) // 2 + 1)).isoformat()
        query = "the bike near the office"

        def search(as_of: str | None) -> Any:
            return asyncio.run(
                ops.reads.search(SearchRequest(user_id=user, query=query, as_of=as_of))
            )

        def page(as_of: str | None) -> Any:
            request = ListRequest(user_id=user, limit=50, as_of=as_of)
            return asyncio.run(ops.reads.list_memories(request))

        search(None)  # the searcher and its query caches made
        print(f"search now:              {_percentiles(_timed(lambda: search(None), 50))}")
        step = max(1, len(flushes) // args.moments)
        firsts = []
        for index in range(0, len(flushes), step)[: args.moments]:
            asked = (start + timedelta(minutes=index + 1, seconds=30)).isoformat()
            firsts.extend(_timed(lambda asked=asked: search(asked), 1))  # type: ignore[misc]
        print(f"search as_of, first:     {_percentiles(firsts)}")
        print(f"search as_of, again:     {_percentiles(_timed(lambda: search(moment), 50))}")
        print(f"list now:                {_percentiles(_timed(lambda: page(None), 30))}")
        print(f"list as_of:              {_percentiles(_timed(lambda: page(moment), 30))}")
        then = search(moment)
        print(
            f"as of {moment}: the moment recorded {then.as_of.recorded_at.isoformat()}, "
            f"{len(then.results)} results"
        )
    sys.stdout.flush()


if __name__ == "__main__":
    main()
