"""The whole path of one search, for a person tuning memory: what each retriever found
(rank and score, hot or archived), each candidate's fused score before and after the
session-neighbour spread and the links followed (and which candidate's link lifted it),
and after what the turns said (an assistant's reply handing
its score back to the user's statement, a user's question lowered), every adjustment
that multiplied it, the score it ended with,
and what became of it (returned at a rank, or left out: below k, hidden, under the
similarity floor, restating a better result, or not visible to the request).

A :class:`SearchTrace` is handed to :meth:`~memstream.queries.search.searcher.Searcher.search`,
which fills it as it goes; a search without one records nothing and costs nothing more.
A traced search scores every candidate (no early stop), which gives the same first ``k``
(see :func:`~memstream.queries.search.candidates.best_rows`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = ["OUTCOMES", "CandidateTrace", "Hit", "Outcome", "SearchTrace"]

Outcome = Literal[
    "returned", "below k", "hidden", "under the similarity floor", "restated", "not visible"
]
#: What each outcome means, in the words a console shows beside it.
OUTCOMES: dict[str, str] = {
    "returned": "in the results",
    "below k": "scored, but k better ones were returned",
    "hidden": "superseded or forgotten (include_history shows it)",
    "under the similarity floor": "less similar to the query than min_similarity",
    "restated": "says again what a better result says",
    "not visible": "outside the request's scope or filters (another project, kind, tag or time)",
}


@dataclass(frozen=True)
class Hit:
    """One retriever's finding: its rank (1 = best), its own score (BM25, cosine, or
    entities matched), and whether it came from the archive."""

    rank: int
    score: float | None
    archived: bool = False


@dataclass
class CandidateTrace:
    """One candidate's path through the ranking."""

    memory_id: str
    hits: dict[str, Hit] = field(default_factory=dict)
    fused: float = 0.0
    #: after the session-neighbour spread and the links followed
    spread: float = 0.0
    #: the better candidate whose link lifted it (None: no link did)
    linked_from: str | None = None
    #: after the reply hand-back and the question weight (the spread score when neither
    #: runs)
    said: float = 0.0
    adjustments: dict[str, float] = field(default_factory=dict)
    confidence: float | None = None
    score: float | None = None
    outcome: Outcome = "not visible"
    rank: int | None = None
    #: a few fields of the memory's row (kind, content, time, archived)
    row: dict[str, Any] = field(default_factory=dict)


@dataclass
class SearchTrace:
    """What one search did (see the module docstring); the searcher fills it."""

    candidates: dict[str, CandidateTrace] = field(default_factory=dict)
    #: the retrievers that ran, each with how many it found
    found: dict[str, int] = field(default_factory=dict)
    #: the time range a time phrase in the query named, and the speaker it named
    time_range: tuple[Any, Any] | None = None
    speaker: str | None = None

    def candidate(self, memory_id: str) -> CandidateTrace:
        known = self.candidates.get(memory_id)
        if known is None:
            known = self.candidates[memory_id] = CandidateTrace(memory_id)
        return known

    def retrieved(self, retriever: str, ranked: list[tuple[str, float | None, bool]]) -> None:
        """Record a retriever's list, best first: (memory id, score, archived)."""
        self.found[retriever] = len(ranked)
        for rank, (memory_id, score, archived) in enumerate(ranked, start=1):
            self.candidate(memory_id).hits.setdefault(retriever, Hit(rank, score, archived))

    def keep(self, k: int) -> None:
        """Only the first ``k`` returned (the search went deeper): the rest are below k."""
        for c in self.candidates.values():
            if c.outcome == "returned" and c.rank is not None and c.rank > k:
                c.outcome, c.rank = "below k", None

    def ordered(self) -> list[CandidateTrace]:
        """The candidates: returned ones by rank, then the rest by score, then fused."""

        def key(c: CandidateTrace) -> tuple[int, float, float, str]:
            return (
                c.rank if c.rank is not None else 1 << 30,
                -(c.score if c.score is not None else -1.0),
                -c.spread,
                c.memory_id,
            )

        return sorted(self.candidates.values(), key=key)
