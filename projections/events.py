"""The event vocabulary: frozen, versioned pydantic models.

Every change of memory is one of these events on a topic. Events are immutable
(``frozen=True``), carry a ``type`` and a ``schema_version``, and are only turned into
bytes and back by :mod:`projections.codec`. This module owns the shapes and their
validation; it does no I/O.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, field_validator

__all__ = [
    "IDENTIFIER_PATTERN",
    "Event",
    "Identifier",
    "MessageEvent",
    "Role",
    "as_utc",
]

#: Identifiers (users, projects, sessions, channels) are plain tokens: letters, digits
#: and ``_ . : @ + / -``. Scope filters are built from them, so they never hold quotes,
#: spaces or operators.
IDENTIFIER_PATTERN = r"^[\w.:@+/-]{1,200}$"

Role = Literal["user", "assistant", "system", "tool"]


#: Checked by pydantic-core's regex engine (the hot path validates three per message).
Identifier = Annotated[str, StringConstraints(pattern=IDENTIFIER_PATTERN)]


def as_utc(value: datetime) -> datetime:
    """Return ``value`` as an aware UTC datetime; a naive value is taken to be UTC."""
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


def _new_event_id() -> str:
    return uuid.uuid4().hex


class _EventBase(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", str_strip_whitespace=False)


class MessageEvent(_EventBase):
    """One turn of a conversation, published by a channel.

    ``event_id`` is the client's idempotency key: publishing the same id twice for the
    same user stores one memory.
    """

    type: Literal["message"] = "message"
    schema_version: Literal[1] = 1
    event_id: str = Field(default_factory=_new_event_id, min_length=1, max_length=200)
    user_id: Identifier
    project_id: Identifier | None = None
    session_id: Identifier
    channel: Identifier = "api"
    role: Role
    speaker: str | None = Field(default=None, max_length=200)
    content: str = Field(min_length=1, max_length=100_000)
    occurred_at: datetime
    metadata: dict[str, Any] = Field(default_factory=dict)

    @field_validator("occurred_at")
    @classmethod
    def _utc(cls, value: datetime) -> datetime:
        return as_utc(value)

    @field_validator("content")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must contain some text")
        return value

    @field_validator("speaker")
    @classmethod
    def _speaker_or_none(cls, value: str | None) -> str | None:
        if value is None:
            return None
        value = value.strip()
        return value or None


#: Every event type the log may carry. New types are added here and in the codec.
Event = MessageEvent
