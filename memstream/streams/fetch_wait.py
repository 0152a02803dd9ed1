"""How long the projection consumer's fetches wait at the broker: short while records
flow, longer once the log has been quiet for a while (pure; time passed in).

Tansu answers a fetch only when its wait runs out, even when records arrived meanwhile,
so the wait is the latency a record can pay before the worker sees it. 50 ms keeps that
small while a user is active; but a deployment nobody writes to then asks 20 times a
second, and answering costs the broker and the worker about 7% of a core between them
(measured here: 3.1 s of CPU per 30 s idle at 50 ms, 1.2 s at 500 ms). After
``quiet_seconds`` without a record the wait grows to ``idle_ms``: the first record after
a quiet spell pays at most that, every later one the short wait again.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ACTIVE_MS", "IDLE_MS", "QUIET_SECONDS", "FetchWait"]

#: The wait while records flow (and for ``QUIET_SECONDS`` after the last).
ACTIVE_MS = 50
#: The wait once the log has been quiet: the most a first record after a lull waits.
IDLE_MS = 250
#: How long without a record before the wait grows.
QUIET_SECONDS = 10.0


@dataclass
class FetchWait:
    """The fetch wait to ask for, given when records last arrived."""

    active_ms: int = ACTIVE_MS
    idle_ms: int = IDLE_MS
    quiet_seconds: float = QUIET_SECONDS
    #: When the last records arrived (the clock of ``after``); None: none yet.
    last_record_at: float | None = None

    def after(self, fetched: int, now: float) -> int:
        """The wait for the next fetch, after one that returned ``fetched`` records."""
        if fetched or self.last_record_at is None:
            self.last_record_at = now
        if now - self.last_record_at >= self.quiet_seconds:
            return self.idle_ms
        return self.active_ms
