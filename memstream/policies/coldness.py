"""Which memories are cold enough to archive (pure; time is passed in).

Cold means unused, not old. A memory's idle time counts from its last use (a search
returned it) or, if it was never used, from when it happened. As of ``now``:

- a memory idle for ``idle_days`` is archived;
- unless it matters: importance at least ``keep_importance``, or used at least
  ``keep_accesses`` times; such a memory is archived once idle for ``long_idle_days``;
- whatever the rules leave, a user keeps at most ``hot_budget`` memories hot: beyond
  it, the least valuable (lowest :func:`hotness` times ``0.5 + importance``) of those
  idle for ``budget_min_idle_days`` are archived too.

Confirmed (protected) memories, and memories already hidden (superseded, forgotten,
pruned: history, not in the way of any search), are never archived automatically.
A use recorded after ``now`` has not happened yet as of ``now``: a job run for an
earlier time ignores it. Archiving loses nothing a search can find: the archive keeps
each memory's summary, compact vector and provenance, and search fuses it with the hot
tables (see :mod:`memstream.queries.search.searcher`).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime

__all__ = ["ColdCandidate", "ColdDecision", "ColdPolicy", "cold_decisions", "hotness"]

_DAY = 86400.0


@dataclass(frozen=True)
class ColdPolicy:
    """The archiving criteria (from settings)."""

    idle_days: float = 30.0
    keep_importance: float = 0.8
    keep_accesses: int = 5
    long_idle_days: float = 365.0
    hot_budget: int = 10_000
    budget_min_idle_days: float = 7.0
    half_life_days: float = 7.0

    @property
    def youngest_idle_days(self) -> float:
        """No rule archives a memory idle for less than this."""
        return min(self.idle_days, self.long_idle_days, self.budget_min_idle_days)


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
    """A memory selected for archiving: how long it went unused, its hotness, and the
    rule that chose it."""

    memory_id: str
    user_id: str
    idle_days: float
    hotness: float
    reason: str


def hotness(access_count: int, idle_days: float, half_life_days: float) -> float:
    """``sigmoid(log1p(access_count)) * exp(-ln(2) * idle_days / half_life_days)``: how
    much a memory is in use (orders archiving; no threshold)."""
    usage = 1.0 / (1.0 + math.exp(-math.log1p(max(0, access_count))))
    return usage * math.exp(-math.log(2) * max(0.0, idle_days) / half_life_days)


@dataclass(frozen=True)
class _Use:
    candidate: ColdCandidate
    idle: float
    accesses: int
    heat: float


def _use(c: ColdCandidate, now: datetime, p: ColdPolicy) -> _Use:
    """The candidate's idle days and uses as of ``now`` (later uses not yet made)."""
    used = c.last_accessed is not None and c.last_accessed <= now
    accesses = c.access_count if used else 0
    since = max(c.occurred_at, c.last_accessed) if used and c.last_accessed else c.occurred_at
    idle = max(0.0, (now - since).total_seconds() / _DAY)
    return _Use(c, idle, accesses, hotness(accesses, idle, p.half_life_days))


def _rule(u: _Use, p: ColdPolicy) -> str | None:
    matters = u.candidate.importance >= p.keep_importance or u.accesses >= p.keep_accesses
    limit = p.long_idle_days if matters else p.idle_days
    if u.idle < limit:
        return None
    why = "important or often used, " if matters else ""
    return (
        f"unused for {u.idle:.0f} days ({why}importance {u.candidate.importance:.2f}, "
        f"{u.accesses} uses; limit {limit:g} days)"
    )


def _coldest_first(u: _Use) -> tuple[float, float, str]:
    """Least valuable first: hotness weighed by importance (``0.5 + importance``)."""
    return (u.heat * (0.5 + u.candidate.importance), -u.idle, u.candidate.memory_id)


def cold_decisions(
    candidates: Iterable[ColdCandidate],
    now: datetime,
    policy: ColdPolicy,
    hot_counts: Mapping[str, int] | None = None,
) -> list[ColdDecision]:
    """The candidates to archive as of ``now``, coldest first.

    ``hot_counts`` (by user) is how many memories each user has hot, candidates or not:
    what the budget rule compares with ``hot_budget`` (without it, the budget is not
    applied).
    """
    chosen: list[ColdDecision] = []
    spare: dict[str, list[_Use]] = defaultdict(list)
    for c in candidates:
        if c.protected or c.hidden:
            continue
        u = _use(c, now, policy)
        reason = _rule(u, policy)
        if reason is not None:
            chosen.append(ColdDecision(c.memory_id, c.user_id, u.idle, u.heat, reason))
        elif u.idle >= policy.budget_min_idle_days:
            spare[c.user_id].append(u)
    if hot_counts is not None:
        leaving: dict[str, int] = defaultdict(int)
        for d in chosen:
            leaving[d.user_id] += 1
        for user, uses in spare.items():
            over = hot_counts.get(user, 0) - leaving[user] - policy.hot_budget
            uses.sort(key=_coldest_first)
            for u in uses[: max(0, over)]:
                chosen.append(
                    ColdDecision(
                        u.candidate.memory_id,
                        user,
                        u.idle,
                        u.heat,
                        f"over the hot budget of {policy.hot_budget}: hotness {u.heat:.4f}",
                    )
                )
    chosen.sort(key=lambda d: (d.hotness, -d.idle_days, d.memory_id))
    return chosen
