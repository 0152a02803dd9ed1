"""Ids in a route's path: whatever characters one holds (``/``, line breaks, control
characters), it reaches its route, and an id the identifier rule refuses is answered
422 naming the parameter, as the OpenAPI document says, never an undocumented 404."""

from __future__ import annotations

from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient

from memstream.application import Operations
from memstream.http.app import create_app

#: Ids the identifier rule refuses, each holding what ends a line or a path segment.
REFUSED = ["a\nb", "a\r\nb", "a\u2028b", "a\x0bb/c", "x\n/history", "\n"]


@pytest.fixture
def api(operations: Operations) -> TestClient:
    return TestClient(create_app(operations), base_url="http://127.0.0.1:8787")


def routes_with_an_id(api: TestClient) -> list[tuple[str, str, str]]:
    """(method, path template, parameter) of every route with an id in its path."""
    found = []
    for path, item in api.get("/openapi.json").json()["paths"].items():
        for parameter in ("memory_id", "user_id"):
            if "{" + parameter + "}" in path:
                found.extend((method.upper(), path, parameter) for method in item)
    return found


@pytest.mark.parametrize("refused", REFUSED)
def test_a_refused_id_in_a_path_is_422_naming_it(api: TestClient, refused: str) -> None:
    routes = routes_with_an_id(api)
    assert len(routes) >= 8  # the memory actions, a memory, and erasing a user
    for method, template, parameter in routes:
        path = template.replace("{" + parameter + "}", quote(refused, safe=""))
        body = {"user_id": "ana", "content": "x"} if method == "POST" else None
        answer = api.request(method, path, params={"user_id": "ana"}, json=body)
        where = f"{method} {template} with {refused!r}"
        assert answer.status_code == 422, f"{where}: {answer.status_code} {answer.text}"
        assert parameter in answer.text, where
        documented = api.get("/openapi.json").json()["paths"][template][method.lower()]
        assert "422" in documented["responses"], where
