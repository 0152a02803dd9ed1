"""The search read model: each recently searched user's hot memories, their vectors,
access counts, states and entities, held in memory by the process that answers searches.

A search of a cached user ranks vectors by an exact dot product over the user's own
matrix (for a big user, over a shortlist nearest by sign bits:
:mod:`memstream.queries.search.sign_codes`), and takes rows, access counts, states and the
entities the query names (and the memories linked to them) from memory, instead of
asking LanceDB for each (a prefiltered vector query over a million rows costs ~25 ms;
the same product over the user's 10,000 vectors well under 1 ms). The tables stay the
truth: each user's rows are brought up to date from them before every search
(:class:`memstream.storage.user_rows.UserRows` reads only what was written since), so a
search sees what it would have seen in the tables.

Users are kept least recently searched first out, within a budget of rows; a user
bigger than the budget is searched in the tables as before.

The request's filters (scope, kinds, tags, time) are applied here as masks over the
kept columns, with the meaning :func:`memstream.queries.search.searcher` gives them in the tables.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from memstream.queries.search.neighbours import SessionOrder, turn_said
from memstream.queries.search.sign_codes import (
    SIGN_CODED_ROWS,
    sign_codes,
)
from memstream.queries.search.term_index import TermIndex
from memstream.queries.search.user_view import ROW_COLUMNS, UserView
from memstream.storage import filters
from memstream.storage.lance.tables import ACCESS, ENTITIES, KEYS, MEMORIES, MEMORY_STATE, VECTORS
from memstream.storage.user_rows import UserRows

__all__ = ["ReadModel"]

T = TypeVar("T")


#: The columns of ``memories`` a view keeps: those, who said each (a user or the
#: assistant), and what filters and BM25 read.
_MEMORY_COLUMNS = (*ROW_COLUMNS, "project_id", "tags", "valid_until", "search_text")
_VECTOR_COLUMNS = ("memory_id", "project_id", "kind", "occurred_at", "vector")
_ENTITY_COLUMNS = ("entity_id", "type", "aliases", "mention_count", "canonical_name")
_STATE_COLUMNS = (
    "state_id",
    "memory_id",
    "valid_until",
    "superseded_by",
    "forgotten_at",
    "forgotten_reason",
    "protected_at",
    "confidence",
    "confidence_as_of",
    "links",
)


class _Made(Generic[T]):
    """What is made of one table's kept rows, made again only when they change (their
    generation moves); with ``grow``, when the change only appended rows, the last one
    made is grown by them instead (``grow(last, rows, appended)``, which must leave
    ``last`` as it was: a search may be reading it)."""

    def __init__(
        self,
        make: Callable[[pa.Table], T],
        grow: Callable[[T, pa.Table, pa.Table], T] | None = None,
    ) -> None:
        self._make = make
        self._grow = grow
        self._made: tuple[int, T] | None = None

    def of(self, rows: pa.Table, source: UserRows) -> T:
        """What is made of ``rows``, the rows ``source`` holds now (or made of them)."""
        generation, last = source.generation, self._made
        if last is not None and last[0] == generation:
            return last[1]
        if (
            self._grow is not None
            and last is not None
            and last[0] == generation - 1
            and source.appended
            and source.written is not None
        ):
            self._made = (generation, self._grow(last[1], rows, source.written))
        else:
            self._made = (generation, self._make(rows))
        return self._made[1]


class _UserTables:
    """The kept tables of one user and the view last made of them."""

    def __init__(self, store: Any, user_id: str, model: str, recheck_seconds: float) -> None:
        def rows(table: str, columns: tuple[str, ...], where: str = "") -> UserRows:
            return UserRows(store, table, user_id, columns, KEYS[table], where, recheck_seconds)

        self.memories = rows(MEMORIES, _MEMORY_COLUMNS)
        self.vectors = rows(VECTORS, _VECTOR_COLUMNS, filters.equals("model", model))
        self.access = rows(ACCESS, ("memory_id", "access_count"))
        self.states = rows(MEMORY_STATE, _STATE_COLUMNS)
        self.entities = rows(ENTITIES, _ENTITY_COLUMNS)
        self.terms = TermIndex()
        self._terms_generation = 0
        self._memories = _Made(self._memory_parts, self._more_memory_parts)
        self._order = _Made(_session_order, _more_session_order)
        self._speakers = _Made(_speakers, lambda last, _, appended: last | _speakers(appended))
        self._said = _Made(_said, lambda last, _, appended: {**last, **_said(appended)})
        self._vectors = _Made(_vector_parts, _more_vector_parts)
        self._access = _Made(
            lambda t: dict(
                zip(t["memory_id"].to_pylist(), t["access_count"].to_pylist(), strict=True)
            )
        )
        self._states = _Made(lambda t: {r["memory_id"]: r for r in t.to_pylist()})
        self._entities = _Made(
            lambda t: (
                t.combine_chunks(),
                dict(zip(t["entity_id"].to_pylist(), t["canonical_name"].to_pylist(), strict=True)),
            )
        )
        self.view: UserView | None = None
        self._lock = threading.Lock()

    def view_now(self) -> UserView:
        """A view as of each table's newest version; what did not change is reused.

        What is made of a table's rows is made again when the user's rows changed (their
        generation), not when the table did: other users' writes move the table's
        version every few hundred milliseconds while they publish."""
        with self._lock:  # one refresh at a time: the term index follows each one
            (memories, _), (vectors, _), (access, _), (states, _), (entities, _) = (
                self.memories.current(),
                self.vectors.current(),
                self.access.current(),
                self.states.current(),
                self.entities.current(),
            )
            entity_rows, entity_names = self._entities.of(entities, self.entities)
            self._index_terms()
            table, positions, docs = self._memories.of(memories, self.memories)
            order, _ = self._order.of(table, self.memories)
            vector_rows, matrix, codes = self._vectors.of(vectors, self.vectors)
            old = self.view
            same_rows = old is not None and old.memories is table and old.vector_rows is vector_rows
            masks = old._masks if old is not None and same_rows else {}  # same rows, same masks
            self.view = UserView(
                memories=table,
                positions=positions,
                vector_rows=vector_rows,
                vectors=matrix.array,
                codes=None if codes is None else codes.array,
                access=self._access.of(access, self.access),
                states=self._states.of(states, self.states),
                terms=self.terms,
                docs=docs,
                order=order,
                speakers=self._speakers.of(table, self.memories),
                said=self._said.of(table, self.memories),
                entities=entity_rows,
                entity_names=entity_names,
                _masks=masks,
            )
            return self.view

    def _memory_parts(self, rows: pa.Table) -> tuple[pa.Table, dict[str, int], np.ndarray]:
        """The memories, each one's position, and each one's term index document."""
        ids = rows["memory_id"].to_pylist()
        docs = np.array([self.terms.doc(k) for k in ids], dtype=np.int64)
        return rows.combine_chunks(), {m: i for i, m in enumerate(ids)}, docs

    def _more_memory_parts(
        self,
        last: tuple[pa.Table, dict[str, int], np.ndarray],
        rows: pa.Table,
        appended: pa.Table,
    ) -> tuple[pa.Table, dict[str, int], np.ndarray]:
        """``_memory_parts`` of ``rows``: those of the rows before, and of ``appended``."""
        _, positions, docs = last
        ids = appended["memory_id"].to_pylist()
        start = len(positions)
        more = np.array([self.terms.doc(k) for k in ids], dtype=np.int64)
        return (
            rows.combine_chunks(),  # a take across chunks costs 40 times one in one chunk
            {**positions, **{m: start + i for i, m in enumerate(ids)}},
            np.concatenate([docs, more]),
        )

    def _index_terms(self) -> None:
        """Bring the term index to the memories just read (only what they changed)."""
        rows = self.memories
        if rows.generation == self._terms_generation:
            return
        written = rows.written
        if written is None or rows.generation != self._terms_generation + 1:
            self.terms = TermIndex()
            written, _ = rows.current()
        self.terms.add(written["memory_id"].to_pylist(), written["search_text"].to_pylist())
        self._terms_generation = rows.generation

    def __len__(self) -> int:
        return len(self.memories) + len(self.vectors)


def _speakers(memories: pa.Table) -> frozenset[str]:
    return frozenset(s for s in memories["speaker"].unique().to_pylist() if s)


def _said(memories: pa.Table) -> dict[str, str]:
    """What each of ``memories`` says (:func:`~memstream.queries.search.neighbours.turn_said`),
    by memory id: worked out once per memory, not for each search's candidates."""
    return {
        m: turn_said(role, content or "")
        for m, role, content in zip(
            memories["memory_id"].to_pylist(),
            memories["role"].to_pylist(),
            memories["content"].to_pylist(),
            strict=True,
        )
    }


#: The order of a user's turns in their sessions, and the (time, id) each session's last
#: turn sorts by (None: its time is missing, so the session is ordered again whole).
_Order = tuple[SessionOrder, dict[str, tuple[int, str] | None]]

_TURN_ORDER = [
    ("session_id", "ascending"),
    ("occurred_at", "ascending"),
    ("memory_id", "ascending"),
]


def _sorted_turns(memories: pa.Table) -> tuple[list[str], list[str], list[int | None]]:
    """The turns (episodes of a session) among ``memories`` sorted by session, time and
    id: their ids, sessions and times (microseconds)."""
    is_turn = pc.and_(pc.equal(memories["kind"], "episode"), pc.is_valid(memories["session_id"]))
    turns = memories.filter(is_turn).sort_by(_TURN_ORDER)
    times = pc.cast(turns["occurred_at"], pa.int64()).to_pylist()
    return turns["memory_id"].to_pylist(), turns["session_id"].to_pylist(), times


def _session_order(memories: pa.Table) -> _Order:
    """The order of the turns (episodes) among ``memories`` within their sessions."""
    ids, sessions, times = _sorted_turns(memories)
    ends: dict[str, tuple[int, str] | None] = {
        s: None if t is None else (t, m) for m, s, t in zip(ids, sessions, times, strict=True)
    }
    return SessionOrder.of_sorted(ids, sessions), ends


def _more_session_order(last: _Order, memories: pa.Table, appended: pa.Table) -> _Order:
    """``_session_order`` of ``memories``: the order before, the turns ``appended`` adds
    after the last of their session (the usual case) put after it, and a session one of
    them lands inside of ordered again whole."""
    order, ends = last
    ids, sessions, times = _sorted_turns(appended)
    if not ids:
        return last
    position, at, ends = dict(order.position), dict(order.at), dict(ends)
    again: list[str] = []
    start = 0
    while start < len(ids):
        session, stop = sessions[start], start
        while stop < len(ids) and sessions[stop] == session:
            stop += 1
        end, first = ends.get(session), times[start]
        if any(t is None for t in times[start:stop]) or (
            session in ends and (end is None or (first, ids[start]) <= end)
        ):
            again.append(session)  # lands among the turns held: ordered again whole
        else:
            index = 0 if end is None else position[end[1]][1] + 1
            for memory_id in ids[start:stop]:
                position[memory_id] = (session, index)
                at[(session, index)] = memory_id
                index += 1
            last_time = times[stop - 1]
            ends[session] = None if last_time is None else (last_time, ids[stop - 1])
        start = stop
    if again:
        for session in again:
            index = 0
            while (session, index) in at:
                del position[at.pop((session, index))]
                index += 1
        turns = memories.select(["memory_id", "kind", "session_id", "occurred_at"])
        chosen = turns.filter(pc.is_in(turns["session_id"], value_set=pa.array(again)))
        reordered, reordered_ends = _session_order(chosen)
        position.update(reordered.position)
        at.update(reordered.at)
        ends.update(reordered_ends)
    return SessionOrder(position, at), ends


@dataclass(frozen=True)
class _Growing:
    """The first ``size`` entries along ``axis`` of ``buffer``, which has room past them:
    entries appended are written there while what was handed out before (views of the
    first ``size``) stays as it was. ``used`` is shared by everything grown in one
    buffer: only the one that ends where the buffer is used grows into it."""

    buffer: np.ndarray
    size: int
    axis: int
    used: list[int]

    @classmethod
    def of(cls, array: np.ndarray, axis: int) -> _Growing:
        return cls(array, array.shape[axis], axis, [array.shape[axis]])

    @property
    def array(self) -> np.ndarray:
        return _along(self.buffer, self.axis, 0, self.size)

    def plus(self, more: np.ndarray) -> _Growing:
        n, k = self.size, more.shape[self.axis]
        buffer, used = self.buffer, self.used
        if used[0] != n or buffer.shape[self.axis] < n + k:
            shape = list(buffer.shape)
            shape[self.axis] = 2 * (n + k)
            buffer, used = np.empty(shape, dtype=buffer.dtype), [n]
            _along(buffer, self.axis, 0, n)[...] = self.array
        _along(buffer, self.axis, n, n + k)[...] = more
        used[0] = n + k
        return _Growing(buffer, n + k, self.axis, used)


def _along(array: np.ndarray, axis: int, start: int, stop: int) -> np.ndarray:
    return array[start:stop] if axis == 0 else array[:, start:stop]


#: The vectors' other columns, their unit matrix (rows), and their sign codes (columns).
_VectorParts = tuple[pa.Table, _Growing, _Growing | None]


def _vector_parts(rows: pa.Table) -> _VectorParts:
    """The vectors' other columns, their unit matrix, and its sign codes for a user
    with enough of them to be shortlisted."""
    matrix = _matrix(rows["vector"])
    codes = _Growing.of(sign_codes(matrix), 1) if len(matrix) >= SIGN_CODED_ROWS else None
    return rows.drop_columns(["vector"]).combine_chunks(), _Growing.of(matrix, 0), codes


def _more_vector_parts(last: _VectorParts, rows: pa.Table, appended: pa.Table) -> _VectorParts:
    """``_vector_parts`` of ``rows``: those of the rows before, and of ``appended``."""
    _, matrix, codes = last
    more = _matrix(appended["vector"])
    if not matrix.size or more.shape[1] != matrix.buffer.shape[1]:
        return _vector_parts(rows)
    matrix = matrix.plus(more)
    if codes is not None:
        codes = codes.plus(sign_codes(more))
    elif matrix.size >= SIGN_CODED_ROWS:
        codes = _Growing.of(sign_codes(matrix.array), 1)
    return rows.drop_columns(["vector"]).combine_chunks(), matrix, codes


def _matrix(column: pa.ChunkedArray) -> np.ndarray:
    """Unit float32 rows of a fixed-size-list vector column."""
    if len(column) == 0:
        return np.zeros((0, 0), dtype=np.float32)
    combined = column.combine_chunks()
    width = combined.type.list_size
    flat = combined.values.to_numpy(zero_copy_only=False).astype(np.float32, copy=False)
    matrix = flat.reshape(-1, width)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    unit: np.ndarray = matrix / norms
    return unit


class ReadModel:
    """Views of the most recently searched users, within ``budget_rows`` kept rows
    (memories and vectors counted apart).

    Args:
        store: the projection store.
        model: the embedding model whose vectors are kept.
        budget_rows: most rows kept over every user; 0 keeps none.
        recheck_seconds: how stale a view may be: the tables' versions are asked at
            most this often per user (0: before every search).
    """

    def __init__(
        self, store: Any, model: str, budget_rows: int, recheck_seconds: float = 0.0
    ) -> None:
        self._store = store
        self._recheck = recheck_seconds
        self._model = model
        self._budget = budget_rows
        self._users: OrderedDict[str, _UserTables] = OrderedDict()
        self._lock = threading.Lock()

    def forget(self, user_id: str) -> None:
        """Keep nothing of ``user_id`` (the next search reads the tables again)."""
        with self._lock:
            self._users.pop(user_id, None)

    def view(self, user_id: str, expected_rows: int) -> UserView | None:
        """The user's view as of now, or None when the user (``expected_rows`` memories,
        about as many vectors) would not fit the budget."""
        if 2 * expected_rows > self._budget:
            return None
        with self._lock:
            tables = self._users.get(user_id)
            if tables is None:
                tables = _UserTables(self._store, user_id, self._model, self._recheck)
                self._users[user_id] = tables
            self._users.move_to_end(user_id)
        view = tables.view_now()
        with self._lock:
            while len(self._users) > 1 and sum(map(len, self._users.values())) > self._budget:
                self._users.popitem(last=False)
        return view
