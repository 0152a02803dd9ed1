"""What the searcher makes of the retrievers' lists (pure): the request's filters on each
table, hot and archived rows in one shape, the nearness of the vector lists (a long
turn's passages collapsed onto their memory, and the similarity a memory left out of
the lists is at most), the best rows ranked, and the results with their passage."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from memstream.policies.scope import scope_filter
from memstream.projections.archiving import storage_ref_of, summary_of
from memstream.projections.memory_state import effective_confidence
from memstream.queries.search.ranking import restated_facts, without_restatements
from memstream.queries.search.request import (
    DocumentSource,
    PassageSpan,
    SearchRequest,
    SearchResult,
)
from memstream.queries.search.speakers import named_speaker, without_speaker
from memstream.queries.search.user_view import RequestFilter, UserView
from memstream.storage import filters
from memstream.text.fact_words import UNNAMED_USER
from memstream.text.passages import passage_of, passages

__all__ = [
    "Nearness",
    "archived_row",
    "best_first",
    "best_rows",
    "by_memory",
    "embedded_query",
    "request_filters",
    "restated_rows",
    "result_of",
    "scored_as_hot",
    "unlisted_similarity",
    "wanted_of",
    "with_state",
]


def with_state(row: dict[str, Any], state: dict[str, Any] | None) -> dict[str, Any]:
    """``row`` with the confidence its state gives it, and the state (a row without a
    state as it is)."""
    if state is None:
        return row
    confidence = effective_confidence(row.get("confidence"), state)
    return {**row, "confidence": confidence, "_state": state}


#: How many candidates :func:`best_rows` reads and scores at a time (at least; 2k when more).
_RANKED_AT_ONCE = 32


def best_rows(
    fused: dict[str, float],
    rows: dict[str, dict[str, Any]],
    read: Callable[[list[str]], None],
    score_of: Callable[[str], float],
    bound: float,
    k: int,
) -> list[tuple[float, str]]:
    """The ``k`` best (adjusted score, memory id) of the ``fused`` candidates, less
    restatements, best first: exactly what scoring every candidate would give.

    Candidates are taken by fused score, best first, a few at a time; ``read`` brings
    their rows into ``rows`` (a candidate without a row is not one the request may
    see). Since no adjustment multiplies a fused score by more than ``bound``, once the
    ``k``-th result kept scores above ``bound`` times the next candidate's fused score,
    no candidate left can enter or change the first ``k`` (whether a memory restates
    another depends only on those above it), and the rest are never read."""
    order = sorted(fused)  # by id, then (a stable sort) by fused score, best first
    order.sort(key=fused.__getitem__, reverse=True)
    step = max(2 * k, _RANKED_AT_ONCE)
    scored: list[tuple[float, str]] = []
    kept: list[tuple[float, str]] = []
    for start in range(0, len(order), step):
        chosen = order[start : start + step]
        read(chosen)
        scored.extend((score_of(m), m) for m in chosen if m in rows)
        scored.sort(reverse=True)
        ranked = [(m, rows[m]["kind"], rows[m].get("source_event_ids") or ()) for _, m in scored]
        shown = set(without_restatements(ranked))
        kept = [(score, m) for score, m in scored if m in shown]
        following = start + step
        if (
            following < len(order)
            and len(kept) >= k
            and kept[k - 1][0] > bound * fused[order[following]]
        ):
            break
    return kept[:k]


def restated_rows(
    fused: dict[str, float],
    rows: dict[str, dict[str, Any]],
    score_of: Callable[[str], float],
    kept: list[tuple[float, str]],
    k: int,
) -> list[tuple[float, str]]:
    """The facts that the first ``k`` (``kept``, as :func:`best_rows` gave them) leave
    out as restating a turn shown above them: (adjusted score, memory id), best first.

    Only candidates scored at least as high as the ``k``-th kept one count, and every
    one of them was read: a candidate left unread could not have reached it."""
    last = kept[-1][0] if len(kept) >= k else -math.inf
    ranked = sorted(((score_of(m), m) for m in fused if m in rows), reverse=True)
    above = [(score, m) for score, m in ranked if score >= last]
    restated = set(
        restated_facts(
            [(m, rows[m]["kind"], rows[m].get("source_event_ids") or ()) for _, m in above]
        )
    )
    return [(score, m) for score, m in above if m in restated]


def embedded_query(query: str, speakers: frozenset[str] | None) -> str:
    """The text the query vector is made of: the query without the name of the one
    speaker among ``speakers`` (the user's hot memories') it names
    (:mod:`memstream.queries.search.speakers`); the query itself when the speakers are not known.
    The unnamed user's statements say "the user" ("The user joined a climbing gym."), so
    a query that names them keeps it: "What sport did take up?" is near nothing."""
    speaker = named_speaker(query, speakers) if speakers else None
    return without_speaker(query, speaker) if speaker and speaker != UNNAMED_USER else query


def scored_as_hot(
    archived: list[dict[str, Any]], query: str, view: UserView
) -> list[dict[str, Any]]:
    """The archive's full-text hits with the BM25 score their summaries have by the
    word statistics of the user's hot memories, the statistics the hot hits were scored
    by: scores of two indexes (the archive's weighs words among everyone's summaries)
    are not on one scale, and the hot and archived hits are ranked in one list. Left as
    they are for a user with no hot memory."""
    if not view.terms.live:
        return archived
    scores = view.terms.score(query, [r["search_text"] for r in archived])
    return [{**r, "_score": score} for r, score in zip(archived, scores, strict=True)]


def best_first(rows: list[dict[str, Any]], depth: int) -> list[dict[str, Any]]:
    """Full-text rows of the hot tables and of the archive as one list, by BM25 score."""
    return sorted(rows, key=lambda r: -r["_score"])[:depth]


def archived_row(row: dict[str, Any]) -> dict[str, Any]:
    """An archive index row in the shape of a hot search row: its summary as content."""
    out = {**row, "content": summary_of(row), "storage_ref": storage_ref_of(row)}
    out["_archived"] = True
    out["kind"] = out["kind"] or "episode"
    return out


def wanted_of(request: SearchRequest) -> RequestFilter:
    """The request's filters besides its user, for the read model's masks."""
    return RequestFilter(
        project_id=request.project_id,
        kinds=tuple(request.kinds) if request.kinds else None,
        tags=tuple(request.tags) if request.tags else None,
        after=request.after,
        before=request.before,
    )


def request_filters(request: SearchRequest, table: str) -> str:
    """The scope, kind, tag and time filters of a request for ``memories``, ``vectors``
    or ``archive`` (the archive index)."""
    # vectors and the archive have the scope columns, not the lifecycle ones
    scope = scope_filter(request.user_id, request.project_id, include_deleted=table != "memories")
    parts = [scope]
    if request.kinds:
        parts.append(filters.is_in("kind", request.kinds))
    if request.tags and table != "vectors":
        parts.append(filters.has_any("tags", request.tags))
    if request.after:
        parts.append(filters.at_least("occurred_at", request.after))
    if request.before:
        parts.append(filters.before("occurred_at", request.before))
    return filters.all_of(*parts)


@dataclass(frozen=True)
class Nearness:
    """What the vector retriever found: the memories nearest the query (``memory_ids``,
    nearest first), the search rows of the archived ones among them, the passage a long
    turn was found by, each listed memory's cosine similarity to the query, and the
    most a memory it did not list can be similar (None: such a memory may have no
    vector to judge it by); ``every_hot`` and ``every_cold``: whether it listed every
    vector of the hot memories (of the archived ones) the request may see, so that one
    it did not list has no vector yet."""

    memory_ids: list[str]
    archived_rows: list[dict[str, Any]]
    passages: dict[str, int]
    similarity: dict[str, float]
    unlisted: float | None
    every_hot: bool = False
    every_cold: bool = False

    def unembedded(self, memory_id: str, archived: bool) -> bool:
        """Whether the memory surely has no vector yet (not listed by a search that
        listed every vector there is)."""
        complete = self.every_cold if archived else self.every_hot
        return complete and memory_id not in self.similarity

    def reaches(self, memory_id: str, floor: float) -> bool:
        """Whether the memory is (or may be) at least ``floor`` similar to the query."""
        similarity = self.similarity.get(memory_id)
        if similarity is None:
            return self.unlisted is None or self.unlisted >= floor
        return similarity >= floor


def unlisted_similarity(lists: list[tuple[list[tuple[str, float]], int]]) -> float | None:
    """The most a memory that none of ``lists`` (each (id, distance) pairs, and how many
    it was asked for) holds can be similar to the query: it is no nearer than the
    farthest one of a full list. None when a list is not full: what it left out has no
    vector to judge it by."""
    if any(len(found) < asked for found, asked in lists):
        return None
    return 1.0 - min(max(d for _, d in found) for found, _ in lists)


def by_memory(nearest: list[tuple[str, float]]) -> tuple[list[tuple[str, float]], dict[str, int]]:
    """(memory id, distance) from (vector row id, distance), nearest first: a long turn
    once, as near as its nearest row; and which passage that row is, when it is one."""
    best: dict[str, float] = {}
    matched: dict[str, int] = {}
    for vector_id, distance in sorted(nearest, key=lambda pair: pair[1]):
        memory_id, index = passage_of(vector_id)
        if memory_id in best:
            continue
        best[memory_id] = distance
        if index is not None:
            matched[memory_id] = index
    return list(best.items()), matched


def _passage(row: dict[str, Any], index: int | None) -> PassageSpan | None:
    """Where passage ``index`` is in the row's content (None: no passage, or an
    archived row whose content is a summary)."""
    if index is None or row.get("_archived"):
        return None
    found = passages(row["content"])
    if index >= len(found):
        return None
    return PassageSpan(index=index, start=found[index].start, end=found[index].end)


def result_of(
    row: dict[str, Any],
    score: float,
    names: dict[str, str],
    document: DocumentSource | None = None,
    passage: int | None = None,
    similarity: float | None = None,
    found_through: str | None = None,
) -> SearchResult:
    state = row.get("_state")
    return SearchResult(
        memory_id=row["memory_id"],
        kind=row["kind"],
        content=row["content"],
        score=round(score, 6),
        session_id=row["session_id"],
        occurred_at=row["occurred_at"],
        recorded_at=row.get("ingested_at"),
        speaker=row["speaker"],
        role=None if row.get("_archived") else row.get("role"),
        source_event_ids=list(row["source_event_ids"] or []),
        entities=[names[e] for e in (row.get("entity_ids") or ()) if e in names],
        confidence=None if row.get("confidence") is None else round(float(row["confidence"]), 6),
        superseded_by=state["superseded_by"] if state else None,
        forgotten=bool(state and state["forgotten_at"] is not None),
        archived=bool(row.get("_archived")),
        storage_ref=row.get("storage_ref"),
        document=document,
        passage=_passage(row, passage),
        similarity=similarity,
        found_through=found_through,
    )
