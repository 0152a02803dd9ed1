"""No console page answers 500: every page and every form of the console, fed the values
schemathesis and a hostile user send (other scripts' digits, 5,000-digit numbers, NUL,
lone surrogates, dates past their range, paths), answers a page saying what was wrong
or the page asked for, never a server error; and the playground takes what the API
takes and refuses what it refuses."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memstream.application import Operations
from memstream.http.app import create_app

#: Hundreds of requests: handed to a test worker among the first files (see conftest).
pytestmark = [pytest.mark.slow]

#: The console's pages, their parameters filled by ``{name}``.
PAGES = [
    "/console", "/console/health.json", "/console/dead-letters", "/console/dead-letters/{id}",
    "/console/keys", "/console/users", "/console/users/{user}", "/console/users/{user}/playground",
    "/console/users/{user}/memories/{id}", "/console/users/{user}/entities/{id}",
    "/console/users/{user}/documents", "/console/users/{user}/documents/{id}",
    "/console/login",
]  # fmt: skip
QUERY = ["q", "k", "budget", "kinds", "project", "tags", "after", "before", "now", "kind",
         "session", "tag", "order", "cursor", "hidden", "expand", "done", "version",
         "next"]  # fmt: skip
HOSTILE = st.sampled_from([
    "²", "٣", "9" * 5000, "-1", "0", "1e309", "NaN", "inf", "\x00", "%00", "\ud800", "../..",
    "a/b", " ", "", "2024-13-45", "9999-12-31T23:59:60Z", "0000-01-01", "1" * 40 + "T",
    "<script>", "ana", "ep-00000000", "x" * 5000, "true", "[]", "{}", "\u202e", "契約",
])  # fmt: skip
VALUES = HOSTILE | st.text(max_size=20) | st.integers().map(str)
#: what an identifier in a console address may be made of (others do not match a page)
IDS = HOSTILE.filter(lambda v: re.fullmatch(r"[A-Za-z0-9_.:@+/-]+", v) is not None) | st.from_regex(
    r"\A[A-Za-z0-9_.:@+/-]{1,30}\Z"
)

#: one app for every example: what an example changes does not bear on the next's answer
SHARED_FIXTURE = [HealthCheck.function_scoped_fixture]


def _encoded(value: str) -> str:
    return quote(value.encode("utf-8", "surrogatepass"), safe="")


@pytest.fixture
def console(operations: Operations) -> TestClient:
    return TestClient(create_app(operations), base_url="http://127.0.0.1:8787")


def _token(console: TestClient) -> str:
    found = re.search(r'name="action_token" value="([^"]+)"', console.get("/console/keys").text)
    assert found is not None
    return found.group(1)


@settings(max_examples=120, deadline=None, suppress_health_check=SHARED_FIXTURE)
@given(
    page=st.sampled_from(PAGES),
    ids=st.tuples(IDS, IDS),
    query=st.dictionaries(st.sampled_from(QUERY), VALUES, max_size=5),
)
def test_no_page_answers_a_server_error(
    console: TestClient, page: str, ids: tuple[str, str], query: dict[str, str]
) -> None:
    path = page.replace("{user}", ids[0]).replace("{id}", ids[1])
    string = "&".join(f"{_encoded(k)}={_encoded(v)}" for k, v in query.items())
    answer = console.get(f"{path}?{string}", follow_redirects=False)
    assert answer.status_code < 500, (path, query, answer.text[:300])
    assert "Traceback" not in answer.text


@settings(max_examples=60, deadline=None, suppress_health_check=SHARED_FIXTURE)
@given(
    action=st.sampled_from(["correct", "confirm", "forget", "restore"]) | VALUES,
    ids=st.tuples(IDS, IDS),
    form=st.dictionaries(st.sampled_from(["content", "title", "next", "key"]), VALUES, max_size=3),
)
def test_no_form_answers_a_server_error(
    console: TestClient, action: str, ids: tuple[str, str], form: dict[str, Any]
) -> None:
    fields = {"action_token": _token(console), **form}
    body = "&".join(f"{_encoded(k)}={_encoded(v)}" for k, v in fields.items())
    headers = {"Origin": "http://127.0.0.1:8787",
               "Content-Type": "application/x-www-form-urlencoded"}  # fmt: skip
    for path in (
        f"/console/users/{ids[0]}/memories/{ids[1]}/{_encoded(action)}",
        f"/console/keys/{_encoded(ids[1])}/revoke",
        "/console/login",
        "/console/logout",
    ):
        answer = console.post(path, content=body, headers=headers, follow_redirects=False)
        assert answer.status_code < 500, (path, fields, answer.text[:300])


@pytest.mark.parametrize(
    ("query", "said"),
    [("k=%C2%B2", "k: "), ("budget=%C2%B2", "budget: "), ("k=" + "9" * 5000, "k: "),
     ("budget=0", "budget: "), ("budget=99999999", "budget: "), ("k=0", "k: "),
     ("after=2024-13-45", "after")],
)  # fmt: skip
def test_the_playground_refuses_what_the_api_refuses(
    console: TestClient, query: str, said: str
) -> None:
    answer = console.get(f"/console/users/ana/playground?q=Lisbon&{query}")
    assert answer.status_code == 422 and said in answer.text, answer.text[:500]
    api = console.post("/v1/search", json={"user_id": "ana", "query": "Lisbon", "k": "²"})
    assert api.status_code == 422  # the API's answer to the same


def test_the_playground_answers_what_the_api_answers(console: TestClient) -> None:
    answer = console.get("/console/users/ana/playground?q=Lisbon&k=3&budget=400")
    assert answer.status_code == 200 and "Lisbon" in answer.text


def test_a_dead_letter_named_with_a_nul_is_not_found(console: TestClient) -> None:
    answer = console.get("/console/dead-letters/%00")
    assert answer.status_code == 404 and "no such dead letter" in answer.text


def test_a_document_over_the_limit_gets_a_page_naming_the_limit(operations: Operations) -> None:
    operations.parts.settings = operations.settings.model_copy(
        update={"document_max_bytes": 100_000}
    )
    console = TestClient(create_app(operations), base_url="http://127.0.0.1:8787")
    fields = {"action_token": _token(console)}
    big = console.post("/console/users/ana/documents", data=fields,
                       files={"file": ("big.md", b"a" * 200_000, "text/markdown")})  # fmt: skip
    assert big.status_code == 413
    assert "a document may be 0.1 MB at most on this server" in big.text
    assert "MEMSTREAM_DOCUMENT_MAX_BYTES" in big.text
