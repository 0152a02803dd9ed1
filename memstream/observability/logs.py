"""How a long-running memstream process logs: quiet, one format, and no floods.

memstream's own loggers log at ``log_level``; the libraries under it (faust, mode,
aiokafka, the MCP server, uvicorn, httpx) only their warnings and errors, unless
``log_level`` is ``DEBUG``: their INFO lines (supervisors starting, group joins, topic
subscriptions) are how they work, not news. faust's "stream has not started processing"
and "has not committed" errors are left out: they fire on partitions that simply have no
traffic; so are its "no fetch request since start" errors, which it measures from the
consumer's start, so that a partition a rebalance assigns later is reported before its
first fetch; a partition that really stalls is reported by memstream's own watch
(:mod:`memstream.observability.lag`). ``log_format="json"`` writes one JSON object per line
(``python-json-logger``).

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

__all__ = ["QUIET_SECONDS", "IdleStreamNoise", "RepeatSummary", "configure_logging"]

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


#: The libraries whose INFO lines are left out unless the level is DEBUG.
QUIET_LIBRARIES = ("faust", "mode", "aiokafka", "kafka", "mcp", "uvicorn", "httpx", "lancedb")

#: faust's checks that fire on idle partitions (see the module docstring).
_IDLE_STREAM_MARKERS = (
    "Stream has not started processing",
    "Stream stopped processing, or is slow",
    "Has not committed",
    "Highwater not yet available",
    # measured from the consumer's start, not the partition's assignment: a partition
    # a rebalance assigns later than the threshold is reported before its first fetch
    "has not sent fetch request for %r since start",
    "has not received fetch response for %r since start",
)


#: What aiokafka says at WARNING while a consumer group rebalances as it should (a
#: worker joined or left): how a group works, not a problem.
_REBALANCING_MARKERS = ("because it is rebalancing",)


class IdleStreamNoise(logging.Filter):
    """Leaves out faust's slow-processing errors about partitions without traffic, and
    aiokafka's warnings that a group is rebalancing."""

    def filter(self, record: logging.LogRecord) -> bool:
        text = str(record.msg)
        return not any(m in text for m in (*_IDLE_STREAM_MARKERS, *_REBALANCING_MARKERS))


def configure_logging(level: str, log_format: str = "text") -> None:
    """Log at ``level`` to standard error (``log_format`` ``text`` or ``json``), the
    libraries quiet, each kind of warning at most once a minute."""
    level = level.upper()
    root = logging.getLogger()
    handler = (
        next((h for h in root.handlers if getattr(h, "memstream", False)), None)
        or logging.StreamHandler()
    )
    handler.memstream = True  # type: ignore[attr-defined]
    handler.setFormatter(_formatter(log_format))
    if not any(isinstance(f, RepeatSummary) for f in handler.filters):
        handler.addFilter(RepeatSummary())
    if handler not in root.handlers:
        root.addHandler(handler)
    root.setLevel(level)
    for name in QUIET_LIBRARIES:
        logging.getLogger(name).setLevel(logging.NOTSET if level == "DEBUG" else logging.WARNING)
    if level == "DEBUG":
        return
    for name in ("faust.transport.drivers.aiokafka", "aiokafka.consumer.group_coordinator"):
        noisy = logging.getLogger(name)
        if not any(isinstance(f, IdleStreamNoise) for f in noisy.filters):
            noisy.addFilter(IdleStreamNoise())


def _formatter(log_format: str) -> logging.Formatter:
    if log_format != "json":
        return logging.Formatter(_FORMAT)
    from pythonjsonlogger.json import JsonFormatter

    return JsonFormatter(
        "%(asctime)s %(levelname)s %(name)s %(message)s",
        rename_fields={"asctime": "time", "levelname": "level", "name": "logger"},
    )
