"""What a search is asked and what it answers: the request, validated before anything
reads the store, and the ranked results.

Kept apart from the searcher (:mod:`memstream.queries.search.searcher`) so that a client
of the HTTP API, the
``memstream search`` command talking to a running server, validates and renders a
search without loading the store or the model.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Annotated, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictBool,
    StrictFloat,
    field_validator,
)

from memstream.events.errors import InvalidQuery
from memstream.events.identifier_rules import without_controls
from memstream.events.identifiers import Identifier, Tag, UtcDateTime
from memstream.events.vocabulary import Role
from memstream.policies.choices import MEMORY_KINDS
from memstream.queries.as_of import AsOf, parse_as_of
from memstream.queries.freshness import Freshness
from memstream.storage.write_tokens import MAX_TOKEN_CHARS, TOKEN_PATTERN

__all__ = [
    "MAX_QUERY_CHARS",
    "MEMORY_KINDS",
    "DocumentSource",
    "Intent",
    "PassageSpan",
    "SearchRequest",
    "SearchResponse",
    "SearchResult",
    "plain_words",
]

#: What a query asks for (see :mod:`.intent`).
Intent = Literal["why", "when", "who", "what", "general"]

#: Characters the full-text query parser treats as syntax; searched as plain words.
_QUERY_SYNTAX = re.compile(r"[^\w\s'@.-]+")


_KIND_PATTERN = "^(" + "|".join(MEMORY_KINDS) + ")$"


def _whole_number(value: object) -> object:
    """A JSON number without a fraction (``5`` or ``5.0``), never text or a boolean."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError("must be a whole number")
    if isinstance(value, float) and not value.is_integer():
        raise ValueError("must be a whole number")
    return int(value)


#: The longest query search and context take (a longer one is refused, 422).
MAX_QUERY_CHARS = 2000


class SearchRequest(BaseModel):
    """What a caller asks: validated before anything reads the store."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    user_id: Identifier
    project_id: Identifier | None = None
    #: any text with at least one word (letters or digits) in it
    query: str = Field(min_length=1, max_length=MAX_QUERY_CHARS, pattern=r"[\w'@.-]")
    k: Annotated[int, BeforeValidator(_whole_number)] = Field(default=10, ge=1, le=200)
    now: UtcDateTime | None = None
    after: UtcDateTime | None = None
    before: UtcDateTime | None = None
    kinds: list[Annotated[str, Field(pattern=_KIND_PATTERN)]] | None = Field(
        default=None, max_length=len(MEMORY_KINDS)
    )
    tags: list[Tag] | None = Field(default=None, max_length=32)
    #: also return superseded, forgotten and pruned memories (the history)
    include_history: StrictBool = False
    #: search the archived memories too, ranked with the hot ones (false: hot only)
    include_archived: StrictBool = True
    #: leave out what is further in meaning from the query than this cosine similarity
    #: (of the query and the memory's vector, or a long turn's nearest passage): when
    #: nothing reaches it, the answer is "nothing relevant", not the k least unrelated.
    #: A memory not embedded yet is kept; a deployment without an embedder keeps all.
    min_similarity: StrictFloat | None = Field(default=None, ge=-1.0, le=1.0)
    #: a write token (the ``token`` a write answered): the search answers once the
    #: projections hold that write (503 with ``Retry-After`` after a bounded wait)
    after_write: str | None = Field(default=None, max_length=MAX_TOKEN_CHARS, pattern=TOKEN_PATTERN)
    #: with ``after_write``: "applied" (the write's memories are there) or "vectors"
    #: (and every memory of the user has its vector)
    wait: Literal["applied", "vectors"] = "applied"
    #: memory as it stood at a past moment: an ISO 8601 time (what was recorded by
    #: then) or a write token (once that write was applied); see
    #: :mod:`memstream.queries.as_of`. Ranked as of then unless ``now`` says otherwise.
    as_of: str | None = Field(default=None, max_length=MAX_TOKEN_CHARS)

    @field_validator("as_of")
    @classmethod
    def _a_moment(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                parse_as_of(value)
            except InvalidQuery as exc:
                raise ValueError(str(exc).removeprefix("as_of: ")) from None
        return value

    @field_validator("query")
    @classmethod
    def _has_words(cls, value: str) -> str:
        value = without_controls(value)  # a pasted NUL or tab is no part of a question
        if not plain_words(value):
            raise ValueError("must contain at least one word")
        return value

    @field_validator("kinds")
    @classmethod
    def _known_kinds(cls, value: list[str] | None) -> list[str] | None:
        if value is None:
            return None
        unknown = sorted(set(value) - set(MEMORY_KINDS))
        if unknown:
            raise ValueError(f"unknown kind {unknown[0]!r} (known: {', '.join(MEMORY_KINDS)})")
        return value


class DocumentSource(BaseModel):
    """Where a chunk of a document comes from: what an agent cites (``citation``, as
    ``Lease, p. 3, §Renewal``)."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    document_id: str
    title: str
    page: int
    last_page: int
    headings: list[str]
    chunk: int
    citation: str


class PassageSpan(BaseModel):
    """Where in a long turn the passage that matched the query is: passage ``index``,
    characters ``start`` to ``end`` of ``content``."""

    model_config = ConfigDict(frozen=True)

    index: int
    start: int
    end: int


class SearchResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    memory_id: str
    kind: str
    content: str
    score: float
    session_id: str | None
    #: when it happened, as the event said (a message's time, a fact's)
    occurred_at: datetime | None
    #: when memstream recorded it: the time the log received the event (None for an
    #: archived memory, whose original holds it)
    recorded_at: datetime | None = None
    speaker: str | None
    #: who said a turn, as its channel published it: ``user`` or ``assistant`` (also
    #: ``system``, ``tool``); None for a derived memory, a document's chunk, an archived
    #: turn. An assistant's words are the assistant's, not what the user told it
    role: Role | None = None
    source_event_ids: list[str]
    entities: list[str]
    confidence: float | None = None
    superseded_by: str | None = None
    forgotten: bool = False
    #: an archived memory: ``content`` is its summary, the original is at ``storage_ref``
    #: (``memstream expand``); its provenance is kept as it was
    archived: bool = False
    storage_ref: str | None = None
    #: a chunk of a document: the document, its pages and section, and how to cite it
    document: DocumentSource | None = None
    #: a long turn found by one of its passages: which one, and where it is
    passage: PassageSpan | None = None
    #: the cosine similarity of the query and the memory (its nearest passage, for a
    #: long turn); None when the memory was not among the nearest vectors
    similarity: float | None = None
    #: the memory the search found this one through: the assistant's reply to a user's
    #: statement (the reply restates it in the question's words), or a later memory that
    #: refers back to this one (a link consolidation derived)
    found_through: str | None = None


class SearchResponse(BaseModel):
    results: list[SearchResult]
    intent: Intent
    took_ms: float
    #: where the time went, in ms, by stage (see :meth:`Searcher.search`); not part of
    #: the answer's body (the API sends it as a ``Server-Timing`` header)
    timings: dict[str, float] = Field(default_factory=dict, exclude=True)
    #: how fresh the answer is: the log position it reflects, the user's writes not
    #: applied yet, the user's memories without their vector yet
    freshness: Freshness | None = None
    #: with ``as_of``: the moment the answer reflects (its time and log position)
    as_of: AsOf | None = None
    #: when asked (``Searcher.search(..., restated=True)``): the facts left out of
    #: ``results`` as saying again what a turn above says, best first; not part of the
    #: answer's body (a context block states those that resolve a date: the dated fact)
    restated: list[SearchResult] = Field(default_factory=list, exclude=True)


def plain_words(query: str) -> str:
    """The query with parser syntax removed, so any user text searches as words."""
    return " ".join(_QUERY_SYNTAX.sub(" ", query).split())
