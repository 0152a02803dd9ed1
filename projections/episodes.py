"""The episodes projection: one ``memories`` row per message, as pure functions.

``episode_row`` turns a message and its log position into a row; ``apply`` folds one
logged event into an in-memory state; ``rows_to_insert`` reduces a batch to the rows a
sink must insert if absent. The sink (LanceDB) keeps the first row per ``memory_id``,
so applying an event twice changes nothing. No I/O and no clock here: the ingest time
is the time the log received the record.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from projections.events import MessageEvent

__all__ = ["LogPosition", "LoggedEvent", "apply", "episode_row", "memory_id_for", "rows_to_insert"]

Row = dict[str, Any]
State = Mapping[str, Row]


@dataclass(frozen=True, slots=True)
class LogPosition:
    """Where a record sits in one life (epoch) of the log, and when the log received it."""

    log_epoch: str
    topic: str
    partition: int
    offset: int
    timestamp: datetime


@dataclass(frozen=True, slots=True)
class LoggedEvent:
    """A decoded event with its position."""

    event: MessageEvent
    position: LogPosition


def memory_id_for(user_id: str, event_id: str) -> str:
    """The memory id of a message: stable for (owner, idempotency key)."""
    digest = hashlib.blake2b(f"{user_id}\x1f{event_id}".encode(), digest_size=16).hexdigest()
    return f"ep-{digest}"


def search_text(speaker: str | None, content: str) -> str:
    """What the full-text index sees: the speaker's name, then the content."""
    return f"{speaker}: {content}" if speaker else content


def episode_row(event: MessageEvent, position: LogPosition) -> Row:
    """The ``memories`` row for one message."""
    return {
        "memory_id": memory_id_for(event.user_id, event.event_id),
        "kind": "episode",
        "user_id": event.user_id,
        "project_id": event.project_id,
        "session_id": event.session_id,
        "channel": event.channel,
        "role": event.role,
        "speaker": event.speaker,
        "content": event.content,
        "search_text": search_text(event.speaker, event.content),
        "metadata": _metadata_json(event.metadata),
        "source_event_ids": [event.event_id],
        "occurred_at": event.occurred_at,
        "ingested_at": position.timestamp,
        "valid_until": None,
        "log_epoch": position.log_epoch,
        "log_topic": position.topic,
        "log_partition": position.partition,
        "log_offset": position.offset,
    }


def _metadata_json(metadata: Mapping[str, Any]) -> str:
    if not metadata:
        return "{}"  # the common case, without the encoder's cost
    return json.dumps(metadata, sort_keys=True, ensure_ascii=False)


def apply(state: State, logged: LoggedEvent) -> dict[str, Row]:
    """Fold one logged event into ``state``; the first row for a memory id wins."""
    row = episode_row(logged.event, logged.position)
    if row["memory_id"] in state:
        return dict(state)
    return {**state, row["memory_id"]: row}


def rows_to_insert(batch: Iterable[LoggedEvent]) -> list[Row]:
    """The rows a batch asks an insert-if-absent sink to add (first per memory id)."""
    chosen: dict[str, Row] = {}
    for logged in batch:
        row = episode_row(logged.event, logged.position)
        chosen.setdefault(row["memory_id"], row)
    return list(chosen.values())
