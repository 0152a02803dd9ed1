"""Gathering what a context block may hold, best first per section (the assembly itself
is :func:`projections.context.assemble`).

- facts: the facts, preferences, procedures, opinions and reflections a hybrid search
  for the query returns (archived ones as their summaries);
- entity profiles: the entities the top results name, each with its aliases, mention
  count, first and last seen, and the few facts linked to it;
- temporal context: the episodes inside the time the query names, or else the turns of
  the most relevant session, then the other turns the search found, best first;
- evidence: the turns the facts came from.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from projections.context import ContextLine, SectionName
from projections.episodes import memory_id_for
from projections.memory_state import is_hidden, state_id
from projections.timephrases import query_range
from queries.profiles import entity_profile
from queries.search import Searcher, SearchRequest, SearchResult
from storage import filters
from storage.lance_tables import MEMORIES, MEMORY_STATE

__all__ = ["FACT_KINDS", "context_candidates"]

FACT_KINDS = frozenset({"fact", "preference", "procedure", "opinion", "reflection"})
#: How many results are asked for, entities profiled, and turns shown around a time.
_DEPTH = 50
_ENTITIES = 5
_TEMPORAL = 20


def context_candidates(
    searcher: Searcher, request: SearchRequest, now: datetime
) -> dict[SectionName, list[ContextLine]]:
    """Each section's candidate lines for ``request`` (its user, project and query; the
    search looks ``_DEPTH`` deep), best first; empty when the search finds nothing."""
    request = request.model_copy(update={"k": _DEPTH, "now": now})
    user_id = request.user_id
    results = searcher.search(request).results
    if not results:
        return {}
    facts = [r for r in results if r.kind in FACT_KINDS]
    return {
        "facts": [_line(r) for r in facts],
        "entities": _entity_lines(searcher, user_id, results),
        "temporal": _temporal_lines(searcher, request, results, now),
        "evidence": _evidence_lines(searcher, user_id, facts),
    }


def _line(result: SearchResult) -> ContextLine:
    return ContextLine(
        result.memory_id,
        result.content,
        result.occurred_at,
        result.kind,
        result.archived,
        tuple(result.source_event_ids),
    )


def _entity_lines(
    searcher: Searcher, user_id: str, results: Sequence[SearchResult]
) -> list[ContextLine]:
    names: list[str] = []
    for result in results:
        for name in result.entities:
            if name not in names:
                names.append(name)
    lines = []
    for name in names[:_ENTITIES]:
        profile = entity_profile(searcher.store, user_id, name)
        if profile is not None:
            lines.append(_profile_line(profile, _current_facts(searcher, user_id, profile)))
    return lines


def _current_facts(searcher: Searcher, user_id: str, profile: dict[str, Any]) -> list[str]:
    """What the entity's linked facts say now (superseded, forgotten, pruned left out)."""
    facts = [m for m in profile["memories"] if m["kind"] != "episode"]
    ids = [state_id(user_id, m["memory_id"]) for m in facts]
    states = {
        r["memory_id"]: r
        for r in searcher.store.by_ids(MEMORY_STATE, ids)
        if r["user_id"] == user_id
    }
    return [m["content"] for m in facts if not is_hidden(states.get(m["memory_id"]))][:3]


def _profile_line(profile: dict[str, Any], known: list[str]) -> ContextLine:
    aliases = [a for a in profile["aliases"] if a.lower() != profile["name"].lower()]
    mentions = profile["mention_count"]
    parts = [f"{profile['name']} ({profile['type']}"]
    parts.append(f"; also {', '.join(aliases)})" if aliases else ")")
    parts.append(
        f": {mentions} mention{'s' if mentions != 1 else ''}, "
        f"first {profile['first_seen']:%Y-%m-%d}, last {profile['last_seen']:%Y-%m-%d}"
    )
    if known:
        parts.append(". " + " ".join(known))
    return ContextLine(profile["entity_id"], "".join(parts), profile["last_seen"], "entity")


def _temporal_lines(
    searcher: Searcher, request: SearchRequest, results: Sequence[SearchResult], now: datetime
) -> list[ContextLine]:
    """The turns inside the time the query names, else those of the most relevant
    session; then the other turns the search found, best first."""
    episodes = [r for r in results if r.kind == "episode"]
    span = query_range(request.query, now)
    if span is not None:
        within = request.model_copy(
            update={"after": span[0], "before": span[1], "kinds": ["episode"], "k": _TEMPORAL}
        )
        first = searcher.search(within).results
    else:
        session = next((r.session_id for r in episodes if r.session_id), None)
        first = [r for r in episodes if session and r.session_id == session][:_TEMPORAL]
    chosen = {r.memory_id for r in first}
    rest = [r for r in episodes if r.memory_id not in chosen]
    return [_line(r) for r in (*first, *rest)]


def _evidence_lines(
    searcher: Searcher, user_id: str, facts: Sequence[SearchResult]
) -> list[ContextLine]:
    wanted: list[str] = []
    for fact in facts:
        for event_id in fact.source_event_ids:
            memory_id = memory_id_for(user_id, event_id)
            if memory_id not in wanted:
                wanted.append(memory_id)
    if not wanted:
        return []
    rows = searcher.store.by_ids(
        MEMORIES,
        wanted,
        ["memory_id", "content", "speaker", "occurred_at", "kind", "source_event_ids"],
        where=filters.equals("user_id", user_id),
    )
    by_id = {r["memory_id"]: r for r in rows}
    lines = []
    for memory_id in wanted:
        row = by_id.get(memory_id)
        if row is not None:
            said = f"{row['speaker']}: {row['content']}" if row["speaker"] else row["content"]
            sources = tuple(row["source_event_ids"] or ())
            lines.append(
                ContextLine(memory_id, said, row["occurred_at"], row["kind"], False, sources)
            )
    return lines
