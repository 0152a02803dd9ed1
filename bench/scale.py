"""Scale-out figures: ingest with 1 and 2 workers pinned to cores, replay from the
archive with 1 and 2 writer processes, the embedding lane with 1 and 2 ``memstream
embed`` processes, a partition's move after a SIGKILL, and LanceDB commits with 1-4
concurrent writers on S3 (moto).

    python bench/scale.py [--messages 20000] [--users 200] [--only ingest|embed|move|commits]

Everything runs as separate processes on this machine, as a deployment runs them: a
``memstream broker``, ``memstream worker --no-embed`` processes, ``memstream embed``
processes, data on a local folder (the commit figures: moto's S3 server). Background
lanes: each worker runs its lifecycle timer and upkeep (as deployed); no embedder runs
beside the ingest figures and no worker beside the embedding figures; the replays run
alone.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from memstream.events.codec import from_document
from memstream.events.vocabulary import MessageEvent
from memstream.storage.filesystems import resolve_location
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.lance.tables import ENTITIES, MEMORIES
from memstream.storage.layout import DataLayout
from memstream.streams.broker import is_listening
from memstream.streams.partitioning import partition_of
from memstream.streams.publisher import Publisher
from memstream.streams.topics import EMBEDDINGS, end_offsets
from memstream.testing import free_port, wait_until

PARTITIONS = 8


def _events(users: int, count: int, tag: str) -> list[MessageEvent]:
    start = datetime(2026, 3, 2, 9, tzinfo=UTC)
    out = []
    for n in range(count):
        user = n % users
        document = {
            "event_id": f"{tag}-{n}",
            "user_id": f"acme:user-{user}",
            "session_id": "s1",
            "role": "user",
            "speaker": f"Person{user}",
            "content": f"Person{user} met Friend{n % 7} in Lisbon about topic {n}.",
            "occurred_at": (start + timedelta(seconds=n)).isoformat(),
        }
        event = from_document(document)
        assert isinstance(event, MessageEvent)
        out.append(event)
    return out


class Topology:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.data = root / "data"
        self.port = free_port()
        self.bootstrap = f"127.0.0.1:{self.port}"
        self.processes: list[subprocess.Popen[bytes]] = []

    def env(self, name: str) -> dict[str, str]:
        return {
            **os.environ,
            "MEMSTREAM_STATE_DIR": str(self.root / f"state-{name}"),
            "MEMSTREAM_MESSAGES_PARTITIONS": str(PARTITIONS),
            "MEMSTREAM_EMBEDDER": "none",
        }

    def spawn(
        self,
        name: str,
        args: list[str],
        cpus: set[int] | None = None,
        env: dict[str, str] | None = None,
    ) -> Any:
        command = [sys.executable, "-m", "memstream", *args, "--data", str(self.data)]
        if cpus:  # pinned (taskset: no Python runs between fork and exec)
            command = ["taskset", "-c", ",".join(map(str, sorted(cpus))), *command]
        log = open(self.root / f"{name}.log", "ab")  # noqa: SIM115 (the process's)
        process = subprocess.Popen(
            command,
            stdout=log,
            stderr=subprocess.STDOUT,
            env={**self.env(name), **(env or {})},
            start_new_session=True,
        )
        self.processes.append(process)
        return process

    def broker(self) -> None:
        self.spawn("broker", ["broker", "--port", str(self.port)], cpus={0, 1})
        wait_until(lambda: is_listening("127.0.0.1", self.port), timeout=30)

    def start_empty(self) -> None:
        """The broker, and a first worker that creates the topics and the store, then
        stops: what a measurement starts from."""
        self.broker()
        creator = self.worker("w0", {0})
        creator.send_signal(signal.SIGINT)
        creator.wait(60)

    def worker(self, name: str, cpus: set[int]) -> Any:
        process = self.spawn(name, ["worker", "--no-embed", "--kafka", self.bootstrap], cpus)
        log = self.root / f"{name}.log"
        wait_until(lambda: "writing partitions" in log.read_text(errors="replace"), 120)
        return process

    def close(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                process.send_signal(signal.SIGINT)
        for process in self.processes:
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                process.kill()


def _episodes(data: Path) -> int:
    store = ProjectionStore.at(DataLayout(resolve_location(str(data))).projections())
    return store.count(MEMORIES, "kind = 'episode'")


def _publish(bootstrap: str, events: list[MessageEvent]) -> None:
    async def send() -> None:
        async with Publisher(bootstrap) as publisher:
            for start in range(0, len(events), 1000):
                await publisher.publish(events[start : start + 1000])

    asyncio.run(send())


def ingest(workers: int, messages: int, users: int, replays: tuple[int, ...] = ()) -> float:
    """Messages/s applied by ``workers`` workers, each pinned to its own core, from a
    log that already holds ``messages`` (so the figure is the workers', not the
    publisher's). Then, for each of ``replays``, the data folder replayed from its
    event archive by that many writer processes (printed)."""
    root = Path(tempfile.mkdtemp(prefix="scale-"))
    topology = Topology(root)
    try:
        rate = _ingest(topology, workers, messages, users)
        topology.close()  # nothing runs beside the replays
        for writers in replays:
            print(
                f"replay from the archive, {writers} writer process(es): "
                + _replay(topology, writers)
            )
        return rate
    finally:
        topology.close()
        shutil.rmtree(root, ignore_errors=True)


def _replay(topology: Topology, writers: int) -> str:
    into = topology.root / f"replayed-{writers}"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "memstream",
            "replay",
            "--source",
            "archive",
            "--into",
            str(into),
            "--writers",
            str(writers),
            "--data",
            str(topology.data),
        ],
        capture_output=True,
        text=True,
        env=topology.env("replay"),
        timeout=900,
    )
    if done.returncode != 0:
        return f"failed: {done.stderr.strip()[-400:]}"
    return done.stdout.strip().split(" into ")[0]


def _ingest(topology: Topology, workers: int, messages: int, users: int) -> float:
    topology.start_empty()
    _publish(topology.bootstrap, _events(users, messages, "m"))
    for i in range(workers):
        topology.spawn(f"w{i + 1}", ["worker", "--no-embed", "--kafka", topology.bootstrap], {i})
    # Timed from the first tenth applied to the last, so the figure leaves out the
    # processes' start and the group's first rebalance.
    first = messages // 10
    wait_until(lambda: _episodes(topology.data) >= first, timeout=900, interval=0.2)
    started = time.perf_counter()
    wait_until(lambda: _episodes(topology.data) >= messages, timeout=900, interval=0.2)
    return (messages - first) / (time.perf_counter() - started)


def latency(workers: int, rate: int, seconds: int, users: int) -> tuple[float, float, float]:
    """Publish-to-searchable at a fixed ``rate`` (messages/s, for ``seconds``) with
    ``workers`` workers (pinned round robin to the cores): answers p50 and p99 in
    seconds and the rate applied. A message counts as searchable when the episodes in
    the tables first number as many as had been published up to it (one reader counts
    them every 50 ms): partitions apply side by side, so this is the lag of the log
    as a whole rather than of each message."""
    root = Path(tempfile.mkdtemp(prefix="scale-"))
    topology = Topology(root)
    try:
        topology.start_empty()
        names = [f"w{i + 1}" for i in range(workers)]
        for i, name in enumerate(names):
            topology.spawn(name, ["worker", "--no-embed", "--kafka", topology.bootstrap], {i % 2})
        wait_until(
            lambda: all(
                "writing partitions" in (root / f"{n}.log").read_text(errors="replace")
                for n in names
            ),
            120,
        )
        time.sleep(8)  # the group's last rebalance settles
        counts: list[tuple[float, int]] = []
        done = threading.Event()
        store = ProjectionStore.at(DataLayout(resolve_location(str(topology.data))).projections())

        def count() -> None:
            while not done.is_set():
                store.refresh([MEMORIES])
                counts.append((time.perf_counter(), store.count(MEMORIES, "kind = 'episode'")))
                time.sleep(0.05)

        reader = threading.Thread(target=count, daemon=True)
        reader.start()
        events = _events(users, rate * seconds, "l")
        step = max(1, rate // 10)
        acked: list[float] = []

        async def send() -> None:
            async with Publisher(topology.bootstrap) as publisher:
                started = time.perf_counter()
                for n, start in enumerate(range(0, len(events), step)):
                    await asyncio.sleep(max(0.0, started + n * step / rate - time.perf_counter()))
                    batch = events[start : start + step]
                    await publisher.publish(batch)
                    acked.extend([time.perf_counter()] * len(batch))

        asyncio.run(send())
        wait_until(lambda: counts and counts[-1][1] >= len(events), timeout=300, interval=0.2)
        done.set()
        reader.join()
        waits, at = [], 0
        for i, published in enumerate(acked, start=1):
            while counts[at][1] < i:
                at += 1
            waits.append(max(0.0, counts[at][0] - published))
        waits.sort()
        applied = len(events) / (counts[at][0] - acked[0])
        return waits[len(waits) // 2], waits[int(len(waits) * 0.99)], applied
    finally:
        topology.close()
        shutil.rmtree(root, ignore_errors=True)


def embedding(processes: int, messages: int, users: int) -> float:
    """Messages/s embedded by ``processes`` ``memstream embed`` processes (the MiniLM
    model), each pinned to its own core, from a log that already holds ``messages``:
    counted as EmbeddingComputed records on the log, timed from the first tenth to the
    last. No worker runs meanwhile, so the embedders find no earlier turns in the
    projections (each turn is embedded with its own text only)."""
    root = Path(tempfile.mkdtemp(prefix="scale-"))
    topology = Topology(root)
    try:
        topology.start_empty()
        _publish(topology.bootstrap, _events(users, messages, "e"))
        for i in range(processes):
            topology.spawn(
                f"e{i}",
                ["embed", "--kafka", topology.bootstrap],
                {i},
                env={"MEMSTREAM_EMBEDDER": "minilm"},
            )

        def embedded() -> int:
            ends = asyncio.run(end_offsets(topology.bootstrap, EMBEDDINGS))
            return sum(ends.values())

        tenth = messages // 10
        wait_until(lambda: embedded() >= tenth, timeout=900, interval=0.5)
        started, at_start = time.perf_counter(), embedded()
        wait_until(lambda: embedded() >= messages, timeout=900, interval=0.5)
        return (messages - at_start) / (time.perf_counter() - started)
    finally:
        topology.close()
        shutil.rmtree(root, ignore_errors=True)


def partition_move(users: int) -> float:
    """Seconds from SIGKILLing the worker that owns a user's partition until a message
    of that user, published right after the kill, is an episode (applied by the other
    worker)."""
    root = Path(tempfile.mkdtemp(prefix="scale-"))
    topology = Topology(root)
    try:
        topology.broker()
        a = topology.worker("a", {0})
        topology.worker("b", {1})
        time.sleep(5)  # both in the group
        log_a = (root / "a.log").read_text()
        owned = {int(p) for p in log_a.split("writing partitions [")[-1].split("]")[0].split(",")}
        user = next(u for u in range(10_000) if partition_of(f"acme:user-{u}", PARTITIONS) in owned)
        probe = _events(users, 1, "probe")[0].model_copy(update={"user_id": f"acme:user-{user}"})
        a.send_signal(signal.SIGKILL)
        killed = time.perf_counter()
        _publish(topology.bootstrap, [probe])
        wait_until(lambda: _episodes(topology.data) >= 1, timeout=120, interval=0.1)
        return time.perf_counter() - killed
    finally:
        topology.close()
        shutil.rmtree(root, ignore_errors=True)


def _writer(uri: str, options: dict[str, str], me: int, seconds: float, out: Any) -> None:
    store = ProjectionStore(uri, storage_options=options)
    commits = 0
    deadline = time.perf_counter() + seconds
    n = 0
    while time.perf_counter() < deadline:
        rows = []
        for i in range(50):
            n += 1
            rows.append(
                {
                    "entity_id": f"w{me}|{n % 500}",
                    "user_id": f"u{me}",
                    "type": "person",
                    "canonical_name": "x",
                    "key": "x",
                    "mention_count": n,
                }
            )
            del i
        store.upsert(ENTITIES, rows)
        commits += 1
    out.put((commits, store.conflicts_retried))


def commits_on_s3(writers: int, seconds: float = 15.0) -> tuple[float, int]:
    """Commits/s of ``writers`` processes upserting into one table on moto's S3, and
    how many writes were retried after losing commit races beyond LanceDB's own."""
    from moto.server import ThreadedMotoServer
    from pyarrow import fs as pafs

    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    os.environ.update(AWS_ACCESS_KEY_ID="testing", AWS_SECRET_ACCESS_KEY="testing")
    try:
        pafs.S3FileSystem(
            endpoint_override=f"127.0.0.1:{port}",
            scheme="http",
            region="us-east-1",
            allow_bucket_creation=True,
        ).create_dir("bench")
        options = {
            "endpoint": f"http://127.0.0.1:{port}",
            "region": "us-east-1",
            "allow_http": "true",
            "aws_access_key_id": "testing",
            "aws_secret_access_key": "testing",
        }
        uri = "s3://bench/tables"
        ProjectionStore(uri, storage_options=options)
        context = multiprocessing.get_context("spawn")
        out = context.Queue()
        processes = [
            context.Process(target=_writer, args=(uri, options, i, seconds, out))
            for i in range(writers)
        ]
        for p in processes:
            p.start()
        results = [out.get() for _ in processes]
        for p in processes:
            p.join()
        return sum(c for c, _ in results) / seconds, sum(r for _, r in results)
    finally:
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--messages", type=int, default=20_000)
    parser.add_argument("--users", type=int, default=200)
    parser.add_argument("--embed-messages", type=int, default=3_000)
    parser.add_argument(
        "--only", choices=("ingest", "latency", "embed", "move", "commits"), action="append"
    )
    parser.add_argument("--rate", type=int, default=1_000, help="latency: messages/s")
    args = parser.parse_args()
    parts = set(args.only or ("ingest", "latency", "embed", "move", "commits"))
    print(f"cores: {os.cpu_count()}; {args.messages} messages of {args.users} users")
    if "ingest" in parts:
        one = ingest(1, args.messages, args.users, replays=(1, 2))
        print(f"ingest, 1 worker on 1 core:  {one:,.0f} messages/s")
        two = ingest(2, args.messages, args.users)
        print(
            f"ingest, 2 workers on 2 cores: {two:,.0f} messages/s "
            f"(scaling efficiency {two / (2 * one):.2f})"
        )
    if "latency" in parts:
        for workers in (1, 2, 3):
            p50, p99, applied = latency(workers, args.rate, 20, args.users)
            print(
                f"publish -> searchable at {args.rate:,} messages/s, {workers} worker(s): "
                f"p50 {p50 * 1000:.0f} ms, p99 {p99 * 1000:.0f} ms ({applied:,.0f}/s applied)"
            )
    if "embed" in parts:
        alone = embedding(1, args.embed_messages, args.users)
        print(f"embedding, 1 embed process on 1 core:  {alone:,.1f} messages/s")
        pair = embedding(2, args.embed_messages, args.users)
        print(
            f"embedding, 2 embed processes on 2 cores: {pair:,.1f} messages/s "
            f"({pair / alone:.2f}x one)"
        )
    if "move" in parts:
        moves = [partition_move(args.users) for _ in range(3)]
        print(
            "partition move after SIGKILL (kill -> applied by the other worker): "
            + ", ".join(f"{m:.1f} s" for m in moves)
        )
    if "commits" in parts:
        for writers in (1, 2, 3, 4):
            rate, retried = commits_on_s3(writers)
            print(
                f"LanceDB on moto S3, {writers} writer(s) upserting one table: "
                f"{rate:.1f} commits/s, {retried} writes retried after lost races"
            )


if __name__ == "__main__":
    main()
