"""One rule for what a channel's event may leave out and what it may be, kept by every
door: the HTTP API (and so the Python client and MCP, which publish through it or its
operation), the command line's one message, and its JSON lines. The same documents go
through each; what one accepts, every one accepts as the same event, and what one
refuses, every one refuses."""

from __future__ import annotations

import argparse
import json
from datetime import UTC, datetime
from typing import Any

import pytest

from memstream.application.intake import InvalidEvents, channel_events, parse_body
from memstream.cli.writing import _message_document
from memstream.events.errors import InvalidEvent
from memstream.events.vocabulary import Event
from memstream.streams.publisher import check_lines

NOW = datetime(2026, 3, 4, 5, 6, 7, tzinfo=UTC)
AT = "2024-05-01T10:00:00+00:00"
SAID = {"user_id": "ana", "session_id": "s9", "role": "user", "content": "hi"}

DECISION = {
    "type": "session_closed",
    "user_id": "ana",
    "session_id": "s9",
    "reason": "idle",
    "first_at": AT,
    "closed_at": AT,
    "through": AT,
}
ENDED = {"type": "session_ended", "user_id": "ana", "session_id": "s9"}
REMEMBER = {"type": "remember_fact", "user_id": "ana", "content": "x"}
FORGET = {"type": "forget", "user_id": "ana", "memory_id": "ep-1"}
ERASURE = {"type": "user_erased", "user_id": "ana", "requested_at": AT}
#: (what the document is, the document, whether the doors take it)
DOCUMENTS: list[tuple[str, dict[str, Any], bool]] = [
    ("message without a time", SAID, True),
    ("message with a time", {**SAID, "occurred_at": AT}, True),
    ("message with an id", {**SAID, "event_id": "m-1"}, True),
    ("typed message without a time", {"type": "message", **SAID}, True),
    ("remember without a time", REMEMBER, True),
    ("session end without a time", ENDED, True),
    ("forget without a time", FORGET, True),
    ("message of a project", {**SAID, "project_id": "alpha"}, True),
    ("a time without a zone, taken as UTC", {**SAID, "occurred_at": "2024-05-01T10:00:00"}, True),
    ("no content", {k: v for k, v in SAID.items() if k != "content"}, False),
    ("a user id with a space", {**SAID, "user_id": "a b"}, False),
    ("a time that is no time", {**SAID, "occurred_at": "yesterday"}, False),
    ("an unknown field", {**SAID, "colour": "blue"}, False),
    ("an unknown type", {**SAID, "type": "telegram"}, False),
    ("an erasure", ERASURE, False),
    ("a lifecycle decision", DECISION, False),
]
IDS = [name for name, _, _ in DOCUMENTS]


def _api(document: dict[str, Any]) -> Event | None:
    try:
        (event,) = channel_events(parse_body(json.dumps(document).encode()), NOW)
    except (InvalidEvent, InvalidEvents):
        return None
    return event


def _jsonl(document: dict[str, Any]) -> Event | None:
    (line,) = check_lines([json.dumps(document).encode()], NOW)
    return line.event


def _same(event: Event) -> dict[str, Any]:
    """An event as both doors should make it (the id each derives is its own: the API
    from the document, the log's codec from the bytes)."""
    return event.model_dump(exclude={"event_id"})


@pytest.mark.parametrize(("name", "document", "taken"), DOCUMENTS, ids=IDS)
def test_the_api_and_json_lines_accept_and_refuse_alike(
    name: str, document: dict[str, Any], taken: bool
) -> None:
    api, jsonl = _api(document), _jsonl(document)
    assert (api is not None) is taken, f"the API door on {name}"
    assert (jsonl is not None) is taken, f"the JSON lines door on {name}"
    if api is not None and jsonl is not None:
        assert _same(api) == _same(jsonl)
        if "occurred_at" not in document:
            assert getattr(api, "occurred_at", NOW) == NOW


def test_a_refused_erasure_or_decision_in_json_lines_is_reported_and_never_sent() -> None:
    for name, document, _ in DOCUMENTS:
        if name in ("an erasure", "a lifecycle decision"):
            (line,) = check_lines([json.dumps(document).encode()], NOW)
            assert line.event is None and not line.sendable
            assert line.problems and line.problems[0].startswith("type: must be one of")


def test_the_command_line_s_one_message_is_the_api_s_message() -> None:
    args = argparse.Namespace(user="ana", session="s9", role="user", speaker=None,
                              project=None, channel=None, text="hi", at=None)  # fmt: skip
    document = _message_document(args)
    event, expected = _api(document), _api({**SAID, "occurred_at": document["occurred_at"]})
    assert event is not None and expected is not None
    assert _same(event) == _same(expected)
