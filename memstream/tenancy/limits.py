"""Per-key rate limits: a token bucket per (key, kind of request), time passed in.

A key may publish ``rate`` events (and ``rate`` characters of their content) a second
and search ``rate`` times a second, with bursts of ``burst``; beyond, the request is
refused at once with how long to wait (429 and ``Retry-After``), and nothing of it
reaches the broker or the store, so a throttled key slows no one else.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

__all__ = ["Buckets", "Limit", "RateLimited"]


class RateLimited(Exception):
    """A request over its key's rate: ``retry_after`` seconds until it would pass."""

    def __init__(self, kind: str, rate: float, retry_after: int, unit: str = "times") -> None:
        super().__init__(
            f"this key may {kind} at most {rate:,g} {unit} a second; try again in {retry_after} s"
        )
        self.retry_after = retry_after


@dataclass(frozen=True)
class Limit:
    """``rate`` units a second, ``burst`` at once (0: no limit); a refusal says the key
    may ``action`` (the bucket's kind by default) at most ``rate`` ``unit`` a second."""

    rate: float
    burst: float
    unit: str = "times"
    action: str | None = None

    @property
    def unlimited(self) -> bool:
        return self.rate <= 0


@dataclass
class _Bucket:
    tokens: float
    at: float


@dataclass
class Buckets:
    """The buckets of every (key, kind) seen, filled at each limit's rate."""

    limits: dict[str, Limit]
    _buckets: dict[tuple[str, str], _Bucket] = field(default_factory=dict)

    def take(self, key_id: str, kind: str, units: float, now: float) -> None:
        """Take ``units`` from ``key_id``'s ``kind`` bucket at monotonic time ``now``, or
        RateLimited (taking nothing). A request larger than the burst is let through
        when the bucket is full (it would never pass otherwise) and empties it."""
        limit = self.limits.get(kind)
        if limit is None or limit.unlimited:
            return
        bucket = self._buckets.get((key_id, kind))
        if bucket is None:
            bucket = self._buckets[(key_id, kind)] = _Bucket(limit.burst, now)
        bucket.tokens = min(limit.burst, bucket.tokens + (now - bucket.at) * limit.rate)
        bucket.at = now
        needed = min(units, limit.burst)
        if bucket.tokens < needed:
            wait = (needed - bucket.tokens) / limit.rate
            retry = max(1, math.ceil(wait))
            raise RateLimited(limit.action or kind, limit.rate, retry, limit.unit)
        bucket.tokens -= units
