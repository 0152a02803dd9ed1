"""The one place a ``memories`` row is built (its columns are the table's schema, in
order: a test holds the two together). Episodes and derived memories (facts,
reflections, commands) fill it differently; both call :func:`memory_row`."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from memstream.storage.log_records import LogPosition

__all__ = ["memory_row"]


def memory_row(
    *,
    memory_id: str,
    kind: str,
    user_id: str,
    content: str,
    search_text: str,
    position: LogPosition,
    occurred_at: datetime,
    project_id: str | None = None,
    session_id: str | None = None,
    channel: str | None = None,
    role: str | None = None,
    speaker: str | None = None,
    metadata: str = "{}",
    tags: Sequence[str] = (),
    entity_ids: Sequence[str] = (),
    importance: float | None = None,
    confidence: float | None = None,
    source_event_ids: Sequence[str] = (),
    source_memory_ids: Sequence[str] = (),
    subject: str | None = None,
    attribute: str | None = None,
    value: str | None = None,
    slot: str | None = None,
) -> dict[str, Any]:
    """A ``memories`` row; ``position`` is the log record it was applied from (its time
    is the row's ``ingested_at``)."""
    return {
        "memory_id": memory_id,
        "kind": kind,
        "user_id": user_id,
        "project_id": project_id,
        "session_id": session_id,
        "channel": channel,
        "role": role,
        "speaker": speaker,
        "content": content,
        "search_text": search_text,
        "metadata": metadata,
        "tags": list(tags),
        "entity_ids": list(entity_ids),
        "importance": importance,
        "confidence": confidence,
        "source_event_ids": list(source_event_ids),
        "source_memory_ids": list(source_memory_ids),
        "subject": subject,
        "attribute": attribute,
        "value": value,
        "slot": slot,
        "occurred_at": occurred_at,
        "ingested_at": position.timestamp,
        "valid_until": None,
        "log_epoch": position.log_epoch,
        "log_topic": position.topic,
        "log_partition": position.partition,
        "log_offset": position.offset,
    }
