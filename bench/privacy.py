"""What keys and sealing cost: ingest throughput and search latency through the HTTP
API, with API keys and per-user encryption on, against both off, in one run.

Each round starts ``memstream up`` on a fresh data folder (embedded broker, the worker,
the API), in one of two modes, alternating (off, on, off, on, ...):

- off: no API keys (the API on loopback), ``MEMSTREAM_SEAL_EVENTS=false`` (records
  go to the journal, the log and the archive as plaintext);
- on: a write key of tenant ``bench`` sent with every request (each request
  authenticated, checked against the user's tenant and counted against the key's
  rates, set high enough never to refuse), and every record sealed under its user's
  data key before the journal, opened by the worker, kept sealed in the archive.

Then it measures (1) ingest: ``--messages`` messages for 8 users, published by 8
clients in batches of 100 through ``POST /v1/events``, from the first request until
every message is a row of ``memories`` (searchable), and (2) search: ``--queries``
searches over HTTP, one at a time, of one user's memories (an eighth of the messages),
client-side p50 and p99. The embedder and the lifecycle timer are off in both modes
(they are the same in both; what differs is the keys and the sealing).

Usage: python bench/privacy.py [--messages 40000] [--queries 300] [--rounds 2]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx

from memstream.settings import Settings
from memstream.storage.lance.tables import MEMORIES
from memstream.tenancy.keys import KeyStore
from memstream.testing import WorkerProcess, wait_until

USERS = 8
WORDS = ["river", "coffee", "piano", "garden", "train", "winter", "novel", "market"]


def documents(n: int, user_prefix: str) -> list[dict[str, object]]:
    start = datetime(2024, 5, 1, tzinfo=UTC)
    return [
        {
            "event_id": f"m{i}",
            "user_id": f"{user_prefix}u{i % USERS}",
            "session_id": f"s{i // 400}",
            "role": "user",
            "content": f"note {i}: the {WORDS[i % 8]} and the {WORDS[i // 8 % 8]}, day {i % 97}",
            "occurred_at": (start + timedelta(seconds=30 * i)).isoformat(),
        }
        for i in range(n)
    ]


async def publish(url: str, headers: dict[str, str], docs: list[dict[str, object]]) -> None:
    batches = [docs[i : i + 100] for i in range(0, len(docs), 100)]
    queue: asyncio.Queue[list[dict[str, object]]] = asyncio.Queue()
    for batch in batches:
        queue.put_nowait(batch)

    async def client() -> None:
        async with httpx.AsyncClient(base_url=url, headers=headers, timeout=60) as http:
            while not queue.empty():
                batch = queue.get_nowait()
                while True:
                    answer = await http.post("/v1/events", json=batch)
                    if answer.status_code == 202:
                        break
                    if answer.status_code in (429, 503):
                        await asyncio.sleep(float(answer.headers.get("Retry-After", "0.2")))
                        continue
                    raise RuntimeError(f"{answer.status_code}: {answer.text}")

    await asyncio.gather(*(client() for _ in range(8)))


def searches(url: str, headers: dict[str, str], user: str, queries: int) -> list[float]:
    took = []
    with httpx.Client(base_url=url, headers=headers, timeout=60) as http:
        for q in range(queries):
            body = {"user_id": user, "query": f"{WORDS[q % 8]} {WORDS[(q * 3) % 8]}", "k": 10}
            started = time.perf_counter()
            answer = http.post("/v1/search", json=body)
            took.append((time.perf_counter() - started) * 1000)
            assert answer.status_code == 200, answer.text
    return took


def one_round(on: bool, messages: int, queries: int) -> tuple[float, float, float, float]:
    with tempfile.TemporaryDirectory() as folder:
        data = Path(folder) / "data"
        headers: dict[str, str] = {}
        prefix = ""
        if on:
            token = KeyStore(data).create("bench", "write")[1]
            headers = {"Authorization": f"Bearer {token}"}
            prefix = "bench:"
        env = {
            "MEMSTREAM_SEAL_EVENTS": "true" if on else "false",
            "MEMSTREAM_LIFECYCLE_EVERY_SECONDS": "100000",
            "MEMSTREAM_EMBEDDER": "none",
            "MEMSTREAM_OPTIMIZE_EVERY_SECONDS": str(Settings().optimize_every_seconds),
            "MEMSTREAM_KEY_EVENTS_PER_SECOND": "1000000000",
            "MEMSTREAM_KEY_EVENTS_BURST": "1000000000",
            "MEMSTREAM_KEY_SEARCHES_PER_SECOND": "1000000000",
            "MEMSTREAM_KEY_SEARCHES_BURST": "1000000000",
        }
        worker = WorkerProcess(data, env=env, log_path=Path(folder) / "worker.log").start()
        try:
            worker.wait_serving(timeout=120)
            from memstream.storage.filesystems import resolve_location
            from memstream.storage.lance.store import ProjectionStore
            from memstream.storage.layout import DataLayout

            docs = documents(messages, prefix)
            started = time.perf_counter()
            asyncio.run(publish(worker.api_url, headers, docs))
            acked = time.perf_counter() - started
            layout = DataLayout(resolve_location(str(data)))
            store = ProjectionStore(wait_until(layout.existing_projections).uri)

            def all_there() -> bool:
                store.refresh()
                return bool(store.count(MEMORIES) >= messages)

            wait_until(all_there, timeout=600, interval=0.05)
            searchable = time.perf_counter() - started
            took = searches(worker.api_url, headers, f"{prefix}u0", queries)
            q = statistics.quantiles(took, n=100)
            return messages / acked, messages / searchable, q[49], q[98]
        finally:
            worker.stop(timeout=60)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--messages", type=int, default=40_000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    results: dict[bool, list[tuple[float, float, float, float]]] = {False: [], True: []}
    for _ in range(args.rounds):
        for on in (False, True):
            r = one_round(on, args.messages, args.queries)
            results[on].append(r)
            print(
                f"{'on ' if on else 'off'}: acknowledged {r[0]:,.0f} msg/s, searchable "
                f"{r[1]:,.0f} msg/s; search p50 {r[2]:.1f} ms, p99 {r[3]:.1f} ms",
                flush=True,
            )
    medians = {
        on: [statistics.median(r[i] for r in results[on]) for i in range(4)] for on in results
    }
    off, on = medians[False], medians[True]
    print(
        f"medians of {args.rounds} rounds: ingest (to searchable) off {off[1]:,.0f} msg/s, on "
        f"{on[1]:,.0f} msg/s ({(off[1] - on[1]) / off[1]:+.1%} slower); acknowledged off "
        f"{off[0]:,.0f}, on {on[0]:,.0f} msg/s; search p50 off {off[2]:.1f} ms, on "
        f"{on[2]:.1f} ms ({(on[2] - off[2]) / off[2]:+.1%}); p99 off {off[3]:.1f}, on "
        f"{on[3]:.1f} ms. Target: under 10% on both"
    )


if __name__ == "__main__":
    main()
