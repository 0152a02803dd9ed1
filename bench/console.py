"""The console's cost: server time per page for one user with 100,000 memories among
1,000,000, the health page of a deployment with 64 partitions, and whether a console
left open slows searches.

The corpus is bench/query.py's (synthetic sentences and random unit vectors, written
straight into the tables), with entities added for the big user: each memory names one
of nine people or places, and links the entity of it, so an entity page has 11,000 or
so memories behind it. The deployment is told it has 64 partitions, each with a
checkpoint and an owner row, as 64 would leave them. Then ``memstream serve`` runs on
the folder (no broker: the console's sampler finds none, and the health page shows the
last offsets known, none), and pages are asked for over loopback HTTP, one at a time;
p50 and p95 are of the client-measured round trip (the server's time plus about a
millisecond of loopback).

Pages timed: the timeline (its first page, and a page 1,000 memories deep through the
cursor), a memory, an entity, the playground against ``POST /v1/search`` and
``POST /v1/context`` of the same questions (the playground runs a traced search and a
context block, so its floor is their sum), the health page and its JSON.

Then searches are timed in four rounds of 1,000 with no console open, then 1,000 with
one open (a client asking for ``/console/health.json`` every 3 seconds, as the page
does, and the health page every 15): alternating, since the machine's speed drifts.
The server's sampler runs in both (every 15 seconds, as deployed).

Usage: python bench/console.py [--data DIR] [--total 1000000] [--user 100000] [--pages 200]
"""

from __future__ import annotations

import argparse
import random
import re
import statistics
import tempfile
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pyarrow as pa
from query import NAMES, QUESTIONS, corpus, served, vocabulary

from memstream.projections.entities import entity_id
from memstream.storage.filesystems import resolve_location
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.lance.tables import (
    CHECKPOINTS,
    ENTITIES,
    MEMORIES,
    PARTITION_OWNERS,
    VECTORS,
)
from memstream.storage.layout import DataLayout
from memstream.storage.schemas import (
    CHECKPOINTS_SCHEMA,
    ENTITIES_SCHEMA,
    PARTITION_OWNERS_SCHEMA,
)

PARTITIONS = 64
#: searches timed with and without a console open, in alternating rounds: enough for
#: ten seconds or more each, so that an open page polls a few times a round
WATCHED = 1000
ROUNDS = 4
PLACES = {"Lisbon", "Porto", "Kyoto"}


def _group(name: str) -> str:
    return "place" if name in PLACES else "person"


def build(data: Path, user: str, size: int, total: int) -> None:
    """The corpus, with the big user's entities linked, and 64 partitions' rows."""
    store = ProjectionStore(DataLayout(resolve_location(str(data))).projections().uri)
    started = time.perf_counter()
    mentions: dict[str, int] = {}
    for memories, vectors, _ in corpus({user: size}, total):
        if memories.column("user_id")[0].as_py() == user:
            named = [text.rsplit(" ", 1)[1] for text in memories.column("content").to_pylist()]
            for name in named:
                mentions[name] = mentions.get(name, 0) + 1
            ids = [[entity_id(user, _group(n), n.lower())] for n in named]
            column = memories.schema.get_field_index("entity_ids")
            memories = memories.set_column(
                column, "entity_ids", pa.array(ids, pa.list_(pa.string()))
            )
        store.append(MEMORIES, memories)
        store.append(VECTORS, vectors.cast(store.table(VECTORS).schema))
    first, last = datetime(2024, 1, 1, tzinfo=UTC), datetime(2024, 3, 1, tzinfo=UTC)
    entities = [
        {
            "entity_id": entity_id(user, _group(name), name.lower()),
            "user_id": user,
            "type": _group(name),
            "canonical_name": name,
            "key": name.lower(),
            "aliases": [name.lower()],
            "mention_count": count,
            "first_seen": first,
            "last_seen": last,
        }
        for name, count in mentions.items()
    ]
    store.append(ENTITIES, pa.Table.from_pylist(entities, schema=ENTITIES_SCHEMA))
    now = datetime.now(UTC)
    store.append(
        CHECKPOINTS,
        pa.Table.from_pylist(
            [
                {
                    "checkpoint_id": f"memstream|memory.messages|{p}",
                    "consumer": "memstream",
                    "topic": "memory.messages",
                    "partition": p,
                    "log_epoch": "bench",
                    "offset": 10_000 + p,
                    "updated_at": now,
                    "owner_epoch": 1,
                }
                for p in range(PARTITIONS)
            ],
            schema=CHECKPOINTS_SCHEMA,
        ),
    )
    store.append(
        PARTITION_OWNERS,
        pa.Table.from_pylist(
            [
                {
                    "owner_key": f"memstream|{p}",
                    "consumer": "memstream",
                    "partition": p,
                    "epoch": 1,
                    "owner": f"worker-{p % 4}",
                    "claimed_at": now,
                }
                for p in range(PARTITIONS)
            ],
            schema=PARTITION_OWNERS_SCHEMA,
        ),
    )
    store.upkeep.optimize(timedelta(seconds=0))
    print(
        f"built {store.count(MEMORIES):,} memories, {len(entities)} entities of {user} "
        f"in {time.perf_counter() - started:.0f} s",
        flush=True,
    )


def timed(http: httpx.Client, label: str, ask: list[tuple[str, str, dict | None]]) -> list[float]:
    """Ask each (method, path, body) once, one at a time; print p50 and p95 in ms."""
    took = []
    for method, path, body in ask:
        started = time.perf_counter()
        answer = http.request(method, path, json=body)
        took.append((time.perf_counter() - started) * 1000)
        assert answer.status_code == 200, (path, answer.status_code, answer.text[:300])
    q = statistics.quantiles(took, n=20) if len(took) > 1 else took * 19
    print(f"  {label:<44} p50 {statistics.median(took):7.1f} ms   p95 {q[18]:7.1f} ms", flush=True)
    return took


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", help="keep the corpus in this folder and reuse it next time")
    parser.add_argument("--total", type=int, default=1_000_000)
    parser.add_argument("--user", type=int, default=100_000, help="the big user's memories")
    parser.add_argument("--pages", type=int, default=200, help="asks per page")
    args = parser.parse_args()
    user = f"user{args.user}"
    rng = random.Random(3)
    words = vocabulary(random.Random(7))
    with tempfile.TemporaryDirectory(prefix="memstream-console-") as tmp:
        data = Path(args.data) if args.data else Path(tmp) / "data"
        if DataLayout(resolve_location(str(data))).existing_projections() is None:
            build(data, user, args.user, args.total)
        else:
            print(f"reusing the corpus in {data}", flush=True)
        env = {"MEMSTREAM_MESSAGES_PARTITIONS": str(PARTITIONS)}
        with (
            served(data, "serve", env) as url,
            httpx.Client(base_url=url, timeout=60, follow_redirects=True) as http,
        ):
            run(http, user, args.pages, rng, words)


def questions(rng: random.Random, words: list[str], count: int) -> list[str]:
    return [
        rng.choice(QUESTIONS).format(n=rng.choice(NAMES), w=rng.choice(words), v=rng.choice(words))
        for _ in range(count)
    ]


def run(http: httpx.Client, user: str, pages: int, rng: random.Random, words: list[str]) -> None:
    for _ in range(10):  # warm-up: the user into the read model, index pages
        http.post("/v1/search", json={"user_id": user, "query": "warm up"})
        http.get(f"/console/users/{user}")
    print(f"one user with {user[4:]} memories among the corpus, {pages} asks a page:", flush=True)
    first = http.get(f"/console/users/{user}").text
    memories = re.findall(rf'/console/users/{user}/memories/([^"?]+)"', first)
    deep = f"/console/users/{user}"
    for _ in range(20):  # 20 pages of 50 on: 1,000 memories deep
        cursor = re.search(r"cursor=([A-Za-z0-9_-]+)", http.get(deep).text)
        assert cursor is not None
        deep = f"/console/users/{user}?cursor={cursor.group(1)}"
    timed(
        http,
        "timeline, first page (50 memories)",
        [("GET", f"/console/users/{user}", None)] * pages,
    )
    timed(http, "timeline, 1,000 memories deep", [("GET", deep, None)] * pages)
    chosen = [rng.choice(memories) for _ in range(pages)]
    timed(http, "a memory", [("GET", f"/console/users/{user}/memories/{m}", None) for m in chosen])
    entity = entity_id(user, "person", "bob")
    timed(
        http,
        "an entity (about 11,000 memories)",
        [("GET", f"/console/users/{user}/entities/{entity}", None)] * max(pages // 4, 10),
    )
    asked = questions(rng, words, pages)
    search = timed(
        http,
        "POST /v1/search",
        [("POST", "/v1/search", {"user_id": user, "query": q}) for q in asked],
    )
    asked = questions(rng, words, pages)
    context = timed(
        http,
        "POST /v1/context",
        [("POST", "/v1/context", {"user_id": user, "query": q}) for q in asked],
    )
    asked = questions(rng, words, pages)
    playground = timed(
        http,
        "playground (traced search + context block)",
        [
            ("GET", f"/console/users/{user}/playground?q={httpx.QueryParams({'q': q})['q']}", None)
            for q in asked
        ],
    )
    ratio = statistics.median(playground) / statistics.median(search)
    floor = statistics.median(search) + statistics.median(context)
    print(f"  playground / search p50: {ratio:.2f}x (search + context p50: {floor:.1f} ms)")
    traced = [
        float(http.get(f"/console/users/{user}/playground", params={"q": q}).headers[
            "server-timing"].split("search;dur=")[1].split(",")[0])
        for q in questions(rng, words, pages)
    ]  # fmt: skip
    took = statistics.median(
        float(http.post("/v1/search", json={"user_id": user, "query": q}).json()["took_ms"])
        for q in questions(rng, words, pages)
    )
    print(
        f"  the playground's traced search (50 deep, every candidate scored), server p50: "
        f"{statistics.median(traced):.1f} ms against a search's {took:.1f} ms "
        f"({statistics.median(traced) / took:.2f}x)"
    )
    print(f"a deployment of {PARTITIONS} partitions, {user[4:]} memories for the user:", flush=True)
    timed(http, "health page", [("GET", "/console", None)] * max(pages // 4, 10))
    timed(
        http,
        "health.json (what an open page asks every 3 s)",
        [("GET", "/console/health.json", None)] * max(pages // 4, 10),
    )
    print(
        f"searches with and without a console open, {ROUNDS} rounds of {WATCHED} each, "
        "alternating:",
        flush=True,
    )
    changes = []
    for round_ in range(1, ROUNDS + 1):
        asked = questions(rng, words, WATCHED)
        without = timed(http, f"round {round_}: no console open", _searches(user, asked))
        with Watching(str(http.base_url)) as watching:
            asked = questions(rng, words, WATCHED)
            with_console = timed(http, f"round {round_}: a console open", _searches(user, asked))
        changes.append(statistics.median(with_console) / statistics.median(without) - 1)
        print(f"    p50 change: {changes[-1]:+.1%} ({watching.polls} polls meanwhile)")
    print(f"  median p50 change with the console open: {statistics.median(changes):+.1%}")


def _searches(user: str, asked: list[str]) -> list[tuple[str, str, dict | None]]:
    return [("POST", "/v1/search", {"user_id": user, "query": q}) for q in asked]


class Watching:
    """A console left open: the health page's JSON every 3 s, the page every 15 s."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.polls = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def __enter__(self) -> Watching:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _watch(self) -> None:
        with httpx.Client(base_url=self.url, timeout=60) as viewer:
            viewer.get("/console")
            while not self._stop.wait(3.0):
                viewer.get("/console/health.json")
                self.polls += 1
                if self.polls % 5 == 0:
                    viewer.get("/console")


if __name__ == "__main__":
    main()
