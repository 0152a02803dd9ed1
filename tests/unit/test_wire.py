"""The answer to a request the HTTP parser refuses (memstream.http.wire)."""

from __future__ import annotations

import json

from memstream.http.wire import unreadable_answer


def test_an_unreadable_request_is_answered_400_in_json_of_its_stated_length() -> None:
    answer = unreadable_answer([(b"date", b"Tue, 01 Dec 2026 04:40:00 GMT"), (b"server", b"x")])
    head, _, body = answer.partition(b"\r\n\r\n")
    status, *lines = head.decode().split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines)
    assert status == "HTTP/1.1 400 Bad Request"
    assert headers["date"] == "Tue, 01 Dec 2026 04:40:00 GMT" and headers["server"] == "x"
    assert headers["content-type"] == "application/json" and headers["connection"] == "close"
    assert int(headers["content-length"]) == len(body)
    assert "16 KiB" in json.loads(body)["detail"]
