"""Reading one memory, its history, and an entity's profile, within a user's scope.

``memory_document`` returns a memory as the API shows it (with its entities' names, its
access count and what happened to it since: superseded, forgotten or pruned, confirmed,
decayed); ``memory_history`` returns the chain of memories that replaced one another,
oldest first; ``entity_profile`` resolves a name through normalized keys and aliases
and returns the entity with its linked memories and a monthly timeline.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from memstream.policies.scope import owner_view_filter
from memstream.projections.access import access_id
from memstream.projections.archiving import ARCHIVED, archive_id, storage_ref_of, summary_of
from memstream.projections.entities import entity_id
from memstream.projections.memory_state import effective_confidence, state_id
from memstream.storage import filters
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.lance.tables import ACCESS, ARCHIVE_INDEX, ENTITIES, MEMORIES, MEMORY_STATE
from memstream.storage.schemas import NOT_STATE_COLUMNS
from memstream.text.mentions import entity_group, normalize_name

__all__ = [
    "entity_profile",
    "hot_memory_document",
    "linked_ids",
    "memory_document",
    "memory_history",
    "resolve_entities",
]

_HIDDEN = {*NOT_STATE_COLUMNS, "search_text"}
#: What an archive index row holds for search and for the cold store's reader only.
_COLD_INTERNAL = {"vector", "vector_scale", "vector_model", "storage_file", "storage_version",
                  "archive_id"}  # fmt: skip
_LINKED_SHOWN = 20


def memory_document(store: ProjectionStore, user_id: str, memory_id: str) -> dict[str, Any] | None:
    """The memory ``memory_id`` if ``user_id`` owns it (an archived one as its archive
    index row: its summary as content, where its original is), else None."""
    found = hot_memory_document(store, user_id, memory_id)
    return found if found is not None else _archived_document(store, user_id, memory_id)


def hot_memory_document(
    store: ProjectionStore, user_id: str, memory_id: str
) -> dict[str, Any] | None:
    """The memory ``memory_id`` if ``user_id`` owns it and it is hot, else None."""
    rows = store.by_ids(MEMORIES, [memory_id], where=filters.equals("user_id", user_id))
    if not rows:
        return None
    row = {k: v for k, v in rows[0].items() if k not in _HIDDEN}
    ids = list(row.get("entity_ids") or ())
    names = {
        r["entity_id"]: r["canonical_name"]
        for r in store.by_ids(ENTITIES, ids, ["entity_id", "canonical_name"])
    }
    row["entities"] = [names[e] for e in ids if e in names]
    access = store.by_ids(
        ACCESS, [access_id(user_id, memory_id)], ["access_count", "last_accessed"]
    )
    row["access_count"] = int(access[0]["access_count"]) if access else 0
    row["last_accessed"] = access[0]["last_accessed"] if access else None
    states = store.by_ids(MEMORY_STATE, [state_id(user_id, memory_id)])
    state = states[0] if states else None
    row["written_confidence"] = row["confidence"]
    row["confidence"] = effective_confidence(row["confidence"], state)
    for column in ("valid_until", "superseded_by", "forgotten_at", "forgotten_reason"):
        row[column] = state[column] if state else row.get(column)
    row["protected"] = bool(state and state["protected_at"] is not None)
    row["supersedes"] = [r["memory_id"] for r in _superseded_by(store, user_id, memory_id)]
    return row


def _archived_document(
    store: ProjectionStore, user_id: str, memory_id: str
) -> dict[str, Any] | None:
    rows = store.by_ids(
        ARCHIVE_INDEX,
        [archive_id(user_id, memory_id)],
        where=filters.all_of(filters.equals("user_id", user_id), ARCHIVED),
    )
    if not rows:
        return None
    row = rows[0]
    document = {k: v for k, v in row.items() if k not in _HIDDEN and k not in _COLD_INTERNAL}
    return {**document, "content": summary_of(row), "storage_ref": storage_ref_of(row),
            "archived": True}  # fmt: skip


def memory_history(
    store: ProjectionStore, user_id: str, memory_id: str
) -> list[dict[str, Any]] | None:
    """The chain of memories that replaced one another through ``memory_id``: every
    memory it superseded (and those before), itself, and its successors, oldest first.
    None when the user has no such memory hot (an archived one's chain is in its
    original)."""
    current = hot_memory_document(store, user_id, memory_id)
    if current is None:
        return None
    chain = [current]
    seen = {memory_id}
    back = current
    while back["supersedes"]:
        previous = next((m for m in back["supersedes"] if m not in seen), None)
        if previous is None:
            break
        document = hot_memory_document(store, user_id, previous)
        if document is None:
            break
        seen.add(previous)
        chain.insert(0, document)
        back = document
    forward = current
    while forward["superseded_by"] and forward["superseded_by"] not in seen:
        document = hot_memory_document(store, user_id, forward["superseded_by"])
        if document is None:
            break
        seen.add(document["memory_id"])
        chain.append(document)
        forward = document
    _when_superseded(store, chain)
    return chain


def _when_superseded(store: ProjectionStore, chain: list[dict[str, Any]]) -> None:
    """Give each memory of ``chain`` that a later one replaced ``superseded_at``: when
    the replacement was recorded (a correction: when it was made). ``valid_until`` says
    until when the memory held, which for a correction is the corrected memory's own
    time (it was never true)."""
    successors = {m["superseded_by"] for m in chain if m.get("superseded_by")}
    recorded = {
        r["memory_id"]: r["ingested_at"]
        for r in store.by_ids(MEMORIES, sorted(successors), ["memory_id", "ingested_at"])
    }
    for memory in chain:
        memory["superseded_at"] = recorded.get(memory.get("superseded_by") or "")


def _superseded_by(store: ProjectionStore, user_id: str, memory_id: str) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = store.scan(
        MEMORY_STATE,
        ["memory_id", "valid_until"],
        filters.all_of(
            filters.equals("user_id", user_id), filters.equals("superseded_by", memory_id)
        ),
    ).to_pylist()
    rows.sort(key=lambda r: (r["valid_until"], r["memory_id"]), reverse=True)
    return rows


def resolve_entities(
    store: ProjectionStore, user_id: str, names: Sequence[str]
) -> list[dict[str, Any]]:
    """The ``entities`` rows ``names`` resolve to, in one read, in the order of the names
    (each once): a name, normalized, is an alias of its entity; when several entities
    share it, the most mentioned one is meant. Names that resolve to nothing are left out."""
    keys = [k for k in dict.fromkeys(normalize_name(n) for n in names) if k]
    if not keys:
        return []
    rows = store.scan(
        ENTITIES,
        where=filters.all_of(filters.equals("user_id", user_id), filters.has_any("aliases", keys)),
    ).to_pylist()
    resolved: dict[str, dict[str, Any]] = {}
    for key in keys:
        best = max(
            (r for r in rows if key in (r["aliases"] or ())),
            key=lambda r: r["mention_count"],
            default=None,
        )
        if best is not None:
            resolved.setdefault(best["entity_id"], best)
    return list(resolved.values())


def linked_ids(user_id: str, entity: dict[str, Any]) -> set[str]:
    """The entity ids a memory linked to ``entity`` (an ``entities`` row) may carry: one
    per alias, in the group of its type (a place's ids are its named group's)."""
    group = entity_group(entity["type"])
    return {entity_id(user_id, group, alias) for alias in entity["aliases"] or ()}


def entity_profile(
    store: ProjectionStore, user_id: str, name: str, project_id: str | None = None
) -> dict[str, Any] | None:
    """The entity ``name`` (or an alias of it) of ``user_id``, with its memories in the
    owner's view of ``project_id`` (:func:`~memstream.policies.scope.owner_view_filter`)."""
    found = resolve_entities(store, user_id, [name])
    if not found:
        return None
    (entity,) = found
    linked, count, timeline = _linked(
        store,
        sorted(linked_ids(user_id, entity)),
        filters.all_of(owner_view_filter(user_id, project_id), filters.is_null("valid_until")),
    )
    return {
        "entity_id": entity["entity_id"],
        "name": entity["canonical_name"],
        "type": entity["type"],
        "aliases": list(entity["aliases"] or ()),
        "mention_count": int(entity["mention_count"]),
        "first_seen": entity["first_seen"],
        "last_seen": entity["last_seen"],
        "memories": linked,
        "memory_count": count,
        "timeline": [{"month": month, "memories": n} for month, n in sorted(timeline.items())],
    }


def _linked(
    store: ProjectionStore, ids: list[str], where: str
) -> tuple[list[dict[str, Any]], int, dict[str, int]]:
    """The newest ``_LINKED_SHOWN`` memories linked to any of ``ids`` that ``where``
    selects (newest first; undated last), how many there are, and how many of them
    happened in each month. Keys are sorted and months counted in Arrow; only the shown
    memories are read whole."""
    import pyarrow.compute as pc

    if not ids:
        return [], 0, {}
    keys = store.scan(
        MEMORIES,
        ["memory_id", "occurred_at"],
        filters.all_of(filters.has_any("entity_ids", ids), where),
    )
    dated = keys.column("occurred_at").drop_null()
    months = pc.value_counts(pc.strftime(dated, format="%Y-%m")).to_pylist()
    timeline = {m["values"]: int(m["counts"]) for m in months}
    import pyarrow as pa

    epoch = pa.scalar(0, pa.int64()).cast(keys.schema.field("occurred_at").type)
    when = pc.fill_null(keys.column("occurred_at"), epoch)  # undated: as old as can be
    newest = pc.sort_indices(pa.table({"when": when}), sort_keys=[("when", "descending")])
    shown = keys.column("memory_id").take(newest[:_LINKED_SHOWN]).to_pylist()
    columns = ["memory_id", "kind", "content", "speaker", "session_id", "occurred_at"]
    rows = {r["memory_id"]: r for r in store.by_ids(MEMORIES, shown, columns)}
    return [rows[m] for m in shown if m in rows], keys.num_rows, timeline
