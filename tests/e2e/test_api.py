"""The HTTP API and the embedder against a real worker, broker and LanceDB.

One worker runs with the default (MiniLM) embedder and its API; the tests publish
through the API, wait for embeddings, search, read memories, entities and stats, check
access reinforcement, and finally replay the log into new folders and compare digests
with the live state (vectors, entities and access counts included). The command line,
run beside the worker, asks its API instead of opening the data folder.
"""

from __future__ import annotations

import asyncio
import json
import re
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from memstream.client import MemoryClient
from memstream.jobs.embedding_agent import PASSAGES_PER_CALL
from memstream.projections.episodes import memory_id_for
from memstream.storage.filesystems import resolve_location
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.lance.tables import VECTORS
from memstream.storage.layout import DataLayout
from memstream.storage.write_tokens import parse_token, token_of_checkpoints
from memstream.streams.topics import PROJECTED_TOPICS, end_offsets
from memstream.testing import WorkerProcess, embedded_broker, free_port, wait_until
from memstream.text.passages import passages

pytestmark = [pytest.mark.broker, pytest.mark.slow]

CONVERSATION = [
    ("Maria", "I adopted a golden retriever puppy named Biscuit last Saturday."),
    ("Maria", "My sister Elena Petrova is visiting from Lisbon next week."),
    ("Sam", "Nice! Did you pay a lot for Biscuit? I heard puppies cost $1,500 these days."),
    ("Maria", "We are planning a hiking trip to the Alps in July. #travel"),
    ("Sam", "Ping @maria when the trip budget is ready, email sam@example.com"),
    ("Maria", "I started learning to play the cello in March, it is hard but fun."),
]


def event(i: int, speaker: str, text: str, user: str = "maria") -> dict[str, Any]:
    return {
        "event_id": f"{user}-{i}",
        "user_id": user,
        "session_id": "s1",
        "role": "user" if speaker == "Maria" else "assistant",
        "speaker": speaker,
        "content": text,
        "occurred_at": f"2024-05-0{1 + i % 5}T10:0{i}:00Z",
    }


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[WorkerProcess, Path]]:
    data = tmp_path_factory.mktemp("api") / "data"
    with embedded_broker() as bootstrap:
        worker = WorkerProcess(
            data,
            kafka=bootstrap,
            env={
                "MEMSTREAM_EMBEDDER": "minilm",
                "MEMSTREAM_EMBED_THREADS": "1",
                "MEMSTREAM_READ_AFTER_WRITE_SECONDS": "3",
            },
        ).start()
        worker.wait_ready()
        wait_until(lambda: _healthy(worker.api_url), timeout=60)
        yield worker, data
        worker.stop()


def _healthy(url: str) -> bool:
    try:
        return httpx.get(f"{url}/healthz", timeout=1).status_code == 200
    except httpx.HTTPError:
        return False


def stats(url: str, user: str) -> dict[str, Any]:
    document: dict[str, Any] = httpx.get(f"{url}/v1/stats", params={"user_id": user}).json()
    return document


def test_a_documents_status_says_when_its_chunks_are_findable_by_vector(
    running: tuple[WorkerProcess, Path],
) -> None:
    """``indexed`` is findable by words; ``embedded_chunks`` counts the chunks the
    embedder has given a vector, up to all of them."""
    worker, _ = running
    text = "\n\n".join(
        f"## Clause {n}\n\nThe tenant pays rent item {n} monthly." for n in range(30)
    )
    with MemoryClient(worker.api_url, timeout=60) as client:
        added = client.add_document("vera", text=text, document_id="lease.md", wait=60)
        shown = added["document"]
        assert shown["status"] == "indexed" and shown["chunks"] >= 1
        assert 0 <= shown["embedded_chunks"] <= shown["chunks"]

        def embedded() -> int:
            return int(client.document("vera", "lease.md")["embedded_chunks"])

        wait_until(lambda: embedded() == shown["chunks"], timeout=120)


def test_a_long_turns_passages_are_embedded_beside_the_turns_of_others(
    running: tuple[WorkerProcess, Path],
) -> None:
    """A turn of 40,000 characters (more passages than one call embeds) and another
    user's short turn after it: the short turn's vector, the long turn's own and every
    passage's, through the worker's turns and passages agents."""
    worker, data = running
    paragraph = "The release train leaves on Tuesdays; every service owner signs off first. "
    long_turn = "\n\n".join(f"{n}. " + paragraph * 5 for n in range(100))[:40_000]
    with MemoryClient(worker.api_url, timeout=60) as client:
        [long_id] = client.publish({"user_id": "paula", "session_id": "p", "role": "user",
                                    "content": long_turn})  # fmt: skip
        [short_id] = client.publish({"user_id": "quinn", "session_id": "q", "role": "user",
                                     "content": "my locker number is 4471"})  # fmt: skip
    uri = wait_until(lambda: DataLayout(resolve_location(str(data))).existing_projections()).uri
    store = ProjectionStore(uri, read_consistency_interval=timedelta(0))
    long_memory = memory_id_for("paula", long_id)
    expected = len(passages(long_turn))
    assert expected > PASSAGES_PER_CALL

    def embedded(where: str) -> int:
        return store.count(VECTORS, where)

    wait_until(lambda: embedded(f"memory_id = '{memory_id_for('quinn', short_id)}'") == 1, 120)
    wait_until(lambda: embedded(f"memory_id LIKE '{long_memory}+p%'") == expected, 120)
    assert embedded(f"memory_id = '{long_memory}'") == 1


def test_the_command_line_asks_the_server_running_for_its_data_folder(
    running: tuple[WorkerProcess, Path],
) -> None:
    from memstream.server_address import ADDRESS_FILE, running_api

    worker, data = running
    where = ("--data", str(data), "--kafka", worker.bootstrap)
    said = "I keep my passport in the blue drawer of the desk"
    # --wait answers once the worker has applied the message: the next command finds it
    published = _cli("publish", *where, "--wait", "--user", "carla", "--session", "s1", said)
    assert published.returncode == 0, published.stderr
    assert published.stdout.startswith("accepted 1 of 1\ntoken: w1.")
    assert stats(worker.api_url, "carla")["memories"] == {"episode": 1}
    # A later write's token, given to a read, is waited for, in either process.
    later = "My spare keys hang by the back door"
    again = _cli("publish", *where, "--user", "carla", "--session", "s1", later)
    token = again.stdout.split("token: ")[1].strip()
    for how in ((), ("--in-process",)):
        read = _cli("search", *where, *how, "--after-write", token, "--user", "carla", "keys")
        assert read.returncode == 0 and later in read.stdout, read.stderr
    said, later = later, said  # the newest first in the list below

    # The server announced itself in the data folder; the command asks it, and so never
    # opens the store (no LanceDB import) nor loads the model.
    assert running_api(data) == worker.api_url
    asked = _cli("-X", "importtime", "search", *where, "--user", "carla", "--json", "passport")
    assert asked.returncode == 0, asked.stderr
    assert " lancedb" not in asked.stderr and " onnxruntime" not in asked.stderr
    here = _cli("search", *where, "--in-process", "--user", "carla", "--json", "passport")
    assert here.returncode == 0, here.stderr
    answers = [json.loads(a.stdout[a.stdout.index("{") :])["results"] for a in (asked, here)]
    assert [r["content"] for r in answers[0]] == [r["content"] for r in answers[1]]
    assert answers[0][0]["content"] == later
    counted = _cli("stats", *where, "--user", "carla", "--json")
    assert json.loads(counted.stdout)["memories"] == {"episode": 2}

    # The list of a user's memories: the server's is the one the command makes itself.
    listed = [
        _cli("memories", "list", *where, *how, "--user", "carla", "--json")
        for how in ((), ("--in-process",))
    ]
    pages = [json.loads(done.stdout[done.stdout.index("{") :]) for done in listed]
    # the later read at least as fresh; a process of one command does not wait to ask
    # the broker for the log's ends (its pending writes are not known: null)
    fresh = [page.pop("freshness") for page in pages]
    assert _covers(fresh[1]["position"], fresh[0]["position"]), fresh
    assert fresh[1]["pending_writes"] is None
    assert pages[0] == pages[1] and [m["content"] for m in pages[0]["memories"]] == [said, later]
    with MemoryClient(worker.api_url) as client:
        assert [m["content"] for m in client.all_memories("carla", limit=1)] == [said, later]

    # What the server refuses is one error line, as when the command answers itself.
    for how in ((), ("--in-process",)):
        missing = _cli("history", *where, *how, "--user", "carla", "ep-nothing")
        assert missing.returncode == 2
        assert missing.stderr.strip() == "error: no memory ep-nothing for user carla"

    # A file left by a server that is gone, or a port another server now answers on,
    # is not trusted: the command opens the data folder itself.
    announced = json.loads((data / ADDRESS_FILE).read_text())
    elsewhere = data.parent / "elsewhere"
    elsewhere.mkdir()
    for changed in ({"instance": "another-run"}, {"pid": _gone_pid()}):
        (elsewhere / ADDRESS_FILE).write_text(json.dumps({**announced, **changed}))
        assert running_api(elsewhere) is None


def test_the_client_finds_the_server_as_the_command_line_does(
    running: tuple[WorkerProcess, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    from memstream import MemoryClient, MemstreamUnreachable

    worker, data = running
    for name in ("MEMSTREAM_API_URL", "MEMSTREAM_STATE_DIR", "MEMSTREAM_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("MEMSTREAM_DATA", str(data))
    with MemoryClient() as found:  # through the api.json of the data folder
        assert found.url == worker.api_url
        # A message without a time happened now; asked again, it is the same event.
        said = {"user_id": "dora", "session_id": "s1", "role": "user", "content": "I row"}
        first = found.publish(said)
        assert len(first) == 1 and first[0].startswith("sha256:")
        # the client's next read of the user waits for its write: no polling
        assert [m["content"] for m in found.list("dora")["memories"]] == ["I row"]
    answer = httpx.post(f"{worker.api_url}/v1/events", json={**said, "content": "I swim"})
    assert answer.status_code == 202, answer.text  # plain HTTP may leave the time out too

    closed = free_port()
    monkeypatch.setenv("MEMSTREAM_API_URL", f"http://127.0.0.1:{closed}")
    with MemoryClient() as nowhere:
        assert nowhere.url == f"http://127.0.0.1:{closed}"  # the variable comes first
        with pytest.raises(MemstreamUnreachable) as refused:
            nowhere.stats()
    assert str(refused.value) == (
        f"cannot reach memstream at http://127.0.0.1:{closed} (connection refused): start it "
        "with `memstream up`, or give the client its address (url=, or MEMSTREAM_API_URL)"
    )


def test_the_docs_pages_load_nothing_from_another_host(
    running: tuple[WorkerProcess, Path],
) -> None:
    worker, _ = running
    for page in ("/docs", "/redoc"):
        html = httpx.get(f"{worker.api_url}{page}").text
        assert re.findall(r"https?://[^\s\"'<>]+", html) == [], page  # no CDN, no fonts
        assets = re.findall(r'(?:src|href)="([^"]+)"', html)
        assert assets, page
        for asset in assets:
            assert asset.startswith("/docs-assets/"), asset
            loaded = httpx.get(f"{worker.api_url}{asset}")
            assert loaded.status_code == 200 and len(loaded.content) > 1000, asset


def _raw_answer(url: str, *parts: bytes) -> tuple[int, dict[str, str], bytes]:
    """Send ``parts`` as bytes on a new connection; the status, headers and body of
    the answer, read until the server closes."""
    host, port = url.removeprefix("http://").rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=10) as connection:
        for part in parts:
            connection.sendall(part)
        answer = b""
        while chunk := connection.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.lower().split(": ", 1) for line in lines)
    return int(status_line.split()[1]), headers, body


def test_a_request_the_parser_cannot_read_is_answered_in_the_apis_json(
    running: tuple[WorkerProcess, Path],
) -> None:
    worker, _ = running
    host = worker.api_url.removeprefix("http://").encode()
    # a head that goes on past 16 KiB without ending: refused (the last part crosses
    # the bound, so nothing is sent after the answer)
    opening = b"GET /v1/memories?user_id=maria HTTP/1.1\r\nHost: " + host + b"\r\n"
    more = [b"X-Said: " + b"do-not-echo-" * 500 + b"\r\n" for _ in range(3)]  # 6 kB each
    status, headers, body = _raw_answer(worker.api_url, opening, *more)
    assert (status, headers["content-type"], headers["connection"]) == (
        400,
        "application/json",
        "close",
    )
    assert "16 KiB" in json.loads(body)["detail"] and b"do-not-echo" not in body
    status, headers, body = _raw_answer(worker.api_url, b"NOT HTTP AT ALL do-not-echo\r\n\r\n")
    assert (status, headers["content-type"]) == (400, "application/json")
    assert b"do-not-echo" not in body
    # a head within the bound is read, and answered by the API
    whole = opening + b"".join(more[:2]) + b"Connection: close\r\n\r\n"
    status, _, body = _raw_answer(worker.api_url, whole)
    assert status == 200 and "memories" in json.loads(body)


def test_a_read_given_a_writes_token_sees_that_write_every_time(
    running: tuple[WorkerProcess, Path],
) -> None:
    worker, _ = running
    url = worker.api_url
    for i in range(15):  # each read right after its write, no sleep, no polling
        word = f"quorbl{i}x"
        said = {"user_id": "rita", "session_id": "s1", "role": "user", "content": f"I saw {word}"}
        written = httpx.post(f"{url}/v1/events", json=said)
        assert written.status_code == 202, written.text
        token = written.json()["token"]
        found = httpx.post(
            f"{url}/v1/search", json={"user_id": "rita", "query": word, "after_write": token}
        ).json()["results"]
        assert found and word in found[0]["content"], (i, found)
    # A slot's value stated three times ends the last, and a forget ends forgotten.
    for city in ("Lisbon", "Berlin", "Lisbon"):
        fact = {"user_id": "rita", "content": f"Rita lives in {city}", "subject": "Rita",
                "attribute": "home", "exclusive": True}  # fmt: skip
        done = httpx.post(f"{url}/v1/memories", json=fact).json()
    listing = {"user_id": "rita", "kind": "fact", "after_write": done["token"]}
    page = httpx.get(f"{url}/v1/memories", params=listing).json()["memories"]
    assert [m["content"] for m in page] == ["Rita lives in Lisbon"]
    forgot = httpx.post(f"{url}/v1/memories/{done['memory_id']}/forget", json={"user_id": "rita"})
    after = {"user_id": "rita", "kind": "fact", "after_write": forgot.json()["token"]}
    assert httpx.get(f"{url}/v1/memories", params=after).json()["memories"] == []
    asked = {"user_id": "rita", "query": "did I see quorbl14x?", "after_write": token}
    block = httpx.post(f"{url}/v1/context", json=asked).json()
    assert "quorbl14x" in block["context"]

    # The client passes its own writes' tokens: what it wrote, its next read sees.
    with MemoryClient(url) as client:
        for i in range(10):
            memory_id = client.remember("rita", f"Rita's locker code is {1000 + i}")
            assert client.written("rita") is not None
            assert client.memory("rita", memory_id)["content"].endswith(str(1000 + i))
            assert client.written("rita") is None  # seen: later reads wait for nothing
        new_id = client.correct("rita", memory_id, "Rita's locker code is 4242")
        assert [h["memory_id"] for h in client.history("rita", new_id)] == [memory_id, new_id]
        last = parse_token(client.last_token or "")
        fresh = client.freshness("rita")  # waits for the correction, which the history saw
        assert fresh["waited_ms"] is None and isinstance(fresh["pending_writes"], int)
        held = parse_token(fresh["position"]).positions  # of the user's partitions
        assert all(held[at] >= offset for at, offset in last.positions.items()), (held, last)

    # A write the log has not reached yet: refused after the bounded wait, saying why.
    ahead = fresh["position"][:3] + _far_ahead(fresh["position"])
    late = httpx.post(
        f"{url}/v1/search", json={"user_id": "rita", "query": "code", "after_write": ahead}
    )
    assert late.status_code == 503 and late.headers["retry-after"] == "1", late.text
    assert "not applied yet" in late.json()["detail"]  # after the deployment's 3 s wait
    for bad in ("w1.!!", "nonsense", "w1." + "A" * 50):
        refused = httpx.get(f"{url}/v1/freshness", params={"user_id": "rita", "after_write": bad})
        assert refused.status_code == 422 and "after_write" in refused.text, refused.text
        assert bad not in refused.text


def test_every_answer_says_how_fresh_it_is(running: tuple[WorkerProcess, Path]) -> None:
    worker, _ = running
    url = worker.api_url
    said = {"user_id": "una", "session_id": "s1", "role": "user", "content": "I keep a zorblat"}
    token = httpx.post(f"{url}/v1/events", json=said).json()["token"]
    asked = {"user_id": "una", "query": "zorblat", "after_write": token}
    # the deployment waits 3 s for a write: the first after its start (this test alone)
    # can take longer, while the worker joins its group; asked again until it is applied
    wait_until(lambda: httpx.post(f"{url}/v1/search", json=asked).status_code == 200)
    answers = {
        "search": httpx.post(f"{url}/v1/search", json=asked).json(),
        "context": httpx.post(f"{url}/v1/context", json=asked).json(),
        "list": httpx.get(f"{url}/v1/memories", params=asked).json(),
    }
    for name, answer in answers.items():
        fresh = answer["freshness"]
        assert _covers(fresh["position"], token), (name, fresh)  # the write it waited for
        assert isinstance(fresh["pending_vectors"], int), (name, fresh)
    assert answers["search"]["results"][0]["content"] == "I keep a zorblat"

    # The worker frozen: accepted writes are not applied, and the answers say so.
    worker.signal(signal.SIGSTOP)
    try:
        for n in range(3):
            said = {**said, "content": f"I keep {n} more"}
            late = httpx.post(f"{url}/v1/events", json=said).json()["token"]

        def behind() -> tuple[dict[str, Any], dict[str, Any]] | None:
            found = httpx.post(f"{url}/v1/search", json={"user_id": "una", "query": "keep"})
            listed = httpx.get(f"{url}/v1/memories", params={"user_id": "una"})
            both = (found.json()["freshness"], listed.json()["freshness"])
            return both if all((f["pending_writes"] or 0) >= 3 for f in both) else None

        # the log's ends are asked beside the reads, every 2 s: soon both reads count the
        # three writes as waiting, and neither claims a position that holds them
        for fresh in wait_until(behind, timeout=120):
            assert not _covers(fresh["position"], late), fresh
        shown = _cli("search", "--api", url, "--user", "una", "keep")  # says so too
        assert shown.returncode == 0 and "accepted writes not applied yet" in shown.stderr
    finally:
        worker.signal(signal.SIGCONT)
    asked = {"user_id": "una", "query": "more", "after_write": late}
    fresh = httpx.post(f"{url}/v1/search", json=asked).json()["freshness"]
    assert _covers(fresh["position"], late), fresh


def test_a_block_holds_only_what_bears_on_the_question(
    running: tuple[WorkerProcess, Path],
) -> None:
    worker, _ = running
    said = ["Ana's cat Miso likes tuna.", "I moved to Porto last week.",
            "My sister Rita lives in Braga.", "I water the tomatoes every morning."]  # fmt: skip
    with MemoryClient(worker.api_url) as client:
        for text in said:
            client.remember("vic", text)
        client.freshness("vic", wait="vectors")  # applied, and every vector made
        hotel = client.context("vic", "What is the hotel booking reference?")
        assert hotel["context"] is None and len(hotel["left_out"]) == len(said)
        assert {o["reason"] for o in hotel["left_out"]} == {
            "bears not on the question: too little of its words, no name of it, far in meaning"
        }
        everything = client.context("vic", "What is the hotel booking reference?", cutoff=False)
        assert everything["context"] is not None  # asked without the cut-off
        sister = client.context("vic", "Who is my sister?")["context"]
        assert sister is not None and "Rita" in sister


def _covers(position: str | None, token: str) -> bool:
    """Whether ``position`` (an answer's) is at or past every offset ``token`` names."""
    if position is None:
        return False
    held = parse_token(position).positions
    return all(held.get(at, -1) >= offset for at, offset in parse_token(token).positions.items())


def _far_ahead(token: str) -> str:
    """The body of ``token`` with every offset a million records further on."""
    import base64

    body = token[3:]
    document = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    document["p"] = {
        topic: {part: offset + 1_000_000 for part, offset in at.items()}
        for topic, at in document["p"].items()
    }
    raw = json.dumps(document, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _gone_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_publish_search_entities_stats_access_and_replay(
    running: tuple[WorkerProcess, Path], tmp_path: Path
) -> None:
    worker, data = running
    url = worker.api_url
    events = [event(i, s, t) for i, (s, t) in enumerate(CONVERSATION)]
    events.append(event(0, "Mallory", "Maria's secret: the safe code is 4321", user="mallory"))
    answer = httpx.post(f"{url}/v1/events", json=events)
    assert answer.status_code == 202, answer.text
    assert answer.json()["accepted"] == [e["event_id"] for e in events]

    bad = httpx.post(f"{url}/v1/events", json=[events[0], {"user_id": "x y", "content": ""}])
    assert bad.status_code == 422
    [problem] = bad.json()["detail"]
    assert problem["index"] == 1
    assert any(p.startswith("user_id:") for p in problem["problems"])
    assert any(p.startswith("session_id:") for p in problem["problems"])

    wait_until(lambda: stats(url, "maria")["memories"].get("episode") == 6, timeout=60)
    wait_until(lambda: stats(url, "maria")["embedding_lag"] == 0, timeout=120)
    # a reader may see a batch's episodes a moment before its entities (another table)
    # Maria, Sam, Biscuit, Elena Petrova, Lisbon, ...
    wait_until(lambda: stats(url, "maria")["entities"] >= 8, timeout=30)

    # A paraphrase that shares no content word with the memory: the vectors find it.
    found = httpx.post(
        f"{url}/v1/search", json={"user_id": "maria", "query": "which instrument is she studying"}
    )
    assert found.status_code == 200, found.text
    body = found.json()
    assert body["results"][0]["content"].startswith("I started learning to play the cello")
    assert body["intent"] == "what" and body["took_ms"] > 0
    # where the time went: a Server-Timing header, each stage and the total (a
    # retriever with nothing to look for, as entities for a query naming none, is not
    # run and not reported)
    timing = dict(part.strip().split(";dur=") for part in found.headers["server-timing"].split(","))
    stages = {"full_text", "vectors", "embed", "retrieve", "look_up", "rank"}
    assert stages < set(timing) and float(timing["total"]) >= float(timing["retrieve"]) > 0
    assert "entities" not in timing
    named = httpx.post(f"{url}/v1/search", json={"user_id": "maria", "query": "what about Sam"})
    assert "entities;dur=" in named.headers["server-timing"]
    assert "timings" not in body
    top = body["results"][0]
    assert top["source_event_ids"] == ["maria-5"] and top["speaker"] == "Maria"

    when = httpx.post(
        f"{url}/v1/search",
        json={"user_id": "maria", "query": "When is Elena coming?", "k": 3},
    ).json()
    assert when["intent"] == "when"
    assert "Elena Petrova" in when["results"][0]["entities"]

    tagged = httpx.post(
        f"{url}/v1/search", json={"user_id": "maria", "query": "trip", "tags": ["travel"]}
    ).json()
    assert [r["source_event_ids"] for r in tagged["results"]] == [["maria-3"]]

    # Scope: another user's memory is never returned, whatever the query.
    for query in ("safe code 4321", "Maria's secret", "' OR user_id = 'mallory"):
        hits = httpx.post(f"{url}/v1/search", json={"user_id": "maria", "query": query}).json()
        assert all(r["source_event_ids"][0].startswith("maria-") for r in hits["results"])

    invalid = httpx.post(f"{url}/v1/search", json={"user_id": "maria", "query": "x", "k": 0})
    assert invalid.status_code == 422 and any("k:" in p for p in invalid.json()["detail"])

    profile = httpx.get(f"{url}/v1/entities", params={"user_id": "maria", "name": "elena petrova"})
    assert profile.status_code == 200, profile.text
    assert profile.json()["name"] == "Elena Petrova" and profile.json()["mention_count"] == 1
    maria = httpx.get(f"{url}/v1/entities", params={"user_id": "maria", "name": "@Maria"}).json()
    assert maria["mention_count"] >= 5  # the speaker, and the @mention, are one entity
    missing = httpx.get(f"{url}/v1/entities", params={"user_id": "maria", "name": "Nobody"})
    assert missing.status_code == 404

    memory_id = top["memory_id"]
    got = httpx.get(f"{url}/v1/memories/{memory_id}", params={"user_id": "maria"})
    assert got.status_code == 200 and got.json()["content"] == top["content"]
    other = httpx.get(f"{url}/v1/memories/{memory_id}", params={"user_id": "mallory"})
    assert other.status_code == 404

    # Each search reported what it returned: access counts rise, through the log.
    wait_until(
        lambda: (
            httpx.get(f"{url}/v1/memories/{memory_id}", params={"user_id": "maria"}).json()[
                "access_count"
            ]
            >= 1
        ),
        timeout=30,
    )
    spec = httpx.get(f"{url}/openapi.json").json()
    assert {"/v1/events", "/v1/search", "/v1/stats", "/v1/entities"} <= set(spec["paths"])

    # What an agent was shown is recorded (ids, scores, digest) and rendered again
    asked = {"user_id": "maria", "query": "Who is Elena Petrova and when is she coming?"}
    agent = {"Memstream-Agent": "codex", "Memstream-Session": "codex-7"}
    block = httpx.post(f"{url}/v1/context", json=asked, headers=agent).json()["context"]
    assert block

    def served_to_codex() -> list[dict[str, Any]]:
        listed = httpx.get(f"{url}/v1/served", params={"user_id": "maria"}).json()["served"]
        return [s for s in listed if s["agent"] == "codex"]

    [record] = wait_until(served_to_codex, timeout=30)
    assert record["session_id"] == "codex-7" and record["question"] == asked["query"]
    one = httpx.get(f"{url}/v1/served/{record['served_id']}", params={"user_id": "maria"}).json()
    assert one["rebuilt"]["text"] == block and one["rebuilt"]["matches"] is True

    # Replay rebuilds the same state, vectors, entities and access counts included: the
    # log (every topic the worker folds: the searches' access events, the embedders'
    # vectors) cut where the stopped worker's projections are (background lanes may
    # have written records it did not apply before it stopped)
    wait_until(lambda: _all_applied(url, worker.bootstrap), timeout=120)
    worker.stop()
    live = _cli("digest", "--data", str(data)).stdout.strip()
    held = ProjectionStore.at(DataLayout(resolve_location(str(data))).projections())
    position = token_of_checkpoints(held.load_checkpoints())
    assert position is not None
    for source in ("kafka", "archive"):
        target = tmp_path / f"replay-{source}"
        done = _cli(
            "replay",
            "--data",
            str(data),
            "--kafka",
            worker.bootstrap,
            "--source",
            source,
            "--through",
            position.text(),
            "--into",
            str(target),
        )
        assert done.returncode == 0, done.stderr
        assert _cli("digest", "--data", str(target)).stdout.strip() == live, source
        # the block the agent was shown, rendered again over the fresh folder
        shown = _cli("served", "--user", "maria", record["served_id"], "--json",
                     "--data", str(target))  # fmt: skip
        assert shown.returncode == 0, shown.stderr
        assert json.loads(shown.stdout)["rebuilt"]["text"] == block, source
    assert not (data / "api.json").exists()  # the server took its address with it


def _all_applied(url: str, bootstrap: str) -> bool:
    """Whether the worker has applied every record of every topic it folds."""
    applied = httpx.get(f"{url}/v1/stats", timeout=30).json()["applied_offsets"]

    async def ends() -> dict[str, int]:
        found = {}
        for topic in PROJECTED_TOPICS:
            for partition, end in (await end_offsets(bootstrap, topic)).items():
                found[f"{topic}/{partition}"] = end
        return found

    return all(
        end == 0 or (at in applied and applied[at]["offset"] + 1 >= end)
        for at, end in asyncio.run(ends()).items()
    )


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    """``memstream ARGS``; interpreter options (``-X importtime``) may come first."""
    options: tuple[str, ...] = args[:2] if args[:1] == ("-X",) else ()
    command = [sys.executable, *options, "-m", "memstream", *args[len(options) :]]
    return subprocess.run(command, capture_output=True, text=True, timeout=120)


def test_serve_without_a_broker_searches_and_refuses_to_publish(tmp_path: Path) -> None:
    from memstream.storage.filesystems import resolve_location
    from memstream.storage.lance.store import ProjectionStore
    from memstream.storage.layout import DataLayout
    from memstream.testing import free_port

    data = tmp_path / "data"
    ProjectionStore.at(DataLayout(resolve_location(str(data))).projections())
    port = free_port()
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "memstream",
            "serve",
            "--data",
            str(data),
            "--port",
            str(port),
            "--kafka",
            f"127.0.0.1:{free_port()}",
            "--embedder",
            "none",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until(lambda: _healthy(url), timeout=60)
        found = httpx.post(f"{url}/v1/search", json={"user_id": "ana", "query": "porto"})
        assert found.status_code == 200 and found.json()["results"] == []
        refused = httpx.post(f"{url}/v1/events", json=event(0, "Maria", "hello"), timeout=60)
        assert refused.status_code == 503
        assert "no Kafka broker answers" in refused.json()["detail"]
    finally:
        server.terminate()
        server.wait(30)
