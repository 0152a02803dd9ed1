"""Old events keep loading: a registered upcaster brings a version-1 document up to the
version a newer model reads, and the codec refuses what it cannot bring up to date.

The newer model is defined here (today's events stay at version 1): a ``message`` v2
that calls the text ``text`` and records the channel's language. The v1 bytes come from
the log memstream 0.4.0 wrote (``tests/fixtures/log-0.4.0``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import pyarrow.dataset as ds
import pytest

from memstream.events import vocabulary as ev
from memstream.events.codec import Document, EventCodec, decode
from memstream.events.errors import InvalidEvent

LOG = Path(__file__).parents[1] / "fixtures" / "log-0.4.0" / "events"


class MessageV2(ev.MessageEvent):
    """A message as a later memstream might write it."""

    schema_version: Literal[2] = 2  # type: ignore[assignment]
    content: str | None = None  # type: ignore[assignment]
    text: str
    language: str = "und"


def upcast_message_v1_v2(document: Document) -> Document:
    """v1 ``content`` is v2 ``text``; v1 never knew the language."""
    upcast = dict(document)
    upcast["text"] = upcast.pop("content")
    upcast.setdefault("language", "und")
    return upcast


def _old_messages() -> list[bytes]:
    table = ds.dataset(LOG, format="parquet").to_table(columns=["topic", "value"])
    return [
        value
        for topic, value in zip(
            table.column("topic").to_pylist(), table.column("value").to_pylist(), strict=True
        )
        if topic == "memory.messages" and b'"type":"message"' in value
    ]


def test_version_1_messages_from_an_old_log_are_read_by_a_version_2_model() -> None:
    codec = EventCodec([MessageV2], {("message", 1): upcast_message_v1_v2})
    old = _old_messages()
    assert len(old) == 48
    for raw in old:
        today = decode(raw)
        later = codec.decode(raw)
        assert isinstance(later, MessageV2) and later.schema_version == 2
        assert isinstance(today, ev.MessageEvent)
        assert later.text == today.content and later.language == "und"
        assert later.event_id == today.event_id and later.occurred_at == today.occurred_at


def test_a_version_without_an_upcaster_is_refused_by_name() -> None:
    codec = EventCodec([MessageV2], {})
    with pytest.raises(InvalidEvent, match="no upcaster from version 1"):
        codec.decode(_old_messages()[0])


def test_a_version_newer_than_the_code_is_refused() -> None:
    newer = _old_messages()[0].replace(b'"schema_version":1', b'"schema_version":3')
    with pytest.raises(InvalidEvent, match="newer than this memstream understands"):
        decode(newer)
