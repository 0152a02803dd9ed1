"""Erasure: a user's rows of every table, their vectors, archived originals and documents
dropped for good, while no other write of this process runs beside it."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from memstream.events.vocabulary import UserErased
from memstream.streams.projector.core import (
    WINDOW_GRACE_SECONDS,
    ProjectorCore,
)
from memstream.streams.projector.upkeep import LEASE_RENEW_SECONDS, renewing

log = logging.getLogger(__name__)

__all__ = ["Erasure"]


class Erasure(ProjectorCore):
    """The projector's erasure of a user (see the module docstring)."""

    def _erase(self, erasure: UserErased) -> None:
        """Drop everything of the user: the projections' rows (and their bytes in the
        files) and the cold store's originals; then the erasure is finished."""
        user_id = erasure.user_id
        self._guard()
        if self.keys is not None:
            self.keys.forget(user_id)
        self._flush()  # the deferred session rows of the user go with the rest
        with self.erasing, self._compacting, self._rewriting_alone():
            removed = self.store.erase_user(user_id)
            originals = self._cold.erase_user(user_id) if self._cold is not None else 0
            if self._originals is not None:
                originals += self._originals.erase_user(user_id)
        if self.keys is not None:
            self.keys.keys.finish(user_id, {**removed, "cold store and documents": originals})
        log.info(
            "erased a user: %d rows (%s), %d cold files and documents",
            sum(removed.values()),
            ", ".join(f"{name} {count}" for name, count in sorted(removed.items())) or "none",
            originals,
        )

    @contextmanager
    def _rewriting_alone(self) -> Iterator[None]:
        """Hold the upkeep lease and the compaction window for an erasure's rewrite of
        the tables, as upkeep does for a compaction: another process compacting or
        updating beside it would preempt one of the rewrites and leave its files
        behind. Waits for the lease at most its time to live (its holder died); keeps it,
        and the window, renewed while the rewrite runs."""
        if self.upkeep_lease is None:
            yield
            return
        lease = self.upkeep_lease
        waited = time.monotonic()
        taken = True
        while not lease.take(time.time_ns(), alone=False):
            if time.monotonic() - waited > lease.ttl_ns / 1e9:
                log.warning("the upkeep lease is held too long: erasing beside its holder")
                taken = False
                break
            time.sleep(0.2)
        window = self.window is not None and self.window.acquire(time.time_ns())
        if window:
            time.sleep(WINDOW_GRACE_SECONDS)  # updates already under way land first
        held: list[Callable[[], object]] = [lambda: lease.acquire(time.time_ns())] if taken else []
        if window and self.window is not None:
            compaction_window = self.window
            held.append(lambda: compaction_window.acquire(time.time_ns()))
        try:
            with renewing(held, LEASE_RENEW_SECONDS):  # a rewrite may outlast them
                yield
        finally:
            if window and self.window is not None:
                self.window.release()
                self._window_releases += 1
            if taken:
                lease.give_back()
