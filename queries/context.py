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
from projections.entities import entity_id, normalize_name
from projections.episodes import memory_id_for
from projections.memory_state import is_hidden, state_id
from projections.timephrases import query_range
from queries.search import Searcher, SearchRequest, SearchResult
from storage import filters
from storage.lance_tables import ENTITIES, MEMORIES, MEMORY_STATE

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
        "entities": _entity_lines(searcher, user_id, results, {r.memory_id for r in facts}),
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
    searcher: Searcher, user_id: str, results: Sequence[SearchResult], said: set[str]
) -> list[ContextLine]:
    """Profiles of the first entities the results name, in three reads whatever their
    number: the entities, the facts linked to any of them, and those facts' states. A
    profile leaves out the facts ``said`` in the facts section."""
    names: list[str] = []
    for result in results:
        for name in result.entities:
            if name not in names:
                names.append(name)
    keys = [k for k in dict.fromkeys(normalize_name(n) for n in names[:_ENTITIES]) if k]
    if not keys:
        return []
    store = searcher.store
    user = filters.equals("user_id", user_id)
    where = filters.all_of(user, filters.has_any("aliases", keys))
    rows = store.scan(ENTITIES, where=where).to_pylist()
    entities: list[dict[str, Any]] = []
    for key in keys:  # as entity_profile resolves a name: the most mentioned owner of it
        owners = [r for r in rows if key in (r["aliases"] or ())]
        best = max(owners, key=lambda r: r["mention_count"], default=None)
        if best is not None and all(e["entity_id"] != best["entity_id"] for e in entities):
            entities.append(best)
    ids = {
        e["entity_id"]: {entity_id(user_id, e["type"], a) for a in e["aliases"] or ()}
        for e in entities
    }
    linked = [i for entity_ids in ids.values() for i in entity_ids]
    facts = [f for f in _current_facts(searcher, user_id, linked) if f["memory_id"] not in said]
    return [
        _profile_line(e, [f for f in facts if ids[e["entity_id"]] & f["links"]][:3])
        for e in entities
    ]


def _current_facts(searcher: Searcher, user_id: str, entity_ids: list[str]) -> list[dict[str, Any]]:
    """The facts linked to any of ``entity_ids`` that still hold (superseded, forgotten
    and pruned ones left out), newest first, each with the set of entities it links."""
    user = filters.equals("user_id", user_id)
    linked = searcher.store.with_entities(
        entity_ids,
        filters.all_of(user, filters.is_null("valid_until"), filters.is_in("kind", FACT_KINDS)),
        limit=1_000_000,
        columns=["memory_id", "content", "entity_ids", "source_event_ids", "occurred_at"],
    )
    states = {
        r["memory_id"]: r
        for r in searcher.store.by_ids(
            MEMORY_STATE, [state_id(user_id, m["memory_id"]) for m in linked]
        )
        if r["user_id"] == user_id
    }
    return [
        {
            "memory_id": m["memory_id"],
            "content": m["content"],
            "links": set(m["entity_ids"] or ()),
            "sources": tuple(m["source_event_ids"] or ()),
        }
        for m in linked
        if not is_hidden(states.get(m["memory_id"]))
    ]


def _profile_line(profile: dict[str, Any], known: list[dict[str, Any]]) -> ContextLine:
    """``profile``, an ``entities`` row, as one line with the facts ``known`` of it; the
    line rests on the turns those facts came from."""
    name = profile["canonical_name"]
    aliases = [a for a in profile["aliases"] or () if a.lower() != name.lower()]
    mentions = profile["mention_count"]
    parts = [f"{name} ({profile['type']}"]
    parts.append(f"; also {', '.join(aliases)})" if aliases else ")")
    parts.append(
        f": {mentions} mention{'s' if mentions != 1 else ''}, "
        f"first {profile['first_seen']:%Y-%m-%d}, last {profile['last_seen']:%Y-%m-%d}"
    )
    if known:
        parts.append(". " + " ".join(f["content"] for f in known))
    sources = tuple(dict.fromkeys(s for f in known for s in f["sources"]))
    return ContextLine(
        profile["entity_id"], "".join(parts), profile["last_seen"], "entity", False, sources
    )


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
