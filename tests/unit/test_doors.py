"""Who may knock: the Host, Origin and content-type rule every door applies, as a pure
rule (any Host header, any Origin) and on the API's app itself: every route (the API, the
docs, the console, MCP, the metrics) refuses a foreign Host; JSON routes take JSON only;
another site's page is refused; the configured names and origins are let in, CORS for
them only; and the console mints the first key only for a loopback page at a loopback
address."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import given
from hypothesis import strategies as st

from memstream.application import Operations
from memstream.http.app import create_app
from memstream.policies.doors import DoorRule, host_name, normal_origin
from memstream.settings import Settings
from memstream.tenancy.keys import KeyStore

LOOPBACK = "http://127.0.0.1:8787"
RULE = DoorRule.serving("127.0.0.1", 8787)


@pytest.mark.parametrize(
    ("host", "admitted"),
    [("127.0.0.1:8787", True), ("localhost", True), ("LOCALHOST:1", True), ("[::1]:8787", True),
     ("::1", True), ("evil.example", False), ("evil.example:8787", False), ("127.0.0.2", False),
     ("127.0.0.1.evil.example", False), ("localhost.evil.example:8787", False), ("", False),
     (None, False), ("[::1", False), ("[::1]", True), ("[0:0::1]:1", True),
     ("127.0.0.1:8787@evil.example", False)],
)  # fmt: skip
def test_the_host_must_name_this_server(host: str | None, admitted: bool) -> None:
    assert RULE.admits_host(host) is admitted


@pytest.mark.parametrize(
    ("origin", "admitted"),
    [("http://127.0.0.1:8787", True), ("http://localhost:8787", True),
     ("http://[::1]:8787", True), ("http://LOCALHOST:8787/", True),
     ("http://127.0.0.1:3000", False), ("http://localhost", False),
     ("https://127.0.0.1:8787", False), ("http://evil.example:8787", False), ("null", False),
     ("file://", False), ("http://127.0.0.1:8787/path", False), ("", False),
     ("http://127.0.0.1:99999", False), ("http://user@127.0.0.1:8787", False)],
)  # fmt: skip
def test_an_origin_must_be_this_servers_own_port_and_name(origin: str, admitted: bool) -> None:
    assert RULE.admits_origin(origin) is admitted


def test_configured_names_and_origins_are_let_in_and_nothing_else() -> None:
    rule = DoorRule.serving(
        "0.0.0.0", 8787, ["memory.example.com", " api "], ["https://app.example.com:443"]
    )
    assert rule.admits_host("memory.example.com") and rule.admits_host("api:8787")
    assert not rule.admits_host("0.0.0.0:8787") and not rule.admits_host("other.example.com")
    for origin in ("https://memory.example.com", "http://memory.example.com:8787",
                   "https://app.example.com"):  # fmt: skip
        assert rule.admits_origin(origin), origin
    assert not rule.admits_origin("https://app.example.com:8443")
    bound = DoorRule.serving("10.1.2.3", 9000)
    assert bound.admits_host("10.1.2.3:9000") and bound.admits_origin("http://10.1.2.3:9000")
    assert not bound.admits_origin("http://10.1.2.3:8787")


@given(st.text(max_size=40), st.text(max_size=40))
def test_a_name_not_configured_is_refused_whatever_the_headers(host: str, origin: str) -> None:
    refusal = RULE.refusal("POST", host, origin)
    name = host_name(host)
    if name not in {"localhost", "127.0.0.1", "::1"}:
        assert refusal is not None and refusal.status == 421
    elif normal_origin(origin) not in RULE.origins:
        assert refusal is not None and refusal.status == 403


def test_a_browsers_cross_site_write_without_origin_is_refused() -> None:
    assert RULE.refusal("POST", "127.0.0.1", None, "cross-site") is not None
    assert RULE.refusal("DELETE", "127.0.0.1", None, "same-site") is not None
    assert RULE.refusal("GET", "127.0.0.1", None, "cross-site") is None  # a link followed
    assert RULE.refusal("POST", "127.0.0.1", None, "same-origin") is None
    assert RULE.refusal("POST", "127.0.0.1", None, None) is None  # curl, a client


# -- on the app ------------------------------------------------------------------------


@pytest.fixture
def api(operations: Operations) -> TestClient:
    return TestClient(create_app(operations), base_url=LOOPBACK)


def every_path(api: TestClient) -> list[tuple[str, str]]:
    """(method, path) of every route the app serves, parameters filled."""
    from support.cross_site import state_changing_routes

    listed = [("GET", p) for p in api.get("/openapi.json").json()["paths"]]
    listed += [("GET", p) for p in ("/docs", "/redoc", "/openapi.json", "/console",
               "/console/keys", "/console/users/ana", "/console/static/console.css", "/mcp",
               "/metrics", "/readyz")]  # fmt: skip
    listed += state_changing_routes()
    return [(m, re.sub(r"{(\w+)(:\w+)?}", "x", p)) for m, p in sorted(set(listed))]


def test_every_route_refuses_a_foreign_host_before_reading_anything(api: TestClient) -> None:
    paths = every_path(api)
    assert len(paths) > 40
    for method, path in paths:
        for host in ("evil.example", "evil.example:8787", "127.0.0.1.nip.io:8787"):
            answer = api.request(method, path, headers={"Host": host}, json={"user_id": "ana"})
            assert answer.status_code == 421, (method, path, answer.status_code)
            assert answer.json()["detail"].startswith("this server does not answer")
            assert "evil" not in answer.text  # the request's words are not quoted
        origin = api.request(method, path, headers={"Origin": "http://localhost:3000"})
        assert origin.status_code == 403, (method, path)


@pytest.mark.parametrize(
    "content_type",
    ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x",
     None, "application/jsonp", "text/json"],
)  # fmt: skip
def test_json_routes_take_json_only(api: TestClient, content_type: str | None) -> None:
    body = b'[{"user_id": "ana", "session_id": "s", "role": "user", "content": "hi"}]'
    headers = {"Content-Type": content_type} if content_type else {}
    answer = api.post("/v1/events", content=body, headers=headers)
    assert answer.status_code == 415, answer.text
    assert answer.json() == {"detail": "this route takes a body of type application/json only"}
    ask = api.post("/v1/search", content=b'{"user_id": "ana", "query": "x"}', headers=headers)
    assert ask.status_code == 415
    json_body = {"Content-Type": "application/json; charset=utf-8"}
    assert api.post("/v1/search", content=b'{"user_id":"ana","query":"Lisbon"}',
                    headers=json_body).status_code == 200  # fmt: skip


def test_the_documents_route_takes_a_form_or_json_and_nothing_else(api: TestClient) -> None:
    plain = api.post("/v1/documents", content=b"x", headers={"Content-Type": "text/plain"})
    assert plain.status_code == 415 and "multipart/form-data" in plain.text
    form = api.post("/v1/documents", data={"user_id": "ana"}, files={"file": ("a.md", b"# A")})
    assert form.status_code == 503, form.text  # past the door: no broker runs here


def test_configured_browser_origins_get_cors_and_no_one_else(tmp_path: Path) -> None:
    settings = Settings(
        data=str(tmp_path / "data"),
        browser_origins="https://app.example.com",
        public_hosts="memory.example",
    )
    api = TestClient(create_app(Operations(settings)), base_url="https://memory.example")
    ask = {"Origin": "https://app.example.com", "Access-Control-Request-Method": "POST",
           "Access-Control-Request-Headers": "content-type, authorization"}  # fmt: skip
    preflight = api.options("/v1/search", headers=ask)
    assert preflight.status_code == 200
    assert preflight.headers["access-control-allow-origin"] == "https://app.example.com"
    other = api.options("/v1/search", headers={**ask, "Origin": "https://evil.example"})
    assert other.status_code == 403 and "access-control-allow-origin" not in other.headers
    read = api.post("/v1/search", json={"user_id": "ana", "query": "Lisbon"},
                    headers={"Origin": "https://app.example.com"})  # fmt: skip
    assert read.status_code == 404, read.text  # past the door: nothing was stored here yet
    assert read.headers["access-control-allow-origin"] == "https://app.example.com"
    assert api.get("/healthz").status_code == 200  # the configured name itself


def test_without_configuration_no_cors_is_answered(api: TestClient) -> None:
    own = api.post("/v1/search", json={"user_id": "ana", "query": "x"},
                   headers={"Origin": LOOPBACK})  # fmt: skip
    assert own.status_code == 200 and "access-control-allow-origin" not in own.headers


def _action_token(api: TestClient, **headers: str) -> str:
    page = api.get("/console/keys", headers=headers)
    assert page.status_code == 200, page.text
    found = re.search(r'name="action_token" value="([^"]+)"', page.text)
    assert found is not None
    return found.group(1)


def test_the_first_key_is_minted_only_by_a_loopback_page_at_a_loopback_address(
    tmp_path: Path,
) -> None:
    settings = Settings(data=str(tmp_path / "data"), public_hosts="box.lan")
    app = create_app(Operations(settings))
    form: dict[str, Any] = {"tenant": "acme", "role": "admin"}
    lan = TestClient(app, base_url="http://box.lan:8787")
    token = _action_token(lan)
    for origin in ("http://box.lan:8787", None):  # a page at the configured name; no page
        headers = {"Origin": origin} if origin else {}
        refused = lan.post("/console/keys", data={**form, "action_token": token}, headers=headers)
        assert refused.status_code == 403 and "loopback" in refused.text
    local = TestClient(app, base_url=LOOPBACK)
    page = local.get("/console/keys")  # says what the first key does before it is made
    assert "switches keys on for the whole deployment" in page.text
    token = _action_token(local)
    unsure = local.post("/console/keys", data={**form, "action_token": token},
                        headers={"Origin": LOOPBACK})  # fmt: skip
    assert unsure.status_code == 422 and "tick that you understand" in unsure.text
    assert not KeyStore(tmp_path / "data").records()
    minted = local.post("/console/keys", data={**form, "action_token": token, "first": "yes"},
                        headers={"Origin": LOOPBACK})  # fmt: skip
    assert minted.status_code == 200 and "msk_" in minted.text
    assert [k.tenant for k in KeyStore(tmp_path / "data").records()] == ["acme"]
