"""The knobs of ranking and their defaults, the one place those defaults are written: how
the retrievers' lists are fused and the fused scores adjusted (the settings take their
defaults from here; :mod:`memstream.queries.search.ranking` applies them)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["RankingWeights"]


@dataclass(frozen=True)
class RankingWeights:
    """How the retrievers' lists are fused and the fused scores adjusted.

    Attributes:
        full_text, vector, entity: weight of each retriever's list in the fusion.
        entity_max_share: entities in more of the user's memories than this share are
            not searched for (they match everything).
        rrf_k: the rank offset of reciprocal rank fusion (higher flattens the lists).
        candidates: how deep each retriever looks (at least ``k``).
        recency: weight of ``exp(-age / recency_half_life_days)`` (0 ignores age).
        importance: weight of the memory's importance (0..1).
        access: weight of ``log1p(access_count)``.
        dated_when: bonus for memories naming a date, on "when" questions.
        time_phrase: bonus for memories inside the time a query phrase names.
        speaker: bonus for memories said by the one speaker the query names.
        neighbour_share, neighbour_reach: each turn gets this share of the best fused
            score among the ``neighbour_reach`` turns before it in its session, and of
            the best among those after it (:mod:`memstream.queries.search.neighbours`).
        reply_share: an assistant's reply found hands this share of its score to the
            user's statement just before it (the statement gets at least that much).
        restatement_weight: an assistant's short reply to a user's statement (a
            restatement of it) is ranked at this share of its score, and the statement
            gets all of it.
        question_weight: a user's question found is ranked at this share of its score.
        link_share, link_reach: each of the ``link_reach`` best candidates gives this
            share of its score, times the link's strength, to each earlier memory it
            links to (:mod:`memstream.queries.search.linked`).
        exact_vector_search_below: users with fewer vectors are searched exactly; above,
            the ANN index (when the table has one) is used, re-ranked exactly.
    """

    full_text: float = 1.0
    vector: float = 1.0
    entity: float = 0.3
    entity_max_share: float = 0.05
    rrf_k: float = 5.0
    candidates: int = 50
    recency: float = 0.0
    recency_half_life_days: float = 30.0
    importance: float = 0.1
    access: float = 0.02
    dated_when: float = 0.1
    time_phrase: float = 0.5
    speaker: float = 0.3
    neighbour_share: float = 0.3
    neighbour_reach: int = 2
    reply_share: float = 0.95
    restatement_weight: float = 0.5
    question_weight: float = 0.4
    link_share: float = 1.0
    link_reach: int = 1
    exact_vector_search_below: int = 50_000
