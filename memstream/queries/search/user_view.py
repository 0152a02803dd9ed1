"""A user's hot memories as a searcher reads them from the read model: rows filtered as a
request asks (kind, project, session, time, tags) without a table scan, BM25 over their
text, and their nearest vectors by one matrix product (split over threads when large)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from concurrent.futures import Executor
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from memstream.queries.search.neighbours import SessionOrder
from memstream.queries.search.sign_codes import (
    shortlist,
    shortlist_size,
)
from memstream.queries.search.term_index import TermIndex

__all__ = ["ROW_COLUMNS", "SPLIT_PRODUCT_ROWS", "RequestFilter", "UserView", "python_rows"]


@dataclass(frozen=True)
class RequestFilter:
    """What a search request narrows to, besides its user."""

    project_id: str | None = None
    kinds: tuple[str, ...] | None = None
    tags: tuple[str, ...] | None = None
    after: datetime | None = None
    before: datetime | None = None

    def memories_mask(self, rows: pa.Table) -> np.ndarray:
        """Which hot memory rows the request may see (alive, in scope, filtered)."""
        mask: np.ndarray = self._common(rows) & _as_bool(pc.is_null(rows.column("valid_until")))
        if self.tags:
            mask &= _has_any(rows.column("tags"), self.tags)
        return mask

    def vectors_mask(self, rows: pa.Table) -> np.ndarray:
        """Which vector rows the request may see (their own scope, kind and time)."""
        return self._common(rows)

    def _common(self, rows: pa.Table) -> np.ndarray:
        project = rows.column("project_id")
        in_scope = pc.is_null(project)
        if self.project_id is not None:
            in_scope = pc.or_(in_scope, pc.fill_null(pc.equal(project, self.project_id), False))
        mask = _as_bool(in_scope)
        if self.kinds:
            mask &= _as_bool(pc.is_in(rows.column("kind"), value_set=pa.array(self.kinds)))
        when = rows.column("occurred_at")
        if self.after is not None:
            mask &= _as_bool(pc.greater_equal(when, pa.scalar(self.after, when.type)))
        if self.before is not None:
            mask &= _as_bool(pc.less(when, pa.scalar(self.before, when.type)))
        return mask


#: Users with more vectors than this have their products computed in two halves on two
#: threads (numpy lets go of the interpreter lock; BLAS is held to one thread where
#: searches run, see :func:`memstream.runtime.assembly.make_searcher`). The product
#: waits on memory (the query's model, run just before, has pushed the vectors out of
#: the caches), which two cores reach faster than one: 10,000 vectors 1.24 ms in one
#: thread, 0.68 in two; 5,000 vectors 0.70 and 0.46 (at 100,000: 11.3 and 5.5).
SPLIT_PRODUCT_ROWS = 4_000


def _products(matrix: np.ndarray, query: np.ndarray, pool: Executor | None) -> np.ndarray:
    """``matrix @ query`` (no copy of the rows), in two halves at once on ``pool`` for
    a big matrix."""
    if pool is None or len(matrix) < SPLIT_PRODUCT_ROWS:
        found: np.ndarray = matrix @ query
        return found
    half = len(matrix) // 2
    second = pool.submit(np.matmul, matrix[half:], query)
    first = matrix[:half] @ query
    return np.concatenate([first, second.result()])


def _products_of(
    matrix: np.ndarray, rows: np.ndarray, query: np.ndarray, pool: Executor | None
) -> np.ndarray:
    """``matrix[rows] @ query``, in two halves at once on ``pool`` (the rows are
    scattered over the matrix: gathering them waits on memory, which two cores reach
    faster than one)."""
    if pool is None or len(rows) < SPLIT_PRODUCT_ROWS:
        found: np.ndarray = matrix[rows] @ query
        return found
    half = len(rows) // 2
    second = pool.submit(lambda: matrix[rows[half:]] @ query)
    first = matrix[rows[:half]] @ query
    return np.concatenate([first, second.result()])


_UTC = ZoneInfo("UTC")  # the time zone pyarrow gives a timestamp of zone "UTC"
_EPOCH = datetime(1970, 1, 1, tzinfo=_UTC)


def python_rows(table: pa.Table) -> list[dict[str, Any]]:
    """``table.to_pylist()``, its UTC timestamps made a quarter as costly (pyarrow
    looks the zone up for each value: 3.6 us each, three quarters of the time to
    read a search's rows)."""
    columns: list[list[Any]] = []
    for column in table.columns:
        kind = column.type
        if pa.types.is_timestamp(kind) and kind.unit == "us" and kind.tz == "UTC":
            micros = pc.cast(column, pa.int64()).to_pylist()
            columns.append(
                [None if us is None else _EPOCH + timedelta(microseconds=us) for us in micros]
            )
        else:
            columns.append(column.to_pylist())
    names = table.column_names
    return [dict(zip(names, values, strict=True)) for values in zip(*columns, strict=True)]


def _microseconds(times: Any) -> np.ndarray:
    """Timestamps as int64 microseconds (a missing one the earliest)."""
    as_int = pc.cast(times, pa.int64())
    found: np.ndarray = pc.fill_null(as_int, np.iinfo(np.int64).min).to_numpy(zero_copy_only=False)
    return found


def _as_bool(values: Any) -> np.ndarray:
    found: np.ndarray = pc.fill_null(values, False).to_numpy(zero_copy_only=False)
    return found.astype(bool, copy=False)


def _has_any(lists: pa.ChunkedArray, wanted: tuple[str, ...]) -> np.ndarray:
    combined = lists.combine_chunks() if isinstance(lists, pa.ChunkedArray) else lists
    flat = pc.list_flatten(combined)
    parents = pc.list_parent_indices(combined).to_numpy()
    hits = _as_bool(pc.is_in(flat, value_set=pa.array(wanted)))
    mask = np.zeros(len(combined), dtype=bool)
    mask[parents[hits]] = True
    return mask


@dataclass
class UserView:
    """One user's hot memories as of one version of each table (do not change it)."""

    memories: pa.Table
    positions: dict[str, int]
    vector_rows: pa.Table
    vectors: np.ndarray
    access: dict[str, int]
    states: dict[str, dict[str, Any]]
    terms: TermIndex
    #: the term index's document number of each row of ``memories``
    docs: np.ndarray
    #: the order of the user's hot turns within their sessions
    order: SessionOrder
    #: who said the user's hot memories
    speakers: frozenset[str] = frozenset()
    #: what each memory says (a statement, a question, a reply...), by memory id
    said: Mapping[str, str] = field(default_factory=dict)
    #: the user's entities (:data:`_ENTITY_COLUMNS`)
    entities: pa.Table | None = None
    #: each entity's canonical name, by entity id
    entity_names: dict[str, str] = field(default_factory=dict)
    #: the vectors' sign codes, for a user with at least ``SIGN_CODED_ROWS`` of them
    codes: np.ndarray | None = None
    #: each filter's mask, and whether it lets every row through
    _masks: dict[tuple[str, RequestFilter], tuple[np.ndarray, bool]] = field(default_factory=dict)

    def nearest(
        self,
        query: np.ndarray,
        wanted: RequestFilter,
        limit: int,
        pool: Executor | None = None,
    ) -> list[tuple[str, float]]:
        """(memory id, cosine distance) of the ``limit`` vectors nearest ``query`` that
        ``wanted`` lets through, nearest first. Exact for a user without sign codes (with
        ``pool``, a big user's products are computed in two halves at once); for one with
        them, the exact cosines of a shortlist nearest by signs
        (:mod:`memstream.queries.search.sign_codes`)."""
        if not len(self.vectors):
            return []
        mask = self._mask("vectors", wanted)
        allowed = int(mask.sum())
        if not allowed:
            return []
        q = np.asarray(query, dtype=np.float32)
        norm = float(np.linalg.norm(q)) or 1.0
        size = shortlist_size(len(self.vectors), limit)
        if self.codes is not None and allowed > size:
            at = shortlist(self.codes, q, size, mask, pool)
            cosine = _products_of(self.vectors, at, q, pool) / norm
        else:
            at = None
            cosine = _products(self.vectors, q, pool) / norm
            if allowed < len(mask):
                cosine[~mask] = -np.inf
        take = min(limit, allowed, len(cosine))
        best = np.argpartition(-cosine, take - 1)[:take]
        best = best[np.argsort(-cosine[best], kind="stable")]
        positions = best if at is None else at[best]
        ids = self.vector_rows.column("memory_id").take(pa.array(positions)).to_pylist()
        return [(m, 1.0 - c) for m, c in zip(ids, cosine[best].tolist(), strict=True)]

    def full_text(self, query: str, wanted: RequestFilter, limit: int) -> list[tuple[str, float]]:
        """(memory id, BM25 score) of the ``limit`` memories ``wanted`` lets through that
        BM25 ranks best for ``query``, best first (their rows are read when ranked)."""
        allowed = np.zeros(len(self.terms), dtype=bool)
        allowed[self.docs[self._mask("memories", wanted)]] = True
        return [(m, s) for m, s in self.terms.search(query, allowed, limit) if m in self.positions]

    def entities_named(self, keys: list[str]) -> list[dict[str, Any]]:
        """The user's entities one of whose aliases is among ``keys``: id, type,
        aliases and how many memories mention them."""
        if self.entities is None or not len(self.entities) or not keys:
            return []
        chosen = _has_any(self.entities["aliases"], tuple(keys))
        found: list[dict[str, Any]] = (
            self.entities.select(["entity_id", "type", "aliases", "mention_count"])
            .filter(pa.array(chosen))
            .to_pylist()
        )
        return found

    def with_entities(
        self, entity_ids: list[str], wanted: RequestFilter, limit: int, columns: tuple[str, ...]
    ) -> list[dict[str, Any]]:
        """The rows of the ``limit`` newest memories ``wanted`` lets through that are
        linked to any of ``entity_ids``, newest first."""
        if not entity_ids or not len(self.memories):
            return []
        linked = _has_any(self.memories["entity_ids"], tuple(entity_ids))
        at = np.flatnonzero(linked & self._mask("memories", wanted))
        if not len(at):
            return []
        when = self.memories["occurred_at"].take(pa.array(at, pa.int64()))
        newest = np.argsort(-_microseconds(when), kind="stable")[:limit]
        return python_rows(
            self.memories.select(list(columns)).take(pa.array(at[newest], pa.int64()))
        )

    def session_turns(self, sessions: list[str]) -> list[dict[str, Any]]:
        """The turns (episodes) of these sessions: memory id, session and time."""
        chosen = pc.and_(
            pc.is_in(self.memories["session_id"], value_set=pa.array(sessions, pa.string())),
            pc.equal(self.memories["kind"], "episode"),
        )
        return python_rows(
            self.memories.select(["memory_id", "session_id", "occurred_at"]).filter(chosen)
        )

    def speakers_of(self, memory_ids: list[str], wanted: RequestFilter) -> set[str | None]:
        """Who said these memories (those the filter lets through)."""
        at = self._positions(memory_ids, wanted)
        if not len(at):
            return set()
        return set(self.memories["speaker"].take(at).unique().to_pylist())

    def said_of(self, memory_ids: Iterable[str], wanted: RequestFilter) -> dict[str, str]:
        """What each of these memories says (those the filter lets through)."""
        mask, positions, said = self._held_back("memories", wanted), self.positions, self.said
        if mask is None:
            return {m: said[m] for m in memory_ids if m in positions}
        return {m: said[m] for m in memory_ids if (p := positions.get(m)) is not None and mask[p]}

    def rows(
        self, memory_ids: list[str], columns: tuple[str, ...], wanted: RequestFilter | None
    ) -> list[dict[str, Any]]:
        """The rows of these memories (those the filter lets through), in that order."""
        at = self._positions(memory_ids, wanted)
        if not len(at):
            return []
        return python_rows(self.memories.select(list(columns)).take(at))

    def _positions(self, memory_ids: list[str], wanted: RequestFilter | None) -> pa.Array:
        """Where these memories are held (those the filter lets through), in that order."""
        mask = None if wanted is None else self._held_back("memories", wanted)
        held = map(self.positions.get, memory_ids)
        if mask is None:
            return pa.array([p for p in held if p is not None], pa.int64())
        return pa.array([p for p in held if p is not None and mask[p]], pa.int64())

    def _held_back(self, table: str, wanted: RequestFilter) -> np.ndarray | None:
        """:meth:`_mask`, or None when it lets every row through (then nothing need be
        looked up in it)."""
        mask, all_through = self._masked(table, wanted)
        return None if all_through else mask

    def _mask(self, table: str, wanted: RequestFilter) -> np.ndarray:
        return self._masked(table, wanted)[0]

    def _masked(self, table: str, wanted: RequestFilter) -> tuple[np.ndarray, bool]:
        key = (table, wanted)
        found = self._masks.get(key)
        if found is None:
            mask = (
                wanted.vectors_mask(self.vector_rows)
                if table == "vectors"
                else wanted.memories_mask(self.memories)
            )
            if len(self._masks) > 64:
                self._masks.clear()
            found = self._masks[key] = (mask, bool(mask.all()))
        return found


#: What search reads of a hot memory to rank and show it.
ROW_COLUMNS = (
    "memory_id",
    "kind",
    "content",
    "session_id",
    "occurred_at",
    "ingested_at",
    "speaker",
    "role",
    "source_event_ids",
    "entity_ids",
    "importance",
    "confidence",
)
