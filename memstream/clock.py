"""Time as an input: a :data:`Clock` is any callable answering the current UTC time.

Production code takes a clock (default :func:`system_clock`); tests pass
:class:`memstream.testing.FakeClock` and move time forward themselves.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

__all__ = ["Clock", "system_clock"]

#: Answers the current time, timezone-aware UTC.
Clock = Callable[[], datetime]


def system_clock() -> datetime:
    """The wall clock, in UTC."""
    return datetime.now(UTC)
