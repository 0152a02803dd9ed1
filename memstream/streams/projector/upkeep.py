"""Upkeep of the projection tables: compaction and index building, one process at a time:
the insert-only tables beside the writers (the fragments holding a live fence row left
out, :mod:`memstream.storage.lance.fenced_compaction`), the others inside the compaction
window that writers of the other workers wait on; and the look for keys held twice
among the rows written since the last one."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import timedelta

from memstream.storage.lance.key_checks import NewKeys, end_address
from memstream.storage.lance.store import is_commit_conflict
from memstream.storage.lance.tables import INSERT_ONLY
from memstream.streams.projector.core import (
    CLAIMS_TABLES,
    WINDOW_GRACE_SECONDS,
    ProjectorCore,
)

log = logging.getLogger(__name__)

__all__ = ["LEASE_RENEW_SECONDS", "Upkeep", "renewing"]

#: How often the leases upkeep holds (its own, the compaction window) are renewed while
#: one table is compacted: a compaction of a large table on a loaded machine can outlast
#: a lease's time to live, and another process would take it and compact beside it.
LEASE_RENEW_SECONDS = 10.0


@contextmanager
def renewing(renewals: Sequence[Callable[[], object]], every: float) -> Iterator[None]:
    """Call each of ``renewals`` every ``every`` seconds while the block runs (on a
    thread of its own, stopped and joined when the block ends)."""
    if not renewals:
        yield
        return
    stop = threading.Event()

    def renew() -> None:
        while not stop.wait(every):
            for renewal in renewals:
                try:
                    renewal()
                except Exception:  # the next tick tries again; upkeep goes on
                    log.warning("renewing a lease during upkeep failed", exc_info=True)

    thread = threading.Thread(target=renew, name="upkeep-leases", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


class Upkeep(ProjectorCore):
    """The projector's table upkeep (see the module docstring)."""

    def upkeep(self, retain: timedelta, still_mine: Callable[[], bool] | None = None) -> None:
        """Compact the tables (dropping versions older than ``retain``, and the moments
        recorded before then) and the archive;
        with ``still_mine`` (renewing the upkeep lease), stop as soon as it says False.

        LanceDB rejects a compaction preempted by a concurrent update of the same rows
        (and leaves the rewrite's files behind). The leases upkeep holds are renewed
        every :data:`LEASE_RENEW_SECONDS` while a table is compacted, so a compaction
        that outlasts a lease's time to live (a large table, a loaded machine) is not
        joined by another process's.

        The insert-only tables (``memories``, ``vectors``, ``served``, ``dead_letters``,
        ``moments``) are compacted first, while batches keep flowing: a compaction
        rewrites up to a million rows of each (seconds), too long to hold writers back.
        Their writers update a fence row with each insert, and an update deletes a row,
        which would preempt a compaction of the fragment holding it: the fragments
        holding a live fence row are left out of the compaction
        (:mod:`memstream.storage.lance.fenced_compaction`), so writers keep their fence
        rows and their merges through the key's index throughout.

        The small tables whose rows are updated are compacted together, holding this
        process's write lock and, with several workers, the compaction window: the
        other workers wait before their next batch or update, and the compaction starts
        only :data:`WINDOW_GRACE_SECONDS` after the window was taken, so that updates
        already under way land first. This process keeps applying batches during that
        grace: its write lock is taken after it, for the compaction alone. An index a
        table lacks (the vectors' ANN index once they are many) is built after the
        window: building one does not conflict with writes, and can take minutes.

        Before any of it, every keyed table is looked at for keys held twice, among the
        rows written since the last look only, holding no lock (:meth:`_check_keys`);
        copies found in an insert-only table are dropped inside the window.

        A table no commit has changed since this process's last upkeep of it began is
        left alone (:meth:`_due`): there is nothing to compact, index or look at, and
        the versions that upkeep kept are not old enough to remove before ``retain`` has
        passed. An idle deployment's upkeep then reads each table's latest version and
        writes nothing (it was 0.3 s of CPU a tick with every table empty).
        """
        self.flush()
        # the moments whose versions this upkeep removes can no longer be read as of
        self.store.upkeep.prune_moments(self._clock() - retain)
        self.store.upkeep.prune_served(self._clock() - self.retain_served)
        due = self._due(retain)
        repeated = self._check_keys(due)  # reads only: beside the batches, under no lock
        inserted = [n for n in due if n in INSERT_ONLY]
        updated = [n for n in due if n not in INSERT_ONLY]
        held: list[Callable[[], object]] = [still_mine] if still_mine is not None else []
        preempted: set[str] = set()
        for name in inserted:
            if still_mine is not None and not still_mine():
                log.warning("the upkeep lease was lost: stopping upkeep before %s", name)
                return
            # never beside an erasure's rewrite; the lease kept while the table takes
            with self._compacting, renewing(held, LEASE_RENEW_SECONDS):
                if not self._optimize(name, retain):
                    preempted.add(name)
        if still_mine is not None and not still_mine():
            return
        if not updated and not repeated:  # nothing to do inside the window
            if self._indexes_and_archive(list(due), held, still_mine):
                self._upkept(due, preempted)
            return
        releases = self._window_releases
        if self.window is not None:
            if not self.window.acquire(time.time_ns()):
                log.warning("another process holds the compaction window: skipping")
                return
            # Other processes' updates already under way land first; this process's
            # own go on meanwhile (its write lock is taken only for the compaction).
            time.sleep(WINDOW_GRACE_SECONDS)
        with self._writing, self._compacting:
            if self.window is not None and self._window_releases != releases:
                # an erasure here released the window during the grace: take it again
                if not self.window.acquire(time.time_ns()):
                    log.warning("another process holds the compaction window: skipping")
                    return
                time.sleep(WINDOW_GRACE_SECONDS)
            window = self.window
            kept = [*held, lambda: window.acquire(time.time_ns())] if window else held
            try:
                with renewing(kept, LEASE_RENEW_SECONDS):
                    self._drop_copies(repeated)
                    for name in updated:
                        if not self._optimize(name, retain):
                            preempted.add(name)
            finally:
                if self.window is not None:
                    self.window.release()
        if self._indexes_and_archive(list(due), held, still_mine):
            self._upkept(due, preempted)

    def _indexes_and_archive(
        self,
        due: Sequence[str],
        held: Sequence[Callable[[], object]],
        still_mine: Callable[[], bool] | None,
    ) -> bool:
        """Upkeep's last steps: the indexes the ``due`` tables lack, then the event
        archive's small files merged; False when the lease was lost before the
        indexes."""
        if still_mine is not None and not still_mine():
            return False
        if due:
            with self._compacting, renewing(held, LEASE_RENEW_SECONDS):
                self.store.upkeep.ensure_indexes(due)
        if self._archive is not None and (still_mine is None or still_mine()):
            removed = self._archive.compact()
            if removed:
                log.debug("event archive: %d small files merged", removed)
        return True

    def _due(self, retain: timedelta) -> dict[str, int]:
        """The tables upkeep should look at now, each with the version read here: those
        a commit changed since this process's last whole upkeep of them began (its own
        compaction's commit included: the next upkeep finds nothing left and records the
        version that left), and those whose last upkeep is ``retain`` old, whose kept
        versions may now be removed."""
        now = self._clock()
        due = {}
        for name in self.store.table_names:
            version = self.store.version(name)
            last = self.upkept.get(name)
            if last is None or last[0] != version or now - last[1] >= retain:
                due[name] = version
        return due

    def upkeep_due(self, retain: timedelta) -> bool:
        """Whether an upkeep now would find a table to look at besides the claims
        tables (which upkeep's own lease writes to, each time it is taken): when not,
        the timer need not take the lease at all."""
        return any(name not in CLAIMS_TABLES for name in self._due(retain))

    def _upkept(self, due: dict[str, int], preempted: set[str]) -> None:
        """Record the ``due`` tables as upkept from the versions read before (a commit
        that landed meanwhile makes a table due again); not those whose compaction lost
        a commit race, retried next time."""
        now = self._clock()
        for name, version in due.items():
            if name not in preempted:
                self.upkept[name] = (version, now)

    def look_for_keys_from_here(self) -> None:
        """Start upkeep's looks for keys held twice at the rows written from now on.

        A worker calls it as it starts: the rows already held were looked at by the
        worker that wrote them (all but those it wrote after its last look), and a
        first look over all of them would read every key of every table, minutes at
        millions of rows, before this upkeep compacts anything."""
        for name in self.store.table_names:
            self.keys_checked[name] = end_address(self.store.table(name))

    def _check_keys(self, names: Iterable[str] | None = None) -> dict[str, NewKeys]:
        """Look for a key held twice among the rows every keyed table (or those of
        ``names``) got since the last
        look (no write should make one; :mod:`memstream.storage.lance.key_checks`): say
        so loudly; answer those of the insert-only tables, whose copies are the same row
        (:meth:`_drop_copies` keeps one of each). Reads only, at a cost that grows with
        the rows written since, so it runs outside the write lock and the window."""
        found: dict[str, NewKeys] = {}
        for name in self.store.table_names if names is None else names:
            looked = self.store.upkeep.new_keys_held_twice(name, self.keys_checked.get(name, 0))
            if looked.repeated and name in INSERT_ONLY:
                found[name] = looked  # looked at again until their copies are dropped
                continue
            self.keys_checked[name] = looked.upto
            if not looked.repeated:
                continue
            self.duplicates_found += len(looked.repeated)
            log.error(
                "%s: %d keys held twice (first: %s): a write raced past the key's conflict check",
                name,
                len(looked.repeated),
                ", ".join(looked.repeated[:5]),
            )
        return found

    def _drop_copies(self, repeated: dict[str, NewKeys]) -> None:
        """Keep one row of each key an insert-only table holds twice. Runs inside the
        compaction window, under the write lock: nothing else writes meanwhile."""
        for name, looked in repeated.items():
            dropped = self.store.upkeep.drop_duplicate_keys(name, looked.repeated)
            self.keys_checked[name] = looked.upto
            if dropped:
                self.duplicates_dropped += dropped
                log.error("%s: %d rows of keys held twice dropped (one of each kept)",
                          name, dropped)  # fmt: skip

    def _optimize(self, name: str, retain: timedelta) -> bool:
        """Compact one table (an insert-only one beside its writers, around its fence
        rows); one that lost a commit race is left to the next upkeep (False).

        The claims tables (leases, partition owners) are written by processes claiming
        partitions and renewing leases, which cannot wait for the compaction window (a
        rebalance would stall behind it): their compaction may lose a race to a claim,
        as expected, and is retried by the next upkeep like any other."""
        try:
            if name in INSERT_ONLY:
                self.store.upkeep.compact_beside_writers(name, retain)
            else:
                self.store.upkeep.optimize_table(name, retain, build_missing_indexes=False)
        except Exception as exc:
            if not is_commit_conflict(exc):
                raise
            if name in CLAIMS_TABLES:
                log.info("compacting %s met a claim (%s): retried at the next upkeep", name, exc)
                return False
            self.compactions_preempted += 1
            log.warning("compacting %s lost a commit race (%s): the next upkeep retries", name, exc)
            return False
        return True
