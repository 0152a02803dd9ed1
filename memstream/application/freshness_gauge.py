"""What a reading process knows of how fresh its reads are (:class:`FreshnessGauge`),
so that every search, context block and list can say it at almost no cost.

A server reads through views of the tables at most ``stale_seconds`` old (LanceDB's
read consistency interval: a view older than that asks for the table's newest version
before a read). The worker commits its checkpoints after the rows they cover, so
checkpoints read at time *t* as of the newest version are reflected by every read that
starts at *t* + ``stale_seconds`` or later; checkpoints read just before every table was
brought to its newest version are reflected at once. The gauge keeps such samples, and:

- while reads come in, a sample is taken beside them (in the background) every half
  ``stale_seconds``, so a read is reflected by a sample at most about 1.5 of those old;
- the pending writes are counted from the newest sample (what the worker has applied,
  whether or not a read's views hold it yet); after a pause (no sample younger than
  :data:`SAMPLE_KEPT_SECONDS`), the read itself reads the checkpoints first (one small
  table, not every table: on an object store a refresh of every table costs seconds),
  and reports as its position the newest sample it is known to reflect, however old, so
  a position is never claimed that a read may not hold;
- the log's ends (what the pending writes are counted against) are asked of the broker
  in the background, at most every :data:`ENDS_EVERY_SECONDS` (backing off to
  :data:`ENDS_BACKOFF_SECONDS` while it does not answer); until the first answer, and
  while the broker does not answer, pending writes are unknown (None);
- a user's count of memories without a vector is kept :data:`VECTORS_FRESH_SECONDS`,
  counted again in the background while it is younger than
  :data:`VECTORS_KEPT_SECONDS`, and by the read itself past that.

The gauge holds state and decides; the reads do the I/O
(:mod:`memstream.application.reading`)."""

from __future__ import annotations

import math
from collections import OrderedDict, deque
from collections.abc import Mapping
from dataclasses import dataclass

from memstream.storage.log_records import Checkpoints

__all__ = [
    "ENDS_BACKOFF_SECONDS",
    "ENDS_EVERY_SECONDS",
    "SAMPLE_KEPT_SECONDS",
    "VECTORS_FRESH_SECONDS",
    "VECTORS_KEPT_SECONDS",
    "FreshnessGauge",
    "LogEnds",
]

#: a read whose newest reflected sample is older than this takes one itself
SAMPLE_KEPT_SECONDS = 2.0
#: the log's ends are asked of the broker at most this often
ENDS_EVERY_SECONDS = 2.0
#: ... and, while it does not answer, at most this seldom
ENDS_BACKOFF_SECONDS = 60.0
#: a user's count of memories without a vector is used as is while younger than this
VECTORS_FRESH_SECONDS = 1.0
#: ... counted again in the background while younger than this, by the read past it
VECTORS_KEPT_SECONDS = 10.0
#: users whose counts are kept (the least recently read are dropped past this)
USERS_KEPT = 4096


@dataclass(frozen=True)
class LogEnds:
    """The log's end offset of every partition of the projected topics, and its epoch,
    as the broker answered at ``taken`` (monotonic seconds)."""

    taken: float
    ends: Mapping[tuple[str, int], int]
    epoch: str | None


@dataclass(frozen=True)
class _Sample:
    taken: float  #: when the checkpoints were read (monotonic seconds)
    reflected_from: float  #: reads starting then or later reflect them
    checkpoints: Checkpoints


class FreshnessGauge:
    """Samples of the worker's checkpoints and the log's ends, and users' counts of
    memories without a vector (see the module docstring). ``stale_seconds`` is how old
    the process's views may be; None: they are never brought up to date by themselves
    (only a sample taken with a refresh counts)."""

    def __init__(self, stale_seconds: float | None) -> None:
        self._stale = stale_seconds
        self._samples: deque[_Sample] = deque(maxlen=8)
        self._ends: LogEnds | None = None
        self._failed: tuple[float, float] | None = None  # (when, how long to wait)
        self._vectors: OrderedDict[str, tuple[float, int]] = OrderedDict()
        self._started: set[str] = set()

    # -- the worker's checkpoints -------------------------------------------------

    def reflected(self, now: float) -> Checkpoints | None:
        """The newest checkpoints every read starting at ``now`` reflects, however old
        (a lower bound holds forever; None: none known yet)."""
        for sample in reversed(self._samples):
            if sample.reflected_from <= now:
                return sample.checkpoints
        return None

    def applied(self, now: float) -> Checkpoints | None:
        """The newest checkpoints read, if within :data:`SAMPLE_KEPT_SECONDS` (what the
        worker has applied, to count the pending writes by; None: the read must take a
        sample)."""
        if self._samples and now - self._samples[-1].taken <= SAMPLE_KEPT_SECONDS:
            return self._samples[-1].checkpoints
        return None

    @property
    def views_refresh(self) -> bool:
        """Whether the process's views are brought up to date by themselves (else only a
        sample taken with a refresh tells what a read reflects)."""
        return self._stale is not None

    def sample_due(self, now: float) -> bool:
        """Whether a background sample should be taken now (none is under way, none
        was taken in the last half of ``stale_seconds``, and views refresh by
        themselves)."""
        if self._stale is None or "checkpoints" in self._started:
            return False
        newest = self._samples[-1].taken if self._samples else -math.inf
        return now - newest >= self._stale / 2

    def sampled(self, taken: float, checkpoints: Checkpoints, *, refreshed: bool) -> None:
        """Checkpoints read (as of their newest version) at ``taken``; ``refreshed``:
        every table was then brought to its newest version, so every later read reflects
        them at once."""
        if refreshed:
            reflected_from = taken
        elif self._stale is None:
            return  # views that never move by themselves reflect nothing read later
        else:
            reflected_from = taken + self._stale
        # what was reflected by then still is: a read of older checkpoints that ends
        # late (two reads at once) never takes a partition's position back
        merged = dict(self.reflected(reflected_from) or {})
        for key, at in checkpoints.items():
            known = merged.get(key)
            if known is None or (at.log_epoch, at.offset) > (known.log_epoch, known.offset):
                merged[key] = at
        self._samples.append(_Sample(taken, reflected_from, merged))

    # -- the log's ends ----------------------------------------------------------

    def ends(self) -> LogEnds | None:
        """The log's ends last answered (None: not known yet)."""
        return self._ends

    def ends_due(self, now: float) -> bool:
        """Whether the broker should be asked for the log's ends now (after it did not
        answer, at most every :data:`ENDS_EVERY_SECONDS`, doubled at each failure up to
        :data:`ENDS_BACKOFF_SECONDS`)."""
        if "ends" in self._started:
            return False
        if self._failed is not None:
            failed_at, wait = self._failed
            return now - failed_at >= wait
        return self._ends is None or now - self._ends.taken >= ENDS_EVERY_SECONDS

    def ended(self, found: LogEnds | None, now: float) -> None:
        """The broker answered with ``found`` at ``now`` (None: it did not answer; the
        pending writes are unknown until it does)."""
        self._ends = found
        if found is not None:
            self._failed = None
        else:
            wait = ENDS_EVERY_SECONDS if self._failed is None else 2 * self._failed[1]
            self._failed = (now, min(wait, ENDS_BACKOFF_SECONDS))

    # -- memories without a vector ------------------------------------------------

    def pending_vectors(self, user_id: str, now: float) -> tuple[int | None, bool]:
        """A user's count of memories without a vector that may be used at ``now``
        (None: the read must count), and whether to count again in the background."""
        kept = self._vectors.get(user_id)
        if kept is None or now - kept[0] > VECTORS_KEPT_SECONDS:
            return None, False
        self._vectors.move_to_end(user_id)
        stale = now - kept[0] > VECTORS_FRESH_SECONDS
        return kept[1], stale and f"vectors:{user_id}" not in self._started

    def counted(self, user_id: str, taken: float, pending: int) -> None:
        """``user_id`` had ``pending`` memories without a vector at ``taken``."""
        kept = self._vectors.get(user_id)
        if kept is None or kept[0] <= taken:
            self._vectors[user_id] = (taken, pending)
            self._vectors.move_to_end(user_id)
        while len(self._vectors) > USERS_KEPT:
            self._vectors.popitem(last=False)

    # -- background work -----------------------------------------------------------

    def start(self, work: str) -> bool:
        """Mark ``work`` ("checkpoints", "ends", "vectors:<user>") under way; False if
        it already was."""
        if work in self._started:
            return False
        self._started.add(work)
        return True

    def finish(self, work: str) -> None:
        """``work`` ended (done or failed)."""
        self._started.discard(work)
