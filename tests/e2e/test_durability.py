"""Acknowledged means durable: ``memstream up`` with its embedded broker, killed and
stopped at the worst moments, loses nothing it acknowledged.

Clients publish through the HTTP API (the API's 202 is the acknowledgement) while the
test sends SIGKILL or SIGTERM to ``memstream up`` or to its process group; after a
restart every acknowledged event is an episode exactly once, every episode gets its
vector, the digest equals a replay, and no process outlives ``memstream up``.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from memstream.projections.episodes import memory_id_for
from memstream.storage.filesystems import resolve_location
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.lance.tables import MEMORIES, SESSIONS, VECTORS
from memstream.storage.layout import DataLayout
from memstream.testing import ApiPublishing, WorkerProcess, free_port, wait_until
from memstream.text.passages import OWN_VECTORS, passage_of

pytestmark = [pytest.mark.broker, pytest.mark.slow]

USERS = 7


def event(tag: str, i: int) -> dict[str, Any]:
    return {
        "event_id": f"{tag}-{i}",
        "user_id": f"user{i % USERS}",
        "session_id": f"{tag}-s{i // 20}",
        "role": "user",
        "speaker": "Ana",
        "content": f"note {tag} {i}: the meeting moved to room {i % 13}",
        "occurred_at": f"2024-05-01T{(i // 3600) % 24:02d}:{(i // 60) % 60:02d}:{i % 60:02d}Z",
    }


def publishing(url: str, tag: str, count: int, batch: int = 50) -> ApiPublishing:
    """A client publishing ``count`` events tagged ``tag`` through the API."""
    return ApiPublishing(url, [event(tag, i) for i in range(count)], batch)


def publish_all(url: str, tag: str, count: int) -> list[tuple[str, str]]:
    done = publishing(url, tag, count, batch=500).start().join()
    assert done.failure is None and not done.refusals, (done.failure, done.refusals)
    return done.acknowledged


def live_store(data: Path) -> ProjectionStore:
    uri = wait_until(lambda: DataLayout(resolve_location(str(data))).existing_projections()).uri
    return ProjectionStore(uri, read_consistency_interval=timedelta(0))


def memory_ids(store: ProjectionStore) -> list[str]:
    return list(store.scan(MEMORIES, columns=["memory_id"]).column("memory_id").to_pylist())


def assert_each_once(store: ProjectionStore, acknowledged: list[tuple[str, str]]) -> None:
    """Every acknowledged event is an episode, and no episode is there twice."""
    expected = {memory_id_for(user, event_id) for user, event_id in acknowledged}

    def all_there() -> bool:
        return expected <= set(memory_ids(store))

    wait_until(all_there, timeout=60)
    ids = memory_ids(store)
    assert len(ids) == len(set(ids)), "an event was applied twice"


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memstream", *args], capture_output=True, text=True, timeout=120
    )


@pytest.fixture
def workers() -> Iterator[list[WorkerProcess]]:
    """Every worker a test starts; killed (with what it started) at the end."""
    started: list[WorkerProcess] = []
    yield started
    for worker in started:
        children = worker.children()
        worker.kill()
        WorkerProcess.wait_gone(children)


def start(
    workers: list[WorkerProcess], data: Path, port: int, env: dict[str, str] | None = None
) -> WorkerProcess:
    worker = WorkerProcess(data, broker_port=port, env=env).start()
    workers.append(worker)
    worker.wait_serving()
    return worker


def kill(worker: WorkerProcess) -> None:
    """SIGKILL ``memstream up``; its broker and API must die with it."""
    children = worker.children()
    assert len(children) >= 2, "the broker and the API run as children"
    worker.kill()
    assert WorkerProcess.wait_gone(children) == set(), "a child outlived memstream up"


def test_sigkill_at_any_moment_loses_no_acknowledged_event_and_replays_the_same(
    tmp_path: Path, workers: list[WorkerProcess]
) -> None:
    data, port = tmp_path / "data", free_port()
    acknowledged: list[tuple[str, str]] = []

    # During a publish: half of it acknowledged, the rest in flight.
    up = start(workers, data, port)
    client = publishing(up.api_url, "during", 3000).start()
    wait_until(lambda: len(client.acknowledged) >= 1000, timeout=60, interval=0.01)
    kill(up)
    client.join()
    assert client.failure is not None, "the publish finished before the kill"
    acknowledged += client.acknowledged

    up = start(workers, data, port)
    store = live_store(data)
    assert_each_once(store, acknowledged)

    # Right after the last acknowledgement.
    acknowledged += publish_all(up.api_url, "after-ack", 2000)
    kill(up)

    up = start(workers, data, port)
    assert_each_once(store, acknowledged)

    # While the worker applies.
    before = len(memory_ids(store))
    client = publishing(up.api_url, "applying", 4000, batch=500).start()
    wait_until(lambda: len(memory_ids(store)) > before, timeout=60, interval=0.01)
    kill(up)
    client.join()
    acknowledged += client.acknowledged

    up = start(workers, data, port)
    assert_each_once(store, acknowledged)
    up.signal(signal.SIGTERM)
    assert up.wait(60) == 0, up.log()[-6000:]

    live = cli("digest", "--tables", "--data", str(data)).stdout
    target = tmp_path / "replayed"
    done = cli("replay", "--data", str(data), "--source", "archive", "--into", str(target))
    assert done.returncode == 0, done.stderr
    assert cli("digest", "--tables", "--data", str(target)).stdout == live


@pytest.mark.parametrize("group", [False, True], ids=["process", "group"])
def test_sigterm_drains_what_was_acknowledged_and_stops_everything(
    tmp_path: Path, workers: list[WorkerProcess], group: bool
) -> None:
    data, port = tmp_path / "data", free_port()
    up = start(workers, data, port)
    children = up.children()
    client = publishing(up.api_url, "draining", 20_000, batch=100).start()
    wait_until(lambda: len(client.acknowledged) >= 2000, timeout=60, interval=0.01)
    up.signal(signal.SIGTERM, group=group)
    assert up.wait(35) == 0, up.log()
    assert WorkerProcess.wait_gone(children) == set(), "a child outlived memstream up"
    client.join()
    assert client.refusals, "the API refused nothing while stopping"
    status, body = client.refusals[0]
    assert status == 503 and "stopping" in body, (status, body)
    # Applied and archived before the stop: no restart, no journal needed.
    store = live_store(data)
    expected = {memory_id_for(user, event_id) for user, event_id in client.acknowledged}
    assert expected <= set(memory_ids(store))
    assert "drained the log" in up.log()


def test_a_second_signal_stops_at_once_and_the_next_start_loses_nothing(
    tmp_path: Path, workers: list[WorkerProcess]
) -> None:
    data, port = tmp_path / "data", free_port()
    up = start(workers, data, port)
    children = up.children()
    client = publishing(up.api_url, "forced", 20_000, batch=100).start()
    wait_until(lambda: len(client.acknowledged) >= 2000, timeout=60, interval=0.01)
    up.signal(signal.SIGTERM)
    time.sleep(0.2)  # two signals at once would arrive as one
    up.signal(signal.SIGTERM)
    assert up.wait(15) == 1
    assert WorkerProcess.wait_gone(children) == set(), "a child outlived memstream up"
    client.join()
    start(workers, data, port)
    assert_each_once(live_store(data), client.acknowledged)


def test_sessions_closed_but_never_consolidated_are_consolidated_after_a_restart(
    tmp_path: Path, workers: list[WorkerProcess]
) -> None:
    data, port = tmp_path / "data", free_port()
    quiet = {"MEMSTREAM_LIFECYCLE_EVERY_SECONDS": "100000"}  # no lifecycle run at all
    up = start(workers, data, port, quiet)
    turns = [
        ("s1", "2024-05-01T09:00:00Z", "I live in Lisbon and I work at Red Kite Studio."),
        ("s2", "2024-05-03T09:00:00Z", "I moved to Porto last week."),
        ("s3", "2024-05-05T09:00:00Z", "My sister Maria likes jazz."),
    ]
    events = [
        {
            "event_id": f"life-{n}",
            "user_id": "ana",
            "session_id": session,
            "role": "user",
            "speaker": "Ana",
            "content": text,
            "occurred_at": at,
        }
        for n, (session, at, text) in enumerate(turns)
    ]
    done = httpx.post(f"{up.api_url}/v1/events", json=events, timeout=30)
    assert done.status_code == 202, done.text
    store = live_store(data)
    assert_each_once(store, [("ana", e["event_id"]) for e in events])
    wait_until(lambda: store.count(SESSIONS) == 3, timeout=30)
    assert store.count(SESSIONS, "consolidated_through IS NOT NULL") == 0
    kill(up)

    start(workers, data, port, {"MEMSTREAM_LIFECYCLE_EVERY_SECONDS": "1"})
    wait_until(lambda: store.count(SESSIONS, "consolidated_through IS NOT NULL") >= 2, 60)
    facts = store.scan(MEMORIES, columns=["content"], where="kind = 'fact'")
    assert any("Porto" in c for c in facts.column("content").to_pylist())


def test_sigkill_mid_embedding_then_every_memory_gets_its_vector(
    tmp_path: Path, workers: list[WorkerProcess]
) -> None:
    data, port = tmp_path / "data", free_port()
    env = {
        "MEMSTREAM_EMBEDDER": "minilm",
        "MEMSTREAM_EMBED_BATCH_SIZE": "16",
        "MEMSTREAM_EMBED_BACKFILL_EVERY_SECONDS": "2",
    }
    up = start(workers, data, port, env)
    acknowledged = publish_all(up.api_url, "embed", 600)  # 38 batches: seconds of embedding
    store = live_store(data)
    assert_each_once(store, acknowledged)

    def own() -> int:  # each memory's own vector, not its rows said alone
        return store.count(VECTORS, OWN_VECTORS)

    wait_until(lambda: own() > 0, timeout=60, interval=0.05)
    assert own() < len(acknowledged), "embedding finished before the kill"
    kill(up)

    start(workers, data, port, env)
    wait_until(lambda: own() == len(acknowledged), timeout=120)
    rows = store.scan(VECTORS, columns=["memory_id"]).column("memory_id").to_pylist()
    assert {passage_of(row)[0] for row in rows} == set(memory_ids(store))
    assert len(rows) == len(set(rows))


def fill(folder: Path, leave: int) -> Path:
    """Write a file that leaves about ``leave`` bytes free on ``folder``'s disk."""
    from memstream.storage.headroom import free_bytes

    filler = folder / "filler"
    # unbuffered: a write the disk refuses leaves nothing behind for close() to flush
    # (and raise on again) when the worker took the last bytes meanwhile
    with open(filler, "ab", buffering=0) as out:
        while (room := free_bytes(folder) - leave) > 0:
            try:
                out.write(b"\0" * min(room, 8 << 20))
            except OSError:
                break
    return filler


def test_a_full_disk_refuses_publishes_clearly_keeps_searching_and_recovers(
    tmp_path: Path, small_filesystem: Callable[[str], Path], workers: list[WorkerProcess]
) -> None:
    small_disk = small_filesystem("96m")
    data, port = small_disk / "data", free_port()
    env = {"MEMSTREAM_MIN_FREE_MB": "16", "MEMSTREAM_STATE_DIR": str(tmp_path / "state")}
    up = WorkerProcess(data, broker_port=port, env=env, log_path=tmp_path / "worker.log")
    workers.append(up.start())
    up.wait_serving()
    acknowledged = publish_all(up.api_url, "roomy", 300)
    store = live_store(data)
    assert_each_once(store, acknowledged)

    # Under the reserve: publishes are refused with the place and the free space.
    filler = fill(small_disk, leave=4 << 20)
    refused = wait_until(lambda: _refusal(up.api_url), timeout=10)
    assert refused.status_code == 507, refused.text
    assert str(data) in refused.json()["detail"] and "free" in refused.json()["detail"]
    assert refused.headers["retry-after"]
    found = httpx.post(
        f"{up.api_url}/v1/search", json={"user_id": "user1", "query": "meeting room"}, timeout=30
    )
    assert found.status_code == 200 and found.json()["results"]

    # The disk fills up entirely under the worker (another program, say).
    filler = fill(small_disk, leave=0)
    late = _publish_to_broker(up.bootstrap, 200)
    wait_until(lambda: "the disk is full" in up.log(), timeout=30)
    up.check_alive()

    filler.unlink()
    assert_each_once(store, late)
    wait_until(lambda: not _refusal(up.api_url), timeout=10)
    acknowledged += publish_all(up.api_url, "freed", 300)
    assert_each_once(store, acknowledged)
    up.check_alive()


def _refusal(url: str) -> httpx.Response | None:
    """The API's answer to a publish, when it is a refusal."""
    response = httpx.post(f"{url}/v1/events", json=[event("probe", 0)], timeout=30)
    return response if response.status_code != 202 else None


def _publish_to_broker(bootstrap: str, count: int) -> list[tuple[str, str]]:
    """Publish straight to the broker, as a producer outside memstream would."""
    import asyncio

    from memstream.events.codec import from_document
    from memstream.streams.publisher import Publisher

    events = [from_document(event("direct", i)) for i in range(count)]

    async def send() -> None:
        async with Publisher(bootstrap) as publisher:
            await publisher.publish(events)

    asyncio.run(send())
    return [(e.user_id, e.event_id) for e in events]


def _broker_pid(worker: WorkerProcess) -> int:
    for pid in worker.children():
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if b"--storage-engine" in command:  # the Tansu broker, not setpriv's wrapper
            return pid
    raise AssertionError("no embedded broker among the children of memstream up")


def test_a_dead_broker_stops_up_at_once_and_the_next_start_loses_nothing(
    tmp_path: Path, workers: list[WorkerProcess]
) -> None:
    """SIGKILL of the embedded broker alone: ``up`` says so in one line and exits
    non-zero within seconds (so a supervisor restarts it), leaving no process and no
    flood of errors; every acknowledged event is applied after the restart."""
    data, port = tmp_path / "data", free_port()
    worker = start(workers, data, port)
    acknowledged = publish_all(worker.api_url, "before", 300)
    children = worker.children()
    os.kill(_broker_pid(worker), signal.SIGKILL)
    assert worker.wait(timeout=30) == 3, worker.log()[-3000:]  # it hung for 80 s and more
    assert WorkerProcess.wait_gone(children) == set(), "a child outlived memstream up"
    lines = worker.log().splitlines()
    assert sum("the embedded broker was killed by signal 9" in line for line in lines) == 1
    assert sum("ERROR" in line for line in lines) < 20, "\n".join(lines[-40:])

    again = start(workers, data, port)
    acknowledged += publish_all(again.api_url, "after", 100)
    assert_each_once(live_store(data), acknowledged)
