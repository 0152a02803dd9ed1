"""A user's memories a page at a time, newest or oldest first, with a stable cursor.

Pages are cut by keyset on ``(occurred_at, memory_id)``: a cursor names the memory the
last page ended on, and the next page starts after it in the list's order. So memories
added while a user pages through never make a memory repeat or go missing from the
pages still to come (a new memory, being newer, shows at the head of a newest-first
list; one dated in the past shows where its time puts it).

The list holds everything the user has: hot memories from ``memories`` and archived
ones from ``archive_index`` (their summary, marked ``archived``). Memories search leaves
out (superseded, forgotten, pruned) are left out here too unless asked for, then
marked with their state.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any, Literal

from memstream.events.errors import InvalidQuery
from memstream.policies.scope import owner_view_filter
from memstream.projections.archiving import ARCHIVED, archive_id, summary_of
from memstream.projections.memory_state import effective_confidence, is_hidden, state_id
from memstream.queries.as_of import AsOf
from memstream.queries.freshness import Freshness
from memstream.storage import filters
from memstream.storage.lance.tables import ARCHIVE_INDEX, MEMORIES, MEMORY_STATE

if TYPE_CHECKING:
    import pyarrow as pa

    from memstream.storage.lance.store import ProjectionStore

__all__ = ["ListRequest", "MemoryPage", "every_memory", "list_memories"]

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)

Order = Literal["newest", "oldest"]

#: The columns a listed memory shows (an archived one: those its index row keeps).
_SHOWN = (
    "memory_id",
    "kind",
    "content",
    "speaker",
    "role",
    "session_id",
    "project_id",
    "channel",
    "tags",
    "importance",
    "confidence",
    "occurred_at",
    "metadata",
)
#: What an archived memory's index row gives of those (and the summary's text).
_COLD_SHOWN = [
    *(c for c in _SHOWN if c not in ("content", "role", "channel", "metadata")),
    "search_text",
]


@dataclass(frozen=True)
class ListRequest:
    """Which memories of ``user_id``, in which order, from where (``cursor``: the
    ``next_cursor`` of the page before), and how many at most."""

    user_id: str
    kind: str | None = None
    session_id: str | None = None
    project_id: str | None = None
    after: datetime | None = None
    before: datetime | None = None
    order: Order = "newest"
    limit: int = 50
    cursor: str | None = None
    include_hidden: bool = False
    #: only memories carrying this tag
    tag: str | None = None
    #: memory as it stood at a past moment (:mod:`memstream.queries.as_of`)
    as_of: str | None = None


@dataclass(frozen=True)
class MemoryPage:
    """A page of memories, and the cursor of the next one (None: this was the last)."""

    memories: list[dict[str, Any]]
    next_cursor: str | None
    #: how fresh the page is (set by the reads that answer it)
    freshness: Freshness | None = None
    #: with ``as_of``: the moment the page reflects
    as_of: AsOf | None = None


def list_memories(store: ProjectionStore, request: ListRequest) -> MemoryPage:
    """The page of the user's memories ``request`` asks for.

    The keys of every memory the request selects are sorted in Arrow (a user's hundred
    thousand keys in a few milliseconds); only the keys of the page, and a few beyond
    it for the hidden ones left out, become Python values."""
    start = _decode(request.cursor, request.order) if request.cursor else None
    where = _where(request)
    keys = _sorted_keys(
        [
            _key_table(store, MEMORIES, where, archived=False),
            _key_table(store, ARCHIVE_INDEX, filters.all_of(where, ARCHIVED), archived=True),
        ],
        request.order,
        start,
    )
    chosen: list[tuple[datetime, str, bool]] = []
    states: dict[str, dict[str, Any]] = {}
    position = 0  # keys[:position] are decided
    total = keys.num_rows
    while len(chosen) < request.limit and position < total:
        window = _as_keys(keys.slice(position, 2 * request.limit))
        found = _states(store, request.user_id, [k[1] for k in window])
        states.update(found)
        for key in window:
            position += 1
            if request.include_hidden or not is_hidden(found.get(key[1])):
                chosen.append(key)
                if len(chosen) == request.limit:
                    break
    more = position < total  # (what is left may all be hidden: a last, empty page)
    memories = _documents(store, request.user_id, chosen, states)
    last = chosen[-1] if chosen and more else None
    cursor = _encode(last[0], last[1], request.order) if last is not None else None
    return MemoryPage(memories, cursor)


def _key_table(store: ProjectionStore, table: str, where: str, archived: bool) -> pa.Table:
    """``memory_id``, ``at`` (``occurred_at`` in microseconds) and ``archived`` of the
    rows of ``table`` that ``where`` selects."""
    import pyarrow as pa

    schema = pa.schema([("memory_id", pa.string()), ("at", pa.int64()), ("archived", pa.bool_())])
    if table not in store.table_names:
        return schema.empty_table()
    rows = store.scan(table, ["memory_id", "occurred_at"], where)
    at = rows.column("occurred_at").cast(pa.timestamp("us", "UTC")).cast(pa.int64())
    flags = pa.array([archived] * rows.num_rows, pa.bool_())
    return pa.table([rows.column("memory_id"), at, flags], schema=schema)


def _sorted_keys(
    tables: list[pa.Table], order: Order, start: tuple[datetime, str] | None
) -> pa.Table:
    """The keys of ``tables`` in the list's order, after ``start`` (a cursor's key)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    keys = pa.concat_tables(tables)
    newest = order == "newest"
    if start is not None:
        at, memory_id = _micros(start[0]), start[1]
        before, same = (pc.less, pc.less) if newest else (pc.greater, pc.greater)
        after_start = pc.or_(
            before(keys["at"], at),
            pc.and_(pc.equal(keys["at"], at), same(keys["memory_id"], memory_id)),
        )
        keys = keys.filter(after_start)
    direction = "descending" if newest else "ascending"
    ordered = pc.sort_indices(keys, sort_keys=[("at", direction), ("memory_id", direction)])
    return keys.take(ordered)


def _as_keys(keys: pa.Table) -> list[tuple[datetime, str, bool]]:
    """Arrow keys as (occurred_at, memory_id, archived)."""
    return [
        (_EPOCH + timedelta(microseconds=at), memory_id, archived)
        for memory_id, at, archived in zip(
            keys.column("memory_id").to_pylist(),
            keys.column("at").to_pylist(),
            keys.column("archived").to_pylist(),
            strict=True,
        )
    ]


def _micros(at: datetime) -> int:
    return (at - _EPOCH) // timedelta(microseconds=1)


def _where(request: ListRequest) -> str:
    parts = [owner_view_filter(request.user_id, request.project_id)]
    if request.kind is not None:
        parts.append(filters.equals("kind", request.kind))
    if request.session_id is not None:
        parts.append(filters.equals("session_id", request.session_id))
    if request.tag is not None:
        parts.append(filters.has_any("tags", [request.tag]))
    if request.after is not None:
        parts.append(filters.at_least("occurred_at", request.after))
    if request.before is not None:
        parts.append(filters.before("occurred_at", request.before))
    return filters.all_of(*parts)


def _states(store: ProjectionStore, user_id: str, ids: list[str]) -> dict[str, dict[str, Any]]:
    rows = store.by_ids(MEMORY_STATE, [state_id(user_id, m) for m in ids])
    return {r["memory_id"]: r for r in rows}


def _documents(
    store: ProjectionStore,
    user_id: str,
    chosen: list[tuple[datetime, str, bool]],
    states: Mapping[str, dict[str, Any]],
) -> list[dict[str, Any]]:
    """The chosen memories as a list shows them, in the list's order."""
    hot_ids = [memory_id for _, memory_id, archived in chosen if not archived]
    cold_ids = [archive_id(user_id, memory_id) for _, memory_id, archived in chosen if archived]
    found: dict[str, dict[str, Any]] = {}
    for row in store.by_ids(MEMORIES, hot_ids, list(_SHOWN)):
        found[row["memory_id"]] = _listed(row, archived=False)
    if cold_ids:
        for row in store.by_ids(ARCHIVE_INDEX, cold_ids, _COLD_SHOWN):
            found[row["memory_id"]] = _listed(row, archived=True)
    out = []
    for _, memory_id, _ in chosen:
        document = found.get(memory_id)
        if document is None:  # moved between the tables since the keys were read
            continue
        out.append(_with_state(document, states.get(memory_id)))
    return out


def every_memory(store: ProjectionStore, user_id: str) -> list[dict[str, Any]]:
    """Every memory of the user a list shows without ``include_hidden`` (hot ones, and
    archived ones marked), oldest first, read in one pass over each table (what an
    export reads, rather than page after page)."""
    mine = filters.equals("user_id", user_id)
    states = {r["memory_id"]: r for r in store.scan(MEMORY_STATE, where=mine).to_pylist()}
    rows = [_listed(r, archived=False) for r in store.scan(MEMORIES, _SHOWN, mine).to_pylist()]
    cold = store.scan(ARCHIVE_INDEX, _COLD_SHOWN, filters.all_of(mine, ARCHIVED)).to_pylist()
    rows += [_listed(r, archived=True) for r in cold]
    shown = [
        _with_state(row, states.get(row["memory_id"]))
        for row in rows
        if not is_hidden(states.get(row["memory_id"]))
    ]
    return sorted(shown, key=lambda m: (m["occurred_at"], m["memory_id"]))


def _listed(row: dict[str, Any], archived: bool) -> dict[str, Any]:
    """A row as a list shows it; an archived one's content is its summary."""
    if not archived:
        return {**row, "archived": False}
    content = summary_of(row)
    return {**{k: v for k, v in row.items() if k != "search_text"}, "content": content,
            "archived": True}  # fmt: skip


def _with_state(document: dict[str, Any], state: Mapping[str, Any] | None) -> dict[str, Any]:
    """The memory with its confidence as it stands now and its state's name."""
    document["confidence"] = effective_confidence(document.get("confidence"), state)
    document["state"] = _state_name(state)
    return document


def _state_name(state: Mapping[str, Any] | None) -> str:
    if state is None:
        return "current"
    if state.get("forgotten_at") is not None:
        return str(state.get("forgotten_reason") or "forgotten")
    if state.get("superseded_by") is not None:
        return "superseded"
    return "current"


def _encode(at: datetime, memory_id: str, order: Order) -> str:
    data = json.dumps({"t": at.isoformat(), "m": memory_id, "o": order}, separators=(",", ":"))
    return base64.urlsafe_b64encode(data.encode()).decode().rstrip("=")


def _decode(cursor: str, order: Order) -> tuple[datetime, str]:
    """The ``(occurred_at, memory_id)`` a cursor names.

    Raises:
        InvalidQuery: not a cursor this list gave, or one of a list in the other order.
    """
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        data = json.loads(raw)
        at = datetime.fromisoformat(data["t"])
        memory_id = str(data["m"])
        given = data["o"]
    except (binascii.Error, ValueError, KeyError, TypeError):
        raise InvalidQuery("cursor: not one a list of memories gave") from None
    if given != order:
        raise InvalidQuery(f"cursor: it continues a list {given} first, not {order} first")
    if at.tzinfo is None:
        raise InvalidQuery("cursor: not one a list of memories gave")
    return at, memory_id
