"""Forgetting curves: how confidence decays with disuse, and what gets pruned (pure).

A memory not used for ``days`` keeps ``confidence * exp(-rate * days^0.8)`` of the
confidence it was written with (a stretched Ebbinghaus curve: steep at first, then
slow), plus a reinforcement of ``0.05 * ln(1 + access_count / 20)`` for memories that
searches keep returning; the result is capped at 1. ``days`` counts from the last
access, or from when the memory occurred if it was never returned (a use recorded after
the job's time has not happened yet as of it). The value is always
computed from the written confidence, never from the last decayed one, so running the
job twice, or daily instead of weekly, gives the same numbers. Episodes do not decay
(they are the record); confirmed memories never decay; nor do stable facts
(:func:`is_stable_fact`: who someone is to the user, a name, where one is from or
lives, a birthday, an allergy, a diet), which hold until a newer fact supersedes them; superseded
and forgotten ones are history and are left alone. Under the prune threshold a memory
is soft-deleted.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from memstream.events.vocabulary import ConfidenceDecayed, ConfidenceUpdate, MemoryPruned
from memstream.policies.lifecycle import DEFAULT_DECAY_RATES, DEFAULT_PRUNE_THRESHOLD
from memstream.projections.memory_state import effective_confidence, is_hidden

__all__ = [
    "DEFAULT_DECAY_RATES",
    "DEFAULT_PRUNE_THRESHOLD",
    "DecayCandidate",
    "decay_decisions",
    "decayed_confidence",
    "is_stable_fact",
]

#: Decay rate per kind (per day^0.8). A fact untouched for 60 days keeps 59% (0.02).
_SECONDS_PER_DAY = 86_400.0

#: The attributes of facts that stay true until they are replaced: relations, names,
#: origins and homes, birthdays, allergies and diets.
STABLE_ATTRIBUTES = frozenset(
    {
        "name", "from", "lives_in", "birthday", "allergy", "diet",
        "wife", "husband", "partner", "boyfriend", "girlfriend", "fiance", "fiancee",
        "son", "daughter", "sister", "brother", "mom", "mother", "dad", "father",
        "grandma", "grandmother", "grandpa", "grandfather", "aunt", "uncle", "cousin",
        "niece", "nephew", "child", "children", "kids", "pet", "dog", "cat",
    }
)  # fmt: skip
#: What a fact without such an attribute says when it is of that kind.
_STABLE_CONTENT = re.compile(
    r"\b(?:allerg(?:y|ic|ies)|intoleran(?:t|ce)|birthday|born\s+(?:in|on)|"
    r"vegetarian|vegan|celiac|coeliac|diabetic|"
    r"(?:wife|husband|partner|son|daughter|sister|brother|mother|father|mom|dad)\s+is\s+"
    r"[A-Z])",
    re.IGNORECASE,
)


def decayed_confidence(confidence: float, rate: float, days: float, access_count: int) -> float:
    """``min(1, confidence * exp(-rate * days^0.8) + 0.05 * ln(1 + access_count / 20))``."""
    days = max(days, 0.0)
    value = confidence * math.exp(-rate * days**0.8)
    value += 0.05 * math.log1p(access_count / 20)
    return min(1.0, value)


@dataclass(frozen=True, slots=True)
class DecayCandidate:
    """A memory with what decay needs to know about it."""

    memory_id: str
    kind: str
    confidence: float
    occurred_at: datetime
    access_count: int
    last_accessed: datetime | None
    state: Mapping[str, Any] | None
    stable: bool = False


def is_stable_fact(kind: str, attribute: str | None, content: str) -> bool:
    """Whether a memory is a fact that stays true until replaced (see the module), or a
    standing instruction the user gave ("always include security advice")."""
    if kind == "procedure":
        return (attribute or "").startswith("instruction:")
    if kind != "fact":
        return False
    named = (attribute or "").split(":", 1)[0].lower()  # "sister:zoë": a sister's fact
    return named in STABLE_ATTRIBUTES or bool(_STABLE_CONTENT.search(content))


def decay_decisions(
    user_id: str,
    candidates: Iterable[DecayCandidate],
    now: datetime,
    rates: Mapping[str, float] = DEFAULT_DECAY_RATES,
    threshold: float = DEFAULT_PRUNE_THRESHOLD,
) -> tuple[ConfidenceDecayed | None, MemoryPruned | None]:
    """The new confidences of a user's memories as of ``now``, and those to prune."""
    updates: list[ConfidenceUpdate] = []
    pruned: list[str] = []
    for c in sorted(candidates, key=lambda c: c.memory_id):
        rate = rates.get(c.kind)
        state = c.state
        if rate is None or c.stable or is_hidden(state):
            continue
        if state and state["protected_at"] is not None:
            continue
        # a use recorded after ``now`` has not happened yet as of it
        used = c.last_accessed is not None and c.last_accessed <= now
        since = c.last_accessed if used and c.last_accessed is not None else c.occurred_at
        days = (now - since).total_seconds() / _SECONDS_PER_DAY
        value = decayed_confidence(c.confidence, rate, days, c.access_count if used else 0)
        if abs(value - effective_confidence(c.confidence, state)) > 1e-12:
            updates.append(ConfidenceUpdate(memory_id=c.memory_id, confidence=value))
        if value < threshold:
            pruned.append(c.memory_id)
    stamp = now.isoformat()
    decayed = (
        ConfidenceDecayed(
            event_id=f"decay|{user_id}|{stamp}", user_id=user_id, as_of=now, updates=updates
        )
        if updates
        else None
    )
    prune = (
        MemoryPruned(
            event_id=f"prune|{user_id}|{stamp}",
            user_id=user_id,
            as_of=now,
            threshold=threshold,
            memory_ids=pruned,
        )
        if pruned
        else None
    )
    return decayed, prune
