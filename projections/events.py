"""The event vocabulary: frozen, versioned pydantic models.

Every change of memory is one of these events on a topic. Events are immutable
(``frozen=True``), carry a ``type`` and a ``schema_version``, and are only turned into
bytes and back by :mod:`projections.codec`. This module owns the shapes and their
validation; it does no I/O.
"""

from __future__ import annotations

import base64
import binascii
import uuid
from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, field_validator

__all__ = [
    "IDENTIFIER_PATTERN",
    "EmbeddingComputed",
    "Event",
    "Identifier",
    "MemoryAccessed",
    "MessageEvent",
    "Role",
    "Tag",
    "as_utc",
]

#: Identifiers (users, projects, sessions, channels) are plain tokens: letters, digits
#: and ``_ . : @ + / -``. Scope filters are built from them, so they never hold quotes,
#: spaces or operators.
IDENTIFIER_PATTERN = r"^[\w.:@+/-]{1,200}$"

Role = Literal["user", "assistant", "system", "tool"]


#: Checked by pydantic-core's regex engine (the hot path validates three per message).
Identifier = Annotated[str, StringConstraints(pattern=IDENTIFIER_PATTERN)]
#: A tag: a short lowercase token ("travel", "work-project").
Tag = Annotated[
    str, StringConstraints(to_lower=True, strip_whitespace=True, pattern=r"^[\w.:+/-]{1,64}$")
]


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
    tags: list[Tag] = Field(default_factory=list, max_length=32)
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


class EmbeddingComputed(_EventBase):
    """The vector of one memory, computed once by the embedder and kept in the log.

    ``vector`` is the base64 of ``dimension`` little-endian float32 values (exact, and a
    third of the size of a JSON list). The scope columns of the memory travel with it,
    so the vector row is built from this event alone, whatever order replay meets it in.
    """

    type: Literal["embedding_computed"] = "embedding_computed"
    schema_version: Literal[1] = 1
    event_id: str = Field(min_length=1, max_length=300)
    memory_id: str = Field(min_length=1, max_length=200)
    user_id: Identifier
    project_id: Identifier | None = None
    kind: str = Field(min_length=1, max_length=40)
    occurred_at: datetime | None = None
    model: str = Field(min_length=1, max_length=200)
    model_version: str = Field(min_length=1, max_length=100)
    dimension: int = Field(ge=1, le=8192)
    vector: str
    computed_at: datetime

    @field_validator("occurred_at", "computed_at")
    @classmethod
    def _utc(cls, value: datetime | None) -> datetime | None:
        return None if value is None else as_utc(value)

    @field_validator("vector")
    @classmethod
    def _base64(cls, value: str) -> str:
        try:
            base64.b64decode(value, validate=True)
        except (binascii.Error, ValueError):
            raise ValueError("must be base64 of little-endian float32 values") from None
        return value

    def model_post_init(self, __context: Any) -> None:
        if len(base64.b64decode(self.vector)) != 4 * self.dimension:
            raise ValueError(f"vector: must hold {self.dimension} float32 values")


class MemoryAccessed(_EventBase):
    """A search returned these memories to a caller (reinforcement for ranking and decay)."""

    type: Literal["memory_accessed"] = "memory_accessed"
    schema_version: Literal[1] = 1
    event_id: str = Field(default_factory=_new_event_id, min_length=1, max_length=200)
    user_id: Identifier
    memory_ids: list[str] = Field(min_length=1, max_length=500)
    accessed_at: datetime

    @field_validator("accessed_at")
    @classmethod
    def _utc(cls, value: datetime) -> datetime:
        return as_utc(value)


#: Every event type the log may carry. New types are added here and in the codec.
Event = MessageEvent | EmbeddingComputed | MemoryAccessed
