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
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from memstream.events.vocabulary import MessageEvent
from memstream.projections.entities import MentionSeen, entity_ids_for
from memstream.projections.memory_rows import memory_row
from memstream.storage.log_records import LogPosition
from memstream.text.mentions import EntityMention, extract_mentions

__all__ = [
    "CONTEXT_TURNS",
    "EPISODE_CONFIDENCE",
    "EPISODE_IMPORTANCE",
    "LoggedEvent",
    "apply",
    "episode_row",
    "memory_id_for",
    "rows_and_mentions",
    "rows_to_insert",
    "search_text",
    "turn_in_context",
]

#: What a raw turn is worth before any consolidation says more.
EPISODE_IMPORTANCE = 0.5
EPISODE_CONFIDENCE = 1.0

Row = dict[str, Any]
State = Mapping[str, Row]


@dataclass(frozen=True, slots=True)
class LoggedEvent:
    """A decoded event with its position."""

    event: MessageEvent
    position: LogPosition

    def mentions(self) -> list[EntityMention]:
        return extract_mentions(self.event.content, self.event.speaker, self.event.occurred_at)


def memory_id_for(user_id: str, event_id: str) -> str:
    """The memory id of a message: stable for (owner, idempotency key)."""
    digest = hashlib.blake2b(f"{user_id}\x1f{event_id}".encode(), digest_size=16).hexdigest()
    return f"ep-{digest}"


def search_text(speaker: str | None, content: str) -> str:
    """What the full-text index sees: the speaker's name, then the content."""
    return f"{speaker}: {content}" if speaker else content


#: How many earlier turns of the session go into a message's embedding text (default).
CONTEXT_TURNS = 2


def turn_in_context(turn: np.ndarray, earlier: Sequence[np.ndarray]) -> np.ndarray:
    """A turn's vector in its conversation: the mean of its own unit vector and those of
    the session's previous turns (``earlier``, at most :data:`CONTEXT_TURNS` of them),
    made unit again.

    A reply ("Yes, last Friday!") means little alone; with the turns it answers, its
    vector lands near questions about them. Each turn is embedded once, alone, and its
    context is pooled from the vectors already made, instead of embedding each turn
    with the text of its previous two (three times the model's work). Measured on LoCoMo
    through the whole search, paper recall@10: 0.659 alone, 0.724 with the text of two
    earlier turns, 0.721 with two earlier turns' vectors averaged in (tuning half 0.753
    and 0.752, checking half 0.714 and 0.711; weights 1/0.5/0.25: 0.708, three earlier
    turns at half weight: 0.717).
    """
    total = np.asarray(turn, dtype=np.float32).copy()
    for vector in earlier:
        total += vector
    norm = float(np.linalg.norm(total))
    unit: np.ndarray = total / norm if norm > 0 else total
    return unit


def episode_row(
    event: MessageEvent, position: LogPosition, mentions: list[EntityMention] | None = None
) -> Row:
    """The ``memories`` row for one message (``mentions``: its entities, if known)."""
    if mentions is None:
        mentions = extract_mentions(event.content, event.speaker, event.occurred_at)
    hashtags = {m.key for m in mentions if m.type == "hashtag"}
    return memory_row(
        memory_id=memory_id_for(event.user_id, event.event_id),
        kind="episode",
        user_id=event.user_id,
        project_id=event.project_id,
        session_id=event.session_id,
        channel=event.channel,
        role=event.role,
        speaker=event.speaker,
        content=event.content,
        search_text=search_text(event.speaker, event.content),
        metadata=_metadata_json(event.metadata),
        tags=sorted(hashtags.union(event.tags)),
        entity_ids=entity_ids_for(event.user_id, mentions),
        importance=EPISODE_IMPORTANCE,
        confidence=EPISODE_CONFIDENCE,
        source_event_ids=[event.event_id],
        occurred_at=event.occurred_at,
        position=position,
    )


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
    return rows_and_mentions(batch)[0]


def rows_and_mentions(batch: Iterable[LoggedEvent]) -> tuple[list[Row], list[MentionSeen]]:
    """The rows to insert if absent, and the entity mentions of their messages, in log
    order (a message sent twice in the batch mentions its entities once)."""
    chosen: dict[str, Row] = {}
    seen: list[MentionSeen] = []
    for logged in batch:
        mentions = logged.mentions()
        row = episode_row(logged.event, logged.position, mentions)
        memory_id = row["memory_id"]
        if memory_id in chosen:
            continue
        chosen[memory_id] = row
        seen.extend(
            MentionSeen(
                logged.event.user_id, m, logged.event.occurred_at, logged.position, memory_id
            )
            for m in mentions
        )
    return list(chosen.values()), seen
