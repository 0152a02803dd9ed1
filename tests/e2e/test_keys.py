"""API keys, tenants' namespaces, per-key rate limits and the audit log, on their own
(real files), and the API's guard in process over a real store: 401, 403, 413, 429."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient
from hypothesis import given
from hypothesis import strategies as st

from memstream.application import Operations
from memstream.gate.guard import FORBIDDEN, Guard, is_loopback, serving_rule
from memstream.http.app import create_app
from memstream.settings import Settings
from memstream.streams.errors import StreamsError
from memstream.tenancy.audit import AuditLog
from memstream.tenancy.keys import KeyStore, KeyStoreError, owns, valid_tenant
from memstream.tenancy.limits import Buckets, Limit, RateLimited

TENANTS = st.from_regex(r"[a-z0-9][a-z0-9_-]{0,10}", fullmatch=True)


def test_a_key_is_shown_once_and_only_its_hash_is_kept(tmp_path: Path) -> None:
    store = KeyStore(tmp_path)
    assert not store.configured
    record, token = store.create("acme", "read", name="support bot")
    document = tmp_path / "api-keys" / f"{record.key_id}.json"
    kept = document.read_text()
    secret = token.split("_", 2)[2]  # msk_<key id>_<secret>; the secret may hold "_"
    assert token not in kept and secret not in kept
    assert record.sha256 in kept
    assert document.stat().st_mode & 0o777 == 0o600
    assert store.configured
    assert KeyStore(tmp_path).authenticate(token) == record  # another process sees it
    assert "sha256" not in record.public()


@pytest.mark.parametrize(
    "forged",
    [
        "",
        "msk_",
        "Bearer",
        "msk_000000000000_" + "a" * 43,
        "msk_{id}_" + "a" * 43,
        "msk_{id}_{secret}x",
        "msk_{id}_{secret}\x00",
        "MSK_{id}_{secret}",
        " msk_{id}_{secret}",
        "msk_{id}_{secret}" + "a" * 10_000,
    ],
)
def test_only_the_exact_key_authenticates(tmp_path: Path, forged: str) -> None:
    store = KeyStore(tmp_path)
    record, token = store.create("acme")
    secret = token.split("_", 2)[2]
    assert store.authenticate(forged.format(id=record.key_id, secret=secret)) is None
    assert store.authenticate(token) == record


def test_a_revoked_key_is_refused_and_keys_stay_required(tmp_path: Path) -> None:
    store = KeyStore(tmp_path)
    record, token = store.create("acme", "admin")
    other = KeyStore(tmp_path)
    assert other.authenticate(token) is not None
    store.revoke(record.key_id)
    assert other.authenticate(token) is None  # read again: the file changed
    assert other.configured  # revoking the last key does not open the API
    with pytest.raises(KeyStoreError):
        store.revoke("000000000000")
    with pytest.raises(KeyStoreError):
        store.revoke(record.key_id, tenant="globex")  # another tenant's admin


@pytest.mark.parametrize("name", ["", "Acme", "a:b", "a b", "-a", "a" * 64, "acme\x00", "ácme"])
def test_a_tenant_name_cannot_contain_a_namespace_separator_or_oddities(name: str) -> None:
    with pytest.raises(KeyStoreError):
        valid_tenant(name)


@pytest.mark.parametrize(
    ("user_id", "owned"),
    [
        ("acme:ana", True),
        ("acme:support/bob", True),
        ("acme:", False),
        ("acme", False),
        ("acmex:ana", False),
        ("acme-labs:ana", False),
        ("ACME:ana", False),
        (" acme:ana", False),
        ("\u0430cme:ana", False),  # Cyrillic a
        ("acme\x00:ana", False),
        ("globex:acme:ana", False),
        ("*", False),
        ("%", False),
    ],
)
def test_a_tenant_owns_its_namespace_only(user_id: str, owned: bool) -> None:
    assert owns("acme", user_id) is owned


@given(TENANTS, TENANTS, st.text(max_size=30))
def test_no_user_is_in_two_tenants(a: str, b: str, rest: str) -> None:
    for user_id in (f"{a}:{rest}", f"{b}:{rest}", rest):
        assert not (a != b and owns(a, user_id) and owns(b, user_id))


def test_a_bucket_refills_at_its_rate_and_says_how_long_to_wait() -> None:
    buckets = Buckets({"search": Limit(rate=2, burst=2)})
    buckets.take("k1", "search", 1, now=0.0)
    buckets.take("k1", "search", 1, now=0.0)
    with pytest.raises(RateLimited) as refused:
        buckets.take("k1", "search", 1, now=0.1)
    assert refused.value.retry_after == 1
    buckets.take("k2", "search", 1, now=0.1)  # another key has its own bucket
    buckets.take("k1", "search", 1, now=0.6)  # half a second: one more
    buckets.take("k1", "publish", 10_000, now=0.6)  # no limit set for it


def test_the_api_may_leave_loopback_only_with_keys(tmp_path: Path) -> None:
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("example.org")
    exposed = Settings(data=str(tmp_path / "data"), api_host="0.0.0.0")
    with pytest.raises(StreamsError, match="without API keys"):
        serving_rule(exposed)
    assert "loopback only" in serving_rule(Settings(data=str(tmp_path / "data")))
    KeyStore(exposed.local_dir).create("acme")
    assert serving_rule(exposed) == "API keys required (1 active)"


def test_serve_refuses_a_public_address_without_keys(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "memstream", "serve", "--data", str(tmp_path / "data")],
        env={"MEMSTREAM_API_HOST": "0.0.0.0", "PATH": ""},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.startswith("error: refusing to serve the API on 0.0.0.0 without API keys")
    assert "Traceback" not in done.stderr


def test_keys_from_the_command_line_and_the_audit_of_their_changes(tmp_path: Path) -> None:
    data = str(tmp_path / "data")

    def keys(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "memstream", "keys", "--data", data, *args],
            capture_output=True,
            text=True,
            timeout=60,
        )

    key_file = tmp_path / "admin.key"
    created = keys("create", "--tenant", "acme", "--role", "admin", "--key-file", str(key_file))
    assert created.returncode == 0, created.stderr
    token = key_file.read_text().strip()
    assert key_file.stat().st_mode & 0o777 == 0o600
    assert token not in created.stdout
    assert KeyStore(tmp_path / "data").authenticate(token) is not None
    again = keys("create", "--tenant", "acme", "--role", "admin", "--if-none")
    assert "already has an active admin key" in again.stdout
    bad = keys("create", "--tenant", "Not:Valid")
    assert bad.returncode == 2 and bad.stderr.startswith("error: tenant")
    listed = json.loads(keys("list", "--json").stdout)["keys"]
    assert [(k["tenant"], k["role"], k["revoked_at"]) for k in listed] == [("acme", "admin", None)]
    assert keys("revoke", listed[0]["key_id"]).returncode == 0
    assert "revoked" in keys("list").stdout
    lines = [
        json.loads(line) for line in (tmp_path / "data/logs/audit.jsonl").read_text().splitlines()
    ]
    assert [(a["operation"], a["tenant"]) for a in lines] == [
        ("key_create", "acme"),
        ("key_revoke", "acme"),
    ]


@pytest.fixture
def guarded(tmp_path: Path, operations: Operations) -> tuple[TestClient, dict[str, str], Path]:
    """The API in process over a real store, with keys and small limits."""
    keys = KeyStore(tmp_path / "state")
    tokens = {
        role: keys.create("acme", role)[1]  # type: ignore[arg-type]
        for role in ("read", "write", "admin")
    }
    tokens["globex"] = keys.create("globex", "write")[1]
    limits = {
        "search": Limit(5, 5),
        "publish": Limit(100, 100),
        "characters": Limit(50_000, 120_000, unit="characters", action="publish"),
    }
    guard = Guard(keys, Buckets(limits), AuditLog(tmp_path / "audit"), clock=lambda: 0.0)
    app = create_app(operations, guard=guard)
    return (
        TestClient(app, base_url="http://127.0.0.1:8787"),
        tokens,
        tmp_path / "audit" / "audit.jsonl",
    )


def _as(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_no_key_or_a_bad_one_is_401_and_health_stays_open(
    guarded: tuple[TestClient, dict[str, str], Path],
) -> None:
    http, _, _ = guarded
    assert http.get("/healthz").status_code == 200
    none = http.post("/v1/search", json={"user_id": "acme:ana", "query": "tea"})
    assert none.status_code == 401 and none.headers["WWW-Authenticate"] == "Bearer"
    bad = http.post("/v1/search", json={"user_id": "acme:ana", "query": "tea"}, headers=_as("x"))
    assert bad.status_code == 401 and bad.json() == {"detail": "this API key is unknown or revoked"}


def test_a_key_reaches_its_tenant_only_and_a_read_key_cannot_write(
    guarded: tuple[TestClient, dict[str, str], Path],
) -> None:
    http, tokens, audit = guarded
    mine = http.post(
        "/v1/search", json={"user_id": "acme:ana", "query": "tea"}, headers=_as(tokens["read"])
    )
    assert mine.status_code == 200
    for user in ("globex:bob", "globex:nobody", "acme", "acme:"):
        other = http.post(
            "/v1/search", json={"user_id": user, "query": "tea"}, headers=_as(tokens["read"])
        )
        assert (other.status_code, other.json()) == (403, {"detail": FORBIDDEN}), user
    event = {
        "event_id": "e1",
        "user_id": "acme:ana",
        "session_id": "s1",
        "role": "user",
        "content": "my secret word is quokka",
        "occurred_at": "2024-05-01T10:00:00Z",
    }
    read_only = http.post("/v1/events", json=event, headers=_as(tokens["read"]))
    assert (read_only.status_code, read_only.json()) == (
        403,
        {"detail": "this API key is read-only"},
    )
    mixed = [event, {**event, "event_id": "e2", "user_id": "globex:bob"}]
    assert http.post("/v1/events", json=mixed, headers=_as(tokens["write"])).status_code == 403
    assert http.get("/v1/stats", headers=_as(tokens["admin"])).status_code == 403
    lines = [json.loads(line) for line in audit.read_text().splitlines()]
    assert {line["operation"] for line in lines} == {"refused"}  # nothing was changed
    assert all(line["status"] == 403 and "quokka" not in json.dumps(line) for line in lines)


def test_an_admin_key_manages_its_tenants_keys_over_the_api(
    guarded: tuple[TestClient, dict[str, str], Path],
) -> None:
    http, tokens, audit = guarded
    assert http.post("/v1/keys", json={}, headers=_as(tokens["write"])).status_code == 403
    made = http.post("/v1/keys", json={"role": "read"}, headers=_as(tokens["admin"]))
    assert made.status_code == 201
    new = made.json()
    assert new["tenant"] == "acme" and new["key"].startswith("msk_") and "sha256" not in new
    listed = http.get("/v1/keys", headers=_as(tokens["admin"])).json()["keys"]
    assert {k["tenant"] for k in listed} == {"acme"} and len(listed) == 4
    globex_id = tokens["globex"].split("_")[1]
    assert (
        http.delete(f"/v1/keys/{globex_id}", headers=_as(tokens["admin"])).status_code == 404
    )  # another tenant's key is not found, not revoked
    assert http.delete(f"/v1/keys/{new['key_id']}", headers=_as(tokens["admin"])).status_code == 200
    gone = http.post(
        "/v1/search", json={"user_id": "acme:a", "query": "x"}, headers=_as(new["key"])
    )
    assert gone.status_code == 401
    admin_id = tokens["admin"].split("_")[1]
    every = [json.loads(line) for line in audit.read_text().splitlines()]
    lines = [a for a in every if a["operation"] != "refused"]
    assert [(a["operation"], a["key_id"], a["tenant"]) for a in lines] == [
        ("key_create", admin_id, "acme"),
        ("key_revoke", admin_id, "acme"),
    ]
    refused = [(a["status"], a["tenant"], a["route"]) for a in every if a not in lines]
    assert refused == [(403, "acme", "POST /v1/keys"), (401, None, "POST /v1/search")]
    assert lines[0]["created_key"] == lines[1]["revoked_key"] == new["key_id"]
    assert "msk_" not in audit.read_text()


def test_a_key_over_its_rate_gets_429_with_retry_after_and_big_bodies_413(
    guarded: tuple[TestClient, dict[str, str], Path],
) -> None:
    http, tokens, _ = guarded
    ask = {"user_id": "acme:ana", "query": "tea"}
    codes = [http.post("/v1/search", json=ask, headers=_as(tokens["read"])) for _ in range(7)]
    assert [c.status_code for c in codes] == [200] * 5 + [429] * 2
    assert codes[-1].headers["Retry-After"] == "1"
    assert "at most 5 times a second" in codes[-1].json()["detail"]
    other = http.post("/v1/search", json=ask, headers=_as(tokens["write"]))
    assert other.status_code == 200  # another key is not throttled
    huge = http.post(
        "/v1/events",
        content=b"[" + b" " * 5_000_000 + b"]",
        headers={**_as(tokens["write"]), "Content-Type": "application/json"},
    )
    assert huge.status_code == 413


def test_a_key_is_limited_by_the_characters_it_publishes_as_well_as_events(
    guarded: tuple[TestClient, dict[str, str], Path],
) -> None:
    """Two events of 60,000 characters fill a burst of 120,000: a third is refused
    with 429, naming characters, before anything of it reaches the broker."""
    http, tokens, _ = guarded

    def paste(n: int) -> httpx.Response:
        return http.post("/v1/events", headers=_as(tokens["globex"]), json=[
            {"user_id": "globex:bo", "session_id": "s", "role": "user",
             "event_id": f"paste-{n}", "content": "x" * 60_000}
        ])  # fmt: skip

    # both pass the limit (this API in process has no broker to publish to: 503)
    assert [paste(n).status_code for n in range(2)] == [503, 503]
    third = paste(2)
    assert third.status_code == 429 and third.headers["Retry-After"] == "2"
    assert "at most 50,000 characters a second" in third.json()["detail"]


def test_a_reader_sees_keys_created_and_revoked_elsewhere_at_once_and_lists_only_then(
    tmp_path: Path,
) -> None:
    """A local key folder is listed again only when its own time moved (a key written
    or removed), or while that time is too recent to trust; a key created or revoked
    by another process is seen by the next request either way."""
    import os

    reader, writer = KeyStore(tmp_path), KeyStore(tmp_path)
    first, token = writer.create("acme")
    assert reader.authenticate(token) == first
    listings = []
    listing = reader.folder.stamps
    reader.folder.stamps = lambda folder="": listings.append(1) or listing(folder)  # type: ignore[method-assign]
    old = 1_000_000_000_000_000_000  # 2001: a folder time long settled
    folder = reader.folder.location.path
    os.utime(folder, ns=(old, old))
    assert reader.authenticate(token) == first  # a time it has not seen: listed
    listed = len(listings)
    for _ in range(5):
        assert reader.authenticate(token) == first
    assert len(listings) == listed  # unmoved and settled: not listed again
    writer.revoke(first.key_id)
    assert reader.authenticate(token) is None  # the revocation moved the folder's time
    second, other = writer.create("acme")
    os.utime(folder, ns=(old, old))
    assert reader.authenticate(other) == second
    writer.revoke(second.key_id)
    os.utime(folder, ns=(old + 1, old + 1))  # a change stamped with an old time still differs
    assert reader.authenticate(other) is None
