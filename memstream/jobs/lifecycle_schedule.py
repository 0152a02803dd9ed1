"""When the worker's lifecycle jobs run: the state of the lifecycle timer, driven by a clock.

The timer (:mod:`memstream.runtime.lifecycle_timer`) asks this schedule at each tick whether to run
at all (ingest backlogged: wait, up to a limit), which session closures to leave alone
(published but not applied yet, or failed and backing off), and whether decay,
reflection and archival are due (on the leading worker only). It tells the schedule what
happened: closures published, closures failed, jobs run. Time is the clock's alone, so
a test moves it with :class:`memstream.testing.FakeClock`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

from memstream.clock import Clock, system_clock

__all__ = ["Cadence", "LifecycleSchedule", "PeriodicJob"]

PeriodicJob = Literal["decay", "reflect", "archive"]


@dataclass(frozen=True)
class Cadence:
    """How often things happen, in seconds.

    Attributes:
        tick: the timer's interval (the base of a failed closure's backoff).
        max_defer: the longest a tick waits while ingest is backlogged.
        decay, reflect, archive: the period of each job; decay and reflection run at the
            first tick, archival one period after the schedule starts.
        in_flight: how long a published closure is left alone while its event is on its
            way to the projector.
        max_backoff: the longest a failed closure waits before its next attempt.
    """

    tick: float
    max_defer: float
    decay: float
    reflect: float
    archive: float
    in_flight: float = 300.0
    max_backoff: float = 900.0


class LifecycleSchedule:
    """The lifecycle timer's memory: what is in flight, what failed, when jobs last ran."""

    def __init__(self, cadence: Cadence, clock: Clock = system_clock) -> None:
        self.cadence = cadence
        self._clock = clock
        started = clock()
        self._last_tick = started
        self._last_run: dict[PeriodicJob, datetime | None] = {
            "decay": None,
            "reflect": None,
            "archive": started,
        }
        self._in_flight: dict[str, datetime] = {}
        self._failures: dict[str, tuple[int, datetime]] = {}  # closure -> (attempts, retry at)

    def _since(self, moment: datetime) -> float:
        return (self._clock() - moment).total_seconds()

    def start_tick(self, backlogged: bool) -> bool:
        """Whether this tick runs: not while ingest is backlogged, unless it has waited
        ``max_defer`` seconds already. A tick that runs forgets old in-flight closures."""
        if backlogged and self._since(self._last_tick) < self.cadence.max_defer:
            return False
        self._last_tick = self._clock()
        expired = [
            k for k, at in self._in_flight.items() if self._since(at) > self.cadence.in_flight
        ]
        for key in expired:
            del self._in_flight[key]
        return True

    def skipped(self) -> frozenset[str]:
        """Closures to leave alone now: in flight, or failed and waiting to retry."""
        now = self._clock()
        waiting = {k for k, (_, retry_at) in self._failures.items() if retry_at > now}
        return frozenset(self._in_flight) | waiting

    def failed(self, closure: str) -> tuple[int, float]:
        """Record a failed closure; answers its attempts so far and the seconds until the
        next one (the tick interval doubled per attempt, at most ``max_backoff``)."""
        attempts = self._failures.get(closure, (0, self._clock()))[0] + 1
        delay = min(self.cadence.tick * 2**attempts, self.cadence.max_backoff)
        self._failures[closure] = (attempts, self._clock() + timedelta(seconds=delay))
        return attempts, delay

    def published(self, closure: str) -> None:
        """A closure's events are on their way: leave it alone for a while."""
        self._in_flight[closure] = self._clock()
        self._failures.pop(closure, None)

    def due(self, job: PeriodicJob, leader: bool) -> bool:
        """Whether ``job`` should run now (never where ``leader`` is False: a worker
        without partitions has no users to run it for)."""
        if not leader:
            return False
        last = self._last_run[job]
        period: float = getattr(self.cadence, job)
        return last is None or self._since(last) >= period

    def ran(self, job: PeriodicJob) -> None:
        """``job`` ran now (a failed run does not count: it is tried at the next tick)."""
        self._last_run[job] = self._clock()

    def times(self) -> dict[str, tuple[datetime | None, datetime]]:
        """When each job last ran (None: not yet) and when it is next due, consolidation
        (every tick) first."""
        tick = timedelta(seconds=self.cadence.tick)
        found: dict[str, tuple[datetime | None, datetime]] = {
            "consolidate": (self._last_tick, self._last_tick + tick)
        }
        jobs: tuple[PeriodicJob, ...] = ("decay", "reflect", "archive")
        for job in jobs:
            last = self._last_run[job]
            period = timedelta(seconds=getattr(self.cadence, job))
            found[job] = (last, (last + period) if last is not None else self._last_tick + tick)
        return found
