"""The scale-out scenario (a broker, three workers and two API replicas on one data
location; kills, joins and freezes; a replay that must equal the live tables), run on a
local folder and on S3 by the two scale-out test files."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import warnings
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx

from memstream.storage.filesystems import resolve_location
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.lance.tables import KEYS, MEMORIES, SESSIONS
from memstream.storage.layout import FIRST_GENERATION, DataLayout
from memstream.streams.broker import is_listening
from memstream.testing import WorkerProcess, free_port, spawn, wait_until
from support.places import DataPlace

__all__ = [
    "BATCH",
    "PARTITIONS",
    "PER_USER",
    "RATE",
    "S3_USERS",
    "SECOND_SESSION",
    "START",
    "USERS",
    "Deployment",
    "run_scenario",
]


USERS = 200


PER_USER = 60  # 12,000 messages: a quarter, a half and three quarters are whole batches


PARTITIONS = 8


#: Publishing pace (messages/s) and batch size, so the kill, join and freeze land
#: while messages flow (12 s of publishing).
RATE = 1_000


BATCH = 300


#: On S3 (moto's server, in the test's process, each commit dozens of requests) half
#: the users at half the pace: the same 12 s of publishing with the same kill, join and
#: freeze, and 6,000 messages rather than 12,000 to apply, consolidate and replay (the
#: volume is what the local run is for; here it is the object store's commits).
S3_USERS = 100


START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


#: A user's second half comes this much later (event time): the first session closes.
SECOND_SESSION = timedelta(hours=3)


def _message(user: int, turn: int) -> dict[str, Any]:
    second_half = turn >= PER_USER // 2
    at = START + (SECOND_SESSION if second_half else timedelta()) + timedelta(seconds=turn)
    name = f"Person{user}"
    return {
        "event_id": f"u{user}-t{turn}",
        "user_id": f"acme:user-{user}",
        "session_id": "s2" if second_half else "s1",
        "role": "user",
        "speaker": name,
        "content": f"{name} met Friend{turn % 7} in Lisbon and talked about topic {turn}.",
        "occurred_at": at.isoformat(),
    }


def _env(place: DataPlace, tmp_path: Path, name: str) -> dict[str, str]:
    return {
        **place.env,
        "MEMSTREAM_STATE_DIR": str(tmp_path / f"state-{name}"),
        "MEMSTREAM_MESSAGES_PARTITIONS": str(PARTITIONS),
        "MEMSTREAM_LIFECYCLE_EVERY_SECONDS": "2",
        "MEMSTREAM_SESSION_IDLE_MINUTES": "0.3",
        "MEMSTREAM_OPTIMIZE_EVERY_SECONDS": "4",
    }


class Deployment:
    """The processes of one deployment, stopped (and reaped) at the end."""

    def __init__(self, place: DataPlace, tmp_path: Path) -> None:
        self.place = place
        self.tmp_path = tmp_path
        self.broker_port = free_port()
        self.bootstrap = f"127.0.0.1:{self.broker_port}"
        self.processes: list[WorkerProcess] = []
        self.broker: subprocess.Popen[bytes] | None = None

    def start_broker(self) -> None:
        env = {**os.environ, **_env(self.place, self.tmp_path, "broker")}
        command = [sys.executable, "-m", "memstream", "broker", "--port", str(self.broker_port)]
        self.broker = spawn(command, self.tmp_path / "broker.log", env)
        wait_until(lambda: is_listening("127.0.0.1", self.broker_port), timeout=30)

    def start(self, name: str, *command: str) -> WorkerProcess:
        process = WorkerProcess(
            self.place.uri,
            kafka=self.bootstrap,
            env=_env(self.place, self.tmp_path, name),
            log_path=self.tmp_path / f"{name}.log",
            command=command,
        ).start()
        self.processes.append(process)
        return process

    def close(self) -> None:
        processes, self.processes = self.processes, []
        for process in processes:
            if process.process is not None and process.process.poll() is None:
                os.kill(process.process.pid, signal.SIGCONT)
            process.stop(timeout=20)
        if self.broker is not None and self.broker.poll() is None:
            self.broker.send_signal(signal.SIGTERM)
            self.broker.wait(20)


def _serving(process: WorkerProcess) -> bool:
    process.check_alive()
    try:
        return httpx.get(f"{process.api_url}/healthz", timeout=1).status_code == 200
    except httpx.HTTPError:
        return False


def _store(place: DataPlace) -> ProjectionStore:
    return ProjectionStore.at(DataLayout(place.location).projections())


def _episodes(store: ProjectionStore) -> int:
    store.refresh([MEMORIES])  # on S3 a refresh of every table is two requests each
    return store.count(MEMORIES, "kind = 'episode'")


def _differing_tables(live: str, rebuilt: str) -> list[str]:
    """The tables whose ``digest --tables`` lines differ (count or digest)."""
    lines = [dict(line.split(" ", 1) for line in out.splitlines()[1:]) for out in (live, rebuilt)]
    assert lines[0].keys() == lines[1].keys()
    return [name for name in lines[0] if lines[0][name] != lines[1][name]]


def _cli(place: DataPlace, tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **_env(place, tmp_path, "cli")}
    return subprocess.run(
        [sys.executable, "-m", "memstream", *args, "--data", place.uri],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )


def run_scenario(place: DataPlace, tmp_path: Path, users: int = USERS) -> None:
    """The whole scenario on ``place`` for ``users`` users, published at the pace that
    takes as long as ``USERS`` at ``RATE`` (also run on S3 by ``test_scale_out_s3``, a
    file of its own so that the two run side by side)."""
    deployment = Deployment(place, tmp_path)
    try:
        _run(deployment, place, tmp_path, users)
    finally:
        deployment.close()


def _run(deployment: Deployment, place: DataPlace, tmp_path: Path, users: int) -> None:
    deployment.start_broker()
    workers = [deployment.start(f"worker-{i}", "worker") for i in range(3)]
    for worker in workers:
        worker.wait_ready(timeout=120)
    replicas = [deployment.start(f"serve-{i}", "serve") for i in range(2)]
    for replica in replicas:
        wait_until(lambda r=replica: _serving(r), timeout=120)  # type: ignore[misc]

    messages = [_message(u, t) for t in range(PER_USER) for u in range(users)]
    rate = RATE * users / USERS
    total = len(messages)
    started = time.monotonic()
    joined: WorkerProcess | None = None
    for n, start in enumerate(range(0, total, BATCH)):
        replica = replicas[n % 2]
        # A first publish makes the data keys of its users: a conditional PUT each,
        # which moto's server takes one at a time while the workers compact on it.
        answer = httpx.post(
            f"{replica.api_url}/v1/events", json=messages[start : start + BATCH], timeout=120
        )
        assert answer.status_code == 202, answer.text
        published = start + BATCH
        if published == total // 4:
            workers[0].kill()  # SIGKILL: its partitions move to the others
        elif published == total // 2:
            joined = deployment.start("worker-3", "worker")  # a fourth joins
        elif published == 3 * total // 4:
            assert workers[1].process is not None
            workers[1].process.send_signal(signal.SIGSTOP)  # frozen past its session
            frozen_at = time.monotonic()
        delay = started + published / rate - time.monotonic()
        if delay > 0:
            time.sleep(delay)
    time.sleep(max(0.0, frozen_at + 10 - time.monotonic()))
    assert workers[1].process is not None
    workers[1].process.send_signal(signal.SIGCONT)  # a zombie wakes up

    # One reader, polled once a second: on moto's S3 (in this process) each look is
    # dozens of requests, which would otherwise take the workers' cores.
    reader = _store(place)
    wait_until(lambda: _episodes(reader) == total, timeout=420, interval=1.0)
    assert joined is not None
    for worker in (workers[1], workers[2], joined):
        worker.check_alive()
    fenced = "claimed by another worker" in workers[1].log()

    # Every session closes (the first by event time, the second when idle) and is
    # consolidated.
    def consolidated() -> bool:
        reader.refresh([SESSIONS])
        rows = reader.scan(SESSIONS).to_pylist()
        return len(rows) == 2 * users and all(
            r["closed_through"] is not None and r["consolidated_through"] == r["closed_through"]
            for r in rows
        )

    wait_until(consolidated, timeout=420, interval=1.0)
    time.sleep(3)  # the last checkpoints and bookkeeping

    # Every process, started together on empty data, wrote into the one generation.
    assert _generations(place) == [FIRST_GENERATION]
    store = _store(place)
    for name, key in KEYS.items():
        keys = store.scan(name, [key]).column(key).to_pylist()
        assert len(keys) == len(set(keys)), f"{name} holds a key twice"
    episodes = store.scan(MEMORIES, ["memory_id"], "kind = 'episode'").column("memory_id")
    assert len(episodes) == total

    # The state equals one process replaying the archive, table by table.
    into = tmp_path / "replayed"
    # (on S3 by two writer processes, each rebuilding half of the partitions)
    writers = "1" if place.location.is_local else "2"
    replay = _cli(
        place, tmp_path, "replay", "--source", "archive", "--into", str(into), "--writers", writers
    )
    assert replay.returncode == 0, replay.stderr
    live = _cli(place, tmp_path, "digest", "--tables")
    assert live.returncode == 0, live.stderr
    rebuilt = subprocess.run(
        [sys.executable, "-m", "memstream", "digest", "--tables", "--data", str(into)],
        capture_output=True,
        text=True,
        env={**os.environ, **_env(place, tmp_path, "cli")},
        timeout=300,
    )
    assert rebuilt.returncode == 0, rebuilt.stderr
    differing = _differing_tables(live.stdout, rebuilt.stdout)
    if differing:  # keep both sides of each differing table for a look
        replayed = ProjectionStore.at(DataLayout(resolve_location(str(into))).projections())
        for name in differing:
            for side, tables in (("live", store), ("replayed", replayed)):
                rows = sorted(json.dumps(r, default=str) for r in tables.scan(name).to_pylist())
                (tmp_path / f"{name}-{side}.jsonl").write_text("\n".join(rows))
    assert not differing, f"tables unlike a replay: {differing} (rows kept in {tmp_path})"

    # Both replicas answer alike; an erasure sent to one is seen by the other.
    query = {"user_id": "acme:user-7", "query": "Friend3 Lisbon topic", "k": 5}

    def results(replica: WorkerProcess) -> list[str]:
        found = httpx.post(f"{replica.api_url}/v1/search", json=query, timeout=30).json()
        return [r["memory_id"] for r in found["results"]]

    first = wait_until(lambda: results(replicas[0]) or None)
    wait_until(lambda: results(replicas[1]) == first)

    erased = httpx.delete(f"{replicas[0].api_url}/v1/users/acme:user-7", timeout=180)
    assert erased.status_code in (200, 202), erased.text
    wait_until(lambda: results(replicas[1]) == [], timeout=60)

    deployment.close()  # everything stopped: what is on disk is all there will be
    orphaned = _orphaned_bytes(place)
    print(
        json.dumps(
            {
                "where": place.location.uri,
                "zombie_fenced": fenced,
                # what upkeep's check of the keys found (nothing: no write makes a key
                # held twice)
                "keys_held_twice": [
                    line
                    for w in (*workers, joined)
                    for line in w.log().splitlines()
                    if "keys held twice" in line
                ],
                "orphaned_bytes": orphaned,
                "claims_seen": Counter(
                    line.split(" (epochs")[0].split("writing partitions ")[-1]
                    for w in (*workers, joined)
                    for line in w.log().splitlines()
                    if "writing partitions" in line
                ).most_common(3),
            }
        )
    )
    # No compaction of the projections was preempted (the window held writers back), so
    # no rewrite was left behind; what concurrent commits to the small bookkeeping
    # tables leave (a retried merge writes its files again, a claims table's compaction
    # that met a claim, which no window holds back) stays in kilobytes.
    logs = "".join(w.log() for w in (*workers, joined))
    assert "the next upkeep retries" not in logs  # no compaction of projections lost a race
    assert "keys held twice" not in logs  # prevented, not repaired
    assert not set(orphaned) & {"memories", "vectors", "entities", "access", "archive_index"}
    assert sum(orphaned.values()) < 64 * 1024


def _orphaned_bytes(place: DataPlace) -> dict[str, int]:
    """Per table, the bytes of files no version references once one cleanup has removed
    the old versions: files a preempted write or compaction left behind, which only a
    cleanup of unverified files (safe only with every writer stopped) removes."""
    store = _store(place)
    filesystem = place.location.filesystem
    orphaned = {}
    for name in store.table_names:
        table = store.table(name)
        folder = f"{store.uri.split('://', 1)[-1]}/{name}.lance"
        with warnings.catch_warnings():  # "no other process is working": true here
            warnings.simplefilter("ignore", UserWarning)
            table.optimize(cleanup_older_than=timedelta(0))  # the one cleanup
            before = _bytes_under(filesystem, folder)
            table.optimize(cleanup_older_than=timedelta(0), delete_unverified=True)
        left_behind = before - _bytes_under(filesystem, folder)
        if left_behind:
            orphaned[name] = left_behind
    return orphaned


def _generations(place: DataPlace) -> list[str]:
    from pyarrow import fs as pafs

    infos = place.location.filesystem.get_file_info(pafs.FileSelector(place.location.path))
    return sorted(i.base_name for i in infos if i.base_name.startswith("projections-"))


def _bytes_under(filesystem: Any, folder: str) -> int:
    from pyarrow import fs as pafs

    infos = filesystem.get_file_info(pafs.FileSelector(folder, recursive=True))
    return sum(i.size or 0 for i in infos if i.type == pafs.FileType.File)
