"""What the HTTP API answers about memories: one memory, a page of them, the weak ones,
a memory's history and explanation, an archived memory's original, an entity's
profile, and what was served to callers. Declared on their routes, so
``/openapi.json`` and the clients generated from it type them."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict

from memstream.events.vocabulary import ServedLine
from memstream.queries.as_of import AsOf
from memstream.queries.freshness import Freshness

__all__ = [
    "ArchivedOriginal",
    "BriefMemory",
    "ConfidenceExplained",
    "DerivedFrom",
    "EntityProfile",
    "ExpandedMemory",
    "Explanation",
    "ExplanationCommands",
    "ExplanationStep",
    "ListedMemory",
    "MemoryColumns",
    "MemoryDocument",
    "MemoryHistory",
    "MemoryPage",
    "MonthCount",
    "ServedAnswer",
    "ServedList",
    "ServedRebuilt",
    "ServedRecord",
    "WeakMemories",
    "WeakMemory",
]


class ListedMemory(BaseModel):
    """A memory as a list shows it (an archived one: its summary as content)."""

    model_config = ConfigDict(extra="forbid")

    memory_id: str
    kind: str
    content: str
    speaker: str | None = None
    role: str | None = None
    session_id: str | None = None
    project_id: str | None = None
    channel: str | None = None
    tags: list[str] | None = None
    importance: float | None = None
    #: the confidence as it stands now (decay and accesses counted)
    confidence: float | None = None
    occurred_at: datetime | None = None
    #: the JSON the memory's event carried as its metadata
    metadata: str | None = None
    archived: bool
    #: ``current``, ``superseded``, or why it was forgotten
    state: str


class MemoryPage(BaseModel):
    """``GET /v1/memories``: a page of the user's memories."""

    model_config = ConfigDict(extra="forbid")

    memories: list[ListedMemory]
    #: the ``cursor`` of the next page (null: this was the last)
    next_cursor: str | None
    freshness: Freshness | None
    as_of: AsOf | None


class MemoryColumns(BaseModel):
    """The columns of a memory's ``memories`` row that every view of it shows."""

    model_config = ConfigDict(extra="forbid")

    memory_id: str
    #: ``episode``, ``fact``, ``reflection``, … (an archive index row may lack it)
    kind: str | None
    user_id: str
    content: str
    project_id: str | None = None
    session_id: str | None = None
    channel: str | None = None
    role: str | None = None
    speaker: str | None = None
    #: the JSON the memory's event carried as its metadata
    metadata: str | None = None
    tags: list[str] | None = None
    entity_ids: list[str] | None = None
    importance: float | None = None
    confidence: float | None = None
    source_event_ids: list[str] | None = None
    source_memory_ids: list[str] | None = None
    subject: str | None = None
    attribute: str | None = None
    value: str | None = None
    slot: str | None = None
    occurred_at: datetime | None = None
    ingested_at: datetime | None = None
    valid_until: datetime | None = None


class MemoryDocument(MemoryColumns):
    """``GET /v1/memories/{memory_id}``: a memory as stored, with what happened to it
    since (an archived one: its index row, its summary as content, where its original
    is). ``confidence`` is the confidence as it stands now."""

    #: the names of the entities it links
    entities: list[str] | None = None
    #: the confidence it was written with
    written_confidence: float | None = None
    superseded_by: str | None = None
    #: of a memory in a chain of replacements: when its successor was recorded
    superseded_at: datetime | None = None
    #: the memories this one replaced
    supersedes: list[str] | None = None
    forgotten_at: datetime | None = None
    forgotten_reason: str | None = None
    #: confirmed: full confidence, never decays
    protected: bool | None = None
    access_count: int | None = None
    last_accessed: datetime | None = None
    archived: bool | None = None
    #: an archived memory's: where its original is in the cold store
    storage_ref: str | None = None
    reason: str | None = None
    hotness: float | None = None
    archived_at: datetime | None = None
    restored_at: datetime | None = None
    expanded_at: list[datetime] | None = None
    #: with ``as_of``: the moment it reflects
    as_of: AsOf | None = None


class ArchivedOriginal(MemoryColumns):
    """An archived memory's original as the cold store keeps it: its ``memories`` row
    (every column of :data:`~memstream.storage.schemas.MEMORIES_SCHEMA`; an older
    archive may lack the newer ones) and its vector."""

    search_text: str | None = None
    log_epoch: str | None = None
    log_topic: str | None = None
    log_partition: int | None = None
    log_offset: int | None = None
    #: its vector as it was (null: it had none)
    vector: list[float] | None = None
    vector_model: str | None = None
    vector_source_event_id: str | None = None
    #: the SHA-256 the cold store keeps beside the original, checked when it is read
    checksum: str | None = None


class ExpandedMemory(BaseModel):
    """``GET /v1/memories/{memory_id}?expand=true``: an archived memory's original."""

    model_config = ConfigDict(extra="forbid")

    memory_id: str
    archived: bool
    #: the memory's row exactly as it was archived
    original: ArchivedOriginal
    #: whether this expansion brings it back to the hot tables
    restoring: bool


class WeakMemory(BaseModel):
    """A memory near the prune threshold."""

    model_config = ConfigDict(extra="forbid")

    memory_id: str
    kind: str
    #: the confidence decay gives it now
    confidence: float


class WeakMemories(BaseModel):
    """``GET /v1/memories/weak``: weakest first."""

    model_config = ConfigDict(extra="forbid")

    memories: list[WeakMemory]


class MemoryHistory(BaseModel):
    """``GET /v1/memories/{memory_id}/history``: the memories that replaced one another
    through this one, oldest first."""

    model_config = ConfigDict(extra="forbid")

    memory_id: str
    history: list[MemoryDocument]


class BriefMemory(BaseModel):
    """A memory in brief (what an explanation or a profile links to)."""

    model_config = ConfigDict(extra="forbid")

    memory_id: str
    kind: str | None = None
    content: str | None = None
    speaker: str | None = None
    session_id: str | None = None
    occurred_at: datetime | None = None
    tags: list[str] | None = None
    entities: list[str] | None = None
    importance: float | None = None


class DerivedFrom(BaseModel):
    """The turns and memories a memory came from."""

    model_config = ConfigDict(extra="forbid")

    turns: list[BriefMemory]
    memories: list[BriefMemory]


class ExplanationStep(BaseModel):
    """One memory of the chain of replacements."""

    model_config = ConfigDict(extra="forbid")

    memory_id: str
    kind: str | None
    content: str | None
    occurred_at: datetime | None
    valid_until: datetime | None
    superseded_by: str | None


class ExplanationCommands(BaseModel):
    """What commands did to the memory."""

    model_config = ConfigDict(extra="forbid")

    confirmed: bool
    forgotten_at: datetime | None
    forgotten_reason: str | None
    #: the memories it corrects
    corrects: list[str]
    superseded_by: str | None


class ConfidenceExplained(BaseModel):
    """Where a memory's confidence started, where it is now, and the rule between."""

    model_config = ConfigDict(extra="forbid")

    written: float | None
    stored: float | None
    now: float | None
    rule: str
    access_count: int
    last_accessed: datetime | None
    days_since_used: float


class Explanation(BaseModel):
    """``GET /v1/memories/{memory_id}/explain``: why a memory exists and stands where
    it does."""

    model_config = ConfigDict(extra="forbid")

    memory: BriefMemory
    derived_from: DerivedFrom
    history: list[ExplanationStep]
    commands: ExplanationCommands
    entities: list[str]
    confidence: ConfidenceExplained
    #: with ``as_of``: the moment it reflects
    as_of: AsOf | None = None


class MonthCount(BaseModel):
    """How many of an entity's memories happened in one month."""

    model_config = ConfigDict(extra="forbid")

    #: ``YYYY-MM``
    month: str
    memories: int


class EntityProfile(BaseModel):
    """``GET /v1/entities``: an entity, its memories (the newest 20) and a monthly
    timeline."""

    model_config = ConfigDict(extra="forbid")

    entity_id: str
    name: str
    type: str
    aliases: list[str]
    mention_count: int
    first_seen: datetime | None
    last_seen: datetime | None
    memories: list[BriefMemory]
    memory_count: int
    timeline: list[MonthCount]
    #: with ``as_of``: the moment it reflects
    as_of: AsOf | None = None


class ServedRecord(BaseModel):
    """An answer a caller was given of the user's memory: who asked, the question,
    where memory stood, and the lines as ids."""

    model_config = ConfigDict(extra="forbid")

    served_id: str
    user_id: str
    served_at: datetime
    #: ``context`` or ``search``
    answer: str
    #: the door it went through (``http``, ``mcp``, …)
    door: str
    key_id: str | None
    tenant: str | None
    agent: str | None
    session_id: str | None
    project_id: str | None
    question: str
    #: the write token of what the answer reflected
    as_of: str | None
    #: the ``as_of`` the read asked for, as given
    asked_as_of: str | None
    budget_tokens: int | None
    #: its lines as the event recorded them
    lines: list[ServedLine]
    #: the SHA-256 of the answer's text
    digest: str


class ServedList(BaseModel):
    """``GET /v1/served``: newest first."""

    model_config = ConfigDict(extra="forbid")

    served: list[ServedRecord]


class ServedRebuilt(BaseModel):
    """A served answer rendered again over memory as it stood when it was read."""

    model_config = ConfigDict(extra="forbid")

    text: str | None
    digest: str
    #: whether it is the digest recorded (and every line's memory was found)
    matches: bool
    #: the lines no memory was found for
    missing: list[str]
    #: the recorded moment memory was read as of (null: none was kept; memory as it
    #: stands now)
    read_as_of: datetime | None


class ServedAnswer(ServedRecord):
    """``GET /v1/served/{served_id}``: one answer as recorded, and rendered again."""

    rebuilt: ServedRebuilt
