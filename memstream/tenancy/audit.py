"""The audit log: one JSON line per change of memory and per change of keys.

Each line says when, which key (id and tenant; none on a server without keys), what
operation, on which user, and how it ended (the HTTP status): never the content. The
lines go to ``logs/audit.jsonl`` in the data folder's local state (appended by every
process: the API, the command line's key commands) and to the ``memstream.audit``
logger.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path

__all__ = ["AUDIT_FILE", "AuditLog"]

AUDIT_FILE = "audit.jsonl"

log = logging.getLogger("memstream.audit")


class AuditLog:
    """Appends audit lines to ``folder/audit.jsonl`` (see the module docstring)."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / AUDIT_FILE
        self._lock = threading.Lock()

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
