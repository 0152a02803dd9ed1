"""Search latency through the HTTP API at scale: one user with N memories among 1,000,000.

The scale corpus is synthetic and written straight into the projection tables (not
through Kafka: this measures queries, and the ingest benchmark measures ingest): each
memory is a sentence drawn from a 2,000-word vocabulary with a few names, and its
vector is a random unit vector (384 dimensions, the default embedder's), so the
vector retriever does its full work (prefiltered by user over the user's rows) but
its neighbours mean nothing. Then ``memstream serve`` runs on the folder (MiniLM
embeds each query for real) and questions are sent over loopback HTTP, one at a time;
p50/p95/p99 are of the client-measured round trip. Below each, the p50 of every stage
the search reports in its ``Server-Timing`` header (see ``Searcher.search``) and of the
time spent outside the search (HTTP, validation, JSON).

With ``--context`` each question is also asked as ``POST /v1/context`` (a block at the
default budget for the question's complexity) and its latency printed beside search's.

With ``--clients N``, N clients then search at once, back to back, for ``--seconds``
(asyncio, one process): searches answered per second, their p50/p99, how many
were refused with 429/503 and ``Retry-After`` (a refused client waits that long), and
how many got no answer at all (the connection broke), if any.

With ``--publish-rate R``, ``memstream up`` (embedded broker, worker with the MiniLM
embedder, its API) runs on the folder instead of ``memstream serve``, and while the
clients search, R messages a second are published through the broker (one in ten to the
user searched, the rest to 100 other users), applied and embedded beside the searches.
It prints the rate published and what still waited for the worker at the end.

With ``--alone-rows`` each memory has two vector rows, as a turn pooled with earlier
turns has (its own vector said alone beside it): what that costs a search.

Usage: python bench/query.py [--total 1000000] [--user-sizes 10000,100000] [--queries 300]
                             [--context] [--clients 50 --seconds 20] [--publish-rate 500]
                             [--alone-rows]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import pyarrow as pa

from memstream.storage.filesystems import resolve_location
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.lance.tables import MEMORIES, VECTORS
from memstream.storage.layout import DataLayout
from memstream.storage.schemas import MEMORIES_SCHEMA
from memstream.streams.lifeline import launched_to_die_with_us
from memstream.streams.publisher import Publisher
from memstream.testing import free_port, message, wait_until

NAMES = ["Alice", "Bob", "Maria", "Chen", "Priya", "Omar", "Lisbon", "Porto", "Kyoto"]
QUESTIONS = [
    "what did {n} say about the {w} and the {v}",
    "when did I last talk about {w}",
    "who mentioned the {w} project",
    "why was {n} worried about {w}",
    "{w} {v} plans",
]


def vocabulary(rng: random.Random) -> list[str]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    return ["".join(rng.choice(letters) for _ in range(rng.randint(3, 9))) for _ in range(2000)]


def corpus(user_sizes: dict[str, int], total: int, seed: int = 7, alone: bool = False):
    """Arrow batches of memories and vectors: the named users, then filler users; with
    ``alone``, each memory also has the row ``<id>+p0`` the embedder keeps of a turn said
    alone (:func:`memstream.jobs.embedding_agent.said_alone`): two vectors a memory."""
    rng = random.Random(seed)
    nprng = np.random.default_rng(seed)
    words = vocabulary(rng)
    owners: list[tuple[str, int]] = list(user_sizes.items())
    rest = total - sum(user_sizes.values())
    owners += [(f"filler{i}", 1000) for i in range(rest // 1000)]
    base = datetime(2024, 1, 1, tzinfo=UTC)
    for user, count in owners:
        for start in range(0, count, 50_000):
            n = min(50_000, count - start)
            texts = [
                " ".join(rng.choices(words, k=rng.randint(8, 20))) + f" with {rng.choice(NAMES)}"
                for _ in range(n)
            ]
            ids = [f"m-{user}-{start + i}" for i in range(n)]
            when = [base + timedelta(minutes=start + i) for i in range(n)]
            memories = pa.Table.from_pylist(
                [
                    {
                        "memory_id": ids[i],
                        "kind": "episode",
                        "user_id": user,
                        "session_id": f"s{(start + i) // 50}",
                        "role": "user",
                        "speaker": "User",
                        "content": texts[i],
                        "search_text": "User: " + texts[i],
                        "metadata": "{}",
                        "tags": [],
                        "entity_ids": [],
                        "importance": 0.5,
                        "confidence": 1.0,
                        "source_event_ids": [ids[i]],
                        "occurred_at": when[i],
                        "ingested_at": when[i],
                    }
                    for i in range(n)
                ],
                schema=MEMORIES_SCHEMA,
            )
            rows = [ids, [f"{i}+p0" for i in ids]] if alone else [ids]
            tables = []
            for row_ids in rows:
                raw = nprng.standard_normal((n, 384), dtype=np.float32)
                raw /= np.linalg.norm(raw, axis=1, keepdims=True)
                tables.append(
                    pa.table(
                        {
                            "memory_id": row_ids,
                            "user_id": [user] * n,
                            "project_id": pa.nulls(n, pa.string()),
                            "kind": ["episode"] * n,
                            "occurred_at": pa.array(when, pa.timestamp("us", "UTC")),
                            "model": ["all-MiniLM-L6-v2-onnx-int8"] * n,
                            "source_event_id": ids,
                            "vector": pa.FixedSizeListArray.from_arrays(pa.array(raw.ravel()), 384),
                        }
                    )
                )
            yield memories, pa.concat_tables(tables), words


def build(data: Path, user_sizes: dict[str, int], total: int, alone: bool = False) -> list[str]:
    uri = DataLayout(resolve_location(str(data))).projections().uri
    store = ProjectionStore(uri)
    started = time.perf_counter()
    words: list[str] = []
    for memories, vectors, vocab in corpus(user_sizes, total, alone=alone):
        words = vocab
        store.append(MEMORIES, memories)
        store.append(VECTORS, vectors.cast(store.table(VECTORS).schema))
    store.upkeep.optimize(timedelta(seconds=0))
    print(
        f"built {store.count(MEMORIES):,} memories and {store.count(VECTORS):,} vectors "
        f"in {time.perf_counter() - started:.0f} s",
        flush=True,
    )
    return words


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--total", type=int, default=1_000_000)
    parser.add_argument("--user-sizes", default="10000,100000")
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--data", help="keep the corpus in this folder and reuse it next time")
    parser.add_argument("--context", action="store_true", help="also time POST /v1/context")
    parser.add_argument(
        "--clients", type=int, default=0, help="then this many clients at once, each user"
    )
    parser.add_argument("--seconds", type=float, default=20, help="how long --clients runs")
    parser.add_argument(
        "--alone-rows", action="store_true", help="each memory a second vector row (+p0)"
    )
    parser.add_argument(
        "--publish-rate", type=float, default=0, help="messages/s published while --clients run"
    )
    args = parser.parse_args()
    sizes = {f"user{n}": n for n in map(int, args.user_sizes.split(","))}
    rng = random.Random(1)
    with tempfile.TemporaryDirectory(prefix="memstream-query-") as tmp:
        data = Path(args.data) if args.data else Path(tmp) / "data"
        if DataLayout(resolve_location(str(data))).existing_projections() is None:
            words = build(data, sizes, args.total, alone=args.alone_rows)
        else:
            words = vocabulary(random.Random(7))
            print(f"reusing the corpus in {data}", flush=True)
        broker_port = free_port()
        env: dict[str, str] = {}
        command = "serve"  # the API alone; no broker (searches report access in the background)
        if args.publish_rate:  # the whole of memstream: broker, worker, embedder, API
            env["MEMSTREAM_BROKER_PORT"] = str(broker_port)
            command = "up"
        bootstrap = f"127.0.0.1:{broker_port}" if args.publish_rate else None
        with served(data, command, env) as url, httpx.Client(base_url=url, timeout=30) as http:
            for user, size in sizes.items():
                for _ in range(20):  # warm-up: caches, index pages
                    http.post("/v1/search", json={"user_id": user, "query": "warm up"})

                def questions(count: int = args.queries) -> list[str]:  # fresh: not cached
                    return [
                        rng.choice(QUESTIONS).format(
                            n=rng.choice(NAMES), w=rng.choice(words), v=rng.choice(words)
                        )
                        for _ in range(count)
                    ]

                label = f"{size:>7,} memories for the user, {args.total:,} in all"
                if args.queries:
                    timed(http, "/v1/search", "results", user, questions(), label)
                if args.context:
                    # the synthetic memories are random sentences with random vectors:
                    # nothing bears on a question, and the cut-off would leave every
                    # block empty; the block is timed holding what the search found
                    timed(
                        http, "/v1/context", "context", user, questions(), "context block",
                        {"cutoff": False},
                    )  # fmt: skip
                if args.clients:
                    publishing = None
                    if bootstrap is not None:
                        publishing = Publishing(bootstrap, args.publish_rate, user, words)
                    asyncio.run(
                        at_once(
                            url,
                            user,
                            questions(5000),
                            args.clients,
                            args.seconds,
                            label,
                            publishing,
                        )
                    )
                    if publishing is not None:
                        lag = http.get("/v1/stats").json()
                        print(
                            f"  published {publishing.sent:,} messages in "
                            f"{args.seconds:.0f} s ({publishing.sent / args.seconds:.0f}/s); "
                            f"at the end, {lag['lag']} not yet applied and "
                            f"{lag['embedding_lag']} waiting for a vector",
                            flush=True,
                        )


def timed(
    http: httpx.Client,
    path: str,
    answer_field: str,
    user: str,
    queries: list[str],
    label: str,
    options: dict[str, Any] | None = None,
) -> None:
    """Ask ``queries`` one at a time (with ``options`` in each request) and print the
    latencies; each answer must be 200 with something in ``answer_field``."""
    wall, took = [], []
    stages: dict[str, list[float]] = {}
    for query in queries:
        t0 = time.perf_counter()
        answer = http.post(path, json={"user_id": user, "query": query, **(options or {})})
        wall.append((time.perf_counter() - t0) * 1000)
        assert answer.status_code == 200 and answer.json()[answer_field], answer.text
        took.append(answer.json()["took_ms"])
        for name, ms in server_timing(answer.headers.get("server-timing", "")).items():
            stages.setdefault(name, []).append(ms)
    q = statistics.quantiles(wall, n=100)
    print(
        f"{label}: p50 {statistics.median(wall):.1f} ms, p95 {q[94]:.1f} ms, "
        f"p99 {q[98]:.1f} ms (server p50 {statistics.median(took):.1f} ms)",
        flush=True,
    )
    if stages:  # the search's own breakdown (retrievers overlap, and look-ups do)
        outside = statistics.median(w - t for w, t in zip(wall, stages["total"], strict=True))
        parts = ", ".join(f"{n} {statistics.median(v):.1f}" for n, v in stages.items())
        print(f"  where it went, p50 ms: {parts}; outside the search {outside:.1f}", flush=True)


class Publishing:
    """Messages published at ``rate`` a second through the broker while searches run:
    one in ten to ``user``, the others to 100 other users."""

    def __init__(self, bootstrap: str, rate: float, user: str, words: list[str]) -> None:
        self.bootstrap, self.rate, self.user, self.words = bootstrap, rate, user, words
        self.sent = 0

    async def run(self, seconds: float) -> None:
        rng = random.Random(3)
        run = os.urandom(4).hex()  # new event ids each run: a reused folder stores them too
        step = max(1, round(self.rate / 10))  # ten sends a second
        async with Publisher(self.bootstrap) as publisher:
            started = time.perf_counter()
            while time.perf_counter() - started < seconds:
                batch = [
                    message(
                        event_id=f"live-{run}-{self.sent + i}",
                        user_id=self.user if rng.random() < 0.1 else f"pub{rng.randrange(100)}",
                        session_id="live",  # one conversation at a time per user
                        content=" ".join(rng.choices(self.words, k=rng.randint(8, 20))),
                    )
                    for i in range(step)
                ]
                await publisher.publish(batch)
                self.sent += len(batch)
                delay = started + self.sent / self.rate - time.perf_counter()
                if delay > 0:
                    await asyncio.sleep(delay)


async def at_once(
    url: str,
    user: str,
    queries: list[str],
    clients: int,
    seconds: float,
    label: str,
    publishing: Publishing | None = None,
) -> None:
    """``clients`` clients searching back to back for ``seconds`` (while ``publishing``
    publishes): throughput, latency of the answered searches, and how many were refused
    (429/503, with ``Retry-After``)."""
    answered: list[float] = []
    refused: dict[int, int] = {}
    failed: dict[str, int] = {}  # the connection broke: no answer at all
    deadline = time.perf_counter() + seconds
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(base_url=url, timeout=60, limits=limits) as http:

        async def client(n: int) -> None:
            i = n
            while time.perf_counter() < deadline:
                query = queries[i % len(queries)]
                i += clients
                t0 = time.perf_counter()
                try:
                    answer = await http.post("/v1/search", json={"user_id": user, "query": query})
                except httpx.TransportError as error:  # counted and shown, not hidden
                    failed[type(error).__name__] = failed.get(type(error).__name__, 0) + 1
                    continue
                if answer.status_code == 200:
                    answered.append((time.perf_counter() - t0) * 1000)
                else:
                    assert answer.status_code in (429, 503), answer.text
                    assert answer.headers.get("retry-after"), answer.headers
                    refused[answer.status_code] = refused.get(answer.status_code, 0) + 1
                    await asyncio.sleep(float(answer.headers["retry-after"]))

        started = time.perf_counter()
        background = [] if publishing is None else [publishing.run(seconds)]
        await asyncio.gather(*(client(n) for n in range(clients)), *background)
        took = time.perf_counter() - started
    q = statistics.quantiles(answered, n=100)
    print(
        f"{label}, {clients} clients at once for {seconds:.0f} s: "
        f"{len(answered) / took:.0f} searches/s answered, p50 {statistics.median(answered):.0f} "
        f"ms, p99 {q[98]:.0f} ms; refused {sum(refused.values())} {refused or ''}"
        + (f"; no answer (connection broken) {sum(failed.values())} {failed}" if failed else ""),
        flush=True,
    )


@contextmanager
def served(
    data: Path, command: str = "serve", env: dict[str, str] | None = None, port: int = 0
) -> Iterator[str]:
    """``memstream serve`` (or ``up``) of ``data`` on ``port`` (a free one when 0), made
    to die with this process; its URL once ``/healthz`` answers, stopped after the block.
    ``serve`` runs without a broker unless ``env`` names one."""
    port = port or free_port()
    environment = {**os.environ, "MEMSTREAM_API_PORT": str(port), **(env or {})}
    if command == "serve":
        environment.setdefault("MEMSTREAM_KAFKA", "127.0.0.1:1")  # the API alone
    launch = launched_to_die_with_us(
        [sys.executable, "-m", "memstream", command, "--data", str(data)]
    )
    server = subprocess.Popen(
        launch.command,
        env=environment,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        preexec_fn=launch.preexec_fn,
    )
    url = f"http://127.0.0.1:{port}"

    def answers() -> bool:
        if server.poll() is not None:
            raise SystemExit(f"memstream {command} of {data} exited ({server.returncode})")
        try:
            return httpx.get(f"{url}/healthz", timeout=1).status_code == 200
        except httpx.HTTPError:
            return False

    try:
        wait_until(answers, timeout=120)
        yield url
    finally:
        server.terminate()
        server.wait(60)


def server_timing(header: str) -> dict[str, float]:
    """``{name: ms}`` of a ``Server-Timing`` header."""
    found = {}
    for part in header.split(","):
        name, _, duration = part.strip().partition(";dur=")
        if name and duration:
            found[name] = float(duration)
    return found


if __name__ == "__main__":
    main()
