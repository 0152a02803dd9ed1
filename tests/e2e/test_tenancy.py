"""Tenants kept apart, against a real worker, broker and LanceDB: every endpoint and the
MCP server, called with one tenant's keys on another tenant's user (existing or not),
and with hostile identifiers and filters; then the other tenant's memory is checked
unchanged and the audit log checked for what was changed, without content."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from memstream.client import MemoryClient
from memstream.gate.guard import FORBIDDEN
from memstream.tenancy.keys import KeyStore
from memstream.testing import WorkerProcess, wait_until

pytestmark = [pytest.mark.broker, pytest.mark.slow]

#: A word only globex's user said, and the words around it no acme answer may contain
#: (a refusal may repeat the word when the request itself named it).
SECRET = "wombat"
SAID = "secret pet is a"


class Deployment:
    def __init__(self, worker: WorkerProcess, data: Path, tokens: dict[str, str]) -> None:
        self.worker, self.data, self.tokens = worker, data, tokens
        self.bob_memory = ""

    def call(
        self, who: str | None, method: str, path: str, body: Any = None, **params: Any
    ) -> httpx.Response:
        headers = {"Authorization": f"Bearer {self.tokens[who]}"} if who else {}
        return httpx.request(
            method,
            f"{self.worker.api_url}{path}",
            json=body,
            params=params or None,
            headers=headers,
            timeout=30,
        )


def _event(user: str, i: int, text: str) -> dict[str, Any]:
    return {
        "event_id": f"{user}-{i}",
        "user_id": user,
        "session_id": "s1",
        "role": "user",
        "speaker": "Bob",
        "content": text,
        "occurred_at": f"2024-05-01T10:0{i}:00Z",
    }


@pytest.fixture(scope="module")
def deployment(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    data = tmp_path_factory.mktemp("tenancy") / "data"
    keys = KeyStore(data)
    tokens = {
        "acme": keys.create("acme", "write")[1],
        "acme-read": keys.create("acme", "read")[1],
        "globex": keys.create("globex", "write")[1],
        "acme-admin": keys.create("acme", "admin")[1],
    }
    worker = WorkerProcess(data).start()
    try:
        worker.wait_serving()
        d = Deployment(worker, data, tokens)
        said = [_event("globex:bob", 1, f"My secret pet is a {SECRET} called Fig.")]
        said.append(_event("acme:ana", 2, "I drink quokka tea every morning."))
        assert d.call("globex", "POST", "/v1/events", said[:1]).status_code == 202
        assert d.call("acme", "POST", "/v1/events", said[1:]).status_code == 202

        def bob_found() -> list[dict[str, Any]]:
            ask = {"user_id": "globex:bob", "query": f"{SECRET} pet"}
            found: list[dict[str, Any]] = d.call("globex", "POST", "/v1/search", ask).json()[
                "results"
            ]
            return found

        d.bob_memory = wait_until(bob_found, timeout=60)[0]["memory_id"]
        yield d
    finally:
        worker.stop(timeout=60)


def _endpoints(user: str, memory: str) -> list[tuple[str, str, Any, dict[str, Any]]]:
    """(method, path, body, query parameters) of every endpoint, acting on ``user``."""
    q = {"user_id": user}
    return [
        ("POST", "/v1/search", {"user_id": user, "query": f"{SECRET} pet"}, {}),
        ("POST", "/v1/context", {"user_id": user, "query": f"what is my {SECRET}?"}, {}),
        ("GET", "/v1/entities", None, {**q, "name": "Fig"}),
        ("GET", f"/v1/memories/{memory}", None, q),
        ("GET", f"/v1/memories/{memory}", None, {**q, "expand": "true"}),
        ("GET", f"/v1/memories/{memory}/history", None, q),
        ("GET", f"/v1/memories/{memory}/explain", None, q),
        ("GET", "/v1/memories/weak", None, q),
        ("GET", "/v1/stats", None, q),
        ("POST", f"/v1/memories/{memory}/restore", {"user_id": user}, {}),
        ("POST", f"/v1/memories/{memory}/correct", {"user_id": user, "content": "a cat"}, {}),
        ("POST", f"/v1/memories/{memory}/confirm", {"user_id": user}, {}),
        ("POST", f"/v1/memories/{memory}/forget", {"user_id": user}, {}),
        ("POST", "/v1/memories", {"user_id": user, "content": "Bob owns nothing."}, {}),
        ("POST", "/v1/events", [_event(user, 9, "I gave my pet away.")], {}),
        ("GET", f"/v1/users/{quote(user, safe='')}/export", None, {"format": "markdown"}),
        ("DELETE", f"/v1/users/{quote(user, safe='')}", None, {}),
    ]


def test_a_key_of_one_tenant_gets_403_on_every_endpoint_of_another_alike(
    deployment: Deployment,
) -> None:
    d = deployment
    for user in ("globex:bob", "globex:ghost"):  # one exists, one does not: same answer
        for method, path, body, params in _endpoints(user, d.bob_memory):
            for who in ("acme", "acme-read"):
                answer = d.call(who, method, path, body, **params)
                assert (answer.status_code, answer.json()) == (403, {"detail": FORBIDDEN}), (
                    who,
                    method,
                    path,
                    user,
                )
            anonymous = d.call(None, method, path, body, **params)
            assert anonymous.status_code == 401, (method, path)
    assert d.call("acme", "GET", "/v1/stats").status_code == 403  # every tenant's counts
    own = d.call("acme", "DELETE", "/v1/users/acme:ana")  # a write key erases no one
    assert own.status_code == 403 and "admin key" in own.json()["detail"]
    export = d.call("acme", "GET", "/v1/users/acme:ana/export")  # nor exports anyone
    assert export.status_code == 403 and "exporting a user needs an admin key" in export.text
    with MemoryClient(d.worker.api_url, api_key=d.tokens["acme-admin"]) as admin:
        lines = b"".join(admin.export("acme:ana")).decode().splitlines()
    assert json.loads(lines[0])["user_id"] == "acme:ana"
    assert "quokka tea" in lines[1] and SECRET not in "".join(lines)  # decrypted, hers alone
    mcp = httpx.post(
        f"{d.worker.api_url}/mcp",
        params={"user_id": "globex:bob"},
        headers={"Authorization": f"Bearer {d.tokens['acme']}"},
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
    )
    assert (mcp.status_code, mcp.json()["detail"]) == (403, FORBIDDEN)
    assert mcp.json()["error"]["message"] == FORBIDDEN  # what an MCP client shows
    no_key = httpx.post(f"{d.worker.api_url}/mcp", params={"user_id": "acme:ana"}, json={})
    assert no_key.status_code == 401


HOSTILE = [
    "globex:bob' OR '1'='1",
    "acme:ana' OR user_id = 'globex:bob",
    'acme:ana"; DROP TABLE memories; --',
    "acme:%",
    "acme:*",
    "acme:ana%",
    "acme:_",
    "acme:ana\x00globex:bob",
    "\u0430cme:ana",  # a Cyrillic a
    "acme\uff1aana",  # a full-width colon
    "acme:ana/../globex:bob",
    "acme:" + "x" * 10_000,
    "globex:bob\n",
    "",
]


@pytest.mark.parametrize("user", HOSTILE)
def test_hostile_identifiers_and_filters_leak_nothing_and_break_nothing(
    deployment: Deployment, user: str
) -> None:
    d = deployment
    for method, path, body, params in _endpoints(user, d.bob_memory):
        if method == "POST" and path != "/v1/search" and path != "/v1/context":
            continue  # writes: below, with the read key, so nothing is written
        answer = d.call("acme", method, path, body, **params)
        assert answer.status_code in (200, 403, 404, 422), (path, user, answer.text)
        assert SAID not in answer.text.lower(), (path, user)
    for method, path, body, params in _endpoints(user, d.bob_memory):
        if method in ("POST", "DELETE") and path not in ("/v1/search", "/v1/context"):
            answer = d.call("acme-read", method, path, body, **params)
            assert answer.status_code in (403, 404, 422), (path, user, answer.text)
    for text in (f"{SECRET}' OR 1=1 --", "*", "%", "user_id:globex*", "\x00", "w" * 2000):
        ask = {"user_id": "acme:ana", "query": text}
        answer = d.call("acme", "POST", "/v1/search", ask)
        assert answer.status_code in (200, 422) and SAID not in answer.text.lower(), text
        entity = d.call("acme", "GET", "/v1/entities", user_id="acme:ana", name=text)
        assert entity.status_code in (404, 422) and SAID not in entity.text.lower(), text


def test_the_other_tenants_memory_is_unchanged_and_changes_are_audited(
    deployment: Deployment,
) -> None:
    d = deployment
    test_a_key_of_one_tenant_gets_403_on_every_endpoint_of_another_alike(d)
    memory = d.call("globex", "GET", f"/v1/memories/{d.bob_memory}", user_id="globex:bob").json()
    assert SECRET in memory["content"] and memory.get("state", {}).get("forgotten") is not True
    stats = d.call("globex", "GET", "/v1/stats", user_id="globex:bob").json()
    assert stats["memories"]["episode"] == 1, stats
    lines = [
        json.loads(line) for line in (d.data / "logs" / "audit.jsonl").read_text().splitlines()
    ]
    published = [(a["tenant"], a["operation"], a["user_id"]) for a in lines]
    assert ("globex", "publish", "globex:bob") in published
    assert ("acme", "publish", "acme:ana") in published
    changes = [a for a in lines if a["operation"] != "refused"]
    assert all(a["user_id"] is None or a["user_id"].startswith(f"{a['tenant']}:") for a in changes)
    assert ("acme", "refused", "globex:bob") in published  # the probe is on record
    text = (d.data / "logs" / "audit.jsonl").read_text()
    assert SECRET not in text and "quokka" not in text


def test_mcp_with_a_key_reaches_its_user_and_a_read_key_cannot_write(
    deployment: Deployment,
) -> None:
    d = deployment

    async def session(who: str) -> tuple[list[str], bool, str]:
        http = create_mcp_http_client(headers={"Authorization": f"Bearer {d.tokens[who]}"})
        url = f"{d.worker.api_url}/mcp?user_id=acme:ana"
        async with http, Client(streamable_http_client(url, http_client=http)) as client:
            found = await client.call_tool("search_memory", {"query": "quokka tea"})
            contents = [r["content"] for r in (found.structured_content or {})["results"]]
            wrote = await client.call_tool("remember_fact", {"content": "Ana likes figs."})
            return contents, wrote.is_error, str(wrote.content[0].text)  # type: ignore[union-attr]

    contents, refused, why = asyncio.run(session("acme-read"))
    assert any("quokka" in c for c in contents) and all(SAID not in c for c in contents)
    assert refused and "read-only" in why
    _, refused, _ = asyncio.run(session("acme"))
    assert not refused
    assert any(
        (a["operation"], a.get("door"), a["tenant"], a["user_id"])
        == ("remember", "mcp", "acme", "acme:ana")
        for a in _audit_lines(d)
    )


def _audit_lines(d: Deployment) -> list[dict[str, Any]]:
    text = (d.data / "logs" / "audit.jsonl").read_text()
    return [json.loads(line) for line in text.splitlines()]


def test_refusals_are_audited_without_content_and_rate_limited(deployment: Deployment) -> None:
    d = deployment
    made = d.call("acme-admin", "POST", "/v1/keys", {"role": "read", "name": "probe"})
    assert made.status_code == 201, made.text
    d.tokens["probe"], probe_id = made.json()["key"], made.json()["key_id"]
    before = len(_audit_lines(d))
    for _ in range(3):
        ask = {"user_id": "globex:bob", "query": f"{SECRET} pet"}
        assert d.call("probe", "POST", "/v1/search", ask).status_code == 403
    refused = [a for a in _audit_lines(d)[before:] if a["operation"] == "refused"]
    assert len(refused) == 3
    assert refused[0]["tenant"] == "acme" and refused[0]["key_id"] == probe_id
    assert refused[0]["status"] == 403 and refused[0]["reason"] == FORBIDDEN
    assert refused[0]["user_id"] == "globex:bob" and refused[0]["route"] == "POST /v1/search"

    before = len(_audit_lines(d))
    with httpx.Client(base_url=d.worker.api_url, timeout=30) as client:
        headers = {"Authorization": f"Bearer {d.tokens['probe']}"}
        for i in range(200):  # a probe: one line each at first, then only counted
            answer = client.get(
                f"/v1/memories/m-{i}", params={"user_id": "globex:bob"}, headers=headers
            )
            assert answer.status_code == 403
    lines = [a for a in _audit_lines(d)[before:] if a["operation"] == "refused"]
    assert len(lines) == 20 - 3  # REFUSALS_PER_MINUTE, three of them used above
    assert SECRET not in json.dumps(lines)


def test_a_tenants_stats_say_only_what_is_its_users(deployment: Deployment) -> None:
    """No offsets, lag or dead letters of the deployment: another tenant's traffic and
    bad records leave a user's stats as they were."""
    d = deployment
    ana = d.call("acme-read", "GET", "/v1/stats", user_id="acme:ana")
    assert ana.status_code == 200, ana.text

    seen: list[dict[str, Any]] = []

    def settled() -> dict[str, Any] | None:
        """ana's stats once what earlier tests did to her (a correction's fact, its
        vector) is applied: nothing of her partition left to apply, and two reads in a
        row alike."""
        stats = d.call("acme-read", "GET", "/v1/stats", user_id="acme:ana").json()
        if stats["lag"] != 0:
            seen.clear()
            return None
        seen.append(stats)
        return stats if len(seen) >= 2 and seen[-2] == stats else None

    before = wait_until(settled, timeout=60)
    assert set(before) == {
        "user_id",
        "memories",
        "hidden",  # superseded and forgotten: the user's own history
        "archived",
        "entities",
        "embedding_lag",
        "dead_letters",
        "lag",  # of the user's partition
    }
    said = [
        {**_event("globex:bob", 0, f"Note {i} about the garden."), "event_id": f"garden-{i}"}
        for i in range(50)
    ]
    assert d.call("globex", "POST", "/v1/events", said).status_code == 202
    bad = {**_event("globex:bob", 99, "x"), "occurred_at": "yesterday"}
    assert d.call("globex", "POST", "/v1/events", [bad]).status_code == 422

    def globex_applied() -> bool:
        stats = d.call("globex", "GET", "/v1/stats", user_id="globex:bob").json()
        return bool(stats["memories"].get("episode", 0) >= 51)

    wait_until(globex_applied, timeout=60)
    assert d.call("acme-read", "GET", "/v1/stats", user_id="acme:ana").json() == before


def test_a_user_whose_id_holds_a_slash_can_be_erased(deployment: Deployment) -> None:
    """Every spelling of the path reaches the route; keys are checked before anything."""

    d = deployment
    users = ["acme:support/bob", "acme:support/carol/x", "acme:a.b/../c"]
    said = [_event(u, i, "My locker code is 5512.") for i, u in enumerate(users)]
    assert d.call("acme", "POST", "/v1/events", said).status_code == 202

    def found(user: str) -> bool:
        ask = {"user_id": user, "query": "locker code"}
        return bool(d.call("acme", "POST", "/v1/search", ask).json()["results"])

    for user in users:
        wait_until(lambda user=user: found(user), timeout=60)
    encoded = f"/v1/users/{quote(users[0], safe='')}"
    assert d.call(None, "DELETE", encoded).status_code == 401
    assert d.call("globex", "DELETE", encoded).status_code == 403
    assert d.call("acme", "DELETE", encoded).status_code == 403  # not an admin key
    erased = d.call("acme-admin", "DELETE", encoded)
    assert erased.status_code in (200, 202), erased.text
    with MemoryClient(d.worker.api_url, api_key=d.tokens["acme-admin"]) as client:
        assert client.erase(users[1])["user_id"] == users[1]  # the slash sent as it is
    raw = httpx.request(
        "DELETE",
        f"{d.worker.api_url}/v1/users/{quote(users[2], safe='')}",  # '..' kept, not resolved
        headers={"Authorization": f"Bearer {d.tokens['acme-admin']}"},
        timeout=60,
    )
    assert raw.status_code in (200, 202), raw.text
    for user in users:
        wait_until(lambda user=user: not found(user), timeout=60)


def test_a_key_lists_the_users_of_its_own_tenant_only_and_metrics_need_an_admin_key(
    deployment: Deployment,
) -> None:
    d = deployment
    listed = d.call("acme-read", "GET", "/v1/users")
    assert listed.status_code == 200, listed.text
    users = listed.json()["users"]
    assert [u["user_id"] for u in users] == ["acme:ana"]
    assert users[0]["memories"] >= 1 and users[0]["last_at"] >= "2024-05-01"
    globex = d.call("globex", "GET", "/v1/users").json()["users"]
    assert [u["user_id"] for u in globex] == ["globex:bob"]
    # the API's metrics are the deployment's counts: an admin key's only
    assert d.call(None, "GET", "/metrics").status_code == 401
    assert d.call("acme-read", "GET", "/metrics").status_code == 403
    scraped = d.call("acme-admin", "GET", "/metrics")
    assert scraped.status_code == 200 and "memstream_" in scraped.text
    other = d.call("acme", "GET", "/v1/users", tenant="globex")
    assert other.status_code == 403 and "acme only" in other.json()["detail"]
    assert d.call(None, "GET", "/v1/users").status_code == 401
