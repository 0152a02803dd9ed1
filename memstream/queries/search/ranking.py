"""Ranking, as pure functions: how the retrievers' lists are fused (weighted reciprocal
rank fusion) and how a fused score is adjusted by recency, importance, confidence,
access and time. :mod:`memstream.queries.search.searcher` gathers the lists and calls these."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from memstream.events.vocabulary import DERIVED_KINDS
from memstream.policies.ranking_weights import RankingWeights
from memstream.queries.search.request import Intent
from memstream.text.time_phrases import find_spans

__all__ = [
    "adjusted",
    "adjustment_bound",
    "adjustment_terms",
    "fuse",
    "restated_facts",
    "with_unembedded",
    "without_restatements",
]


def fuse(lists: Sequence[tuple[float, Sequence[str]]], rrf_k: float) -> dict[str, float]:
    """Weighted reciprocal rank fusion: ``sum(weight / (rrf_k + rank))`` per id."""
    scores: dict[str, float] = {}
    for weight, ids in lists:
        for rank, memory_id in enumerate(ids, start=1):
            scores[memory_id] = scores.get(memory_id, 0.0) + weight / (rrf_k + rank)
    return scores


def with_unembedded(
    fused: dict[str, float],
    text_ids: Sequence[str],
    unembedded: Callable[[str], bool],
    weight: float,
    rrf_k: float,
) -> dict[str, float]:
    """``fused`` with the vector list's share, at its full-text rank, for each memory
    the full-text list holds that has no vector yet (``unembedded``): a memory whose
    vector is still being computed ranks as near as its words say, not below the
    memories that only the vector list brought (a message holding the query's rare word,
    just written, was ranked under four whose cosine to the query was 0.03-0.06)."""
    scores = dict(fused)
    for rank, memory_id in enumerate(dict.fromkeys(text_ids), start=1):
        if memory_id in scores and unembedded(memory_id):
            scores[memory_id] += weight / (rrf_k + rank)
    return scores


def adjusted(
    score: float,
    row: dict[str, Any],
    *,
    now: datetime,
    weights: RankingWeights,
    intent: Intent,
    access_count: int,
    time_range: tuple[datetime, datetime] | None,
    speaker: str | None = None,
) -> float:
    """A fused score after recency, importance, confidence, access, time and speaker
    bonuses (``speaker``: the one the query names, if any): the score times one plus
    each of :func:`adjustment_terms`, times the memory's confidence. Written out rather
    than summing that function's dictionary: this runs for every candidate of every
    search (tests/unit/test_ranking.py holds the two to one answer)."""
    factor = 1.0
    occurred = row.get("occurred_at")
    if weights.recency and occurred is not None:
        age_days = max((now - occurred).total_seconds() / 86400, 0.0)
        factor += weights.recency * math.exp(-age_days / weights.recency_half_life_days)
    importance = row.get("importance")
    factor += weights.importance * (0.5 if importance is None else float(importance))
    factor += weights.access * math.log1p(access_count)
    if (
        intent == "when"
        and occurred is not None
        and weights.dated_when > 0
        and find_spans(row["content"], occurred)
    ):
        factor += weights.dated_when
    if (
        time_range is not None
        and occurred is not None
        and time_range[0] <= occurred < time_range[1]
    ):
        factor += weights.time_phrase
    if speaker is not None and row.get("speaker") == speaker:
        factor += weights.speaker
    confidence = row.get("confidence")
    return score * factor * (1.0 if confidence is None else float(confidence))


def adjustment_terms(
    row: dict[str, Any],
    *,
    now: datetime,
    weights: RankingWeights,
    intent: Intent,
    access_count: int,
    time_range: tuple[datetime, datetime] | None,
    speaker: str | None = None,
) -> dict[str, float]:
    """Each bonus :func:`adjusted` adds to a memory's factor, by name (those that apply):
    ``recency``, ``importance``, ``access``, ``dated_when`` (a "when" question and a
    memory that names a date), ``time_phrase`` (the memory happened in the time the
    query names) and ``speaker`` (said by the one the query names)."""
    terms: dict[str, float] = {}
    occurred = row.get("occurred_at")
    if weights.recency and occurred is not None:
        age_days = max((now - occurred).total_seconds() / 86400, 0.0)
        terms["recency"] = weights.recency * math.exp(-age_days / weights.recency_half_life_days)
    importance = row.get("importance")
    terms["importance"] = weights.importance * (0.5 if importance is None else float(importance))
    if access_count:
        terms["access"] = weights.access * math.log1p(access_count)
    if (
        intent == "when"
        and occurred is not None
        and weights.dated_when > 0
        and find_spans(row["content"], occurred)
    ):
        terms["dated_when"] = weights.dated_when
    if (
        time_range is not None
        and occurred is not None
        and time_range[0] <= occurred < time_range[1]
    ):
        terms["time_phrase"] = weights.time_phrase
    if speaker is not None and row.get("speaker") == speaker:
        terms["speaker"] = weights.speaker
    return terms


def adjustment_bound(
    weights: RankingWeights,
    intent: Intent,
    most_accessed: int,
    time_range: bool,
    speaker: bool,
) -> float:
    """The most :func:`adjusted` can multiply a fused score by, for a query of
    ``intent`` (with a time phrase, naming a speaker, as told) over memories shown at
    most ``most_accessed`` times: every bonus at its most, importance and confidence 1
    (their largest values); a weight below 0 counts as 0, its bonus at its most."""
    factor = 1.0 + max(weights.recency, 0.0) + max(weights.importance, 0.0)
    factor += max(weights.access, 0.0) * math.log1p(most_accessed)
    if intent == "when":
        factor += max(weights.dated_when, 0.0)
    if time_range:
        factor += max(weights.time_phrase, 0.0)
    if speaker:
        factor += max(weights.speaker, 0.0)
    return factor


def without_restatements(ranked: Sequence[tuple[str, str, Sequence[str]]]) -> list[str]:
    """The ids of ``ranked`` ((memory id, kind, source event ids), best first) less the
    memories that say again what a better one says: a turn that a fact above was
    derived from, and a fact whose turns are all shown above. Two facts from one turn
    say different things: both stay."""
    shown: set[str] = set()  # turns an episode above says verbatim
    stated: set[str] = set()  # turns a fact above was derived from
    kept = []
    for memory_id, kind, sources in ranked:
        turns = set(sources)
        if turns and kind == "episode" and turns <= stated:
            continue
        if turns and kind in DERIVED_KINDS and turns <= shown:
            continue
        kept.append(memory_id)
        if kind == "episode":
            shown |= turns
        elif kind in DERIVED_KINDS:
            stated |= turns
    return kept


def restated_facts(ranked: Sequence[tuple[str, str, Sequence[str]]]) -> list[str]:
    """The ids of the facts of ``ranked`` (as :func:`without_restatements` takes it)
    that it leaves out, best first: those whose turns are all shown verbatim above.
    A result list need not say them twice; a context block states those that resolve
    a date their turn only implied ("last week")."""
    kept = set(without_restatements(ranked))
    return [m for m, kind, _ in ranked if kind in DERIVED_KINDS and m not in kept]
