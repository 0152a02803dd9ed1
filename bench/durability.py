"""Durability benchmark: what ``memstream up`` (embedded broker) loses when it is killed,
stopped or runs out of disk, tried as a user would.

Each row runs on a fresh data folder: a client publishes through the HTTP API (batches of
1,000; a 202 is an acknowledgement), the process or its group gets a signal at the
moment the row names, ``memstream up`` is started again, and the acknowledged events
that never became an episode are counted (and any episode stored twice). The embedder is
stopped except in the embedding row; the lifecycle timer runs as configured by default.

Usage: python bench/durability.py [--events 50000] [--embed-events 3000]
"""

from __future__ import annotations

import argparse
import signal
import tempfile
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx

from memstream.projections.episodes import memory_id_for
from memstream.storage.filesystems import resolve_location
from memstream.storage.headroom import free_bytes
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.lance.tables import MEMORIES, VECTORS
from memstream.storage.layout import DataLayout
from memstream.testing import ApiPublishing, WorkerProcess, free_port, wait_until

QUIET = {"MEMSTREAM_EMBEDDER": "none"}


def documents(tag: str, n: int) -> list[dict[str, Any]]:
    return [
        {
            "event_id": f"{tag}-{i}",
            "user_id": f"u{i % 100}",
            "session_id": f"{tag}-s{i // 50}",
            "role": "user",
            "content": f"note {tag} {i}: we met Alice Smith at the river cafe about piano {i % 97}",
            "occurred_at": f"2024-05-01T{(i // 3600) % 24:02d}:{(i // 60) % 60:02d}:{i % 60:02d}Z",
        }
        for i in range(n)
    ]


def open_store(data: Path) -> ProjectionStore:
    uri = wait_until(lambda: DataLayout(resolve_location(str(data))).existing_projections()).uri
    return ProjectionStore(uri, read_consistency_interval=timedelta(0))


def start(data: Path, port: int, env: dict[str, str], log: Path) -> WorkerProcess:
    worker = WorkerProcess(data, broker_port=port, env=env, log_path=log).start()
    worker.wait_serving(timeout=120)
    return worker


def lost(store: ProjectionStore, acknowledged: list[tuple[str, str]], settle: float) -> str:
    """Acknowledged events not applied after ``settle`` quiet seconds, and doubles."""
    expected = {memory_id_for(user, event_id) for user, event_id in acknowledged}
    deadline = time.monotonic() + settle
    missing = expected
    while time.monotonic() < deadline:
        ids = store.scan(MEMORIES, columns=["memory_id"]).column("memory_id").to_pylist()
        missing = expected - set(ids)
        if not missing:
            break
        time.sleep(0.5)
    doubles = len(ids) - len(set(ids))
    return f"{len(missing):,} lost, {doubles} doubled"


def killed(events: int, kill_after: Callable[[ApiPublishing], bool], label: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        data, port = Path(folder) / "data", free_port()
        log = Path(folder) / "worker.log"
        up = start(data, port, QUIET, log)
        client = ApiPublishing(up.api_url, documents("k", events), batch=1000).start()
        wait_until(lambda: kill_after(client), timeout=600, interval=0.01)
        up.kill()
        client.join()
        again = start(data, port, QUIET, log)
        try:
            result = lost(open_store(data), client.acknowledged, settle=120)
            print(f"| {label} | {len(client.acknowledged):,} | {result} |", flush=True)
        finally:
            again.stop(timeout=60)


def terminated(events: int, group: bool) -> None:
    with tempfile.TemporaryDirectory() as folder:
        data, port = Path(folder) / "data", free_port()
        log = Path(folder) / "worker.log"
        up = start(data, port, QUIET, log)
        client = ApiPublishing(up.api_url, documents("t", events), batch=1000).start().join()
        started = time.monotonic()
        up.signal(signal.SIGTERM, group=group)
        code = up.process.wait(120) if up.process else None
        took = time.monotonic() - started
        store = open_store(data)
        drained = lost(store, client.acknowledged, settle=0.1)
        again = start(data, port, QUIET, log)
        try:
            after = lost(store, client.acknowledged, settle=60)
            where = "group" if group else "process"
            print(
                f"| SIGTERM to the {where} right after a {events:,}-event publish | "
                f"{len(client.acknowledged):,} | exit {code} in {took:.1f} s; {drained} "
                f"before restarting, {after} after |",
                flush=True,
            )
        finally:
            again.stop(timeout=60)


def embedding(events: int) -> None:
    env = {"MEMSTREAM_EMBEDDER": "minilm", "MEMSTREAM_EMBED_BACKFILL_EVERY_SECONDS": "5"}
    with tempfile.TemporaryDirectory() as folder:
        data, port = Path(folder) / "data", free_port()
        log = Path(folder) / "worker.log"
        up = start(data, port, env, log)
        client = ApiPublishing(up.api_url, documents("e", events), batch=1000).start().join()
        store = open_store(data)
        lost(store, client.acknowledged, settle=120)
        wait_until(lambda: store.count(VECTORS) > 0, timeout=120, interval=0.05)
        at_kill = store.count(VECTORS)
        up.kill()
        started = time.monotonic()
        again = start(data, port, env, log)
        try:
            wait_until(lambda: store.count(VECTORS) >= store.count(MEMORIES), timeout=3600)
            print(
                f"| SIGKILL after all {events:,} were applied, {at_kill:,} embedded; restart | "
                f"{len(client.acknowledged):,} | {lost(store, client.acknowledged, 1)}; every "
                f"memory has its vector {time.monotonic() - started:.0f} s after the restart |",
                flush=True,
            )
        finally:
            again.stop(timeout=60)


def disk_full(events: int) -> None:
    import subprocess

    with tempfile.TemporaryDirectory() as folder:
        small = Path(folder) / "small"
        small.mkdir()
        mounted = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=512m", "tmpfs", str(small)], capture_output=True
        )
        if mounted.returncode != 0:
            print("| the data folder's disk fills up | - | not run: cannot mount a tmpfs here |")
            return
        try:
            _disk_full(events, small, Path(folder))
        finally:
            subprocess.run(["umount", "-l", str(small)], check=False)


def _disk_full(events: int, small: Path, folder: Path) -> None:
    data, port = small / "data", free_port()
    env = {**QUIET, "MEMSTREAM_MIN_FREE_MB": "32", "MEMSTREAM_STATE_DIR": str(folder / "state")}
    up = start(data, port, env, folder / "worker.log")
    try:
        docs = documents("d", events)
        first = ApiPublishing(up.api_url, docs[: events // 2], batch=1000).start().join()
        filler = small / "filler"
        with open(filler, "wb") as out:  # leave 8 MB: under the 32 MB reserve
            while (room := free_bytes(small) - (8 << 20)) > 0:
                out.write(b"\0" * min(room, 16 << 20))
        refused = wait_until(lambda: _refused(up.api_url, docs[events // 2]), timeout=10)
        answered = sum(
            httpx.post(
                f"{up.api_url}/v1/search", json={"user_id": "u1", "query": "piano"}, timeout=30
            ).status_code
            == 200
            for _ in range(20)
        )
        up.check_alive()
        filler.unlink()
        wait_until(lambda: not _refused(up.api_url, docs[events // 2]), timeout=10)
        rest = ApiPublishing(up.api_url, docs[events // 2 :], batch=1000).start().join()
        acknowledged = first.acknowledged + rest.acknowledged
        result = lost(open_store(data), acknowledged, settle=120)
        print(
            f"| the data folder's disk fills up (then 8 MB free) | {len(acknowledged):,} | "
            f"{result}; refused with {refused.status_code}: {refused.json()['detail']!r}; "
            f"{answered}/20 searches answered meanwhile; worker alive; publishes accepted "
            "again once the file was removed |",
            flush=True,
        )
    finally:
        up.stop(timeout=60)


def _refused(url: str, document: dict[str, Any]) -> httpx.Response | None:
    response = httpx.post(f"{url}/v1/events", json=[document], timeout=30)
    return response if response.status_code != 202 else None


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=50_000)
    parser.add_argument("--embed-events", type=int, default=3_000)
    args = parser.parse_args()
    n = args.events
    print("| what happened | acknowledged | lost |\n|---|---|---|")

    def five_seconds_after_the_publish(client: ApiPublishing) -> bool:
        return client.finished_at is not None and time.monotonic() - client.finished_at >= 5

    def three_seconds_in(client: ApiPublishing) -> bool:
        return client.started_at is not None and time.monotonic() - client.started_at >= 3

    killed(n, five_seconds_after_the_publish, f"SIGKILL 5 s after a {n:,}-event publish")
    killed(n, three_seconds_in, f"SIGKILL 3 s into a {n:,}-event publish")
    terminated(n * 2 // 5, group=False)
    terminated(n * 2 // 5, group=True)
    embedding(args.embed_events)
    disk_full(n // 2)


if __name__ == "__main__":
    main()
