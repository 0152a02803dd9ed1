"""What a search reads of the turns around its candidates: their rows, the order of the
turns of their sessions (hot and archived), and what each turn said (a user's
statement or question, an assistant's reply), from the user's view when there is one,
else from the tables. The scoring that uses them is pure
(:mod:`memstream.queries.search.neighbours`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from memstream.queries.search.candidates import archived_row
from memstream.queries.search.neighbours import REPLIES, SessionOrder, turn_said
from memstream.queries.search.retrievers import ARCHIVE_COLUMNS
from memstream.queries.search.user_view import ROW_COLUMNS, RequestFilter, UserView
from memstream.storage import filters
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.lance.tables import ARCHIVE_INDEX, MEMORIES

__all__ = ["hot_rows", "session_order", "turns_said"]

_SAID_COLUMNS = ("memory_id", "role", "content")


def hot_rows(
    store: ProjectionStore,
    memory_ids: list[str],
    where: str,
    wanted: RequestFilter,
    view: UserView | None,
) -> list[dict[str, Any]]:
    """The search rows of these hot memories that the request may see: from the view
    when there is one, else from the table."""
    if view is not None:
        return view.rows(memory_ids, ROW_COLUMNS, wanted)
    return store.by_ids(MEMORIES, memory_ids, ROW_COLUMNS, where)


def session_order(
    store: ProjectionStore,
    fused: Mapping[str, float],
    rows: dict[str, dict[str, Any]],
    where: str,
    wanted: RequestFilter,
    cold: str | None,
    view: UserView | None,
) -> SessionOrder:
    """The order of the turns of the sessions the fused memories belong to, hot and
    archived. The rows it had to read (hot memories found by vector alone, whose
    sessions it needs; the archived turns of those sessions) are added to ``rows``."""
    if view is not None and cold is None:
        return view.order  # every hot turn of the user, in order
    found_by_vector = [m for m in fused if m not in rows]
    rows.update((r["memory_id"], r) for r in hot_rows(store, found_by_vector, where, wanted, view))
    sessions = sorted({rows[m]["session_id"] for m in fused if m in rows} - {None})
    if not sessions:
        return SessionOrder.of(())
    if view is not None:
        hot = view.session_turns(sessions)
    else:
        hot = store.scan(
            MEMORIES,
            ["memory_id", "session_id", "occurred_at"],
            filters.all_of(
                where, filters.equals("kind", "episode"), filters.is_in("session_id", sessions)
            ),
        ).to_pylist()
    archived: list[dict[str, Any]] = []
    if cold is not None:
        turns = filters.any_of(filters.equals("kind", "episode"), filters.is_null("kind"))
        in_sessions = filters.all_of(cold, turns, filters.is_in("session_id", sessions))
        found = store.scan(ARCHIVE_INDEX, ARCHIVE_COLUMNS, in_sessions).to_pylist()
        archived = [archived_row(r) for r in found]
        rows.update((r["memory_id"], r) for r in archived if r["memory_id"] not in rows)
    return SessionOrder.of([*hot, *archived])


def turns_said(
    store: ProjectionStore,
    memory_ids: Iterable[str],
    order: SessionOrder,
    rows: Mapping[str, Mapping[str, Any]],
    where: str,
    wanted: RequestFilter,
    view: UserView | None,
) -> dict[str, str]:
    """What each of ``memory_ids`` said, and each assistant's reply among them the turn
    just before it (:func:`memstream.queries.search.neighbours.turn_said`), for the hot
    turns the request may see (``rows``: those read already, to tell the archived ones,
    whose role the archive does not keep: they say nothing; a hot row read with its role
    is not read again)."""

    def hot(ids: Iterable[str]) -> list[str]:  # an archived turn's role is not kept
        return [m for m in ids if not (rows.get(m) or {}).get("_archived")]

    if view is not None:  # worked out once per memory
        said = view.said_of(hot(memory_ids), wanted)
        replies = {b for m, what in said.items() if what in REPLIES and (b := order.before(m))}
        said.update(view.said_of(hot(replies - said.keys()), wanted))
        return said

    def said_of(ids: Iterable[str]) -> dict[str, str]:
        asked = hot(ids)
        held = [rows[m] for m in asked if "role" in (rows.get(m) or {})]
        unread = [m for m in asked if "role" not in (rows.get(m) or {})]
        turns = [*held, *_read(store, unread, _SAID_COLUMNS, where, wanted, view)]
        return {r["memory_id"]: turn_said(r["role"], r["content"] or "") for r in turns}

    said = said_of(memory_ids)
    before = {b for m, what in said.items() if what in REPLIES and (b := order.before(m))}
    said.update(said_of(before - said.keys()))
    return said


def _read(
    store: ProjectionStore,
    memory_ids: list[str],
    columns: tuple[str, ...],
    where: str,
    wanted: RequestFilter,
    view: UserView | None,
) -> list[dict[str, Any]]:
    if not memory_ids:
        return []
    if view is not None:
        return view.rows(memory_ids, columns, wanted)
    return store.by_ids(MEMORIES, memory_ids, list(columns), where)
