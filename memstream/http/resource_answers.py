"""What the HTTP API answers about the deployment and its resources: health, the stats,
how fresh reads are, the users, the keys, documents and context blocks. Declared on
their routes, so ``/openapi.json`` and the clients generated from it type them."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from memstream.queries.as_of import AsOf
from memstream.queries.freshness import Freshness

__all__ = [
    "ApiKeyAnswer",
    "ApiKeyList",
    "AppliedOffset",
    "ContextAnswer",
    "ContextLeftOut",
    "ContextLineAnswer",
    "ContextSection",
    "DocumentError",
    "DocumentList",
    "DocumentStatus",
    "FreshnessAnswer",
    "Liveness",
    "NewApiKey",
    "Readiness",
    "Stats",
    "UserHeld",
    "UserList",
]


class Liveness(BaseModel):
    """``GET /healthz``."""

    model_config = ConfigDict(extra="forbid")

    status: Literal["ok"]
    #: this process's instance name, when it was given one
    instance: str | None = None


class Readiness(BaseModel):
    """``GET /readyz``: 200 ready, 503 not, with each reason by what failed."""

    model_config = ConfigDict(extra="forbid")

    status: Literal["ready", "not ready"]
    reasons: dict[str, str] | None = None


class FreshnessAnswer(Freshness):
    """``GET /v1/freshness``: how fresh reads of the user are."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    user_id: str
    #: with ``after_write``: how long the answer waited for that write to be applied
    waited_ms: float | None = None


class AppliedOffset(BaseModel):
    """Where the projections stand in one partition of one topic."""

    model_config = ConfigDict(extra="forbid")

    log_epoch: str
    offset: int


class Stats(BaseModel):
    """``GET /v1/stats``: of one user, or (no ``user_id``) of the deployment."""

    model_config = ConfigDict(extra="forbid")

    #: the user counted (null: the whole deployment)
    user_id: str | None
    #: the memories reads show, by kind
    memories: dict[str, int]
    #: the memories reads leave out: superseded, forgotten, a removed document's
    hidden: int
    archived: int
    entities: int
    #: memories that have no vector yet
    embedding_lag: int
    #: dead letters (of the user's own events, for a user)
    dead_letters: int
    #: records of the log not applied yet (a user's: of the user's partition); null
    #: when the log's end is not known
    lag: int | None = None
    #: the deployment's: the life of the log the projections hold
    log_epoch: str | None = None
    #: the deployment's: the write token of everything the projections hold
    position: str | None = None
    #: the deployment's: where the projections stand, by ``topic/partition``
    applied_offsets: dict[str, AppliedOffset] | None = None


class UserHeld(BaseModel):
    """A user memstream holds memories of."""

    model_config = ConfigDict(extra="forbid")

    user_id: str
    memories: int
    archived: int
    #: when the user's newest memory happened
    last_at: datetime | None


class UserList(BaseModel):
    """``GET /v1/users``."""

    model_config = ConfigDict(extra="forbid")

    users: list[UserHeld]


class ApiKeyAnswer(BaseModel):
    """An API key as listed: never the key itself, nor its hash."""

    model_config = ConfigDict(extra="forbid")

    key_id: str
    tenant: str
    role: Literal["read", "write", "admin"]
    created_at: str
    name: str
    revoked_at: str | None


class NewApiKey(ApiKeyAnswer):
    """``POST /v1/keys``: the new key, shown in this answer only."""

    key: str


class ApiKeyList(BaseModel):
    """``GET /v1/keys``."""

    model_config = ConfigDict(extra="forbid")

    keys: list[ApiKeyAnswer]


class DocumentError(BaseModel):
    """Why a document could not be read."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    error_class: str | None = Field(alias="class")
    message: str | None


class DocumentStatus(BaseModel):
    """A document and how far the worker has read it: ``received`` (accepted, not read
    yet), ``chunked``, ``indexed``, ``empty``, ``failed`` (``error`` says why) or
    ``removed``."""

    model_config = ConfigDict(extra="forbid")

    document_id: str
    user_id: str
    status: str
    checksum: str
    chunks: int | None
    total_chunks: int | None
    project_id: str | None = None
    title: str | None = None
    media_type: str | None = None
    size: int | None = None
    #: how many versions of it were submitted
    version: int | None = None
    pages: int | None = None
    facts: int | None = None
    tags: list[str] | None = None
    submitted_at: datetime | None = None
    updated_at: datetime | None = None
    #: of one document asked for: its chunks that have their vector
    embedded_chunks: int | None = None
    error: DocumentError | None = None
    #: why no facts were derived from it, when that failed
    facts_error: str | None = None
    #: how many times reading it was tried
    tries: int | None = None


class DocumentList(BaseModel):
    """``GET /v1/documents``: the user's documents, newest first."""

    model_config = ConfigDict(extra="forbid")

    documents: list[DocumentStatus]


class ContextLineAnswer(BaseModel):
    """One line of a context block, with the memory it quotes."""

    model_config = ConfigDict(extra="forbid")

    memory_id: str
    kind: str | None
    text: str
    occurred_at: datetime | None
    archived: bool
    source_event_ids: list[str]


class ContextSection(BaseModel):
    """A section of a context block (facts, entities, temporal, evidence)."""

    model_config = ConfigDict(extra="forbid")

    name: str
    tokens: int
    lines: list[ContextLineAnswer]


class ContextLeftOut(BaseModel):
    """A candidate left out of the block, and why."""

    model_config = ConfigDict(extra="forbid")

    memory_id: str
    section: str
    reason: str


class ContextAnswer(BaseModel):
    """``POST /v1/context``: the memory block to put before an agent's answer."""

    model_config = ConfigDict(extra="forbid")

    #: the block's text (null when nothing relevant was found)
    context: str | None
    sections: list[ContextSection]
    tokens: int
    budget_tokens: int
    #: how the question was judged (what chose the default budget)
    complexity: str
    took_ms: float
    left_out: list[ContextLeftOut]
    freshness: Freshness | None
    as_of: AsOf | None
