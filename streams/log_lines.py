"""How a long-running memstream process logs: one format, and no floods.

A failure that repeats (a client library that cannot reach the broker logs every retry,
ten a second) is logged the first time, then left out; the first line of the same kind
after :data:`QUIET_SECONDS` says how many were left out. Lines are of the same kind when
they come from the same logger, at the same level, with the same message template.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

__all__ = ["QUIET_SECONDS", "RepeatSummary", "configure_logging"]

#: How long lines of one kind are left out after one is written.
QUIET_SECONDS = 60.0
_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


class RepeatSummary(logging.Filter):
    """Lets the first line of each kind through, then one per :data:`QUIET_SECONDS`
    carrying the count of those left out in between."""

    def __init__(self, quiet: float = QUIET_SECONDS, clock: Callable[[], float] = time.monotonic):
        super().__init__()
        self._quiet = quiet
        self._clock = clock
        self._seen: dict[tuple[str, int, str], list[float]] = {}  # kind -> [written at, left out]
        self._lock = threading.Lock()

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno < logging.WARNING:
            return True
        kind = (record.name, record.levelno, str(record.msg))
        now = self._clock()
        with self._lock:
            seen = self._seen.get(kind)
            if seen is not None and now - seen[0] < self._quiet:
                seen[1] += 1
                return False
            left_out = int(seen[1]) if seen is not None else 0
            self._seen[kind] = [now, 0]
        if left_out:
            record.msg = f"{record.msg} ({left_out} more like this in the last {self._quiet:.0f} s)"
        return True


def configure_logging(level: str) -> None:
    """Log at ``level`` to standard error, each kind of warning at most once a minute."""
    logging.basicConfig(level=level.upper(), format=_FORMAT)
    for handler in logging.getLogger().handlers:
        if not any(isinstance(f, RepeatSummary) for f in handler.filters):
            handler.addFilter(RepeatSummary())
