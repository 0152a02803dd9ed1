"""Erasing a user, end to end, against a real worker, broker, LanceDB and cold store.

Two users; one is erased. Before, the erased user's secret words are found in the data
folder (in the tables and the cold store: the check can find them) and in none of the
log's copies (the journal and the event archive hold sealed records). After, no file
under the data folder holds them, raw or decoded (every Parquet file read, every
LanceDB table read at every version it still has), no row of the user is left, and a
replay of the event archive and of Kafka both rebuild the other user with the same
digest as before and nothing of the erased one. An erasure whose worker is killed
(SIGKILL) halfway completes when the worker starts again.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import lancedb
import pyarrow.parquet as pq
import pytest

from memstream.application.stores import state_digest
from memstream.client import MemoryClient, MemstreamAPIError
from memstream.storage import filters
from memstream.storage.data_keys import DataKeys
from memstream.storage.filesystems import resolve_location
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.lance.tables import USER_TABLES, VECTORS
from memstream.storage.layout import DataLayout
from memstream.streams.topics import COMMANDS, end_offsets
from memstream.testing import WorkerProcess, wait_until
from memstream.text.passages import OWN_VECTORS

pytestmark = [pytest.mark.broker, pytest.mark.slow]

#: Words only the erased user said (in a message, an archived message and a fact).
SECRETS = ("quokkazanzibar", "marmosetcinnabar", "pangolinvermilion")
NOW = datetime.now(UTC).replace(microsecond=0)
LONG_AGO = NOW - timedelta(days=730)


def _message(user: str, event_id: str, text: str, at: datetime, session: str) -> dict[str, Any]:
    return {
        "event_id": event_id,
        "user_id": user,
        "session_id": session,
        "role": "user",
        "content": text,
        "occurred_at": at.isoformat(),
    }


def _said(user: str, secret_words: bool) -> list[dict[str, Any]]:
    first, second, _ = SECRETS if secret_words else ("Lisbon", "Porto", "")
    later = LONG_AGO + timedelta(minutes=1)
    hours_ago = [NOW - timedelta(hours=2), NOW - timedelta(hours=1)]
    return [
        _message(user, f"{user}-old-0", f"Long ago I hid a {second} in Lisbon.", LONG_AGO, "old"),
        _message(user, f"{user}-old-1", "Two years ago I flew to Lisbon.", later, "old"),
        _message(user, f"{user}-new-0", f"My cat is called {first}.", hours_ago[0], "new"),
        _message(user, f"{user}-new-1", "I like green tea.", hours_ago[1], "new"),
    ]


def _cli(worker: WorkerProcess, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "MEMSTREAM_DATA": str(worker.data),
        "MEMSTREAM_BROKER_PORT": str(worker.broker_port),
        "MEMSTREAM_EMBEDDER": "minilm",
    }
    return subprocess.run(
        [sys.executable, "-m", "memstream", *args],
        capture_output=True,
        text=True,
        timeout=240,
        env=env,
    )


def _store(data: Path) -> ProjectionStore:
    uri = wait_until(lambda: DataLayout(resolve_location(str(data))).existing_projections()).uri
    return ProjectionStore(uri, read_consistency_interval=timedelta(0))


def _rows_of(store: ProjectionStore, user: str) -> dict[str, int]:
    counts = {name: store.count(name, f"user_id = '{user}'") for name in USER_TABLES}
    return {name: n for name, n in counts.items() if n}


def _own_vectors(store: ProjectionStore, user: str) -> int:
    return store.count(VECTORS, filters.all_of(filters.equals("user_id", user), OWN_VECTORS))


def readable_copies(root: Path, words: tuple[str, ...]) -> list[str]:
    """Where under ``root`` any of ``words`` can be read: in a file's bytes, in a
    Parquet file's decoded values, or in a LanceDB table at any version it keeps."""
    found = []
    needles = [w.encode() for w in words]
    for path in sorted(root.rglob("*")):
        if not path.is_file():
            continue
        raw = path.read_bytes()
        if any(n in raw for n in needles):
            found.append(f"{path.relative_to(root)} (bytes)")
        if path.suffix == ".parquet":
            decoded = json.dumps(pq.read_table(path).to_pylist(), default=repr)
            if any(w in decoded for w in words):
                found.append(f"{path.relative_to(root)} (parquet)")
    for folder in sorted(root.rglob("*.lance")):
        if not (folder / "_versions").is_dir() or folder.parent.suffix == ".lance":
            continue  # a file, or an index's own dataset
        table = lancedb.connect(str(folder.parent)).open_table(folder.stem)
        for version in table.list_versions():
            table.checkout(version["version"])
            decoded = json.dumps(table.to_arrow().to_pylist(), default=repr)
            if any(w in decoded for w in words):
                found.append(f"{folder.relative_to(root)} v{version['version']} (table)")
    return found


def _start(data: Path, embedder: str = "minilm") -> WorkerProcess:
    worker = WorkerProcess(
        data,
        env={"MEMSTREAM_EMBEDDER": embedder, "MEMSTREAM_LIFECYCLE_EVERY_SECONDS": "100000"},
        log_path=data.parent / "worker.log",
    ).start()
    worker.wait_serving(timeout=120)
    return worker


def _publish_both(worker: WorkerProcess, vectors: bool = True) -> None:
    url = worker.api_url
    events = [*_said("ana", True), *_said("bob", False)]
    assert httpx.post(f"{url}/v1/events", json=events, timeout=30).status_code == 202
    fact = {"user_id": "ana", "content": f"Ana keeps a {SECRETS[2]} in the garden."}
    assert httpx.post(f"{url}/v1/memories", json=fact, timeout=30).status_code == 202
    store = _store(worker.data)

    def settled() -> bool:
        ana, bob = _rows_of(store, "ana"), _rows_of(store, "bob")
        if not vectors:
            return ana.get("memories") == 5 and bob.get("memories") == 4
        # every memory's own vector (turns pooled with earlier ones have a row said alone too)
        mine, theirs = _own_vectors(store, "ana"), _own_vectors(store, "bob")
        return ana.get("memories") == 5 and mine == 5 and theirs == 4

    wait_until(settled, timeout=120)


def test_an_erased_user_leaves_nothing_readable_and_replays_rebuild_the_other(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    worker = _start(data)
    try:
        _publish_both(worker)
        archived = _cli(worker, "jobs", "archive", "--user", "ana")
        assert archived.returncode == 0, archived.stderr
        store = _store(data)
        wait_until(lambda: store.count("archive_index", "user_id = 'ana'") == 2, timeout=60)
        bob_before = state_digest(store, "bob")

        # The check can find the words: in the tables and the cold store...
        before = readable_copies(data, SECRETS)
        assert any("(table)" in place for place in before), before
        assert any(place.startswith("cold") for place in before), before
        # ...and in none of the log's copies: the journal and the event archive are sealed.
        assert not [p for p in before if p.startswith(("journal", "events"))], before

        with MemoryClient(worker.api_url, agent="codex") as client:
            # what an agent was shown goes too: the question names a secret word
            assert client.context("ana", f"what about {SECRETS[0]}?", cutoff=False)["context"]
            wait_until(lambda: client.served("ana"), timeout=30)
            assert store.count("served", "user_id = 'ana'") == 1
            ids = [m["memory_id"] for m in client.all_memories("ana")]
            erased = client.erase("ana")
            assert erased["complete"] and erased["keys_destroyed"] and erased["held"], erased
            _own_probes_find_nothing(client, ids)
        assert _rows_of(store, "ana") == {}
        _receipt_holds(worker, erased, tmp_path)
        said = _cli(worker, "erase", "--user", "nobody-here", "--yes")  # never heard of
        assert said.returncode == 0, said.stderr
        assert said.stdout.strip() == (
            "memstream held nothing of nobody-here (no memory, document or data key): "
            "nothing to erase"
        ), said.stdout
        assert readable_copies(data, SECRETS) == []
        found = httpx.post(
            f"{worker.api_url}/v1/search", json={"user_id": "ana", "query": "cat"}, timeout=30
        ).json()
        assert found["results"] == []
        assert state_digest(store, "bob") == bob_before

        from_kafka = _cli(worker, "replay", "--source", "kafka", "--into", str(tmp_path / "k"))
        assert from_kafka.returncode == 0, from_kafka.stderr
        audit = (data / "logs" / "audit.jsonl").read_text()
        assert '"operation": "erase"' in audit and '"user_id": "ana"' in audit
        assert not any(word in audit for word in SECRETS)
    finally:
        assert worker.stop(timeout=60) == 0
    from_archive = _cli(worker, "replay", "--source", "archive", "--into", str(tmp_path / "a"))
    assert from_archive.returncode == 0, from_archive.stderr
    for replayed in (tmp_path / "k", tmp_path / "a"):
        rebuilt = _store(replayed)
        assert state_digest(rebuilt, "bob") == bob_before, replayed
        assert _rows_of(rebuilt, "ana") == {}, replayed
        assert readable_copies(replayed, SECRETS) == [], replayed
    assert readable_copies(data, SECRETS) == []


def _own_probes_find_nothing(client: MemoryClient, ids: list[str]) -> None:
    """This test's own probes of every read path for the erased user: nothing."""
    assert ids
    for word in (*SECRETS, "Lisbon", "cat"):
        assert client.search("ana", word, k=50, include_archived=True)["results"] == []
        assert client.context("ana", word, cutoff=False)["context"] is None
    assert client.list("ana", include_hidden=True)["memories"] == []
    for memory_id in ids:
        for read in (client.memory, client.explain, client.history):
            with pytest.raises(MemstreamAPIError) as missing:
                read("ana", memory_id)
            assert missing.value.status == 404
    exported = b"".join(client.export("ana", format="json"))
    assert not any(word.encode() in exported for word in (*SECRETS, "Lisbon"))
    assert "ana" not in {u["user_id"] for u in client.users()}


def _receipt_holds(worker: WorkerProcess, erased: dict[str, Any], tmp_path: Path) -> None:
    """The erasure's receipt: what went from each store, every read path probed with
    nothing found, signed by the deployment; the CLI checks it, and refuses it changed."""
    receipt = erased["receipt"]
    assert receipt is not None and receipt["nothing_found"], receipt
    assert receipt["removed"]["data_keys_destroyed"] == sorted(erased["keys_destroyed"])
    rows = receipt["removed"]["rows"]
    assert rows["memories"] >= 3 and rows["archive_index"] == 2, rows  # two were archived
    assert rows["cold store and documents"] >= 1, rows
    assert rows["served"] == 1, rows  # what the agent was shown
    probed = {p["read"]: p for p in receipt["probes"]}
    for read in ("rows of the user in memories", "search, hot and archived, history included",
                 "context block", "memory list, hidden included", "memory by id",
                 "entity by name", "export", "users the console lists",
                 "what agents were shown, and where each memory was used",
                 "event archive, opened"):  # fmt: skip
        assert probed[read]["found"] == 0, probed[read]
    assert probed["search, hot and archived, history included"]["asked"] >= 3
    assert probed["memory by id"]["asked"] >= 3 and probed["entity by name"]["asked"] >= 1
    assert not any(word in json.dumps(receipt) for word in SECRETS)  # no word of theirs
    kept = list((worker.data / "erasure-receipts").rglob("*.json"))
    assert len(kept) == 1 and json.loads(kept[0].read_text()) == receipt
    given = tmp_path / "receipt.json"
    given.write_text(json.dumps(erased))
    checked = _cli(worker, "erase", "--verify", str(given))
    assert checked.returncode == 0 and checked.stdout.startswith("valid:"), checked
    given.write_text(json.dumps({**receipt, "checked_at": "2020-01-01T00:00:00+00:00"}))
    refused = _cli(worker, "erase", "--verify", str(given))
    assert refused.returncode == 1 and "NOT VALID" in refused.stdout, refused


def test_an_erasure_interrupted_by_sigkill_completes_when_the_worker_starts_again(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    keys = DataKeys(data / "data-keys")
    worker = _start(data, embedder="none")  # vectors are the other test's
    try:
        _publish_both(worker, vectors=False)
        # The worker process stops applying (its API child still answers); the erasure
        # destroys the keys and is noted, then everything is killed before any row of
        # the user is dropped.
        commands_before = _commands_in_log(worker)
        worker.signal(signal.SIGSTOP)
        asking = threading.Thread(target=_erase_ignoring_failure, args=(worker.api_url,))
        asking.start()
        wait_until(lambda: keys.is_pending("ana"), timeout=60)
        # the erasure reaches the log (a restart would publish it again, but this test
        # kills the worker with the erasure in the log and no row dropped)
        wait_until(lambda: _commands_in_log(worker) > commands_before, timeout=60)
        worker.signal(signal.SIGKILL, group=True)
        worker.wait(30)
        asking.join(60)
        assert _rows_of(_store(data), "ana"), "rows were dropped before the kill"
    finally:
        worker.stop()
    restarted = _start(data, embedder="none")
    try:
        wait_until(lambda: not keys.is_pending("ana"), timeout=120)
        store = _store(data)
        assert _rows_of(store, "ana") == {}
        assert _rows_of(store, "bob")
        assert readable_copies(data, SECRETS) == []
    finally:
        assert restarted.stop(timeout=60) == 0


def _commands_in_log(worker: WorkerProcess) -> int:
    """How many records ``memory.commands`` holds (an erasure is one of them)."""
    return sum(asyncio.run(end_offsets(worker.bootstrap, COMMANDS)).values())


def _erase_ignoring_failure(url: str) -> None:
    with contextlib.suppress(httpx.HTTPError):  # killed while it waited for the worker
        httpx.delete(f"{url}/v1/users/ana", timeout=60)
