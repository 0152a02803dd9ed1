"""Filling a :class:`~memstream.queries.search.trace.SearchTrace` from what the searcher
computed: the retrievers' lists, then the ranking's outcome. Pure functions over the
searcher's intermediate values; the searcher calls them only when a trace is asked for."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from memstream.queries.search.candidates import Nearness
from memstream.queries.search.trace import SearchTrace

__all__ = ["traced_ranking", "traced_retrievers"]

_BRIEF = ("kind", "content", "occurred_at", "session_id", "speaker", "project_id")


def traced_retrievers(
    trace: SearchTrace,
    text_rows: list[dict[str, Any]],
    nearness: Nearness,
    entity_rows: list[dict[str, Any]],
) -> None:
    """Record what each retriever found, best first, with its own score."""
    trace.retrieved(
        "full_text",
        [(r["memory_id"], _number(r.get("_score")), bool(r.get("_archived"))) for r in text_rows],
    )
    archived_by_vector = {r["memory_id"] for r in nearness.archived_rows}
    trace.retrieved(
        "vector",
        [
            (m, nearness.similarity.get(m), m in archived_by_vector)
            for m in dict.fromkeys(nearness.memory_ids)
        ],
    )
    trace.retrieved(
        "entity",
        [
            (r["memory_id"], float(len(r.get("entity_ids") or ())), bool(r.get("_archived")))
            for r in dict((r["memory_id"], r) for r in entity_rows).values()
        ],
    )


def traced_ranking(
    trace: SearchTrace,
    fused: dict[str, float],
    rows: dict[str, dict[str, Any]],
    everything: list[tuple[float, str]],
    k: int,
    time_range: tuple[datetime, datetime] | None,
    speaker: str | None,
    terms_of: Callable[[str], dict[str, float]],
) -> None:
    """Record the ranking's outcome: ``everything`` is every visible candidate scored,
    best first, less restatements (the first ``k`` are returned); a candidate of
    ``fused`` scored but not in it restated a better one; one without a row was not
    visible to the request."""
    trace.time_range = time_range
    trace.speaker = speaker
    kept = {m for _, m in everything}
    for rank, (score, m) in enumerate(everything, start=1):
        c = trace.candidate(m)
        c.score = score
        c.outcome = "returned" if rank <= k else "below k"
        c.rank = rank if rank <= k else None
    for m in fused:
        c = trace.candidate(m)
        row = rows.get(m)
        if row is None:
            c.outcome = "not visible"
            continue
        c.row = {name: row.get(name) for name in _BRIEF}
        c.row["archived"] = bool(row.get("_archived"))
        c.adjustments = terms_of(m)
        confidence = row.get("confidence")
        c.confidence = None if confidence is None else float(confidence)
        if m not in kept:
            c.outcome = "restated"
            factor = 1.0 + sum(c.adjustments.values())
            c.score = fused[m] * factor * (1.0 if c.confidence is None else c.confidence)


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) else None
