"""What the front doors accept: identifiers and tags in ASCII (what the OpenAPI
document's patterns mean); the worker keeps the same rule, so a record with other
letters produced to the log itself is dead-lettered, not applied out of every door's
reach."""

from __future__ import annotations

import pytest

from memstream.application import accepted_event
from memstream.events.codec import decode
from memstream.events.errors import InvalidEvent, InvalidQuery
from memstream.policies.scope import valid_identifier, valid_tag

MESSAGE = {
    "user_id": "ana",
    "session_id": "s1",
    "role": "user",
    "content": "hello",
    "occurred_at": "2024-05-01T10:00:00Z",
}


@pytest.mark.parametrize("field", ["user_id", "session_id", "project_id", "channel"])
def test_a_door_refuses_identifiers_outside_ascii(field: str) -> None:
    with pytest.raises(InvalidEvent, match=f"{field}: must be 1-200 characters of ASCII"):
        accepted_event({**MESSAGE, field: "õBÙ"})
    with pytest.raises(InvalidQuery, match="ASCII letters"):
        valid_identifier(field, "Zoë")
    assert accepted_event({**MESSAGE, field: "a.b:c@d+e/f-g_1"}).type == "message"


def test_a_door_refuses_tags_outside_ascii() -> None:
    with pytest.raises(InvalidEvent, match=r"tags\.1: must be 1-64 characters of ASCII"):
        accepted_event({**MESSAGE, "tags": ["travel", "viagem-à-lisboa"]})
    with pytest.raises(InvalidQuery):
        valid_tag("tags.0", "ção")
    assert valid_tag("tags.0", "work/project-1") == "work/project-1"


def test_the_worker_refuses_what_the_doors_refuse() -> None:
    raw = (
        b'{"user_id": "zo\xc3\xab", "session_id": "s1", "role": "user", "content": "hi",'
        b' "occurred_at": "2024-05-01T10:00:00Z", "tags": ["\xc3\xa0-lisboa"]}'
    )
    with pytest.raises(InvalidEvent) as refused:
        decode(raw)
    assert refused.value.problems == [
        "user_id: must be 1-200 characters of ASCII letters, digits and _ . : @ + / -",
        "tags.0: must be 1-64 characters of ASCII letters, digits and _ . : + / -",
    ]
