"""Changing the embedder of a store with hot and archived memories: ``memstream reembed``
builds projections with the new model's vectors while the live ones keep serving with
the old, the new vectors reach the log, ``memstream switch`` moves the data folder to
them (whose searcher, with the new embedder, finds archived memories by meaning), and
a replay of the log under the new embedder rebuilds the same store (no model
called: the vectors come from the log) while one under the old embedder still finds the
old vectors."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from memstream.application import state_digest
from memstream.projections.episodes import memory_id_for
from memstream.queries.search.request import SearchRequest
from memstream.runtime.assembly import embedder_model, make_embedder, make_searcher
from memstream.settings import Settings
from memstream.storage.filesystems import resolve_location
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.lance.tables import ARCHIVE_INDEX, VECTORS
from memstream.storage.layout import DataLayout
from memstream.testing import WorkerProcess, embedded_broker, wait_until

pytestmark = [pytest.mark.broker, pytest.mark.slow]

NOW = datetime.now(UTC).replace(microsecond=0)
OLD = [
    "We booked the Lisbon trip with Maria for 12 May, the flights cost 420 euros.",
    "Jonas recommended the piano teacher on Rua Augusta.",
]
RECENT = [
    "Maria asked about the Lisbon photos again.",
    "I started learning to bake sourdough bread on Sundays.",
]
MINILM = embedder_model(Settings(embedder="minilm"))
E5 = embedder_model(Settings(embedder="e5-small"))


def _message(event_id: str, text: str, at: datetime, session: str) -> dict[str, Any]:
    return {
        "type": "message",
        "event_id": event_id,
        "user_id": "ana",
        "session_id": session,
        "role": "user",
        "content": text,
        "occurred_at": at.isoformat(),
    }


def _cli(data: Path, bootstrap: str, *args: str, embedder: str = "minilm") -> str:
    done = subprocess.run(
        [sys.executable, "-m", "memstream", *args, "--data", str(data), "--kafka", bootstrap],
        capture_output=True,
        text=True,
        timeout=180,
        env={**_env(), "MEMSTREAM_EMBEDDER": embedder},
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("MEMSTREAM_")}


def _store(data: Path) -> ProjectionStore:
    tables = DataLayout(resolve_location(str(data))).existing_projections()
    assert tables is not None
    return ProjectionStore.at(tables)


def _models(data: Path) -> tuple[set[str], set[str]]:
    """The models of the hot vectors and of the archived memories' vectors."""
    store = _store(data)
    hot = set(store.scan(VECTORS, ["model"]).column("model").to_pylist())
    archived = set(store.scan(ARCHIVE_INDEX, ["vector_model"]).column("vector_model").to_pylist())
    return hot, archived


def _hot(url: str) -> int:
    stats = httpx.get(f"{url}/v1/stats", params={"user_id": "ana"}).json()
    return int(stats["memories"].get("episode", 0)) if stats["embedding_lag"] == 0 else -1


def _accesses(url: str, memory_id: str) -> int:
    memory = httpx.get(f"{url}/v1/memories/{memory_id}", params={"user_id": "ana"}).json()
    return int(memory["access_count"])


def _lag(url: str) -> int | None:
    lag: int | None = httpx.get(f"{url}/v1/stats").json()["lag"]
    return lag


def _found(url: str, query: str) -> list[str]:
    body = {"user_id": "ana", "query": query, "k": 5}
    return [r["memory_id"] for r in httpx.post(f"{url}/v1/search", json=body).json()["results"]]


def test_reembed_serves_old_vectors_until_switched_and_replays_with_the_new(
    tmp_path: Path,
) -> None:
    data, built = tmp_path / "data", tmp_path / "e5"
    lisbon = memory_id_for("ana", "old-0")
    with embedded_broker() as bootstrap:
        # No lifecycle tick during the test: a session closed after the re-embedding read
        # the log would reach the replay and not the switched store.
        quiet = {"MEMSTREAM_EMBEDDER": "minilm", "MEMSTREAM_LIFECYCLE_EVERY_SECONDS": "100000"}
        worker = WorkerProcess(data, kafka=bootstrap, env=quiet).start()
        try:
            worker.wait_serving()  # the API may answer after the worker is ready
            url = worker.api_url
            long_ago = NOW - timedelta(days=730)
            events = [
                _message(f"old-{i}", t, long_ago + timedelta(minutes=i), "trip")
                for i, t in enumerate(OLD)
            ] + [
                _message(f"new-{i}", t, NOW - timedelta(hours=2 - i), "today")
                for i, t in enumerate(RECENT)
            ]
            assert httpx.post(f"{url}/v1/events", json=events).status_code == 202
            wait_until(lambda: _hot(url) == 4, timeout=60)
            _cli(data, bootstrap, "jobs", "archive", "--user", "ana")
            wait_until(lambda: _hot(url) == 2, timeout=60)
            assert _models(data) == ({MINILM}, {MINILM})

            assert lisbon in _found(url, "Portugal holiday airfare")  # by meaning
            hot = memory_id_for("ana", "new-0")  # returned too: the report names both
            wait_until(lambda: _accesses(url, hot) == 1, timeout=30)  # the search's report
            wait_until(lambda: _lag(url) == 0, timeout=30)

            said = _cli(data, bootstrap, "reembed", "e5-small", "--into", str(built))
            assert "embedded 4 memories with e5-small" in said, said
            assert _models(built) == ({E5}, {E5})  # hot and archived: all of the new model
            # the live store reads the new vectors from the log and keeps its own
            wait_until(lambda: _lag(url) == 0, timeout=30)
            assert _models(data) == ({MINILM}, {MINILM})
            assert worker.stop(timeout=60) == 0
        finally:
            worker.stop()

        assert "now uses projections-" in _cli(data, bootstrap, "switch", str(built))
        assert _models(data) == ({E5}, {E5})
        # what a worker with e5-small serves: the archived memory found by meaning
        settings = Settings(data=str(data), embedder="e5-small")
        switched = _store(data)
        searcher = make_searcher(settings, switched, make_embedder(settings, threads=1))
        request = SearchRequest(user_id="ana", query="Portugal holiday airfare", k=5)
        assert lisbon in [r.memory_id for r in searcher.search(request).results]
        live = state_digest(switched)

        # The log holds both models' vectors: a replay under e5 rebuilds the switched
        # store; one under MiniLM finds the MiniLM vectors of every memory again.
        for embedder, model in (("e5-small", E5), ("minilm", MINILM)):
            into = tmp_path / f"replay-{embedder}"
            _cli(data, bootstrap, "replay", "--into", str(into), embedder=embedder)
            assert _models(into) == ({model}, {model})
            if embedder == "e5-small":
                assert state_digest(_store(into)) == live
