"""The lifecycle timer's schedule, driven by a fake clock: ticks wait for ingest (up to a
limit), published closures are left alone a while, failed ones back off exponentially,
and decay, reflection and archival come due on the leader only."""

from __future__ import annotations

from memstream.jobs.lifecycle_schedule import Cadence, LifecycleSchedule
from memstream.testing import FakeClock

CADENCE = Cadence(tick=10, max_defer=60, decay=3600, reflect=86400, archive=7200)


def _schedule() -> tuple[LifecycleSchedule, FakeClock]:
    clock = FakeClock()
    return LifecycleSchedule(CADENCE, clock), clock


def test_a_backlog_defers_ticks_up_to_the_limit() -> None:
    schedule, clock = _schedule()
    assert schedule.start_tick(backlogged=False)
    clock.advance(seconds=30)
    assert not schedule.start_tick(backlogged=True)
    clock.advance(seconds=29)
    assert not schedule.start_tick(backlogged=True)
    clock.advance(seconds=1)
    assert schedule.start_tick(backlogged=True)  # 60 s since the last tick: run anyway
    assert not schedule.start_tick(backlogged=True)


def test_published_closures_are_skipped_until_they_expire() -> None:
    schedule, clock = _schedule()
    schedule.published("ana/s1")
    clock.advance(seconds=300)
    assert schedule.start_tick(backlogged=False) and schedule.skipped() == {"ana/s1"}
    clock.advance(seconds=1)
    assert schedule.start_tick(backlogged=False) and schedule.skipped() == frozenset()


def test_failed_closures_back_off_doubling_up_to_the_limit() -> None:
    schedule, clock = _schedule()
    delays = [schedule.failed("ana/s1")[1] for _ in range(8)]
    assert delays == [20, 40, 80, 160, 320, 640, 900, 900]
    assert schedule.skipped() == {"ana/s1"}
    clock.advance(seconds=899)
    assert schedule.skipped() == {"ana/s1"}
    clock.advance(seconds=2)
    assert schedule.skipped() == frozenset()  # tried again at this tick
    schedule.published("ana/s1")  # it went through: the failures are forgotten
    clock.advance(seconds=301)
    schedule.start_tick(backlogged=False)
    assert schedule.failed("ana/s1") == (1, 20)


def test_periodic_jobs_come_due_on_the_leader() -> None:
    schedule, clock = _schedule()
    assert schedule.due("decay", leader=True) and schedule.due("reflect", leader=True)
    assert not schedule.due("decay", leader=False)
    assert not schedule.due("archive", leader=True)  # one period after the start
    schedule.ran("decay")
    clock.advance(seconds=3599)
    assert not schedule.due("decay", leader=True)
    clock.advance(seconds=1)
    assert schedule.due("decay", leader=True)
    clock.advance(seconds=3600)
    assert schedule.due("archive", leader=True)
    schedule.ran("archive")
    assert not schedule.due("archive", leader=True)
    assert schedule.due("reflect", leader=True)  # never ran (a failed run does not count)
