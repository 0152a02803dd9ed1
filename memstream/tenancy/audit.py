"""The audit log: one JSON line per change of memory, per change of keys, and per
refused request (a security event).

Each line says when, which key (id and tenant; none on a server without keys), what
operation, on which user, and how it ended (the HTTP status): never the content. The
lines go to ``logs/audit.jsonl`` in the data folder's local state (appended by every
process: the API, the command line's key commands) and to the ``memstream.audit``
logger.

Refusals (401, 403) are lines with ``"operation": "refused"``, the request's method and
route and why. Someone probing can refuse thousands a second, so each key (or each
caller without a valid key) writes at most :data:`REFUSALS_PER_MINUTE` such lines a
minute; past that, refusals are counted, and the next line of that key says how many
were left out (``"refusals_left_out"``).
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path

__all__ = ["AUDIT_FILE", "REFUSALS_PER_MINUTE", "AuditLog"]

AUDIT_FILE = "audit.jsonl"
#: Most refusal lines one key (or the keyless) writes in a minute.
REFUSALS_PER_MINUTE = 20

log = logging.getLogger("memstream.audit")


class AuditLog:
    """Appends audit lines to ``folder/audit.jsonl`` (see the module docstring)."""

    def __init__(self, folder: Path, clock: Callable[[], float] = time.monotonic) -> None:
        self.path = folder / AUDIT_FILE
        self._lock = threading.Lock()
        self._clock = clock
        #: per key id (None: no valid key): the minute's start, lines written, left out
        self._refusals: dict[str | None, list[float]] = {}

    def refused(
        self,
        *,
        key_id: str | None,
        tenant: str | None,
        status: int,
        reason: str,
        where: str,
        user_id: str | None = None,
    ) -> None:
        """Record a refused request, at most :data:`REFUSALS_PER_MINUTE` lines a minute
        per key; the first line after a full minute says how many were left out."""
        now = self._clock()
        with self._lock:
            window = self._refusals.setdefault(key_id, [now, 0, 0])
            if now - window[0] >= 60:
                window[:] = [now, 0, window[2]]
            if window[1] >= REFUSALS_PER_MINUTE:
                window[2] += 1
                return
            window[1] += 1
            left_out, window[2] = int(window[2]), 0
        detail: dict[str, str | int | None] = {"route": where[:200], "reason": reason}
        if left_out:
            detail["refusals_left_out"] = left_out
        self.record(
            "refused",
            key_id=key_id,
            tenant=tenant,
            user_id=user_id,
            status=status,
            detail=detail,
        )

    def record(
        self,
        operation: str,
        *,
        key_id: str | None,
        tenant: str | None,
        user_id: str | None = None,
        status: int | None = None,
        at: datetime | None = None,
        detail: Mapping[str, str | int | None] | None = None,
    ) -> None:
        """Append one line (``detail``: more fields, such as the key a change made)."""
        line = {
            "at": (at or datetime.now(UTC)).isoformat(),
            "key_id": key_id,
            "tenant": tenant,
            "operation": operation,
            "user_id": user_id,
            "status": status,
            **(detail or {}),
        }
        text = json.dumps(line, ensure_ascii=False) + "\n"
        with self._lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                os.write(fd, text.encode())
            finally:
                os.close(fd)
        log.info("%s", text.rstrip())
