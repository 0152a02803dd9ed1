"""Ingest benchmark: publish -> broker -> worker -> searchable, and replay speed.

Runs ``memstream up`` (embedded Tansu broker + faust worker) as a child process on a
fresh data folder, then measures, on this machine:

1. sustained throughput: N messages published as fast as the producer goes; the time
   from the first send until all N rows are in the ``memories`` table (full-text search
   covers rows not yet folded into the index, so in the table means searchable; a
   sample is checked with real searches at the end);
2. publish-to-searchable latency at a fixed rate (default 1,000 messages/s): the
   poller records when each message's row first appears; p50/p95/p99/max;
3. replay: rebuilding the projections from the Parquet event archive and from Kafka.

``--acks`` measures what a client waits for: publish-to-acknowledged latency and
throughput, through the HTTP API (one event per request, one client; then batches of
100 from 8 clients at once) and through the Python publisher the CLI uses (one event per
call; then batches of 1,000), with the intake journal off (the broker's acknowledgement
alone, as before the journal existed) and on (fsync'd to the journal first, the
default with the embedded broker). The embedder and the lifecycle timer are stopped for
it.

``--compare-lifecycle N`` measures only (1), N times with the lifecycle timer off and N
times with it on (alternating, a fresh worker each time), prints each run and the
medians, and for the runs with it on how long after the last message was searchable
every closed session was consolidated. (The data has 25,000 two-turn sessions per
50,000 messages, 100 users: all but each user's last session close at once.)

By default the worker's background lanes (the embedder, the lifecycle timer) run beside
the measurement, as in a deployment; ``--lanes-stopped`` switches them off, so what is
measured is ingest alone.

Usage: python bench/ingest.py [--messages 100000] [--rate 1000] [--seconds 20] [--lanes-stopped]
       python bench/ingest.py --messages 50000 --compare-lifecycle 3
       python bench/ingest.py --acks [--messages 50000]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

from memstream.queries.search.searcher import SearchRequest, search
from memstream.settings import Settings
from memstream.storage.archive.event_archive import EventArchive
from memstream.storage.filesystems import resolve_location
from memstream.storage.lance.key_checks import address_after, end_address
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.lance.tables import MEMORIES, SESSIONS
from memstream.storage.layout import DataLayout
from memstream.streams.publisher import Publisher
from memstream.testing import WorkerProcess, message, wait_until


def open_store(data: Path) -> ProjectionStore:
    uri = wait_until(lambda: DataLayout(resolve_location(str(data))).existing_projections()).uri
    return ProjectionStore(uri, read_consistency_interval=timedelta(0))


def events(n: int, tag: str, users: int = 100) -> list:
    return [
        message(
            event_id=f"{tag}-{i}",
            user_id=f"u{i % users}",
            session_id=f"s{i // 200}",
            content=f"benchmark note {tag}x{i} about the river, coffee and piano {i % 97}",
        )
        for i in range(n)
    ]


async def publish_all(bootstrap: str, batch: list) -> float:
    async with Publisher(bootstrap) as publisher:
        started = time.perf_counter()
        for start in range(0, len(batch), 5000):
            await publisher.publish(batch[start : start + 5000])
        return time.perf_counter() - started


def throughput(worker: WorkerProcess, store: ProjectionStore, n: int) -> float:
    batch = events(n, "t")
    base = store.count(MEMORIES)
    started = time.perf_counter()
    publish_seconds = asyncio.run(publish_all(worker.bootstrap, batch))

    def all_in() -> bool:
        worker.check_alive()
        return store.count(MEMORIES) >= base + n

    wait_until(all_in, timeout=600, interval=0.05)
    total = time.perf_counter() - started
    print(
        f"throughput: {n:,} messages published in {publish_seconds:.2f} s "
        f"({n / publish_seconds:,.0f}/s); all searchable after {total:.2f} s "
        f"=> {n / total:,.0f} messages/s sustained publish-to-searchable"
    )
    return n / total


def consolidated_after(worker: WorkerProcess, store: ProjectionStore, n: int) -> float:
    """Seconds until every session the data closes is consolidated."""
    started = time.perf_counter()
    sessions = len({(e.user_id, e.session_id) for e in events(n, "t")})
    closable = sessions - 100  # each user's last session stays open

    def done() -> bool:
        worker.check_alive()
        return store.count(SESSIONS, "consolidated_through IS NOT NULL") >= closable

    wait_until(done, timeout=1800, interval=0.5)
    return time.perf_counter() - started


def compare_lifecycle(n: int, rounds: int) -> None:
    rates: dict[str, list[float]] = {"off": [], "on": []}
    for _ in range(rounds):
        for mode in ("off", "on"):
            env = {"MEMSTREAM_LIFECYCLE_EVERY_SECONDS": "1000000"} if mode == "off" else {}
            with tempfile.TemporaryDirectory() as folder:
                worker = WorkerProcess(Path(folder) / "data", env=env).start()
                try:
                    worker.wait_ready(timeout=60)
                    store = open_store(Path(folder) / "data")
                    print(f"lifecycle {mode}: ", end="", flush=True)
                    rates[mode].append(throughput(worker, store, n))
                    if mode == "on":
                        after = consolidated_after(worker, store, n)
                        print(f"  every closed session consolidated {after:.1f} s later")
                finally:
                    worker.stop()
    off, on = statistics.median(rates["off"]), statistics.median(rates["on"])
    print(
        f"median over {rounds} runs: lifecycle off {off:,.0f}/s, on {on:,.0f}/s "
        f"({(on - off) / off:+.1%})"
    )


async def paced(
    bootstrap: str, rate: int, seconds: float, sent: dict[str, float], probe: str = "lat"
) -> None:
    """Publish ``rate`` messages/s for ``seconds``, their ids ``{probe}-N`` (a run of its
    own ``probe`` per measurement, so no run sees another's messages)."""
    tick = 0.01
    per_tick = max(1, round(rate * tick))
    pending: list[asyncio.Task[list[str]]] = []
    async with Publisher(bootstrap) as publisher:
        started = time.perf_counter()
        i = 0
        while time.perf_counter() - started < seconds:
            due = started + (i // per_tick) * tick
            await asyncio.sleep(max(0.0, due - time.perf_counter()))
            chunk = [
                message(
                    event_id=f"{probe}-{i + j}",
                    user_id=f"u{(i + j) % 100}",
                    content=f"latency probe lat{i + j}",
                )
                for j in range(per_tick)
            ]
            now = time.perf_counter()
            for e in chunk:
                sent[e.event_id] = now
            pending.append(asyncio.create_task(publisher.publish(chunk)))
            i += per_tick
        await asyncio.gather(*pending)


def latency(
    worker: WorkerProcess, store: ProjectionStore, rate: int, seconds: float, probe: str = "lat"
) -> tuple[float, float, float]:
    """Publish ``rate`` messages/s for ``seconds`` and print each one's publish-to-
    searchable latency; answers its p50 and p99 (ms) and the share seen within 30 s of
    the end. The poller reads only the fragments written since its last look (every
    write adds fragments; a compaction's rewrite is read once more, and its rows were
    seen before), so its cost does not grow with the table."""
    sent: dict[str, float] = {}
    seen: dict[str, float] = {}
    table = store.table(MEMORIES)
    table.checkout_latest()
    since = [end_address(table)]

    async def poll(stop: asyncio.Event) -> None:
        while not stop.is_set() or len(seen) < len(sent):
            await asyncio.sleep(0.02)
            query = (
                table.search()
                .where(f"_rowaddr >= {since[0]}")
                .select(["source_event_ids", "_rowaddr"])
                .limit(None)
            )
            rows = await asyncio.to_thread(query.to_arrow)
            now = time.perf_counter()
            since[0] = max(since[0], address_after(rows.column("_rowaddr")))
            for ids in rows.column("source_event_ids").to_pylist():
                if ids and ids[0].startswith(f"{probe}-") and ids[0] not in seen:
                    seen[ids[0]] = now
            if stop.is_set() and time.perf_counter() - stopped_at[0] > 30:
                break

    stopped_at = [0.0]

    async def run() -> None:
        stop = asyncio.Event()
        poller = asyncio.create_task(poll(stop))
        await paced(worker.bootstrap, rate, seconds, sent, probe)
        stopped_at[0] = time.perf_counter()
        stop.set()
        await poller

    asyncio.run(run())
    delays = sorted((seen[k] - sent[k]) * 1000 for k in sent if k in seen)
    q = statistics.quantiles(delays, n=100)
    print(
        f"latency at {rate:,} messages/s for {seconds:.0f} s: {len(delays):,} of {len(sent):,} "
        f"seen; publish-to-searchable p50 {q[49]:.0f} ms, p95 {q[94]:.0f} ms, "
        f"p99 {q[98]:.0f} ms, max {delays[-1]:.0f} ms (poll interval 20 ms)"
    )
    return q[49], q[98], len(delays) / len(sent)


def check_search(store: ProjectionStore) -> None:
    found = 0
    for i in range(0, 100, 10):
        hits = search(store, SearchRequest(user_id=f"u{i % 100}", query=f"tx{i}", k=1))
        found += bool(hits) and hits[0].source_event_ids == [f"t-{i}"]
    print(f"search check: {found}/10 sampled messages found first by a full-text search")


def cpu_seconds(pids: set[int]) -> float:
    """User + system CPU time the processes ``pids`` have used so far (from /proc)."""
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:  # gone meanwhile
            continue
        total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def replay(data: Path, worker: WorkerProcess, tmp: Path) -> None:
    archive = EventArchive(DataLayout(resolve_location(str(data))).events)
    print(f"event archive: {len(archive.files())} files (the live worker keeps running)")
    assert worker.process is not None
    live = {worker.process.pid, *worker.children()}
    for source in ("archive", "kafka"):
        before, started = cpu_seconds(live), time.perf_counter()
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "memstream",
                "replay",
                "--data",
                str(data),
                "--kafka",
                worker.bootstrap,
                "--source",
                source,
                "--into",
                str(tmp / f"replay-{source}"),
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        busy = (cpu_seconds(live) - before) / (time.perf_counter() - started)
        print(f"replay from {source}: {done.stdout.strip() or done.stderr.strip()}")
        print(f"  the live worker and its broker meanwhile used {busy:.0%} of a core")


def _quantiles(seconds: list[float]) -> str:
    q = statistics.quantiles([s * 1000 for s in seconds], n=100)
    return f"p50 {q[49]:.1f} ms, p99 {q[98]:.1f} ms"


def _api_event(tag: str, i: int) -> dict[str, object]:
    return {
        "event_id": f"{tag}-{i}",
        "user_id": f"u{i % 100}",
        "session_id": f"s{i // 200}",
        "role": "user",
        "content": f"acknowledged note {tag} {i} about the river",
        "occurred_at": "2024-05-01T12:00:00Z",
    }


def api_acks(url: str, mode: str, n: int) -> None:
    import concurrent.futures

    import httpx

    with httpx.Client(base_url=url, timeout=60) as client:
        single = []
        for i in range(500):
            started = time.perf_counter()
            response = client.post("/v1/events", json=[_api_event(f"one-{mode}", i)])
            single.append(time.perf_counter() - started)
            assert response.status_code == 202, response.text
    print(f"  API, 1 event per request, 1 client: {_quantiles(single)}")

    def client_run(c: int) -> list[float]:
        waits = []
        with httpx.Client(base_url=url, timeout=60) as client:
            for start in range(c * 100, n, 800):
                events = [_api_event(f"many-{mode}", i) for i in range(start, start + 100)]
                began = time.perf_counter()
                response = client.post("/v1/events", json=events)
                waits.append(time.perf_counter() - began)
                assert response.status_code == 202, response.text
        return waits

    started = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        waits = [w for ws in pool.map(client_run, range(8)) for w in ws]
    took = time.perf_counter() - started
    print(
        f"  API, 100 events per request, 8 clients: {n:,} events acknowledged in {took:.2f} s "
        f"({n / took:,.0f}/s); per request {_quantiles(waits)}"
    )


def publisher_acks(settings: Settings, mode: str, n: int) -> None:
    from memstream.streams.publisher import publisher_for

    async def run() -> None:
        async with publisher_for(settings) as publisher:
            single = []
            for i in range(500):
                event = message(event_id=f"pone-{mode}-{i}", user_id=f"u{i % 100}")
                started = time.perf_counter()
                await publisher.publish([event])
                single.append(time.perf_counter() - started)
            print(f"  publisher, 1 event per call: {_quantiles(single)}")
            batch = events(n, f"pmany-{mode}")
            started = time.perf_counter()
            for start in range(0, n, 1000):
                await publisher.publish(batch[start : start + 1000])
            took = time.perf_counter() - started
            print(f"  publisher, 1,000 events per call: {n / took:,.0f} events/s acknowledged")

    asyncio.run(run())


def acks(n: int) -> None:
    quiet = QUIET_LANES
    print("background lanes: embedder stopped, lifecycle timer stopped")
    for mode in ("off", "on"):
        with tempfile.TemporaryDirectory() as folder:
            data = Path(folder) / "data"
            worker = WorkerProcess(data, env={**quiet, "MEMSTREAM_JOURNAL": mode}).start()
            try:
                worker.wait_ready(timeout=60)
                open_store(data)
                print(f"intake journal {mode}:")
                api_acks(worker.api_url, mode, n)
                settings = Settings(
                    data=str(data),
                    broker_port=worker.broker_port,
                    journal=mode,  # type: ignore[arg-type]
                )
                publisher_acks(settings, mode, n)
            finally:
                worker.stop()


#: Table upkeep (compaction, index refresh) at the deployment's pace, not the test
#: harness's five seconds.
DEPLOYED_UPKEEP = {
    "MEMSTREAM_OPTIMIZE_EVERY_SECONDS": str(Settings.model_fields["optimize_every_seconds"].default)
}
#: The worker's background lanes switched off: no embedder, no lifecycle timer.
QUIET_LANES = {"MEMSTREAM_EMBEDDER": "none", "MEMSTREAM_LIFECYCLE_EVERY_SECONDS": "1000000"}
#: The worker's background lanes as deployed: the MiniLM embedder and the lifecycle timer.
RUNNING_LANES = {"MEMSTREAM_EMBEDDER": "minilm"}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--rate", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--compare-lifecycle", type=int, default=0, metavar="ROUNDS")
    parser.add_argument("--acks", action="store_true", help="publish-to-acknowledged only")
    parser.add_argument(
        "--lanes-stopped",
        action="store_true",
        help="stop the embedder and the lifecycle timer (they share the cores)",
    )
    args = parser.parse_args()
    if args.acks:
        acks(args.messages)
        return
    if args.compare_lifecycle:
        compare_lifecycle(args.messages, args.compare_lifecycle)
        return
    lanes = QUIET_LANES if args.lanes_stopped else RUNNING_LANES
    state = "stopped" if args.lanes_stopped else "running"
    print(
        f"background lanes: embedder and lifecycle timer {state}; table upkeep every "
        f"{DEPLOYED_UPKEEP['MEMSTREAM_OPTIMIZE_EVERY_SECONDS']} s",
        flush=True,
    )
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        worker = WorkerProcess(tmp / "data", env={**DEPLOYED_UPKEEP, **lanes}).start()
        try:
            worker.wait_ready(timeout=60)
            store = open_store(tmp / "data")
            throughput(worker, store, args.messages)
            latency(worker, store, args.rate, args.seconds)
            check_search(store)
            replay(tmp / "data", worker, tmp)  # the embedded broker lives with `up`
        finally:
            worker.stop()


if __name__ == "__main__":
    main()
