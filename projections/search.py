"""Full-text search over the memories a user may see.

Requests are validated pydantic models; the scope filter is built from their values
(:mod:`projections.scope`); the query text goes to the BM25 index as text, never into a
filter. Results carry provenance (the source event ids).
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from projections.events import Identifier
from projections.scope import scope_filter
from storage.lance_store import ProjectionStore

__all__ = ["SearchRequest", "SearchResult", "search"]

_RESULT_COLUMNS = (
    "memory_id",
    "kind",
    "content",
    "session_id",
    "occurred_at",
    "speaker",
    "source_event_ids",
)
#: Characters the full-text query parser treats as syntax; searched as plain words.
_QUERY_SYNTAX = re.compile(r"[^\w\s'@.-]+")


class SearchRequest(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    user_id: Identifier
    project_id: Identifier | None = None
    query: str = Field(min_length=1, max_length=2000)
    k: int = Field(default=10, ge=1, le=200)

    @field_validator("query")
    @classmethod
    def _has_words(cls, value: str) -> str:
        if not plain_words(value):
            raise ValueError("must contain at least one word")
        return value


class SearchResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    memory_id: str
    kind: str
    content: str
    score: float
    session_id: str | None
    occurred_at: datetime | None
    speaker: str | None
    source_event_ids: list[str]


def plain_words(query: str) -> str:
    """The query with parser syntax removed, so any user text searches as words."""
    return " ".join(_QUERY_SYNTAX.sub(" ", query).split())


def search(store: ProjectionStore, request: SearchRequest) -> list[SearchResult]:
    """The best ``k`` memories for ``request.query`` within the user's scope."""
    if store.count("memories") == 0:
        return []
    rows = store.full_text(
        plain_words(request.query),
        where=scope_filter(request.user_id, request.project_id),
        limit=request.k,
        columns=_RESULT_COLUMNS,
    )
    return [_result(row) for row in rows]


def _result(row: dict[str, Any]) -> SearchResult:
    return SearchResult(
        memory_id=row["memory_id"],
        kind=row["kind"],
        content=row["content"],
        score=float(row.get("_score", 0.0)),
        session_id=row["session_id"],
        occurred_at=row["occurred_at"],
        speaker=row["speaker"],
        source_event_ids=list(row["source_event_ids"] or []),
    )
