"""Archival in a running worker: messages from two years ago are listed by the dry run,
moved to Parquet by ``memstream jobs archive``, found by search with their provenance,
expanded exactly through the API, restored into hot search, and
rebuilt to the same digest by replaying the event archive;
with the data in a local folder, and with everything (LanceDB tables, event archive,
cold store) on a real S3 endpoint on loopback (moto's server)."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from support.places import DataPlace

from memstream.events.short_ids import short_id
from memstream.projections.episodes import memory_id_for
from memstream.storage.layout import DataLayout
from memstream.testing import WorkerProcess, embedded_broker, wait_until

pytestmark = [pytest.mark.broker, pytest.mark.slow]

NOW = datetime.now(UTC).replace(microsecond=0)
LONG_AGO = NOW - timedelta(days=730)
OLD = [
    "We booked the Lisbon trip with Maria for 12 May, the flights cost 420 euros.",
    "Jonas recommended the piano teacher on Rua Augusta.",
]
RECENT = "Maria asked about the Lisbon photos again."


def _cli(data: DataPlace, bootstrap: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memstream", *args, "--data", data.uri, "--kafka", bootstrap],
        capture_output=True,
        text=True,
        timeout=120,
        env=data.cli_env(),
    )


def _at(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _search(url: str, query: str, **kw: Any) -> list[dict[str, Any]]:
    body = {"user_id": "ana", "query": query, "k": 5, **kw}
    results: list[dict[str, Any]] = httpx.post(f"{url}/v1/search", json=body).json()["results"]
    return results


def _position(url: str) -> str:
    """A write token of what the projections hold of Ana's partitions, once they hold
    every record the log had when asked (``/v1/freshness`` asks the log's ends, then
    reads the checkpoints): a table may show a write before its checkpoint is saved."""

    def held() -> str | None:
        fresh = httpx.get(f"{url}/v1/freshness", params={"user_id": "ana"}).json()
        return fresh["position"] if fresh["pending_writes"] == 0 else None

    position: str = wait_until(held, timeout=60)
    return position


def test_archive_search_expand_restore_in_a_running_worker(
    data_place: DataPlace, tmp_path: Path
) -> None:
    data = data_place
    data.state_dir.mkdir(parents=True, exist_ok=True)
    with embedded_broker() as bootstrap:
        worker = WorkerProcess(
            data.uri, kafka=bootstrap, env=data.env, log_path=tmp_path / "worker.log"
        ).start()
        try:
            worker.wait_serving()  # the API may answer after the worker is ready
            url = worker.api_url
            events = [
                {
                    "type": "message",
                    "event_id": f"old-{i}",
                    "user_id": "ana",
                    "session_id": "trip",
                    "role": "user",
                    "content": text,
                    "occurred_at": (LONG_AGO + timedelta(minutes=i)).isoformat(),
                }
                for i, text in enumerate(OLD)
            ]
            events.append(
                {
                    "type": "message",
                    "event_id": "new-0",
                    "user_id": "ana",
                    "session_id": "today",
                    "role": "user",
                    "content": RECENT,
                    "occurred_at": (NOW - timedelta(hours=1)).isoformat(),
                }
            )
            assert httpx.post(f"{url}/v1/events", json=events).status_code == 202

            def hot_count() -> int:
                stats = httpx.get(f"{url}/v1/stats", params={"user_id": "ana"}).json()
                return int(stats["memories"].get("episode", 0))

            wait_until(lambda: hot_count() == 3, timeout=60)
            tables = DataLayout(data.location).existing_projections()
            assert tables is not None and tables.uri.startswith(data.uri)  # LanceDB where asked
            # no search yet: a search's results count as used, and used memories stay hot
            lisbon = {"memory_id": memory_id_for("ana", "old-0")}
            original_row = httpx.get(
                f"{url}/v1/memories/{lisbon['memory_id']}", params={"user_id": "ana"}
            ).json()
            assert "420" in original_row["content"]

            dry = _cli(data, bootstrap, "jobs", "archive", "--dry-run", "--user", "ana")
            assert dry.returncode == 0, dry.stderr
            shown = short_id(lisbon["memory_id"])  # plain output's short form
            assert shown in dry.stdout and "unused for 730 days" in dry.stdout
            assert short_id(memory_id_for("ana", "old-1")) in dry.stdout
            assert short_id(memory_id_for("ana", "new-0")) not in dry.stdout  # used lately
            # both old turns, and the fact consolidation drew from them if it ran by now
            listed = [line for line in dry.stdout.splitlines() if "unused for" in line]
            assert len(listed) in (2, 3), dry.stdout
            assert f"would archive {len(listed)} memories" in dry.stderr
            assert hot_count() == 3 and not data.cold_files()

            hot_then = _position(url)  # what memory held before the archive
            done = _cli(data, bootstrap, "jobs", "archive", "--user", "ana")
            assert done.returncode == 0, done.stderr
            wait_until(lambda: hot_count() == 1, timeout=60)  # the hot count falls
            assert len(data.cold_files()) == 1
            archived_then = _position(url)

            found = _search(url, "Lisbon flights")  # the archive is searched too
            cold = [r for r in found if r["archived"]]
            assert cold[0]["memory_id"] == lisbon["memory_id"] and cold[0]["storage_ref"]
            assert cold[0]["content"] == OLD[0]  # a short turn is its own summary
            assert cold[0]["source_event_ids"] == ["old-0"] and cold[0]["session_id"] == "trip"
            assert not any(r["archived"] for r in _search(url, "Lisbon", include_archived=False))

            expanded = httpx.get(
                f"{url}/v1/memories/{lisbon['memory_id']}",
                params={"user_id": "ana", "expand": "true"},
            ).json()
            assert expanded["archived"] and expanded["original"]["content"] == OLD[0]
            assert expanded["original"]["memory_id"] == original_row["memory_id"]
            assert _at(expanded["original"]["occurred_at"]) == _at(original_row["occurred_at"])

            answer = httpx.post(
                f"{url}/v1/memories/{lisbon['memory_id']}/restore", json={"user_id": "ana"}
            )
            assert answer.status_code == 202
            wait_until(lambda: hot_count() == 2, timeout=60)

            def restored_found() -> bool:  # the API's view lags by up to its read consistency
                back = _search(url, "Lisbon flights")
                return any(
                    r["memory_id"] == lisbon["memory_id"] and not r["archived"] for r in back
                )

            wait_until(restored_found, timeout=10)
            missing = httpx.post(
                f"{url}/v1/memories/{lisbon['memory_id']}/restore", json={"user_id": "ana"}
            )
            assert missing.status_code == 404 and "not archived" in missing.json()["detail"]

            # Memory as it stood before the archive, while archived, and now (restored)
            for as_of, archived in ((hot_then, False), (archived_then, True), (None, False)):
                when = {"as_of": as_of} if as_of else {}
                found = _search(url, "Lisbon flights", **when)
                (lisbon_found,) = [r for r in found if r["memory_id"] == lisbon["memory_id"]]
                assert lisbon_found["archived"] is archived, as_of
                listed = httpx.get(
                    f"{url}/v1/memories", params={"user_id": "ana", "limit": 10, **when}
                ).json()
                (row,) = [m for m in listed["memories"] if m["memory_id"] == lisbon["memory_id"]]
                assert bool(row.get("archived")) is archived, (as_of, row)
                assert (listed["as_of"] or {}).get("asked") == as_of
            assert worker.stop(timeout=60) == 0  # a clean stop writes all bookkeeping
        finally:
            worker.stop()

        # Replaying the event archive (on the same storage) rebuilds the same state,
        # the restored memory read back from the cold store.
        into = data.uri + "-replay" if data.uri.startswith("s3://") else str(tmp_path / "replay")
        done = _cli(data, bootstrap, "replay", "--source", "archive", "--into", into)
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith("replayed ") and not done.stdout.startswith("replayed 0 ")
        live = _cli(data, bootstrap, "digest", "--tables").stdout
        replayed = subprocess.run(
            [sys.executable, "-m", "memstream", "digest", "--tables", "--data", into],
            capture_output=True,
            text=True,
            timeout=120,
            env=data.cli_env(),
        ).stdout
        assert live and replayed.splitlines() == live.splitlines()
