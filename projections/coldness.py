"""Which memories are cold enough to archive (pure; time is passed in).

Two ways of deciding, either of which selects a memory:

- rules: older than ``min_age_days`` with importance at most ``max_importance`` and at
  most ``max_recent_accesses`` accesses in the last ``access_window_days`` (the
  projection keeps the count and the last access, so a memory last accessed before the
  window counts zero accesses in it); or older than ``force_archive_age_days``
  whatever its importance;
- hotness: ``sigmoid(log1p(access_count)) * exp(-ln(2) * age_days / half_life_days)``
  under ``hotness_threshold``, never for memories younger than ``hotness_min_age_days``.

Confirmed (protected) memories, and memories already hidden (superseded, forgotten,
pruned), are never archived automatically.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

__all__ = ["ColdCandidate", "ColdDecision", "ColdPolicy", "cold_decisions", "hotness"]

_DAY = 86400.0


@dataclass(frozen=True)
class ColdPolicy:
    """The archiving criteria (from settings)."""

    min_age_days: float = 90.0
    max_importance: float = 0.3
    max_recent_accesses: int = 2
    access_window_days: float = 90.0
    force_archive_age_days: float = 365.0
    half_life_days: float = 7.0
    hotness_threshold: float = 0.1
    hotness_min_age_days: float = 7.0


@dataclass(frozen=True)
class ColdCandidate:
    """What the criteria read of a memory."""

    memory_id: str
    user_id: str
    occurred_at: datetime
    importance: float
    access_count: int = 0
    last_accessed: datetime | None = None
    protected: bool = False
    hidden: bool = False


@dataclass(frozen=True)
class ColdDecision:
    """A memory selected for archiving, with its hotness and the rule that chose it."""

    memory_id: str
    user_id: str
    age_days: float
    hotness: float
    reason: str


def hotness(access_count: int, age_days: float, half_life_days: float) -> float:
    """``sigmoid(log1p(access_count)) * exp(-ln(2) * age_days / half_life_days)``."""
    usage = 1.0 / (1.0 + math.exp(-math.log1p(max(0, access_count))))
    return usage * math.exp(-math.log(2) * max(0.0, age_days) / half_life_days)


def _reason(c: ColdCandidate, age: float, heat: float, now: datetime, p: ColdPolicy) -> str | None:
    if age > p.force_archive_age_days:
        return f"older than {p.force_archive_age_days:g} days"
    recent = c.access_count
    if c.last_accessed is None or (now - c.last_accessed).total_seconds() / _DAY > (
        p.access_window_days
    ):
        recent = 0
    old = age > p.min_age_days and c.importance <= p.max_importance
    if old and recent <= p.max_recent_accesses:
        return (
            f"older than {p.min_age_days:g} days, importance {c.importance:.2f}, "
            f"{recent} recent accesses"
        )
    if age >= p.hotness_min_age_days and heat < p.hotness_threshold:
        return f"hotness {heat:.4f} under {p.hotness_threshold:g}"
    return None


def cold_decisions(
    candidates: Iterable[ColdCandidate], now: datetime, policy: ColdPolicy
) -> list[ColdDecision]:
    """The candidates to archive as of ``now``, oldest first."""
    out = []
    for c in candidates:
        if c.protected or c.hidden:
            continue
        age = max(0.0, (now - c.occurred_at).total_seconds() / _DAY)
        heat = hotness(c.access_count, age, policy.half_life_days)
        reason = _reason(c, age, heat, now, policy)
        if reason is not None:
            out.append(ColdDecision(c.memory_id, c.user_id, age, heat, reason))
    out.sort(key=lambda d: (-d.age_days, d.memory_id))
    return out
