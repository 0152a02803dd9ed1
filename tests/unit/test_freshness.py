"""How fresh an answer is: the pure computation (:mod:`memstream.queries.freshness`)
and what the gauge decides, with time passed in
(:mod:`memstream.application.freshness_gauge`)."""

from __future__ import annotations

from memstream.application.freshness_gauge import (
    ENDS_BACKOFF_SECONDS,
    ENDS_EVERY_SECONDS,
    SAMPLE_KEPT_SECONDS,
    VECTORS_FRESH_SECONDS,
    VECTORS_KEPT_SECONDS,
    FreshnessGauge,
    LogEnds,
)
from memstream.queries.freshness import freshness_of
from memstream.storage.log_records import LogPosition
from memstream.storage.write_tokens import parse_token

EPOCH = "e1"


def at(topic: str, partition: int, offset: int, epoch: str = EPOCH) -> LogPosition:
    return LogPosition(epoch, topic, partition, offset)


def test_freshness_names_the_users_partitions_and_counts_what_waits_there() -> None:
    checkpoints = {("m", 1): at("m", 1, 9), ("m", 2): at("m", 2, 50), ("d", 1): at("d", 1, 3)}
    ends = {("m", 1): 15, ("m", 2): 99, ("d", 1): 4}
    found = freshness_of(1, checkpoints, ends, EPOCH, 7)
    assert parse_token(found.position or "").positions == {("m", 1): 9, ("d", 1): 3}
    assert found.pending_writes == 5  # 10..14 of m/1; d/1 is applied to its end
    assert found.pending_vectors == 7


def test_pending_writes_count_what_the_worker_applied_not_what_the_read_holds() -> None:
    held = {("m", 1): at("m", 1, 9)}  # what the read's views are known to hold
    applied = {("m", 1): at("m", 1, 14)}  # what the worker has applied since
    found = freshness_of(1, held, {("m", 1): 15}, EPOCH, None, applied=applied)
    assert parse_token(found.position or "").positions == {("m", 1): 9}
    assert found.pending_writes == 0
    assert freshness_of(1, None, None, EPOCH, None).position is None  # nothing known yet


def test_unknown_ends_and_an_older_life_of_the_log() -> None:
    checkpoints = {("m", 0): at("m", 0, 9, "old")}
    assert freshness_of(0, checkpoints, None, EPOCH, None).pending_writes is None
    # checkpoints of another life of the log applied none of this one
    assert freshness_of(0, checkpoints, {("m", 0): 4}, EPOCH, None).pending_writes == 4
    nothing = freshness_of(0, {}, {("m", 0): 0}, EPOCH, 0)
    assert nothing.position is None and nothing.pending_writes == 0


def test_a_sample_is_reflected_only_once_the_views_may_have_moved_past_it() -> None:
    gauge = FreshnessGauge(stale_seconds=0.5)
    assert gauge.reflected(100.0) is None and gauge.sample_due(100.0)
    first = {("m", 0): at("m", 0, 1)}
    gauge.sampled(100.0, first, refreshed=False)
    assert gauge.reflected(100.4) is None  # a view may still be older than the sample
    assert gauge.reflected(100.5) == first
    assert not gauge.sample_due(100.2) and gauge.sample_due(100.25)
    second = {("m", 0): at("m", 0, 2)}
    gauge.sampled(101.0, second, refreshed=False)
    assert gauge.reflected(101.2) == first  # the newer one is not reflected yet
    assert gauge.reflected(101.5) == second
    # after a pause the read must read the checkpoints itself; what it reflects is the
    # newest sample reflected, however old (a lower bound holds forever)
    assert gauge.applied(101.0 + SAMPLE_KEPT_SECONDS) == second
    assert gauge.applied(101.0 + SAMPLE_KEPT_SECONDS + 0.01) is None
    assert gauge.reflected(101.0 + SAMPLE_KEPT_SECONDS + 0.01) == second
    third = {("m", 0): at("m", 0, 3)}
    gauge.sampled(200.0, third, refreshed=True)  # every table brought up to date after it
    assert gauge.reflected(200.0) == third


def test_views_that_never_move_reflect_only_samples_taken_with_a_refresh() -> None:
    gauge = FreshnessGauge(stale_seconds=None)
    gauge.sampled(1.0, {("m", 0): at("m", 0, 1)}, refreshed=False)
    assert gauge.reflected(50.0) is None and not gauge.sample_due(50.0)
    gauge.sampled(2.0, {("m", 0): at("m", 0, 1)}, refreshed=True)
    assert gauge.reflected(2.5) == {("m", 0): at("m", 0, 1)}


def test_one_background_task_of_each_kind_at_a_time() -> None:
    gauge = FreshnessGauge(stale_seconds=0.5)
    assert gauge.ends_due(0.0) and gauge.start("ends") and not gauge.start("ends")
    assert not gauge.ends_due(0.0)  # under way
    gauge.ended(LogEnds(0.0, {("m", 0): 3}, EPOCH), 0.0)
    gauge.finish("ends")
    assert not gauge.ends_due(ENDS_EVERY_SECONDS - 0.1) and gauge.ends_due(ENDS_EVERY_SECONDS)
    gauge.start("checkpoints")
    assert not gauge.sample_due(10.0)
    gauge.finish("checkpoints")
    assert gauge.sample_due(10.0)


def test_a_broker_that_does_not_answer_is_asked_less_and_less_often() -> None:
    gauge = FreshnessGauge(stale_seconds=0.5)
    gauge.ended(LogEnds(0.0, {("m", 0): 3}, EPOCH), 0.0)
    at, waits = 10.0, []
    for _ in range(8):
        gauge.ended(None, at)  # the broker did not answer: pending writes unknown again
        assert gauge.ends() is None
        wait = next(w for w in (2.0**n for n in range(1, 7)) if gauge.ends_due(at + w))
        waits.append(wait)
        at += wait
    assert waits == [2, 4, 8, 16, 32, 64, 64, 64] and ENDS_BACKOFF_SECONDS == 60
    gauge.ended(LogEnds(at, {}, EPOCH), at)  # it answers again: every 2 s
    assert gauge.ends_due(at + ENDS_EVERY_SECONDS)


def test_a_users_vector_count_is_kept_then_counted_beside_then_by_the_read() -> None:
    gauge = FreshnessGauge(stale_seconds=0.5)
    assert gauge.pending_vectors("ana", 0.0) == (None, False)
    gauge.counted("ana", 10.0, 4)
    assert gauge.pending_vectors("ana", 10.0 + VECTORS_FRESH_SECONDS) == (4, False)
    assert gauge.pending_vectors("ana", 10.0 + VECTORS_FRESH_SECONDS + 0.1) == (4, True)
    gauge.start("vectors:ana")
    assert gauge.pending_vectors("ana", 10.0 + VECTORS_FRESH_SECONDS + 0.1) == (4, False)
    gauge.counted("ana", 9.0, 8)  # an older count arriving late does not win
    assert gauge.pending_vectors("ana", 10.5)[0] == 4
    assert gauge.pending_vectors("ana", 10.0 + VECTORS_KEPT_SECONDS + 0.1) == (None, False)


def test_an_older_read_that_ends_late_never_takes_a_position_back() -> None:
    """Two reads at once: the one that read older checkpoints refreshes last; what the
    views are known to hold stays the newer (a token it covers needs no wait)."""
    gauge = FreshnessGauge(stale_seconds=0.5)
    gauge.sampled(1.0, {("m", 1): at("m", 1, 9)}, refreshed=True)
    gauge.sampled(1.1, {("m", 1): at("m", 1, 6), ("d", 1): at("d", 1, 2)}, refreshed=True)
    assert gauge.reflected(1.1) == {("m", 1): at("m", 1, 9), ("d", 1): at("d", 1, 2)}
    # a sample not reflected yet takes nothing it does not hold into an earlier moment
    gauge.sampled(1.2, {("m", 1): at("m", 1, 12)}, refreshed=False)
    assert gauge.reflected(1.5)[("m", 1)].offset == 9  # type: ignore[index]
    assert gauge.reflected(1.7)[("m", 1)].offset == 12  # type: ignore[index]
