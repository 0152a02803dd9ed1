"""What the HTTP API answers to a write: the events it accepted, the write token that a
later read waits for, and the memory or document the write concerns. Declared on their
routes, so ``/openapi.json`` and the clients generated from it type them."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from memstream.http.resource_answers import DocumentStatus

__all__ = [
    "CorrectionAccepted",
    "DocumentRemoval",
    "DocumentSubmitted",
    "EventsAccepted",
    "MemoryCommandAccepted",
]

_TOKEN = (
    "the write token: a read given it as `after_write` sees this write (null: the "
    "broker gave no position)"
)


class EventsAccepted(BaseModel):
    """``POST /v1/events``: the events taken, durably, for the worker to apply."""

    model_config = ConfigDict(extra="forbid")

    #: the ids of the events accepted, in the order sent
    accepted: list[str]
    token: str | None = Field(description=_TOKEN)


class MemoryCommandAccepted(BaseModel):
    """A command on one memory accepted (remember, confirm, forget, restore)."""

    model_config = ConfigDict(extra="forbid")

    accepted: list[str]
    #: the memory the command makes or acts on
    memory_id: str
    token: str | None = Field(description=_TOKEN)


class CorrectionAccepted(BaseModel):
    """``POST /v1/memories/{memory_id}/correct``: the new memory that replaces one."""

    model_config = ConfigDict(extra="forbid")

    accepted: list[str]
    #: the new memory, holding the corrected content
    memory_id: str
    #: the memory it replaces (kept as history)
    supersedes: str
    token: str | None = Field(description=_TOKEN)


class DocumentSubmitted(BaseModel):
    """``POST /v1/documents``: a document taken (202), or the same bytes again (200)."""

    model_config = ConfigDict(extra="forbid")

    document_id: str
    #: the SHA-256 of the bytes submitted
    checksum: str
    #: false when these bytes were submitted before (nothing is read again)
    new: bool
    accepted: list[str]
    token: str | None = Field(description=_TOKEN)
    #: with ``?wait=``: the document's status when the wait ended
    document: DocumentStatus | None = None


class DocumentRemoval(BaseModel):
    """``DELETE /v1/documents/{document_id}``: the removal accepted (202), applied
    (200 with ``?wait=``), or done before (200, ``removed`` true)."""

    model_config = ConfigDict(extra="forbid")

    document_id: str
    #: true when the document was removed already: nothing was published
    removed: bool
    accepted: list[str]
    token: str | None = Field(default=None, description=_TOKEN)
    #: with ``?wait=``: the document's status when the wait ended (null: not read yet)
    document: DocumentStatus | None = None
