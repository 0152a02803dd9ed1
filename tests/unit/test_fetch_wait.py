"""The projection consumer's fetch wait: short while records flow and for a quiet spell
after, longer once the log has been quiet that long, short again with the next record."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from memstream.streams.fetch_wait import FetchWait


def test_the_wait_is_short_at_first_and_while_records_flow() -> None:
    waits = FetchWait(active_ms=50, idle_ms=250, quiet_seconds=10)
    assert waits.after(0, now=100.0) == 50  # a fresh start counts as activity
    assert waits.after(5, now=105.0) == 50
    assert waits.after(0, now=114.9) == 50


def test_the_wait_grows_after_a_quiet_spell_and_shrinks_with_the_next_record() -> None:
    waits = FetchWait(active_ms=50, idle_ms=250, quiet_seconds=10)
    waits.after(3, now=0.0)
    assert waits.after(0, now=10.0) == 250
    assert waits.after(0, now=500.0) == 250
    assert waits.after(1, now=500.3) == 50
    assert waits.after(0, now=505.0) == 50


@given(st.lists(st.tuples(st.integers(0, 3), st.floats(0, 30)), max_size=40))
def test_the_wait_is_idle_exactly_when_no_record_came_for_the_quiet_spell(
    steps: list[tuple[int, float]],
) -> None:
    waits = FetchWait(active_ms=50, idle_ms=250, quiet_seconds=10)
    now, last = 0.0, 0.0
    waits.after(0, now)
    for fetched, gap in steps:
        now += gap
        if fetched:
            last = now
        expected = 250 if now - last >= 10 else 50
        assert waits.after(fetched, now) == expected
