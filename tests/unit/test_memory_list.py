"""Browsing a user's memories: pages in time order cut by a cursor that memories added
meanwhile never shift, filters, hidden memories on request, and refusals that say what
was wrong (through the HTTP API, in process)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memstream.application import Operations
from memstream.events.codec import encode
from memstream.http.app import create_app
from memstream.jobs.archiver import Archiver
from memstream.policies.coldness import ColdPolicy
from memstream.storage.archive.cold_store import ColdStore
from memstream.storage.filesystems import resolve_location
from memstream.storage.log_records import LogRecord
from memstream.storage.schemas import COLD_ORIGINAL_SCHEMA
from memstream.streams.projector import Projector
from memstream.testing import FakeClock, message

T0 = datetime(2024, 5, 1, 9, 0, tzinfo=UTC)


@pytest.fixture
def api(operations: Operations) -> TestClient:
    return TestClient(create_app(operations), base_url="http://127.0.0.1:8787")


def pages(api: TestClient, **params: Any) -> list[list[dict[str, Any]]]:
    """Every page of the list ``params`` ask for, following the cursors."""
    found: list[list[dict[str, Any]]] = []
    cursor = None
    while len(found) < 50:  # a cursor that led nowhere new would go round for ever
        answer = api.get(
            "/v1/memories",
            params={"user_id": "ana", **params, **({"cursor": cursor} if cursor else {})},
        )
        assert answer.status_code == 200, answer.text
        body = answer.json()
        found.append(body["memories"])
        cursor = body["next_cursor"]
        if cursor is None:
            return found
    raise AssertionError(f"the cursors went on past 50 pages: {found[-3:]}")


def test_pages_in_time_order_hidden_memories_on_request(api: TestClient) -> None:
    newest = pages(api, limit=1)
    listed = [m["content"] for page in newest for m in page]
    assert listed == [
        "Ana's cat Miso likes tuna.",  # the correction, in its place in time
        "Maria helped me move to Porto last week.",
        "I live in Lisbon with my cat Miso.",
    ]
    assert all(len(page) == 1 for page in newest)
    oldest = [m["content"] for page in pages(api, order="oldest", limit=2) for m in page]
    assert oldest == listed[::-1]
    everything = [m for page in pages(api, include_hidden="true") for m in page]
    assert [(m["content"], m["state"]) for m in everything] == [
        ("Ana's cat Miso likes tuna.", "current"),
        ("Ana's cat Miso likes sardines.", "superseded"),
        ("Maria helped me move to Porto last week.", "current"),
        ("I live in Lisbon with my cat Miso.", "current"),
    ]
    assert all(m["archived"] is False for m in everything)
    [[fact]] = pages(api, kind="fact")
    assert fact["content"] == "Ana's cat Miso likes tuna." and fact["kind"] == "fact"
    since = [m["content"] for page in pages(api, after="2024-05-01T09:01:00Z") for m in page]
    assert since == listed[:2]


def test_archived_memories_are_listed_marked_with_their_summary(
    operations: Operations, api: TestClient, tmp_path: Path
) -> None:
    cold = ColdStore(resolve_location(str(tmp_path / "cold")), COLD_ORIGINAL_SCHEMA)
    archiver = Archiver(operations.store, cold, ColdPolicy(idle_days=1, long_idle_days=1))
    archived = archiver.archive(T0 + timedelta(days=30))
    assert archived
    projector = Projector(operations.store, "memstream", FakeClock(T0), cold_store=cold)
    projector.apply(
        [
            LogRecord("e1", "memory.lifecycle", 0, i, T0, b"ana", encode(e))
            for i, e in enumerate(archived)
        ]
    )
    listed = [m for page in pages(api, limit=2) for m in page]
    gone = {e.memory_id for e in archived}
    assert {m["memory_id"] for m in listed if m["archived"]} == gone
    assert all(m["content"] for m in listed) and len(listed) == 3
    # an archived memory read by id: its summary, where its original is
    for memory_id in gone:
        one = api.get(f"/v1/memories/{memory_id}", params={"user_id": "ana"})
        assert one.status_code == 200, one.text
        assert one.json()["archived"] is True and one.json()["storage_ref"]
        assert (
            one.json()["content"]
            == next(m for m in listed if m["memory_id"] == memory_id)["content"]
        )
        page = api.get(f"/console/users/ana/memories/{memory_id}")
        assert page.status_code == 200 and "An archived memory" in page.text


def test_refusals_say_what_was_wrong(api: TestClient) -> None:
    cursor = api.get("/v1/memories", params={"user_id": "ana", "limit": 1}).json()["next_cursor"]
    wrong_way = api.get(
        "/v1/memories", params={"user_id": "ana", "cursor": cursor, "order": "oldest"}
    )
    assert wrong_way.status_code == 422 and "newest first, not oldest" in wrong_way.text
    made_up = api.get("/v1/memories", params={"user_id": "ana", "cursor": "bm90LWEtY3Vyc29y"})
    assert made_up.status_code == 422 and "cursor" in made_up.text
    for params in ({"kind": "gossip"}, {"limit": 0}, {"after": "yesterday"}):
        answer = api.get("/v1/memories", params={"user_id": "ana", **params})
        assert answer.status_code == 422, (params, answer.text)
    nobody = api.get("/v1/memories", params={"user_id": "nobody"}).json()
    assert (nobody["memories"], nobody["next_cursor"]) == ([], None)
    assert nobody["freshness"]["pending_writes"] is None  # no broker here: not known


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    page_size=st.integers(1, 4),
    added=st.lists(st.tuples(st.integers(0, 3), st.integers(-120, 120)), max_size=6),
)
def test_memories_added_while_paging_never_repeat_or_hide_one_already_there(
    operations: Operations, page_size: int, added: list[tuple[int, int]]
) -> None:
    """Memories are added between page reads (``(after page n, minutes from T0)``):
    every memory there at the start is listed exactly once, and no memory twice."""
    api = TestClient(create_app(operations), base_url="http://127.0.0.1:8787")
    projector = Projector(operations.store, consumer="memstream", clock=FakeClock(T0))
    before = {m["memory_id"] for page in pages(api) for m in page}
    seen: list[str] = []
    cursor = None
    offset = 100
    for read in range(20):
        for n, (after_page, minutes) in enumerate(added):
            if after_page == read:
                event = message(
                    event_id=f"late-{n}", user_id="ana", session_id="s2",
                    content=f"a memory added while paging, number {n}",
                    occurred_at=T0 + timedelta(minutes=minutes),
                )  # fmt: skip
                record = LogRecord("e1", "memory.messages", 0, offset, T0, b"ana", encode(event))
                offset += 1
                projector.apply([record])
        params: dict[str, Any] = {"user_id": "ana", "limit": page_size}
        if cursor:
            params["cursor"] = cursor
        body = api.get("/v1/memories", params=params).json()
        seen.extend(m["memory_id"] for m in body["memories"])
        cursor = body["next_cursor"]
        if cursor is None:
            break
    assert len(seen) == len(set(seen))
    assert before <= set(seen)
