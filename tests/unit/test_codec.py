"""Events: validation names the field, bytes round-trip, old and odd input is handled."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime

import pytest

from memstream.events.codec import decode, encode, from_document
from memstream.events.errors import InvalidEvent
from memstream.testing import message

VALID = {
    "user_id": "alice",
    "session_id": "s1",
    "role": "user",
    "content": "I moved to Porto",
    "occurred_at": "2024-05-01T10:00:00+02:00",
}


def test_round_trip_is_exact() -> None:
    event = message(speaker="Ana", metadata={"k": [1, 2]}, project_id="p1")
    assert decode(encode(event)) == event
    assert encode(decode(encode(event))) == encode(event)


def test_occurred_at_becomes_utc_and_naive_means_utc() -> None:
    aware = from_document(VALID)
    assert aware.occurred_at == datetime(2024, 5, 1, 8, 0, tzinfo=UTC)
    naive = from_document({**VALID, "occurred_at": "2024-05-01T10:00:00"})
    assert naive.occurred_at == datetime(2024, 5, 1, 10, 0, tzinfo=UTC)


def test_type_and_schema_version_default_to_current_message() -> None:
    event = from_document(VALID)
    assert (event.type, event.schema_version) == ("message", 1)


def test_missing_event_id_is_derived_from_the_bytes() -> None:
    raw = json.dumps(VALID).encode()
    assert decode(raw).event_id == decode(raw).event_id
    assert decode(raw).event_id != decode(raw + b" ").event_id


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (b"\xff\xfe", "not UTF-8"),
        (b"{not json", "not JSON"),
        (b"[1, 2]", "must be a JSON object"),
        (b'{"type": "telegram"}', "type: unknown event type 'telegram'"),
        (json.dumps({**VALID, "schema_version": 9}).encode(), "schema_version: 9 is newer"),
        (json.dumps({**VALID, "role": "robot"}).encode(), "role: must be one of"),
        (
            json.dumps({**VALID, "user_id": "a b"}).encode(),
            "user_id: must be 1-200 characters of ASCII",
        ),
        (
            json.dumps({**VALID, "user_id": "x' OR '1'='1"}).encode(),
            "user_id: must be 1-200 characters of ASCII",
        ),
        (json.dumps({**VALID, "content": "   "}).encode(), "content: must contain some text"),
        (
            json.dumps({**VALID, "occurred_at": "yesterday"}).encode(),
            "occurred_at: must be a date and time",
        ),
        (json.dumps({**VALID, "colour": "red"}).encode(), "colour: unknown field"),
    ],
)
def test_invalid_input_names_the_problem(raw: bytes, expected: str) -> None:
    with pytest.raises(InvalidEvent) as caught:
        decode(raw)
    assert any(expected in problem for problem in caught.value.problems), caught.value.problems


def test_every_missing_field_is_reported_at_once() -> None:
    with pytest.raises(InvalidEvent) as caught:
        from_document({"content": "hi"})
    fields = {p.split(":")[0] for p in caught.value.problems}
    assert {"user_id", "session_id", "role", "occurred_at"} <= fields


def test_events_are_frozen() -> None:
    event = message()
    with pytest.raises(Exception):  # noqa: B017 - pydantic raises ValidationError
        event.content = "changed"  # type: ignore[misc]


def test_unicode_speaker_and_content_survive() -> None:
    event = message(speaker="Zoë Ørsted", content="Café ☕ in Tōkyō")
    assert decode(encode(event)).content == "Café ☕ in Tōkyō"


def test_the_schema_states_the_blank_content_rule_the_validation_applies() -> None:
    """A message's content is refused as blank exactly when the JSON schema's pattern
    says so (a client generating from the schema sent "\\r", schema-valid, and was
    refused): for every character up to U+3100 (every blank one among them) and some
    beyond, alone, twice and beside a letter."""
    from memstream.events.vocabulary import MessageEvent

    pattern = re.compile(MessageEvent.model_json_schema()["properties"]["content"]["pattern"])
    codes = [*range(0x3100), 0xFEFF, 0x1F600, 0x10FFFF]
    refused_ones = set()
    for code in codes:
        for content in (chr(code), chr(code) * 2, f"{chr(code)}a"):
            try:
                from_document({**VALID, "content": content})
            except InvalidEvent:
                refused_ones.add(content)
            assert (content in refused_ones) == (pattern.search(content) is None), hex(code)
    assert {c for c in refused_ones if len(c) == 1} == {chr(c) for c in codes if chr(c).isspace()}
