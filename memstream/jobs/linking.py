"""The look-up behind a session's links: each statement's earlier neighbours by vector.

Consolidation (:class:`memstream.jobs.lifecycle.LifecycleJobs`) hands this the turns of
a closed session; for each statement of the user it reads the statement's own vector
(the turn said alone, ``<memory id>+p0``, when it was pooled with earlier turns), asks
the store for the user's nearest earlier episode vectors by the same model, and lets
:func:`memstream.projections.links.derive_links` choose the links. A statement whose
vector is not written yet gets none. Reads only; the links go into the consolidation's
event.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np

from memstream.events.vocabulary import MemoryLink, TokenUsage
from memstream.policies.linking import LINKS_PER_STATEMENT, MIN_LINK_STRENGTH
from memstream.projections.links import Candidate, Statement, derive_links
from memstream.storage import filters
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.lance.tables import MEMORIES, VECTORS
from memstream.text.passages import passage_id, passage_of

__all__ = ["SCAN_AT_MOST", "NearestLinker"]

#: Up to this many earlier episode vectors of a user (about 8 MB at 384 dimensions)
#: are read at once; past it, each statement asks the store's nearest-vector query.
SCAN_AT_MOST = 5_000

_CANDIDATE_COLUMNS = ["memory_id", "session_id", "occurred_at", "role", "content", "speaker"]


class NearestLinker:
    """Links each statement of a session to the user's earlier statements nearest it.

    Args:
        store: the projections to read.
        model: the embedding model whose vectors are compared.
        per_statement, min_strength: see :func:`derive_links`.
        scan_at_most: a user with at most this many earlier episode vectors has them
            read at once and compared in memory; a bigger one is asked of the store's
            nearest-vector query, statement by statement.
    """

    name = "nearest"

    def __init__(
        self,
        store: ProjectionStore,
        model: str,
        per_statement: int = LINKS_PER_STATEMENT,
        min_strength: float = MIN_LINK_STRENGTH,
        scan_at_most: int = SCAN_AT_MOST,
    ) -> None:
        self.store = store
        self.model = model
        self.per_statement = per_statement
        self.min_strength = min_strength
        self.scan_at_most = scan_at_most

    def links(
        self, user_id: str, episodes: Sequence[Mapping[str, Any]]
    ) -> tuple[list[MemoryLink], TokenUsage | None]:
        """The links of the user's statements among ``episodes`` (a session's turns); no
        model is asked, so nothing was spent."""
        if self.per_statement <= 0:
            return [], None
        return self.chosen(*self.candidates(user_id, episodes, self.per_statement)), None

    def chosen(
        self, statements: Sequence[Statement], candidates: Mapping[str, Sequence[Candidate]]
    ) -> list[MemoryLink]:
        """The links the local rule chooses among ``candidates`` (:func:`derive_links`)."""
        return derive_links(statements, candidates, self.per_statement, self.min_strength)

    def candidates(
        self, user_id: str, episodes: Sequence[Mapping[str, Any]], wanted: int
    ) -> tuple[list[Statement], dict[str, list[Candidate]]]:
        """The user's statements among ``episodes``, and for each (by memory id) the
        earlier episodes nearest it, enough to choose ``wanted`` among after the rules
        leave some out (a statement without a vector yet has none)."""
        statements = [
            Statement(e["memory_id"], e["session_id"], e["occurred_at"], e["content"], e["speaker"])
            for e in episodes
            if e["role"] == "user" and e["occurred_at"] is not None
        ]
        if not statements:
            return [], {}
        vectors = self._own_vectors([s.memory_id for s in statements])
        depth = 4 * wanted + 8  # room for the rows the rules leave out after
        earlier = self._earlier_vectors(user_id, max(s.occurred_at for s in statements))
        nearest: dict[str, dict[str, float]] = {}
        for statement in statements:
            vector = vectors.get(statement.memory_id)
            if vector is None:
                continue
            nearest[statement.memory_id] = (
                self._nearest(user_id, statement, vector, depth)
                if earlier is None
                else _nearest_among(earlier, statement.occurred_at, vector, depth)
            )
        found = sorted({m for near in nearest.values() for m in near})
        rows = {r["memory_id"]: r for r in self.store.by_ids(MEMORIES, found, _CANDIDATE_COLUMNS)}
        candidates = {
            memory_id: [
                Candidate(
                    m,
                    rows[m]["session_id"],
                    rows[m]["occurred_at"],
                    rows[m]["role"],
                    rows[m]["content"],
                    similarity,
                    rows[m]["speaker"],
                )
                for m, similarity in near.items()
                if m in rows and rows[m]["occurred_at"] is not None
            ]
            for memory_id, near in nearest.items()
        }
        return statements, candidates

    def _own_vectors(self, memory_ids: list[str]) -> dict[str, list[float]]:
        """Each memory's vector as said alone: its ``+p0`` row, else its own."""
        alone = {passage_id(m, 0): m for m in memory_ids}
        rows = self.store.by_ids(
            VECTORS,
            [*memory_ids, *alone],
            ["memory_id", "vector"],
            filters.equals("model", self.model),
        )
        vectors: dict[str, list[float]] = {}
        for row in sorted(rows, key=lambda r: r["memory_id"] in alone):  # +p0 rows last
            vectors[alone.get(row["memory_id"], row["memory_id"])] = row["vector"]
        return vectors

    def _earlier_vectors(self, user_id: str, before: datetime) -> _Vectors | None:
        """The user's episode vectors from before ``before``, read at once when there
        are at most ``scan_at_most`` of them (one read instead of a query per
        statement); None when there are more."""
        where = self._episodes_before(user_id, before)
        if self.store.count(VECTORS, where) > self.scan_at_most:
            return None
        rows = self.store.scan(VECTORS, ["memory_id", "vector", "occurred_at"], where)
        matrix = (
            np.asarray(rows.column("vector").to_pylist(), dtype=np.float32)
            if rows.num_rows
            else np.zeros((0, 1), dtype=np.float32)
        )
        norms = np.linalg.norm(matrix, axis=1) if rows.num_rows else np.zeros(0)
        return _Vectors(
            rows.column("memory_id").to_pylist(),
            matrix / np.maximum(norms, 1e-12)[:, None],
            rows.column("occurred_at").to_pylist(),
        )

    def _episodes_before(self, user_id: str, before: datetime) -> str:
        """The filter of the user's episode vectors by this model from before ``before``."""
        return filters.all_of(
            filters.equals("user_id", user_id),
            filters.equals("model", self.model),
            filters.equals("kind", "episode"),
            filters.before("occurred_at", before),
        )

    def _nearest(
        self, user_id: str, statement: Statement, vector: list[float], depth: int
    ) -> dict[str, float]:
        """The user's earlier episodes nearest ``statement``: cosine by memory id (the
        nearest of a memory's rows)."""
        where = self._episodes_before(user_id, statement.occurred_at)
        near: dict[str, float] = {}
        for vector_id, distance in self.store.queries.nearest(vector, where, depth):
            memory_id, _ = passage_of(vector_id)
            near[memory_id] = max(near.get(memory_id, -1.0), 1.0 - distance)
        return near


@dataclass(frozen=True)
class _Vectors:
    """A user's vector rows: their ids, unit vectors and times, in one order."""

    ids: list[str]
    unit: np.ndarray
    times: list[datetime]


def _nearest_among(
    earlier: _Vectors, before: datetime, vector: list[float], depth: int
) -> dict[str, float]:
    """The ``depth`` rows of ``earlier`` from before ``before`` nearest ``vector``:
    cosine by memory id (the nearest of a memory's rows), as the store's query finds."""
    if not earlier.ids:
        return {}
    query = np.asarray(vector, dtype=np.float32)
    cosines = earlier.unit @ (query / max(float(np.linalg.norm(query)), 1e-12))
    shown = np.flatnonzero([t < before for t in earlier.times])
    best = shown[np.argsort(-cosines[shown], kind="stable")[:depth]]
    near: dict[str, float] = {}
    for row in best:
        memory_id, _ = passage_of(earlier.ids[row])
        near[memory_id] = max(near.get(memory_id, -1.0), float(cosines[row]))
    return near
