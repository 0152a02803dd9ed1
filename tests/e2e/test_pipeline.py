"""End to end on a real broker: publish -> broker -> worker process -> LanceDB, and back.

Each test gets its own embedded Tansu broker (it starts in about a second) and runs
``memstream up`` as a child process, so it can be killed with SIGKILL.
"""

from __future__ import annotations

import asyncio
import json
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from aiokafka import AIOKafkaConsumer, TopicPartition
from support.pipeline import cli, live_store, publish

from memstream.application import state_digest
from memstream.queries.search.searcher import SearchRequest, search
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.lance.tables import DEAD_LETTERS, MEMORIES
from memstream.streams.topics import DLQ, MESSAGES
from memstream.testing import WorkerProcess, embedded_broker, message, wait_until

pytestmark = [pytest.mark.broker, pytest.mark.slow]


@pytest.fixture
def fresh_broker() -> Iterator[str]:
    with embedded_broker() as bootstrap:
        yield bootstrap


@pytest.fixture
def worker(tmp_path: Path, fresh_broker: str) -> Iterator[WorkerProcess]:
    process = WorkerProcess(tmp_path / "data", kafka=fresh_broker).start()
    process.wait_ready()
    yield process
    process.stop()


def jsonl(n: int, users: int = 10, tag: str = "w") -> bytes:
    lines = []
    for i in range(n):
        event = message(
            event_id=f"{tag}{i}",
            user_id=f"user{i % users}",
            content=f"note {tag}{i} about topic{i % 7}",
        )
        lines.append(event.model_dump_json())
    return ("\n".join(lines) + "\n").encode()


def read_dlq(bootstrap: str) -> list[tuple[bytes, dict[str, bytes]]]:
    async def run() -> list[tuple[bytes, dict[str, bytes]]]:
        consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False)
        await consumer.start()
        try:
            tp = TopicPartition(DLQ, 0)
            consumer.assign([tp])
            end = (await consumer.end_offsets([tp]))[tp]
            consumer.seek(tp, 0)
            found = []
            while len(found) < end:
                batch = await consumer.getmany(tp, timeout_ms=2000)
                found += [(r.value, dict(r.headers)) for r in batch.get(tp, [])]
            return found
        finally:
            await consumer.stop()

    return asyncio.run(run())


def test_published_messages_become_searchable_once_and_bad_lines_go_to_the_dlq(
    tmp_path: Path, worker: WorkerProcess, fresh_broker: str
) -> None:
    data = str(worker.data)
    source = tmp_path / "messages.jsonl"
    source.write_bytes(jsonl(1000))
    done = cli("publish", "--data", data, "--kafka", fresh_broker, "--jsonl", str(source))
    assert done.returncode == 0, done.stderr
    assert "accepted 1000 of 1000" in done.stdout
    store = live_store(worker.data)
    wait_until(lambda: store.count(MEMORIES) == 1000, timeout=30)

    hits = search(store, SearchRequest(user_id="user7", query="w777", k=3))
    assert hits[0].source_event_ids == ["w777"]
    assert all(h.kind == "episode" for h in hits)

    again = cli("publish", "--data", data, "--kafka", fresh_broker, "--jsonl", str(source))
    assert again.returncode == 0
    wait_until(lambda: _lag(data, fresh_broker) == 0, timeout=30)
    assert store.count(MEMORIES) == 1000

    bad = b'{"user_id": "user1", "content": "no session", "occurred_at": "soon"}\n'
    mixed = jsonl(2, tag="ok") + bad + jsonl(1, tag="after")
    result = cli("publish", "--data", data, "--kafka", fresh_broker, "--jsonl", "-", stdin=mixed)
    assert result.returncode == 1
    assert "accepted 3 of 4" in result.stdout
    assert "line 3: rejected" in result.stdout and "session_id: required" in result.stdout
    wait_until(lambda: store.count(DEAD_LETTERS) == 1, timeout=30)
    wait_until(lambda: store.count(MEMORIES) == 1003, timeout=30)
    [(value, headers)] = read_dlq(fresh_broker)
    assert value == bad.strip()
    assert b"occurred_at" in headers["memstream-reason"]
    assert headers["memstream-source"].startswith(b"memory.messages/")

    stats = json.loads(cli("stats", "--data", data, "--kafka", fresh_broker, "--json").stdout)
    assert stats["memories"] == {"episode": 1003}
    assert stats["dead_letters"] == 1 and stats["lag"] == 0
    # the rejected line is counted for the user its bytes name, and for no other
    named = cli("stats", "--data", data, "--kafka", fresh_broker, "--user", "user1", "--json")
    assert json.loads(named.stdout)["dead_letters"] == 1, named.stdout
    other = cli("stats", "--data", data, "--kafka", fresh_broker, "--user", "user2", "--json")
    assert json.loads(other.stdout)["dead_letters"] == 0, other.stdout


def _applied(store: ProjectionStore) -> int:
    """Records of ``memory.messages`` the stored checkpoints cover."""
    checkpoints = store.load_checkpoints("memstream")
    return sum(at.offset + 1 for at in checkpoints.values() if at.topic == MESSAGES)


def _lag(data: str, bootstrap: str) -> int | None:
    done = cli("stats", "--data", data, "--kafka", bootstrap, "--json")
    return json.loads(done.stdout)["lag"] if done.returncode == 0 else None


def test_sigkill_mid_stream_then_restart_loses_and_doubles_nothing_and_replays_match(
    tmp_path: Path, fresh_broker: str
) -> None:
    data = tmp_path / "data"
    first = WorkerProcess(data, kafka=fresh_broker).start()
    first.wait_ready()
    publish(fresh_broker, 10_000, tag="k")
    store = live_store(data)
    wait_until(lambda: store.count(MEMORIES) > 0, timeout=30, interval=0.02)
    # The kill is placed, not raced: the worker is frozen while it applies the first
    # half, the second half is published meanwhile (in the log, not applied), then it is
    # killed with both behind it, however fast the machine is.
    first.signal(signal.SIGSTOP)
    publish(fresh_broker, 10_000, tag="k", start=10_000)
    first.kill()
    seen_at_kill = store.count(MEMORIES)
    assert seen_at_kill <= 10_000

    second = WorkerProcess(data, kafka=fresh_broker).start()
    second.wait_ready()
    wait_until(lambda: store.count(MEMORIES) >= 20_000, timeout=60)
    ids = store.scan(MEMORIES, columns=["memory_id"]).column("memory_id").to_pylist()
    assert len(ids) == len(set(ids)) == 20_000
    # Checkpoints, session rows and watermarks follow within a second (or at idle).
    wait_until(lambda: _applied(store) == 20_000, timeout=30)
    assert second.stop(timeout=60) == 0, "the worker did not stop cleanly"

    live = cli("digest", "--tables", "--data", str(data)).stdout
    for source in ("kafka", "archive"):
        target = tmp_path / f"replay-{source}"
        done = cli(
            "replay",
            "--data",
            str(data),
            "--kafka",
            fresh_broker,
            "--source",
            source,
            "--into",
            str(target),
        )
        assert done.returncode == 0, done.stderr
        assert "replayed" in done.stdout
        replayed = cli("digest", "--tables", "--data", str(target)).stdout
        assert _differing_lines(replayed, live) == [], f"replay from {source}"


def _differing_lines(replayed: str, live: str) -> list[tuple[str, str]]:
    """The per-table digest lines (name, row count, digest) that differ."""
    pairs = zip(replayed.splitlines(), live.splitlines(), strict=True)
    return [(r, v) for r, v in pairs if r != v]


def test_embedded_broker_restart_keeps_memories_and_new_messages_flow(tmp_path: Path) -> None:
    data = tmp_path / "data"
    up = WorkerProcess(data).start()  # embedded broker inside `memstream up`
    up.wait_ready()
    publish(up.bootstrap, 50, tag="before")
    store = live_store(data)
    wait_until(lambda: store.count(MEMORIES) == 50, timeout=30)
    # Checkpoints, session rows and watermarks follow within a second (or at idle).
    wait_until(lambda: _applied(store) == 50, timeout=30)
    before = state_digest(store)
    up.kill()

    again = WorkerProcess(data, broker_port=up.broker_port).start()  # its broker died with it
    again.wait_ready()
    assert store.count(MEMORIES) == 50 and state_digest(store) == before
    publish(again.bootstrap, 10, tag="after")
    wait_until(lambda: store.count(MEMORIES) == 60, timeout=30)
    assert again.stop(timeout=60) == 0, again.log()

    replayed = tmp_path / "replayed"
    done = cli("replay", "--data", str(data), "--source", "archive", "--into", str(replayed))
    assert done.returncode == 0, done.stderr
    assert (
        cli("digest", "--tables", "--data", str(replayed)).stdout
        == cli("digest", "--tables", "--data", str(data)).stdout
    )
