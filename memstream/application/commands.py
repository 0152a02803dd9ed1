"""Building commands against the memories they name (read side, no publishing).

``correct_fact``, ``confirm_fact`` and ``forget`` name a memory: the API and the CLI
check that the user owns it before publishing, and a correction copies the old
memory's kind, subject, attribute and time into the event, so the projector applies it
from the event alone. ``remember_fact`` names no memory.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from datetime import datetime
from typing import Any

from pydantic import ValidationError

from memstream.events.errors import InvalidQuery
from memstream.events.problems import problems_of
from memstream.events.vocabulary import ConfirmFact, CorrectFact, ForgetMemory, RememberFact
from memstream.projections.derived import command_memory
from memstream.storage import filters
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.lance.tables import MEMORIES

__all__ = [
    "UnknownMemory",
    "confirmation",
    "correction",
    "forgetting",
    "remembered_as",
    "remembering",
]


class UnknownMemory(LookupError):
    """The user has no memory with that id."""


def _owned(store: ProjectionStore, user_id: str, memory_id: str) -> dict[str, Any]:
    rows = store.by_ids(MEMORIES, [memory_id], where=filters.equals("user_id", user_id))
    if not rows:
        raise UnknownMemory(f"no memory {memory_id} for user {user_id}")
    return rows[0]


def remembering(
    fields: dict[str, Any], now: datetime, again: bool = False
) -> tuple[RememberFact, str]:
    """A ``remember_fact`` command from request fields, and the id of the memory it writes.

    Its event id (and so its memory's id) is made of what it states and whose it is
    (:func:`remembered_as`): an agent that sends it again, after a time-out or a lost
    answer, names the same memory, which is stored once. ``again`` makes it a new one,
    unique to this call: for a statement whose earlier memory was forgotten or replaced
    since, and for every value of a slot (a value said again supersedes as any other).
    """
    try:
        event = RememberFact.model_validate({"occurred_at": now, **fields})
    except ValidationError as exc:
        raise InvalidQuery("; ".join(problems_of(exc))) from None
    if "event_id" not in fields:
        event_id = remembered_as(event)
        if again:
            event_id += "@" + now.isoformat() + "-" + secrets.token_hex(4)
        event = event.model_copy(update={"event_id": event_id})
    return event, command_memory(event).memory_id


def remembered_as(event: RememberFact) -> str:
    """The event id of a statement: its user, project, kind, subject, attribute and
    content (case and spacing aside), hashed."""
    said = [
        event.user_id,
        event.project_id,
        event.kind,
        _plain(event.subject),
        _plain(event.attribute),
        _plain(event.content),
    ]
    digest = hashlib.sha256(json.dumps(said, ensure_ascii=False).encode()).hexdigest()
    return f"remember:{digest[:32]}"


def _plain(text: str | None) -> str | None:
    return None if text is None else " ".join(text.split()).casefold()


def correction(
    store: ProjectionStore, user_id: str, memory_id: str, content: str, now: datetime
) -> tuple[CorrectFact, str]:
    """A ``correct_fact`` command for a memory the user owns, and the new memory's id."""
    old = _owned(store, user_id, memory_id)
    kind = old["kind"] if old["kind"] != "episode" else "fact"
    try:
        event = CorrectFact(
            user_id=user_id,
            memory_id=memory_id,
            new_content=content,
            project_id=old["project_id"],
            kind=kind,
            subject=old["subject"],
            attribute=old["attribute"],
            valid_from=old["occurred_at"],
            occurred_at=now,
        )
    except ValidationError as exc:
        raise InvalidQuery("; ".join(problems_of(exc))) from None
    return event, command_memory(event).memory_id


def confirmation(
    store: ProjectionStore, user_id: str, memory_id: str, now: datetime
) -> ConfirmFact:
    _owned(store, user_id, memory_id)
    return ConfirmFact(user_id=user_id, memory_id=memory_id, occurred_at=now)


def forgetting(store: ProjectionStore, user_id: str, memory_id: str, now: datetime) -> ForgetMemory:
    _owned(store, user_id, memory_id)
    return ForgetMemory(user_id=user_id, memory_id=memory_id, occurred_at=now)
