"""Property: the door and the worker keep one rule. Any body the HTTP door accepts
decodes in the worker to the very event the door accepted, metadata unaltered; whatever
the worker would refuse, the door refuses first (nesting, lone surrogates, non-finite
numbers, sizes at the limits)."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from memstream.application.intake import InvalidEvents, channel_events, parse_body
from memstream.events.codec import MAX_EVENT_BYTES, decode, encode
from memstream.events.errors import InvalidEvent
from memstream.events.json_text import MAX_DEPTH

#: Any text, lone surrogates included.
any_text = st.text(st.characters(), max_size=12)
scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=True, allow_infinity=True)
    | any_text
)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(any_text, inner, max_size=3),
    max_leaves=12,
)


def _nested(depth: int, leaf: Any) -> Any:
    for _ in range(depth):
        leaf = {"a": leaf}
    return leaf


deep = st.builds(_nested, st.integers(MAX_DEPTH - 3, MAX_DEPTH + 3), json_values)
metadata = st.dictionaries(any_text, json_values | deep, max_size=3)


def _body(document: dict[str, Any], as_list: bool, ascii_only: bool) -> bytes:
    text = json.dumps([document] if as_list else document, ensure_ascii=ascii_only)
    return text.encode("utf-8", "surrogatepass")  # a lone surrogate makes bytes no UTF-8


def _door(raw: bytes) -> list[Any] | None:
    """The events the HTTP door publishes for ``raw``, or None when it answers 422."""
    try:
        return channel_events(parse_body(raw))
    except (InvalidEvent, InvalidEvents):
        return None


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    content=any_text.filter(lambda t: t.strip()) | st.just("x" * 100_000),
    metadata=metadata,
    with_id=st.booleans(),
    as_list=st.booleans(),
    ascii_only=st.booleans(),
)
@example(content="\ud800", metadata={}, with_id=False, as_list=True, ascii_only=True)
@example(content="x", metadata={"\ud800": 1}, with_id=True, as_list=False, ascii_only=True)
@example(content="x", metadata={"n": float("nan")}, with_id=True, as_list=False, ascii_only=True)
@example(content="x", metadata={"n": 1e308 * 10}, with_id=False, as_list=True, ascii_only=True)
@example(content="x", metadata=_nested(250, 1), with_id=True, as_list=True, ascii_only=True)
def test_what_the_door_accepts_the_worker_decodes_unaltered(
    content: str, metadata: dict[str, Any], with_id: bool, as_list: bool, ascii_only: bool
) -> None:
    document: dict[str, Any] = {
        "user_id": "ana",
        "session_id": "s1",
        "role": "user",
        "content": content,
        "occurred_at": "2024-05-01T10:00:00Z",
        "metadata": metadata,
    }
    if with_id:
        document["event_id"] = "e-1"
    accepted = _door(_body(document, as_list, ascii_only))
    if accepted is None:
        return
    (event,) = accepted
    decoded = decode(encode(event))
    assert decoded == event
    assert decoded.metadata == metadata  # nothing silently altered
    assert decoded.content == content


@settings(max_examples=40, deadline=None)
@given(pad=st.integers(MAX_EVENT_BYTES - 400, MAX_EVENT_BYTES + 400))
def test_sizes_at_the_limit_get_one_answer_at_the_door_and_in_the_worker(pad: int) -> None:
    document = {
        "event_id": "e-1",
        "user_id": "ana",
        "session_id": "s1",
        "role": "user",
        "content": "x",
        "occurred_at": "2024-05-01T10:00:00Z",
        "metadata": {"pad": "y" * pad},
    }
    raw = json.dumps(document).encode()
    door = _door(raw)
    try:
        worker: Any = decode(raw)
    except InvalidEvent:
        worker = None
    assert (door is None) == (worker is None)
    if door is not None:
        assert door == [worker]
