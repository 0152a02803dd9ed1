"""Hostile input against a real worker: no value in any field of any endpoint gets a
5xx or a reset connection, the worker stays up, and the good events sent beside the bad
ones are applied."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import httpx
import pytest

from memstream.projections.episodes import memory_id_for
from memstream.storage.filesystems import resolve_location
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.lance.tables import MEMORIES
from memstream.storage.layout import DataLayout
from memstream.testing import WorkerProcess, wait_until

pytestmark = [pytest.mark.broker, pytest.mark.slow]

HOSTILE: list[Any] = [
    "alice\n",
    "\x00",
    "a\x01b",
    "x" * 10_000,
    "' OR '1'='1",
    "user_id = 'bob' OR TRUE",
    "%",
    "*",
    "../../etc/passwd",
    "\u0430lice",  # a Cyrillic a
    "e\u0301\u202e",
    "9999-12-31T23:00:00-14:00",
    "0001-01-01T00:00:00Z",
    "",
    123,
    -1,
    1e308,
    None,
    True,
    [],
    {},
    ["\x00"],
]

DATES = ["9999-12-31T23:00:00-14:00", "0001-01-01T00:00:00+14:00", "0001-01-02", "10000-01-01"]


@pytest.fixture(scope="module")
def worker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WorkerProcess]:
    data = tmp_path_factory.mktemp("hostile") / "data"
    up = WorkerProcess(data).start()
    try:
        up.wait_serving()
        yield up
    finally:
        children = up.children()
        up.stop()
        WorkerProcess.wait_gone(children)


def message(i: int, **fields: Any) -> dict[str, Any]:
    return {
        "event_id": f"good-{i}",
        "user_id": "ana",
        "session_id": "s1",
        "role": "user",
        "content": f"I met John Smith yesterday about note {i}",
        "occurred_at": "2024-05-01T10:00:00Z",
        **fields,
    }


def requests_for(value: Any) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """(method, path, options) of every endpoint with ``value`` in one field."""
    text = value if isinstance(value, str) else "x"
    path = quote(text, safe="") or "%20"
    yield "GET", f"/v1/memories/{path}", {"params": {"user_id": "ana"}}
    yield "GET", f"/v1/memories/{path}", {"params": {"user_id": "ana", "expand": "true"}}
    yield "GET", f"/v1/memories/{path}/history", {"params": {"user_id": "ana"}}
    for verb in ("correct", "confirm", "forget", "restore"):
        body = {"user_id": "ana", "content": "new"} if verb == "correct" else {"user_id": "ana"}
        yield "POST", f"/v1/memories/{path}/{verb}", {"json": body}
        yield "POST", f"/v1/memories/ep-1/{verb}", {"json": {**body, "user_id": value}}
    yield "POST", "/v1/memories/ep-1/correct", {"json": {"user_id": "ana", "content": value}}
    for name, params in (
        ("user_id", {"user_id": value, "name": "John"}),
        ("name", {"user_id": "ana", "name": value}),
    ):
        del name
        yield "GET", "/v1/entities", {"params": {k: _param(v) for k, v in params.items()}}
    yield "GET", "/v1/memories/weak", {"params": {"user_id": _param(value)}}
    yield "GET", "/v1/stats", {"params": {"user_id": _param(value)}}
    yield "POST", "/v1/memories", {"json": {"user_id": value, "content": "x"}}
    yield "POST", "/v1/memories", {"json": {"user_id": "ana", "content": value}}
    for field in ("user_id", "project_id", "query", "k", "now", "after", "before"):
        yield "POST", "/v1/search", {"json": {"user_id": "ana", "query": "John", field: value}}
    for field in ("kinds", "tags"):
        yield "POST", "/v1/search", {"json": {"user_id": "ana", "query": "x", field: [value]}}
    for field in ("user_id", "session_id", "content", "occurred_at", "speaker", "metadata"):
        yield "POST", "/v1/events", {"json": [message(0, **{field: value})]}
    yield "POST", "/v1/events", {"json": value}


def _param(value: Any) -> str:
    return value if isinstance(value, str) else str(value)


def test_no_hostile_value_gets_a_server_error_and_the_worker_stays_up(
    worker: WorkerProcess,
) -> None:
    failures: list[str] = []
    attempts = 0
    with httpx.Client(base_url=worker.api_url, timeout=30) as client:
        for value in [*HOSTILE, *DATES]:
            for method, path, options in requests_for(value):
                attempts += 1
                try:
                    response = client.request(method, path, **options)
                except httpx.HTTPError as exc:
                    failures.append(f"{method} {path} {options}: {exc!r}")
                    continue
                if response.status_code >= 500:
                    failures.append(f"{method} {path} {options}: {response.status_code}")
    assert attempts > 800
    assert failures == [], "\n".join(failures[:20])
    worker.check_alive()


def test_good_events_beside_edge_dates_are_applied(worker: WorkerProcess) -> None:
    good = [message(100 + i) for i in range(20)]
    edge = message(999, occurred_at="0001-01-01T00:00:00Z")
    done = httpx.post(f"{worker.api_url}/v1/events", json=[*good, edge], timeout=30)
    assert done.status_code == 422
    assert done.json()["detail"][0]["index"] == 20
    done = httpx.post(f"{worker.api_url}/v1/events", json=good, timeout=30)
    assert done.status_code == 202
    uri = DataLayout(resolve_location(str(worker.data))).existing_projections()
    assert uri is not None
    store = ProjectionStore.at(uri)
    expected = {memory_id_for("ana", e["event_id"]) for e in good}

    def applied() -> bool:
        store.refresh()
        ids = set(store.scan(MEMORIES, columns=["memory_id"]).column("memory_id").to_pylist())
        return expected <= ids

    wait_until(applied, timeout=30)
    worker.check_alive()


def test_the_openapi_document_tells_the_truth(worker: WorkerProcess) -> None:
    """schemathesis, every check: no server error, every status code and body as
    documented, schema-valid requests accepted and schema-violating ones refused, with
    the exceptions ``tests/schemathesis.toml`` gives and explains (a resource just
    accepted is readable a moment later; a multipart form's fields are all text; a
    list's cursor is opaque)."""
    from support.contract import schemathesis

    done = schemathesis(worker.api_url)
    assert done.returncode == 0, done.stdout[-6000:]
    worker.check_alive()


def test_a_2_mb_invalid_record_is_dead_lettered_and_the_records_beside_it_applied(
    worker: WorkerProcess,
) -> None:
    """Produced straight to the topic (not through the API): the worker's dead letter is
    larger than the topic takes, so it carries a reference; nothing else is lost."""
    import json

    from memstream.storage.lance.tables import DEAD_LETTERS

    good = [message(500 + i, user_id="big") for i in range(2)]
    huge = b'{"user_id": "big", "content": "' + b"x" * 2_000_000 + b'"}'  # no session: invalid

    produce_raw(worker, [json.dumps(good[0]).encode(), huge, json.dumps(good[1]).encode()], b"big")
    uri = DataLayout(resolve_location(str(worker.data))).existing_projections()
    assert uri is not None
    store = ProjectionStore.at(uri)
    expected = {memory_id_for("big", e["event_id"]) for e in good}

    def settled() -> bool:
        store.refresh()
        ids = set(store.scan(MEMORIES, columns=["memory_id"]).column("memory_id").to_pylist())
        sizes = store.scan(DEAD_LETTERS, columns=["value"]).column("value").to_pylist()
        return expected <= ids and any(len(v) == len(huge) for v in sizes)

    wait_until(settled, timeout=30)
    worker.check_alive()


def produce_raw(worker: WorkerProcess, values: list[bytes], key: bytes) -> None:
    """Produce ``values`` straight to ``memory.messages``, past every front door."""
    import asyncio

    from aiokafka import AIOKafkaProducer

    from memstream.streams.topics import MESSAGES

    async def produce() -> None:
        producer = AIOKafkaProducer(bootstrap_servers=worker.bootstrap, max_request_size=4 << 20)
        await producer.start()
        try:
            for value in values:
                await producer.send_and_wait(MESSAGES, value, key=key)
        finally:
            await producer.stop()

    asyncio.run(produce())


def _raw_event(**fields: str) -> bytes:
    """A message body as raw JSON text, its fields given as JSON text (so that it can
    hold what ``json.dumps`` would refuse or change)."""
    base = {
        "user_id": '"ana"',
        "session_id": '"s1"',
        "role": '"user"',
        "content": '"a note"',
        "occurred_at": '"2024-05-01T10:00:00Z"',
    }
    return ("{" + ", ".join(f'"{k}": {v}' for k, v in {**base, **fields}.items()) + "}").encode()


def _nested(depth: int) -> str:
    return '{"a": ' * (depth - 1) + "{}" + "}" * (depth - 1)


#: (raw body, the field its 422 names): each answered 500 or was altered before.
REFUSED_BODIES = [
    (_raw_event(content='"\\ud800"'), "content"),
    (_raw_event(metadata='{"k": "\\ud800"}'), "metadata.k"),
    (_raw_event(metadata='{"\\ud800": 1}'), "metadata"),
    (_raw_event(metadata=_nested(200)), "metadata.a"),
    (_raw_event(metadata=_nested(300)), "metadata.a"),
    (_raw_event(metadata=_nested(900)), "metadata.a"),
    (_raw_event(metadata="[" * 10_000 + "]" * 10_000), "metadata.0"),
    (_raw_event(metadata='{"x": NaN}'), "metadata.x"),
    (_raw_event(metadata='{"x": 1e400}'), "metadata.x"),
    (_raw_event(metadata='{"x": [-Infinity]}'), "metadata.x.0"),
]


def test_what_cannot_be_stored_faithfully_is_refused_naming_the_field(
    worker: WorkerProcess,
) -> None:
    """422 with the event and the field named, and the connection goes on serving."""
    with httpx.Client(base_url=worker.api_url, timeout=30) as client:
        for body, field in REFUSED_BODIES:
            for wrapped in (body, b"[" + body + b"]"):
                answer = client.post(
                    "/v1/events", content=wrapped, headers={"content-type": "application/json"}
                )
                assert answer.status_code == 422, (body[:120], answer.text)
                (refusal,) = answer.json()["detail"]
                assert refusal["index"] == 0
                assert refusal["problems"][0].startswith(field), (field, refusal)
        fine = client.post("/v1/events", json=message(700, metadata={"deep": [[{"ok": 1.5}]]}))
        assert fine.status_code == 202, fine.text
    worker.check_alive()


def test_records_the_doors_refuse_are_dead_lettered_when_produced_to_the_log(
    worker: WorkerProcess,
) -> None:
    """One rule for the doors and the worker: an id a door refuses, an event over the
    size limit, metadata nested past the limit, produced straight to the topic, are
    dead-lettered with the reason; the good record beside them is applied."""
    import json

    from memstream.storage.lance.tables import DEAD_LETTERS

    def event(i: int, **fields: Any) -> bytes:
        return json.dumps(message(800 + i, **{"user_id": "rule", **fields})).encode()

    refused = {
        "p\u043eison": event(0, user_id="p\u043eison"),
        "size": event(1, content="x" * 99_000, metadata={"pad": "y" * 850_000}),
        "nesting": event(2, metadata=json.loads(_nested(70))),
    }
    good = event(3)

    produce_raw(worker, [*refused.values(), good], b"rule")
    uri = DataLayout(resolve_location(str(worker.data))).existing_projections()
    assert uri is not None
    store = ProjectionStore.at(uri)

    def settled() -> list[str] | None:
        store.refresh()
        ids = set(store.scan(MEMORIES, columns=["memory_id"]).column("memory_id").to_pylist())
        reasons = [
            r["reason"]
            for r in store.scan(DEAD_LETTERS, columns=["reason", "value"]).to_pylist()
            if bytes(r["value"]) in refused.values()
        ]
        return reasons if memory_id_for("rule", "good-803") in ids and len(reasons) == 3 else None

    reasons = wait_until(settled, timeout=30)
    assert any(r.startswith("user_id: must be 1-200 characters of ASCII") for r in reasons)
    assert any("more than the 900,000 an event may take" in r for r in reasons)
    assert any("nested more than 64 levels deep" in r for r in reasons)
    worker.check_alive()
