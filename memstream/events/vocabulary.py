"""The event vocabulary: frozen, versioned pydantic models.

Every change of memory is one of these events on a topic. Events are immutable
(``frozen=True``), carry a ``type`` and a ``schema_version``, and are only turned into
bytes and back by :mod:`memstream.events.codec`. This module owns the shapes and their
validation; it does no I/O.
"""

from __future__ import annotations

import base64
import binascii
import re
import uuid
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StringConstraints,
    field_validator,
)

from memstream.events.identifiers import (
    Identifier,
    MemoryId,
    Tag,
    UtcDateTime,
)

__all__ = [
    "CHANNEL_TYPES",
    "CHUNKS_PER_EVENT",
    "COMMAND_TYPES",
    "DERIVED_KINDS",
    "DOCUMENT_TYPES",
    "ERASURE_TYPES",
    "LIFECYCLE_TYPES",
    "LINK_RELATIONS",
    "Checksum",
    "ConfidenceDecayed",
    "ConfidenceUpdate",
    "ConfirmFact",
    "ContextServed",
    "CorrectFact",
    "DerivedKind",
    "DerivedMemory",
    "DocumentChunk",
    "DocumentChunked",
    "DocumentErrorClass",
    "DocumentFailed",
    "DocumentRemoved",
    "DocumentSubmitted",
    "EmbeddingComputed",
    "Event",
    "FactsConsolidated",
    "ForgetMemory",
    "LinkRelation",
    "MediaType",
    "MemoryAccessed",
    "MemoryArchived",
    "MemoryExpanded",
    "MemoryLink",
    "MemoryPruned",
    "MemoryRestored",
    "MessageEvent",
    "ReflectionWritten",
    "RememberFact",
    "RememberFields",
    "Role",
    "ServedLine",
    "SessionCloseReason",
    "SessionClosed",
    "SessionEnded",
    "TokenUsage",
    "UserErased",
]


Role = Literal["user", "assistant", "system", "tool"]


def _inside_the_store(value: str) -> str:
    """A storage reference names a file inside the cold store: a relative path of
    plain steps (no empty, ``.`` or ``..`` step, no backslash, no NUL), ``#``, an id."""
    path, _, memory = value.rpartition("#")
    steps = path.split("/")
    if not path or not memory or any(step in ("", ".", "..") for step in steps):
        raise ValueError("must be a path inside the cold store, '#' and a memory id")
    if "\\" in value or "\x00" in value:
        raise ValueError("must not hold a backslash or a NUL")
    return value


#: Where an archived original lives (see ``storage.cold_refs.StorageRef``): never a path
#: that could lead out of the cold store, whoever wrote the event.
StorageRefText = Annotated[
    str, StringConstraints(min_length=1, max_length=2000), AfterValidator(_inside_the_store)
]


def _new_event_id() -> str:
    return uuid.uuid4().hex


class _EventBase(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", str_strip_whitespace=False)


#: A message's content holds a character that is not blank: one not among Python's
#: whitespace (what ``str.strip`` removes, the rule before the schema stated it). Stated
#: in the JSON schema as it is checked, so a schema-valid message is never refused.
_SOME_TEXT_PATTERN = r"[^\t-\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]"
_SOME_TEXT = re.compile(_SOME_TEXT_PATTERN)


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
    content: str = Field(
        min_length=1, max_length=100_000, json_schema_extra={"pattern": _SOME_TEXT_PATTERN}
    )
    occurred_at: UtcDateTime
    tags: list[Tag] = Field(default_factory=list, max_length=32)
    metadata: dict[str, Any] = Field(default_factory=dict)

    @field_validator("content")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if _SOME_TEXT.search(value) is None:
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
    memory_id: MemoryId
    user_id: Identifier
    project_id: Identifier | None = None
    kind: str = Field(min_length=1, max_length=40)
    occurred_at: UtcDateTime | None = None
    model: str = Field(min_length=1, max_length=200)
    model_version: str = Field(min_length=1, max_length=100)
    dimension: int = Field(ge=1, le=8192)
    vector: str
    computed_at: UtcDateTime

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
    memory_ids: list[MemoryId] = Field(min_length=1, max_length=500)
    accessed_at: UtcDateTime


#: A served line's name hash: the first 16 hex digits of the SHA-256 of a name.
NameHash = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{16}$")]


class ServedLine(BaseModel):
    """One line of a served answer, as ids and shapes, never its text: enough to render
    the line again from the memory it quotes (:mod:`memstream.queries.served`).

    A memory's line quotes it whole (``readable`` says whether as a stored item's
    readable text), or the window ``cut`` of a long turn, after its speaker's name when
    ``speaker``. An entity profile's line names the entity as the names whose hashes
    ``names`` holds (the name first, then the aliases shown), with the counts and the
    facts (``facts``) it stated then."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    memory_id: Identifier
    section: Literal["facts", "entities", "temporal", "evidence", "results"]
    score: float | None = None
    kind: Annotated[str, StringConstraints(max_length=40)] | None = None
    archived: StrictBool = False
    readable: StrictBool = False
    cut: tuple[Annotated[int, Field(ge=0)], Annotated[int, Field(ge=0)]] | None = None
    speaker: StrictBool = False
    names: list[NameHash] = Field(default_factory=list, max_length=200)
    entity_type: Annotated[str, StringConstraints(max_length=40)] | None = None
    mentions: int | None = Field(default=None, ge=0)
    first_seen: UtcDateTime | None = None
    last_seen: UtcDateTime | None = None
    facts: list[MemoryId] = Field(default_factory=list, max_length=50)


class ContextServed(_EventBase):
    """A context block or a search answer memstream gave a caller: who asked (the door,
    the key, the agent and its session), the question, and what the answer held, as
    memory ids with their scores and the SHA-256 of the answer's text (``digest``),
    never the memories' text. ``as_of`` is the write token of what the user's partition
    had applied when the answer was read (or the moment an ``as_of`` read asked for):
    the answer is rendered again from ``lines`` over memory as it stood then."""

    type: Literal["context_served"] = "context_served"
    schema_version: Literal[1] = 1
    event_id: str = Field(default_factory=_new_event_id, min_length=1, max_length=200)
    user_id: Identifier
    served_at: UtcDateTime
    answer: Literal["context", "search"]
    door: Literal["api", "mcp", "cli", "console"]
    key_id: Identifier | None = None
    tenant: Identifier | None = None
    agent: Identifier | None = None
    session_id: Identifier | None = None
    project_id: Identifier | None = None
    question: str = Field(min_length=1, max_length=100_000)
    as_of: str | None = Field(default=None, max_length=20_000)
    #: an ``as_of`` read's moment as asked (a time or a token), None for a live read
    asked_as_of: str | None = Field(default=None, max_length=20_000)
    budget_tokens: int | None = Field(default=None, ge=1)
    lines: list[ServedLine] = Field(default_factory=list, max_length=1000)
    digest: Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{64}$")]


class SessionEnded(_EventBase):
    """A channel says a session is over: it closes at once, whatever the gap.

    Published on ``memory.messages`` (keyed by user, so it follows the session's turns).
    """

    type: Literal["session_ended"] = "session_ended"
    schema_version: Literal[1] = 1
    event_id: str = Field(default_factory=_new_event_id, min_length=1, max_length=200)
    user_id: Identifier
    project_id: Identifier | None = None
    session_id: Identifier
    occurred_at: UtcDateTime


#: Why a session closed: its user started another session, no message came for the gap
#: of event time, a channel ended it, or nothing arrived for the gap of processing time.
SessionCloseReason = Literal["new_session", "gap", "ended", "idle"]


class SessionClosed(_EventBase):
    """The lifecycle job closed a session: its turns up to ``through`` are final."""

    type: Literal["session_closed"] = "session_closed"
    schema_version: Literal[1] = 1
    event_id: str = Field(min_length=1, max_length=600)
    user_id: Identifier
    project_id: Identifier | None = None
    session_id: Identifier
    reason: SessionCloseReason
    first_at: UtcDateTime
    through: UtcDateTime
    closed_at: UtcDateTime


#: Kinds of memory derived from episodes (by consolidation, reflection or a command).
DERIVED_KINDS = ("fact", "preference", "procedure", "opinion", "reflection")
DerivedKind = Literal["fact", "preference", "procedure", "opinion", "reflection"]


class DerivedMemory(BaseModel):
    """A memory decided by a job or a command, with its provenance.

    ``subject``/``attribute``/``value`` say what it states ("caroline", "lives_in",
    "Porto"); when ``exclusive``, the subject holds one value of the attribute at a time,
    so a later fact with the same subject and attribute supersedes an earlier one.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    memory_id: MemoryId
    kind: DerivedKind
    content: str = Field(min_length=1, max_length=4000)
    subject: str | None = Field(default=None, max_length=200)
    attribute: str | None = Field(default=None, max_length=100)
    value: str | None = Field(default=None, max_length=1000)
    exclusive: bool = False
    confidence: float = Field(ge=0, le=1)
    importance: float = Field(ge=0, le=1)
    tags: list[Tag] = Field(default_factory=list, max_length=32)
    speaker: str | None = Field(default=None, max_length=200)
    session_id: Identifier | None = None
    source_event_ids: list[str] = Field(default_factory=list, max_length=1000)
    source_memory_ids: list[MemoryId] = Field(default_factory=list, max_length=1000)
    occurred_at: UtcDateTime


class TokenUsage(BaseModel):
    """What a language model call cost."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    input_tokens: int = Field(default=0, ge=0)
    output_tokens: int = Field(default=0, ge=0)
    calls: int = Field(default=0, ge=0)


#: How a later memory bears on the earlier one it refers back to: ``cause`` (it is why
#: the later one happens), ``goal`` (what the later one aims at), ``state`` (how things
#: stand since), ``value`` (what matters to the user), ``correction`` (the later one
#: says the earlier was wrong), or only ``refers_to``.
LINK_RELATIONS = ("refers_to", "cause", "goal", "state", "value", "correction")
LinkRelation = Literal["refers_to", "cause", "goal", "state", "value", "correction"]


class MemoryLink(BaseModel):
    """A later memory (``memory_id``, a turn of the consolidated session) refers back to
    an earlier one (``linked_id``) without having to share its words: "my calves ache
    since I signed up for the half-marathon" to "my physio told me to stop running".
    ``strength`` is how sure the deriver is (0..1)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    memory_id: MemoryId
    linked_id: MemoryId
    relation: LinkRelation = "refers_to"
    strength: float = Field(ge=0, le=1)


class FactsConsolidated(_EventBase):
    """Everything consolidation decided about one closed session (turns up to ``through``):
    the memories derived from it and the links from its turns back to earlier memories.

    Applied once per (session, through): a second event for the same closure (a job run
    twice) is ignored, so a model's second opinion never duplicates facts. An event
    written before links were derived has none (``links`` defaults to empty).
    """

    type: Literal["facts_consolidated"] = "facts_consolidated"
    schema_version: Literal[1] = 1
    event_id: str = Field(min_length=1, max_length=600)
    user_id: Identifier
    project_id: Identifier | None = None
    session_id: Identifier
    through: UtcDateTime
    extractor: str = Field(min_length=1, max_length=200)
    memories: list[DerivedMemory] = Field(default_factory=list, max_length=500)
    links: list[MemoryLink] = Field(default_factory=list, max_length=500)
    usage: TokenUsage | None = None
    decided_at: UtcDateTime


class ReflectionWritten(_EventBase):
    """A weekly reflection: what was learned about the user in ``[period_start, period_end)``."""

    type: Literal["reflection_written"] = "reflection_written"
    schema_version: Literal[1] = 1
    event_id: str = Field(min_length=1, max_length=600)
    user_id: Identifier
    period_start: UtcDateTime
    period_end: UtcDateTime
    writer: str = Field(min_length=1, max_length=200)
    memory: DerivedMemory
    usage: TokenUsage | None = None
    decided_at: UtcDateTime


class ConfidenceUpdate(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    memory_id: MemoryId
    confidence: float = Field(ge=0, le=1)


class ConfidenceDecayed(_EventBase):
    """The decay job's new confidences for a user's memories, as of ``as_of``."""

    type: Literal["confidence_decayed"] = "confidence_decayed"
    schema_version: Literal[1] = 1
    event_id: str = Field(min_length=1, max_length=600)
    user_id: Identifier
    as_of: UtcDateTime
    updates: list[ConfidenceUpdate] = Field(min_length=1, max_length=100_000)


class MemoryPruned(_EventBase):
    """Memories whose confidence fell under ``threshold``: soft-deleted, kept for history."""

    type: Literal["memory_pruned"] = "memory_pruned"
    schema_version: Literal[1] = 1
    event_id: str = Field(min_length=1, max_length=600)
    user_id: Identifier
    as_of: UtcDateTime
    threshold: float = Field(ge=0, le=1)
    memory_ids: list[MemoryId] = Field(min_length=1, max_length=100_000)


class _Command(_EventBase):
    event_id: str = Field(default_factory=_new_event_id, min_length=1, max_length=200)
    user_id: Identifier
    occurred_at: UtcDateTime


class RememberFields(BaseModel):
    """What a ``remember_fact`` says (shared with the API's request body)."""

    project_id: Identifier | None = None
    kind: Literal["fact", "preference", "procedure", "opinion"] = "fact"
    content: str = Field(min_length=1, max_length=4000)
    subject: str | None = Field(default=None, max_length=200)
    attribute: str | None = Field(default=None, max_length=100)
    value: str | None = Field(default=None, max_length=1000)
    exclusive: StrictBool = False
    importance: float = Field(default=0.7, ge=0, le=1, strict=True)
    tags: list[Tag] = Field(default_factory=list, max_length=32)
    speaker: str | None = Field(default=None, max_length=200)


class RememberFact(_Command, RememberFields):
    """ "Remember this": a memory stated by the user or an agent, taken as true."""

    type: Literal["remember_fact"] = "remember_fact"
    schema_version: Literal[1] = 1


class CorrectFact(_Command):
    """ "That is wrong": ``new_content`` replaces memory ``memory_id`` (which stays as history).

    The service that publishes it copies the old memory's kind, subject and attribute,
    so the correction is applied from this event alone.
    """

    type: Literal["correct_fact"] = "correct_fact"
    schema_version: Literal[1] = 1
    memory_id: MemoryId
    new_content: str = Field(min_length=1, max_length=4000)
    project_id: Identifier | None = None
    kind: Literal["fact", "preference", "procedure", "opinion", "reflection"] = "fact"
    subject: str | None = Field(default=None, max_length=200)
    attribute: str | None = Field(default=None, max_length=100)
    #: when the corrected statement holds from (the old memory's time: the correction
    #: takes its place in history); None means ``occurred_at``.
    valid_from: UtcDateTime | None = None


class ConfirmFact(_Command):
    """The user confirms memory ``memory_id``: full confidence, and it never decays."""

    type: Literal["confirm_fact"] = "confirm_fact"
    schema_version: Literal[1] = 1
    memory_id: MemoryId


class ForgetMemory(_Command):
    """Soft-delete memory ``memory_id``: never returned by search, kept for history."""

    type: Literal["forget"] = "forget"
    schema_version: Literal[1] = 1
    memory_id: MemoryId


class UserErased(_EventBase):
    """Everything of ``user_id`` is erased: every projection drops the user's rows, the
    cold store the user's originals, and the records sealed under ``key_ids`` (destroyed
    before this event was published) can no longer be opened by anyone, so no replay
    brings them back. Carries nothing of what the user said."""

    type: Literal["user_erased"] = "user_erased"
    schema_version: Literal[1] = 1
    event_id: str = Field(min_length=1, max_length=600)
    user_id: Identifier
    key_ids: list[Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{16}$")]] = Field(
        default_factory=list, max_length=1000
    )
    requested_at: UtcDateTime


class MemoryArchived(_EventBase):
    """A memory moved to cold storage: its original is in the Parquet file ``storage_ref``
    points at (checked by ``checksum``); the hot row gives way to an ``archive_index``
    row holding the summary."""

    type: Literal["memory_archived"] = "memory_archived"
    schema_version: Literal[1] = 1
    event_id: str = Field(min_length=1, max_length=600)
    user_id: Identifier
    memory_id: MemoryId
    project_id: Identifier | None = None
    kind: str = Field(min_length=1, max_length=40)
    session_id: Identifier | None = None
    speaker: str | None = Field(default=None, max_length=200)
    tags: list[str] = Field(default_factory=list, max_length=64)
    importance: float | None = Field(default=None, ge=0, le=1)
    confidence: float | None = Field(default=None, ge=0, le=1)
    occurred_at: UtcDateTime
    #: the memory's provenance, kept in the archive index so a found summary can be cited
    source_event_ids: list[str] = Field(default_factory=list, max_length=1000)
    entity_ids: list[str] = Field(default_factory=list, max_length=1000)
    summary: str = Field(min_length=1, max_length=4000)
    #: the memory's own vector when it had one, else the summary's
    summary_vector: list[float] | None = Field(default=None, max_length=4096)
    summary_model: str | None = Field(default=None, max_length=200)
    storage_ref: StorageRefText
    checksum: str = Field(pattern=r"^[0-9a-f]{64}$")
    reason: str = Field(min_length=1, max_length=500)
    hotness: float = Field(ge=0, le=1)
    archived_at: UtcDateTime


class MemoryRestored(_EventBase):
    """An archived memory brought back to the hot table from its original."""

    type: Literal["memory_restored"] = "memory_restored"
    schema_version: Literal[1] = 1
    event_id: str = Field(default_factory=_new_event_id, min_length=1, max_length=600)
    user_id: Identifier
    memory_id: MemoryId
    storage_ref: StorageRefText
    reason: str = Field(min_length=1, max_length=500)
    restored_at: UtcDateTime


class MemoryExpanded(_EventBase):
    """Someone read an archived memory's original."""

    type: Literal["memory_expanded"] = "memory_expanded"
    schema_version: Literal[1] = 1
    event_id: str = Field(default_factory=_new_event_id, min_length=1, max_length=600)
    user_id: Identifier
    memory_id: MemoryId
    expanded_at: UtcDateTime


#: Event types the lifecycle jobs publish (``memory.lifecycle``).
LIFECYCLE_TYPES = (
    "session_closed",
    "facts_consolidated",
    "reflection_written",
    "confidence_decayed",
    "memory_pruned",
    "memory_archived",
    "memory_restored",
    "memory_expanded",
)
#: Commands (``memory.commands``).
COMMAND_TYPES = ("remember_fact", "correct_fact", "confirm_fact", "forget")
#: The document types memstream reads (see ``models.document_parsing``).
MediaType = Literal[
    "text/plain",
    "text/markdown",
    "text/html",
    "application/pdf",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
]
#: A SHA-256 of a document's bytes, in hex: the name its original is stored under.
Checksum = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{64}$")]
#: Why a document could not be read (``failed``); ``empty`` is no failure.
DocumentErrorClass = Literal[
    "encrypted",
    "corrupt",
    "mismatched",
    "not_text",
    "too_many_pages",
    "too_large",
    "too_complex",
    "missing",
]
#: The most chunks one ``DocumentChunked`` event carries (a long document's chunks
#: come in several, so no record nears the log's size limit).
CHUNKS_PER_EVENT = 64


class DocumentSubmitted(_EventBase):
    """A document handed to memstream, version ``checksum`` of ``document_id``: its
    bytes are stored in the data location under the user and the checksum (the log
    never carries a document's body). Submitting the same bytes again for the same
    document changes nothing; new bytes are a new version, which supersedes the old
    one's chunks."""

    type: Literal["document_submitted"] = "document_submitted"
    schema_version: Literal[1] = 1
    event_id: str = Field(min_length=1, max_length=600)
    user_id: Identifier
    project_id: Identifier | None = None
    document_id: Identifier
    title: str = Field(min_length=1, max_length=500)
    #: False when no title was given (``title`` is then the file's name): the title the
    #: document gives itself, once read, takes its place
    title_given: bool = True
    media_type: MediaType
    size: int = Field(ge=0)
    checksum: Checksum
    tags: list[Tag] = Field(default_factory=list, max_length=32)
    occurred_at: UtcDateTime


class DocumentChunk(BaseModel):
    """One chunk of a document: its text, index, pages, heading path and span of
    characters in the document's text."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    index: int = Field(ge=0)
    text: str = Field(min_length=1, max_length=20_000)
    page: int = Field(ge=1)
    last_page: int = Field(ge=1)
    headings: list[Annotated[str, StringConstraints(max_length=300)]] = Field(
        default_factory=list, max_length=16
    )
    start: int = Field(ge=0)
    end: int = Field(ge=0)
    tokens: int = Field(ge=0)


class DocumentChunked(_EventBase):
    """Chunks ``first`` to ``first + len(chunks) - 1`` of ``total`` of a document's
    version ``checksum``, as the documents lane read them: a replay folds them without
    parsing again. ``total`` 0 (and no chunks): the document holds no text."""

    type: Literal["document_chunked"] = "document_chunked"
    schema_version: Literal[1] = 1
    event_id: str = Field(min_length=1, max_length=600)
    user_id: Identifier
    project_id: Identifier | None = None
    document_id: Identifier
    checksum: Checksum
    #: the ``DocumentSubmitted`` event read: the chunks' ids are made from it, so the
    #: chunks of a version submitted again (after another one) are new memories
    submission: str = Field(min_length=1, max_length=600)
    title: str = Field(min_length=1, max_length=500)
    pages: int = Field(ge=0)
    first: int = Field(ge=0)
    total: int = Field(ge=0)
    chunks: list[DocumentChunk] = Field(default_factory=list, max_length=CHUNKS_PER_EVENT)
    #: the facts the extractor derived from these chunks, each citing its chunk (in
    #: ``source_memory_ids``); the extractor's name, and why it found none if it failed
    extractor: str | None = Field(default=None, max_length=200)
    facts: list[DerivedMemory] = Field(default_factory=list, max_length=500)
    facts_error: str | None = Field(default=None, max_length=2000)
    usage: TokenUsage | None = None
    occurred_at: UtcDateTime


class DocumentFailed(_EventBase):
    """The documents lane could not read version ``checksum`` of a document: why, in a
    class and a message. ``final``: it will not be tried again (a parse error is
    final at once; a missing original after a bounded number of tries)."""

    type: Literal["document_failed"] = "document_failed"
    schema_version: Literal[1] = 1
    event_id: str = Field(min_length=1, max_length=600)
    user_id: Identifier
    document_id: Identifier
    checksum: Checksum
    error_class: DocumentErrorClass
    message: str = Field(min_length=1, max_length=2000)
    attempt: int = Field(ge=1)
    final: bool
    occurred_at: UtcDateTime


class DocumentRemoved(_EventBase):
    """Document ``document_id`` is removed: the chunks and facts of every version of it
    are soft-deleted (kept for history, never found again). Its original bytes stay
    until the user is erased; submitting it again starts it afresh."""

    type: Literal["document_removed"] = "document_removed"
    schema_version: Literal[1] = 1
    event_id: str = Field(min_length=1, max_length=600)
    user_id: Identifier
    document_id: Identifier
    occurred_at: UtcDateTime


#: The events of a document's processing (``memory.documents``).
DOCUMENT_TYPES = ("document_submitted", "document_chunked", "document_failed", "document_removed")

#: Event types channels may publish (the lifecycle, embedding and access events are
#: memstream's own).
CHANNEL_TYPES = frozenset({"message", "session_ended", *COMMAND_TYPES})
#: The erasure of a user (``memory.commands`` too, but only the erase operation
#: publishes it: it follows the destruction of the user's keys).
ERASURE_TYPES = ("user_erased",)

#: Every event type the log may carry. New types are added here and in the codec.
Event = (
    MessageEvent
    | SessionEnded
    | EmbeddingComputed
    | MemoryAccessed
    | ContextServed
    | SessionClosed
    | FactsConsolidated
    | ReflectionWritten
    | ConfidenceDecayed
    | MemoryPruned
    | RememberFact
    | CorrectFact
    | ConfirmFact
    | ForgetMemory
    | UserErased
    | MemoryArchived
    | MemoryRestored
    | MemoryExpanded
    | DocumentSubmitted
    | DocumentChunked
    | DocumentFailed
    | DocumentRemoved
)
