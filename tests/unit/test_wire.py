"""The answer to a request the HTTP parser refuses (memstream.http.wire)."""

from __future__ import annotations

import json

from memstream.http.wire import URL_LIMIT_BYTES, unreadable_answer


def _parts(answer: bytes) -> tuple[str, dict[str, str], bytes]:
    head, _, body = answer.partition(b"\r\n\r\n")
    status, *lines = head.decode().split("\r\n")
    return status, dict(line.split(": ", 1) for line in lines), body


def test_a_url_past_the_parsers_limit_is_414_and_anything_else_400() -> None:
    status, _, body = _parts(unreadable_answer(URL_LIMIT_BYTES + 1, []))
    assert status == "HTTP/1.1 414 URI Too Long"
    assert "send the query in a body" in json.loads(body)["detail"]
    status, _, body = _parts(unreadable_answer(URL_LIMIT_BYTES, []))
    assert status == "HTTP/1.1 400 Bad Request"
    assert json.loads(body) == {"detail": "the request could not be read as HTTP/1.1"}


def test_the_answer_is_json_of_its_stated_length_with_the_servers_headers() -> None:
    _, headers, body = _parts(
        unreadable_answer(0, [(b"date", b"Tue, 01 Dec 2026 04:40:00 GMT"), (b"server", b"x")])
    )
    assert headers["date"] == "Tue, 01 Dec 2026 04:40:00 GMT" and headers["server"] == "x"
    assert headers["content-type"] == "application/json"
    assert int(headers["content-length"]) == len(body) and headers["connection"] == "close"
