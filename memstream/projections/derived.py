"""Rows and state changes from lifecycle events and commands (pure).

Consolidated facts, reflections and remembered or corrected facts become ``memories``
rows here; confirmations, forgetting, decay and pruning become ``memory_state``
changes. Ids come from the events, so applying an event twice writes nothing new.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from memstream.events.identifier_rules import derived_memory_id, without_controls
from memstream.events.vocabulary import (
    ConfidenceDecayed,
    ConfirmFact,
    CorrectFact,
    DerivedMemory,
    ForgetMemory,
    MemoryPruned,
    RememberFact,
)
from memstream.projections.entities import entity_ids_for
from memstream.projections.memory_rows import memory_row
from memstream.projections.memory_state import StateChange
from memstream.storage.log_records import LogPosition
from memstream.text.mentions import extract_mentions

__all__ = [
    "command_memory",
    "derived_row",
    "search_text_of",
    "slot_of",
    "state_changes",
]

Row = dict[str, object]


#: Words a question about a fact's attribute uses that the fact need not say: "What is
#: Maya's job?" finds "Maya works as a software tester." by its words too.
SLOT_WORDS = {
    "occupation": "job occupation profession work",
    "works_at": "job work workplace employer",
    "left_job": "quit former",
    "lives_in": "home lives live",
    "from": "origin hometown",
    "age": "age old",
    "name": "name",
}


def search_text_of(memory: DerivedMemory) -> str:
    """What full-text search reads of a derived memory: its content, and the words of
    its attribute (:data:`SLOT_WORDS`) in brackets."""
    words = SLOT_WORDS.get((memory.attribute or "").split(":")[0])
    return f"{memory.content} [{words}]" if words else memory.content


def slot_of(user_id: str, memory: DerivedMemory) -> str | None:
    """The supersession slot of an exclusive fact ("user|subject|attribute")."""
    if not (memory.exclusive and memory.subject and memory.attribute):
        return None
    subject = without_controls(memory.subject).strip().lower()
    return f"{user_id}|{subject}|{without_controls(memory.attribute)}"


def derived_row(
    user_id: str,
    project_id: str | None,
    memory: DerivedMemory,
    position: LogPosition,
    channel: str,
) -> Row:
    """The ``memories`` row of a derived memory."""
    mentions = extract_mentions(memory.content, None, memory.occurred_at)
    return memory_row(
        memory_id=memory.memory_id,
        kind=memory.kind,
        user_id=user_id,
        project_id=project_id,
        session_id=memory.session_id,
        channel=channel,
        speaker=memory.speaker,
        content=memory.content,
        search_text=search_text_of(memory),
        tags=sorted(set(memory.tags)),
        entity_ids=entity_ids_for(user_id, mentions),
        importance=memory.importance,
        confidence=memory.confidence,
        source_event_ids=memory.source_event_ids,
        source_memory_ids=memory.source_memory_ids,
        subject=memory.subject,
        attribute=memory.attribute,
        value=memory.value,
        slot=slot_of(user_id, memory),
        occurred_at=memory.occurred_at,
        position=position,
    )


def command_memory(event: RememberFact | CorrectFact) -> DerivedMemory:
    """The memory a ``remember_fact`` or ``correct_fact`` command writes."""
    memory_id = derived_memory_id("cmd", event.user_id, event.event_id)
    if isinstance(event, RememberFact):
        return DerivedMemory(
            memory_id=memory_id,
            kind=event.kind,
            content=event.content,
            subject=event.subject,
            attribute=event.attribute,
            value=event.value,
            exclusive=event.exclusive,
            confidence=1.0,
            importance=event.importance,
            tags=event.tags,
            speaker=event.speaker,
            source_event_ids=[event.event_id],
            occurred_at=event.occurred_at,
        )
    return DerivedMemory(
        memory_id=memory_id,
        kind=event.kind,
        content=event.new_content,
        subject=event.subject,
        attribute=event.attribute,
        value=event.new_content[:1000],  # what it states, within DerivedMemory.value
        exclusive=bool(event.subject and event.attribute),
        confidence=1.0,
        importance=0.8,
        source_event_ids=[event.event_id],
        source_memory_ids=[event.memory_id],
        occurred_at=_correction_time(event),
    )


def _correction_time(event: CorrectFact) -> datetime:
    """When a correction holds from: just after the memory it corrects (so it takes that
    memory's place in its slot's history), or when it was made."""
    if event.valid_from is None:
        return event.occurred_at
    return event.valid_from + timedelta(microseconds=1)


def state_changes(
    event: CorrectFact | ConfirmFact | ForgetMemory | ConfidenceDecayed | MemoryPruned,
) -> list[StateChange]:
    """What a command or a decay decision changes in ``memory_state``."""
    if isinstance(event, CorrectFact):
        new_id = command_memory(event).memory_id
        return [
            StateChange(
                event.memory_id,
                event.user_id,
                valid_until=_correction_time(event),
                superseded_by=new_id,
            )
        ]
    if isinstance(event, ConfirmFact):
        return [StateChange(event.memory_id, event.user_id, protected_at=event.occurred_at)]
    if isinstance(event, ForgetMemory):
        return [
            StateChange(
                event.memory_id,
                event.user_id,
                forgotten_at=event.occurred_at,
                forgotten_reason="forgotten",
            )
        ]
    if isinstance(event, ConfidenceDecayed):
        return [
            StateChange(
                u.memory_id, event.user_id, confidence=u.confidence, confidence_as_of=event.as_of
            )
            for u in event.updates
        ]
    return [
        StateChange(m, event.user_id, forgotten_at=event.as_of, forgotten_reason="pruned")
        for m in event.memory_ids
    ]
